//! Lesson 6 (`engine::lessons::pareto`): the objective space of one task — every
//! configuration's (error, latency), the points a multi-objective method found so far, their
//! Pareto front and the region it dominates, against the task's true front — and below it
//! the hypervolume error after each evaluation. For the "+MO" methods the cloud is coloured
//! by their scalarization ½·Z(error) + ½·Z(latency) as fitted at the step.

use leptos::prelude::*;

use super::plot::{range, LegendEntry, Plot, BLUE, GREEN, ORANGE, PURPLE};
use super::seed_strip::{counted, over_seeds, SeedStrip};
use super::shell::{hidden, worker_lesson, LessonShell, WorkerLesson};
use crate::app::charts::chart::SvgFigure;
use hpo_engine::lessons::pareto::{names, ParetoFrames, MAX_STEPS};
use hpo_engine::lessons::sentences::pareto::sentence;
use hpo_engine::lessons::{Lesson, LessonFrames, LessonLink};

const H: f64 = 420.0;
/// The methods' colours in the count over seeds (`engine::lessons::pareto::names` order).
const CONTENDER_COLOURS: [&str; 4] = [BLUE, ORANGE, GREEN, PURPLE];
const FRONT_LEGEND: [LegendEntry; 2] = [("front found (shaded: dominated)", BLUE, "none"), ("the task's true front", "#000", "6,4")];

/// A dark-purple-to-pale-yellow ramp (magma's ends, through its orange-red) for the
/// scalarization: dark = what the method prefers; distinct from the blue found points.
fn shade(t: f64) -> String {
    const STOPS: [(f64, f64, f64); 3] = [(59.0, 15.0, 112.0), (222.0, 73.0, 104.0), (252.0, 253.0, 191.0)];
    let t = t.clamp(0.0, 1.0) * 2.0;
    let (a, b, u) = if t < 1.0 { (STOPS[0], STOPS[1], t) } else { (STOPS[1], STOPS[2], t - 1.0) };
    let mix = |x: f64, y: f64| (x + (y - x) * u).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn objective_chart(f: &ParetoFrames, k: usize) -> impl IntoView {
    let s = f.at(k);
    let xs = range(f.all.iter().map(|p| p.0));
    let ys = range(f.all.iter().map(|p| p.1));
    let title = format!("{} on {}: {} of {MAX_STEPS} evaluations", f.method, f.task, k);
    let p = Plot::nice(xs, ys, H).log_y(ys).room_for(&title);
    let colors: Vec<String> = match &s.scalarized {
        Some(z) => {
            let (lo, hi) = range(z.iter().copied());
            z.iter().map(|v| shade(if hi > lo { (v - lo) / (hi - lo) } else { 0.5 })).collect()
        }
        None => vec!["#c8c8c8".to_string(); f.all.len()],
    };
    let mut truth: Vec<(f64, f64)> = f.true_front.iter().map(|&i| f.all[i]).collect();
    truth.sort_by(|a, b| a.0.total_cmp(&b.0));
    let stairs = |front: &[(f64, f64)]| {
        let mut pts = Vec::new();
        for (i, &q) in front.iter().enumerate() {
            if i > 0 {
                pts.push((q.0, front[i - 1].1));
            }
            pts.push(q);
        }
        pts
    };
    let latest = k.checked_sub(1);
    view! {
        {p.axes(&title, &f.objectives[0], &format!("{} (log scale)", f.objectives[1]))}
        {f.all.iter().zip(&colors).map(|(&(a, b), c)| view! { <circle cx=p.px(a) cy=p.py(b) r="3" fill=c.clone()/> }).collect_view()}
        <polygon id="lesson-dominated" points=p.points(s.dominated.iter().copied()) fill=BLUE fill-opacity="0.14" stroke="none"/>
        <polyline points=p.points(stairs(&truth)) fill="none" stroke="#000" stroke-width="2" stroke-dasharray="6,4"/>
        <polyline id="lesson-front" points=p.points(stairs(&s.front)) fill="none" stroke=BLUE stroke-width="3"/>
        {s.found.iter().enumerate().map(|(i, &(a, b))| {
            let (fill, r) = if Some(i) == latest { (ORANGE, "8") } else { (BLUE, "6") };
            view! { <circle class="found" cx=p.px(a) cy=p.py(b) r=r fill=fill stroke="#fff" stroke-width="1.5"/> }
        }).collect_view()}
        {p.legend(&FRONT_LEGEND, &f.all)}
    }
}

fn hv_chart(f: &ParetoFrames, k: usize) -> impl IntoView {
    let title = "Hypervolume error (0 = the true front's area)";
    let p = Plot::nice((0.0, MAX_STEPS as f64), (0.0, range(f.hv_error.iter().copied()).1), 240.0).room_for(title);
    let pts = p.points(f.hv_error.iter().take(k).enumerate().map(|(i, &e)| ((i + 1) as f64, e)));
    let now = k.checked_sub(1).map(|i| view! { <circle cx=p.px(k as f64) cy=p.py(f.hv_error[i]) r="6" fill=ORANGE/> });
    view! {
        {p.axes(title, "evaluations", "error")}
        <polyline points=pts fill="none" stroke=BLUE stroke-width="3"/>
        {now}
    }
}

/// Lesson 6.
#[component]
pub fn ParetoLesson(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
) -> impl IntoView {
    let WorkerLesson { setting, step, frames, error, busy } = worker_lesson(
        link,
        |l| match l {
            Lesson::Pareto(m, s) => Some((m.clone(), *s)),
            _ => None,
        },
        |f| match f {
            LessonFrames::Pareto(p) => Some(p),
            _ => None,
        },
    );
    let set = move |method: Option<String>, seed: Option<u64>| {
        link.update(|l| {
            if let Lesson::Pareto(m, s) = &mut l.lesson {
                if let Some(method) = method {
                    *m = method;
                }
                if let Some(seed) = seed {
                    s.seed = seed;
                }
                s.step = 0;
            }
            l.playing = false;
        })
    };
    let over = over_seeds(link, Signal::derive(move || frames.with(Option::is_some)));
    let seed = Memo::new(move |_| link.with(|l| l.lesson.seed().unwrap_or_default()));
    let explain = move || frames.get().map(|(f, _)| sentence(&f, step.get(), seed.get(), counted(over).as_deref()));
    view! {
            <LessonShell
                link=link
                side=ViewFn::from(move || view! {
                <Show when=move || !hidden(link, "method")>
                    <div class="row" id="lesson-pareto-method">
                        <label>"Method "
                            <select id="lesson-method" on:change=move |ev| set(Some(event_target_value(&ev)), None)>
                                {names().into_iter().map(|n| view! { <option value=n selected=move || setting.get().0 == n>{n}</option> }).collect_view()}
                            </select>
                        </label>
                        <button id="lesson-reseed" on:click=move |_| set(None, Some(setting.get_untracked().1.seed + 1))>"another task and seed"</button>
                    </div>
                </Show>
                })
                id="lesson-pareto"
                intro=concat!(
                    "A model can be accurate or fast, rarely both: each configuration is a point (error, latency), and no single best exists. ",
                    "The Pareto front is the set of points nothing beats in both; the shaded region is everything they dominate, and the hypervolume error is how much of the true front's region is still missing ",
                    "(objectives scaled to the task's range; Salinas et al. 2020, §5.2 and App. B). ",
                    "The copula paper's +MO variants average the objectives after warping each with ψ, so that no objective wins by its scale; ParEGO draws new weights each step; EHVI picks the largest expected gain in hypervolume.",
                )
                explain=Signal::derive(explain)
                error=Signal::derive(move || error.get())
                busy=busy
                drawn=Signal::derive(move || frames.with(Option::is_some))
                strip=ViewFn::from(move || view! { <SeedStrip over=over link=link show=|v| format!("{v:.3}") unit="seed" colours=&CONTENDER_COLOURS/> })
                numbers=Signal::derive(move || frames.get().map(|(f, ms)| {
                        let k = step.get();
                        format!("{} · {} · step {k} of {MAX_STEPS} · {} on the found front, {} on the true one · run computed in a worker in {ms:.0} ms",
                            f.method, f.task, f.at(k).front.len(), f.true_front.len())
                    }))
                computing=Signal::derive(move || frames.get().is_none().then_some("Running the method in a worker…"))
            >
                <Show when=move || !hidden(link, "front")>
                    <SvgFigure id="lesson-objectives" file="pareto-steps" payoff=true caption=move || view! { <span>"Every configuration of the task (dots), the points found (blue, latest orange), their front and the true one."</span> } height=H legend=FRONT_LEGEND.len() label="The objective space with the front found so far and the true front">
                            {move || frames.get().map(|(f, _)| objective_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
                <Show when=move || !hidden(link, "hv")>
                    <SvgFigure id="lesson-hv" file="pareto-hv" caption=move || view! { <span>"The share of the unit box the found front still misses; it never grows."</span> } height=240.0 label="Hypervolume error after each evaluation">
                            {move || frames.get().map(|(f, _)| hv_chart(&f, step.get()))}
    </SvgFigure>
                </Show>
            </LessonShell>
        }
}
