//! What a first visit shows above the experiment page: lesson 1 playing by itself (alive
//! within the first seconds: its frames come from a worker in about a tenth of a second),
//! and one button to each of the three uses — learn, explore my data, open a shared link.
//! Shown only when the page opens without a query; a link always opens exactly what it names.
//!
//! It is its own small wasm module (`src/bin/landing.rs`, [`start`]): a first visit draws this
//! strip without waiting for the app's module, which `boot.js` loads once the strip's chart is
//! drawn and which fills [`EXPERIMENT_SLOT`] with the experiment (`crate::app::start`).

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use crate::app::charts::chart::{chart_width, ChartBox};
use crate::app::learn::gp_ei::{posterior_chart, posterior_height};
use crate::app::platform::browser;
use crate::app::platform::workers::{lesson_reply, LatestWorker, WorkerService};
use crate::app::Header;
use hpo_engine::lessons::gp_ei::{GpEiFrame, GpEiSetting};
use hpo_engine::lessons::{LessonFrames, LessonJob};
use hpo_engine::permalink::query_of;
use hpo_protocol::ToWorker;

/// Steps the preview loops through, and its pace.
const PREVIEW_STEPS: usize = 10;
const PREVIEW_MS: u64 = 900;

/// Where the app's module puts the experiment, below the strip: an element of the strip's
/// `<main>` with `display: contents`, holding a loading line until then.
pub const EXPERIMENT_SLOT: &str = "experiment-slot";

/// The strip's own id (the page's style and the app's module find it by it).
const STRIP: &str = "landing";

/// Mounts the first visit's page (entry point of the landing's wasm binary) in place of
/// `index.html`'s heading and loading line: the header, the strip, and the slot the app's
/// module fills (with the page's messages, then the panels).
pub fn start() {
    console_error_panic_hook::set_once();
    if let Some(waiting) = document().get_element_by_id("boot-screen") {
        waiting.remove();
    }
    mount_to_body(LandingPage);
}

/// Shows or hides the strip (called by the app's module: the strip goes once the visitor
/// chooses data of their own, and comes back with the first data).
pub fn show_strip(shown: bool) {
    if let Some(strip) = browser::element_by_id(STRIP) {
        strip.set_hidden(!shown);
    }
}

#[component]
fn LandingPage() -> impl IntoView {
    // The strip's one worker request needs the page's request counter.
    provide_context(WorkerService::new());
    view! {
        <Header/>
        <main>
            <Landing/>
            <div id=EXPERIMENT_SLOT>
                <p class="loading-line" role="status">"Loading the experiment…"</p>
            </div>
        </main>
    }
}

/// The first-visit strip.
#[component]
fn Landing() -> impl IntoView {
    let workers = expect_context::<WorkerService>();
    // The frames come from a worker (the GP code stays out of the page's bundle); the preview
    // then loops through them.
    let frames = RwSignal::new(Vec::<Arc<GpEiFrame>>::new());
    let step = RwSignal::new(0usize);
    let worker = LatestWorker::new(lesson_reply);
    let request = workers.next_request();
    worker.ask(
        request,
        ToWorker::Lesson { request, job: LessonJob::GpEiFirst(GpEiSetting::default(), PREVIEW_STEPS) },
        move |result, _| {
            if let Ok(LessonFrames::GpEi(all)) = result {
                frames.set(all.into_iter().take(PREVIEW_STEPS + 1).map(Arc::new).collect());
            }
        },
    );
    if let Ok(h) = set_interval_with_handle(
        move || {
            let count = frames.with_untracked(Vec::len).max(1);
            step.update(|k| *k = (*k + 1) % count)
        },
        Duration::from_millis(PREVIEW_MS),
    ) {
        on_cleanup(move || h.clear());
    }
    let link = RwSignal::new(String::new());
    // Said under the field: the page's banners belong to the app's module, which may not have
    // arrived yet.
    let link_error = RwSignal::new(None::<&'static str>);
    let open_link = move || match query_of(&link.get_untracked()) {
        Some(q) => browser::open_query(&q),
        None => link_error.set(Some("That does not look like a link to this app: paste the whole address, with its part after '?'.")),
    };
    view! {
        <section class="panel wide" id=STRIP>
            <div class="landing-text">
                <h2>"Watch Bayesian optimisation think — then try it on your own data"</h2>
                <p>"In the chart, a Gaussian process learns a function from a few points and picks the next one where expected improvement is largest. Three ways in:"</p>
                <div class="landing-actions">
                    <a class="button primary" id="landing-learn" href="?learn=gp-ei&play=1">"Learn: step through the methods"</a>
                    <a class="button" id="landing-explore" href="#data-panel">"Explore my data: compare methods below"</a>
                </div>
                <form class="row" id="landing-open" on:submit=move |ev| { ev.prevent_default(); open_link() }>
                    <label for="landing-link">"Open a shared link"</label>
                    <input id="landing-link" type="text" inputmode="url" placeholder="paste a link to this app" prop:value=move || link.get()
                        aria-describedby="landing-link-error" on:input=move |ev| { link.set(event_target_value(&ev)); link_error.set(None) }/>
                    <button type="submit">"Open"</button>
                </form>
                <p id="landing-link-error" role="alert">{move || link_error.get()}</p>
            </div>
            <ChartBox>
            <svg id="landing-preview" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox=move || format!("0 0 {} {}", chart_width(), posterior_height()) role="img"
                aria-label="A Gaussian process and expected improvement choosing points, step by step">
                {move || {
                    let k = step.get();
                    frames.with(|f| f.get(k).cloned()).map(|f| posterior_chart(&f, k))
                }}
            </svg>
            </ChartBox>
        </section>
    }
}
