//! What the page and the CLI show for a race run: the raced curves and ground truth of each
//! task, and the [`RaceSummary`] of the run's traces.

use std::collections::BTreeMap;

use super::race_analysis::GroundTruth;
use super::race_summary::{summarize, RaceSummary, TaskCurves};
use crate::benchmark::Benchmark;
use crate::error::Result;
use crate::fidelity::runner::race_curves;
use crate::race::{RaceRow, RaceTrace};
use crate::spec::{RegretScale, ResolvedSpec};
use crate::trace::Trace;

/// Raced curves and ground truth of `tasks`, keyed by task name; `sign` is +1 when smaller
/// is better. Regret is scaled as `regret` says, or (`None`) normalised per task when the
/// tasks' ranges differ by more than 10× ([`RegretScale::auto`]); the scale used is returned.
pub fn task_curves(
    bench: &Benchmark,
    tasks: &[usize],
    sign: f64,
    regret: Option<RegretScale>,
) -> Result<(BTreeMap<String, TaskCurves>, RegretScale)> {
    let mut truths = Vec::new();
    for &t in tasks {
        let (values, _) = race_curves(bench, t)?;
        let truth = GroundTruth::new(&values, sign);
        truths.push((bench.tasks[t].name.clone(), values, truth, bench.tasks[t].history.clone()));
    }
    let scale = regret.unwrap_or_else(|| RegretScale::auto(&truths.iter().map(|(_, _, truth, _)| truth.range()).collect::<Vec<_>>()));
    let curves = truths
        .into_iter()
        .map(|(name, values, truth, history)| {
            let truth = if scale == RegretScale::Normalized { truth.normalized() } else { truth };
            (name, TaskCurves { values, truth, history })
        })
        .collect();
    Ok((curves, scale))
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
    let (curves, scale) = task_curves(bench, &resolved.tasks, resolved.direction.sign(), resolved.spec.regret).ok()?;
    let methods: Vec<String> = resolved.spec.methods.iter().filter(|m| races.iter().any(|r| &r.method == *m)).cloned().collect();
    let summary = summarize(&races, &methods, &curves, total, scale);
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
    use crate::bundled::crossing_curves_family;
    use crate::spec::ExperimentSpec;

    #[test]
    fn regret_is_normalised_when_task_ranges_differ_tenfold_or_when_asked() {
        // Two tasks of the bundled curves, the second's losses scaled by 50.
        let mut bench = crossing_curves_family();
        bench.tasks.truncate(2);
        for c in bench.tasks[1].curves.as_mut().unwrap().values.iter_mut().flatten() {
            *c *= 50.0;
        }
        let (raw, scale) = task_curves(&bench, &[0, 1], 1.0, Some(RegretScale::Raw)).unwrap();
        assert_eq!(scale, RegretScale::Raw);
        let ranges: Vec<f64> = raw.values().map(|t| t.truth.range()).collect();
        assert!(ranges[1] > 10.0 * ranges[0], "{ranges:?}");
        let (auto, scale) = task_curves(&bench, &[0, 1], 1.0, None).unwrap();
        assert_eq!(scale, RegretScale::Normalized, "ranges {ranges:?} differ by more than 10×");
        for (t, truth) in auto.values().map(|t| &t.truth).enumerate() {
            // 0 at the best configuration, 1 at the median one (checked against a sort here).
            let mut best: Vec<f64> = truth.per_config.clone();
            best.sort_by(f64::total_cmp);
            let median = best[(best.len() - 1) / 2];
            assert!((truth.regret(median) - 1.0).abs() < 1e-12 && truth.regret(truth.optimum) == 0.0, "task {t}");
            assert!(truth.regret(truth.worst) > 1.0, "task {t}");
        }
        // Unscaled, the same tasks stay in metric units; alike tasks stay raw automatically.
        let (_, scale) = task_curves(&bench, &[0, 0], 1.0, None).unwrap();
        assert_eq!(scale, RegretScale::Raw);
        // A run's summary says which; normalised, its mean regret is in the median
        // configuration's units.
        let spec = ExperimentSpec {
            data: crate::spec::DataRef::Bundled("curves".into()),
            methods: vec!["RS".into()],
            seeds: 2,
            race_budget: Some(60),
            ..ExperimentSpec::default()
        };
        let resolved = spec.resolve(&bench).unwrap();
        let traces: Vec<Trace> = resolved
            .jobs()
            .iter()
            .map(|j| crate::runner::run_job(&bench, &resolved, j, &crate::transfer::PriorCache::new(), &|| 0.0, &mut |_| true).unwrap())
            .collect();
        let s = summarize_run(&bench, &resolved, &traces).unwrap();
        assert_eq!(s.regret_scale, RegretScale::Normalized);
        assert!(s.regret[0].mean.iter().all(|&r| r.is_finite() && r >= 0.0), "{:?}", s.regret[0].mean);
        let raw_spec = ExperimentSpec { regret: Some(RegretScale::Raw), ..spec };
        let s = summarize_run(&bench, &raw_spec.resolve(&bench).unwrap(), &traces).unwrap();
        assert_eq!(s.regret_scale, RegretScale::Raw);
        assert!(s.regret[0].mean[0] > 1.0, "task 2's regret is in its own (×50) units");
    }

    #[test]
    fn one_exploded_run_cannot_set_the_normalised_scale() {
        // Five configurations of one task; the fifth exploded to 1e17 at every step.
        let mut values: Vec<Vec<f64>> = (0..4).map(|i| vec![1.0 + i as f64, 0.5 + i as f64]).collect();
        let truth = GroundTruth::new(&values, 1.0).normalized();
        values.push(vec![1e17, 1e17]);
        let exploded = GroundTruth::new(&values, 1.0).normalized();
        // The median configuration's regret: 1.0 (of 0.5, 1.5, 2.5, 3.5 the lower median is 1.5)
        // without it, 2.0 (of five, the median 2.5) with it: the same order of magnitude.
        assert_eq!((truth.scale, exploded.scale), (1.0, 2.0));
        assert_eq!(exploded.regret(1.5), 0.5);
        assert!(exploded.range() > 1e16, "the range would have been set by the explosion");
    }

    #[test]
    fn a_jump_observes_every_step_on_the_way() {
        let values = vec![vec![0.9, 0.8, 0.7, 0.6], vec![0.5, 0.4, 0.3, 0.2]];
        let row = |config, budget| RaceRow { config, budget, value: 0.0, best: 0.0, spent: 0, cost: 0.0, optimizer_seconds: 0.0 };
        let points = race_points(&[row(1, 1), row(0, 3), row(1, 2)], &values);
        let seen: Vec<(usize, u32, f64, usize)> = points.iter().map(|p| (p.config, p.budget, p.value, p.step)).collect();
        assert_eq!(seen, vec![(1, 1, 0.5, 0), (0, 1, 0.9, 1), (0, 2, 0.8, 1), (0, 3, 0.7, 1), (1, 2, 0.4, 2)]);
    }
}
