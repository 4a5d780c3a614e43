//! The parametric prior seen along one hyperparameter: its predictive mean μθ and standard
//! deviation σθ (Salinas et al. 2020, §3) as one hyperparameter sweeps its range and the others
//! stay at the target task's best configuration, next to the target task's own warped values.
//! The prior never saw the target task (leave-one-task-out), so the picture shows what
//! transfer can and cannot know before the first evaluation.

use super::benchmark::Benchmark;
use super::error::{EngineError, Result};
use super::prior::TrainedPrior;
use super::space::ParamKind;
use super::spec::ResolvedSpec;
use super::transfer::task_targets;
use super::warping::OutputWarp;

/// The prior along one hyperparameter of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorSlice {
    /// Raw values of the hyperparameter along the sweep (level indices for categoricals).
    pub grid: Vec<f64>,
    /// μθ at each grid value.
    pub mean: Vec<f64>,
    /// σθ at each grid value.
    pub sd: Vec<f64>,
    /// The target task's evaluations: (raw value of the hyperparameter, warped objective).
    pub observed: Vec<(f64, f64)>,
    /// The configuration the other hyperparameters are held at: (name, displayed value).
    pub anchor: Vec<(String, String)>,
    /// The hyperparameter is searched on a log scale (plot its logarithm).
    pub log_scale: bool,
}

/// Four significant digits: enough to recognise a configuration in a sentence.
fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() >= 1e5 || v.abs() < 1e-3 {
        return format!("{v:.3e}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Values a sweep visits: `points` values spread over a continuous range (geometrically on a
/// log scale), every integer of a small integer range, every level of a categorical.
fn sweep(kind: &ParamKind, points: usize) -> Vec<f64> {
    let points = points.max(2);
    let spread = |lo: f64, hi: f64| (0..points).map(move |i| lo + (hi - lo) * i as f64 / (points - 1) as f64);
    match kind {
        ParamKind::Continuous { lower, upper, log: true } if *lower > 0.0 => {
            spread(libm::log(*lower), libm::log(*upper)).map(libm::exp).collect()
        }
        ParamKind::Continuous { lower, upper, .. } => spread(*lower, *upper).collect(),
        ParamKind::Integer { lower, upper } => {
            let mut v: Vec<f64> = spread(*lower as f64, *upper as f64).map(f64::round).collect();
            v.dedup();
            v
        }
        ParamKind::Categorical { levels } => (0..levels.len()).map(|l| l as f64).collect(),
    }
}

/// Sweeps hyperparameter `param` of `target` through `prior` (trained without `target`), the
/// other hyperparameters held at the target's best evaluation under `warp`'s targets.
pub fn prior_slice(
    bench: &Benchmark,
    resolved: &ResolvedSpec,
    target: usize,
    warp: OutputWarp,
    prior: &TrainedPrior,
    param: usize,
    points: usize,
) -> Result<PriorSlice> {
    let task = bench.tasks.get(target).ok_or_else(|| EngineError::Spec(format!("no task {target}")))?;
    let hp = bench.space.params.get(param).ok_or_else(|| EngineError::Spec(format!("no hyperparameter {param}")))?;
    let z = task_targets(bench, resolved, target, warp);
    let best = (0..z.len())
        .min_by(|&a, &b| z[a].total_cmp(&z[b]))
        .ok_or_else(|| EngineError::Spec(format!("{} has no evaluations", task.name)))?;
    let anchor_config = &task.configs[best];
    let grid = sweep(&hp.kind, points);
    let (mut mean, mut sd) = (Vec::with_capacity(grid.len()), Vec::with_capacity(grid.len()));
    for &v in &grid {
        let mut config = anchor_config.clone();
        config[param] = v;
        let (m, s) = prior.predict(&bench.space.encode(&config));
        mean.push(m);
        sd.push(s);
    }
    let anchor = bench
        .space
        .params
        .iter()
        .zip(anchor_config)
        .enumerate()
        .filter(|&(k, _)| k != param)
        .map(|(_, (p, &v))| {
            (p.name.clone(), if matches!(p.kind, ParamKind::Continuous { .. }) { significant(v) } else { p.display_value(v) })
        })
        .collect();
    Ok(PriorSlice {
        grid,
        mean,
        sd,
        observed: task.configs.iter().map(|c| c[param]).zip(z).collect(),
        anchor,
        log_scale: matches!(hp.kind, ParamKind::Continuous { log: true, lower, .. } if lower > 0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::quadratic_family;
    use crate::spec::{ExperimentSpec, TransferMode};
    use crate::transfer::train_target_prior;

    #[test]
    fn sweeps_cover_each_kind_of_range() {
        let log = sweep(&ParamKind::Continuous { lower: 1e-3, upper: 1e1, log: true }, 5);
        for (got, want) in log.iter().zip([1e-3, 1e-2, 1e-1, 1.0, 10.0]) {
            assert!((got / want - 1.0).abs() < 1e-12, "{log:?}");
        }
        assert_eq!(sweep(&ParamKind::Integer { lower: 1, upper: 4 }, 50), vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(significant(4.379337453156289), "4.379");
        assert_eq!(significant(-16.727720122153222), "-16.73");
        assert_eq!(significant(0.0679381720029), "0.06794");
        assert_eq!(significant(2.5e-5), "2.500e-5");
        assert_eq!(sweep(&ParamKind::Categorical { levels: vec!["a".into(), "b".into()] }, 50), vec![0.0, 1.0]);
    }

    #[test]
    fn the_slice_predicts_the_held_out_task_and_passes_through_its_best_configuration() {
        let bench = quadratic_family();
        let spec =
            ExperimentSpec { methods: vec!["GCP+prior".into()], transfer: TransferMode::LeaveOneTaskOut, ..ExperimentSpec::default() };
        let resolved = spec.resolve(&bench).unwrap();
        let prior = train_target_prior(&bench, &resolved, 0, OutputWarp::Copula, &mut |_, _| true).unwrap();
        let slice = prior_slice(&bench, &resolved, 0, OutputWarp::Copula, &prior, 0, 41).unwrap();
        assert_eq!(slice.grid.len(), 41);
        assert_eq!(slice.observed.len(), bench.tasks[0].len());
        assert_eq!(slice.anchor.len(), bench.space.params.len() - 1);
        assert!(slice.sd.iter().all(|&s| s > 0.0 && s.is_finite()));
        // The quadratic tasks share their shape: along the first hyperparameter the prior's
        // mean must be lowest near where the held-out task is best, not at the range's ends.
        let z = task_targets(&bench, &resolved, 0, OutputWarp::Copula);
        let best = (0..z.len()).min_by(|&a, &b| z[a].total_cmp(&z[b])).unwrap();
        let argmin = (0..slice.mean.len()).min_by(|&a, &b| slice.mean[a].total_cmp(&slice.mean[b])).unwrap();
        let (lo, hi) = (slice.grid[0], slice.grid[slice.grid.len() - 1]);
        let distance = (slice.grid[argmin] - bench.tasks[0].configs[best][0]).abs() / (hi - lo);
        assert!(distance < 0.2, "prior minimum at {} vs best at {}", slice.grid[argmin], bench.tasks[0].configs[best][0]);
    }
}
