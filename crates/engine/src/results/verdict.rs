//! A race's verdict with its evidence, per run rather than per task: a replayed study is one
//! task, so the means over tasks the DyHPO paper aggregates (ranks, Friedman) see one number a
//! method and, once every method has found the study's best, call them all tied. The runs
//! (task × seed) keep what the means lose: how many reached the best, after how much budget,
//! the area under each run's regret curve, and paired tests over seeds.
//!
//! Choices (docs/methods.md, "A race's verdict"): a run reaches the best when its regret is
//! 0 (its incumbent equals the task's best value); the area under a run's regret curve is its
//! mean regret over the budget units (so it is in the regret's units and rewards reaching the
//! best early); the paired test is Wilcoxon's signed-rank test on the runs' areas
//! ([`signed_rank_test`]), paired by task and seed against the baseline, and against the
//! study's own run (one run a task) by each run's difference from the study's area on its
//! task. The seed band is the runs' median and quartiles at each budget unit.

use serde::{Deserialize, Serialize};

use super::race_analysis::{regret_curve, GroundTruth};
use super::significance::{signed_rank_test, SignedRank};
use crate::axis::{count, significant};
use crate::race::RaceTrace;
use crate::results::metrics::nan_as_null;

/// One run's regret curve: which task and seed it is.
pub struct Run<'a> {
    /// The task's name.
    pub task: &'a str,
    /// The seed (0 for the study's own run).
    pub seed: u64,
    /// Regret after each budget unit.
    pub regret: Vec<f64>,
}

/// A paired test of one row against another, and which way the pairs went.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    /// Pairs compared.
    pub pairs: usize,
    /// Pairs where this row's area under the regret curve was smaller (better).
    pub better: usize,
    /// Pairs where it was larger (worse).
    pub worse: usize,
    /// The signed-rank test of the differences (this row minus the other).
    pub test: SignedRank,
}

/// One line of the verdict table: a method, or the study's own run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictRow {
    /// The method's name, or the study line's ("Optuna's own run").
    pub name: String,
    /// Runs summarised (tasks × seeds; the study's own run: one a task).
    pub runs: usize,
    /// The runs that reached the task's best: a seed, "task:seed" over several tasks, and the
    /// study's own run by its task's name.
    pub reached: Vec<String>,
    /// The median budget units to reach the best, over the runs that did (NaN if none).
    #[serde(deserialize_with = "nan_as_null::number")]
    pub to_best_median: f64,
    /// The fewest budget units to reach the best (NaN if no run did).
    #[serde(deserialize_with = "nan_as_null::number")]
    pub to_best_min: f64,
    /// The most budget units to reach the best (NaN if no run did).
    #[serde(deserialize_with = "nan_as_null::number")]
    pub to_best_max: f64,
    /// Mean over runs of the area under the regret curve (mean regret over the budget).
    #[serde(deserialize_with = "nan_as_null::number")]
    pub area: f64,
    /// Against the baseline (random search), when it ran and this row is not it.
    pub vs_baseline: Option<PairedTest>,
    /// Against the study's own run, when the data has one and this row is a method.
    pub vs_study: Option<PairedTest>,
}

/// The spread over seeds of a method's regret: median and quartiles at each budget unit.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SeedBand {
    /// Median over runs per budget unit.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub median: Vec<f64>,
    /// Lower quartile.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub lower: Vec<f64>,
    /// Upper quartile.
    #[serde(deserialize_with = "nan_as_null::list")]
    pub upper: Vec<f64>,
}

/// Everything the verdict shows: a row per method (the summary's order), then the study's own
/// run; a seed band per method; and the sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// A row per method, then the study's own run when the data has one.
    pub rows: Vec<VerdictRow>,
    /// The baseline's name, when it ran.
    pub baseline: Option<String>,
    /// Per method, in the summary's order.
    pub seed_bands: Vec<SeedBand>,
    /// Who won and how sure, from the numbers above.
    pub sentence: String,
}

impl Verdict {
    /// `verdict.csv`: a row per method, then one for the study's own run (`kind` says which);
    /// the runs reaching the best are listed in one cell, separated by spaces; an empty cell
    /// where a number does not exist (no run reached the best, no test against itself).
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record([
            "name",
            "kind",
            "runs",
            "runs_reaching_best",
            "seeds_reaching_best",
            "budget_to_best_median",
            "budget_to_best_min",
            "budget_to_best_max",
            "regret_area",
            "better_than_baseline",
            "worse_than_baseline",
            "p_vs_baseline",
            "better_than_study",
            "worse_than_study",
            "p_vs_study",
        ]);
        let number = |v: f64| if v.is_finite() { format!("{v}") } else { String::new() };
        let test = |t: &Option<PairedTest>| match t {
            Some(t) => [t.better.to_string(), t.worse.to_string(), format!("{}", t.test.p)],
            None => [String::new(), String::new(), String::new()],
        };
        for (k, r) in self.rows.iter().enumerate() {
            let kind = if k < self.seed_bands.len() { "method" } else { "study" };
            let mut record = vec![
                r.name.clone(),
                kind.into(),
                r.runs.to_string(),
                r.reached.len().to_string(),
                r.reached.join(" "),
                number(r.to_best_median),
                number(r.to_best_min),
                number(r.to_best_max),
                number(r.area),
            ];
            record.extend(test(&r.vs_baseline));
            record.extend(test(&r.vs_study));
            let _ = w.write_record(&record);
        }
        w.into_inner().ok().and_then(|b| String::from_utf8(b).ok()).unwrap_or_default()
    }
}

/// Mean regret over the budget units: the area under the curve per unit of budget.
pub fn area(regret: &[f64]) -> f64 {
    if regret.is_empty() {
        return f64::NAN;
    }
    regret.iter().sum::<f64>() / regret.len() as f64
}

/// The first budget unit (1-based) after which the regret is 0.
pub fn units_to_best(regret: &[f64]) -> Option<u64> {
    regret.iter().position(|&r| r <= 0.0).map(|i| i as u64 + 1)
}

/// The q-quantile of sorted values, interpolated linearly between order statistics (Hyndman
/// and Fan's type 7, R's and NumPy's default); NaN for none.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

fn seed_band(runs: &[Run]) -> SeedBand {
    let len = runs.iter().map(|r| r.regret.len()).min().unwrap_or(0);
    let mut band = SeedBand::default();
    for u in 0..len {
        let mut at: Vec<f64> = runs.iter().map(|r| r.regret[u]).collect();
        at.sort_by(f64::total_cmp);
        band.median.push(quantile(&at, 0.5));
        band.lower.push(quantile(&at, 0.25));
        band.upper.push(quantile(&at, 0.75));
    }
    band
}

/// The test of paired differences `d` (this row minus the other; smaller is better).
fn paired(d: &[f64]) -> PairedTest {
    PairedTest {
        pairs: d.len(),
        better: d.iter().filter(|v| **v < 0.0).count(),
        worse: d.iter().filter(|v| **v > 0.0).count(),
        test: signed_rank_test(d),
    }
}

/// Differences of `a`'s runs from `b`'s of the same task and seed.
fn by_seed(a: &[Run], b: &[Run]) -> Vec<f64> {
    a.iter().filter_map(|x| b.iter().find(|y| y.task == x.task && y.seed == x.seed).map(|y| area(&x.regret) - area(&y.regret))).collect()
}

/// Differences of `a`'s runs from the study's area on their task.
fn by_task(a: &[Run], study: &[Run]) -> Vec<f64> {
    a.iter().filter_map(|x| study.iter().find(|y| y.task == x.task).map(|y| area(&x.regret) - area(&y.regret))).collect()
}

fn row(name: &str, runs: &[Run], label: impl Fn(&Run) -> String) -> VerdictRow {
    let mut to_best: Vec<f64> = runs.iter().filter_map(|r| units_to_best(&r.regret)).map(|u| u as f64).collect();
    to_best.sort_by(f64::total_cmp);
    VerdictRow {
        name: name.to_string(),
        runs: runs.len(),
        // In task and seed order, whatever order the runs finished in.
        reached: {
            let mut reached: Vec<&Run> = runs.iter().filter(|r| units_to_best(&r.regret).is_some()).collect();
            reached.sort_by(|a, b| (a.task, a.seed).cmp(&(b.task, b.seed)));
            reached.into_iter().map(&label).collect()
        },
        to_best_median: quantile(&to_best, 0.5),
        to_best_min: to_best.first().copied().unwrap_or(f64::NAN),
        to_best_max: to_best.last().copied().unwrap_or(f64::NAN),
        area: area(&runs.iter().map(|r| area(&r.regret)).collect::<Vec<_>>()),
        vs_baseline: None,
        vs_study: None,
    }
}

/// The runs of `method` on `tasks`, each a regret curve over `total` units.
pub fn method_runs<'a>(traces: &'a [RaceTrace], method: &str, tasks: &[(&'a str, &GroundTruth)], total: u64) -> Vec<Run<'a>> {
    tasks
        .iter()
        .flat_map(|&(task, truth)| {
            traces.iter().filter(move |r| r.method == method && r.task == task).map(move |r| Run {
                task,
                seed: r.seed,
                regret: regret_curve(&r.rows, truth, total),
            })
        })
        .collect()
}

/// The verdict of `methods`' runs (`runs[k]`, in the summary's order) and the study's own run
/// (`study`: its name and one run a task), `baseline` naming the method every other is tested
/// against when it ran; `best` says what reaching the best is in words ("the study's best").
pub fn verdict(methods: &[String], runs: &[Vec<Run>], study: Option<(&str, Vec<Run>)>, baseline: &str, best: &str) -> Verdict {
    let first = runs.iter().flatten().next().map(|r| r.task);
    let several_tasks = runs.iter().flatten().any(|r| Some(r.task) != first);
    let seed_label = |r: &Run| if several_tasks { format!("{}:{}", r.task, r.seed) } else { r.seed.to_string() };
    let base = methods.iter().position(|m| m == baseline);
    let mut rows: Vec<VerdictRow> = methods.iter().zip(runs).map(|(m, r)| row(m, r, seed_label)).collect();
    for (k, row) in rows.iter_mut().enumerate() {
        row.vs_baseline = base.filter(|&b| b != k).map(|b| paired(&by_seed(&runs[k], &runs[b])));
        row.vs_study = study.as_ref().map(|(_, s)| paired(&by_task(&runs[k], s)));
    }
    if let Some((name, s)) = &study {
        let mut r = row(name, s, |r: &Run| r.task.to_string());
        // The study against the baseline: the baseline's runs' differences, turned around.
        r.vs_baseline = base.map(|b| {
            let d: Vec<f64> = by_task(&runs[b], s).iter().map(|v| -v).collect();
            paired(&d)
        });
        rows.push(r);
    }
    let sentence = sentence(&rows, runs, study.as_ref().map(|(_, s)| s.as_slice()), best);
    Verdict {
        rows,
        baseline: base.map(|b| methods[b].clone()),
        seed_bands: runs.iter().map(|r| seed_band(r.as_slice())).collect(),
        sentence,
    }
}

/// "p = 0.0039" for a test.
fn p_words(t: &SignedRank) -> String {
    format!("p = {}", significant(t.p, 2))
}

/// Who won (the smallest area under the regret curve) and how sure, against the runner-up:
/// sure below p = 0.01, fairly sure below 0.05, else not sure.
fn sentence(rows: &[VerdictRow], runs: &[Vec<Run>], study: Option<&[Run]>, best: &str) -> String {
    let mut order: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].area.is_finite()).collect();
    order.sort_by(|&a, &b| rows[a].area.total_cmp(&rows[b].area));
    let Some(&w) = order.first() else { return "No run has finished: no verdict yet.".into() };
    let (winner, methods) = (&rows[w], runs.len());
    let reached = if winner.reached.is_empty() {
        format!("none of its {} reached {best}", count(winner.runs, "run"))
    } else {
        format!(
            "{} of its {} reached {best}, after a median of {} budget units (range {}–{})",
            winner.reached.len(),
            count(winner.runs, "run"),
            winner.to_best_median,
            winner.to_best_min,
            winner.to_best_max
        )
    };
    let mut out =
        format!("{} won, with the smallest area under the regret curve ({}); {reached}.", winner.name, significant(winner.area, 3));
    let Some(&r) = order.get(1) else { return out };
    let runner = &rows[r];
    // The pairs of the winner against the runner-up: seed by seed between methods, each
    // method run against the study's on its task.
    let test = match (w < methods, r < methods, study) {
        (true, true, _) => paired(&by_seed(&runs[w], &runs[r])),
        (true, false, Some(s)) => paired(&by_task(&runs[w], s)),
        (false, true, Some(s)) => paired(&by_task(&runs[r], s).iter().map(|v| -v).collect::<Vec<_>>()),
        _ => return out,
    };
    let how = if test.test.p < 0.01 {
        "Sure"
    } else if test.test.p < 0.05 {
        "Fairly sure"
    } else {
        "Not sure"
    };
    let tied = test.pairs - test.better - test.worse;
    out += &format!(
        " {how}: against the runner-up, {} ({}), it was better in {} and worse in {} of {} pairs{} (Wilcoxon signed-rank {}).",
        runner.name,
        significant(runner.area, 3),
        test.better,
        test.worse,
        test.pairs,
        if tied > 0 { format!(", {tied} tied") } else { String::new() },
        p_words(&test.test)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<'a>(task: &'a str, seed: u64, regret: &[f64]) -> Run<'a> {
        Run { task, seed, regret: regret.to_vec() }
    }

    #[test]
    fn a_hand_computed_race_of_two_methods_and_a_study() {
        // Four budget units, three seeds. "fast" reaches the best (regret 0) after 1, 2 and 2
        // units; "RS" after 4 units on seed 0 only; the study after 3.
        let fast = vec![run("t", 0, &[0.0, 0.0, 0.0, 0.0]), run("t", 1, &[1.0, 0.0, 0.0, 0.0]), run("t", 2, &[2.0, 0.0, 0.0, 0.0])];
        let rs = vec![run("t", 0, &[4.0, 2.0, 2.0, 0.0]), run("t", 1, &[4.0, 4.0, 1.0, 1.0]), run("t", 2, &[2.0, 2.0, 2.0, 2.0])];
        let study = vec![run("t", 0, &[3.0, 3.0, 0.0, 0.0])];
        let methods = vec!["fast".to_string(), "RS".to_string()];
        let v = verdict(&methods, &[fast, rs], Some(("own run", study)), "RS", "the study's best");
        let (f, r, s) = (&v.rows[0], &v.rows[1], &v.rows[2]);
        assert_eq!(
            (f.reached.clone(), f.to_best_median, f.to_best_min, f.to_best_max),
            (vec!["0".into(), "1".into(), "2".into()], 2.0, 1.0, 2.0)
        );
        assert_eq!((r.reached.clone(), r.to_best_median), (vec!["0".to_string()], 4.0));
        assert_eq!((s.reached.clone(), s.to_best_median, s.runs), (vec!["t".to_string()], 3.0, 1));
        // Areas: fast's runs 0, 0.25, 0.5 → mean 0.25; RS's 2, 2.5, 2 → 13/6; the study's 1.5.
        assert_eq!(f.area, 0.25);
        assert!((r.area - 13.0 / 6.0).abs() < 1e-15 && s.area == 1.5);
        // fast − RS by seed: −2, −2.25, −1.5 → all better; three untied ranks, p = 2/8.
        let vs = f.vs_baseline.unwrap();
        assert_eq!((vs.pairs, vs.better, vs.worse, vs.test.p), (3, 3, 0, 0.25));
        // fast − study: −1.5, −1.25, −1 → p = 0.25; RS − study: 0.5, 1, 0.5 (worse, tied ranks).
        assert_eq!(f.vs_study.unwrap().test.p, 0.25);
        assert_eq!((r.vs_study.unwrap().worse, r.vs_study.unwrap().test.r_plus), (3, 6.0));
        // The study against RS is RS's differences turned around: better on all three.
        assert_eq!(s.vs_baseline.unwrap().better, 3);
        assert!(r.vs_baseline.is_none() && s.vs_study.is_none());
        assert_eq!(
            v.sentence,
            "fast won, with the smallest area under the regret curve (0.250); 3 of its 3 runs reached the study's best, after a median of 2 budget units (range 1–2). \
             Not sure: against the runner-up, own run (1.50), it was better in 3 and worse in 0 of 3 pairs (Wilcoxon signed-rank p = 0.25)."
        );
        // Seed bands: at unit 1 the runs are 0, 1, 2 (median 1, quartiles 0.5 and 1.5).
        assert_eq!((v.seed_bands[0].median[0], v.seed_bands[0].lower[0], v.seed_bands[0].upper[0]), (1.0, 0.5, 1.5));
        assert_eq!(v.baseline.as_deref(), Some("RS"));
        let csv = v.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4, "{csv}");
        assert_eq!(lines[1], "fast,method,3,3,0 1 2,2,1,2,0.25,3,0,0.25,3,0,0.25");
        assert_eq!(lines[3], "own run,study,1,1,t,3,3,3,1.5,3,0,0.25,,,");
    }

    #[test]
    fn ten_seeds_all_better_is_sure_and_ties_count_as_neither() {
        let curve = |r: f64| vec![r, 0.0];
        let a: Vec<Run> = (0..10).map(|s| run("t", s, &curve(if s == 9 { 1.0 } else { 0.0 }))).collect();
        let b: Vec<Run> = (0..10).map(|s| run("t", s, &curve(1.0 + s as f64))).collect();
        let v = verdict(&["A".into(), "B".into()], &[a, b], None, "B", "the task's best");
        let t = v.rows[0].vs_baseline.unwrap();
        // Differences −0.5, −1, …, −4.5, −4.5: ranks 1..8 and 9.5 twice, all negative; exact p =
        // 2/1024.
        assert_eq!((t.better, t.worse, t.test.p), (10, 0, 2.0 / 1024.0));
        assert!(v.sentence.starts_with("A won") && v.sentence.contains("Sure: against the runner-up, B"), "{}", v.sentence);
        assert!(v.rows.len() == 2 && v.rows[0].vs_study.is_none());
    }

    #[test]
    fn the_quantile_is_type_7() {
        // NumPy's percentile([1, 2, 4, 8], [25, 50, 75]) = 1.75, 3, 5.
        let v = [1.0, 2.0, 4.0, 8.0];
        assert_eq!((quantile(&v, 0.25), quantile(&v, 0.5), quantile(&v, 0.75)), (1.75, 3.0, 5.0));
        assert!(quantile(&[], 0.5).is_nan());
    }
}
