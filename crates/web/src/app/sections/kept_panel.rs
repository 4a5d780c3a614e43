//! "Kept in this browser": what the page keeps (uploads, downloaded tables, experiments, an
//! opened race summary), with sizes, links, reopen, delete and clear all
//! ([`crate::app::data::kept`] keeps them).

use crate::app::data::kept::{open_kept_race_summary, refresh};
use crate::app::platform::store::{self, KeptFile, StoreError};
use crate::app::state::{Kept, Level, Messages, RunState};
use hpo_engine::axis::count;
use hpo_engine::kept::ExperimentRecord;
use leptos::prelude::*;
use leptos::task::spawn_local;

fn megabytes(bytes: f64) -> String {
    if bytes < 1024.0 * 1024.0 {
        format!("{:.0} KiB", (bytes / 1024.0).max(1.0))
    } else {
        format!("{:.1} MiB", bytes / 1048576.0)
    }
}

fn when(ms: f64) -> String {
    String::from(js_sys::Date::new(&ms.into()).to_locale_string("en-GB", &wasm_bindgen::JsValue::UNDEFINED))
}

async fn act(kept: RwSignal<Kept>, messages: Messages, what: &str, result: Result<(), StoreError>) {
    if let Err(e) = result {
        messages.say(Level::Error, format!("Could not {what}: {e}"));
    }
    refresh(kept).await;
}

/// The list of what this browser keeps for the page.
#[component]
pub fn KeptPanel(
    /// What this browser keeps.
    kept: RwSignal<Kept>,
    /// The messages at the top of the page.
    messages: Messages,
    /// The current or last run.
    run: RunState,
) -> impl IntoView {
    spawn_local(refresh(kept));
    // "Clear all" asks for a second click (a dialog would block the page, and tests).
    let confirming = RwSignal::new(false);
    let clear = move |_| {
        if !confirming.get_untracked() {
            confirming.set(true);
            return;
        }
        confirming.set(false);
        spawn_local(async move { act(kept, messages, "clear what is kept", store::clear_all().await).await });
    };
    let experiments = move || {
        kept.with(|k| k.experiments.clone())
            .into_iter()
            .map(|e: ExperimentRecord| {
                let id = e.id.clone();
                let delete = move |_| {
                    let id = id.clone();
                    spawn_local(async move { act(kept, messages, "delete the experiment", store::delete_experiment(&id).await).await });
                };
                view! {
                    <tr class="kept-experiment" data-id=e.id.clone()>
                        <td><a href=format!("?{}", e.query)>{e.title.clone()}</a></td>
                        <td class="num">{format!("{} of {}", e.done_jobs, count(e.total_jobs, "job"))}</td>
                        <td class="num">{megabytes(e.bytes as f64)}</td>
                        <td>{when(e.saved_ms)}</td>
                        <td><button class="delete-kept" aria-label=format!("Delete {}", e.title) on:click=delete>"Delete"</button></td>
                    </tr>
                }
            })
            .collect_view()
    };
    let files = move || {
        kept.with(|k| k.files.clone())
            .into_iter()
            .map(|f: KeptFile| {
                let sha = f.sha256.clone();
                let delete = move |_| {
                    let sha = sha.clone();
                    spawn_local(async move { act(kept, messages, "delete the file", store::delete_file(&sha).await).await });
                };
                let origin = f.url.clone().unwrap_or_else(|| "uploaded".into());
                // A JSON file can only be a race summary (uploads of data are CSV, zip or gz).
                let open = f.name.to_ascii_lowercase().ends_with(".json").then(|| {
                    let sha = f.sha256.clone();
                    let open = move |_| {
                        let sha = sha.clone();
                        spawn_local(async move {
                            match open_kept_race_summary(run, &sha).await {
                                Ok(()) => {
                                    messages.clear(Level::Error);
                                    if let Some(results) = crate::app::platform::browser::element_by_id("results-panel") {
                                        results.scroll_into_view();
                                    }
                                }
                                Err(e) => messages.say(Level::Error, format!("Could not open the race results: {e}")),
                            }
                        });
                    };
                    view! { <button class="open-kept" aria-label=format!("Open {} as race results", f.name) on:click=open>"Open"</button> }
                });
                view! {
                    <tr class="kept-file" data-sha256=f.sha256.clone()>
                        <td>{f.name.clone()}</td>
                        <td class="num">{megabytes(f.size as f64)}</td>
                        <td><code title=f.sha256.clone()>{f.sha256[..12].to_string()}"…"</code>" "{origin}</td>
                        <td>{when(f.saved_ms)}</td>
                        <td>{open}<button class="delete-kept" aria-label=format!("Delete {}", f.name) on:click=delete>"Delete"</button></td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <section class="panel wide" id="kept-panel">
            <h2>"Kept in this browser"</h2>
            <p class="hint">"Uploads and every finished job stay on this machine, so a reload or a closed tab loses nothing: open an experiment's link to see it again and run only what is missing."</p>
            <p id="kept-usage">{move || kept.with(|k| match (&k.error, k.usage) {
                (Some(e), _) => e.clone(),
                (None, Some((used, quota))) => format!("{} used of the {} this browser allows the page.", megabytes(used), megabytes(quota)),
                (None, None) => String::new(),
            })}</p>
            <h3>"Experiments"</h3>
            <Show when=move || kept.with(|k| !k.experiments.is_empty()) fallback=|| view! { <p class="hint">"None yet: a run's results are kept as its jobs finish."</p> }>
                <div class="table-scroll"><table id="kept-experiments">
                    <thead><tr><th>"Experiment (opens its link)"</th><th>"Finished"</th><th>"Size"</th><th>"Kept"</th><th></th></tr></thead>
                    <tbody>{experiments}</tbody>
                </table></div>
            </Show>
            <h3>"Files"</h3>
            <Show when=move || kept.with(|k| !k.files.is_empty()) fallback=|| view! { <p class="hint">"None yet: uploaded files are kept under their SHA-256."</p> }>
                <div class="table-scroll"><table id="kept-files">
                    <thead><tr><th>"File"</th><th>"Size"</th><th>"SHA-256, origin"</th><th>"Kept"</th><th></th></tr></thead>
                    <tbody>{files}</tbody>
                </table></div>
            </Show>
            <button id="clear-kept" on:click=clear>{move || if confirming.get() { "Click again to delete everything kept" } else { "Clear all" }}</button>
        </section>
    }
}
