//! Lesson 1 (`engine::lessons::gp_ei`): the GP's posterior over a 1-D function with its
//! observations, the acquisition below it and the point it picks next. A playground: the
//! settings beside it (`gp_ei_playground`) choose the function (or draw one), the noise, the
//! acquisition and the lengthscale; a click on the upper chart adds an observation, a drag
//! moves one, and in the guessing mode a click is the student's guess of the next pick.

use std::sync::Arc;

use leptos::prelude::*;

use super::gp_ei_playground::Playground;
use super::plot::{range, LegendEntry, Plot, BLUE, GREY};
use super::seed_strip::{counted, over_seeds, SeedStrip};
use super::shell::{hidden, worker_lesson, LessonShell, WorkerLesson};
use crate::app::charts::chart::{chart_width, legend_room, view_box_width, ChartFigure, SvgFigure};
use crate::app::platform::browser::now_ms;
use hpo_engine::lessons::gp_ei::{Acquisition, GpEiFrame, GpEiSetting, Origin, MAX_ADDED, MAX_STEPS};
use hpo_engine::lessons::sentences::gp_ei::{describe, sentence};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

const H: f64 = 330.0;
/// While a point or a drawing is dragged, the lesson is recomputed at most this often (ms):
/// each recompute is a worker's fit of all 31 frames, 30–70 ms; the last follows the release.
pub(super) const LIVE_MS: f64 = 150.0;
const EI_H: f64 = 200.0;
/// Decades of log₁₀ EI (or PI) the collapsed chart shows below its largest value.
const LOG_DECADES: f64 = 30.0;

/// Observation colours: initial points grey, added black, EI's picks blue, the latest orange.
const INITIAL: &str = "#7a7a7a";
const ADDED: &str = "#000000";
const PICKED: &str = "#0072B2";
pub(super) const LATEST: &str = "#D55E00";
/// The student's guess.
const GUESS: &str = "#009E73";
const MEAN: &str = "#0072B2";
const TRUTH: &str = "#444444";
const POSTERIOR_LEGEND: [LegendEntry; 2] = [("f(x), the truth", TRUTH, "6,4"), ("posterior mean ± 2 sd", MEAN, "none")];

/// The posterior chart's height: [`H`] and, on a narrow chart, its legend below.
pub(in crate::app) fn posterior_height() -> f64 {
    H + legend_room(chart_width(), POSTERIOR_LEGEND.len())
}

/// The posterior chart: truth, mean ± 2 sd, observations, the next pick; a click adds a point.
pub(in crate::app) fn posterior_chart(f: &GpEiFrame, step: usize) -> impl IntoView {
    posterior_chart_with(f, step, None, None)
}

/// [`posterior_chart`] with the student's guess for this step's pick, and an added point
/// (its index among the added, and where the pointer holds it) being dragged.
fn posterior_chart_with(f: &GpEiFrame, step: usize, guess: Option<f64>, dragged: Option<(usize, f64)>) -> impl IntoView {
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
    let mut added = 0;
    let dots = f.observations.iter().map(|&(x, y, origin)| {
        let (cx, cy) = (p.px(x), p.py(y));
        match origin {
            Origin::Initial => view! { <circle class="obs obs-initial" cx=cx cy=cy r="6" fill=INITIAL stroke="#fff" stroke-width="1.5"/> }.into_any(),
            Origin::Added => {
                // A square a finger can take: 12 px drawn, its index for the drag.
                let k = added;
                added += 1;
                let cx = dragged.filter(|d| d.0 == k).map_or(cx, |d| p.px(d.1));
                view! { <rect class="obs obs-added" data-added=k x=cx - 6.0 y=cy - 6.0 width="12" height="12" fill=ADDED stroke="#fff" stroke-width="1.5"/> }.into_any()
            }
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
        {guess.map(|g| p.marker(g, "your guess", GUESS))}
        {dots}
        {p.legend_clear_of(&POSTERIOR_LEGEND, &marks, &next_label)}
    }
}

/// The acquisition over x with its pick marked: EI or PI as an area (once tiny everywhere,
/// its logarithm, which still ranks the points), UCB's bound or Thompson sampling's draw as a
/// line with the posterior mean beside it, the pick at its lowest point.
fn acquisition_chart(f: &GpEiFrame) -> impl IntoView {
    if f.collapsed() {
        return log_chart(f).into_any();
    }
    let (nx, value) = f.next;
    match f.acquisition {
        Acquisition::Ei | Acquisition::Pi => {
            let (title, y_title) = match f.acquisition {
                Acquisition::Ei => ("Expected improvement (EI) over the best so far", "EI(x)"),
                _ => ("Probability of improvement (PI) over the best so far", "PI(x)"),
            };
            let top = f.best_acq();
            let p = Plot::nice((0.0, 1.0), (0.0, if top > 0.0 { top } else { 1.0 }), EI_H).room_for(title);
            let curve = p.points(f.x.iter().copied().zip(f.acq.iter().copied()));
            let area = format!("{:.1},{:.1} {curve} {:.1},{:.1}", p.px(0.0), p.py(0.0), p.px(1.0), p.py(0.0));
            let (px, py) = (p.px(nx), p.py(value));
            view! {
                {p.axes(title, "x", y_title)}
                <polygon points=area fill=LATEST fill-opacity="0.25" stroke=LATEST stroke-width="2"/>
                <line x1=px x2=px y1=py y2=p.py(0.0) stroke=LATEST stroke-width="2" stroke-dasharray="4,4"/>
                <circle cx=px cy=py r="6" fill=LATEST/>
            }
            .into_any()
        }
        Acquisition::Ucb(_) | Acquisition::Thompson => {
            let title = match f.acquisition {
                Acquisition::Ucb(k) => format!("The lower bound μ − κ·sd, κ = {k}: its lowest point is the pick"),
                _ => "One function drawn from the GP's belief: its lowest point is the pick".to_string(),
            };
            let (lo, hi) = range(f.acq.iter().chain(&f.mean).copied());
            let p = Plot::nice((0.0, 1.0), (lo, hi), EI_H).room_for(&title);
            let (px, py) = (p.px(nx), p.py(value));
            view! {
                {p.axes(&title, "x", "f(x)")}
                <polyline points=p.points(f.x.iter().copied().zip(f.mean.iter().copied())) fill="none" stroke=MEAN stroke-width="2" stroke-opacity="0.5"/>
                <polyline points=p.points(f.x.iter().copied().zip(f.acq.iter().copied())) fill="none" stroke=LATEST stroke-width="2"/>
                <line x1=px x2=px y1=py y2=p.py(p.y.0) stroke=LATEST stroke-width="2" stroke-dasharray="4,4"/>
                <circle cx=px cy=py r="6" fill=LATEST/>
            }
            .into_any()
        }
    }
}

/// log₁₀ EI or PI over the points not yet evaluated (gaps at the evaluated ones), its maximum marked.
fn log_chart(f: &GpEiFrame) -> impl IntoView {
    // Next to an evaluated point the logarithm plunges by thousands of decades: the chart shows
    // the top LOG_DECADES below the largest, where the ranking that picks the next point is.
    let name = f.acquisition.short();
    let top = f.best_log10_acq();
    let floor = top - LOG_DECADES;
    let finite: Vec<(f64, f64)> =
        f.x.iter().copied().zip(f.log10_acq.iter().copied()).filter(|p| p.1.is_finite()).map(|(x, l)| (x, l.max(floor))).collect();
    let (lo, hi) = range(finite.iter().map(|p| p.1));
    let title = format!("{name} is tiny everywhere: log₁₀ {name} still ranks the points");
    let p = Plot::nice((0.0, 1.0), (lo, hi), EI_H).room_for(&title);
    let (nx, ny) = (p.px(f.next.0), p.py(top));
    view! {
        {p.axes(&title, "x", &format!("log₁₀ {name}(x)"))}
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
    // An added point taken by the pointer: its index and where it is held; a click that ends
    // a drag adds nothing.
    let dragging = RwSignal::new(None::<(usize, f64)>);
    let dragged = RwSignal::new(false);
    let last_sent = StoredValue::new(f64::NEG_INFINITY);
    let move_added = move |k: usize, x: f64| {
        set(&|s| {
            if k < s.added.len() && !s.added.iter().enumerate().any(|(j, &a)| j != k && a == x) {
                s.added[k] = x;
            }
        })
    };
    let on_pointer_down = move |ev: leptos::ev::PointerEvent| {
        let target: web_sys::Element = event_target(&ev);
        if let Some(k) = target.get_attribute("data-added").and_then(|k| k.parse::<usize>().ok()) {
            ev.prevent_default();
            let m: &web_sys::MouseEvent = ev.as_ref();
            dragging.set(click_x(m).map(|x| (k, x)));
        }
    };
    let on_pointer_move = move |ev: leptos::ev::PointerEvent| {
        if let Some((k, _)) = dragging.get_untracked() {
            let m: &web_sys::MouseEvent = ev.as_ref();
            if let Some(x) = click_x(m) {
                dragging.set(Some((k, x)));
                // The GP and the acquisition follow the point while it moves.
                let now = now_ms();
                if now - last_sent.get_value() >= LIVE_MS {
                    last_sent.set_value(now);
                    move_added(k, x);
                }
            }
        }
    };
    let on_pointer_up = move |_: leptos::ev::PointerEvent| {
        if let Some((k, x)) = dragging.get_untracked() {
            dragging.set(None);
            dragged.set(true);
            move_added(k, x);
        }
    };
    // A click adds a point there, or, when guessing, is the guess of the next pick and the
    // step that shows the method's.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if dragged.get_untracked() {
            dragged.set(false);
            return;
        }
        let Some(x) = click_x(&ev) else { return };
        set(&|s| {
            if s.guessing {
                if s.step < MAX_STEPS {
                    s.guesses.resize(s.step, None);
                    s.guesses.push(Some(x));
                    s.step += 1;
                }
            } else if s.added.len() < MAX_ADDED && !s.added.contains(&x) {
                s.added.push(x);
            }
        });
    };
    let step = Memo::new(move |_| setting.get().step);
    let over = over_seeds(link, Signal::derive(move || all.with(Option::is_some)));
    // The engine says what each step shows (`lessons::sentences::gp_ei`).
    let explain = move || {
        let k = step.get();
        let (s, over) = (setting.get(), counted(over));
        all.with(|a| {
            a.as_ref()
                .filter(|(frames, _)| !frames.is_empty())
                .map(|(frames, _)| sentence(&s, frames, k.min(frames.len() - 1), over.as_deref()))
        })
    };
    // The guess shown on the chart: the one made for the step shown.
    let guess = move || {
        let s = setting.get();
        s.guesses.get(s.step.wrapping_sub(1)).copied().flatten().filter(|_| s.guessing && s.step > 0)
    };
    let fitted_ls = Signal::derive(move || current.get().map_or(0.1, |(f, _)| f.lengthscale));
    view! {
            <LessonShell
                link=link
                side=ViewFn::from(move || view! { <Playground link=link setting=setting fitted_ls=fitted_ls/> })
                id="lesson-gp-ei"
                intro=concat!(
                    "A Gaussian process (GP) turns a few observations of an unknown function into a belief about all of it: a mean and, around it, how unsure it is. ",
                    "An acquisition turns that belief into the next point to try: expected improvement (EI) asks how much better than the best a point is expected to be, ",
                    "probability of improvement (PI) only how likely it is to be better, UCB how low the function could plausibly go (the mean minus κ standard deviations), ",
                    "and Thompson sampling draws one function the GP finds plausible and tries its lowest point. Bayesian optimisation evaluates there, updates the GP, and repeats ",
                    "(the GP-EI baseline of Salinas et al. 2020, §5). Change the function, the noise, the acquisition; drag your points; or guess each pick before the step shows it.",
                )
                explain=Signal::derive(explain)
                error=Signal::derive(move || error.get())
                busy=busy
                drawn=Signal::derive(move || all.with(Option::is_some))
                strip=ViewFn::from(move || view! { <SeedStrip over=over link=link show=|v| format!("{v:.0}") unit="random start" colours=&[BLUE, GREY] describe=describe asks="How the search did on each of the"/> })
                numbers=Signal::derive(move || current.get().map(|(f, ms)| {
                        let name = f.acquisition.short();
                        let at_next = match f.acquisition {
                            _ if f.collapsed() => format!("log₁₀ {name} {:.1}", f.best_log10_acq()),
                            Acquisition::Ei => format!("EI {:.3}", f.next.1),
                            Acquisition::Pi => format!("PI {:.3}", f.next.1),
                            Acquisition::Ucb(k) => format!("μ − {k}·sd = {:.3}", f.next.1),
                            Acquisition::Thompson => format!("the draw {:.3}", f.next.1),
                        };
                        format!(
                            "step {} of {MAX_STEPS} · {} observations · best f = {:.3} at x = {:.3} · next x = {:.3} ({at_next}) · ℓ = {:.3} ({}) · all steps computed in a worker in {ms:.0} ms",
                            step.get(), f.observations.len(), f.best.1, f.best.0, f.next.0, f.lengthscale, if f.fitted { "fitted" } else { "pinned" }
                        )
                    }))
            >
                <Show when=move || !hidden(link, "posterior")>
                    <ChartFigure id="lesson-posterior" file="gp-ei-posterior" caption=move || view! {
                        <span>{move || if setting.get().guessing {
                            "Click the chart where you think the next pick goes: your guess (green) is kept and the step shows the method's pick. Grey dots: random start; black squares: your points; blue: the picks, the latest orange."
                        } else {
                            "Grey dots: random start; black squares: your points (click the chart to add one, up to 20; drag one to move it); blue: the picks, the latest orange."
                        }}</span>
                    }>
                        <svg id="lesson-posterior" class="chart" class:guessing=move || setting.get().guessing xmlns="http://www.w3.org/2000/svg" viewBox=move || format!("0 0 {} {}", chart_width(), posterior_height()) role="img"
                            aria-label="GP posterior mean with a band of two standard deviations, the true function and the observations"
                            on:click=on_click on:pointerdown=on_pointer_down on:pointermove=on_pointer_move on:pointerup=on_pointer_up on:pointerleave=move |_| dragging.set(None)>
                            {move || current.get().map(|(f, _)| posterior_chart_with(&f, step.get(), guess(), dragging.get()))}
                        </svg>
                    </ChartFigure>
                </Show>
                <Show when=move || !hidden(link, "ei")>
                    <SvgFigure id="lesson-ei" file="gp-ei-acquisition" payoff=true caption=move || view! { <span>"The acquisition over x (EI in units of f, PI a probability; once tiny everywhere, their logarithm); the orange dot is the next evaluation."</span> } height=EI_H label="The acquisition over x">
                            {move || current.get().map(|(f, _)| acquisition_chart(&f))}
    </SvgFigure>
                </Show>
            </LessonShell>
        }
}
