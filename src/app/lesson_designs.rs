//! Lesson 5: an initial design for GPB built step by step (paper 003, §3): the map of
//! d(x, ξ) at each iterate of Iterated Construction or Threshold Acceptance, the criterion
//! rising and max d falling towards the equivalence theorem's "nothing red".

use std::sync::Arc;

use leptos::prelude::*;

use super::chart::ChartFigure;
use super::design_view::{fmt, SensitivityMap, MARKER_GLYPHS};
use super::learn::{hidden, Player};
use super::state::AppState;
use super::workers::LatestWorker;
use crate::engine::gpb::construct::DesignMethod;
use crate::engine::gpb::design::Criterion;
use crate::engine::gpb::view::{DesignViewData, DesignViewSpec, POINTS_RANGE};
use crate::engine::lessons::{Lesson, LessonFrames, LessonJob, LessonLink};
use crate::worker_protocol::{FromWorker, ToWorker};

/// Lesson 5.
#[component]
pub fn DesignLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    let spec = Memo::new(move |_| match link.with(|l| l.lesson.clone()) {
        Lesson::Designs(d, _) => d,
        _ => DesignViewSpec::default(),
    });
    let step = Memo::new(move |_| link.with(|l| l.lesson.step()));
    // A worker builds the construction once per setting and draws every iterate (GPB's code
    // stays out of the page's bundle); each step shows one of them.
    let all = RwSignal::new(None::<(DesignViewSpec, Arc<Vec<DesignViewData>>, f64)>);
    let error = RwSignal::new(None::<String>);
    let worker = LatestWorker::new();
    let state = expect_context::<AppState>();
    Effect::new(move |_| {
        let s = spec.get();
        if all.with_untracked(|a| a.as_ref().is_some_and(|(k, _, _)| *k == s)) {
            return;
        }
        let request = state.workers.next_request();
        worker.ask(request, ToWorker::Lesson { request, job: LessonJob::Designs(s) }, move |msg| {
            if let FromWorker::LessonFrames { result, ms, .. } = msg {
                match result.map(|f| *f) {
                    Ok(LessonFrames::Designs(views)) => {
                        error.set(None);
                        all.set(Some((s, Arc::new(views), ms)));
                    }
                    Ok(_) => {}
                    Err(e) => error.set(Some(e)),
                }
            }
        });
    });
    let data = Signal::derive(move || -> Option<DesignViewData> {
        let k = step.get();
        all.with(|a| a.as_ref().and_then(|(_, v, _)| v.get(k.min(v.len().saturating_sub(1))).cloned()))
    });
    let last = Signal::derive(move || all.with(|a| a.as_ref().map_or(0, |(_, v, _)| v.len().saturating_sub(1))));
    let ms = move || all.with(|a| a.as_ref().map_or(0.0, |(_, _, ms)| *ms));
    let set = move |f: &dyn Fn(&mut DesignViewSpec)| {
        link.update(|l| {
            if let Lesson::Designs(d, k) = &mut l.lesson {
                f(d);
                *k = 0;
            }
            l.playing = false;
        })
    };
    let axes = Signal::derive(|| {
        [
            ("x₁ (unit scale)".to_string(), "0".to_string(), "1".to_string()),
            ("x₂ (unit scale)".to_string(), "0".to_string(), "1".to_string()),
        ]
    });
    view! {
        <section class="panel lesson" id="lesson-designs">
            <h2>"Where to put the first points"</h2>
            <Show when=move || !hidden(link, "text")>
                <div id="lesson-text" class="lesson-text">
                    <p>
                        "Before a GP with budgets has seen anything, the first points decide how well it can learn the trend and the effect of the budget (β). "
                        "An optimal design makes β as certain as possible (paper 003, §3). The map shows d(x, ξ): red where one more point would still improve the design. "
                        "Iterated Construction (Alg. 1) moves one point at a time to the reddest spot; Threshold Acceptance (Alg. 2) shuffles a Latin hypercube and keeps shuffles that do not make max d much worse. "
                        "By the equivalence theorem (Thm. 1) the design is optimal when nothing is red."
                    </p>
                    <p id="lesson-explain" aria-live="polite">{move || data.get().map(|d| format!(
                        "Iterate {} of {}: criterion {}, max d = {}{}.",
                        d.shown_iterate, d.iterates.saturating_sub(1), fmt(d.value), fmt(d.max_d),
                        if d.max_d <= 1e-9 { " — nothing is red: the design is optimal" } else { " — still red somewhere, so the design can improve" }
                    ))}</p>
                </div>
            </Show>
            <Show when=move || !hidden(link, "controls")>
                <Player link=link last=last/>
            </Show>
            <Show when=move || !hidden(link, "settings")>
                <div class="row" id="lesson-design-settings">
                    <label>"Construction "
                        <select id="lesson-design-method" on:change=move |ev| { if let Some(m) = DesignMethod::parse(&event_target_value(&ev)) { set(&|d| d.method = m) } }>
                            {DesignMethod::ALL.iter().map(|m| view! { <option value=m.name() selected=move || spec.get().method == *m>{m.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Criterion "
                        <select id="lesson-design-criterion" on:change=move |ev| { if let Some(c) = Criterion::parse(&event_target_value(&ev)) { set(&|d| d.criterion = c) } }>
                            {Criterion::ALL.iter().map(|c| view! { <option value=c.name() selected=move || spec.get().criterion == *c>{c.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Points "
                        <input id="lesson-design-points" type="number" min=POINTS_RANGE.0 max=POINTS_RANGE.1 prop:value=move || spec.get().points
                            on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<usize>() { let n = n.clamp(POINTS_RANGE.0, POINTS_RANGE.1); set(&|d| d.points = n) } }/>
                    </label>
                    <button id="lesson-design-seed" on:click=move |_| set(&|d| d.seed += 1)>"new random start"</button>
                </div>
            </Show>
            {move || error.get().map(|e| view! { <p class="msg error">{e}</p> })}
            <Show when=move || !hidden(link, "map")>
                <ChartFigure id="design-map" file="design-lesson-map" caption=move || view! {
                    <span>{move || data.get().map(|d| format!(
                        "d(x, ξ), the largest over the budgets, on [0, 1]²; budgets: {}; + marks max d.",
                        d.budget_names.iter().enumerate().map(|(k, n)| format!("{} {n}", MARKER_GLYPHS[k % MARKER_GLYPHS.len()])).collect::<Vec<_>>().join(", ")
                    ))}</span>
                }>
                    <SensitivityMap data=data axes=axes on_square=Signal::derive(|| true)/>
                </ChartFigure>
            </Show>
            <Show when=move || !hidden(link, "numbers")>
                <p id="lesson-numbers" class="numbers">{move || data.get().map(|d| format!(
                    "{} ({}-optimality, N = {}) · iterate {} of {} · criterion {} · max d {} · mean std. error of β {} · construction computed in a worker in {:.0} ms",
                    spec.get().method.name(), spec.get().criterion.name(), spec.get().points, d.shown_iterate, d.iterates.saturating_sub(1),
                    fmt(d.value), fmt(d.max_d), fmt(d.std_beta), ms()
                ))}</p>
            </Show>
        </section>
    }
}
