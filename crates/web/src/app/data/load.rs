//! Getting a benchmark into the page: bundled assets, the shared tables served beside the app,
//! and uploads (verified against the link's hash when a link names them). Files are parsed
//! in a dedicated Web Worker so that even a large table never freezes the page.

use std::sync::Arc;

use futures_channel::oneshot;
use leptos::prelude::*;

use crate::app::platform::browser::{fetch_bytes, file_bytes, now_ms};
use crate::app::platform::workers::ParseReply;
use crate::app::state::{AppState, Level, RoleEditor, Topic};
use hpo_engine::axis::count;
use hpo_engine::benchmark::{Benchmark, Direction, Metric};
use hpo_engine::content_hash;
use hpo_engine::loaders::notes::Note;
use hpo_engine::loaders::table::{ColumnRoles, LoadOptions};
use hpo_engine::loaders::upload::LoadFailure;
use hpo_engine::loaders::MAX_DECOMPRESSED_BYTES;
use hpo_engine::public_data::verify;
use hpo_engine::spec::DataRef;
use hpo_engine::spec::ExperimentSpec;
use hpo_protocol::{EncodedBenchmark, ToWorker};

/// Largest upload accepted, checked before reading the file.
pub const MAX_UPLOAD_BYTES: f64 = MAX_DECOMPRESSED_BYTES as f64;

/// How to read `data`: the link's options when it is being opened (or re-read), the
/// defaults for `data` when it is new.
fn options_for(state: AppState, data: &DataRef, keep_setup: bool) -> LoadOptions {
    let spec = if keep_setup { state.spec.get_untracked() } else { ExperimentSpec::default() };
    ExperimentSpec { data: data.clone(), ..spec }.load_options()
}

async fn parse_in_worker(state: AppState, file: String, bytes: Vec<u8>, options: LoadOptions) -> ParseReply {
    ask_worker(state, file, bytes, options, false).await
}

async fn ask_worker(state: AppState, file: String, bytes: Vec<u8>, options: LoadOptions, review: bool) -> ParseReply {
    let request = state.workers.next_request();
    state.workers.parser.ask(request, ToWorker::Parse { request, file, bytes, options: Box::new(options), review }).await
}

/// Reads the list of shared tables the build copied beside the app.
pub async fn load_shared_manifest(state: AppState) {
    if let Ok(bytes) = fetch_bytes("shared/manifest.json").await {
        if let Ok(files) = serde_json::from_slice::<Vec<String>>(&bytes) {
            state.data.shared_files.set(files);
        }
    }
}

thread_local! {
    /// The number of the newest load. A load that ends after a newer one began is dropped, so
    /// that a slow default table can never replace the file the user chose meanwhile (seen:
    /// the bundled table, still loading when a file was chosen, finished second and won).
    static NEWEST_LOAD: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Starts a load: its number.
fn begin_load() -> u64 {
    NEWEST_LOAD.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

/// Whether load `ticket` is still the newest.
fn is_newest(ticket: u64) -> bool {
    NEWEST_LOAD.with(|n| n.get() == ticket)
}

/// Loads the data a spec refers to. `keep_setup` keeps the spec's tasks and objective (a
/// link being opened); otherwise they are reset for the new data.
pub async fn load_ref(state: AppState, data: DataRef, keep_setup: bool) {
    let ticket = begin_load();
    state.data.role_editor.set(None);
    match &data {
        DataRef::Upload { name, sha256 } => {
            // A file kept in this browser is loaded without asking for it again.
            if let Ok(Some((file, bytes))) = crate::app::platform::store::get_file(sha256).await {
                if !is_newest(ticket) {
                    return;
                }
                if content_hash(&bytes) == *sha256 {
                    state.data.loading.set(true);
                    state.data.info.set(format!("parsing {name} (kept in this browser) in a worker…"));
                    let t0 = now_ms();
                    let data = DataRef::Upload { name: name.clone(), sha256: sha256.clone() };
                    let options = options_for(state, &data, keep_setup);
                    let reply = parse_in_worker(state, file.name.clone(), bytes.clone(), options).await;
                    if is_newest(ticket) {
                        finish_load(state, data, reply, keep_setup, t0, Some(bytes));
                    }
                    return;
                }
            }
            if !is_newest(ticket) {
                return;
            }
            state.data.bench.set(None);
            state.data.encoded.set_value(None);
            state.data.pending_upload.set(Some((name.clone(), sha256.clone())));
            state.data.info.set(format!("waiting for your file {name}"));
            state.say(
                Level::Info,
                format!(
                    "This link uses your file '{name}' (SHA-256 {}…). Choose or drop that file below to restore the experiment.",
                    &sha256[..12]
                ),
            );
        }
        DataRef::Url { url, sha256 } => load_url(state, ticket, url.clone(), sha256.clone(), keep_setup).await,
        DataRef::Bundled(name) | DataRef::Shared(name) => {
            let url = match &data {
                DataRef::Bundled(_) => format!("assets/{name}.csv"),
                _ => format!("shared/{name}"),
            };
            state.data.loading.set(true);
            state.data.info.set(format!("loading {name}…"));
            let t0 = now_ms();
            let fetched = fetch_bytes(&url).await;
            if !is_newest(ticket) {
                return;
            }
            match fetched {
                Ok(bytes) => {
                    let options = options_for(state, &data, keep_setup);
                    let reply = parse_in_worker(state, name.clone(), bytes, options).await;
                    if is_newest(ticket) {
                        finish_load(state, data.clone(), reply, keep_setup, t0, None);
                    }
                }
                Err(e) => {
                    state.data.loading.set(false);
                    state.data.bench.set(None);
                    state.data.encoded.set_value(None);
                    state.data.info.set("no data loaded".into());
                    let hint = if matches!(data, DataRef::Shared(_)) {
                        " (the shared benchmarks are copied in at build time from ../shared/benchmarks)"
                    } else {
                        ""
                    };
                    state.say(Level::Error, format!("{e}{hint}"));
                }
            }
        }
    }
}

/// Loads a public file named by URL and SHA-256: the copy kept in this browser if there is
/// one (so a link opens offline), else a download that must have that hash, then kept.
async fn load_url(state: AppState, ticket: u64, url: String, sha256: String, keep_setup: bool) {
    let name = hpo_engine::spec::url_file_name(&url);
    let data = DataRef::Url { url: url.clone(), sha256: sha256.clone() };
    state.data.loading.set(true);
    let t0 = now_ms();
    let kept = crate::app::platform::store::get_file(&sha256).await.ok().flatten().map(|(_, b)| b).filter(|b| content_hash(b) == sha256);
    let from_network = kept.is_none();
    let bytes = match kept {
        Some(bytes) => bytes,
        None => {
            state.data.info.set(format!("downloading {name} from {url}…"));
            let fetched = fetch_bytes(&url).await.and_then(|bytes| verify(&url, &sha256, &bytes).map(|()| bytes));
            match fetched {
                Ok(bytes) => bytes,
                Err(e) => {
                    if is_newest(ticket) {
                        state.data.loading.set(false);
                        // The link now names data that did not load: the data loaded before is
                        // not what a run of this setup would mean.
                        state.data.bench.set(None);
                        state.data.encoded.set_value(None);
                        state.data.info.set("no data loaded".into());
                        // The same table copied beside the page opens without the network.
                        let shared = state
                            .data
                            .shared_files
                            .with_untracked(|files| files.iter().find(|f| f.ends_with(&format!("/{name}")) || **f == name).cloned());
                        let offer = shared
                            .map(|f| format!(" The same table is beside this page: choose \"{f}\" under Real benchmarks in Data."))
                            .unwrap_or_default();
                        state.say(Level::Error, format!("{e}{offer}"));
                    }
                    return;
                }
            }
        }
    };
    if !is_newest(ticket) {
        return;
    }
    state.data.info.set(format!("parsing {name} ({:.1} MiB) in a worker…", bytes.len() as f64 / 1048576.0));
    let options = options_for(state, &data, keep_setup);
    let reply = parse_in_worker(state, name.clone(), bytes.clone(), options).await;
    if is_newest(ticket) {
        let loaded = reply.0.is_ok();
        finish_load(state, data, reply, keep_setup, t0, Some(bytes.clone()));
        if loaded && from_network {
            super::kept::keep_file(state, name, sha256, Some(url), bytes).await;
        }
    }
}

/// Loads an uploaded file.
pub async fn load_upload(state: AppState, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_UPLOAD_BYTES {
        state.say(
            Level::Error,
            format!(
                "{name}: {:.0} MiB is larger than the {} MiB the playground accepts",
                file.size() / 1048576.0,
                MAX_DECOMPRESSED_BYTES >> 20
            ),
        );
        return;
    }
    let ticket = begin_load();
    state.data.loading.set(true);
    state.data.info.set(format!("reading {name}…"));
    let t0 = now_ms();
    let bytes = match file_bytes(&file).await {
        Ok(b) => b,
        Err(e) => {
            state.data.loading.set(false);
            state.say(Level::Error, e);
            return;
        }
    };
    // The browser hashes off the main thread; the engine's hash is the fallback (and the reference).
    let sha256 = match crate::app::platform::browser::sha256_hex(&bytes).await {
        Ok(h) => h,
        Err(_) => content_hash(&bytes),
    };
    if !is_newest(ticket) {
        return;
    }
    let pending = state.data.pending_upload.get_untracked();
    if let Some((expected_name, expected_hash)) = &pending {
        if *expected_hash != sha256 {
            state.data.loading.set(false);
            state.say(
                Level::Error,
                format!(
                    "{name} is not the file this link was made with: its SHA-256 is {}…, the link expects '{expected_name}' with {}…. Choose the original file, or pick another data source to start afresh.",
                    &sha256[..12],
                    &expected_hash[..12]
                ),
            );
            return;
        }
    }
    let keep = pending.is_some();
    let data = DataRef::Upload { name: name.clone(), sha256 };
    let options = options_for(state, &data, keep);
    state.data.info.set(format!("parsing {name} ({:.0} MiB) in a worker…", bytes.len() as f64 / 1048576.0));
    // Kept for next time (and for the link) while it is parsed, so that the link the page shows
    // once the data is in opens in another tab at once; forgotten again if it does not load.
    let DataRef::Upload { sha256, .. } = data.clone() else { unreachable!("built above") };
    let known = state.kept.with_untracked(|k| k.files.iter().any(|f| f.sha256 == sha256));
    let keeping = (!known).then(|| {
        let (tx, rx) = oneshot::channel();
        let (name, sha256, bytes) = (name.clone(), sha256.clone(), bytes.clone());
        leptos::task::spawn_local(async move {
            super::kept::keep_file(state, name, sha256, None, bytes).await;
            let _ = tx.send(());
        });
        rx
    });
    let reply = parse_in_worker(state, name.clone(), bytes.clone(), options).await;
    if let Some(kept) = keeping {
        let _ = kept.await;
        if reply.0.is_err() {
            super::kept::forget_file(state, &sha256).await;
        }
    }
    if is_newest(ticket) {
        finish_load(state, data, reply, keep, t0, Some(bytes));
    }
}

fn finish_load(state: AppState, data: DataRef, (result, parse_ms): ParseReply, keep_setup: bool, t0: f64, bytes: Option<Vec<u8>>) {
    state.data.loading.set(false);
    match result {
        Ok((loaded, encoded)) => {
            if let Some(bytes) = bytes.clone().filter(|_| matches!(data, DataRef::Upload { .. } | DataRef::Url { .. })) {
                let name = data.file_name();
                state.workers.loader.update_value(|l| {
                    l.last_file = Some((data.clone(), name, bytes));
                    l.last_format = Some(loaded.format);
                });
            }
            state.data.repaired.set(loaded.notes.iter().any(|n| matches!(n, Note::Repaired { .. })));
            state.say_data_notes(loaded.notes);
            if matches!(data, DataRef::Upload { .. }) {
                state.data.pending_upload.set(None);
            }
            let columns = if keep_setup { state.spec.get_untracked().columns } else { None };
            install(state, data, (loaded.benchmark, encoded), keep_setup, columns, now_ms() - t0, parse_ms);
        }
        Err(LoadFailure::NeedsRoles { message, headers, preview, guess }) => {
            let name = data.file_name();
            if let Some(bytes) = bytes {
                state.workers.loader.update_value(|l| l.awaiting_roles = Some((data, name.clone(), bytes)));
            }
            let roles = headers.iter().map(|h| role_of(&guess, h).to_string()).collect();
            // The setup shows no other data's tasks meanwhile, and Run waits for the roles.
            state.data.bench.set(None);
            state.data.encoded.set_value(None);
            state.data.info.set(format!("{name}: waiting for column roles"));
            state.data.role_editor.set(Some(RoleEditor { file: name, message, headers, preview, roles, error: None }));
        }
        Err(LoadFailure::Error(e)) => {
            state.data.info.set(if state.data.bench.get_untracked().is_some() {
                "kept the previous data".into()
            } else {
                "no data loaded".into()
            });
            state.say(Level::Error, e);
        }
    }
}

fn role_of(roles: &ColumnRoles, column: &str) -> &'static str {
    if roles.run.as_deref() == Some(column) {
        "run"
    } else if roles.step.as_deref() == Some(column) {
        "runstep"
    } else if roles.steps.iter().any(|s| s == column) {
        "step"
    } else if roles.task.as_deref() == Some(column) {
        "task"
    } else if roles.categorical.iter().any(|c| c == column) {
        "cat"
    } else if roles.hyperparameters.iter().any(|c| c == column) {
        "hp"
    } else if let Some(m) = roles.metrics.iter().find(|m| m.name == column) {
        m.direction.as_str()
    } else {
        "ignore"
    }
}

/// Column roles from the editor's choices, or a message saying what is missing.
pub fn roles_from_editor(editor: &RoleEditor) -> Result<ColumnRoles, String> {
    let mut roles = ColumnRoles::default();
    for (h, r) in editor.headers.iter().zip(&editor.roles) {
        match r.as_str() {
            "hp" => roles.hyperparameters.push(h.clone()),
            "cat" => {
                roles.hyperparameters.push(h.clone());
                roles.categorical.push(h.clone());
            }
            "min" | "max" => roles
                .metrics
                .push(Metric { name: h.clone(), direction: if r == "min" { Direction::Minimize } else { Direction::Maximize } }),
            "step" => roles.steps.push(h.clone()),
            "task" if roles.task.is_some() => return Err("only one column can name the task".into()),
            "task" => roles.task = Some(h.clone()),
            "run" if roles.run.is_some() => return Err("only one column can name the run".into()),
            "run" => roles.run = Some(h.clone()),
            "runstep" if roles.step.is_some() => return Err("only one column can number a run's steps".into()),
            "runstep" => roles.step = Some(h.clone()),
            _ => {}
        }
    }
    if roles.step.is_some() && roles.run.is_none() {
        return Err("a step of each row's run needs the column naming the run".into());
    }
    if roles.run.is_some() && (!roles.steps.is_empty() || roles.metrics.len() != 1) {
        return Err(
            "a table of runs (one row per run and step) needs one objective column, reported at each step, and no step columns".into()
        );
    }
    if roles.hyperparameters.is_empty() {
        return Err("mark at least one column as a hyperparameter".into());
    }
    if roles.metrics.is_empty() && roles.steps.is_empty() {
        return Err("mark at least one column as an objective (minimise or maximise), or the learning-curve steps".into());
    }
    if !roles.metrics.is_empty() && !roles.steps.is_empty() {
        return Err("a learning-curve file's objective is its last step: mark steps or objectives, not both".into());
    }
    if roles.steps.len() == 1 {
        return Err("a learning curve needs two or more step columns".into());
    }
    roles.objective = roles.metrics.first().map(|m| m.name.clone()).unwrap_or_default();
    Ok(roles)
}

/// Reads the loaded user file again with the link's current options (after the missing-value
/// policy, a scale or the direction changed); other data is fetched again.
pub async fn reload_current(state: AppState) {
    let spec = state.spec.get_untracked();
    let last = state.workers.loader.with_value(|l| l.last_file.clone()).filter(|(d, _, _)| *d == spec.data);
    let Some((data, name, bytes)) = last else {
        load_ref(state, spec.data, true).await;
        return;
    };
    let ticket = begin_load();
    state.data.loading.set(true);
    state.data.info.set(format!("reading {name} again with the new options…"));
    let t0 = now_ms();
    let reply = parse_in_worker(state, name, bytes.clone(), spec.load_options()).await;
    if is_newest(ticket) {
        finish_load(state, data, reply, true, t0, Some(bytes));
    }
}

/// Opens the column editor on the loaded user file, starting from a guess of its roles (a
/// learning-curve file's steps, hyperparameters and task).
pub async fn review_columns(state: AppState) {
    let spec = state.spec.get_untracked();
    let Some((data, name, bytes)) = state.workers.loader.with_value(|l| l.last_file.clone()).filter(|(d, _, _)| *d == spec.data) else {
        state.say(Level::Error, "choose the file again: its content is no longer in memory");
        return;
    };
    let (result, _) = ask_worker(state, name.clone(), bytes.clone(), spec.load_options(), true).await;
    match result {
        Err(LoadFailure::NeedsRoles { message, headers, preview, guess }) => {
            // The link's roles, when it has some, are where the editor starts.
            let start = spec.columns.unwrap_or(*guess);
            let roles = headers.iter().map(|h| role_of(&start, h).to_string()).collect();
            state.workers.loader.update_value(|l| l.awaiting_roles = Some((data, name.clone(), bytes)));
            state.data.role_editor.set(Some(RoleEditor { file: name, message, headers, preview, roles, error: None }));
        }
        Err(LoadFailure::Error(e)) => state.say(Level::Error, e),
        Ok(_) => {}
    }
}

/// Re-parses the file waiting for roles with the roles from the editor.
pub async fn apply_roles(state: AppState, roles: ColumnRoles) {
    let Some((data, name, bytes)) = state.workers.loader.with_value(|l| l.awaiting_roles.clone()) else {
        state.say(Level::Error, "choose the file again: its content is no longer in memory");
        return;
    };
    let ticket = begin_load();
    state.data.loading.set(true);
    let t0 = now_ms();
    // Roles for the data already loaded (reviewed) keep the rest of the setup.
    let keep = state.data.bench.with_untracked(Option::is_some) && state.spec.with_untracked(|s| s.data == data);
    let options = LoadOptions { roles: Some(roles.clone()), ..options_for(state, &data, keep) };
    let (result, parse_ms) = parse_in_worker(state, name.clone(), bytes.clone(), options).await;
    if !is_newest(ticket) {
        return;
    }
    state.data.loading.set(false);
    match result {
        Ok((loaded, encoded)) => {
            state.workers.loader.update_value(|l| {
                l.awaiting_roles = None;
                l.last_file = Some((data.clone(), name, bytes));
                // Read by the roles named (an earlier file's format must not stay with it).
                l.last_format = Some(loaded.format);
            });
            state.data.role_editor.set(None);
            state.data.pending_upload.set(None);
            state.say_data_notes(loaded.notes);
            install(state, data, (loaded.benchmark, encoded), keep, Some(roles), now_ms() - t0, parse_ms);
        }
        Err(LoadFailure::Error(e)) | Err(LoadFailure::NeedsRoles { message: e, .. }) => {
            // Said beside the button that was pressed, as well as in the messages.
            state.data.role_editor.update(|ed| {
                if let Some(ed) = ed {
                    ed.error = Some(e.clone())
                }
            });
            state.say(Level::Error, e);
        }
    }
}

/// Makes a parsed benchmark the page's data; `encoded` is its bytes, which a run's workers get.
fn install(
    state: AppState,
    data: DataRef,
    (bench, encoded): (Benchmark, EncodedBenchmark),
    keep_setup: bool,
    columns: Option<ColumnRoles>,
    ms: f64,
    parse_ms: f64,
) {
    state.clear(Level::Error);
    state.data.role_editor.set(None);
    state.data.info.set(format!(
        "{}: {}, {}, {} ({}), loaded in {:.0} ms (parsed off the page in {:.0} ms)",
        bench.name,
        count(bench.tasks.len(), "task"),
        count(bench.total_rows(), "evaluation"),
        count(bench.space.params.len(), "hyperparameter"),
        count(bench.space.encoded_dim(), "model input"),
        ms,
        parse_ms
    ));
    let mut messages = Vec::new();
    state.spec.update(|spec| messages = spec.change_data(data, &bench, keep_setup, columns));
    // About this data: they go when other data is loaded (the loader's notes went just before).
    state.tell_about(Topic::Data, messages);
    state.run.best_task.set(bench.tasks.first().map(|t| t.name.clone()).unwrap_or_default());
    let bench = Arc::new(bench);
    state.data.encoded.set_value(Some((bench.clone(), encoded)));
    state.data.bench.set(Some(bench.clone()));
    // A link opened again (or the page reloaded) shows what was kept of its experiment.
    if keep_setup {
        leptos::task::spawn_local(super::kept::restore(state, bench));
    }
}
