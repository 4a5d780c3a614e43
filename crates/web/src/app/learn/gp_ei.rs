//! Lesson 1 (`engine::lessons::gp_ei`): the GP's posterior over a 1-D function with its
//! observations, EI below it and the point it picks next; click the upper chart to add an
//! observation, pin the lengthscale to see over- and under-smoothing.

use std::sync::Arc;

use leptos::prelude::*;

use super::plot::{range, LegendEntry, Plot, BLUE, GREY};
use super::seed_strip::{counted, over_seeds, SeedStrip};
use super::shell::{hidden, worker_lesson, AddValue, LessonShell, WorkerLesson};
use crate::app::charts::chart::{chart_width, legend_room, view_box_width, ChartFigure, SvgFigure};
use hpo_engine::lessons::gp_ei::{GpEiFrame, GpEiSetting, Origin, LENGTHSCALE_RANGE, MAX_ADDED, MAX_STEPS};
use hpo_engine::lessons::sentences::gp_ei::{describe, sentence};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

const H: f64 = 330.0;
const EI_H: f64 = 200.0;
/// Decades of log₁₀ EI the collapsed EI chart shows below its largest value.
const LOG_EI_DECADES: f64 = 30.0;

/// Observation colours: initial points grey, added black, EI's picks blue, the latest orange.
const INITIAL: &str = "#7a7a7a";
const ADDED: &str = "#000000";
const PICKED: &str = "#0072B2";
const LATEST: &str = "#D55E00";
const MEAN: &str = "#0072B2";
const TRUTH: &str = "#444444";
const POSTERIOR_LEGEND: [LegendEntry; 2] = [("f(x), the truth", TRUTH, "6,4"), ("posterior mean ± 2 sd", MEAN, "none")];

/// The posterior chart's height: [`H`] and, on a narrow chart, its legend below.
pub(in crate::app) fn posterior_height() -> f64 {
    H + legend_room(chart_width(), POSTERIOR_LEGEND.len())
}

/// The posterior chart: truth, mean ± 2 sd, observations, the next pick; a click adds a point.
pub(in crate::app) fn posterior_chart(f: &GpEiFrame, step: usize) -> impl IntoView {
    let lo = f.truth.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = f.truth.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = 0.15 * (hi - lo);
    let upper: Vec<f64> = f.mean.iter().zip(&f.sd).map(|(m, s)| m + 2.0 * s).collect();
    let lower: Vec<f64> = f.mean.iter().zip(&f.sd).map(|(m, s)| m - 2.0 * s).collect();
    // The y range holds the band's edges, up to one span of the truth beyond it either way (a
    // wider band would squash the truth flat); a band cut there says so in the title.
    let (band_lo, band_hi) = range(lower.iter().chain(&upper).copied());
    let span = hi - lo;
    let (y_lo, y_hi) = (band_lo.max(lo - span).min(lo - pad), band_hi.min(hi + span).max(hi + pad));
    let cut = band_lo < y_lo || band_hi > y_hi;
    let title = if cut { "What the GP believes (band cut at the edges)" } else { "What the GP believes after the observations" };
    let p = Plot::nice((0.0, 1.0), (y_lo, y_hi), H).room_for(title);
    let line = |y: &[f64]| p.points(f.x.iter().copied().zip(y.iter().copied()));
    let marks: Vec<(f64, f64)> = (f.x.iter().copied().zip(f.truth.iter().copied()))
        .chain(f.x.iter().copied().zip(f.mean.iter().copied()))
        .chain(f.observations.iter().map(|&(x, y, _)| (x, y)))
        .collect();
    let next_label = p.marker_label_area(f.next.0, "next");
    let dots = f.observations.iter().map(|&(x, y, origin)| {
        let (cx, cy) = (p.px(x), p.py(y));
        match origin {
            Origin::Initial => view! { <circle class="obs obs-initial" cx=cx cy=cy r="6" fill=INITIAL stroke="#fff" stroke-width="1.5"/> }.into_any(),
            Origin::Added => view! { <rect class="obs obs-added" x=cx - 6.0 y=cy - 6.0 width="12" height="12" fill=ADDED stroke="#fff" stroke-width="1.5"/> }.into_any(),
            Origin::Step(k) => {
                let color = if k == step { LATEST } else { PICKED };
                view! { <circle class="obs obs-picked" cx=cx cy=cy r=if k == step { "8" } else { "6" } fill=color stroke="#fff" stroke-width="1.5"/> }.into_any()
            }
        }
    }).collect_view();
    view! {
        {p.axes(title, "x", "f(x)")}
        <polygon points=p.band(&f.x, &lower, &upper) fill=MEAN fill-opacity="0.16" stroke="none"/>
        <polyline points=line(&f.truth) fill="none" stroke=TRUTH stroke-width="2" stroke-dasharray="6,4"/>
        <polyline points=line(&f.mean) fill="none" stroke=MEAN stroke-width="3"/>
        {p.marker(f.next.0, "next", LATEST)}
        {dots}
        {p.legend_clear_of(&POSTERIOR_LEGEND, &marks, &next_label)}
    }
}

/// EI over x with its maximum marked; once EI has collapsed (tiny everywhere), log₁₀ EI,
/// which still ranks the points and picks the next one.
fn ei_chart(f: &GpEiFrame) -> impl IntoView {
    if f.ei_collapsed() {
        return log_ei_chart(f).into_any();
    }
    let top = f.max_ei();
    let title = "Expected improvement (EI) over the best so far";
    let p = Plot::nice((0.0, 1.0), (0.0, if top > 0.0 { top } else { 1.0 }), EI_H).room_for(title);
    let curve = p.points(f.x.iter().copied().zip(f.ei.iter().copied()));
    let area = format!("{:.1},{:.1} {curve} {:.1},{:.1}", p.px(0.0), p.py(0.0), p.px(1.0), p.py(0.0));
    let (nx, ny) = (p.px(f.next.0), p.py(f.next.1));
    view! {
        {p.axes(title, "x", "EI(x)")}
        <polygon points=area fill=LATEST fill-opacity="0.25" stroke=LATEST stroke-width="2"/>
        <line x1=nx x2=nx y1=ny y2=p.py(0.0) stroke=LATEST stroke-width="2" stroke-dasharray="4,4"/>
        <circle cx=nx cy=ny r="6" fill=LATEST/>
    }
    .into_any()
}

/// log₁₀ EI over the points not yet evaluated (gaps at the evaluated ones), its maximum marked.
fn log_ei_chart(f: &GpEiFrame) -> impl IntoView {
    // Next to an evaluated point log-EI plunges by thousands of decades: the chart shows the
    // top LOG_EI_DECADES below the largest, where the ranking that picks the next point is.
    let top = f.log10_ei.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let floor = top - LOG_EI_DECADES;
    let finite: Vec<(f64, f64)> =
        f.x.iter().copied().zip(f.log10_ei.iter().copied()).filter(|p| p.1.is_finite()).map(|(x, l)| (x, l.max(floor))).collect();
    let (lo, hi) = range(finite.iter().map(|p| p.1));
    let title = "EI is tiny everywhere: log₁₀ EI still ranks the points";
    let p = Plot::nice((0.0, 1.0), (lo, hi), EI_H).room_for(title);
    let (nx, ny) = (p.px(f.next.0), p.py(top));
    view! {
        {p.axes(title, "x", "log₁₀ EI(x)")}
        <polyline points=p.points(finite.iter().copied()) fill="none" stroke=LATEST stroke-width="2"/>
        <line x1=nx x2=nx y1=ny y2=p.py(p.y.0) stroke=LATEST stroke-width="2" stroke-dasharray="4,4"/>
        <circle cx=nx cy=ny r="6" fill=LATEST/>
    }
}

/// The x of a click on a chart, in [0, 1] to three decimals, or `None` outside the plot.
fn click_x(ev: &leptos::ev::MouseEvent) -> Option<f64> {
    let target: web_sys::Element = event_target(ev);
    let svg = target.closest("svg").ok().flatten()?;
    let rect = svg.get_bounding_client_rect();
    let w = view_box_width(&svg);
    let x = (ev.client_x() as f64 - rect.left()) * w / rect.width().max(1.0);
    // The x mapping does not depend on the y range: any plot of this width reads it.
    let f = Plot::nice((0.0, 1.0), (0.0, 1.0), H).width(w).data_x(x)?;
    Some((f * 1000.0).round() / 1000.0)
}

/// Lesson 1.
#[component]
pub fn GpEiLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    // A worker computes all of a setting's frames at once (the GP code stays out of the page's
    // bundle), and stepping only indexes them.
    let WorkerLesson { setting, frames: all, error, busy, .. } = worker_lesson(
        link,
        |l| match l {
            Lesson::GpEi(s) => Some(s.clone()),
            _ => None,
        },
        |f| match f {
            LessonFrames::GpEi(frames) => Some(frames),
            _ => None,
        },
    );
    let current = Memo::new(move |_| -> Option<(Arc<GpEiFrame>, f64)> {
        let step = setting.get().step;
        all.with(|a| {
            a.as_ref().and_then(|(frames, ms)| frames.get(step.min(frames.len().saturating_sub(1))).map(|f| (Arc::new(f.clone()), *ms)))
        })
    });
    let set = move |f: &dyn Fn(&mut GpEiSetting)| {
        link.update(|l| {
            if let Lesson::GpEi(s) = &mut l.lesson {
                f(s)
            }
        })
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some(x) = click_x(&ev) {
            set(&|s| {
                if s.added.len() < MAX_ADDED && !s.added.contains(&x) {
                    s.added.push(x);
                }
            });
        }
    };
    let step = Memo::new(move |_| setting.get().step);
    let over = over_seeds(link, Signal::derive(move || all.with(Option::is_some)));
    // The engine says what each step shows (`lessons::sentences::gp_ei`).
    let explain = move || {
        let k = step.get();
        let (seed, over) = (setting.get().seed, counted(over));
        all.with(|a| {
            a.as_ref()
                .filter(|(frames, _)| !frames.is_empty())
                .map(|(frames, _)| sentence(frames, k.min(frames.len() - 1), seed, over.as_deref()))
        })
    };
    // The slider shows the lengthscale in use: the fitted one follows the fit until pinned.
    let fitted_ls = move || current.get().map_or(0.1, |(f, _)| f.lengthscale);
    let log_ls = move || setting.get().lengthscale.unwrap_or_else(fitted_ls).log10();
    let pin_at_fitted = move || (fitted_ls() * 1000.0).round() / 1000.0;
    view! {
            <LessonShell
                link=link
                side=ViewFn::from(move || view! {
                <Show when=move || !hidden(link, "lengthscale")>
                    <div class="row" id="lesson-lengthscale">
                        <label class="check"><input type="checkbox" id="lesson-ls-fit" prop:checked=move || setting.get().lengthscale.is_none()
                            on:change=move |ev| { let fit = event_target_checked(&ev); let l = pin_at_fitted().clamp(LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1); set(&|s| s.lengthscale = if fit { None } else { Some(l) }) }/>
                            " fit the lengthscale (the most probable given the points and a prior)"</label>
                        <label>"or pin it: ℓ = "
                            <input type="range" id="lesson-ls" min=LENGTHSCALE_RANGE.0.log10() max=LENGTHSCALE_RANGE.1.log10() step="0.05"
                                prop:value=move || log_ls().to_string() prop:disabled=move || setting.get().lengthscale.is_none()
                                aria-label="lengthscale (log scale)"
                                on:input=move |ev| { if let Ok(t) = event_target_value(&ev).parse::<f64>() { let l = (10f64.powf(t) * 1000.0).round() / 1000.0; set(&|s| s.lengthscale = Some(l.clamp(LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1))) } }/>
                            <span id="lesson-ls-value">{move || current.get().map(|(f, _)| format!(" {:.3}", f.lengthscale))}</span>
                        </label>
                        <AddValue label="add a point at x = " input_id="lesson-add-x" placeholder="0 to 1" valid=|x| (0.0..=1.0).contains(&x)
                            add=Callback::new(move |x: f64| {
                                let x = (x * 1000.0).round() / 1000.0;
                                set(&|s| if s.added.len() < MAX_ADDED && !s.added.contains(&x) { s.added.push(x) });
                            })
                            added="my points" has_added=Signal::derive(move || !setting.get().added.is_empty())
                            clear=Callback::new(move |()| set(&|s| s.added.clear()))
                            reseed_label="new random start" reseed=Callback::new(move |()| set(&|s| { s.seed += 1; s.step = 0 }))/>
                    </div>
                </Show>
                })
                id="lesson-gp-ei"
                intro=concat!(
                    "A Gaussian process (GP) turns a few observations of an unknown function into a belief about all of it: a mean and, around it, how unsure it is. ",
                    "Expected improvement (EI) asks, for every x, how much better than the best observation a new point there is expected to be — ",
                    "large where the mean is low or the uncertainty wide. Bayesian optimisation evaluates where EI is largest, updates the GP, and repeats ",
                    "(the GP-EI baseline of Salinas et al. 2020, §5; the function is Forrester et al.'s, minimum near x = 0.757).",
                )
                explain=Signal::derive(explain)
                error=Signal::derive(move || error.get())
                busy=busy
                drawn=Signal::derive(move || all.with(Option::is_some))
                strip=ViewFn::from(move || view! { <SeedStrip over=over link=link show=|v| format!("{v:.0}") unit="random start" colours=&[BLUE, GREY] describe=describe asks="How EI did on each of the"/> })
                numbers=Signal::derive(move || current.get().map(|(f, ms)| {
                        let ei = if f.ei_collapsed() { format!("log₁₀ EI {:.1}", f.log10_ei.iter().copied().fold(f64::NEG_INFINITY, f64::max)) } else { format!("EI {:.3}", f.next.1) };
                        format!(
                            "step {} of {MAX_STEPS} · {} observations · best f = {:.3} at x = {:.3} · next x = {:.3} ({ei}) · ℓ = {:.3} ({}) · all steps computed in a worker in {ms:.0} ms",
                            step.get(), f.observations.len(), f.best.1, f.best.0, f.next.0, f.lengthscale, if f.fitted { "fitted" } else { "pinned" }
                        )
                    }))
            >
                <Show when=move || !hidden(link, "posterior")>
                    <ChartFigure id="lesson-posterior" file="gp-ei-posterior" caption=move || view! {
                        <span>"Grey dots: random start; black squares: your points (click the chart to add one, up to 20); blue: EI's picks, the latest orange."</span>
                    }>
                        <svg id="lesson-posterior" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox=move || format!("0 0 {} {}", chart_width(), posterior_height()) role="img"
                            aria-label="GP posterior mean with a band of two standard deviations, the true function and the observations" on:click=on_click>
                            {move || current.get().map(|(f, _)| posterior_chart(&f, step.get()))}
                        </svg>
                    </ChartFigure>
                </Show>
                <Show when=move || !hidden(link, "ei")>
                    <SvgFigure id="lesson-ei" file="gp-ei-ei" payoff=true caption=move || view! { <span>"EI in units of f (once it is tiny everywhere, its logarithm); the orange dot is the next evaluation."</span> } height=EI_H label="Expected improvement over x">
                            {move || current.get().map(|(f, _)| ei_chart(&f))}
    </SvgFigure>
                </Show>
            </LessonShell>
        }
}
