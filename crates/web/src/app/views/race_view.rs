//! Results of a multi-fidelity race, as in the DyHPO paper (Wistuba et al. 2022): regret over
//! budget (Fig. 3) and over wall-clock with the optimizer's overhead (Fig. 5), average rank
//! over budget, critical-difference diagrams at 50% and 100% of the budget (Fig. 4), the
//! Fig. 6 efficiency curves, and the race view of Fig. 1 animated request by request.

use std::time::Duration;

use leptos::prelude::*;

use crate::app::charts::cd_diagram::CdDiagram;
use crate::app::charts::chart::{chart_title, chart_width, title_top, ChartBox, ChartFigure, LineChart, Series, PALETTE, STUDY_COLOR};
use crate::app::platform::browser::download_text;
use crate::app::state::{Level, Messages, RunState};
use crate::app::views::race_verdict::RaceVerdict;
use hpo_engine::axis;
use hpo_engine::export::race_traces_csv;
use hpo_engine::fidelity::runner::race_curves;
use hpo_engine::results::metrics::Band;
use hpo_engine::results::race_report::{race_points, race_traces, summarize_run, RacePoint};
use hpo_engine::results::race_summary::RaceSummary;
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::spec::{DataRef, RegretScale};

/// A curve without a band (ranks, Fig. 6); NaN where a value is missing.
fn plain(values: &[f64], n: usize) -> Band {
    Band { lower: values.to_vec(), upper: values.to_vec(), mean: values.to_vec(), n }
}

/// All race charts; shown instead of the full-evaluation charts when the last run was a race.
#[component]
pub fn RaceResults(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The current or last run.
    run: RunState,
    /// The messages at the top of the page.
    messages: Messages,
) -> impl IntoView {
    // A summary opened from a file, else the last run's.
    let opened = move || run.opened_race.with(Option::is_some);
    let summary = Memo::new(move |_| {
        if let Some((_, s)) = run.opened_race.get() {
            return Some((*s).clone());
        }
        let (resolved, bench) = run.setup.get()?;
        run.traces.with(|t| summarize_run(&bench, &resolved, t))
    });
    // Colours follow the setup's method order, as in the other charts (an opened summary's own).
    let color = move |m: &str| {
        let k = match run.opened_race.with(|o| o.as_ref().map(|(_, s)| s.methods.iter().position(|x| x == m))) {
            Some(k) => k,
            None => run.setup.with(|r| r.as_ref().and_then(|(r, _)| r.spec.methods.iter().position(|x| x == m))),
        };
        PALETTE[k.unwrap_or(0) % PALETTE.len()]
    };
    // A method whose jobs are not all in says so in the legend; one with none has its entry
    // alone (the summary has only methods with a trace).
    let so_far = run.runs_so_far();
    let series = move |pick: fn(&RaceSummary, usize) -> Band| {
        Signal::derive(move || {
            let Some(s) = summary.get() else { return Vec::new() };
            let waiting = so_far.get();
            let drawn = (0..s.methods.len()).map(|k| Series {
                name: s.methods[k].clone(),
                color: color(&s.methods[k]),
                band: pick(&s, k),
                so_far: waiting.get(&s.methods[k]).cloned(),
            });
            let empty = Band { mean: Vec::new(), lower: Vec::new(), upper: Vec::new(), n: 0 };
            let none_yet = waiting.iter().filter(|(m, _)| !s.methods.contains(m)).map(|(m, text)| Series {
                name: m.clone(),
                color: color(m),
                band: empty.clone(),
                so_far: Some(text.clone()),
            });
            // Opened from a file, the summary is all there is.
            if opened() {
                return drawn.map(|x| Series { so_far: None, ..x }).collect();
            }
            drawn.chain(none_yet).collect::<Vec<Series>>()
        })
    };
    // The study's own run (a file from Optuna, Ray Tune or Syne Tune) beside the methods. On
    // one task (a replayed study) the band over tasks has no width: each method is drawn as
    // the median of its seeds with their quartiles (the verdict's seed bands).
    let seed_bands = move || summary.with(|s| s.as_ref().is_some_and(|s| s.tasks.len() == 1 && s.verdict.is_some()));
    let regret = Signal::derive(move || {
        let pick: fn(&RaceSummary, usize) -> Band = |s, k| match (&s.verdict, s.tasks.len()) {
            (Some(v), 1) => {
                let b = &v.seed_bands[k];
                Band { mean: b.median.clone(), lower: b.lower.clone(), upper: b.upper.clone(), n: s.regret[k].n }
            }
            _ => s.regret[k].clone(),
        };
        let mut v = series(pick).get();
        if let Some(study) = summary.with(|s| s.as_ref().and_then(|s| s.study.clone())) {
            v.push(Series { name: study.label, color: STUDY_COLOR, band: study.regret, so_far: None });
        }
        v
    });
    let study_caption = move || {
        summary.with(|s| {
            s.as_ref().and_then(|s| s.study.as_ref()).map_or(String::new(), |study| {
                format!(
                    " Grey: {}: its trials in the order they ran, budget spent as it spent it (pruned or stopped steps too), its best complete value so far. As the legend says, {}: they choose among configurations it found.",
                    study.label, study.replayed
                )
            })
        })
    };
    // The chart itself says what the methods replay beside a study's own run (its legend's
    // last lines), not only the caption below it.
    let replayed = Signal::derive(move || {
        summary.with(|s| s.as_ref().and_then(|s| s.study.as_ref()).map_or(String::new(), |study| capitalised(&study.replayed)))
    });
    // The regret axis: the link's log scale, else the chart's own switch, which starts on a
    // log axis when the regret spans more than 2 decades (a linear one is set by the first
    // units and every later line looks flat).
    let regret_log_choice = RwSignal::new(None::<bool>);
    let regret_log = Signal::derive(move || {
        spec.with(|s| s.log_y)
            || regret_log_choice.get().unwrap_or_else(|| summary.with(|s| s.as_ref().is_some_and(RaceSummary::log_regret_by_default)))
    });
    let regret_caption = move || {
        if seed_bands() {
            "Regret of the best value seen so far (any budget): the median over seeds with their quartiles (one task: no band over tasks to draw). Normalised when the link says regret=norm."
        } else {
            "Regret of the best value seen so far (any budget), averaged over seeds, then mean and 95% band over tasks (Wistuba et al. 2022, Fig. 3). Normalised per task (divided by the regret of its median configuration: 0 is the best configuration, 1 the median one, so no exploded run sets the scale) when the tasks' ranges differ by more than 10×, or when the link says regret=norm."
        }
    };
    let regret_time = series(|s, k| s.regret_by_time[k].clone());
    let ranks = series(|s, k| plain(&s.ranks[k], s.tasks.len()));
    let precision = series(|s, k| plain(&s.precision[k], s.tasks.len()));
    let selected = series(|s, k| plain(&s.selected_regret[k], s.tasks.len()));
    let good = Signal::derive(move || {
        let mut v = series(|s, k| plain(&s.good_after_bad[k], s.tasks.len())).get();
        if let Some(s) = summary.get() {
            v.push(Series {
                name: "all, trained fully".into(),
                color: "#888888",
                band: plain(&s.good_after_bad_baseline, s.tasks.len()),
                so_far: None,
            });
        }
        v
    });
    let wall_clock = Signal::derive(move || summary.get().map(|s| s.wall_clock).unwrap_or_default());
    let n_tasks = move || summary.with(|s| s.as_ref().map_or(0, |s| s.tasks.len()));
    let title = move |what: &'static str| {
        Signal::derive(move || format!("{what} over {} task{}", n_tasks(), if n_tasks() == 1 { "" } else { "s" }))
    };
    // Regret charts say how each task's regret was scaled before the mean.
    // `short` for the chart whose name is longer, so that its title fits the chart's width.
    let scale = move |short: bool| {
        summary.with(|s| match (s.as_ref().map(|s| s.regret_scale), short) {
            (Some(RegretScale::Normalized), false) => ", normalised per task (1 = median)",
            (Some(RegretScale::Normalized), true) => ", normalised (1 = median)",
            _ => ", in the metric's units",
        })
    };
    let regret_title = move |what: &'static str, short: bool| {
        Signal::derive(move || format!("{what} {} task{}{}", n_tasks(), if n_tasks() == 1 { "" } else { "s" }, scale(short)))
    };
    let regret_chart_title = Signal::derive(move || {
        if seed_bands() {
            format!("Regret, median and quartiles over seeds, 1 task{}", scale(false))
        } else {
            format!("Mean regret over {} task{}{}", n_tasks(), if n_tasks() == 1 { "" } else { "s" }, scale(false))
        }
    });
    let export = move |what: &'static str| {
        let result = match what {
            "csv" => download_text("race-traces.csv", "text/csv", &run.traces.with(|t| race_traces_csv(&race_traces(t)))),
            _ => download_text(
                "race-summary.json",
                "application/json",
                &summary.with_untracked(|s| s.as_ref().and_then(|s| serde_json::to_string_pretty(s).ok())).unwrap_or_default(),
            ),
        };
        if let Err(e) = result {
            messages.say(Level::Error, crate::app::platform::browser::export_failed(&e));
        }
    };
    let has = move || summary.with(Option::is_some);
    // Without a training-time column a race's cost is its budget units: a chart "over time"
    // would plot them as seconds. Shown for opened summaries, whose data is not here to ask.
    let untimed = move || {
        !opened()
            && run.setup.with(|r| {
                r.as_ref().is_some_and(|(r, b)| r.tasks.iter().any(|&t| b.tasks[t].curves.as_ref().is_some_and(|c| c.cost.is_none())))
            })
    };
    let has_traces = move || !opened() && run.traces.with(|t| !t.is_empty());
    // The bundled family is adversarial by design; say so where its results are read.
    let on_bundled_curves =
        move || !opened() && run.setup.with(|r| r.as_ref().is_some_and(|(r, _)| r.spec.data == DataRef::Bundled("curves".into())));
    view! {
        {move || run.opened_race.get().map(|(name, s)| view! {
            <p id="opened-race" class="hint" role="status">
                {format!(
                    "Showing {name}, opened from a file: {} on {} task{}, {} budget units. Drawn from the summary alone; the race view of single runs needs traces from a run here. ",
                    s.methods.join(", "), s.tasks.len(), if s.tasks.len() == 1 { "" } else { "s" }, s.total
                )}
                <button id="close-opened-race" on:click=move |_| crate::app::data::kept::close_race_summary(run)>"Close"</button>
            </p>
        })}
        <p id="curves-lesson" class="hint" style:display=move || if on_bundled_curves() { "" } else { "none" }>
            "These bundled curves cross on purpose: configurations that start fast end worse. Every method that judges configurations early — Hyperband, ASHA, BOHB, DEHB and DyHPO too, whose expected improvement looks one budget unit ahead — is drawn to the fast starters, and random search with full trainings often wins here. On LCBench's real curves DyHPO leads (docs/replication.md)."
        </p>
        <div class="row">
            <button id="export-race-csv" on:click=move |_| export("csv") disabled=move || !has_traces()>"Race traces CSV"</button>
            <button id="export-race-json" on:click=move |_| export("json") disabled=move || !has()>"Summary JSON"</button>
            <span id="race-overhead">{move || summary.get().map(|s| {
                let parts: Vec<String> = s.methods.iter().zip(&s.optimizer_seconds).map(|(m, t)| format!("{m} {t:.2} s")).collect();
                format!("Optimizer time per run (mean): {}", parts.join(" · "))
            })}</span>
        </div>
        <div class="charts">
            <ChartFigure id="chart-regret" file="chart-regret"
                caption=move || view! { {regret_caption} {study_caption} }>
                <LineChart id="chart-regret" title=regret_chart_title y_label="regret" series=regret log_y=regret_log x_label="budget units spent" legend_note=replayed/>
            </ChartFigure>
            <div id="race-verdict-cell" style="grid-column: 1 / -1">
                <label class="check"><input id="regret-log" type="checkbox" prop:checked=move || regret_log.get() prop:disabled=move || spec.with(|s| s.log_y)
                    on:change=move |ev| regret_log_choice.set(Some(event_target_checked(&ev)))/>
                    {move || format!("log regret axis (starts on when the regret spans more than 2 decades; it spans {:.1} decades)", summary.with(|s| s.as_ref().map_or(0.0, RaceSummary::regret_decades)))}</label>
                <RaceVerdict summary=summary messages=messages/>
            </div>
            <Show when=move || !untimed()
                fallback=|| view! { <p id="no-time-chart" class="hint">"Regret over time (Fig. 5) is not drawn: this data has no training-time column, so the race's cost is counted in budget units only (the chart above)."</p> }>
            <ChartFigure id="chart-regret-time" file="chart-regret-time"
                caption=|| "The same against the benchmark's training time plus the optimizer's own measured time (Fig. 5): overhead counts.">
                <LineChart id="chart-regret-time" title=regret_title("Mean regret over time,", true) y_label="regret" series=regret_time log_y=Signal::derive(move || spec.with(|s| s.log_y))
                    x_label="seconds (training + optimizer)" x_values=wall_clock/>
            </ChartFigure>
            </Show>
            <ChartFigure id="chart-ranks" file="chart-ranks" caption=|| "Rank of each method's mean regret per task, averaged over tasks.">
                <LineChart id="chart-ranks" title=title("Average rank") y_label="rank (1 = best)" series=ranks log_y=Signal::derive(|| false) x_label="budget units spent"/>
            </ChartFigure>
        </div>
        <div class="charts" id="cd-diagrams">
            {move || summary.get().map(|s| {
                if s.tasks.len() < 2 {
                    return view! { <p class="hint">"Critical-difference diagrams rank methods across tasks: select at least two tasks."</p> }.into_any();
                }
                s.cd.iter().map(|cd| {
                    let id: &'static str = if cd.fraction < 1.0 { "cd-50" } else { "cd-100" };
                    let (cd, methods, tasks) = (cd.clone(), s.methods.clone(), s.tasks.len());
                    view! { <ChartFigure id=id file=id caption=|| ()><CdDiagram id=id cd=cd methods=methods tasks=tasks/></ChartFigure> }
                }).collect_view().into_any()
            })}
        </div>
        <h3>"Where the budget went (Wistuba et al. 2022, Fig. 6)"</h3>
        <div class="charts">
            <ChartFigure id="chart-precision" file="chart-precision"
                caption=|| "Of the configurations trained to this step, the share that are among the task's best 1%.">
                <LineChart id="chart-precision" title=Signal::derive(|| "Precision of the top 1% configurations".into()) y_label="precision"
                    series=precision log_y=Signal::derive(|| false) x_label="budget step"/>
            </ChartFigure>
            <ChartFigure id="chart-selected-regret" file="chart-selected-regret" caption=|| "Lower: the method spends its budget on better configurations.">
                <LineChart id="chart-selected-regret" title=Signal::derive(move || format!("Mean regret of configurations trained so far{}", scale(true))) y_label="regret"
                    series=selected log_y=Signal::derive(move || spec.with(|s| s.log_y)) x_label="budget step"/>
            </ChartFigure>
            <ChartFigure id="chart-good-after-bad" file="chart-good-after-bad"
                caption=|| "Of the configurations in the top third at this step (among those trained this far), the share that were outside the top third at an earlier step; grey: the same over all configurations trained fully.">
                <LineChart id="chart-good-after-bad" title=Signal::derive(|| "Good configurations that looked bad earlier".into()) y_label="share of good configurations"
                    series=good log_y=Signal::derive(|| false) x_label="budget step"/>
            </ChartFigure>
        </div>
        {move || (!opened()).then(|| view! { <RaceAnimation run_state=run/> })}
    }
}

/// Viridis-like colour for a position in [0, 1] (early requests dark blue, late ones yellow).
fn step_color(f: f64) -> String {
    const STOPS: [(f64, f64, f64); 5] =
        [(68.0, 1.0, 84.0), (59.0, 82.0, 139.0), (33.0, 145.0, 140.0), (94.0, 201.0, 98.0), (253.0, 231.0, 37.0)];
    let f = f.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (f.floor() as usize).min(STOPS.len() - 2);
    let t = f - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    format!("rgb({:.0},{:.0},{:.0})", a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1), a.2 + t * (b.2 - a.2))
}

const RH: f64 = 320.0;
const RL: f64 = 68.0;
const RR: f64 = 16.0;
const RB: f64 = 48.0;

/// What the race view draws for one run.
#[derive(Debug, Clone, PartialEq)]
struct RaceFrames {
    title: String,
    metric: String,
    max_budget: u32,
    points: Vec<RacePoint>,
    requests: usize,
    /// Row of each configuration in the advancement chart (order first trained).
    first_order: Vec<Option<usize>>,
    trained: usize,
}

/// The race of one run (Fig. 1): every configuration's learning curve as far as it was
/// trained, each point coloured by when it was observed, and the order in which
/// configurations were advanced; a slider and a play button step through the requests.
#[component]
fn RaceAnimation(
    /// The run whose traces it replays.
    run_state: RunState,
) -> impl IntoView {
    let run = RwSignal::new(0usize);
    let shown = RwSignal::new(usize::MAX);
    let playing = StoredValue::new(None::<IntervalHandle>);
    let is_playing = RwSignal::new(false);
    let runs = Memo::new(move |_| {
        run_state.traces.with(|t| {
            let mut v: Vec<(String, String, u64)> =
                t.iter().filter(|t| t.race().is_some_and(|r| !r.is_empty())).map(|t| (t.method.clone(), t.task.clone(), t.seed)).collect();
            v.sort();
            v
        })
    });
    let frames = Memo::new(move |_| {
        let (resolved, bench) = run_state.setup.get()?;
        let (method, task, seed) = runs.with(|r| r.get(run.get()).cloned())?;
        let t = bench.task_index(&task)?;
        let rows = run_state.traces.with(|tr| {
            tr.iter().find(|x| x.method == method && x.task == task && x.seed == seed).and_then(|x| x.race().map(<[_]>::to_vec))
        })?;
        resolved.race_budget()?;
        let (values, _) = race_curves(&bench, t).ok()?;
        let points = race_points(&rows, &values);
        let mut first_order = vec![None; values.len()];
        let mut trained = 0;
        for r in &rows {
            if first_order[r.config].is_none() {
                first_order[r.config] = Some(trained);
                trained += 1;
            }
        }
        Some(RaceFrames {
            title: format!("{method} on {task}, seed {seed}"),
            metric: bench.metrics[resolved.objective].name.clone(),
            max_budget: values.iter().map(|c| c.len() as u32).max().unwrap_or(1),
            points,
            requests: rows.len(),
            first_order,
            trained,
        })
    });
    let stop = move || {
        if let Some(h) = playing.get_value() {
            h.clear();
        }
        playing.set_value(None);
        is_playing.set(false);
    };
    let play = move |_| {
        if is_playing.get_untracked() {
            stop();
            return;
        }
        let Some(total) = frames.with_untracked(|f| f.as_ref().map(|f| f.requests)) else { return };
        if shown.get_untracked() >= total {
            shown.set(0);
        }
        // About ten seconds for the whole race, whatever its length.
        let per = (total / 300).max(1);
        if let Ok(h) = set_interval_with_handle(
            move || {
                let next = shown.get_untracked().saturating_add(per).min(total);
                shown.set(next);
                if next >= total {
                    stop();
                }
            },
            Duration::from_millis(33),
        ) {
            playing.set_value(Some(h));
            is_playing.set(true);
        }
    };
    on_cleanup(move || {
        if let Some(h) = playing.get_value() {
            h.clear();
        }
    });
    view! {
        {move || (!runs.get().is_empty()).then(|| view! {
            <div id="race-view">
                <h3>"The race (Wistuba et al. 2022, Fig. 1)"</h3>
                <div class="row">
                    <label>"Run "
                        <select id="race-run" on:change=move |ev| { stop(); run.set(event_target_value(&ev).parse().unwrap_or(0)); shown.set(usize::MAX); }>
                            {move || runs.get().into_iter().enumerate().map(|(i, (m, t, s))| view! {
                                <option value=i.to_string() selected=move || run.get() == i>{format!("{m} · {t} · seed {s}")}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <button id="race-play" on:click=play>{move || if is_playing.get() { "Pause" } else { "Play" }}</button>
                    <input id="race-step" type="range" min="0" aria-label="request shown"
                        prop:max=move || frames.with(|f| f.as_ref().map_or(0, |f| f.requests))
                        prop:value=move || frames.with(|f| f.as_ref().map_or(0, |f| shown.get().min(f.requests)))
                        on:input=move |ev| { stop(); shown.set(event_target_value(&ev).parse().unwrap_or(0)); }/>
                    <span id="race-step-label">{move || frames.get().map(|f| {
                        let k = shown.get().min(f.requests);
                        let units = f.points.iter().filter(|p| p.step < k).count();
                        let configs = f.first_order.iter().zip(0..).filter(|(o, _)| o.is_some()).filter(|(_, c)| f.points.iter().any(|p| p.config == *c && p.step < k)).count();
                        format!("request {k} of {}: {units} budget units on {configs} of {} configurations", f.requests, f.first_order.len())
                    })}</span>
                </div>
                <div class="charts">
                    <ChartBox>{move || frames.with(|f| f.as_ref().map(|f| curves_chart(f, shown.get(), chart_width())))}</ChartBox>
                    <ChartBox>{move || frames.with(|f| f.as_ref().map(|f| order_chart(f, shown.get(), chart_width())))}</ChartBox>
                </div>
            </div>
        })}
    }
}

/// The learning curves of the first `shown` requests, on a chart `w` wide.
fn curves_chart(frames: &RaceFrames, shown: usize, w: f64) -> impl IntoView {
    let title = format!("Learning curves as trained: {}", frames.title);
    let rt = title_top(&title, w, RL);
    let k = shown.min(frames.requests);
    let visible: Vec<&RacePoint> = frames.points.iter().filter(|p| p.step < k).collect();
    let (lo, hi) = frames.points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.value), b.max(p.value)));
    let (lo, hi) = if lo.is_finite() && hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
    let x = |b: u32| RL + (b as f64 - 1.0) / ((frames.max_budget.max(2) - 1) as f64) * (w - RL - RR);
    let y = |v: f64| RH - RB - (v - lo) / (hi - lo) * (RH - rt - RB);
    let denom = frames.requests.max(2) as f64 - 1.0;
    let y_ticks = axis::linear(lo, hi, 5);
    let mut x_ticks = axis::linear(1.0, frames.max_budget.max(1) as f64, 6);
    // Budget steps are whole numbers; a short table gets every step.
    if x_ticks.values.windows(2).any(|w| w[1] - w[0] < 1.0) {
        x_ticks = axis::linear(1.0, frames.max_budget.max(1) as f64, frames.max_budget.max(1) as usize);
    }
    x_ticks.values.retain(|v| v.fract() == 0.0);
    x_ticks.labels = x_ticks.values.iter().map(|v| format!("{v:.0}")).collect();
    // Segments join consecutive budgets of a configuration, coloured by the later point.
    let mut last: Vec<Option<&RacePoint>> = vec![None; frames.first_order.len()];
    let mut segments = Vec::new();
    for p in &visible {
        if let Some(prev) = last[p.config] {
            segments.push((x(prev.budget), y(prev.value), x(p.budget), y(p.value), step_color(p.step as f64 / denom)));
        }
        last[p.config] = Some(p);
    }
    let current = k.checked_sub(1).and_then(|s| visible.iter().rev().find(|p| p.step == s).copied());
    view! {
        <svg id="race-curves" xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {w} {RH}") width="100%" class="chart" role="img"
            aria-label=format!("Learning curves as trained: {}", frames.title)>
            <rect x="0" y="0" width=w height=RH fill="#ffffff"/>
            {chart_title(&title, w, RL)}
            <line x1=RL x2=w - RR y1=RH - RB y2=RH - RB stroke="#444"/>
            <line x1=RL x2=RL y1=rt y2=RH - RB stroke="#444"/>
            <text x=(RL + w - RR) / 2.0 y=RH - 8.0 text-anchor="middle" class="axis-title">"budget step"</text>
            {y_ticks.values.iter().zip(y_ticks.labels).map(|(&v, l)| view! {
                <line x1=RL x2=w - RR y1=y(v) y2=y(v) stroke="#e5e5e5"/>
                <text x=RL - 10.0 y=y(v) + 5.0 text-anchor="end" class="tick">{l}</text>
            }).collect_view()}
            {x_ticks.values.iter().zip(x_ticks.labels).map(|(&b, l)| view! {
                <text x=x(b as u32) y=RH - RB + 22.0 text-anchor="middle" class="tick">{l}</text>
            }).collect_view()}
            <text transform=format!("translate(18,{}) rotate(-90)", (rt + RH - RB) / 2.0) text-anchor="middle" class="axis-title">{frames.metric.clone()}</text>
            {segments.into_iter().map(|(x1, y1, x2, y2, c)| view! { <line x1=x1 y1=y1 x2=x2 y2=y2 stroke=c stroke-width="1.5"/> }).collect_view()}
            {visible.iter().map(|p| view! { <circle cx=x(p.budget) cy=y(p.value) r="1.8" fill=step_color(p.step as f64 / denom)/> }).collect_view()}
            {current.map(|p| view! { <circle class="race-current" cx=x(p.budget) cy=y(p.value) r="5" fill="none" stroke="#D55E00" stroke-width="2"/> })}
        </svg>
    }
}

const ORDER_TITLE: &str = "Which configuration each request advanced";

/// Which configuration each of the first `shown` requests advanced, on a chart `w` wide:
/// requests along x, configurations (in the order first trained) along y, both with ticks.
fn order_chart(frames: &RaceFrames, shown: usize, w: f64) -> impl IntoView {
    let rt = title_top(ORDER_TITLE, w, RL);
    let k = shown.min(frames.requests);
    let visible = frames.points.iter().filter(|p| p.step < k);
    let denom = frames.requests.max(2) as f64 - 1.0;
    let rows = frames.trained.max(1) as f64;
    let ox = |s: usize| RL + s as f64 / denom * (w - RL - RR);
    let oy = |r: usize| rt + (r as f64 + 0.5) / rows * (RH - rt - RB);
    // Requests are counted from 1 and configurations too; ticks on whole numbers only.
    let whole = |t: axis::Ticks| -> Vec<(f64, String)> {
        t.values.iter().zip(t.labels).filter(|(v, _)| v.fract() == 0.0 && **v >= 1.0).map(|(&v, l)| (v, l)).collect()
    };
    let x_ticks = whole(axis::linear(1.0, frames.requests.max(1) as f64, if w < 500.0 { 4 } else { 6 }));
    let y_ticks = whole(axis::linear(1.0, rows, 5));
    view! {
        <svg id="race-order" xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {w} {RH}") width="100%" class="chart" role="img"
            aria-label="Which configuration each request advanced">
            <rect x="0" y="0" width=w height=RH fill="#ffffff"/>
            {chart_title(ORDER_TITLE, w, RL)}
            <line x1=RL x2=w - RR y1=RH - RB y2=RH - RB stroke="#444"/>
            <line x1=RL x2=RL y1=rt y2=RH - RB stroke="#444"/>
            <text x=(RL + w - RR) / 2.0 y=RH - 8.0 text-anchor="middle" class="axis-title">"request (colour: early → late)"</text>
            <text transform=format!("translate(18,{}) rotate(-90)", (rt + RH - RB) / 2.0) text-anchor="middle" class="axis-title">"configuration, in order first trained"</text>
            {x_ticks.into_iter().map(|(v, l)| view! {
                <line x1=ox(v as usize - 1) x2=ox(v as usize - 1) y1=RH - RB y2=RH - RB + 5.0 stroke="#444"/>
                <text x=ox(v as usize - 1) y=RH - RB + 22.0 text-anchor="middle" class="tick">{l}</text>
            }).collect_view()}
            {y_ticks.into_iter().map(|(v, l)| view! {
                <text x=RL - 10.0 y=oy(v as usize - 1) + 5.0 text-anchor="end" class="tick">{l}</text>
            }).collect_view()}
            {visible.filter(|p| frames.first_order[p.config].is_some()).map(|p| {
                let r = frames.first_order[p.config].unwrap_or(0);
                view! { <rect x=ox(p.step) - 1.0 y=oy(r) - 1.5 width="2.5" height="3" fill=step_color(p.step as f64 / denom)/> }
            }).collect_view()}
        </svg>
    }
}

/// `text` with its first letter a capital.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
