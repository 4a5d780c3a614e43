//! A full-evaluation run's summary, the one the page and the CLI show: Table 2 of the copula
//! paper (improvement over random search per task and method, its mean over tasks and the
//! average rank) and Fig. 4 (each prior method's improvement per task against the prior's RMSE
//! on that task). Salinas et al. 2020, §5.
//!
//! The missing-cell rule: a task is a row only once every job of the run on it (each method,
//! each seed) has finished — the rule of `hpo merge --partial`. A partial experiment (a run
//! still going, cancelled, or with a failed job) thus compares every method over the same
//! seeds on the same tasks, and names the tasks it left out, instead of averaging a NaN into a
//! method's mean and rank or comparing a method's three seeds with another's ten.

use std::collections::HashSet;

use crate::benchmark::Benchmark;
use crate::results::metrics::{average_ranks, improvement_over_rs, mean_dtm_curve, prior_effects, PriorEffect};
use crate::spec::{ResolvedSpec, RunMode};
use crate::trace::Trace;

/// Table 2 for the tasks on which every method has finished a job.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2 {
    /// The compared methods (every method of the run but the baseline), in the spec's order.
    pub methods: Vec<String>,
    /// One row per complete task, in the spec's task order.
    pub rows: Vec<Table2Row>,
    /// Per method, the mean improvement over the rows.
    pub means: Vec<f64>,
    /// Per method, the average rank over the rows (1 = best).
    pub ranks: Vec<f64>,
    /// Tasks of the run left out because some job on them has not finished.
    pub incomplete: Vec<String>,
}

/// One task's row of Table 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2Row {
    /// Task name.
    pub task: String,
    /// Per method (in [`Table2::methods`]' order), the improvement over random search.
    pub improvements: Vec<f64>,
}

impl Table2 {
    /// The indices of the `k` methods with the highest mean (the paper sets them in bold).
    pub fn best(&self, k: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.means.len()).collect();
        order.sort_by(|&a, &b| self.means[b].total_cmp(&self.means[a]));
        order.truncate(k);
        order
    }
}

/// Fig. 4 for one method with a prior.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorEffects {
    /// The method.
    pub method: String,
    /// Its improvement over random search per task, sorted by the prior's RMSE.
    pub effects: Vec<PriorEffect>,
}

/// What a finished or partial full-evaluation run adds up to.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// Table 2 over the complete tasks (possibly none yet).
    pub table2: Table2,
    /// Fig. 4 for every method with a prior that has a point.
    pub prior_effects: Vec<PriorEffects>,
}

/// The summary of a single-objective full-evaluation run with the baseline and at least one
/// other method; `None` for a race, a multi-objective run, or a run with nothing to compare.
pub fn summarize_full_run(bench: &Benchmark, resolved: &ResolvedSpec, traces: &[Trace]) -> Option<RunSummary> {
    let baseline = resolved.methods.iter().find(|m| m.is_baseline())?.name;
    if !matches!(resolved.mode, RunMode::Full { .. }) || resolved.is_multi_objective() || resolved.methods.len() < 2 {
        return None;
    }
    let methods: Vec<&str> = resolved.methods.iter().filter(|m| !m.is_baseline()).map(|m| m.name).collect();
    let (objective, direction) = (resolved.objective, resolved.direction);
    let finished: HashSet<(&str, &str, u64)> = traces.iter().map(|t| (t.method.as_str(), t.task.as_str(), t.seed)).collect();
    let jobs = resolved.jobs();
    let mut rows = Vec::new();
    let mut incomplete = Vec::new();
    for &t in &resolved.tasks {
        let task = &bench.tasks[t].name;
        let complete = jobs.iter().filter(|j| j.task == t).all(|j| finished.contains(&(j.method.as_str(), task.as_str(), j.seed)));
        let row = complete.then(|| mean_dtm_curve(traces, bench, objective, direction, baseline, task)).flatten().and_then(|rs| {
            methods
                .iter()
                .map(|m| mean_dtm_curve(traces, bench, objective, direction, m, task).map(|c| improvement_over_rs(&rs, &c)))
                .collect::<Option<Vec<f64>>>()
        });
        match row {
            Some(improvements) => rows.push(Table2Row { task: task.clone(), improvements }),
            None => incomplete.push(task.clone()),
        }
    }
    let scores: Vec<Vec<f64>> = rows.iter().map(|r| r.improvements.clone()).collect();
    let (means, ranks) = if scores.is_empty() {
        (vec![f64::NAN; methods.len()], vec![f64::NAN; methods.len()])
    } else {
        let means = (0..methods.len()).map(|k| scores.iter().map(|r| r[k]).sum::<f64>() / scores.len() as f64).collect();
        (means, average_ranks(&scores))
    };
    let prior_effects = resolved
        .methods
        .iter()
        .filter(|m| m.transfer().prior().is_some())
        .map(|m| PriorEffects { method: m.name.to_string(), effects: prior_effects(traces, bench, objective, direction, m.name, baseline) })
        .filter(|p| !p.effects.is_empty())
        .collect();
    let table2 = Table2 { methods: methods.iter().map(|m| m.to_string()).collect(), rows, means, ranks, incomplete };
    Some(RunSummary { table2, prior_effects })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::quadratic_family;
    use crate::runner::run_job;
    use crate::spec::ExperimentSpec;
    use crate::transfer::PriorCache;

    /// Three tasks of the quadratic family, two seeds, a few iterations of each method.
    fn run(methods: &[&str]) -> (Benchmark, ResolvedSpec, Vec<Trace>) {
        let bench = quadratic_family();
        let spec = ExperimentSpec {
            methods: methods.iter().map(|m| m.to_string()).collect(),
            tasks: bench.tasks[..3].iter().map(|t| t.name.clone()).collect(),
            seeds: 2,
            iterations: 8,
            ..Default::default()
        };
        let resolved = spec.resolve(&bench).unwrap();
        let priors = PriorCache::new();
        let traces = resolved.jobs().iter().map(|job| run_job(&bench, &resolved, job, &priors, &|| 0.0, &mut |_| true).unwrap()).collect();
        (bench, resolved, traces)
    }

    #[test]
    fn a_task_without_every_method_is_left_out_and_named() {
        let (bench, resolved, traces) = run(&["RS", "GP", "GCP"]);
        let full = summarize_full_run(&bench, &resolved, &traces).unwrap().table2;
        assert_eq!(full.rows.len(), resolved.tasks.len());
        assert!(full.incomplete.is_empty() && full.means.iter().all(|m| m.is_finite()));
        // One GCP job on the first task never finished: that task is no row (its other seed
        // alone would compare one seed of GCP with two of the others), the means and ranks stay
        // finite, and the table says which task it left out.
        let first = bench.tasks[resolved.tasks[0]].name.clone();
        let partial: Vec<Trace> = traces.iter().filter(|t| !(t.method == "GCP" && t.task == first && t.seed == 1)).cloned().collect();
        let table = summarize_full_run(&bench, &resolved, &partial).unwrap().table2;
        assert_eq!(table.incomplete, vec![first.clone()]);
        assert_eq!(table.rows.len(), resolved.tasks.len() - 1);
        assert!(table.rows.iter().all(|r| r.task != first));
        assert!(table.means.iter().chain(&table.ranks).all(|v| v.is_finite()));
        assert_eq!(table.rows, full.rows[1..].to_vec());
    }

    #[test]
    fn no_summary_without_a_baseline_or_for_one_method() {
        let (bench, resolved, traces) = run(&["GP"]);
        assert!(summarize_full_run(&bench, &resolved, &traces).is_none());
        let (bench, resolved, traces) = run(&["RS"]);
        assert!(summarize_full_run(&bench, &resolved, &traces).is_none());
    }

    #[test]
    fn best_takes_the_highest_means() {
        let t = Table2 { methods: vec![], rows: vec![], means: vec![0.1, 0.5, -0.2, 0.3], ranks: vec![], incomplete: vec![] };
        assert_eq!(t.best(2), vec![1, 3]);
    }
}
