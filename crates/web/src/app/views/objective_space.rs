//! The objective space of multi-objective setups (Salinas et al. 2020, §5.2): every
//! configuration of a task on the first two objectives with the task's true Pareto front and
//! the points each method found for one seed; and Fig. 6, the same cloud coloured by the
//! scalarized objective αZ(y₁) + (1 − α)Z(y₂) for α ∈ {0.25, 0.5, 0.75} with Z = Δ and α = 0.5
//! with Z = ψ, so the level sets can be compared with the front. Drawn on canvases
//! ([`crate::app::charts::scatter`]): a NAS-Bench-201 task has 15,625 points per panel.

use leptos::prelude::*;

use crate::app::charts::chart::PALETTE;
use crate::app::charts::scatter::{Scatter, ScatterCanvas};
use crate::app::state::{DataState, RunState};
use hpo_engine::benchmark::Benchmark;
use hpo_engine::pareto::non_dominated;
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::warping::{scalarize_weighted, OutputWarp};

/// Green (best) to red (worst) by rank, as in the paper's Fig. 6.
fn rank_colors(values: &[f64]) -> Vec<String> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut colors = vec![String::new(); values.len()];
    let n = values.len().max(2) - 1;
    for (rank, i) in order.into_iter().enumerate() {
        let hue = 120.0 * (1.0 - rank as f64 / n as f64);
        colors[i] = format!("hsl({hue:.0},75%,42%)");
    }
    colors
}

/// The task's losses `[objective][config]` for the chosen objectives, and their raw values.
fn objective_columns(bench: &Benchmark, objectives: &[(usize, f64)], task: usize) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let raw: Vec<Vec<f64>> = objectives.iter().map(|&(m, _)| bench.tasks[task].metrics[m].clone()).collect();
    let losses = objectives.iter().zip(&raw).map(|(&(_, sign), col)| col.iter().map(|v| sign * v).collect()).collect();
    (raw, losses)
}

/// Objective space and Fig. 6 for the current setup (shown when two or more objectives are chosen).
#[component]
pub fn ObjectiveSpacePanel(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The current or last run.
    run: RunState,
) -> impl IntoView {
    let seed = RwSignal::new(None::<u64>);
    // (benchmark, objectives as (metric, sign), task index), from the current setup.
    let setup = Memo::new(move |_| {
        let bench = data.bench.get()?;
        let spec = spec.get();
        if spec.objectives.len() < 2 {
            return None;
        }
        let objectives: Vec<(usize, f64)> = spec
            .objectives
            .iter()
            .map(|o| {
                let m = bench.metric_index(&o.metric)?;
                Some((m, o.direction.unwrap_or(bench.metrics[m].direction).sign()))
            })
            .collect::<Option<_>>()?;
        let task = bench.task_index(&run.best_task.get()).unwrap_or(0);
        Some((bench, objectives, task))
    });
    let front_view = Memo::new(move |_| {
        let Some((bench, objectives, task)) = setup.get() else { return Scatter::default() };
        let (raw, losses) = objective_columns(&bench, &objectives, task);
        let n = raw[0].len();
        let points: Vec<(f64, f64)> = (0..n).map(|i| (raw[0][i], raw[1][i])).collect();
        let loss_points: Vec<Vec<f64>> = (0..n).map(|i| losses.iter().map(|c| c[i]).collect()).collect();
        let front: Vec<(f64, f64)> = non_dominated(&loss_points).into_iter().map(|i| points[i]).collect();
        let mut overlays = vec![(front, "#000000", "true front".to_string(), true)];
        let task_name = bench.tasks[task].name.clone();
        if let Some((resolved, run_bench)) = run.setup.get().filter(|(r, b)| r.is_multi_objective() && b.name == bench.name) {
            let chosen_seed = seed.get().unwrap_or(resolved.spec.first_seed);
            run.traces.with(|traces| {
                for (k, m) in resolved.spec.methods.iter().enumerate() {
                    let found: Vec<(f64, f64)> = traces
                        .iter()
                        .filter(|t| &t.method == m && t.task == task_name && t.seed == chosen_seed)
                        .flat_map(|t| t.rows().iter().map(|r| (r.objectives.first().copied(), r.objectives.get(1).copied())))
                        .filter_map(|(a, b)| Some((a?, b?)))
                        .collect();
                    if !found.is_empty() {
                        overlays.push((found, PALETTE[k % PALETTE.len()], format!("{m} (seed {chosen_seed})"), false));
                    }
                }
            });
            let _ = run_bench;
        }
        Scatter {
            title: format!("{task_name}: all {n} configurations, true front and points found"),
            x_label: bench.metrics[objectives[0].0].name.clone(),
            y_label: bench.metrics[objectives[1].0].name.clone(),
            points,
            colors: Vec::new(),
            overlays,
            log_x: false,
        }
    });
    let fig6 = move |alpha: f64, warp: OutputWarp| {
        Memo::new(move |_| {
            let Some((bench, objectives, task)) = setup.get() else { return Scatter::default() };
            let (raw, losses) = objective_columns(&bench, &objectives[..2], task);
            let z = scalarize_weighted(&losses, &[alpha, 1.0 - alpha], warp);
            Scatter {
                title: format!("α = {alpha}, Z = {}", warp.as_str()),
                x_label: bench.metrics[objectives[0].0].name.clone(),
                y_label: bench.metrics[objectives[1].0].name.clone(),
                points: (0..raw[0].len()).map(|i| (raw[0][i], raw[1][i])).collect(),
                colors: rank_colors(&z),
                overlays: Vec::new(),
                log_x: false,
            }
        })
    };
    let panels =
        [(0.25, OutputWarp::Standardize), (0.5, OutputWarp::Standardize), (0.75, OutputWarp::Standardize), (0.5, OutputWarp::Copula)];
    let ids = ["fig6-delta-25", "fig6-delta-50", "fig6-delta-75", "fig6-psi-50"];
    let seeds = move || {
        run.setup.get().filter(|(r, _)| r.is_multi_objective()).map(|(r, _)| r.spec.first_seed..r.spec.first_seed + r.spec.seeds as u64)
    };
    move || {
        setup.get().map(|(bench, _, task)| {
            let memos: Vec<Memo<Scatter>> = panels.iter().map(|&(a, w)| fig6(a, w)).collect();
            view! {
                <div id="objective-space">
                    <h3>"Objective space"</h3>
                    <div class="row">
                        <label>"Task "
                            <select id="space-task" on:change=move |ev| run.best_task.set(event_target_value(&ev))>
                                {bench.tasks.iter().enumerate().map(|(i, t)| view! { <option value=t.name.clone() selected=i == task>{t.name.clone()}</option> }).collect_view()}
                            </select>
                        </label>
                        {move || seeds().map(|range| view! {
                            <label>"Seed "
                                <select id="space-seed" on:change=move |ev| seed.set(event_target_value(&ev).parse().ok())>
                                    {range.map(|s| view! { <option value=s.to_string()>{s}</option> }).collect_view()}
                                </select>
                            </label>
                        })}
                    </div>
                    <ScatterCanvas id="front-view" data=Signal::derive(move || front_view.get())/>
                    <p class="hint">"Black: the task's Pareto front over all its evaluations. Coloured: every configuration a method evaluated with the chosen seed. With three or more objectives the first two are shown."</p>
                    <h3>"Scalarizations (Salinas et al. 2020, Fig. 6): green = lowest αZ(y₁) + (1 − α)Z(y₂), red = highest"</h3>
                    <div class="charts">
                        {memos.into_iter().zip(ids).map(|(m, id)| view! { <ScatterCanvas id=id data=Signal::derive(move || m.get())/> }).collect_view()}
                    </div>
                    <p class="hint">"With Z = Δ (standardisation) the level sets are straight lines, so the best values of one α sit at one end of a curved front; with Z = ψ (the copula warp of each objective) they follow the front."</p>
                </div>
            }
        })
    }
}
