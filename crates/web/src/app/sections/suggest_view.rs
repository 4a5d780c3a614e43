//! The next trials of a study, in the page: shown when the loaded file is an Optuna journal
//! (plain, .gz or .zip) or SQLite storage; for another tool's study (a trials CSV, Ray Tune's or
//! Syne Tune's files) the sentence of `FileFormat::why_no_next_trials` stands in its place.
//! The methods listed are those that propose for the study's objectives
//! (`suggest::methods_for`), the engine's `default_method` preselected.
//! The suggestions are computed in a worker (the GP stays out of the page's bundle and a big
//! study never freezes the tab) by the engine's `suggest_files`, the same as `hpo suggest`,
//! and offered as a table and as the three files `hpo suggest` writes.

use leptos::prelude::*;

use hpo_engine::axis::significant;
use hpo_engine::loaders::file_format::FileFormat;
use hpo_engine::suggest::{default_method, methods_for, SuggestedFiles};
use hpo_protocol::ToWorker;

use crate::app::platform::browser::download_text;
use crate::app::platform::workers::WorkerService;
use crate::app::state::{DataState, Level, Messages, UserFile};
use hpo_engine::spec::ExperimentSpec;

/// What the panel shows below its controls.
#[derive(Clone)]
enum SuggestStatus {
    /// Nothing asked yet.
    Idle,
    /// Waiting for the worker.
    Computing,
    /// The suggestions, with the worker's milliseconds.
    Ready(Box<SuggestedFiles>, f64),
    /// Why there are none.
    Failed(String),
}

/// The loaded user file, when the parser worker found it in one of Optuna's storages (the
/// engine's format table decides, `FileFormat::takes_next_trials`): (name, bytes).
pub(crate) fn loaded_journal(spec: RwSignal<ExperimentSpec>, data: DataState) -> Option<UserFile> {
    let shown = spec.with_untracked(|s| s.data.clone());
    data.files.with_value(|f| f.last.clone().filter(|file| file.data == shown && f.last_format.is_some_and(|f| f.takes_next_trials())))
}

/// The loaded user file's format, when the data shown is that file's.
pub(crate) fn loaded_format(spec: RwSignal<ExperimentSpec>, data: DataState) -> Option<FileFormat> {
    let shown = spec.with_untracked(|s| s.data.clone());
    data.files.with_value(|f| f.last.as_ref().filter(|file| file.data == shown).and(f.last_format))
}

/// A cell as the table shows it: a fractional number to 4 significant digits, anything else as is.
fn shown(v: &str) -> String {
    match v.parse::<f64>() {
        Ok(x) if v.contains(['.', 'e']) => significant(x, 4),
        _ => v.to_string(),
    }
}

/// The panel (after the results: the next trials are what a study's results lead to).
#[component]
pub fn SuggestView(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The messages at the top of the page.
    messages: Messages,
    /// The page's workers.
    workers: WorkerService,
) -> impl IntoView {
    // Re-read when other data is installed.
    let journal = Memo::new(move |_| {
        data.bench.track();
        loaded_journal(spec, data).map(|f| f.name)
    });
    let studies = Memo::new(move |_| {
        data.bench.with(|b| b.as_ref().map(|b| b.tasks.iter().map(|t| t.name.clone()).collect::<Vec<_>>()).unwrap_or_default())
    });
    // Another tool's study: why it gets no next trials here, and where it can.
    let why_none = Memo::new(move |_| {
        data.bench.track();
        loaded_format(spec, data).and_then(FileFormat::why_no_next_trials)
    });
    // The study's objectives (a study of several directions loads as joint objectives), the
    // methods that propose for them and the one preselected: all the engine's.
    let objectives =
        Memo::new(move |_| data.bench.with(|b| b.as_ref().map_or(1, |b| if b.joint_objectives { b.metrics.len() } else { 1 })));
    let offered = Memo::new(move |_| methods_for(objectives.get(), studies.with(|s| s.len() > 1)));
    let method = RwSignal::new(default_method(objectives.get_untracked()).to_string());
    // Other data: a method that does not propose for its objectives gives way to the default.
    Effect::new(move |_| {
        let (offered, n) = (offered.get(), objectives.get());
        if !offered.iter().any(|m| *m == method.get_untracked()) {
            method.set(default_method(n).to_string());
        }
    });
    let n = RwSignal::new(5usize);
    let study = RwSignal::new(String::new());
    let status = RwSignal::new(SuggestStatus::Idle);
    // Other data: the proposals, shown or still being computed, were for the study before it
    // (its table, its journal to download); one still to come would draw in the new study's
    // slice and contour views.
    Effect::new(move |previous: Option<()>| {
        data.bench.track();
        if previous.is_some() {
            workers.suggester.forget();
            status.set(SuggestStatus::Idle);
            data.suggested.set(None);
        }
    });
    let ask = move |_| {
        let Some(UserFile { name: file, bytes, .. }) = loaded_journal(spec, data) else { return };
        let chosen = study.get_untracked();
        let study = (!chosen.is_empty()).then_some(chosen).or_else(|| studies.with_untracked(|s| (s.len() > 1).then(|| s[0].clone())));
        let request = workers.next_request();
        status.set(SuggestStatus::Computing);
        let message = ToWorker::Suggest {
            request,
            file,
            bytes: bytes.to_vec(),
            study,
            method: method.get_untracked(),
            n: n.get_untracked(),
            seed: 0,
        };
        data.suggested.set(None);
        workers.suggester.ask(request, message, move |result, ms| {
            status.set(match result {
                Ok(files) => {
                    // The study's slice and contour views draw them too.
                    data.suggested.set(Some(std::sync::Arc::new((*files).clone())));
                    SuggestStatus::Ready(files, ms)
                }
                Err(e) => SuggestStatus::Failed(e),
            })
        });
    };
    let save = move |name: &'static str, mime: &'static str, pick: fn(&SuggestedFiles) -> String| {
        move |_| {
            if let SuggestStatus::Ready(files, _) = status.get_untracked() {
                if download_text(name, mime, &pick(&files)).is_err() {
                    messages.say(Level::Error, format!("{name} could not be offered for download: the browser refused the file"));
                }
            }
        }
    };
    view! {
        <Show when=move || journal.get().is_some()>
            <section class="panel wide" id="suggest-panel">
                <h2>"Next trials for your study"</h2>
                <p class="hint">"A method proposes the next configurations over the study's own search space (its bounds, log scales, integer steps and choices), never one a trial already has; a batch is picked one at a time, each earlier pick and each running or waiting trial taken to score what the model expects there, so that the next goes elsewhere. For a journal, download it with them enqueued and Optuna's "<code>"study.optimize"</code>" runs them first; for a journal or an SQLite database, run "<code>"enqueue.py"</code>" beside it (Optuna adds them, also while the study runs; the database is never written here)."</p>
                <div class="row">
                    <label>"Method "
                        <select id="suggest-method" on:change=move |ev| method.set(event_target_value(&ev))>
                            // The transfer methods learn from the file's other studies of this space.
                            {move || offered.get().into_iter().map(|m| view! { <option value=m selected=move || method.get() == m>{m}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"How many "
                        <input id="suggest-n" type="number" min="1" max="50" prop:value=move || n.get().to_string()
                            on:change=move |ev| n.set(event_target_value(&ev).parse::<usize>().unwrap_or(5).clamp(1, 50))/>
                    </label>
                    <Show when=move || studies.with(|s| s.len() > 1)>
                        <label>"Study "
                            <select id="suggest-study" on:change=move |ev| study.set(event_target_value(&ev))>
                                {move || studies.get().into_iter().map(|s| view! { <option value=s.clone()>{s.clone()}</option> }).collect_view()}
                            </select>
                        </label>
                    </Show>
                    <button id="suggest-run" class="primary" on:click=ask>"Suggest"</button>
                </div>
                {move || match status.get() {
                    SuggestStatus::Idle => ().into_any(),
                    SuggestStatus::Computing => view! { <p id="suggest-status" role="status"><span class="spinner"></span>" proposing…"</p> }.into_any(),
                    SuggestStatus::Failed(e) => view! { <p id="suggest-status" class="role-error" role="alert">{e}</p> }.into_any(),
                    SuggestStatus::Ready(files, ms) => view! {
                        <p id="suggest-status" role="status">{format!("{} by {} for '{}' ({:.0} ms)", hpo_engine::axis::count(files.rows.len(), "suggestion"), files.method, files.study, ms)}</p>
                        <p id="suggest-used" class="hint">{format!("Learned from: {}. An empty cell is a parameter of a conditional space that configuration's branch does not suggest.", files.used)}</p>
                        {files.journal_note().map(|note| view! { <p id="suggest-journal-note" class="hint">{format!("Note: {note}.")}</p> })}
                        <div class="table-scroll"><table id="suggest-table">
                            <thead><tr>
                                {files.names.iter().map(|h| view! { <th>{h.clone()}</th> }).collect_view()}
                                <th title="The model's predicted objective value there, ± its sd (a copula model: the median, ± half its central 68 %)">"predicted"</th>
                                <th title="The acquisition the proposal maximised: log expected improvement, in the model's units">"log EI"</th>
                                <th>"untried bound"</th>
                            </tr></thead>
                            // Numbers to 4 significant digits here; the files keep every digit.
                            <tbody>{files.rows.iter().enumerate().map(|(k, r)| {
                                let why = files.explanations.get(k).cloned().unwrap_or_default();
                                let predicted = why.predicted.map_or("–".to_string(), |p| format!("{} ± {}", significant(p.value, 4), significant(p.sd, 2)));
                                let log_ei = why.predicted.map_or("–".to_string(), |p| significant(p.log_ei, 3));
                                let flagged = !why.untried_bounds.is_empty();
                                view! { <tr>
                                    {r.iter().map(|v| view! { <td>{shown(v)}</td> }).collect_view()}
                                    <td>{predicted}</td>
                                    <td>{log_ei}</td>
                                    <td class=if flagged { "untried-bound" } else { "" }>{if flagged { format!("yes: {}", why.untried_bounds.join("; ")) } else { "no".into() }}</td>
                                </tr> }
                            }).collect_view()}</tbody>
                        </table></div>
                        <div class="row">
                            {files.journal.is_some().then(|| view! {
                                <button id="download-journal" on:click=save("journal.log", "application/x-ndjson", |f| f.journal.clone().unwrap_or_default())>"journal.log (with them enqueued)"</button>
                            })}
                            <button id="download-enqueue" on:click=save("enqueue.py", "text/x-python", |f| f.python.clone())>"enqueue.py"</button>
                            <button id="download-suggestions" on:click=save("suggestions.csv", "text/csv", |f| f.csv.clone())>"suggestions.csv"</button>
                        </div>
                    }.into_any(),
                }}
            </section>
        </Show>
        {move || why_none.get().map(|why| view! {
            <section class="panel wide" id="suggest-none">
                <h2>"Next trials for your study"</h2>
                <p id="suggest-why-none" class="hint">{why}</p>
            </section>
        })}
    }
}
