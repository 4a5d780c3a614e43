//! Lesson 2 (`engine::lessons::copula`): values arrive one per step; the winsorized empirical
//! CDF F̃ with its cut-offs δ_N and 1 − δ_N, and below it the same values standardised (what
//! a plain GP sees) and warped by ψ = Φ⁻¹∘F̃ (what the copula methods see).

use leptos::prelude::*;

use std::sync::Arc;

use super::plot::{model_chart, GREEN, PURPLE};
use super::seed_strip::{counted, over_seeds, SeedStrip};
use super::shell::{hidden, worker_frames, AddValue, LessonShell};
use crate::app::charts::chart::{chart_title, chart_width, title_top, SvgFigure, TICK_DIGIT, TICK_GAP};
use hpo_engine::axis;
use hpo_engine::lessons::copula::{frame, CopulaFrame, CopulaSetting, MAX_ADDED, MAX_STEPS};
use hpo_engine::lessons::sentences::copula::{sentence, versus_line};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

const TITLE: &str = "The values and their winsorized empirical CDF F̃";
const WARP_TITLE: &str = "What a model sees: standardised values, or ψ";
const H: f64 = 300.0;
const WARP_H: f64 = 230.0;
const ML: f64 = 110.0;
/// Room for the last tick label (e.g. 100000) right of the plot.
const MR: f64 = 40.0;
const MT: f64 = 36.0;
const MB: f64 = 52.0;

const SEEN: &str = "#0072B2";
const ADDED: &str = "#000000";
const NEWEST: &str = "#D55E00";

/// Colour of value `i` of the frame: the newest orange, the user's black, the rest blue.
fn color(f: &CopulaFrame, i: usize, step: usize) -> &'static str {
    let n = f.ys.len();
    if i >= n - f.added {
        ADDED
    } else if step > 0 && i == n - f.added - 1 {
        NEWEST
    } else {
        SEEN
    }
}

fn x_ticks(lo: f64, hi: f64, h: f64, px: impl Fn(f64) -> f64) -> impl IntoView {
    // As many as fit the plot's width with their labels apart.
    let t = axis::linear_fitting(lo, hi, 6, px(hi) - px(lo), TICK_DIGIT, TICK_GAP);
    t.values
        .iter()
        .zip(t.labels)
        .map(|(&v, l)| {
            view! {
                <line x1=px(v) x2=px(v) y1=MT y2=h - MB stroke="#eeeeee"/>
                <text x=px(v) y=h - MB + 24.0 text-anchor="middle" class="tick">{l}</text>
            }
        })
        .collect_view()
}

/// F̃ as steps over the values, the cut-offs, and a rug of the values.
fn ecdf_chart(f: &CopulaFrame, step: usize) -> impl IntoView {
    let w = chart_width();
    let mt = title_top(TITLE, w, ML);
    let lo = f.ys.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = f.ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = axis::nice_range(lo, if hi > lo { hi } else { lo + 1.0 }, 6);
    let px = move |y: f64| ML + (y - x0) / (x1 - x0) * (w - ML - MR);
    let py = |p: f64| H - MB - p * (H - mt - MB);
    let mut steps = vec![format!("{:.1},{:.1}", px(x0), py(f.delta))];
    let mut last = f.delta;
    for &(y, p) in &f.ecdf {
        steps.push(format!("{:.1},{:.1}", px(y), py(last)));
        steps.push(format!("{:.1},{:.1}", px(y), py(p)));
        last = p;
    }
    steps.push(format!("{:.1},{:.1}", px(x1), py(last)));
    let yt = axis::linear(0.0, 1.0, 4);
    view! {
        <rect x="0" y="0" width=w height=H fill="#ffffff"/>
        {chart_title(TITLE, w, ML)}
        {x_ticks(x0, x1, H, px)}
        {yt.values.iter().zip(yt.labels).map(|(&v, l)| view! { <text x=ML - 10.0 y=py(v) + 5.0 text-anchor="end" class="tick">{l}</text> }).collect_view()}
        <line x1=ML x2=w - MR y1=py(f.delta) y2=py(f.delta) stroke="#D55E00" stroke-dasharray="6,4"/>
        <line x1=ML x2=w - MR y1=py(1.0 - f.delta) y2=py(1.0 - f.delta) stroke="#D55E00" stroke-dasharray="6,4"/>
        <text x=w - MR - 4.0 y=py(f.delta) - 6.0 text-anchor="end" class="legend" style="fill:#D55E00">{format!("δ_N = {:.3}", f.delta)}</text>
        <text x=w - MR - 4.0 y=py(1.0 - f.delta) + 18.0 text-anchor="end" class="legend" style="fill:#D55E00">"1 − δ_N"</text>
        <polyline points=steps.join(" ") fill="none" stroke="#222" stroke-width="2.5"/>
        {f.ys.iter().enumerate().map(|(i, &y)| view! {
            <line class="rug" x1=px(y) x2=px(y) y1=H - MB - 14.0 y2=H - MB stroke=color(f, i, step) stroke-width="2.5"/>
        }).collect_view()}
        <line x1=ML x2=w - MR y1=H - MB y2=H - MB stroke="#444"/>
        <line x1=ML x2=ML y1=mt y2=H - MB stroke="#444"/>
        <text x=(ML + w - MR) / 2.0 y=H - 10.0 text-anchor="middle" class="axis-title">"value y (its own scale)"</text>
        <text transform=format!("translate(60,{}) rotate(-90)", (mt + H - MB) / 2.0) text-anchor="middle" class="axis-title">"F̃(y)"</text>
    }
}

/// The values standardised and warped, one row each, on one axis.
fn warped_chart(f: &CopulaFrame, step: usize) -> impl IntoView {
    let w = chart_width();
    let mt = title_top(WARP_TITLE, w, ML);
    let all = f.standardized.iter().chain(&f.psi).copied();
    let (lo, hi) = all.fold((-3.0f64, 3.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (x0, x1) = axis::nice_range(lo, hi, 6);
    let px = move |z: f64| ML + (z - x0) / (x1 - x0) * (w - ML - MR);
    let rows = [("standardised", 100.0, &f.standardized), ("ψ(y) = Φ⁻¹(F̃(y))", 150.0, &f.psi)];
    view! {
        <rect x="0" y="0" width=w height=WARP_H fill="#ffffff"/>
        {chart_title(WARP_TITLE, w, ML)}
        {x_ticks(x0, x1, WARP_H, px)}
        <line x1=px(0.0) x2=px(0.0) y1=mt y2=WARP_H - MB stroke="#999" stroke-dasharray="3,3"/>
        {rows.into_iter().map(|(name, y, values)| view! {
            <text x=ML - 10.0 y=y + 5.0 text-anchor="end" class="legend">{name.split(" = ").next().unwrap_or(name).to_string()}</text>
            {values.iter().enumerate().map(|(i, &z)| view! {
                <circle cx=px(z) cy=y r="6" fill=color(f, i, step) fill-opacity="0.75" stroke="#fff"/>
            }).collect_view()}
        }).collect_view()}
        <line x1=ML x2=w - MR y1=WARP_H - MB y2=WARP_H - MB stroke="#444"/>
        <text x=(ML + w - MR) / 2.0 y=WARP_H - 10.0 text-anchor="middle" class="axis-title">"model scale"</text>
    }
}

/// Lesson 2.
#[component]
pub fn CopulaLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    let setting = Memo::new(move |_| match link.with(|l| l.lesson.clone()) {
        Lesson::Copula(s) => s,
        _ => CopulaSetting::default(),
    });
    let current = Memo::new(move |_| frame(&setting.get()).map_err(|e| e.to_string()));
    let step = Memo::new(move |_| setting.get().step);
    let set = move |f: &dyn Fn(&mut CopulaSetting)| {
        link.update(|l| {
            if let Lesson::Copula(s) = &mut l.lesson {
                f(s)
            }
        })
    };
    // GP against GCP on a heavy-tailed function, from a worker (GP fits stay out of the page).
    let job = Memo::new(move |_| link.with(|l| l.lesson.job()));
    let (versus_all, versus_error) = worker_frames(
        job,
        |j| j,
        |f| match f {
            LessonFrames::Versus(v) => Some(v),
            _ => None,
        },
    );
    let versus = Memo::new(move |_| versus_all.with(|a| a.as_ref().map(|(_, v, _)| Arc::clone(v))));
    // The worker is computing another seed's runs than those drawn (`aria-busy`).
    let busy = move || versus_error.with(Option::is_none) && job.with(|j| versus_all.with(|a| a.as_ref().is_none_or(|(k, _, _)| k != j)));
    let versus_numbers = move || versus.get().map(|v| versus_line(&v, step.get()));
    // The engine says what each step shows; the last step, GP against GCP's verdict.
    let over = over_seeds(link, Signal::derive(move || versus.with(Option::is_some)));
    let explain =
        move || current.get().ok().map(|f| sentence(&f, step.get(), versus.get().as_deref(), setting.get().seed, counted(over).as_deref()));
    view! {
            <LessonShell
                link=link
                side=ViewFn::from(move || view! {
                <Show when=move || !hidden(link, "add")>
                    <div class="row" id="lesson-add-values">
                        <AddValue label="add a value y = " input_id="lesson-add-y" placeholder="e.g. 100000" valid=f64::is_finite
                            add=Callback::new(move |y: f64| set(&|s| if s.added.len() < MAX_ADDED { s.added.push(y) }))
                            added="my values" has_added=Signal::derive(move || !setting.get().added.is_empty())
                            clear=Callback::new(move |()| set(&|s| s.added.clear()))
                            reseed_label="new sample" reseed=Callback::new(move |()| set(&|s| { s.seed += 1; s.step = 0 }))/>
                    </div>
                </Show>
                })
                id="lesson-copula"
                intro=concat!(
                    "Losses of different tasks live on different scales, and within one task they are often heavy-tailed: a few runs diverge and are huge. ",
                    "Standardised, one huge value squeezes all the others together, and a GP on them learns little. ",
                    "The copula methods (Salinas et al. 2020, §3) replace each value by ψ(y) = Φ⁻¹(F̃(y)): its rank among the values seen (F̃, the empirical CDF, ",
                    "kept between δ_N and 1 − δ_N) read as a standard-normal quantile — evenly spread, comparable across tasks, and bounded. Add a huge value and watch both rows.",
                )
                explain=Signal::derive(explain)
                error=Signal::derive(move || current.get().err())
                busy=Signal::derive(busy)
                strip=ViewFn::from(move || view! { <SeedStrip over=over link=link show=|v| format!("{v:.0}") unit="seed" colours=&[PURPLE, GREEN]/> })
                numbers=Signal::derive(move || current.get().ok().map(|f| {
                        let spread = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max) - v.iter().copied().fold(f64::INFINITY, f64::min);
                        // The sample's own values (not the user's): what an outlier squeezes.
                        let own = f.ys.len() - f.added;
                        format!(
                            "step {} of {MAX_STEPS} · N = {} · δ_N = {:.3} · spread of the sample's values: standardised {:.2}, ψ {:.2}",
                            step.get(), f.ys.len(), f.delta, spread(&f.standardized[..own]), spread(&f.psi[..own])
                        )
                    }))
            >
                <Show when=move || !hidden(link, "ecdf")>
                    <SvgFigure id="lesson-ecdf" file="copula-ecdf" caption=move || view! {
                        <span>"Blue: the values seen (the newest orange), black: yours; the step line is F̃, clipped to the dashed cut-offs."</span>
                    } height=H label="The values and their winsorized empirical CDF">
                            {move || current.get().ok().map(|f| ecdf_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
                <Show when=move || !hidden(link, "warped")>
                    <SvgFigure id="lesson-warped" file="copula-warped" payoff=true caption=move || view! {
                        <span>"The same values standardised ((y − mean) / sd) and warped by ψ, on one scale."</span>
                    } height=WARP_H label="The values standardised and warped by psi">
                            {move || current.get().ok().map(|f| warped_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
                <Show when=move || !hidden(link, "versus")>
                    <h3 id="lesson-versus-title">"The same idea inside an optimiser: GP against GCP"</h3>
                    <p class="lesson-text">
                        "Both minimise exp(f(x)/2), f being lesson 1's function: values from 0.05 to about 2,700, most below 3. Same seed, same five random points first; then GP fits standardised values (Δ) and GCP fits ψ. "
                        "On Δ, the one huge value flattens all the others. On ψ, every value becomes its rank, evenly spaced: no value dominates, so GCP's mean follows the valleys — "
                        "though the best value is the lowest rank however sharp its dip, and GCP's mean may pass a little above it, inside the band. "
                        "On this function GCP evaluates the minimum no later than GP on every seed we tried (0–4); the paper compares them over many tasks (Table 2), where the prior of lesson 3 helps GCP most at the start."
                    </p>
                    {move || versus_error.get().map(|e| view! { <p class="msg error">{e}</p> })}
                    <SvgFigure id="lesson-versus-gp" file="copula-versus-gp" caption=move || view! { <span>"GP on standardised values: mean ± 2 sd and the evaluations (latest orange)."</span> } height=240.0 label="GP's model of the heavy-tailed function at this step">
                            {move || versus.get().map(|v| model_chart("GP", "Δ(y)", &v.x, &v.y, &v.gp[step.get().min(v.gp.len() - 1)], PURPLE))}
    </SvgFigure>
                    <SvgFigure id="lesson-versus-gcp" file="copula-versus-gcp" caption=move || view! { <span>"GCP on ψ of the same values, at the same step."</span> } height=240.0 label="GCP's model of the heavy-tailed function at this step">
                            {move || versus.get().map(|v| model_chart("GCP", "ψ(y)", &v.x, &v.y, &v.gcp[step.get().min(v.gcp.len() - 1)], GREEN))}
    </SvgFigure>
                    <p id="lesson-versus-numbers" class="numbers">{versus_numbers}</p>
                </Show>
            </LessonShell>
        }
}
