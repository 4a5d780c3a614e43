//! The Leptos single-page app. Components only wire signals to the engine. Files by role: the
//! page's panels in [`sections`] (one file per numbered section: 1. Data, 2. Setup, 3. Run,
//! 4. Results, and the panels below them), the views the results open in [`views`], drawing in
//! [`charts`], the page's state in [`state`], loading data and keeping it in [`data`], the
//! browser (DOM, URL, IndexedDB, Web Workers) in [`platform`], and the Learn section in [`learn`].

pub mod charts;
pub mod data;
pub mod learn;
pub mod platform;
pub mod sections;
pub mod state;
pub mod views;

use leptos::prelude::*;
use leptos::task::spawn_local;

use hpo_engine::lessons::LessonLink;
use hpo_engine::permalink::{from_query, to_query};
use hpo_engine::spec::ExperimentSpec;
use platform::browser;
use sections::{data_panel, design_view, kept_panel, landing, results, run, setup, study_view, suggest_view};
use state::{AppState, Level};

/// Mounts the app (entry point of the app's wasm binary). On a first visit the landing's own small
/// module ([`landing::start`]) drew the header and the strip and left [`landing::EXPERIMENT_SLOT`]
/// in its `<main>`: the experiment's panels go there, below the strip. Otherwise the whole page
/// goes in place of `index.html`'s own heading and loading line, shown while the wasm arrived
/// (in the same frame: no blank in between).
pub fn start() {
    console_error_panic_hook::set_once();
    if let Some(slot) = browser::element_by_id(landing::EXPERIMENT_SLOT) {
        slot.set_inner_html("");
        leptos::mount::mount_to(slot, BelowLanding).forget();
        return;
    }
    if let Some(waiting) = document().get_element_by_id("boot-screen") {
        waiting.remove();
    }
    mount_to_body(App);
}

/// The whole page, for a link (a lesson's or an experiment's).
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
            state.messages.say(Level::Warning, w);
        }
        return view! {
            <Header/>
            <Messages messages=state.messages.list/>
            <learn::LearnPage initial=initial/>
        }
        .into_any();
    }
    let state = experiment_state(&query);
    view! {
        <Header/>
        <Messages messages=state.messages.list/>
        <main><Panels state=state/></main>
    }
    .into_any()
}

/// The experiment under the first visit's strip, in the landing's `<main>` (the slot is
/// `display: contents`, so the panels are its grid's items). The strip stays until the visitor
/// chooses data of their own: then the first screen is their data's setup.
#[component]
fn BelowLanding() -> impl IntoView {
    let query = browser::current_query();
    let state = experiment_state(&query);
    let first_data = state.spec.with_untracked(|s| s.data.clone());
    Effect::new(move |_| landing::show_strip(state.spec.with(|s| s.data == first_data)));
    view! {
        <Messages messages=state.messages.list/>
        <Panels state=state/>
    }
}

/// The experiment's state from the link (its warnings said), provided to the panels; the URL
/// holds the current setup from now on, and the link's data (or the default) starts loading.
fn experiment_state(query: &str) -> AppState {
    let parsed = from_query(query);
    let state = AppState::new(parsed.spec.clone());
    state.provide();
    for w in parsed.warnings {
        state.messages.say(Level::Warning, w);
    }
    Effect::new(move |_| browser::replace_query(&to_query(&state.spec.get())));
    let from_link = !query.is_empty();
    spawn_local(async move {
        data::load::load_shared_manifest(state.data).await;
        data::load::load_ref(state, parsed.spec.data.clone(), from_link).await;
    });
    spawn_local(data::kept::reopen_race_summary(state.run, state.messages));
    state
}

/// The experiment's four numbered sections and the views that open below them.
#[component]
fn Panels(
    /// The page's state, each panel given the parts it reads.
    state: AppState,
) -> impl IntoView {
    let AppState { spec, messages, data, run, kept, workers, no_tasks } = state;
    // A new direction changes the values a repaired file was given: the Setup reads it again.
    let reread = Callback::new(move |()| spawn_local(data::load::reload_current(state)));
    view! {
        <section class="panel" id="data-panel">
            <h2>"1. Data"</h2>
            <data_panel::DataPanel state=state/>
        </section>
        <section class="panel" id="setup-panel">
            <h2>"2. Setup"</h2>
            <setup::SetupPanel spec=spec data=data messages=messages no_tasks=no_tasks reread=reread/>
        </section>
        <section class="panel" id="run-panel">
            <h2>"3. Run"</h2>
            <run::RunPanel state=state/>
        </section>
        <section class="panel wide" id="results-panel">
            <h2>"4. Results"</h2>
            <results::ResultsPanel spec=spec data=data run=run messages=messages kept=kept workers=workers/>
        </section>
        <study_view::StudyView spec=spec data=data messages=messages workers=workers/>
        <suggest_view::SuggestView spec=spec data=data messages=messages workers=workers/>
        <design_view::DesignView setup=spec bench=data.bench workers=workers/>
        <kept_panel::KeptPanel kept=kept messages=messages run=run/>
    }
}

/// The page's title and its two sections.
#[component]
pub(crate) fn Header() -> impl IntoView {
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
pub(crate) fn Messages(
    /// The messages shown (the list is all this edits: a dismissed one leaves it).
    messages: RwSignal<Vec<state::Message>>,
) -> impl IntoView {
    view! {
        <div id="messages" aria-live="polite">
            <For each=move || messages.get() key=|m| m.id let:m>
                <div class=match m.level { Level::Error => "msg error", Level::Warning => "msg warning", Level::Info => "msg info" }>
                    <span class="text">{m.text.clone()}
                        {m.shown.iter().map(|s| view! { <span class="msg-line">{s.clone()}</span> }).collect_view()}
                        {(!m.details.is_empty()).then(|| view! {
                            <details class="msg-details">
                                <summary>{format!("details ({})", m.details.len())}</summary>
                                <ul>{m.details.iter().map(|d| view! { <li>{d.clone()}</li> }).collect_view()}</ul>
                            </details>
                        })}
                    </span>
                    <button class="dismiss" title="dismiss" on:click=move |_| messages.update(|v| v.retain(|x| x.id != m.id))>"×"</button>
                </div>
            </For>
        </div>
    }
}
