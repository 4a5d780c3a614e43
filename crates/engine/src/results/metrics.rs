//! Performance measures of the papers: best so far, DTM and ADTM (Salinas et al. 2020, §5,
//! following Wistuba et al. 2018), and mean curves with a confidence band across seeds.
//!
//! DTM_opt^j(t) = (y_opt^j(t) − y_min^j) / (y_max^j − y_min^j) where y_min, y_max are the
//! minimum and maximum over all offline evaluations of task j (for a maximised metric the
//! roles of min and max swap, so 0 is always the best configuration and 1 the worst).
//! The paper averages y_opt over seeds before normalising; DTM is affine in y_opt, so the mean
//! of per-seed DTMs is identical and also yields a band. ADTM(t) averages DTM over tasks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::benchmark::{Benchmark, Direction};
use crate::pareto::HypervolumeError;
use crate::trace::Trace;

/// Normalised distance of `best` to the task's optimum, in [0, 1].
pub fn dtm(best: f64, y_min: f64, y_max: f64, direction: Direction) -> f64 {
    let range = y_max - y_min;
    if range <= 0.0 {
        return 0.0;
    }
    match direction {
        Direction::Minimize => (best - y_min) / range,
        Direction::Maximize => (y_max - best) / range,
    }
}

/// JSON has no NaN: serde_json writes it as `null`. These read `null` back as NaN, so that
/// what the engine wrote (a missing value is NaN) reads back.
pub mod nan_as_null {
    use serde::{Deserialize, Deserializer};

    /// One number, `null` as NaN.
    pub fn number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }

    /// A list of numbers, each `null` as NaN.
    pub fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Ok(Vec::<Option<f64>>::deserialize(d)?.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
    }

    /// A list of lists of numbers, each `null` as NaN.
    pub fn lists<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
        let rows = Vec::<Vec<Option<f64>>>::deserialize(d)?;
        Ok(rows.into_iter().map(|r| r.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect()).collect())
    }
}

/// Mean over seeds with a 95% normal confidence band of the mean (±1.96·sd/√n).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Band {
    /// Mean per iteration.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub mean: Vec<f64>,
    /// Lower edge per iteration.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub lower: Vec<f64>,
    /// Upper edge per iteration.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub upper: Vec<f64>,
    /// Number of curves averaged.
    pub n: usize,
}

/// Summarises curves of possibly different lengths over the common prefix.
pub fn band(curves: &[Vec<f64>]) -> Band {
    let n = curves.len();
    let len = curves.iter().map(Vec::len).min().unwrap_or(0);
    let mut b = Band { n, ..Band::default() };
    for t in 0..len {
        let mean = curves.iter().map(|c| c[t]).sum::<f64>() / n as f64;
        let half = if n > 1 {
            let var = curves.iter().map(|c| (c[t] - mean) * (c[t] - mean)).sum::<f64>() / (n - 1) as f64;
            1.96 * (var / n as f64).sqrt()
        } else {
            0.0
        };
        b.mean.push(mean);
        b.lower.push(mean - half);
        b.upper.push(mean + half);
    }
    b
}

impl Band {
    /// The band with its edges kept within `[lo, hi]`, for a measure that cannot leave that
    /// range (ADTM and the normalised hypervolume error lie in [0, 1]): the normal band of the
    /// mean can reach past a bound when seeds disagree near it, which the measure itself cannot.
    pub fn within(mut self, lo: f64, hi: f64) -> Band {
        for v in self.lower.iter_mut().chain(self.upper.iter_mut()) {
            *v = v.clamp(lo, hi);
        }
        self
    }
}

/// The study's own run on task `t` as a full-evaluation run sees it: after each of its first
/// `iterations` trials (pruned and failed ones count as tried), its best complete value so
/// far; the task's worst value before its first complete trial (as DTM starts at 1).
pub fn study_best_so_far(bench: &Benchmark, t: usize, objective: usize, direction: Direction, iterations: usize) -> Option<Vec<f64>> {
    let history = bench.tasks[t].history.as_ref()?;
    let (lo, hi) = bench.tasks[t].metric_range(objective);
    let mut best = if direction == Direction::Minimize { hi } else { lo };
    Some(
        history
            .trials
            .iter()
            .take(iterations)
            .map(|trial| {
                if let Some(v) = trial.value.filter(|v| v.is_finite()) {
                    if direction.loss(v) < direction.loss(best) {
                        best = v;
                    }
                }
                best
            })
            .collect(),
    )
}

/// The study's own run's ADTM over `tasks` (one curve per task, for a band over tasks), when
/// every task has its history; with its line's name ([`crate::benchmark::StudyHistory::line_name`]).
pub fn study_adtm(
    bench: &Benchmark,
    tasks: &[usize],
    objective: usize,
    direction: Direction,
    iterations: usize,
) -> Option<(String, Vec<Vec<f64>>)> {
    let name = bench.tasks.get(*tasks.first()?)?.history.as_ref()?.line_name();
    let curves = tasks
        .iter()
        .map(|&t| {
            let (lo, hi) = bench.tasks[t].metric_range(objective);
            study_best_so_far(bench, t, objective, direction, iterations).map(|c| c.iter().map(|&b| dtm(b, lo, hi, direction)).collect())
        })
        .collect::<Option<Vec<Vec<f64>>>>()?;
    Some((name, curves))
}

/// The study's own run's hypervolume error over `tasks` (one curve per task, for a band over
/// tasks), as a full-evaluation run of several objectives measures its methods' (the same
/// [`HypervolumeError`] of each task's true front): after each of its first `iterations`
/// trials (pruned and failed ones count as tried), the error of the complete trials so far;
/// the task's whole front before the first. `objectives` are (metric, direction) as the run
/// resolved them. `None` unless every task has a history whose complete trials name their
/// rows (an Optuna study's).
pub fn study_hv_error(
    bench: &Benchmark,
    tasks: &[usize],
    objectives: &[(usize, Direction)],
    iterations: usize,
) -> Option<(String, Vec<Vec<f64>>)> {
    let name = bench.tasks.get(*tasks.first()?)?.history.as_ref()?.line_name();
    let curves = tasks
        .iter()
        .map(|&t| {
            let task = &bench.tasks[t];
            let history = task.history.as_ref()?;
            if !history.trials.iter().any(|trial| trial.row.is_some()) {
                return None;
            }
            let columns: Vec<Vec<f64>> = objectives.iter().map(|&(m, d)| d.losses(&task.metrics[m])).collect();
            let mut tracker = HypervolumeError::new(&columns);
            let mut error = tracker.true_hypervolume();
            Some(
                history
                    .trials
                    .iter()
                    .take(iterations)
                    .map(|trial| {
                        if let Some(r) = trial.row.map(|r| r as usize).filter(|&r| r < task.len()) {
                            error = tracker.observe(&columns.iter().map(|c| c[r]).collect::<Vec<_>>());
                        }
                        error
                    })
                    .collect(),
            )
        })
        .collect::<Option<Vec<Vec<f64>>>>()?;
    Some((name, curves))
}

/// Best-so-far curve of each trace of `method` on `task`.
pub fn best_so_far_curves<'a>(traces: impl IntoIterator<Item = &'a Trace>, method: &str, task: &str) -> Vec<Vec<f64>> {
    traces.into_iter().filter(|t| t.method == method && t.task == task).map(|t| t.rows().iter().map(|r| r.best).collect()).collect()
}

/// Per-seed ADTM curves of one method: for each seed, the mean over the tasks run with that
/// seed of the DTM of the best-so-far value.
pub fn adtm_curves<'a>(
    traces: impl IntoIterator<Item = &'a Trace>,
    bench: &Benchmark,
    objective: usize,
    direction: Direction,
    method: &str,
) -> Vec<Vec<f64>> {
    let mut by_seed: BTreeMap<u64, Vec<Vec<f64>>> = BTreeMap::new();
    for t in traces.into_iter().filter(|t| t.method == method) {
        let Some(ti) = bench.task_index(&t.task) else {
            continue;
        };
        let (lo, hi) = bench.tasks[ti].metric_range(objective);
        by_seed.entry(t.seed).or_default().push(t.rows().iter().map(|r| dtm(r.best, lo, hi, direction)).collect());
    }
    by_seed.into_values().map(|per_task| band(&per_task).mean).collect()
}

/// Per-seed hypervolume-error curves of one method (multi-objective runs): for each seed, the
/// mean over the tasks run with that seed of the normalised hypervolume error (Fig. 7).
pub fn hv_error_curves<'a>(traces: impl IntoIterator<Item = &'a Trace>, method: &str) -> Vec<Vec<f64>> {
    let mut by_seed: BTreeMap<u64, Vec<Vec<f64>>> = BTreeMap::new();
    for t in traces.into_iter().filter(|t| t.method == method) {
        let curve: Option<Vec<f64>> = t.rows().iter().map(|r| r.hv_error).collect();
        if let Some(curve) = curve.filter(|c| !c.is_empty()) {
            by_seed.entry(t.seed).or_default().push(curve);
        }
    }
    by_seed.into_values().map(|per_task| band(&per_task).mean).collect()
}

/// Mean DTM curve of one method on one task, averaged over seeds (the paper's DTM_opt^j(t)).
pub fn mean_dtm_curve<'a>(
    traces: impl IntoIterator<Item = &'a Trace>,
    bench: &Benchmark,
    objective: usize,
    direction: Direction,
    method: &str,
    task: &str,
) -> Option<Vec<f64>> {
    let ti = bench.task_index(task)?;
    let (lo, hi) = bench.tasks[ti].metric_range(objective);
    let curves: Vec<Vec<f64>> = traces
        .into_iter()
        .filter(|t| t.method == method && t.task == task)
        .map(|t| t.rows().iter().map(|r| dtm(r.best, lo, hi, direction)).collect())
        .collect();
    (!curves.is_empty()).then(|| band(&curves).mean)
}

/// One point of the copula paper's Fig. 4: a task, the prior's RMSE on it and a method's
/// improvement over random search there.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorEffect {
    /// Task name.
    pub task: String,
    /// RMSE of the prior's mean on the task's warped values.
    pub rmse: f64,
    /// Improvement over RS (Table 2's per-task number).
    pub improvement: f64,
}

/// Fig. 4 for `method` (which must have a prior): its improvement over `baseline` (random
/// search) per task, sorted by the prior's RMSE on the task. Tasks without a baseline trace or
/// prior information are left out.
pub fn prior_effects(
    traces: &[Trace],
    bench: &Benchmark,
    objective: usize,
    direction: Direction,
    method: &str,
    baseline: &str,
) -> Vec<PriorEffect> {
    let mut out: Vec<PriorEffect> = bench
        .tasks
        .iter()
        .filter_map(|task| {
            let rmse = traces.iter().find(|t| t.method == method && t.task == task.name)?.prior_rmse()?;
            let rs = mean_dtm_curve(traces, bench, objective, direction, baseline, &task.name)?;
            let m = mean_dtm_curve(traces, bench, objective, direction, method, &task.name)?;
            Some(PriorEffect { task: task.name.clone(), rmse, improvement: improvement_over_rs(&rs, &m) })
        })
        .collect();
    out.sort_by(|a, b| a.rmse.total_cmp(&b.rmse));
    out
}

/// Improvement over random search on one task, Table 2 of the copula paper:
/// (1/T)·Σ_t (DTM_RS(t) − DTM_opt(t)) / DTM_RS(t), in (−∞, 1]. Iterations where random search
/// has already reached the optimum (DTM_RS = 0) are skipped, as the ratio is undefined there.
pub fn improvement_over_rs(dtm_rs: &[f64], dtm_opt: &[f64]) -> f64 {
    let terms: Vec<f64> = dtm_rs.iter().zip(dtm_opt).filter(|(rs, _)| **rs > 0.0).map(|(rs, opt)| (rs - opt) / rs).collect();
    if terms.is_empty() {
        0.0
    } else {
        terms.iter().sum::<f64>() / terms.len() as f64
    }
}

/// Average ranks (1 = best, ties share the mean rank) of methods over tasks, from a score per
/// (task, method) where higher is better.
pub fn average_ranks(scores: &[Vec<f64>]) -> Vec<f64> {
    let m = scores.first().map_or(0, Vec::len);
    let mut total = vec![0.0; m];
    for row in scores {
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        let mut i = 0;
        while i < m {
            let mut j = i;
            while j + 1 < m && row[order[j + 1]] == row[order[i]] {
                j += 1;
            }
            let rank = (i + j) as f64 / 2.0 + 1.0;
            for &k in &order[i..=j] {
                total[k] += rank;
            }
            i = j + 1;
        }
    }
    total.iter().map(|t| t / scores.len().max(1) as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_studys_own_run_is_a_best_so_far_over_its_trials() {
        let bytes = include_bytes!("../../../../tests/fixtures/studies/raytune-mlp-experiment.zip");
        let bench = crate::loaders::upload::load_file("e.zip", bytes, None).unwrap().benchmark;
        let trials = bench.tasks[0].history.as_ref().unwrap().trials.clone();
        let curve = study_best_so_far(&bench, 0, 0, Direction::Minimize, 1000).unwrap();
        assert_eq!(curve.len(), trials.len(), "one point per trial, stopped and failed ones too");
        let (lo, hi) = bench.tasks[0].metric_range(0);
        // Before the first complete trial: the worst value; then the running minimum of the
        // complete trials' values, ending at the task's best.
        let first = trials.iter().position(|t| t.value.is_some()).unwrap();
        assert!(curve[..first].iter().all(|&v| v == hi));
        assert!(curve.windows(2).all(|w| w[1] <= w[0]));
        assert_eq!(*curve.last().unwrap(), lo);
        let (name, adtm) = study_adtm(&bench, &[0], 0, Direction::Minimize, 10).unwrap();
        assert_eq!(name, "Ray Tune's own run");
        assert_eq!(adtm[0].len(), 10, "cut at the run's iterations");
        assert!(adtm[0].iter().all(|d| (0.0..=1.0).contains(d)));
    }

    #[test]
    fn the_studys_own_run_of_two_objectives_is_its_hypervolume_error_over_its_trials() {
        let bytes = include_bytes!("../../../../tests/fixtures/studies/optuna-two-objective.db");
        let bench = crate::loaders::upload::load_file("two.db", bytes, None).unwrap().benchmark;
        let objectives = [(0, Direction::Minimize), (1, Direction::Minimize)];
        let (name, curves) = study_hv_error(&bench, &[0], &objectives, 1000).unwrap();
        assert_eq!(name, "Optuna's own run");
        let trials = &bench.tasks[0].history.as_ref().unwrap().trials;
        assert_eq!(curves[0].len(), trials.len());
        // Every complete trial names its row, and the rows are the task's configurations.
        assert_eq!(trials.iter().filter_map(|t| t.row).collect::<Vec<_>>(), (0..bench.tasks[0].len() as u32).collect::<Vec<_>>());
        // Never rising, in [0, 1], and zero once every configuration of the task is in: its
        // trials are the task, so the run ends on the true front.
        assert!(curves[0].windows(2).all(|w| w[1] <= w[0]), "{:?}", curves[0]);
        assert!(curves[0].iter().all(|e| (0.0..=1.0).contains(e)));
        assert_eq!(*curves[0].last().unwrap(), 0.0);
        assert!(curves[0][0] > 0.0);
        // Cut at the run's iterations; a single-objective study's history draws no such line
        // without rows (Ray Tune's), and one objective's task says nothing here.
        assert_eq!(study_hv_error(&bench, &[0], &objectives, 10).unwrap().1[0].len(), 10);
        let ray = crate::loaders::upload::load_file(
            "e.zip",
            include_bytes!("../../../../tests/fixtures/studies/raytune-mlp-experiment.zip"),
            None,
        )
        .unwrap()
        .benchmark;
        assert!(study_hv_error(&ray, &[0], &[(0, Direction::Minimize)], 10).is_none());
    }

    /// Bad input as Optuna writes it (`make.py edge`): a two-objective study whose loss was
    /// NaN (failed) or infinite, and a study with one complete trial, each set up as a fresh
    /// choice of data, run, and its own line drawn — a sentence for what is left out, nothing
    /// stuck.
    #[test]
    fn bad_studies_set_up_run_and_draw_their_own_line() {
        use crate::setup::SetupMessage;
        use crate::spec::{DataRef, ExperimentSpec};
        use crate::transfer::PriorCache;
        let run = |file: &str, bytes: &[u8]| {
            let loaded = crate::loaders::upload::load_file(file, bytes, None).unwrap();
            let mut spec = ExperimentSpec { seeds: 1, ..Default::default() };
            let messages = spec.change_data(DataRef::Bundled(file.into()), &loaded.benchmark, false, None);
            let resolved = spec.resolve(&loaded.benchmark).unwrap_or_else(|e| panic!("{file}: {e}"));
            let traces: Vec<crate::trace::Trace> = resolved
                .jobs()
                .iter()
                .map(|j| crate::runner::run_job(&loaded.benchmark, &resolved, j, &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap())
                .collect();
            (loaded, messages.iter().map(SetupMessage::text).map(str::to_string).collect::<Vec<_>>(), resolved, traces)
        };
        // Two objectives (loss minimised, throughput maximised), 16 trials: 3 failed on a NaN
        // loss, one complete with an infinite loss, which no front can hold.
        let (loaded, messages, resolved, traces) =
            run("f.log", include_bytes!("../../../../tests/fixtures/studies/optuna-two-objective-failed-journal.log"));
        let bench = &loaded.benchmark;
        assert_eq!(bench.tasks[0].len(), 12);
        assert_eq!(bench.metrics.iter().map(|m| m.direction).collect::<Vec<_>>(), [Direction::Minimize, Direction::Maximize]);
        let notes = loaded.notes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" ");
        assert!(notes.contains("16 trials (13 complete, 3 failed), 1 complete trial with a value that is not finite left out"), "{notes}");
        assert!(messages.iter().any(|m| m.contains("set up with several objectives and RS, GP+MO, GCP+MO")), "{messages:?}");
        assert!(messages.iter().any(|m| m == "f has 12 configurations: 12 iterations per run"), "{messages:?}");
        assert_eq!(traces.len(), 3);
        for t in &traces {
            let errors = hv_error_curves([t], &t.method);
            assert_eq!(errors[0].len(), 12, "{}", t.method);
            assert_eq!(*errors[0].last().unwrap(), 0.0, "{}: every configuration evaluated", t.method);
        }
        let rows: Vec<Option<u32>> = bench.tasks[0].history.as_ref().unwrap().trials.iter().map(|t| t.row).collect();
        assert_eq!(rows.iter().filter(|r| r.is_some()).count(), 12, "the failed and the infinite trials name no row: {rows:?}");
        let (_, own) = study_hv_error(bench, &resolved.tasks, &resolved.objectives, 16).unwrap();
        assert_eq!(own[0].len(), 16);
        assert_eq!(*own[0].last().unwrap(), 0.0, "its complete trials are the task");
        assert!(own[0].windows(2).all(|w| w[1] <= w[0]));
        // One complete trial (and one failed): one iteration, every method's one pick.
        let (loaded, messages, resolved, traces) =
            run("one.log", include_bytes!("../../../../tests/fixtures/studies/optuna-one-complete-journal.log"));
        assert_eq!(loaded.benchmark.tasks[0].len(), 1);
        assert!(messages.iter().any(|m| m == "one has 1 configuration: 1 iteration per run"), "{messages:?}");
        assert_eq!(resolved.spec.iterations, 1);
        assert!(traces.iter().all(|t| t.rows().len() == 1));
        let (_, adtm) = study_adtm(&loaded.benchmark, &resolved.tasks, 0, Direction::Minimize, 1).unwrap();
        assert_eq!(adtm, [[0.0]]);
    }

    #[test]
    fn dtm_is_zero_at_optimum_and_one_at_worst() {
        assert_eq!(dtm(1.0, 1.0, 3.0, Direction::Minimize), 0.0);
        assert_eq!(dtm(3.0, 1.0, 3.0, Direction::Minimize), 1.0);
        assert_eq!(dtm(2.5, 1.0, 3.0, Direction::Minimize), 0.75);
        assert_eq!(dtm(3.0, 1.0, 3.0, Direction::Maximize), 0.0);
        assert_eq!(dtm(2.0, 2.0, 2.0, Direction::Minimize), 0.0);
    }

    #[test]
    fn improvement_and_ranks_by_hand() {
        // (0.5−0.25)/0.5 = 0.5 and (0.2−0.3)/0.2 = −0.5 → mean 0; the DTM_RS = 0 step is skipped.
        assert!(improvement_over_rs(&[0.5, 0.2, 0.0], &[0.25, 0.3, 0.0]).abs() < 1e-15);
        assert!((improvement_over_rs(&[0.4], &[0.1]) - 0.75).abs() < 1e-15);
        assert_eq!(average_ranks(&[vec![0.3, 0.1, 0.3], vec![0.0, 0.5, -1.0]]), vec![1.75, 2.0, 2.25]);
    }

    #[test]
    fn a_band_within_bounds_keeps_its_mean_and_clamps_its_edges() {
        let b = band(&[vec![0.0, 0.5], vec![0.1, 0.9], vec![0.0, 1.0]]).within(0.0, 1.0);
        assert!(b.lower.iter().chain(&b.upper).all(|v| (0.0..=1.0).contains(v)));
        assert_eq!(b.lower[0], 0.0, "the normal band would reach below 0 here");
        assert!((b.mean[0] - 0.1 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn band_matches_hand_computation() {
        let b = band(&[vec![1.0, 2.0], vec![3.0, 4.0, 9.0]]);
        assert_eq!(b.mean, vec![2.0, 3.0]);
        // sd = sqrt(2), half = 1.96 * sqrt(2)/sqrt(2) = 1.96
        assert!((b.upper[0] - 3.96).abs() < 1e-12 && (b.lower[1] - 1.04).abs() < 1e-12);
    }
}
