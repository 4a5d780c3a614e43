//! The race simulator: budget accounting, pause/resume and the trace of one run.

use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};
use crate::optimizer::MethodRng;

/// What a multi-fidelity optimizer asks for: train `config` up to `budget` (in budget units,
/// 1..=max), strictly beyond the budget it has reached so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Configuration index in the task.
    pub config: usize,
    /// Budget to reach.
    pub budget: u32,
}

/// A multi-fidelity optimizer over a finite set of configurations with learning curves.
pub trait MultiFidelityOptimizer {
    /// The next configuration to train, and how far. `candidates` are the model encodings.
    fn next(&mut self, race: &Race, candidates: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request>;

    /// Keeps every later [`MultiFidelityOptimizer::next`] short enough for a worker to wait on
    /// (an ask/tell session's decisions): a method whose decision can take seconds spreads
    /// its work over several decisions and says so in its docs. Nothing changes for a method
    /// whose every decision is cheap.
    fn bound_decisions(&mut self) {}
}

/// The state of a race, as an optimizer sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Race {
    /// Largest budget of a configuration (number of curve steps).
    pub max_budget: u32,
    /// Budget units still available to the run.
    pub remaining: u64,
    /// Observed losses of each configuration, one per budget step reached (empty: never trained).
    pub curves: Vec<Vec<f64>>,
    /// Requests served so far, in order.
    pub history: Vec<Request>,
    /// Configurations handed out to a worker whose values are not all told yet (an ask/tell
    /// session with parallel workers, `suggest::multi_fidelity`); a simulated race trains one
    /// request at a time and never has any. No method hands one of them out again.
    pub training: Vec<bool>,
    /// Configurations whose training failed (reported by the session's
    /// [`crate::suggest::multi_fidelity::MultiFidelitySession::fail`]): no method trains one
    /// again, and their told values stay observations. A simulated race never has any.
    pub failed: Vec<bool>,
}

impl Race {
    /// A race over `configs` configurations with curves of `max_budget` steps.
    pub fn new(configs: usize, max_budget: u32, total_budget: u64) -> Self {
        Race {
            max_budget,
            remaining: total_budget,
            curves: vec![Vec::new(); configs],
            history: Vec::new(),
            training: vec![false; configs],
            failed: vec![false; configs],
        }
    }

    /// Budget reached by configuration `i` (0 when never trained).
    pub fn budget_of(&self, i: usize) -> u32 {
        self.curves[i].len() as u32
    }

    /// Configurations never trained, not in training and not failed.
    pub fn untouched(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.curves.len()).filter(|&i| self.curves[i].is_empty() && !self.training[i] && !self.failed[i])
    }

    /// True when configuration `i` can be trained further: below the largest budget, not in
    /// training and not failed.
    pub fn can_advance(&self, i: usize) -> bool {
        self.budget_of(i) < self.max_budget && !self.training[i] && !self.failed[i]
    }

    /// Trains configuration `config` from the budget it reached up to `to`, observing the
    /// losses `sign · values[config][step]` on the way and spending the units.
    pub fn train(&mut self, config: usize, to: u32, values: &[Vec<f64>], sign: f64) {
        let from = self.budget_of(config);
        for step in from..to {
            self.curves[config].push(sign * values[config][step as usize]);
        }
        self.remaining = self.remaining.saturating_sub((to - from) as u64);
        self.history.push(Request { config, budget: to });
    }

    /// Lowest loss observed at any budget so far (the incumbent's), if any.
    pub fn best_loss(&self) -> Option<f64> {
        self.curves.iter().flatten().copied().reduce(f64::min)
    }
}

/// One served request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceRow {
    /// Configuration trained.
    pub config: usize,
    /// Budget it reached.
    pub budget: u32,
    /// Metric at that budget (raw, in the metric's direction).
    pub value: f64,
    /// Best metric observed so far at any budget of any configuration (raw).
    pub best: f64,
    /// Budget units spent so far by the run.
    pub spent: u64,
    /// Benchmark cost (e.g. training seconds) spent so far; equals `spent` without cost data.
    pub cost: f64,
    /// Seconds the optimizer spent deciding.
    pub optimizer_seconds: f64,
}

/// The result of one multi-fidelity run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceTrace {
    /// Method name.
    pub method: String,
    /// Task name.
    pub task: String,
    /// Seed.
    pub seed: u64,
    /// One row per served request.
    pub rows: Vec<RaceRow>,
}

/// Runs `optimizer` on one task until `total_budget` units are spent (the last request is cut
/// to what remains). `values[i][s]` is the metric of configuration `i` after budget `s + 1`,
/// `cost[i][s]` its cumulative cost; `sign` turns values into losses. `progress` gets the
/// units spent after every request; the race stops with an error when it returns false (a
/// cancelled run).
#[allow(clippy::too_many_arguments)]
pub fn run_race(
    optimizer: &mut dyn MultiFidelityOptimizer,
    method: &str,
    candidates: &[Vec<f64>],
    values: &[Vec<f64>],
    cost: Option<&[Vec<f64>]>,
    sign: f64,
    total_budget: u64,
    rng: &mut MethodRng,
    now: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Vec<RaceRow>> {
    let max_budget = values.iter().map(Vec::len).min().unwrap_or(0) as u32;
    if max_budget == 0 || values.len() != candidates.len() {
        return Err(EngineError::Spec("a multi-fidelity run needs a learning curve for every configuration".into()));
    }
    let mut race = Race::new(values.len(), max_budget, total_budget);
    let mut rows = Vec::new();
    let (mut spent, mut spent_cost, mut best) = (0u64, 0.0, f64::NAN);
    while race.remaining > 0 {
        let t0 = now();
        let request = match optimizer.next(&race, candidates, rng) {
            // The table is used up for this method: the race ends with what it spent (the
            // regret curve holds its last value to the budget's end).
            Err(EngineError::Exhausted { .. }) if !rows.is_empty() => break,
            other => other?,
        };
        let seconds = now() - t0;
        let from = race.curves.get(request.config).map(|c| c.len() as u32).ok_or_else(|| bad(method, "a configuration out of range"))?;
        if request.budget <= from || request.budget > max_budget {
            return Err(bad(
                method,
                &format!("budget {} for configuration {} (at budget {from}, max {max_budget})", request.budget, request.config),
            ));
        }
        // In u64 and saturating: `from + remaining` as u32 would wrap for a budget near u32::MAX.
        let to = (request.budget as u64).min((from as u64).saturating_add(race.remaining)) as u32;
        let curve = &values[request.config];
        for &value in &curve[from as usize..to as usize] {
            best = if best.is_nan() || sign * value < sign * best { value } else { best };
        }
        race.train(request.config, to, values, sign);
        let units = (to - from) as u64;
        spent += units;
        spent_cost += match cost {
            Some(c) => c[request.config][to as usize - 1] - if from > 0 { c[request.config][from as usize - 1] } else { 0.0 },
            None => units as f64,
        };
        rows.push(RaceRow {
            config: request.config,
            budget: to,
            value: curve[to as usize - 1],
            best,
            spent,
            cost: spent_cost,
            optimizer_seconds: seconds,
        });
        if !progress(spent) {
            return Err(EngineError::Method { method: method.into(), message: "cancelled".into() });
        }
    }
    Ok(rows)
}

fn bad(method: &str, what: &str) -> EngineError {
    EngineError::Method { method: method.into(), message: format!("asked for {what}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Asks for configurations in turn, two budget units at a time.
    struct TwoSteps;
    impl MultiFidelityOptimizer for TwoSteps {
        fn next(&mut self, race: &Race, _: &[Vec<f64>], _: &mut MethodRng) -> Result<Request> {
            let i = (0..race.curves.len()).find(|&i| race.budget_of(i) < race.max_budget).unwrap();
            Ok(Request { config: i, budget: (race.budget_of(i) + 2).min(race.max_budget) })
        }
    }

    #[test]
    fn pause_resume_accounting_and_the_cut_last_request() {
        let values = vec![vec![0.5, 0.4, 0.3], vec![0.9, 0.2, 0.1]];
        let cost = vec![vec![1.0, 3.0, 6.0], vec![2.0, 4.0, 6.0]];
        let candidates = vec![vec![0.0], vec![1.0]];
        let mut rng = MethodRng::seed_from_u64(0);
        let rows = run_race(&mut TwoSteps, "two", &candidates, &values, Some(&cost), 1.0, 5, &mut rng, &|| 0.0, &mut |_| true).unwrap();
        let got: Vec<(usize, u32, u64, f64, f64)> = rows.iter().map(|r| (r.config, r.budget, r.spent, r.cost, r.best)).collect();
        // Config 0 to budget 2 (cost 3), then to 3 (cost 3 more), config 1 to 2 (cost 4): 5 units.
        assert_eq!(got, vec![(0, 2, 2, 3.0, 0.4), (0, 3, 3, 6.0, 0.3), (1, 2, 5, 10.0, 0.2)]);
    }

    #[test]
    fn a_budget_near_the_largest_integer_neither_wraps_nor_runs_forever() {
        /// One step at a time, configuration by configuration, until every curve is trained.
        struct StepByStep;
        impl MultiFidelityOptimizer for StepByStep {
            fn next(&mut self, race: &Race, _: &[Vec<f64>], _: &mut MethodRng) -> Result<Request> {
                match (0..race.curves.len()).find(|&i| race.budget_of(i) < race.max_budget) {
                    Some(i) => Ok(Request { config: i, budget: race.budget_of(i) + 1 }),
                    None => Err(EngineError::Exhausted { method: "step".into(), message: "every configuration is fully trained".into() }),
                }
            }
        }
        let values = vec![vec![0.5, 0.4, 0.3], vec![0.9, 0.2, 0.1]];
        let mut rng = MethodRng::seed_from_u64(0);
        for total in [u32::MAX as u64, u32::MAX as u64 + 2, u64::MAX] {
            let rows =
                run_race(&mut StepByStep, "step", &[vec![0.0], vec![1.0]], &values, None, 1.0, total, &mut rng, &|| 0.0, &mut |_| true)
                    .unwrap();
            let got: Vec<(usize, u32, u64)> = rows.iter().map(|r| (r.config, r.budget, r.spent)).collect();
            assert_eq!(got, vec![(0, 1, 1), (0, 2, 2), (0, 3, 3), (1, 1, 4), (1, 2, 5), (1, 3, 6)], "total {total}");
        }
    }

    #[test]
    fn skipping_backwards_or_beyond_the_curve_is_an_error() {
        struct Bad(u32);
        impl MultiFidelityOptimizer for Bad {
            fn next(&mut self, _: &Race, _: &[Vec<f64>], _: &mut MethodRng) -> Result<Request> {
                Ok(Request { config: 0, budget: self.0 })
            }
        }
        let values = vec![vec![0.5, 0.4]];
        let mut rng = MethodRng::seed_from_u64(0);
        for b in [0, 3] {
            let e = run_race(&mut Bad(b), "bad", &[vec![0.0]], &values, None, 1.0, 4, &mut rng, &|| 0.0, &mut |_| true).unwrap_err();
            assert!(e.to_string().contains("asked for budget"), "{e}");
        }
    }
}
