//! What the page and the CLI show for a race run: the raced curves and ground truth of each
//! task, and the [`RaceSummary`] of the run's traces.

use std::collections::BTreeMap;

use super::analysis::GroundTruth;
use super::runner::race_curves;
use super::summary::{summarize, RaceSummary, TaskCurves};
use super::{RaceRow, RaceTrace};
use crate::engine::benchmark::Benchmark;
use crate::engine::error::Result;
use crate::engine::runner::Trace;
use crate::engine::spec::ResolvedSpec;

/// Raced curves and ground truth of `tasks`, keyed by task name; `sign` is +1 when smaller
/// is better.
pub fn task_curves(bench: &Benchmark, tasks: &[usize], sign: f64) -> Result<BTreeMap<String, TaskCurves>> {
    let mut curves = BTreeMap::new();
    for &t in tasks {
        let (values, _) = race_curves(bench, t)?;
        let truth = GroundTruth::new(&values, sign);
        curves.insert(bench.tasks[t].name.clone(), TaskCurves { values, truth });
    }
    Ok(curves)
}

/// The race part of job traces.
pub fn race_traces(traces: &[Trace]) -> Vec<RaceTrace> {
    traces
        .iter()
        .filter_map(|t| {
            Some(RaceTrace {
                method: t.method.clone(),
                task: t.task.clone(),
                seed: t.seed,
                rows: t.race().filter(|r| !r.is_empty())?.to_vec(),
            })
        })
        .collect()
}

/// The summary of a race run (`None` when the spec is not a race or nothing has finished).
pub fn summarize_run(bench: &Benchmark, resolved: &ResolvedSpec, traces: &[Trace]) -> Option<RaceSummary> {
    let total = resolved.race_budget()?;
    let races = race_traces(traces);
    if races.is_empty() {
        return None;
    }
    let curves = task_curves(bench, &resolved.tasks, resolved.direction.sign()).ok()?;
    let methods: Vec<String> = resolved.spec.methods.iter().filter(|m| races.iter().any(|r| &r.method == *m)).cloned().collect();
    let summary = summarize(&races, &methods, &curves, total);
    (!summary.tasks.is_empty()).then_some(summary)
}

/// One point of the race view (the DyHPO paper's Fig. 1): the metric of `config` after
/// `budget` steps, observed by request number `step` (from 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RacePoint {
    /// Configuration index in the task.
    pub config: usize,
    /// Budget step, from 1.
    pub budget: u32,
    /// Raw metric value.
    pub value: f64,
    /// The request that observed it.
    pub step: usize,
}

/// Every point a run observed, in the order observed: a request that takes a configuration
/// from budget b to b' observes b + 1, …, b' (training pauses and resumes, it never skips).
pub fn race_points(rows: &[RaceRow], values: &[Vec<f64>]) -> Vec<RacePoint> {
    let mut reached = vec![0u32; values.len()];
    let mut points = Vec::new();
    for (step, r) in rows.iter().enumerate() {
        let Some(curve) = values.get(r.config) else { continue };
        let upto = r.budget.min(curve.len() as u32);
        for b in reached[r.config] + 1..=upto {
            points.push(RacePoint { config: r.config, budget: b, value: curve[b as usize - 1], step });
        }
        reached[r.config] = reached[r.config].max(upto);
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_observes_every_step_on_the_way() {
        let values = vec![vec![0.9, 0.8, 0.7, 0.6], vec![0.5, 0.4, 0.3, 0.2]];
        let row = |config, budget| RaceRow { config, budget, value: 0.0, best: 0.0, spent: 0, cost: 0.0, optimizer_seconds: 0.0 };
        let points = race_points(&[row(1, 1), row(0, 3), row(1, 2)], &values);
        let seen: Vec<(usize, u32, f64, usize)> = points.iter().map(|p| (p.config, p.budget, p.value, p.step)).collect();
        assert_eq!(seen, vec![(1, 1, 0.5, 0), (0, 1, 0.9, 1), (0, 2, 0.8, 1), (0, 3, 0.7, 1), (1, 2, 0.4, 2)]);
    }
}
