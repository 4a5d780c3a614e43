//! A DyHPO step timed at a given number of observations, the same measurement natively
//! (`hpo bench-dyhpo-step`, and `hpo bench`'s DyHPO rows) and in the browser
//! (tests/wasm_dyhpo_step_bench.rs); scripts/bench-dyhpo-step.mjs gathers both into
//! docs/benchmarks.md.
//!
//! The race is grown by [`race_with_observations`] (the state `hpo bench-precision` times too);
//! the first step on it fits cold, each next step advances the configuration the previous one
//! chose and fits warm-started, as in a run.

use super::{race_with_observations, DyHpo};
use crate::benchmark::Benchmark;
use crate::bundled::crossing_curves_family;
use crate::error::Result;
use crate::fidelity::runner::race_curves;
use crate::loaders::curves::load_lcbench_members;
use crate::optimizer::job_rng;
use crate::race::MultiFidelityOptimizer;

/// The sizes (observations) the step is timed at, natively and in the browser.
pub const OBSERVATIONS: [usize; 4] = [250, 500, 1000, 2000];

/// Steps timed after the cold one at each size (the browser times fewer at 2,000).
pub const NEXT_STEPS: usize = 10;

/// What the steps are timed on: one task's curves.
#[derive(Debug, Clone)]
pub struct StepData {
    /// Said beside every figure.
    pub what: &'static str,
    values: Vec<Vec<f64>>,
    candidates: Vec<Vec<f64>>,
    sign: f64,
}

impl StepData {
    /// LCBench's task 0 from its files (the `LCBENCH_FILES` members, at least the first two).
    pub fn lcbench(members: &[(String, Vec<u8>)]) -> Result<StepData> {
        let bench = load_lcbench_members("lcbench-surrogate", members)?.benchmark;
        Self::of(&bench, "LCBench task 0, 2,000 configurations × 51 epochs")
    }

    /// The bundled crossing curves (`assets/curves.csv`): what runs without `../shared`.
    pub fn bundled() -> Result<StepData> {
        Self::of(&crossing_curves_family(), "the bundled curves (assets/curves.csv), 256 configurations × 40 epochs")
    }

    fn of(bench: &Benchmark, what: &'static str) -> Result<StepData> {
        let (values, _) = race_curves(bench, 0)?;
        Ok(StepData { what, values, candidates: bench.encoded_task(0), sign: bench.metrics[bench.objective].direction.sign() })
    }
}

/// One step's wall time and the Adam epochs its fit ran (0: the step only conditioned the GP).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed {
    /// Milliseconds.
    pub ms: f64,
    /// Adam epochs.
    pub epochs: usize,
}

/// The steps timed at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct StepTimes {
    /// Observations of the race the first step saw.
    pub observations: usize,
    /// The first step on the grown race: a fit from fresh parameters.
    pub cold: Timed,
    /// The steps after it, each warm-started from the one before.
    pub next: Vec<Timed>,
}

impl StepTimes {
    /// The mean time of the next steps, in ms (NaN when none was timed).
    pub fn mean_next_ms(&self) -> f64 {
        self.next.iter().map(|t| t.ms).sum::<f64>() / self.next.len() as f64
    }

    /// The mean epochs of the next steps.
    pub fn mean_next_epochs(&self) -> f64 {
        self.next.iter().map(|t| t.epochs as f64).sum::<f64>() / self.next.len() as f64
    }

    /// One line, the same natively and in the browser, which scripts/bench-dyhpo-step.mjs
    /// reads: `DYHPO-STEP observations cold_ms cold_epochs next_ms next_epochs
    /// mean_ms mean_epochs count`.
    pub fn line(&self) -> String {
        let next = self.next.first().copied().unwrap_or(Timed { ms: f64::NAN, epochs: 0 });
        format!(
            "DYHPO-STEP {} {:.0} {} {:.0} {} {:.0} {:.1} {}",
            self.observations,
            self.cold.ms,
            self.cold.epochs,
            next.ms,
            next.epochs,
            self.mean_next_ms(),
            self.mean_next_epochs(),
            self.next.len()
        )
    }
}

/// Times `optimizer`'s first step on a race of `observations` steps of `data` (grown with the
/// seed `observations`, as `hpo bench` always has), then `next_steps` more; `now` is a clock
/// in seconds.
pub fn time_steps(
    optimizer: &mut DyHpo,
    data: &StepData,
    observations: usize,
    next_steps: usize,
    now: &dyn Fn() -> f64,
) -> Result<StepTimes> {
    let StepData { values, candidates, sign, .. } = data;
    let mut rng = job_rng(observations as u64, "bench");
    let mut race = race_with_observations(values, observations, *sign, &mut rng);
    let mut step = |race: &crate::race::Race| -> Result<(Timed, crate::race::Request)> {
        let t0 = now();
        let request = optimizer.next(race, candidates, &mut rng)?;
        let ms = (now() - t0) * 1000.0;
        Ok((Timed { ms, epochs: optimizer.last_fit.map_or(0, |f| f.epochs) }, request))
    };
    let (cold, mut request) = step(&race)?;
    let mut next = Vec::with_capacity(next_steps);
    for _ in 0..next_steps {
        race.curves[request.config].push(sign * values[request.config][request.budget as usize - 1]);
        race.history.push(request);
        let (timed, chosen) = step(&race)?;
        next.push(timed);
        request = chosen;
    }
    Ok(StepTimes { observations, cold, next })
}
