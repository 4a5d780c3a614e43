//! Result charts (ADTM and best so far, mean with a 95% band across seeds) and exports.

use leptos::prelude::*;

use crate::app::charts::chart::{ChartFigure, LineChart, Series, PALETTE, STUDY_COLOR};
use crate::app::charts::scatter::{Scatter, ScatterCanvas};
use crate::app::platform::browser::{download_text, file_bytes};
use crate::app::platform::workers::WorkerService;
use crate::app::state::{DataState, Kept, Level, Messages, RunState};
use crate::app::views::objective_space::ObjectiveSpacePanel;
use crate::app::views::prior_view::PriorView;
use crate::app::views::warping_view::WarpingView;
use hpo_engine::benchmark::Benchmark;
use hpo_engine::export::{traces_csv, traces_detailed_csv};
use hpo_engine::method_entry::RunKind;
use hpo_engine::results::metrics::{adtm_curves, band, best_so_far_curves, hv_error_curves, study_adtm, study_best_so_far, study_hv_error};
use hpo_engine::results::race_summary::{RaceSummary, MAX_SUMMARY_BYTES};
use hpo_engine::results::run_summary::{summarize_full_run, RunSummary};
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::spec::ResolvedSpec;
use hpo_engine::trace::Trace;

/// A method's curves (one per job) from the traces of a run.
type CurvesOfMethod<'a> = dyn Fn(&[Trace], &ResolvedSpec, &Benchmark, &str) -> Vec<Vec<f64>> + 'a;

/// The study's own run's curves (one per task) and its line's name, when the data has it.
type StudyCurves<'a> = dyn Fn(&ResolvedSpec, &Benchmark) -> Option<(String, Vec<Vec<f64>>)> + 'a;

/// Charts and export buttons.
#[component]
pub fn ResultsPanel(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The current or last run.
    run: RunState,
    /// The messages at the top of the page.
    messages: Messages,
    /// What this browser keeps.
    kept: RwSignal<Kept>,
    /// The page's workers.
    workers: WorkerService,
) -> impl IntoView {
    let summary = run_summary(run);
    let so_far = run.runs_so_far();
    let run_methods = Memo::new(move |_| run.setup.get().map(|(r, _)| r.spec.methods.clone()).unwrap_or_default());
    // One series per method of the last run, from a function giving a method's curves; the
    // band kept within the measure's own range where it has one.
    let series = move |curves: &CurvesOfMethod<'_>, range: Option<(f64, f64)>| -> Vec<Series> {
        let Some((resolved, bench)) = run.setup.get() else { return Vec::new() };
        run.traces.with(|traces| {
            resolved
                .spec
                .methods
                .iter()
                .enumerate()
                .map(|(k, m)| Series {
                    name: m.clone(),
                    color: PALETTE[k % PALETTE.len()],
                    band: match range {
                        Some((lo, hi)) => band(&curves(traces, &resolved, &bench, m)).within(lo, hi),
                        None => band(&curves(traces, &resolved, &bench, m)),
                    },
                    so_far: so_far.with(|s| s.get(m).cloned()),
                })
                .filter(|s| s.band.n > 0 || s.so_far.is_some())
                .collect()
        })
    };
    // The study's own run (a file from Optuna, Ray Tune or Syne Tune), on its own objective:
    // its trials in the order they ran, each one iteration.
    let study_series = move |curves: &StudyCurves<'_>| -> Option<Series> {
        let (resolved, bench) = run.setup.get()?;
        if resolved.objective != 0 || run.traces.with(Vec::is_empty) {
            return None;
        }
        let (name, curves) = curves(&resolved, &bench)?;
        Some(Series { name, color: STUDY_COLOR, band: band(&curves), so_far: None })
    };
    let adtm = Memo::new(move |_| {
        let mut v = series(&|traces, r, b, m| adtm_curves(traces, b, r.objective, r.direction, m), Some((0.0, 1.0)));
        v.extend(study_series(&|r, b| study_adtm(b, &r.tasks, r.objective, r.direction, r.spec.iterations as usize)));
        v
    });
    let hv = Memo::new(move |_| {
        let mut v = series(&|traces, _, _, m| hv_error_curves(traces, m), Some((0.0, 1.0)));
        // The study's own run on its objectives: its hypervolume error as its trials ran.
        v.extend(run.setup.get().filter(|_| run.traces.with(|t| !t.is_empty())).and_then(|(r, b)| {
            let (name, curves) = study_hv_error(&b, &r.tasks, &r.objectives, r.spec.iterations as usize)?;
            Some(Series { name, color: STUDY_COLOR, band: band(&curves), so_far: None })
        }));
        v
    });
    let is_multi = move || run.setup.with(|r| r.as_ref().is_some_and(|(r, _)| r.is_multi_objective()));
    let hv_title = Signal::derive(move || {
        let n = run.setup.with(|r| r.as_ref().map(|(r, _)| r.tasks.len()).unwrap_or(0));
        format!("Hypervolume error over {n} task{} (mean, 95% band across seeds)", if n == 1 { "" } else { "s" })
    });
    let best = Memo::new(move |_| {
        let task = run.best_task.get();
        let mut v = series(&|traces, _, _, m| best_so_far_curves(traces, m, &task), None);
        v.extend(study_series(&|r, b| {
            let t = b.task_index(&task)?;
            let curve = study_best_so_far(b, t, r.objective, r.direction, r.spec.iterations as usize)?;
            Some((b.tasks[t].history.as_ref()?.line_name(), vec![curve]))
        }));
        v
    });
    let adtm_title = Signal::derive(move || {
        let n = run.setup.with(|r| r.as_ref().map(|(r, _)| r.tasks.len()).unwrap_or(0));
        format!("ADTM over {n} task{} (mean, 95% band across seeds)", if n == 1 { "" } else { "s" })
    });
    let best_title = Signal::derive(move || {
        let obj = run.setup.with(|r| r.as_ref().map(|(r, b)| b.metrics[r.objective].name.clone()).unwrap_or_default());
        let obj = if obj.is_empty() { String::new() } else { format!("{obj} ") };
        format!("Best {obj}so far on {} (mean, 95% band)", run.best_task.get())
    });
    let export = move |what: &'static str| {
        let result = match what {
            "csv" => download_text("traces.csv", "text/csv", &run.traces.with(|t| traces_csv(t.iter()))),
            "detailed" => download_text("traces-detailed.csv", "text/csv", &run.traces.with(|t| traces_detailed_csv(t.iter()))),
            "spec" => {
                let spec = run.setup.with(|r| r.as_ref().map(|(r, _)| r.spec.clone())).unwrap_or_else(|| spec.get_untracked());
                download_text("spec.json", "application/json", &serde_json::to_string_pretty(&spec).unwrap_or_default())
            }
            other => Err(format!("unknown export '{other}'").into()),
        };
        if let Err(e) = result {
            messages.say(Level::Error, crate::app::platform::browser::export_failed(&e));
        }
    };
    let has_results = move || run.traces.with(|t| !t.is_empty());
    let is_race = move || {
        run.opened_race.with(Option::is_some) || run.setup.with(|r| r.as_ref().is_some_and(|(r, _)| r.mode.kind() == RunKind::Race))
    };
    let on_open = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|l| l.get(0)) {
            leptos::task::spawn_local(open_race_summary(run, kept, messages, file));
        }
        input.set_value("");
    };
    view! {
        <div class="row" id="open-results">
            <label class="file-label">"Open race results…"
                <input id="open-race-summary" type="file" accept=".json,application/json" on:change=on_open/></label>
            <span class="hint">"a race-summary.json: this page's Summary JSON, or what hpo race and hpo merge write (docs/sweeps.md)"</span>
        </div>
        {move || is_race().then(|| view! { <crate::app::views::race_view::RaceResults spec=spec run=run messages=messages/> })}
        <div style:display=move || if is_race() { "none" } else { "" }>
        <div class="row">
            <label class="check"><input id="log-scale" type="checkbox" prop:checked=move || spec.with(|s| s.log_y)
                on:change=move |ev| { let log = event_target_checked(&ev); spec.update(|s| s.log_y = log) }/>"log scale"</label>
            <button id="export-csv" on:click=move |_| export("csv") disabled=move || !has_results()>"Traces CSV"</button>
            <button id="export-detailed" on:click=move |_| export("detailed") disabled=move || !has_results()
                title="adds the configuration index, the best so far and the optimizer's seconds">"Detailed CSV"</button>
            <button id="export-spec" on:click=move |_| export("spec")>"Spec JSON"</button>
        </div>
        {move || is_multi().then(|| view! {
            <div class="charts">
                <ChartFigure id="chart-hv" file="hypervolume-error"
                    caption=move || view! { "Hypervolume of the task's true Pareto front minus that of the points found so far, every objective scaled to [0, 1] by its range over the task, reference point (1, 1, …) = each objective's maximum (Salinas et al. 2020, §5.2, Fig. 7)."
                        {move || hv.with(|v| v.iter().any(|s| s.color == STUDY_COLOR)).then_some(" Grey: the study as it ran, each of its trials one iteration (pruned and failed ones too), the error of its complete trials so far; the methods choose among the configurations it completed.")} }>
                    <LineChart id="chart-hv" title=hv_title y_label="error (share of unit box)" series=Signal::derive(move || hv.get()) log_y=Signal::derive(move || spec.with(|s| s.log_y))/>
                </ChartFigure>
            </div>
        })}
        <div class="charts" style:display=move || if is_multi() { "none" } else { "" }>
            <ChartFigure id="chart-adtm" file="adtm"
                caption=move || view! { "Distance to the task's best configuration, normalised by its min and max over all evaluations, averaged over tasks (Salinas et al. 2020, §5)."
                    {move || adtm.with(|v| v.iter().any(|s| s.color == STUDY_COLOR)).then_some(" Grey: the study as it ran, each of its trials one iteration (pruned and failed ones too), its best complete value so far; the methods choose among the configurations it completed.")} }>
                <LineChart id="chart-adtm" title=adtm_title y_label="ADTM (0 = minimum)" series=Signal::derive(move || adtm.get()) log_y=Signal::derive(move || spec.with(|s| s.log_y))/>
            </ChartFigure>
            <ChartFigure id="chart-best" file="best-so-far" caption=move || view! {
                    <label>"Task "
                        <select id="best-task" on:change=move |ev| run.best_task.set(event_target_value(&ev))>
                            {move || run.setup.get().map(|(r, b)| {
                                let current = run.best_task.get();
                                r.tasks.iter().map(|&t| {
                                    let name = b.tasks[t].name.clone();
                                    view! { <option value=name.clone() selected=name == current>{name.clone()}</option> }
                                }).collect_view()
                            })}
                        </select>
                    </label>
                }>
                <LineChart id="chart-best" title=best_title y_label="best (metric units)" series=Signal::derive(move || best.get()) log_y=Signal::derive(move || spec.with(|s| s.log_y))/>
            </ChartFigure>
        </div>
        <Table2View summary=summary/>
        <PriorEffectView summary=summary methods=run_methods/>
        <ObjectiveSpacePanel spec=spec data=data run=run/>
        <WarpingView spec=spec data=data run=run/>
        <PriorView spec=spec data=data run=run workers=workers/>
        </div>
    }
}

/// Reads a race summary from `file` and shows it in place of the last run's results, or says
/// why it cannot.
async fn open_race_summary(run: RunState, kept: RwSignal<Kept>, messages: Messages, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_SUMMARY_BYTES as f64 {
        let mib = file.size() / 1048576.0;
        messages.say(Level::Error, format!("{name}: {mib:.0} MiB is more than a race summary's {} MiB", MAX_SUMMARY_BYTES >> 20));
        return;
    }
    let opened = match file_bytes(&file).await {
        Ok(bytes) => RaceSummary::from_json(&name, &bytes).map(|s| (s, bytes)).map_err(|e| e.to_string()),
        Err(e) => Err(format!("{name}: {e}")),
    };
    match opened {
        Ok((summary, bytes)) => {
            messages.clear(Level::Error);
            crate::app::data::kept::show_race_summary(run, kept, messages, name, bytes, summary);
        }
        Err(e) => messages.say(Level::Error, e),
    }
}

/// The run's Table 2 and Fig. 4 (`engine::results::run_summary`, the CLI's too), recomputed as
/// traces arrive; `None` where the run has nothing to compare.
fn run_summary(run: RunState) -> Memo<Option<RunSummary>> {
    Memo::new(move |_| {
        let (resolved, bench) = run.setup.get()?;
        run.traces.with(|traces| summarize_full_run(&bench, &resolved, traces))
    })
}

/// Fig. 4 of the copula paper for the current results: each prior method's improvement over
/// RS per task against the prior's RMSE on that task (RMSE < 1: the prior beats a constant).
#[component]
fn PriorEffectView(summary: Memo<Option<RunSummary>>, methods: Memo<Vec<String>>) -> impl IntoView {
    let data = Memo::new(move |_| {
        let Some(summary) = summary.get() else { return Scatter::default() };
        let methods = methods.get();
        let mut overlays: Vec<_> = summary
            .prior_effects
            .iter()
            .map(|fig4| {
                let k = methods.iter().position(|m| *m == fig4.method).unwrap_or(0);
                (
                    fig4.effects.iter().map(|e| (e.rmse, e.improvement)).collect::<Vec<_>>(),
                    PALETTE[k % PALETTE.len()],
                    fig4.method.clone(),
                    true,
                )
            })
            .collect();
        if overlays.is_empty() {
            return Scatter::default();
        }
        let y: Vec<f64> = overlays.iter().flat_map(|o| o.0.iter().map(|p| p.1)).collect();
        let (lo, hi) = y.iter().fold((0.0f64, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
        overlays.push((vec![(1.0, lo), (1.0, hi)], "#888888", "RMSE = 1".into(), true));
        Scatter {
            title: "Improvement over RS per task vs the prior's RMSE on it (Salinas et al. 2020, Fig. 4)".into(),
            x_label: "prior RMSE on the target task (warped values)".into(),
            y_label: "improvement over RS".into(),
            overlays,
            ..Scatter::default()
        }
    });
    // In the two-column grid of the other result charts, so that the canvas is drawn at the
    // width it is shown at (on its own it spanned the wide panel, past the widest layout, and
    // was stretched: blurry, its title at 21 px).
    move || {
        (!data.get().overlays.is_empty())
            .then(|| view! { <div class="charts one"><ScatterCanvas id="fig4" data=Signal::derive(move || data.get())/></div> })
    }
}

/// Table 2 of the copula paper for the current results: improvement over RS per task and
/// method, its mean over tasks with the average rank, the best two methods in bold, and the
/// tasks still waiting for a job.
#[component]
fn Table2View(summary: Memo<Option<RunSummary>>) -> impl IntoView {
    move || {
        let table = summary.get()?.table2;
        if table.rows.is_empty() {
            return None;
        }
        let top = table.best(2);
        let left_out = (!table.incomplete.is_empty())
            .then(|| format!("Left out until every job on them has finished: {}.", table.incomplete.join(", ")));
        Some(view! {
            <div id="table2">
                <h3>"DTM improvement over RS (higher is better; Salinas et al. 2020, Table 2)"</h3>
                <div class="table-scroll"><table>
                    <thead><tr><th>"task"</th>{table.methods.iter().map(|m| view! { <th>{m.clone()}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {table.rows.into_iter().map(|row| view! {
                            <tr><td>{row.task}</td>{row.improvements.into_iter().map(|v| view! { <td class="num">{format!("{v:.3}")}</td> }).collect_view()}</tr>
                        }).collect_view()}
                        <tr class="mean"><td>"mean (average rank)"</td>
                            {table.means.iter().zip(&table.ranks).enumerate().map(|(k, (m, r))| {
                                let bold = top.contains(&k);
                                view! { <td class="num" class:best=bold>{format!("{m:.3} ({r:.2})")}</td> }
                            }).collect_view()}
                        </tr>
                    </tbody>
                </table></div>
                {left_out.map(|text| view! { <p class="caption" id="table2-left-out">{text}</p> })}
            </div>
        })
    }
}
