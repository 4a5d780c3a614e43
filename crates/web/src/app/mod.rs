//! The Leptos single-page app. Components only wire signals to the engine: data loading in
//! [`data`], runs in [`pool`]/[`worker`], charts in [`chart`], the URL in [`browser`].

pub mod browser;
pub mod cd_diagram;
pub mod chart;
pub mod data;
pub mod design_view;
pub mod kept;
pub mod landing;
pub mod learn;
pub mod lesson_copula;
pub mod lesson_designs;
pub mod lesson_gp_ei;
pub mod lesson_multi_fidelity;
pub mod lesson_pareto;
pub mod lesson_plot;
pub mod lesson_shell;
pub mod lesson_transfer;
pub mod objective_space;
pub mod pool;
pub mod prior_view;
pub mod race_view;
pub mod results;
pub mod scatter;
pub mod setup;
pub mod state;
pub mod store;
pub mod warping_view;
pub mod worker;
pub mod worker_host;
pub mod workers;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use hpo_engine::lessons::LessonLink;
use hpo_engine::permalink::{from_query, to_query};
use hpo_engine::spec::DataRef;
use hpo_engine::spec::ExperimentSpec;
use state::{AppState, Level};

/// Mounts the app (entry point of the main wasm binary).
pub fn start() {
    console_error_panic_hook::set_once();
    mount_to_body(App);
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let query = browser::current_query();
    if let Some(parsed) = LessonLink::from_query(&query) {
        let state = AppState::new(ExperimentSpec::default());
        state.provide();
        // A link to a lesson that does not exist opens the list of lessons and says so.
        let (initial, warnings) = match parsed {
            Ok((link, warnings)) => (Some(link), warnings),
            Err(e) => (None, vec![e]),
        };
        for w in warnings {
            state.say(Level::Warning, w);
        }
        return view! {
            <Header/>
            <Messages/>
            <learn::LearnPage initial=initial/>
        }
        .into_any();
    }
    let parsed = from_query(&query);
    let first_visit = query.is_empty();
    let state = AppState::new(parsed.spec.clone());
    state.provide();
    for w in parsed.warnings {
        state.say(Level::Warning, w);
    }
    // The URL always holds the current setup.
    Effect::new(move |_| browser::replace_query(&to_query(&state.spec.get())));
    let first_data = parsed.spec.data.clone();
    spawn_local(async move {
        data::load_shared_manifest(state).await;
        data::load_ref(state, parsed.spec.data.clone(), !query.is_empty()).await;
    });
    spawn_local(kept::reopen_race_summary(state));
    view! {
        <Header/>
        <Messages/>
        <main>
            // The first visit's strip, until the visitor chooses data of their own: then the
            // first screen is their data's setup.
            {move || (first_visit && state.spec.with(|s| s.data == first_data)).then(|| view! { <landing::Landing/> })}
            <section class="panel" id="data-panel">
                <h2>"1. Data"</h2>
                <DataPanel/>
            </section>
            <section class="panel" id="setup-panel">
                <h2>"2. Setup"</h2>
                <setup::SetupPanel/>
            </section>
            <section class="panel" id="run-panel">
                <h2>"3. Run"</h2>
                <setup::RunPanel/>
            </section>
            <section class="panel wide" id="results-panel">
                <h2>"4. Results"</h2>
                <results::ResultsPanel/>
            </section>
            <design_view::DesignView/>
            <kept::KeptPanel/>
        </main>
    }
    .into_any()
}

/// The page's title and its two sections.
#[component]
fn Header() -> impl IntoView {
    let learning = browser::current_query().contains("learn=");
    view! {
        <header>
            <h1>"hpo-playground"</h1>
            <p class="tagline">"Run, compare and learn hyperparameter optimization methods in your browser — nothing leaves this page."</p>
            <nav id="sections" aria-label="Sections">
                <a href="?learn=gp-ei" aria-current=learning.then_some("page")>"Learn"</a>
                <a href="./" aria-current=(!learning).then_some("page")>"Experiment"</a>
            </nav>
        </header>
    }
}

#[component]
fn Messages() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <div id="messages" aria-live="polite">
            <For each=move || state.messages.get() key=|m| m.id let:m>
                <div class=match m.level { Level::Error => "msg error", Level::Warning => "msg warning", Level::Info => "msg info" }>
                    <span class="text">{m.text.clone()}
                        {(!m.details.is_empty()).then(|| view! {
                            <details class="msg-details">
                                <summary>{format!("details ({})", m.details.len())}</summary>
                                <ul>{m.details.iter().map(|d| view! { <li>{d.clone()}</li> }).collect_view()}</ul>
                            </details>
                        })}
                    </span>
                    <button class="dismiss" title="dismiss" on:click=move |_| state.messages.update(|v| v.retain(|x| x.id != m.id))>"×"</button>
                </div>
            </For>
        </div>
    }
}

fn source_value(d: &DataRef, kept: &[store::KeptFile]) -> String {
    use hpo_engine::public_data::{DEFAULT_BASE, PUBLIC_TABLES};
    match d {
        DataRef::Upload { sha256, .. } if !kept.iter().any(|f| &f.sha256 == sha256) => "upload".into(),
        DataRef::Url { .. } if !PUBLIC_TABLES.iter().any(|t| t.data_ref(DEFAULT_BASE) == *d) => "url".into(),
        other => other.to_string(),
    }
}

#[component]
fn DataPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let on_source = move |ev| {
        let v = event_target_value(&ev);
        if let Ok(d) = v.parse::<DataRef>() {
            state.data.pending_upload.set(None);
            state.clear(Level::Info);
            spawn_local(data::load_ref(state, d, false));
        }
    };
    let take_file = move |file: Option<web_sys::File>| {
        if let Some(f) = file {
            spawn_local(data::load_upload(state, f));
        }
    };
    let on_pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        take_file(input.files().and_then(|l| l.get(0)));
        input.set_value("");
    };
    let dragging = RwSignal::new(false);
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        take_file(ev.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)));
    };
    view! {
        <label>"Benchmark "
            <select id="data-source" on:change=on_source prop:value=move || state.kept.with(|k| source_value(&state.spec.get().data, &k.files))>
                <optgroup label="Bundled (generated by our code)">
                    <option value="bundled:quadratic">"Quadratic transfer family (ABLR)"</option>
                    <option value="bundled:tradeoff">"Error/latency trade-off family (bi-objective)"</option>
                    <option value="bundled:curves">"Crossing learning curves (multi-fidelity race)"</option>
                    <option value="bundled:exploding">"Raw curves with diverged and exploded runs (race)"</option>
                </optgroup>
                <optgroup label="Real benchmarks (../shared)">
                    {move || state.data.shared_files.get().into_iter().map(|f| {
                        let v = format!("shared:{f}");
                        view! { <option value=v>{f.clone()}</option> }
                    }).collect_view()}
                </optgroup>
                <optgroup label="Public tables (downloaded, checked by SHA-256)">
                    {hpo_engine::public_data::PUBLIC_TABLES.iter().map(|t| {
                        let v = t.data_ref(hpo_engine::public_data::DEFAULT_BASE).to_string();
                        view! { <option value=v title=t.summary>{format!("{} (copula paper, {:.1} MB)", t.file, t.bytes as f64 / 1e6)}</option> }
                    }).collect_view()}
                </optgroup>
                <optgroup label="Your files (kept in this browser)">
                    {move || state.kept.with(|k| k.files.iter().filter(|f| f.url.is_none()).map(|f| {
                        let v = DataRef::Upload { name: f.name.clone(), sha256: f.sha256.clone() }.to_string();
                        view! { <option value=v>{f.name.clone()}</option> }
                    }).collect_view())}
                </optgroup>
                <option value="upload" disabled=true>"Uploaded file"</option>
                <option value="url" disabled=true>"File downloaded by URL"</option>
            </select>
        </label>
        <div id="drop-zone" class:dragging=move || dragging.get()
            on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop>
            <p>"Drop a .csv, .csv.gz or .zip of evaluations here, or "
                <label class="file-label">"choose a file"<input id="upload" type="file" accept=".csv,.gz,.zip,text/csv" on:change=on_pick/></label>
            </p>
            <p class="hint">"Copula format: hp_* columns (hyperparameters), metric_* columns, task (and blackbox). Learning curves: hp_* columns, task, then the metric after each budget step in e1..eN. Stays on your machine."</p>
        </div>
        <p id="data-info" class:loading=move || state.data.loading.get()>{move || state.data.info.get()}</p>
        <DataOptions/>
        <RoleEditorView/>
    }
}

/// How the loaded data is read: missing values, each numeric hyperparameter's scale, and
/// (for a user's file) its column roles. Every change reads the file again; all is in the link.
#[component]
fn DataOptions() -> impl IntoView {
    use hpo_engine::loaders::clean::MissingPolicy;
    use hpo_engine::space::ParamKind;
    let state = expect_context::<AppState>();
    let reload = move || spawn_local(data::reload_current(state));
    let user_file = move || state.spec.with(|s| matches!(s.data, DataRef::Upload { .. } | DataRef::Url { .. }));
    let scales = move || {
        state.data.bench.get().map(|b| {
            b.space.params.iter().filter_map(|p| match p.kind {
                ParamKind::Continuous { lower, log, .. } => Some((p.name.clone(), log, lower > 0.0)),
                ParamKind::Integer { lower, .. } => Some((p.name.clone(), false, lower > 0)),
                ParamKind::Categorical { .. } => None,
            }).map(|(name, log, positive)| {
                let n2 = name.clone();
                view! {
                    <label class="scale">{name.clone()}" "
                        <select class="scale-select" data-param=name.clone() prop:value=if log { "log" } else { "lin" } on:change=move |ev| {
                            let log = event_target_value(&ev) == "log";
                            state.spec.update(|s| {
                                s.log_scale.retain(|n| n != &n2);
                                s.linear_scale.retain(|n| n != &n2);
                                if log { s.log_scale.push(n2.clone()) } else { s.linear_scale.push(n2.clone()) }
                            });
                            reload();
                        }>
                            <option value="lin">"linear"</option>
                            <option value="log" disabled=!positive>"log"</option>
                        </select>
                    </label>
                }
            }).collect_view()
        })
    };
    view! {
        <Show when=move || state.data.bench.with(Option::is_some)>
            <details id="data-options">
                <summary>"How the data is read"</summary>
                <label title="A learning-curve point is diverged when it is missing, nan or inf, or (as bad as not training, the default) worse than the run's untrained value: its step 0, or where the file has none the largest first-step value of its task within Q3 + 3·IQR. It and the rest of its curve take that value; or count as the task's worst value; or the configuration is dropped; or the curve's last finite value is carried forward; or (TaskSet) curves ever above the task's 95 % quantile are dropped.">"Missing or diverged values "
                    <select id="missing-policy" prop:value=move || state.spec.get().missing.as_str() on:change=move |ev| {
                        if let Some(m) = MissingPolicy::parse(&event_target_value(&ev)) {
                            state.spec.update(|s| s.missing = m);
                            reload();
                        }
                    }>
                        {MissingPolicy::ALL.into_iter().map(|p| view! { <option value=p.as_str()>{p.label()}</option> }).collect_view()}
                    </select>
                </label>
                <p class="hint">"Model scale of each numeric hyperparameter (log: the model sees its logarithm):"</p>
                <div id="scales" class="row">{scales}</div>
                <Show when=user_file>
                    <button id="review-columns" on:click=move |_| spawn_local(data::review_columns(state))>"Column roles…"</button>
                </Show>
            </details>
        </Show>
    }
}

const ROLE_CHOICES: &[(&str, &str)] = &[
    ("ignore", "ignore"),
    ("hp", "hyperparameter"),
    ("cat", "categorical hyperparameter"),
    ("min", "objective, minimise"),
    ("max", "objective, maximise"),
    ("task", "task name"),
    ("step", "learning-curve step"),
];

/// Asks which column is what, for a CSV that is not in the copula format.
#[component]
fn RoleEditorView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let apply = move |_| {
        let Some(editor) = state.data.role_editor.get_untracked() else {
            return;
        };
        match data::roles_from_editor(&editor) {
            Ok(roles) => spawn_local(data::apply_roles(state, roles)),
            Err(e) => state.say(Level::Error, format!("{}: {e}", editor.file)),
        }
    };
    move || {
        state.data.role_editor.get().map(|editor| {
            let selects = editor.headers.iter().enumerate().map(|(c, h)| {
                let current = editor.roles[c].clone();
                view! {
                    <th>
                        <div class="col-name">{h.clone()}</div>
                        <select class="role" data-column=h.clone() on:change=move |ev| {
                            let v = event_target_value(&ev);
                            state.data.role_editor.update(|e| if let Some(e) = e { e.roles[c] = v; });
                        }>
                            {ROLE_CHOICES.iter().map(|(value, label)| view! { <option value=*value selected=*value == current>{*label}</option> }).collect_view()}
                        </select>
                    </th>
                }
            }).collect_view();
            let rows = editor.preview.iter().map(|r| view! { <tr>{r.iter().map(|v| view! { <td>{v.clone()}</td> }).collect_view()}</tr> }).collect_view();
            view! {
                <div id="role-editor">
                    <p class="role-message">{editor.message.clone()}</p>
                    <div class="table-scroll"><table>
                        <thead><tr>{selects}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table></div>
                    <button id="apply-roles" class="primary" on:click=apply>"Load with these roles"</button>
                </div>
            }
        })
    }
}

/// The element with `id`, if present (for focus and scrolling).
pub fn element_by_id(id: &str) -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into().ok()
}
