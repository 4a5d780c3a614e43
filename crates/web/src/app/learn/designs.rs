//! Lesson 5: an initial design for GPB built step by step (paper 003, §3): the map of
//! d(x, ξ) at each iterate of Iterated Construction or Threshold Acceptance, the criterion
//! rising and max d falling towards the equivalence theorem's "nothing red".

use leptos::prelude::*;

use std::sync::Arc;

use super::plot::{BLUE, GREY};
use super::seed_strip::SeedStrip;
use super::shell::{hidden, worker_frames, LessonShell};
use crate::app::charts::chart::ChartFigure;
use crate::app::sections::design_view::{fmt, SensitivityMap, MARKER_GLYPHS};
use hpo_engine::fidelity::gpb::construct::DesignMethod;
use hpo_engine::fidelity::gpb::design::Criterion;
use hpo_engine::fidelity::gpb::view_setting::{DesignViewSpec, POINTS_RANGE};
use hpo_engine::gpb_experiments::design_view::{Axis, DesignViewData};
use hpo_engine::lessons::sentences::designs::{describe, over_seeds, sentence};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

/// Lesson 5.
#[component]
pub fn DesignLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    let setting = Memo::new(move |_| match link.with(|l| l.lesson.clone()) {
        Lesson::Designs(d, _, placed) => (d, placed),
        _ => (DesignViewSpec::default(), Vec::new()),
    });
    let spec = Memo::new(move |_| setting.get().0);
    let placed = Memo::new(move |_| setting.get().1);
    let step = Memo::new(move |_| link.with(|l| l.lesson.step()));
    // A worker builds the construction once per setting and draws every iterate (GPB's code
    // stays out of the page's bundle); each step shows one of them.
    let job = Memo::new(move |_| link.with(|l| l.lesson.job()));
    let (all, error) = worker_frames(
        job,
        |j| j,
        |f| match f {
            LessonFrames::Designs(frames) => Some(frames),
            _ => None,
        },
    );
    // Frames of an older setting stay drawn while the worker computes the new one: say so
    // (aria-busy), so that readers — and tests — know the picture is about to change.
    let busy = move || all.with(|a| a.as_ref().is_none_or(|(k, _, _)| *k != job.get()));
    let data = Signal::derive(move || -> Option<DesignViewData> {
        let k = step.get();
        all.with(|a| a.as_ref().and_then(|(_, f, _)| f.views.get(k.min(f.views.len().saturating_sub(1))).cloned()))
    });
    let last = Signal::derive(move || all.with(|a| a.as_ref().map_or(0, |(_, f, _)| f.views.len().saturating_sub(1))));
    // The engine says what each iterate shows, and at the last how it compares with random designs.
    let explain = move || {
        let (k, s) = (step.get(), spec.get());
        all.with(|a| {
            a.as_ref().filter(|(_, f, _)| !f.views.is_empty()).map(|(_, f, _)| sentence(f, s.method.name(), s.criterion.name(), k))
        })
    };
    // The construction against each random design, for the strip under the last iterate.
    let against_random = Memo::new(move |_| {
        let method = spec.get().method.name();
        all.with(|a| a.as_ref().filter(|(_, f, _)| !f.views.is_empty()).map(|(_, f, _)| Ok(Arc::new(over_seeds(f, method)))))
    });
    let ms = move || all.with(|a| a.as_ref().map_or(0.0, |(_, _, ms)| *ms));
    // A new setting starts at iterate 0; IC or TA then improve a placed design, unless the
    // setting asks for another start (`forget`) or another number of points.
    let set = move |f: &dyn Fn(&mut DesignViewSpec), forget: bool| {
        link.update(|l| {
            if let Lesson::Designs(d, k, placed) = &mut l.lesson {
                f(d);
                *k = 0;
                if forget || d.points != placed.len() {
                    placed.clear();
                }
            }
            l.playing = false;
        })
    };
    // A dragged point: the shown design with that point moved becomes the start (iterate 0).
    let on_move = Callback::new(move |(k, x, y): (usize, f64, f64)| {
        let Some(shown) = data.get_untracked() else { return };
        let mut start: Vec<(f64, f64, usize)> = shown.points.clone();
        if let Some(p) = start.get_mut(k) {
            p.0 = x;
            p.1 = y;
        }
        link.update(|l| {
            if let Lesson::Designs(d, step, placed) = &mut l.lesson {
                d.points = start.len();
                *step = 0;
                *placed = start.clone();
            }
            l.playing = false;
        })
    });
    let clear_placed = move |_| {
        link.update(|l| {
            if let Lesson::Designs(_, step, placed) = &mut l.lesson {
                placed.clear();
                *step = 0;
            }
        })
    };
    let axes = Signal::derive(|| [Axis::unit("x₁ (unit scale)"), Axis::unit("x₂ (unit scale)")]);
    view! {
        <LessonShell
            link=link
                side=ViewFn::from(move || view! {
            <Show when=move || !hidden(link, "settings")>
                <div class="row" id="lesson-design-settings">
                    <label>"Construction "
                        <select id="lesson-design-method" on:change=move |ev| { if let Some(m) = DesignMethod::parse(&event_target_value(&ev)) { set(&|d| d.method = m, false) } }>
                            {DesignMethod::ALL.iter().map(|m| view! { <option value=m.name() selected=move || spec.get().method == *m>{m.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Criterion "
                        <select id="lesson-design-criterion" on:change=move |ev| { if let Some(c) = Criterion::parse(&event_target_value(&ev)) { set(&|d| d.criterion = c, false) } }>
                            {Criterion::ALL.iter().map(|c| view! { <option value=c.name() selected=move || spec.get().criterion == *c>{c.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Points "
                        <input id="lesson-design-points" type="number" min=POINTS_RANGE.0 max=POINTS_RANGE.1 prop:value=move || spec.get().points
                            on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<usize>() { let n = n.clamp(POINTS_RANGE.0, POINTS_RANGE.1); set(&|d| d.points = n, false) } }/>
                    </label>
                    <button id="lesson-design-seed" on:click=move |_| set(&|d| d.seed += 1, true)>"new random start"</button>
                    <button id="lesson-design-unplace" prop:disabled=move || placed.get().is_empty() on:click=clear_placed>"forget my placement"</button>
                </div>
            </Show>
                })
            id="lesson-designs"
            intro=concat!(
                "Before a GP with budgets has seen anything, the first points decide how well it can learn the trend and the effect of the budget (β). ",
                "An optimal design makes β as certain as possible (paper 003, §3). The map shows d(x, ξ): red where one more point would still improve the design. ",
                "Iterated Construction (Alg. 1) moves one point at a time to the reddest spot; Threshold Acceptance (Alg. 2) shuffles a Latin hypercube and keeps shuffles that do not make max d much worse. ",
                "By the equivalence theorem (Thm. 1) the design is optimal when nothing is red. ",
                "Drag a point (or focus it and use the arrow keys): the map and the criterion follow your design; then press play to watch IC or TA improve it from there.",
            )
            explain=Signal::derive(explain)
            last=last
            error=Signal::derive(move || error.get())
            drawn=Signal::derive(move || !busy())
            strip=ViewFn::from(move || view! { <SeedStrip over=against_random link=link show=|v| format!("{:.3}", -v) unit="random design" colours=&[BLUE, GREY] describe=describe/> })
            numbers=Signal::derive(move || data.get().map(|d| format!(
                    "{} ({}-optimality, N = {}{}) · iterate {} of {} · criterion {} · max d {} · mean std. error of β {} · construction computed in a worker in {:.0} ms",
                    spec.get().method.name(), spec.get().criterion.name(), spec.get().points,
                    if placed.get().is_empty() { "" } else { ", from your placement" }, d.shown_iterate, d.iterates.saturating_sub(1),
                    fmt(d.value), fmt(d.max_d), fmt(d.std_beta), ms()
                )))
            busy=Signal::derive(busy)
        >
            <Show when=move || !hidden(link, "map")>
                <ChartFigure id="design-map" file="design-lesson-map" payoff=true caption=move || view! {
                    <span>{move || data.get().map(|d| format!(
                        "d(x, ξ), the largest over the budgets, on [0, 1]²; budgets: {}; + marks max d.",
                        d.budget_names.iter().enumerate().map(|(k, n)| format!("{} {n}", MARKER_GLYPHS[k % MARKER_GLYPHS.len()])).collect::<Vec<_>>().join(", ")
                    ))}</span>
                }>
                    <SensitivityMap data=data axes=axes on_square=Signal::derive(|| true) on_move=on_move/>
                </ChartFigure>
            </Show>
        </LessonShell>
    }
}
