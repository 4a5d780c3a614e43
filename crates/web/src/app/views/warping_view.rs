//! The warping view (Salinas et al. 2020, Figs. 1-2): the objective of every task on its own
//! scale, the same values after ψ = Φ⁻¹∘F (all close to N(0, 1), hence comparable across
//! tasks), and one task's winsorized empirical CDF with the cut-off δ_N.

use leptos::prelude::*;

use crate::app::charts::chart::PALETTE;
use crate::app::charts::scatter::{Scatter, ScatterCanvas};
use crate::app::state::{DataState, RunState};
use hpo_engine::benchmark::{Benchmark, Direction};
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::stats::normal_pdf;
use hpo_engine::warping::{delta_n, CopulaWarp};

/// Tasks drawn in the density panels (more would be unreadable).
const MAX_TASKS_SHOWN: usize = 8;
const BINS: usize = 30;

/// Density histogram as a polyline through the bin centres.
/// Values a panel draws per task at most. A task of a large upload has hundreds of thousands:
/// warping and drawing them all froze the tab for over a second (a 100 MB CSV, 244,000 rows
/// per task, measured); an evenly spaced subset draws the same histogram and CDF.
const DRAWN_PER_TASK: usize = 20_000;

/// At most `max` of `values`, evenly spaced (all when there are fewer).
fn thinned(values: &[f64], max: usize) -> std::borrow::Cow<'_, [f64]> {
    if values.len() <= max {
        return std::borrow::Cow::Borrowed(values);
    }
    let step = values.len() as f64 / max as f64;
    std::borrow::Cow::Owned((0..max).map(|i| values[(i as f64 * step) as usize]).collect())
}

fn density(values: &[f64], lo: f64, hi: f64) -> Vec<(f64, f64)> {
    let width = if hi > lo { (hi - lo) / BINS as f64 } else { 1.0 };
    let mut counts = [0usize; BINS];
    for &v in values {
        let b = (((v - lo) / width) as usize).min(BINS - 1);
        counts[b] += 1;
    }
    let n = values.len().max(1) as f64;
    counts.iter().enumerate().map(|(b, &c)| (lo + (b as f64 + 0.5) * width, c as f64 / (n * width))).collect()
}

fn objective_of(bench: &Benchmark, name: Option<&str>) -> usize {
    name.and_then(|n| bench.metric_index(n)).unwrap_or(bench.objective)
}

/// The three panels for the current benchmark and objective.
#[component]
pub fn WarpingView(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The current or last run.
    run: RunState,
) -> impl IntoView {
    let inputs = Memo::new(move |_| {
        let bench = data.bench.get()?;
        let m = objective_of(&bench, spec.get().objective.as_deref());
        let task = bench.task_index(&run.best_task.get()).unwrap_or(0);
        Some((bench, m, task))
    });
    let raw = Memo::new(move |_| {
        let Some((bench, m, _)) = inputs.get() else { return Scatter::default() };
        let overlays = bench.tasks.iter().take(MAX_TASKS_SHOWN).enumerate().map(|(k, t)| {
            let (lo, hi) = t.metric_range(m);
            (density(&thinned(&t.metrics[m], DRAWN_PER_TASK), lo, hi), PALETTE[k % PALETTE.len()], t.name.clone(), true)
        });
        Scatter {
            title: "Objective per task, on its own scale".into(),
            x_label: bench.metrics[m].name.clone(),
            y_label: "density".into(),
            overlays: overlays.collect(),
            ..Scatter::default()
        }
    });
    let warped = Memo::new(move |_| {
        let Some((bench, m, _)) = inputs.get() else { return Scatter::default() };
        let direction = bench.metrics[m].direction;
        let mut overlays: Vec<_> = bench
            .tasks
            .iter()
            .take(MAX_TASKS_SHOWN)
            .enumerate()
            .map(|(k, t)| {
                let losses: Vec<f64> = direction.losses(&thinned(&t.metrics[m], DRAWN_PER_TASK));
                let z = CopulaWarp::fit(&losses).transform(&losses);
                (density(&z, -3.5, 3.5), PALETTE[k % PALETTE.len()], t.name.clone(), true)
            })
            .collect();
        overlays.push(((0..=70).map(|i| -3.5 + 0.1 * i as f64).map(|z| (z, normal_pdf(z))).collect(), "#000000", "N(0, 1)".into(), true));
        Scatter {
            title: "After ψ = Φ⁻¹∘F (loss: smaller is better)".into(),
            x_label: "ψ(y)".into(),
            y_label: "density".into(),
            overlays,
            ..Scatter::default()
        }
    });
    let ecdf = Memo::new(move |_| {
        let Some((bench, m, task)) = inputs.get() else { return Scatter::default() };
        let t = &bench.tasks[task];
        // ψ and δ_N of the whole task; only the points drawn are thinned.
        let losses: Vec<f64> = bench.metrics[m].direction.losses(&t.metrics[m]);
        let warp = CopulaWarp::fit(&losses);
        let (lo, hi) = losses.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let d = delta_n(losses.len());
        Scatter {
            title: format!("{}: winsorized empirical CDF, δ_N = {d:.4} (N = {})", t.name, losses.len()),
            x_label: if bench.metrics[m].direction == Direction::Minimize {
                bench.metrics[m].name.clone()
            } else {
                format!("−{}", bench.metrics[m].name)
            },
            y_label: "F(y)".into(),
            points: thinned(&losses, DRAWN_PER_TASK).iter().map(|&y| (y, warp.cdf(y))).collect(),
            colors: Vec::new(),
            overlays: vec![
                (vec![(lo, d), (hi, d)], "#D55E00", "δ_N".into(), true),
                (vec![(lo, 1.0 - d), (hi, 1.0 - d)], "#D55E00", "1 − δ_N".into(), true),
            ],
            log_x: false,
        }
    });
    view! {
        <details id="warping-view">
            <summary>"How the copula sees this benchmark (Salinas et al. 2020, Figs. 1-2)"</summary>
            <p class="hint">"Tasks live on different scales (left); ψ maps each task's values through its own empirical CDF, clipped to [δ_N, 1 − δ_N], and the normal quantile, so every task looks like N(0, 1) (middle) and one model can learn from all of them. The task is the one chosen under Results."</p>
            <div class="charts">
                <ScatterCanvas id="warp-raw" data=Signal::derive(move || raw.get())/>
                <ScatterCanvas id="warp-psi" data=Signal::derive(move || warped.get())/>
                <ScatterCanvas id="warp-ecdf" data=Signal::derive(move || ecdf.get())/>
            </div>
        </details>
    }
}
