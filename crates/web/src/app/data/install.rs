//! The end of every load, in two steps: [`decide`] reads the parser's reply against the setup
//! and returns what the page becomes (no signal is touched), then [`store`] writes it; a link
//! opened again then shows what was kept of its experiment ([`restore`]: read, decide, store).

use std::sync::Arc;

use leptos::prelude::*;

use super::kept::{read_experiment, take_back_unconfirmed};
use super::roles::role_of;
use crate::app::platform::browser::{mark_root, now_ms};
use crate::app::platform::workers::ParseReply;
use crate::app::state::{AppState, Level, RoleEditor, RunStatus, Topic, UserFile};
use hpo_engine::axis::count;
use hpo_engine::benchmark::Benchmark;
use hpo_engine::kept::{experiment_id, ExperimentRecord};
use hpo_engine::loaders::file_format::FileFormat;
use hpo_engine::loaders::notes::Note;
use hpo_engine::loaders::table::ColumnRoles;
use hpo_engine::loaders::upload::LoadFailure;
use hpo_engine::setup::SetupMessage;
use hpo_engine::spec::{DataRef, ExperimentSpec, ResolvedSpec};
use hpo_engine::trace::Trace;
use hpo_protocol::EncodedBenchmark;

/// What was read and how: the parse's request, which the reply is decided against.
pub(super) struct Read {
    /// What the link will call the data.
    pub data: DataRef,
    /// The user's file read (an upload or a download), if it is one.
    pub file: Option<UserFile>,
    /// A link being opened (or the data re-read): the setup stays as far as the data allows.
    pub keep_setup: bool,
    /// The roles the column editor named, when the file was read by them.
    pub roles: Option<ColumnRoles>,
    /// When the load began (ms since page load).
    pub t0: f64,
}

/// What a parse's reply makes of the page.
pub(super) enum Decision {
    /// The data is the page's now.
    Install(Box<Install>),
    /// A CSV whose columns the user must name: the editor opens on a guess.
    AskRoles { editor: RoleEditor, file: Option<UserFile> },
    /// The file could not be read; the data loaded before stays.
    Fail(String),
    /// The roles the editor named do not read the file: said beside its button.
    RolesRefused(String),
    /// The link's data could not be fetched: the page has no data (what it had before is not
    /// what a run of this setup would mean).
    Unavailable(String),
}

/// New data and everything that changes with it.
pub(super) struct Install {
    data: DataRef,
    bench: Arc<Benchmark>,
    encoded: EncodedBenchmark,
    /// The user's file and the format the parser found it in.
    file: Option<(UserFile, FileFormat)>,
    notes: Vec<Note>,
    repaired: bool,
    /// One line describing the data.
    info: String,
    /// The setup on the new data, and what fitting it said.
    spec: ExperimentSpec,
    said: Vec<SetupMessage>,
    best_task: String,
    /// Whether a link opened again: what was kept of its experiment is shown.
    restore: bool,
}

/// What the reply to `read` makes of the page, whose setup is `spec`.
pub(super) fn decide(spec: &ExperimentSpec, read: Read, (result, parse_ms): ParseReply) -> Decision {
    let Read { data, file, keep_setup, roles, t0 } = read;
    let named_roles = roles.is_some();
    match result {
        Ok((loaded, encoded)) => {
            let bench = loaded.benchmark;
            let info = format!(
                "{}: {}, {}, {} ({}), loaded in {:.0} ms (parsed off the page in {:.0} ms)",
                bench.name,
                count(bench.tasks.len(), "task"),
                count(bench.total_rows(), "evaluation"),
                count(bench.space.params.len(), "hyperparameter"),
                count(bench.space.encoded_dim(), "model input"),
                now_ms() - t0,
                parse_ms
            );
            // The link's column roles stay with its file; roles named in the editor replace them.
            let columns = if named_roles { roles } else { spec.columns.clone().filter(|_| keep_setup) };
            let mut spec = spec.clone();
            let said = spec.change_data(data.clone(), &bench, keep_setup, columns);
            Decision::Install(Box::new(Install {
                file: file.filter(|_| matches!(data, DataRef::Upload { .. } | DataRef::Url { .. })).map(|f| (f, loaded.format)),
                data,
                repaired: loaded.notes.iter().any(|n| matches!(n, Note::Repaired { .. })),
                notes: loaded.notes,
                info,
                spec,
                said,
                best_task: bench.tasks.first().map(|t| t.name.clone()).unwrap_or_default(),
                bench: Arc::new(bench),
                encoded,
                restore: keep_setup,
            }))
        }
        Err(LoadFailure::Error(e)) | Err(LoadFailure::NeedsRoles { message: e, .. }) if named_roles => Decision::RolesRefused(e),
        Err(LoadFailure::NeedsRoles { message, headers, preview, guess }) => {
            let roles = headers.iter().map(|h| role_of(&guess, h).to_string()).collect();
            Decision::AskRoles { editor: RoleEditor { file: data.file_name(), message, headers, preview, roles, error: None }, file }
        }
        Err(LoadFailure::Error(e)) => Decision::Fail(e),
    }
}

/// Writes what [`decide`] returned into the page's state.
pub(super) fn store(state: AppState, decision: Decision) {
    let data = state.data;
    data.loading.set(false);
    match decision {
        Decision::Install(install) => {
            let Install { data: data_ref, bench, encoded, file, notes, repaired, info, spec, said, best_task, restore: reopened } =
                *install;
            data.files.update_value(|f| {
                f.awaiting_roles = None;
                if let Some((file, format)) = file {
                    f.last = Some(file);
                    f.last_format = Some(format);
                }
            });
            data.repaired.set(repaired);
            state.messages.say_data_notes(&notes);
            if matches!(data_ref, DataRef::Upload { .. }) {
                data.pending_upload.set(None);
            }
            state.messages.clear(Level::Error);
            data.role_editor.set(None);
            data.info.set(info);
            state.spec.set(spec);
            // About this data: they go when other data is loaded (the loader's notes went just before).
            state.messages.tell_about(Topic::Data, said);
            state.run.best_task.set(best_task);
            data.encoded.set_value(Some((bench.clone(), encoded)));
            data.bench.set(Some(bench.clone()));
            // A link opened again (or the page reloaded) shows what was kept of its experiment.
            if reopened {
                leptos::task::spawn_local(async move {
                    restore(state, bench).await;
                    // Found or not: `<html data-kept-looked>` once the page has looked, which a
                    // test of "nothing was restored" waits for.
                    mark_root("kept-looked");
                });
            }
        }
        Decision::AskRoles { editor, file } => {
            if let Some(file) = file {
                data.files.update_value(|f| f.awaiting_roles = Some(file));
            }
            // The setup shows no other data's tasks meanwhile, and Run waits for the roles.
            data.bench.set(None);
            data.encoded.set_value(None);
            data.info.set(format!("{}: waiting for column roles", editor.file));
            data.role_editor.set(Some(editor));
        }
        Decision::Fail(e) => {
            data.info.set(if data.bench.with_untracked(Option::is_some) {
                "kept the previous data".into()
            } else {
                "no data loaded".into()
            });
            state.messages.say(Level::Error, e);
        }
        Decision::Unavailable(e) => {
            data.bench.set(None);
            data.encoded.set_value(None);
            data.info.set("no data loaded".into());
            state.messages.say(Level::Error, e);
        }
        Decision::RolesRefused(e) => {
            // Said beside the button that was pressed, as well as in the messages.
            data.role_editor.update(|ed| {
                if let Some(ed) = ed {
                    ed.error = Some(e.clone())
                }
            });
            state.messages.say(Level::Error, e);
        }
    }
}

/// A kept experiment shown again: its finished jobs, and how many remain.
struct Restored {
    resolved: ResolvedSpec,
    bench: Arc<Benchmark>,
    record: ExperimentRecord,
    finished: Vec<Trace>,
    remaining: usize,
    /// The task the best-so-far chart shows, when the shown one is not in the experiment.
    best_task: Option<String>,
}

/// When a link is opened on its data: shows what was kept of that very experiment, if
/// anything, and what remains to run.
async fn restore(state: AppState, bench: Arc<Benchmark>) {
    let spec = state.spec.get_untracked();
    let Ok(resolved) = spec.resolve(&bench) else { return };
    let id = experiment_id(&spec);
    let (record, traces) = match read_experiment(&id).await {
        Ok(Some(kept)) => kept,
        Ok(None) => return,
        Err(e) => {
            state.messages.say(Level::Warning, format!("Could not look for this experiment's kept results: {e}"));
            return;
        }
    };
    // The data or setup changed while reading: what was read is for another experiment.
    let still = state.data.bench.with_untracked(|b| b.as_ref().is_some_and(|b| Arc::ptr_eq(b, &bench)));
    if !still || experiment_id(&state.spec.get_untracked()) != id || state.run.status.with_untracked(|r| r.running) {
        return;
    }
    let (record, traces) = take_back_unconfirmed(state.kept, &id, record, traces).await;
    let shown_task = state.run.best_task.get_untracked();
    if let Some(restored) = decide_restore(resolved, bench, record, traces, &shown_task) {
        store_restored(state, restored);
    }
}

/// What of the kept `traces` the page shows: `None` when no job of the experiment is finished.
fn decide_restore(
    resolved: ResolvedSpec,
    bench: Arc<Benchmark>,
    record: ExperimentRecord,
    traces: Vec<Trace>,
    shown_task: &str,
) -> Option<Restored> {
    let (finished, remaining) = resolved.split_finished(&bench, traces);
    if finished.is_empty() {
        return None;
    }
    let shown_is_in = resolved.tasks.iter().any(|&t| bench.tasks[t].name == shown_task);
    let best_task = resolved.tasks.first().filter(|_| !shown_is_in).map(|&first| bench.tasks[first].name.clone());
    Some(Restored { resolved, bench, record, finished, remaining: remaining.len(), best_task })
}

fn store_restored(state: AppState, restored: Restored) {
    let Restored { resolved, bench, record, finished, remaining, best_task } = restored;
    let done = finished.len();
    let total = done + remaining;
    if let Some(task) = best_task {
        state.run.best_task.set(task);
    }
    let when = js_sys::Date::new(&record.saved_ms.into()).to_locale_string("en-GB", &wasm_bindgen::JsValue::UNDEFINED);
    state.messages.say_about(
        Topic::Run,
        Level::Info,
        if remaining == 0 {
            format!("Restored all {} of this experiment from this browser (kept {}).", count(total, "job"), String::from(when))
        } else {
            format!(
                "Restored {done} of {} of this experiment from this browser (kept {}); {} still to run.",
                count(total, "job"),
                String::from(when),
                count(remaining, "job")
            )
        },
        Vec::new(),
    );
    let units = resolved.mode.units();
    state.run.record.set(Some((record.clone(), false)));
    state.run.traces.set(finished);
    state.run.setup.set(Some((resolved, bench)));
    state.run.status.set(RunStatus {
        total_jobs: total,
        done_jobs: done,
        kept_jobs: done,
        iterations: units,
        restored: Some(record.saved_ms),
        ..RunStatus::default()
    });
}
