//! Aggregates many multi-fidelity runs into what the DyHPO paper reports: mean regret over
//! budget (Fig. 3) and over wall-clock (Fig. 5), average rank over time, critical-difference
//! analyses at 50% and 100% of the budget (Fig. 4) and the Fig. 6 efficiency curves.
//!
//! Per task, each method's regret curve is first averaged over seeds; ranks, CD statistics and
//! mean curves are then taken over tasks (as the paper aggregates datasets).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::race_analysis::{good_after_bad, precision_and_mean_regret, reached, regret_curve, GroundTruth};
use crate::axis::count;
use crate::benchmark::{Direction, StudyHistory};
use crate::error::{EngineError, Result};
use crate::method_entry::RunKind;
use crate::race::{RaceRow, RaceTrace};
use crate::registry;
use crate::results::metrics::{average_ranks, band, nan_as_null, Band};
use crate::results::significance::{critical_difference, CriticalDifference};
use crate::results::verdict::{method_runs, verdict, Run, Verdict};
use crate::spec::RegretScale;

/// What the summary needs of a task: its raced curves and ground truth.
#[derive(Debug, Clone)]
pub struct TaskCurves {
    /// Metric per configuration and budget step.
    pub values: Vec<Vec<f64>>,
    /// Ground truth of the task.
    pub truth: GroundTruth,
    /// The study as its tool ran it, when the data records one.
    pub history: Option<StudyHistory>,
}

/// The study's own run, drawn beside the methods that replay its complete trials: its
/// regret after each budget unit as it spent them (pruned steps too), mean over tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyLine {
    /// The line's name: "Optuna's own run".
    pub label: String,
    /// Its regret after each budget unit, mean and 95% band over tasks.
    pub regret: Band,
    /// What the methods beside it replay, in words ([`replayed_in_words`]); the chart says it
    /// with the line. Empty in a summary written before it was kept.
    #[serde(default)]
    pub replayed: String,
}

/// What the methods raced against studies replay, in words: only the trials that finished
/// (a tabular race cannot train a pruned or stopped trial further than it went), "the methods
/// replay only the 32 of its 80 trials that finished".
pub fn replayed_in_words(histories: &[&StudyHistory]) -> String {
    let all: usize = histories.iter().map(|h| h.trials.len()).sum();
    let finished: usize = histories.iter().map(|h| h.trials.iter().filter(|t| t.value.is_some()).count()).sum();
    let whose = if histories.len() == 1 { "its".to_string() } else { format!("the {} studies'", histories.len()) };
    if finished == all {
        format!("the methods replay {whose} {}, all finished", count(all, "trial"))
    } else {
        format!("the methods replay only the {finished} of {whose} {all} trials that finished")
    }
}

/// The regret of a study's best complete value after each of `total` budget units, the
/// units counted as the study spent them; before its first complete trial, the regret of
/// the worst configuration (as a method's before its first observation).
pub fn study_regret_curve(history: &StudyHistory, truth: &GroundTruth, total: u64) -> Vec<f64> {
    let direction = if truth.sign > 0.0 { Direction::Minimize } else { Direction::Maximize };
    let points = history.best_so_far(direction);
    let mut current = truth.regret(truth.worst);
    let mut next = 0;
    (1..=total)
        .map(|u| {
            while next < points.len() && points[next].0 <= u {
                current = truth.regret(points[next].1);
                next += 1;
            }
            current
        })
        .collect()
}

/// A CD analysis with method names, ready to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CdSummary {
    /// Fraction of the budget it was taken at.
    pub fraction: f64,
    /// Average rank per method.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub ranks: Vec<f64>,
    /// Friedman's p-value.
    #[serde(deserialize_with = "nan_as_null::number")]
    pub friedman_p: f64,
    /// Pairs (i, j) that are *not* significantly different (the diagram's bars join them).
    pub not_different: Vec<(usize, usize)>,
}

impl CdSummary {
    /// Method indices from the best average rank to the worst.
    pub fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.ranks.len()).collect();
        order.sort_by(|&a, &b| self.ranks[a].total_cmp(&self.ranks[b]));
        order
    }

    /// The diagram's bars, as ranges `(i, j)` of positions in [`Self::order`]: maximal runs
    /// whose every pair is not significantly different, dropping runs inside another.
    pub fn cliques(&self) -> Vec<(usize, usize)> {
        let order = self.order();
        let same = |a: usize, b: usize| self.not_different.contains(&(a.min(b), a.max(b)));
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for i in 0..order.len() {
            let mut j = i;
            while j + 1 < order.len() && (i..=j).all(|k| same(order[k], order[j + 1])) {
                j += 1;
            }
            if j > i && !groups.iter().any(|&(a, b)| a <= i && j <= b) {
                groups.push((i, j));
            }
        }
        groups
    }

    fn new(fraction: f64, cd: CriticalDifference) -> Self {
        let k = cd.ranks.len();
        let not_different = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).filter(|&(i, j)| !cd.different[i][j]).collect();
        CdSummary { fraction, ranks: cd.ranks, friedman_p: cd.friedman.1, not_different }
    }
}

/// Everything the race views and the replication report show. Written as
/// `race-summary.json` by `hpo race` / `hpo merge` and the page; [`RaceSummary::from_json`]
/// reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceSummary {
    /// Methods, in the order of every per-method vector below.
    pub methods: Vec<String>,
    /// Tasks that every method ran on.
    pub tasks: Vec<String>,
    /// Budget units per run.
    pub total: u64,
    /// How each task's regret was scaled before the mean over tasks.
    pub regret_scale: RegretScale,
    /// Per method: mean regret over tasks after each budget unit, with a 95% band over tasks.
    pub regret: Vec<Band>,
    /// Per method: average rank (1 = best) after each budget unit.
    #[serde(deserialize_with = "nan_as_null::lists")]
    pub ranks: Vec<Vec<f64>>,
    /// CD analyses at 50% and 100% of the budget.
    pub cd: Vec<CdSummary>,
    /// Per method, per budget step: mean precision of the top 1% (Fig. 6 left).
    #[serde(deserialize_with = "nan_as_null::lists")]
    pub precision: Vec<Vec<f64>>,
    /// Per method, per budget step: mean regret of the configurations trained that far (Fig. 6 middle).
    #[serde(deserialize_with = "nan_as_null::lists")]
    pub selected_regret: Vec<Vec<f64>>,
    /// Per method, per budget step: share of good configurations that were bad earlier (Fig. 6 right).
    #[serde(deserialize_with = "nan_as_null::lists")]
    pub good_after_bad: Vec<Vec<f64>>,
    /// The same share over all configurations fully trained (the paper's "Baseline").
    #[serde(deserialize_with = "nan_as_null::list")]
    pub good_after_bad_baseline: Vec<f64>,
    /// Per method: mean over tasks and seeds of the optimizer's own seconds in a run.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub optimizer_seconds: Vec<f64>,
    /// Wall-clock grid (seconds): the benchmark's cost plus the optimizer's own time.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub wall_clock: Vec<f64>,
    /// Per method: mean regret over tasks at each point of [`Self::wall_clock`] (Fig. 5).
    pub regret_by_time: Vec<Band>,
    /// The study's own run, when every task's data records one (Optuna, Ray Tune, Syne Tune).
    #[serde(default)]
    pub study: Option<StudyLine>,
    /// The verdict per run, with its evidence and sentence; absent in a summary written
    /// before it was kept.
    #[serde(default)]
    pub verdict: Option<Verdict>,
}

/// The largest file [`RaceSummary::from_json`] reads: a 1,000-step race of six methods is
/// about 0.5 MiB, so this is 30 times that, and the page parses it in a fraction of a second.
pub const MAX_SUMMARY_BYTES: usize = 16 << 20;
/// The most methods and points per curve a summary may hold (the charts draw every point).
const MAX_METHODS: usize = 64;
const MAX_POINTS: usize = 1_000_000;

impl RaceSummary {
    /// Reads a `race-summary.json` named `file` and checks that its parts fit together, so
    /// that the charts drawn from it never index past a list: every per-method list has one
    /// entry per method, every band three equally long curves, every CD analysis a rank per
    /// method in [1, methods] and pairs of existing methods.
    pub fn from_json(file: &str, bytes: &[u8]) -> Result<RaceSummary> {
        let bad = |message: String| EngineError::Parse { file: file.into(), row: None, column: None, message };
        if bytes.len() > MAX_SUMMARY_BYTES {
            return Err(bad(format!("{} MiB is more than a race summary's {} MiB", bytes.len() >> 20, MAX_SUMMARY_BYTES >> 20)));
        }
        let s: RaceSummary = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("not a race summary (race-summary.json from a race in this page, `hpo race` or `hpo merge`): {e}")))?;
        s.check().map_err(bad)?;
        Ok(s)
    }

    /// Decades the drawn regret spans: log10 of its largest over its smallest positive mean
    /// (methods and the study's line); 0 without two positive values.
    pub fn regret_decades(&self) -> f64 {
        let study = self.study.iter().map(|s| &s.regret);
        let positive = self.regret.iter().chain(study).flat_map(|b| b.mean.iter().copied()).filter(|v| *v > 0.0 && v.is_finite());
        let (lo, hi) = positive.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if hi > lo {
            libm::log10(hi / lo)
        } else {
            0.0
        }
    }

    /// Whether the regret chart opens on a log axis: when the regret spans more than 2
    /// decades, a linear axis is set by the first units and every later line looks flat.
    pub fn log_regret_by_default(&self) -> bool {
        self.regret_decades() > 2.0
    }

    /// The first part that does not fit the others, in words.
    fn check(&self) -> std::result::Result<(), String> {
        let m = self.methods.len();
        if m == 0 || m > MAX_METHODS {
            return Err(format!("it names {m} methods (1 to {MAX_METHODS} expected)"));
        }
        if self.tasks.is_empty() {
            return Err("it names no task".into());
        }
        let per_method = [
            ("regret", self.regret.len()),
            ("ranks", self.ranks.len()),
            ("precision", self.precision.len()),
            ("selected_regret", self.selected_regret.len()),
            ("good_after_bad", self.good_after_bad.len()),
            ("optimizer_seconds", self.optimizer_seconds.len()),
            ("regret_by_time", self.regret_by_time.len()),
        ];
        if let Some((name, n)) = per_method.iter().find(|(_, n)| *n != m) {
            return Err(format!("'{name}' has {n} entries for {m} methods"));
        }
        for (name, bands) in [("regret", &self.regret), ("regret_by_time", &self.regret_by_time)] {
            for (k, b) in bands.iter().enumerate() {
                if b.lower.len() != b.mean.len() || b.upper.len() != b.mean.len() || b.mean.len() > MAX_POINTS {
                    return Err(format!(
                        "'{name}' of {}: mean, lower and upper differ in length or exceed {MAX_POINTS} points",
                        self.methods[k]
                    ));
                }
            }
        }
        if let Some(study) = &self.study {
            let b = &study.regret;
            if b.lower.len() != b.mean.len() || b.upper.len() != b.mean.len() || b.mean.len() > MAX_POINTS {
                return Err(format!("the study's regret: mean, lower and upper differ in length or exceed {MAX_POINTS} points"));
            }
        }
        if let Some(v) = &self.verdict {
            let rows = m + usize::from(self.study.is_some());
            if v.rows.len() != rows || v.seed_bands.len() != m {
                return Err(format!("the verdict has {} rows and {} seed bands for {m} methods", v.rows.len(), v.seed_bands.len()));
            }
            if v.seed_bands
                .iter()
                .any(|b| b.lower.len() != b.median.len() || b.upper.len() != b.median.len() || b.median.len() > MAX_POINTS)
            {
                return Err(format!("a seed band's median, lower and upper differ in length or exceed {MAX_POINTS} points"));
            }
        }
        if let Some(b) = self.regret_by_time.iter().find(|b| b.mean.len() != self.wall_clock.len()) {
            return Err(format!("'regret_by_time' has {} points on a wall-clock grid of {}", b.mean.len(), self.wall_clock.len()));
        }
        let curves = [&self.ranks, &self.precision, &self.selected_regret, &self.good_after_bad];
        if curves.iter().flat_map(|c| c.iter()).any(|c| c.len() > MAX_POINTS) || self.good_after_bad_baseline.len() > MAX_POINTS {
            return Err(format!("a curve has more than {MAX_POINTS} points"));
        }
        for cd in &self.cd {
            let ranked = |r: &f64| r.is_finite() && (1.0..=m as f64).contains(r);
            if cd.ranks.len() != m || !cd.ranks.iter().all(ranked) {
                return Err(format!("the CD analysis at {} % needs a rank in [1, {m}] per method", cd.fraction * 100.0));
            }
            if let Some(&(i, j)) = cd.not_different.iter().find(|&&(i, j)| i >= j || j >= m) {
                return Err(format!("the CD analysis pairs methods {i} and {j}, but there are {m}"));
            }
            if !(cd.fraction > 0.0 && cd.fraction <= 1.0) {
                return Err(format!("a CD analysis is at {} of the budget (in (0, 1] expected)", cd.fraction));
            }
        }
        Ok(())
    }
}

/// Points of the wall-clock grid.
const WALL_CLOCK_POINTS: usize = 101;

/// Wall-clock seconds at which each row was served: the benchmark's cost so far plus the
/// optimizer's own seconds so far (the overhead the paper's Fig. 5 includes).
fn row_times(rows: &[RaceRow]) -> Vec<f64> {
    let mut overhead = 0.0;
    rows.iter()
        .map(|r| {
            overhead += r.optimizer_seconds;
            r.cost + overhead
        })
        .collect()
}

/// Regret of the incumbent at each time of `grid` (the initial regret before the first row).
fn regret_at_times(rows: &[RaceRow], truth: &GroundTruth, grid: &[f64]) -> Vec<f64> {
    let times = row_times(rows);
    let mut current = truth.regret(truth.worst);
    let mut next = 0;
    grid.iter()
        .map(|&tau| {
            while next < rows.len() && times[next] <= tau {
                current = truth.regret(rows[next].best);
                next += 1;
            }
            current
        })
        .collect()
}

/// Mean of the finite values (NaN if none).
fn finite_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = values.filter(|v| v.is_finite()).fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

/// Element-wise [`finite_mean`] of equally long curves.
fn mean_curve(curves: &[Vec<f64>]) -> Vec<f64> {
    let len = curves.iter().map(Vec::len).min().unwrap_or(0);
    (0..len).map(|t| finite_mean(curves.iter().map(|c| c[t]))).collect()
}

fn runs<'a>(traces: &'a [RaceTrace], m: &'a str, t: &'a str) -> impl Iterator<Item = &'a RaceTrace> + 'a {
    traces.iter().filter(move |r| r.method == m && r.task == t)
}

/// Summarises `traces` of `methods` over the tasks in `tasks` (by name), whose ground truths
/// scale regret as `regret_scale` says.
pub fn summarize(
    traces: &[RaceTrace],
    methods: &[String],
    tasks: &BTreeMap<String, TaskCurves>,
    total: u64,
    regret_scale: RegretScale,
) -> RaceSummary {
    let task_names: Vec<String> =
        tasks.keys().filter(|t| methods.iter().all(|m| traces.iter().any(|r| &r.method == m && &r.task == *t))).cloned().collect();
    // per_task[t][m]: regret curve averaged over seeds.
    let per_task: Vec<Vec<Vec<f64>>> = task_names
        .iter()
        .map(|t| {
            let truth = &tasks[t].truth;
            methods
                .iter()
                .map(|m| mean_curve(&runs(traces, m, t).map(|r| regret_curve(&r.rows, truth, total)).collect::<Vec<_>>()))
                .collect()
        })
        .collect();
    let regret = (0..methods.len()).map(|k| band(&per_task.iter().map(|row| row[k].clone()).collect::<Vec<_>>())).collect();
    let ranks_at = |u: usize| -> Vec<f64> {
        let scores: Vec<Vec<f64>> = per_task.iter().map(|row| row.iter().map(|c| -c[u]).collect()).collect();
        average_ranks(&scores)
    };
    let by_time: Vec<Vec<f64>> = (0..total as usize).map(ranks_at).collect();
    let ranks = (0..methods.len()).map(|k| by_time.iter().map(|r| r[k]).collect()).collect();
    let cd = [0.5, 1.0]
        .iter()
        .map(|&f| {
            let u = ((total as f64 * f).round() as usize).clamp(1, total as usize) - 1;
            let losses: Vec<Vec<f64>> = per_task.iter().map(|row| row.iter().map(|c| c[u]).collect()).collect();
            CdSummary::new(f, critical_difference(&losses, 0.05))
        })
        .collect();
    let max_budget = task_names.iter().map(|t| tasks[t].values.iter().map(Vec::len).min().unwrap_or(0)).min().unwrap_or(0) as u32;
    let mut precision = Vec::new();
    let mut selected_regret = Vec::new();
    let mut good = Vec::new();
    let mut seconds = Vec::new();
    for m in methods {
        let (mut p, mut s, mut g, mut secs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for t in &task_names {
            let tc = &tasks[t];
            for r in runs(traces, m, t) {
                let (pr, sr) = precision_and_mean_regret(&r.rows, &tc.truth, max_budget);
                p.push(pr);
                s.push(sr);
                g.push(good_after_bad(&tc.values, &reached(&r.rows, tc.values.len()), tc.truth.sign, max_budget));
                secs.push(r.rows.iter().map(|row| row.optimizer_seconds).sum::<f64>());
            }
        }
        precision.push(mean_curve(&p));
        selected_regret.push(mean_curve(&s));
        good.push(mean_curve(&g));
        seconds.push(finite_mean(secs.into_iter()));
    }
    let baseline: Vec<Vec<f64>> = task_names
        .iter()
        .map(|t| {
            let tc = &tasks[t];
            good_after_bad(&tc.values, &vec![max_budget; tc.values.len()], tc.truth.sign, max_budget)
        })
        .collect();
    let end =
        traces.iter().filter(|r| task_names.contains(&r.task)).filter_map(|r| row_times(&r.rows).last().copied()).fold(0.0f64, f64::max);
    let wall_clock: Vec<f64> = (0..WALL_CLOCK_POINTS).map(|i| end * i as f64 / (WALL_CLOCK_POINTS - 1) as f64).collect();
    let regret_by_time = methods
        .iter()
        .map(|m| {
            let per_task: Vec<Vec<f64>> = task_names
                .iter()
                .map(|t| {
                    let truth = &tasks[t].truth;
                    mean_curve(&runs(traces, m, t).map(|r| regret_at_times(&r.rows, truth, &wall_clock)).collect::<Vec<_>>())
                })
                .collect();
            band(&per_task)
        })
        .collect();
    // The study's own line, when every task has its history (one tool ran them all).
    let histories: Vec<(&StudyHistory, &GroundTruth)> =
        task_names.iter().filter_map(|t| tasks[t].history.as_ref().map(|h| (h, &tasks[t].truth))).collect();
    let study = (!histories.is_empty() && histories.len() == task_names.len()).then(|| StudyLine {
        label: histories[0].0.line_name(),
        regret: band(&histories.iter().map(|(h, truth)| study_regret_curve(h, truth, total)).collect::<Vec<_>>()),
        replayed: replayed_in_words(&histories.iter().map(|(h, _)| *h).collect::<Vec<_>>()),
    });
    let truths: Vec<(&str, &GroundTruth)> = task_names.iter().map(|t| (t.as_str(), &tasks[t].truth)).collect();
    let verdict = (!truths.is_empty()).then(|| {
        let runs: Vec<Vec<Run>> = methods.iter().map(|m| method_runs(traces, m, &truths, total)).collect();
        let study_runs = study.as_ref().map(|line| {
            let own = task_names.iter().zip(&histories).map(|(t, (h, truth))| Run {
                task: t,
                seed: 0,
                regret: study_regret_curve(h, truth, total),
            });
            (line.label.as_str(), own.collect::<Vec<Run>>())
        });
        let best = match (study.is_some(), task_names.len()) {
            (true, 1) => "the study's best",
            (true, _) => "its study's best",
            (false, 1) => "the task's best",
            (false, _) => "its task's best",
        };
        verdict(methods, &runs, study_runs, registry::baseline(RunKind::Race).name, best)
    });
    RaceSummary {
        methods: methods.to_vec(),
        tasks: task_names,
        total,
        regret_scale,
        regret,
        ranks,
        cd,
        precision,
        selected_regret,
        good_after_bad: good,
        good_after_bad_baseline: mean_curve(&baseline),
        optimizer_seconds: seconds,
        wall_clock,
        regret_by_time,
        study,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fidelity::RaceRow;

    fn trace(method: &str, task: &str, seed: u64, best_after: &[(u64, f64)]) -> RaceTrace {
        let rows = best_after
            .iter()
            .map(|&(spent, best)| RaceRow { config: 0, budget: 1, value: best, best, spent, cost: spent as f64, optimizer_seconds: 0.5 })
            .collect();
        RaceTrace { method: method.into(), task: task.into(), seed, rows }
    }

    /// A summary of two methods on two tasks, with NaN where Fig. 6 has no value yet.
    fn small_summary() -> RaceSummary {
        let traces = vec![
            trace("A", "t1", 0, &[(1, 0.5), (2, 0.8), (3, 0.9)]),
            trace("B", "t1", 0, &[(1, 0.4), (2, 0.6), (3, 0.7)]),
            trace("A", "t2", 0, &[(1, 0.3), (2, 0.9), (3, 0.95)]),
            trace("B", "t2", 0, &[(1, 0.2), (2, 0.5), (3, 0.6)]),
        ];
        let task = || TaskCurves {
            values: vec![vec![0.5, 0.8, 0.9], vec![0.4, 0.6, 0.7]],
            truth: GroundTruth::new(&[vec![0.5, 0.8, 0.9], vec![0.4, 0.6, 0.7]], 1.0),
            history: None,
        };
        let tasks = BTreeMap::from([("t1".to_string(), task()), ("t2".to_string(), task())]);
        let mut s = summarize(&traces, &["A".into(), "B".into()], &tasks, 3, RegretScale::Raw);
        s.good_after_bad[0][0] = f64::NAN;
        s.cd[0].friedman_p = f64::NAN;
        s
    }

    #[test]
    fn a_written_summary_reads_back_with_its_nans() {
        let s = small_summary();
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("null"), "NaN is written as null");
        let back = RaceSummary::from_json("race-summary.json", json.as_bytes()).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert!(back.good_after_bad[0][0].is_nan() && back.cd[0].friedman_p.is_nan());
        assert_eq!(back.methods, s.methods);
        assert_eq!(back.regret, s.regret);
        // A race on one task (the page then shows no CD diagram) reads back too.
        let traces = vec![trace("A", "t1", 0, &[(1, 0.5), (2, 0.4)]), trace("B", "t1", 0, &[(1, 0.6), (2, 0.4)])];
        let values = vec![vec![0.5, 0.4], vec![0.6, 0.4]];
        let tasks = BTreeMap::from([("t1".to_string(), TaskCurves { truth: GroundTruth::new(&values, 1.0), values, history: None })]);
        let one = serde_json::to_string(&summarize(&traces, &["A".into(), "B".into()], &tasks, 2, RegretScale::Raw)).unwrap();
        let back = RaceSummary::from_json("one.json", one.as_bytes()).unwrap_or_else(|e| panic!("{e}: {one}"));
        assert_eq!(serde_json::to_string(&back).unwrap(), one);
    }

    #[test]
    fn a_summary_whose_parts_do_not_fit_is_refused_with_what_does_not_fit() {
        let json = |s: &RaceSummary| serde_json::to_vec(s).unwrap();
        let refused = |s: RaceSummary, words: &str| {
            let e = RaceSummary::from_json("r.json", &json(&s)).unwrap_err().to_string();
            assert!(e.starts_with("r.json") && e.contains(words), "{e}");
        };
        let mut s = small_summary();
        s.ranks.pop();
        refused(s, "'ranks' has 1 entries for 2 methods");
        let mut s = small_summary();
        s.regret[1].upper.pop();
        refused(s, "'regret' of B");
        let mut s = small_summary();
        s.wall_clock.pop();
        refused(s, "wall-clock grid");
        let mut s = small_summary();
        s.cd[1].ranks[0] = 7.0;
        refused(s, "CD analysis at 100 %");
        let mut s = small_summary();
        s.cd[0].not_different = vec![(0, 2)];
        refused(s, "pairs methods 0 and 2");
        let mut s = small_summary();
        s.methods.clear();
        refused(s, "0 methods");
        for text in ["", "{", "[1, 2]", "{\"methods\": 3}", "\u{0}"] {
            let e = RaceSummary::from_json("r.json", text.as_bytes()).unwrap_err().to_string();
            assert!(e.contains("not a race summary"), "{text}: {e}");
        }
        let huge = vec![b' '; MAX_SUMMARY_BYTES + 1];
        assert!(RaceSummary::from_json("r.json", &huge).unwrap_err().to_string().contains("MiB"));
    }

    #[test]
    fn cd_bars_are_maximal_runs_of_insignificant_pairs() {
        let cd = |ranks: Vec<f64>, nd: Vec<(usize, usize)>| CdSummary { fraction: 1.0, ranks, friedman_p: 0.01, not_different: nd };
        // Rank order 0,1,2,3: 0~1, 1~2, 0≁2, 2~3, 1≁3 → bars {0,1}, {1,2}, {2,3}.
        let c = cd(vec![1.0, 2.0, 3.0, 4.0], vec![(0, 1), (1, 2), (2, 3)]);
        assert_eq!(c.cliques(), vec![(0, 1), (1, 2), (2, 3)]);
        // All alike, in rank order 2, 0, 1: one bar over all positions.
        let c = cd(vec![2.0, 3.0, 1.0], vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(c.order(), vec![2, 0, 1]);
        assert_eq!(c.cliques(), vec![(0, 2)]);
        // 0~1 and 1~2 but not 0~2, ranks 2 < 1 < 0 order: positions of 2,1,0 → two bars.
        let c = cd(vec![3.0, 2.0, 1.0], vec![(0, 1), (1, 2)]);
        assert_eq!(c.cliques(), vec![(0, 1), (1, 2)]);
        // All different: no bar.
        assert!(cd(vec![1.0, 2.0, 3.0], vec![]).cliques().is_empty());
    }

    #[test]
    fn regret_means_over_seeds_then_tasks_and_ranks_follow() {
        let values = vec![vec![1.0], vec![0.0]];
        let tasks: BTreeMap<String, TaskCurves> = ["a", "b"]
            .iter()
            .map(|t| (t.to_string(), TaskCurves { values: values.clone(), truth: GroundTruth::new(&values, 1.0), history: None }))
            .collect();
        let traces = vec![
            trace("good", "a", 0, &[(1, 0.5), (2, 0.0)]),
            trace("good", "a", 1, &[(1, 0.0)]),
            trace("good", "b", 0, &[(2, 0.0)]),
            trace("bad", "a", 0, &[(1, 1.0)]),
            trace("bad", "b", 0, &[(1, 1.0)]),
        ];
        let methods = vec!["good".to_string(), "bad".to_string()];
        let s = summarize(&traces, &methods, &tasks, 2, RegretScale::Raw);
        // good: task a seeds (0.5, 0.0) → 0.25 then 0; task b 1.0 (nothing yet) then 0.
        assert_eq!(s.regret[0].mean, vec![0.625, 0.0]);
        assert_eq!(s.regret[1].mean, vec![1.0, 1.0]);
        assert_eq!(s.ranks[0], vec![1.25, 1.0]);
        assert_eq!(s.optimizer_seconds, vec![0.5 * 4.0 / 3.0, 0.5]);
        assert_eq!(s.cd.len(), 2);
        // Wall clock: cost = spent, plus 0.5 s of overhead per row. The longest run ("good"
        // on a, seed 0) ends at 2 + 1.0 s; at t = 0 nothing is served yet (regret 1).
        assert_eq!(s.wall_clock.len(), WALL_CLOCK_POINTS);
        assert!((s.wall_clock.last().unwrap() - 3.0).abs() < 1e-12);
        assert_eq!(s.regret_by_time[1].mean[0], 1.0);
        assert_eq!(*s.regret_by_time[0].mean.last().unwrap(), 0.0);
        // At t = 1.5 s both seeds on a have served their first row: a = (0.5 + 0.0) / 2; b's
        // first row comes at 2.5 s: 1.0. Mean over tasks 0.625.
        let i = s.wall_clock.iter().position(|&t| (t - 1.5).abs() < 1e-9).unwrap();
        assert_eq!(s.regret_by_time[0].mean[i], 0.625);
        assert_eq!(s.regret_by_time[0].mean[i - 1], 1.0);
    }

    #[test]
    fn the_studys_line_spends_budget_as_the_study_did() {
        use crate::benchmark::{RanTrial, StudyHistory};
        // Curves' best values 0.4 and 0.2 (optimum 0.2, worst 0.4). The study ran a complete
        // trial of 2 steps ending at 0.4, a pruned one of 1 step, then a complete one at 0.2.
        let values = vec![vec![0.5, 0.4], vec![0.3, 0.2]];
        let history = StudyHistory {
            tool: "Optuna".into(),
            trials: vec![
                RanTrial { steps: 2, value: Some(0.4), row: None },
                RanTrial { steps: 1, value: None, row: None },
                RanTrial { steps: 2, value: Some(0.2), row: None },
            ],
        };
        let truth = GroundTruth::new(&values, 1.0);
        // Units 1: nothing complete yet (the worst's regret, 0.2); 2..4: 0.4's regret; 5: 0.
        let curve = study_regret_curve(&history, &truth, 6);
        let expected = [0.2, 0.2, 0.2, 0.2, 0.0, 0.0];
        assert!(curve.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-12), "{curve:?}");
        let tasks = BTreeMap::from([("t".to_string(), TaskCurves { values: values.clone(), truth, history: Some(history) })]);
        let row = |spent: u64, best: f64| RaceRow { config: 0, budget: 1, value: best, best, spent, cost: 0.0, optimizer_seconds: 0.0 };
        let traces = vec![RaceTrace { method: "A".into(), task: "t".into(), seed: 0, rows: vec![row(1, 0.3), row(2, 0.2)] }];
        let s = summarize(&traces, &["A".into()], &tasks, 6, RegretScale::Raw);
        let study = s.study.as_ref().expect("a study line");
        assert_eq!(study.label, "Optuna's own run");
        assert_eq!(study.replayed, "the methods replay only the 2 of its 3 trials that finished");
        assert_eq!(study.regret.mean.len(), 6);
        assert!((study.regret.mean[4]).abs() < 1e-12 && (study.regret.mean[3] - 0.2).abs() < 1e-12);
        // It survives the file.
        let back = RaceSummary::from_json("s.json", serde_json::to_string(&s).unwrap().as_bytes()).unwrap();
        assert_eq!(back.study, s.study);
    }

    #[test]
    fn what_the_methods_replay_is_said_for_one_study_or_several() {
        use crate::benchmark::{RanTrial, StudyHistory};
        let study = |values: &[Option<f64>]| StudyHistory {
            tool: "Optuna".into(),
            trials: values.iter().map(|&value| RanTrial { steps: 3, value, row: None }).collect(),
        };
        let (pruned, whole) = (study(&[Some(0.1), None, None]), study(&[Some(0.2), Some(0.3)]));
        assert_eq!(replayed_in_words(&[&whole]), "the methods replay its 2 trials, all finished");
        assert_eq!(replayed_in_words(&[&pruned, &whole]), "the methods replay only the 3 of the 2 studies' 5 trials that finished");
    }
}
