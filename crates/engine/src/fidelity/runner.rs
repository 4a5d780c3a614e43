//! One run of a multi-fidelity method on a task.

use super::targets::RaceTargets;
use crate::benchmark::Benchmark;
use crate::error::{EngineError, Result};
use crate::method_entry::MethodEntry;
use crate::optimizer::job_rng;
use crate::race::{run_race, RaceTrace};

/// Per configuration, one value per budget step: a task's learning curves or their costs.
pub type Curves = Vec<Vec<f64>>;

/// The learning curves (metric values) and cumulative costs of task `t` as raced. (Loaders
/// drop leading steps a benchmark's protocol leaves out, such as LCBench's first epoch.)
pub fn race_curves(bench: &Benchmark, t: usize) -> Result<(Curves, Option<Curves>)> {
    let task = &bench.tasks[t];
    let curves = task.curves.as_ref().ok_or_else(|| {
        EngineError::Spec(format!("task '{}' has no learning curves: multi-fidelity methods need a metric per budget step", task.name))
    })?;
    if curves.values.iter().any(|c| c.is_empty()) {
        return Err(EngineError::Spec(format!("task '{}' has an empty learning curve", task.name)));
    }
    Ok((curves.values.clone(), curves.cost.clone()))
}

/// Runs `method` on task `t` with `seed` for `budget` units (deterministic given the seed),
/// optimising the benchmark's objective in its own direction.
pub fn run_mf_job(bench: &Benchmark, t: usize, method: &MethodEntry, seed: u64, budget: u64, now: &dyn Fn() -> f64) -> Result<RaceTrace> {
    let sign = bench.metrics[bench.objective].direction.sign();
    run_mf_job_with(bench, t, method, seed, budget, sign, RaceTargets::Observed, now, &mut |_| true)
}

/// [`run_mf_job`] with the direction's `sign` (+1 minimise), what the optimizer's models see
/// (`targets`) and a progress callback (units spent; returning false cancels).
#[allow(clippy::too_many_arguments)]
pub fn run_mf_job_with(
    bench: &Benchmark,
    t: usize,
    method: &MethodEntry,
    seed: u64,
    budget: u64,
    sign: f64,
    targets: RaceTargets,
    now: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<RaceTrace> {
    let (values, cost) = race_curves(bench, t)?;
    let candidates = bench.encoded_task(t);
    let mut optimizer = targets.wrap(method.build_race()?);
    let mut rng = job_rng(seed, &format!("race/{}", bench.tasks[t].name));
    let rows = run_race(optimizer.as_mut(), method.name, &candidates, &values, cost.as_deref(), sign, budget, &mut rng, now, progress)?;
    Ok(RaceTrace { method: method.name.into(), task: bench.tasks[t].name.clone(), seed, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::crossing_curves_family;
    use crate::fidelity::dyhpo::DYHPO_FAST;
    use crate::method_entry::{CostClass, RunKind};
    use crate::registry::{lookup, of_kind};

    #[test]
    fn every_method_runs_deterministically_per_seed_within_the_budget() {
        let bench = crossing_curves_family();
        // DyHPO is covered with smaller networks in dyhpo.rs; the full one is slow in debug builds.
        for m in of_kind(RunKind::Race).filter(|m| m.cost < CostClass::Heavy && m.name != DYHPO_FAST.name) {
            let a = run_mf_job(&bench, 2, m, 1, 60, &|| 0.0).unwrap();
            let b = run_mf_job(&bench, 2, m, 1, 60, &|| 0.0).unwrap();
            assert_eq!(a, b, "{}", m.name);
            assert_eq!(a.rows.last().unwrap().spent, 60, "{}", m.name);
        }
    }

    #[test]
    fn a_race_longer_than_its_table_ends_when_the_method_can_train_nothing_more() {
        // A pruned study's default budget is what the study spent, more than its finished
        // trials' curves hold: each method spends what it can and ends, it does not fail.
        let bench = crossing_curves_family();
        let (values, _) = race_curves(&bench, 2).unwrap();
        let (values, candidates) = (values[..6].to_vec(), bench.encoded_task(2)[..6].to_vec());
        let table_units = values.iter().map(|c| c.len() as u64).sum::<u64>();
        for m in of_kind(RunKind::Race).filter(|m| m.cost < CostClass::Heavy && m.name != DYHPO_FAST.name) {
            let mut rng = job_rng(1, "race/small");
            let mut optimizer = m.build_race().unwrap();
            let rows =
                run_race(optimizer.as_mut(), m.name, &candidates, &values, None, 1.0, 10 * table_units, &mut rng, &|| 0.0, &mut |_| true)
                    .unwrap_or_else(|e| panic!("{}: {e}", m.name));
            let spent = rows.last().unwrap().spent;
            assert!(spent > 0 && spent <= table_units, "{}: spent {spent} of a table of {table_units}", m.name);
        }
    }

    #[test]
    fn copula_targets_change_what_a_model_fits_and_nothing_a_rank_based_method_picks() {
        let mut bench = crossing_curves_family();
        // One configuration of the task explodes after its fifth step.
        bench.tasks[2].curves.as_mut().unwrap().values[7].iter_mut().skip(5).for_each(|v| *v = 1e17);
        // 1,200 units: GP (max budget)'s design of 20 full trainings, then its EI rounds.
        for (name, same) in [("ASHA", true), ("BOHB", true), ("GP (max budget)", false)] {
            let m = lookup(RunKind::Race, name).unwrap();
            let run = |targets| run_mf_job_with(&bench, 2, m, 1, 1200, 1.0, targets, &|| 0.0, &mut |_| true).unwrap();
            assert_eq!(run(RaceTargets::Observed) == run(RaceTargets::Copula), same, "{name}");
        }
    }
}
