//! Lesson 3 (`engine::lessons::transfer`): the tasks seen before and the new one; the MLP
//! prior's mean ± 2 sd of ψ(y) learned from the others, with CTS's Thompson draw of the step;
//! GCP+prior's and GCP's models pick by pick; and the best value each method has found.

use leptos::prelude::*;

use super::plot::{model_chart, range, LegendEntry, Plot, BLUE, GREEN, GREY, ORANGE, PURPLE};
use super::seed_strip::{counted, over_seeds, SeedStrip};
use super::shell::{hidden, next_seed, worker_lesson, LessonShell, WorkerLesson};
use crate::app::charts::chart::SvgFigure;
use hpo_engine::lessons::sentences::transfer::sentence;
use hpo_engine::lessons::steps::{best_so_far, Pick};
use hpo_engine::lessons::transfer::{TransferFrames, MAX_STEPS, METHODS};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

const H: f64 = 300.0;
// The prior and the best-so-far chart one above the other on a 720 px projector.
const PRIOR_H: f64 = 280.0;
const BEST_H: f64 = 240.0;
const PRIOR_TITLE: &str = "The prior from the other tasks, in ψ units";
const BEST_TITLE: &str = "Best value found so far";
const METHOD_COLORS: [&str; 3] = [BLUE, GREEN, PURPLE];
const DASHES: [&str; 3] = ["none", "8,4", "2,4"];
const PRIOR_LEGEND: [LegendEntry; 3] =
    [("prior mean ± 2 sd", BLUE, "none"), ("the new task's true ψ", "#000", "6,4"), ("CTS's draws (one per x)", PURPLE, "2,3")];
const BEST_LEGEND: [LegendEntry; 4] = [
    (METHODS[0], METHOD_COLORS[0], DASHES[0]),
    (METHODS[1], METHOD_COLORS[1], DASHES[1]),
    (METHODS[2], METHOD_COLORS[2], DASHES[2]),
    ("the task's minimum", "#000", "3,3"),
];

/// The source tasks (grey) and the target (black), in their own units.
fn tasks_chart(f: &TransferFrames) -> impl IntoView {
    let title = "Eight tasks seen before (grey) and the new one (black)";
    let p = Plot::nice((0.0, 1.0), range(f.sources.iter().flatten().chain(&f.target).copied()), H).room_for(title);
    view! {
        {p.axes(title, "x", "y")}
        {f.sources.iter().map(|s| view! {
            <polyline points=p.points(f.x.iter().copied().zip(s.iter().copied())) fill="none" stroke=GREY stroke-width="1.5" stroke-opacity="0.7"/>
        }).collect_view()}
        <polyline points=p.points(f.x.iter().copied().zip(f.target.iter().copied())) fill="none" stroke="#000" stroke-width="3"/>
    }
}

/// The prior's mean ± 2 sd of ψ(y), the target's true ψ, and CTS's draw at this step.
fn prior_chart(f: &TransferFrames, cts: &Pick) -> impl IntoView {
    let upper: Vec<f64> = f.prior.iter().map(|(m, s)| m + 2.0 * s).collect();
    let lower: Vec<f64> = f.prior.iter().map(|(m, s)| m - 2.0 * s).collect();
    let draws: Vec<f64> = cts.belief.as_ref().map(|b| b.acquisition.clone()).unwrap_or_default();
    let p = Plot::nice((0.0, 1.0), range(upper.iter().chain(&lower).chain(&f.target_psi).chain(&draws).copied()), PRIOR_H)
        .room_for(PRIOR_TITLE);
    let mean: Vec<f64> = f.prior.iter().map(|m| m.0).collect();
    let next = f.x[cts.next];
    view! {
        {p.axes(PRIOR_TITLE, "x", "ψ(y)")}
        <polygon points=p.band(&f.x, &lower, &upper) fill=BLUE fill-opacity="0.16" stroke="none"/>
        <polyline points=p.points(f.x.iter().copied().zip(mean.iter().copied())) fill="none" stroke=BLUE stroke-width="3"/>
        <polyline points=p.points(f.x.iter().copied().zip(f.target_psi.iter().copied())) fill="none" stroke="#000" stroke-width="2" stroke-dasharray="6,4"/>
        {f.x.iter().zip(&draws).filter(|(_, d)| d.is_finite()).map(|(&x, &d)| view! {
            <circle class="draw" cx=p.px(x) cy=p.py(d) r="3" fill=PURPLE/>
        }).collect_view()}
        {p.marker(next, "CTS: smallest draw", ORANGE)}
        {p.legend(&PRIOR_LEGEND,
            &f.x.iter().copied().zip(mean.iter().copied()).chain(f.x.iter().copied().zip(f.target_psi.iter().copied())).chain(f.x.iter().copied().zip(draws.iter().copied())).chain(p.marker_label_area(next, "CTS: smallest draw")).collect::<Vec<_>>())}
    }
}

/// Best value found so far by each method, evaluations 0 ..= `step`.
fn regret_chart(f: &TransferFrames, step: usize) -> impl IntoView {
    let best: Vec<Vec<f64>> = f.runs.iter().map(|r| best_so_far(&r[..=step.min(r.len() - 1)], &f.target)).collect();
    let optimum = f.target.iter().copied().fold(f64::INFINITY, f64::min);
    let p = Plot::nice((0.0, MAX_STEPS as f64), range(best.iter().flatten().copied().chain([optimum])), BEST_H).room_for(BEST_TITLE);
    view! {
        {p.axes(BEST_TITLE, "evaluations", "best y")}
        <line x1=p.px(0.0) x2=p.px(MAX_STEPS as f64) y1=p.py(optimum) y2=p.py(optimum) stroke="#000" stroke-dasharray="3,3"/>
        {best.iter().enumerate().map(|(m, b)| view! {
            <polyline points=p.points(b.iter().enumerate().map(|(k, &v)| (k as f64, v))) fill="none" stroke=METHOD_COLORS[m] stroke-width="3" stroke-dasharray=DASHES[m]/>
        }).collect_view()}
        {p.legend(&BEST_LEGEND,
            &best.iter().flat_map(|b| b.iter().enumerate().map(|(k, &v)| (k as f64, v))).collect::<Vec<_>>())}
    }
}

/// Lesson 3.
#[component]
pub fn TransferLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    let WorkerLesson { step, frames, error, busy, .. } = worker_lesson(
        link,
        |l| match l {
            Lesson::Transfer(s) => Some(*s),
            _ => None,
        },
        |f| match f {
            LessonFrames::Transfer(t) => Some(t),
            _ => None,
        },
    );
    let pick = move |f: &TransferFrames, m: usize| f.runs[m][step.get().min(f.runs[m].len() - 1)].clone();
    let over = over_seeds(link, Signal::derive(move || frames.with(Option::is_some)));
    let seed = Memo::new(move |_| link.with(|l| l.lesson.seed().unwrap_or_default()));
    let explain = move || frames.get().map(|(f, _)| sentence(&f, step.get(), seed.get(), counted(over).as_deref()));
    let best_line = move || {
        frames.get().map(|(f, ms)| {
            let k = step.get();
            let best: Vec<String> = f
                .runs
                .iter()
                .zip(METHODS)
                .map(|(r, name)| {
                    let b = best_so_far(&r[..=k.min(r.len() - 1)], &f.target)[k.min(r.len() - 1)];
                    format!("{name} {}", if b.is_finite() { format!("{b:.2}") } else { "—".into() })
                })
                .collect();
            let optimum = f.target.iter().copied().fold(f64::INFINITY, f64::min);
            format!(
                "step {k} of {MAX_STEPS} · best so far: {} (the task's minimum {optimum:.2}) · prior RMSE on the new task's ψ {:.2} (1 = no better than 0) · all steps computed in a worker in {ms:.0} ms",
                best.join(", "),
                f.prior_rmse
            )
        })
    };
    view! {
            <LessonShell
                link=link
                id="lesson-transfer"
                intro=concat!(
                    "Tuning the same model on a new dataset is rarely the first time: other datasets were tuned before, and their good regions tend to be good again. ",
                    "Their values differ in scale, so the copula method first warps each task's values with ψ (lesson 2), then trains a small neural network on all of them: ",
                    "for every x it predicts a mean and an uncertainty of ψ(y) — the prior (Salinas et al. 2020, §4.1). ",
                    "CTS draws one value per x from the prior and evaluates the smallest draw (Alg. 1). GCP+prior starts with five CTS picks, ",
                    "then fits a GP to the prior's errors on this task and picks by EI (Alg. 2). GCP is the same GP without the prior: it starts blind.",
                )
                explain=Signal::derive(explain)
                error=Signal::derive(move || error.get())
                busy=busy
                drawn=Signal::derive(move || frames.with(Option::is_some))
                strip=ViewFn::from(move || view! { <SeedStrip over=over link=link show=|v| format!("{v:.0}") unit="family" colours=&METHOD_COLORS/> })
                numbers=Signal::derive(best_line)
                controls=ViewFn::from(move || view! { <button id="lesson-reseed" on:click=move |_| next_seed(link)>"another family of tasks"</button> })
                computing=Signal::derive(move || frames.get().is_none().then_some("Training the prior on the other tasks in a worker (about a second)…"))
            >
                // The prior, then what it buys (the pay-off, on the first screen while
                // stepping), then each model's step side by side, then the tasks it learned from.
                <Show when=move || !hidden(link, "prior")>
                    <SvgFigure id="lesson-prior" file="transfer-prior" caption=move || view! { <span>"Blue: what the prior expects of the new task before seeing any of it; purple dots: this step's CTS draws."</span> } height=PRIOR_H legend=PRIOR_LEGEND.len() label="The prior's mean and two standard deviations, the new task's true warped values, and the Thompson draws">
                            {move || frames.get().map(|(f, _)| prior_chart(&f, &pick(&f, 2)))}
    </SvgFigure>
                </Show>
                <Show when=move || !hidden(link, "regret")>
                    <SvgFigure id="lesson-regret" file="transfer-best" payoff=true caption=move || view! { <span>"Lower is better; the dotted line is the best value the new task has."</span> } height=BEST_H legend=BEST_LEGEND.len() label="Best value found so far by each method">
                            {move || frames.get().map(|(f, _)| regret_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
                <Show when=move || !hidden(link, "runs")>
                    <div class="chart-pair">
                    <SvgFigure id="lesson-run-prior" file="transfer-gcp-prior" caption=move || view! { <span>"GCP+prior at this step: dots are its evaluations so far in its model's units (latest orange), the band its mean ± 2 sd."</span> } height=240.0 label="GCP+prior's model at this step">
                            {move || frames.get().map(|(f, _)| model_chart(METHODS[0], "ψ(y)", &f.x, &f.target, &pick(&f, 0), METHOD_COLORS[0]))}
    </SvgFigure>
                    <SvgFigure id="lesson-run-gcp" file="transfer-gcp" caption=move || view! { <span>"GCP at the same step, from the same seed, without the prior."</span> } height=240.0 label="GCP's model at this step">
                            {move || frames.get().map(|(f, _)| model_chart(METHODS[1], "ψ(y)", &f.x, &f.target, &pick(&f, 1), METHOD_COLORS[1]))}
    </SvgFigure>
                    </div>
                </Show>
                <Show when=move || !hidden(link, "prior")>
                    <SvgFigure id="lesson-tasks" file="transfer-tasks" caption=move || view! { <span>"Each task is a function of one hyperparameter x, with its own scale and offset."</span> } height=H label="The source tasks and the new task">
                            {move || frames.get().map(|(f, _)| tasks_chart(&f))}
    </SvgFigure>
                </Show>
            </LessonShell>
        }
}
