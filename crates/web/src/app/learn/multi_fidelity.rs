//! Lesson 4 (`engine::lessons::multi_fidelity`): after the same number of epochs, the
//! learning curves DyHPO and Hyperband have trained. DyHPO's chart marks the configuration it
//! advances next, its predicted loss one epoch on, and the best loss seen at every epoch (the
//! incumbents EI_MF compares against, Eq. 7), with a table of its best scores; Hyperband's
//! marks the rungs of the bracket it is running and greys the curves it stopped.

use leptos::prelude::*;

use super::plot::{range, LegendEntry, Plot, BLUE, GREY, ORANGE};
use super::seed_strip::{counted, over_seeds, SeedStrip};
use super::shell::{hidden, next_seed, worker_lesson, LessonShell, WorkerLesson};
use crate::app::charts::chart::SvgFigure;
use hpo_engine::axis::count;
use hpo_engine::lessons::multi_fidelity::{trained_after, MultiFidelityFrames, BUDGET};
use hpo_engine::lessons::sentences::multi_fidelity::{ei_shown, sentence};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

// Two charts and their captions one above the other on a 720 px projector.
const H: f64 = 270.0;
const DYHPO_LEGEND: [LegendEntry; 3] = [
    ("curves trained so far", BLUE, "none"),
    ("best loss seen at each epoch", "#000", "6,3"),
    ("next: predicted loss ± 2 sd", ORANGE, "none"),
];
/// DyHPO's and Hyperband's colours in the count over seeds.
const CONTENDER_COLOURS: [&str; 2] = [ORANGE, BLUE];
const HYPERBAND_LEGEND: [LegendEntry; 3] =
    [("racing at this rung", BLUE, "none"), ("stopped earlier", GREY, "none"), ("the bracket's rung budgets", "#999", "2,4")];

fn plot(f: &MultiFidelityFrames) -> Plot {
    let epochs = f.curves.iter().map(Vec::len).min().unwrap_or(1) as f64;
    Plot::nice((0.0, epochs), range(f.curves.iter().flatten().copied()), H)
}

/// The points of the curves `trained` (configuration, epochs), which a legend must not cover.
fn marks(f: &MultiFidelityFrames, trained: &[(usize, usize)]) -> Vec<(f64, f64)> {
    trained.iter().flat_map(|&(c, len)| f.curves[c][..len].iter().enumerate().map(|(s, &v)| ((s + 1) as f64, v))).collect()
}

/// One curve trained to `len` epochs.
fn curve(p: &Plot, values: &[f64], len: usize, color: &'static str, width: &'static str) -> impl IntoView {
    let pts = p.points(values[..len].iter().enumerate().map(|(s, &v)| ((s + 1) as f64, v)));
    let (x, y) = (p.px(len as f64), p.py(values[len - 1]));
    view! {
        <polyline points=pts fill="none" stroke=color stroke-width=width stroke-opacity="0.85"/>
        <circle cx=x cy=y r="3.5" fill=color/>
    }
}

/// DyHPO after `k` epochs.
fn dyhpo_chart(f: &MultiFidelityFrames, k: usize) -> impl IntoView {
    let trained = trained_after(f.dyhpo.iter().map(|s| (s.config, s.budget)), k);
    let title = format!("DyHPO after {k} epochs: {} started", count(trained.len(), "configuration"));
    let p = plot(f).room_for(&title);
    let next = f.dyhpo.get(k);
    let incumbents: Vec<(f64, f64)> =
        next.map(|s| s.incumbents.iter().enumerate().filter_map(|(b, v)| v.map(|v| ((b + 1) as f64, v))).collect()).unwrap_or_default();
    let step_line = {
        let mut pts = Vec::new();
        for (i, &(b, v)) in incumbents.iter().enumerate() {
            pts.push((b - 0.5, v));
            pts.push((incumbents.get(i + 1).map_or(b + 0.5, |n| n.0 - 0.5), v));
        }
        p.points(pts)
    };
    let prediction = next.and_then(|s| s.top.first()).map(|t| {
        let (x, m) = (p.px(t.budget as f64), p.py(t.mean));
        let (lo, hi) = (p.py(t.mean - 2.0 * t.sd), p.py(t.mean + 2.0 * t.sd));
        view! {
            <line x1=x x2=x y1=lo y2=hi stroke=ORANGE stroke-width="3"/>
            <rect x=x - 6.0 y=m - 6.0 width="12" height="12" fill="#fff" stroke=ORANGE stroke-width="3"/>
        }
    });
    let highlighted = next.map(|s| s.config);
    view! {
        {p.axes(&title, "epoch", "loss")}
        {trained.iter().filter(|t| Some(t.0) != highlighted).map(|&(c, len)| curve(&p, &f.curves[c], len, BLUE, "1.5")).collect_view()}
        <polyline points=step_line fill="none" stroke="#000" stroke-width="2.5" stroke-dasharray="6,3"/>
        {trained.iter().filter(|t| Some(t.0) == highlighted).map(|&(c, len)| curve(&p, &f.curves[c], len, ORANGE, "3.5")).collect_view()}
        {prediction}
        {p.legend(&DYHPO_LEGEND, &marks(f, &trained).into_iter().chain(incumbents.iter().copied()).collect::<Vec<_>>())}
    }
}

/// Where Hyperband is after `k` epochs: the request in progress (or the last one).
fn hyperband_position(f: &MultiFidelityFrames, k: usize) -> Option<usize> {
    let mut reached: Vec<(usize, u32)> = Vec::new();
    let mut spent = 0usize;
    for (i, h) in f.hyperband.iter().enumerate() {
        let from = reached.iter().find(|r| r.0 == h.config).map_or(0, |r| r.1);
        spent += (h.budget - from) as usize;
        reached.retain(|r| r.0 != h.config);
        reached.push((h.config, h.budget));
        if spent >= k {
            return Some(i);
        }
    }
    f.hyperband.len().checked_sub(1)
}

/// Hyperband after `k` epochs.
fn hyperband_chart(f: &MultiFidelityFrames, k: usize) -> impl IntoView {
    let trained = trained_after(f.hyperband.iter().map(|h| (h.config, h.budget)), k);
    let now = hyperband_position(f, k).map(|i| f.hyperband[i]);
    // Still racing: configurations of the current bracket run at its current rung.
    let racing: Vec<usize> = now
        .map(|n| f.hyperband.iter().filter(|h| (h.pass, h.bracket, h.rung) == (n.pass, n.bracket, n.rung)).map(|h| h.config).collect())
        .unwrap_or_default();
    let rungs = now.map(|n| f.schedule[n.bracket].clone()).unwrap_or_default();
    let title = now.map_or("Hyperband".to_string(), |n| {
        let (configs, budget) = f.schedule[n.bracket][n.rung];
        format!(
            "Hyperband after {k} epochs: bracket {}, rung {} — {configs} at {}",
            n.bracket + 1,
            n.rung + 1,
            count(budget as usize, "epoch")
        )
    });
    let p = plot(f).room_for(&title);
    view! {
        {p.axes(&title, "epoch", "loss")}
        {rungs.iter().map(|&(_, b)| view! {
            <line x1=p.px(b as f64) x2=p.px(b as f64) y1=p.py(p.y.1) y2=p.py(p.y.0) stroke="#999" stroke-width="1.5" stroke-dasharray="2,4"/>
        }).collect_view()}
        {trained.iter().filter(|t| !racing.contains(&t.0)).map(|&(c, len)| curve(&p, &f.curves[c], len, GREY, "1.5")).collect_view()}
        {trained.iter().filter(|t| racing.contains(&t.0)).map(|&(c, len)| curve(&p, &f.curves[c], len, BLUE, "2.5")).collect_view()}
        {p.legend(&HYPERBAND_LEGEND, &marks(f, &trained))}
    }
}

/// Lesson 4.
#[component]
pub fn MultiFidelityLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    let WorkerLesson { step, frames, error, busy, .. } = worker_lesson(
        link,
        |l| match l {
            Lesson::MultiFidelity(s) => Some(*s),
            _ => None,
        },
        |f| match f {
            LessonFrames::MultiFidelity(m) => Some(m),
            _ => None,
        },
    );
    let over = over_seeds(link, Signal::derive(move || frames.with(Option::is_some)));
    let seed = Memo::new(move |_| link.with(|l| l.lesson.seed().unwrap_or_default()));
    let explain = move || frames.get().map(|(f, _)| sentence(&f, step.get(), seed.get(), counted(over).as_deref()));
    // Four narrow columns, so that the table fits a phone without scrolling sideways.
    let table = move || {
        frames.get().and_then(|(f, _)| f.dyhpo.get(step.get()).cloned()).filter(|s| !s.top.is_empty()).map(|s| {
            view! {
                <table class="scores" id="lesson-scores">
                    <caption>"The configuration DyHPO advances, then its next best by log EI_MF (Eq. 6–7)"</caption>
                    <thead><tr><th scope="col">"config · epoch"</th><th scope="col">"predicted loss ± 2 sd"</th><th scope="col">"incumbent (Eq. 7)"</th><th scope="col">"EI_MF"</th></tr></thead>
                    <tbody>
                        {s.top.iter().enumerate().map(|(r, t)| view! {
                            <tr class:chosen=r == 0>
                                <td class="nowrap">{format!("{} · {}", t.config, t.budget)}</td><td class="nowrap">{format!("{:.3} ± {:.3}", t.mean, 2.0 * t.sd)}</td><td>{format!("{:.3}", t.incumbent)}</td><td>{ei_shown(t)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }
        })
    };
    let numbers = move || {
        frames.get().map(|(f, ms)| {
            let k = step.get();
            let show = |v: f64| if v.is_finite() { format!("{v:.3}") } else { "—".into() };
            let next = f.dyhpo.get(k).and_then(|s| s.top.first()).map_or(String::new(), |t| format!(" · next step's EI_MF {}", ei_shown(t)));
            format!(
                "{} · epoch {k} of {BUDGET} · lowest curve now: DyHPO {}, Hyperband {}{next} · both runs computed in a worker in {ms:.0} ms",
                f.task,
                show(f.dyhpo_after(k).best),
                show(f.hyperband_after(k).best)
            )
        })
    };
    view! {
            <LessonShell
                link=link
                id="lesson-multi-fidelity"
                intro=concat!(
                    "Training a network for a few epochs already says something about how it will end — but not everything: on these curves, fast starters end worse (Wistuba et al. 2022, Fig. 1). ",
                    "Hyperband (Li et al. 2018) trains many configurations for a few epochs, keeps the best third, trains those three times longer, and so on. ",
                    "DyHPO (Wistuba et al. 2022, Alg. 1) decides one epoch at a time: a GP whose kernel reads the configuration and its curve so far predicts the next epoch's loss, ",
                    "and it advances the configuration with the largest expected improvement over the best loss seen at that same epoch (Eq. 7) — a young curve competes with young curves.",
                )
                explain=Signal::derive(explain)
                error=Signal::derive(move || error.get())
                busy=busy
                drawn=Signal::derive(move || frames.with(Option::is_some))
                strip=ViewFn::from(move || view! { <SeedStrip over=over link=link show=|v| format!("{v:.3}") unit="seed" colours=&CONTENDER_COLOURS/> })
                numbers=Signal::derive(numbers)
                controls=ViewFn::from(move || view! { <button id="lesson-reseed" on:click=move |_| next_seed(link)>"another task"</button> })
                computing=Signal::derive(move || frames.get().is_none().then_some("Running DyHPO and Hyperband in a worker (a few seconds)…"))
            >
                <Show when=move || !hidden(link, "dyhpo")>
                    <SvgFigure id="lesson-dyhpo" file="dyhpo-steps" payoff=true caption=move || view! { <span>"Every curve DyHPO has trained, to where it paused; orange: the one it advances next."</span> } height=H legend=DYHPO_LEGEND.len() label="DyHPO's learning curves so far, the per-epoch incumbents and the next step's prediction">
                            {move || frames.get().map(|(f, _)| dyhpo_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
                <Show when=move || !hidden(link, "hyperband")>
                    <SvgFigure id="lesson-hyperband" file="hyperband-steps" payoff=true caption=move || view! { <span>"Hyperband with η = 3 on the same task and the same number of epochs."</span> } height=H legend=HYPERBAND_LEGEND.len() label="Hyperband's learning curves so far and the rungs of its bracket">
                            {move || frames.get().map(|(f, _)| hyperband_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
                // Below both methods' charts, which it would otherwise push apart.
                <Show when=move || !hidden(link, "dyhpo")>{table}</Show>
            </LessonShell>
        }
}
