//! DyHPO (Wistuba, Kadra & Grabocka 2022, Alg. 1): at every step, fit the deep-kernel GP
//! ([`super::deep_kernel`]) on every (configuration, budget) observed, then advance by exactly
//! one budget unit the configuration that maximises the multi-fidelity expected improvement
//! EI_MF(x, b(x) + 1) (Eq. 6-7). Configurations never trained are candidates at budget 1.
//!
//! Defaults (see [`DeepKernelSettings::default`]): Conv1d with 4 filters of width 3, early
//! stopping with patience 10 and at most 1,000 Adam epochs, warm-started from the previous
//! step's parameters (paper and code agree); dense layers of 64 and 128 units (the authors'
//! code; the paper says 128 and 256) and learning rate 0.01 (paper 0.1 collapses without the
//! code's batch norm, measured; code 0.001 needs about twice the epochs).
//! *Our choices*, stated in `docs/methods.md`: the first configuration is drawn at random
//! (EI needs an observation); the targets and curve inputs are losses standardised by the
//! mean and standard deviation of all observations so far (so any metric scale works; the
//! authors feed raw accuracies); full-batch training (Eq. 4 is the exact likelihood; App. C.4
//! mentions batch size 64); EI on the latent f of Eq. 2; ties go to the lowest index. If a fit
//! cannot even start (kernel not positive definite), the network is re-initialised, as in
//! the authors' code.
//!
//! "DyHPO w/o CNN" is the paper's ablation without the learning-curve input.

use self::deep_kernel::{fit, CurvePoint, DeepKernel, DeepKernelSettings, FitProgress, FitReport, FittedDeepKernel, Fitting};
use crate::error::{EngineError, Result};
use crate::method_entry::{race_constructor, CostClass, MethodEntry, MethodKind, StepGrowth};
use crate::optimizer::{index_below, MethodRng};
use crate::race::{MultiFidelityOptimizer, Race, Request};
use crate::stats::expected_improvement;

/// DyHPO's model: the deep-kernel GP over learning curves (its likelihood, fit and posterior).
pub mod deep_kernel;

/// A step timed at a given number of observations, natively and in the browser.
pub mod step_bench;

/// Observations the surrogate of "DyHPO (fast)" sees at most.
pub const FAST_OBSERVATIONS: usize = 256;

/// Steps between two fits of the network and kernel parameters in "DyHPO (fast)"; the steps
/// in between condition the GP on the new observations with the parameters kept.
pub const FAST_REFIT_EVERY: usize = 10;

/// The most fitting one decision does under [`DyHpo::bounding_decisions`], in epoch-sized
/// units of n³ (an epoch's factor and inverse of the n × n kernel matrix): 11 epochs — a
/// warm-started fit that stops at once — at 500 observations. Natively (docs/benchmarks.md) that
/// is about 0.25 s, so with the GP's conditioning and EI_MF a decision stays well under a
/// second at 1,000 observations, where one epoch already takes about 0.1–0.16 s.
pub const DECISION_WORK: f64 = 11.0 * 500.0 * 500.0 * 500.0;

/// DyHPO over a race's configurations.
#[derive(Debug, Clone)]
pub struct DyHpo {
    name: &'static str,
    settings: DeepKernelSettings,
    model: Option<DeepKernel>,
    max_observations: Option<usize>,
    refit_every: usize,
    /// Race steps (requests served) when the parameters were last fitted.
    fitted_at: Option<usize>,
    /// The last step's fit, for benchmarks; `None` when that step only conditioned the GP.
    pub last_fit: Option<FitReport>,
    /// With [`DyHpo::recording`]: how the last step scored every open configuration.
    pub last_scores: Option<Vec<StepScore>>,
    record: bool,
    /// With [`DyHpo::bounding_decisions`]: the fit that runs over several decisions, with the
    /// step count of its data and the data (standardised when it started).
    fitting: Option<FitInProgress>,
    /// With [`DyHpo::bounding_decisions`]: the most fitting one decision does, in units of n³.
    decision_work: Option<f64>,
}

/// A fit that runs over several decisions (see [`DyHpo::bounding_decisions`]).
#[derive(Debug, Clone)]
struct FitInProgress {
    /// Race steps when it started: its data are the observations of that moment.
    at: usize,
    points: Vec<CurvePoint>,
    y: Vec<f64>,
    fitting: Fitting,
    /// Started from fresh parameters after a fit that could not start (a second failure is
    /// an error, as in the unbounded path).
    fresh: bool,
}

/// How EI_MF scored advancing one configuration by one budget unit (Eq. 6-7), in the loss's
/// own units: what the Learn section shows of a DyHPO step.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepScore {
    /// The configuration.
    pub config: usize,
    /// The budget it would reach, b(x) + 1.
    pub budget: u32,
    /// Predicted loss there: mean and standard deviation of the latent f.
    pub mean: f64,
    /// See `mean`.
    pub sd: f64,
    /// The incumbent EI_MF compares against: the best loss seen at that budget (Eq. 7), or
    /// the best at any budget when nothing reached it yet.
    pub incumbent: f64,
    /// EI_MF.
    pub ei: f64,
}

impl DyHpo {
    /// DyHPO with the paper's settings.
    pub fn new() -> Self {
        Self::with_settings(DYHPO.name, DeepKernelSettings::default())
    }

    /// The ablation without the learning-curve input.
    pub fn without_cnn() -> Self {
        Self::with_settings(DYHPO_WITHOUT_CNN.name, DeepKernelSettings { filters: 0, ..Default::default() })
    }

    /// DyHPO with other surrogate settings (for tests and benchmarks).
    pub fn with_settings(name: &'static str, settings: DeepKernelSettings) -> Self {
        DyHpo {
            name,
            settings,
            model: None,
            max_observations: None,
            refit_every: 1,
            fitted_at: None,
            last_fit: None,
            last_scores: None,
            record: false,
            fitting: None,
            decision_work: None,
        }
    }

    /// Keeps each step's scores in [`DyHpo::last_scores`] (for the Learn section).
    pub fn recording(mut self) -> Self {
        self.record = true;
        self
    }

    /// Bounds each decision's fitting to [`DECISION_WORK`], for a worker that waits on it (an
    /// ask/tell session). A decision continues the fit in progress for as many epochs as the
    /// bound allows (at least one); when the fit ends, its parameters are adopted and the next
    /// fit starts on the observations of that moment, warm-started from them, in the same
    /// decision if the bound leaves room. The decision conditions the GP on every observation
    /// with the last finished fit's parameters. So while a fit fits the bound — every fit up
    /// to about 500 observations — this is the faithful method, step for step and bit for bit;
    /// beyond, the parameters are those of a fit on the observations of a few steps before
    /// (the GP still conditions on all). The fast variant's schedule is its own: no effect.
    pub fn bounding_decisions(self) -> Self {
        self.bounding_decisions_to(DECISION_WORK)
    }

    /// [`DyHpo::bounding_decisions`] with another bound, in units of n³ (for tests).
    pub fn bounding_decisions_to(mut self, work: f64) -> Self {
        // The fast variant's decisions are cheap by its own schedule.
        let faithful = self.refit_every == 1 && self.max_observations.is_none();
        self.decision_work = faithful.then_some(work);
        self
    }

    /// One decision's fitting under [`DyHpo::bounding_decisions`] on the race's current
    /// observations (`steps` requests served), and the GP with the last finished fit's
    /// parameters conditioned on them.
    fn bounded_fit(
        &mut self,
        mut work: f64,
        steps: usize,
        (points, y): (&[CurvePoint], &[f64]),
        (dims, curve_len): (usize, usize),
        rng: &mut MethodRng,
    ) -> Result<FittedDeepKernel> {
        let mut ran = false;
        loop {
            if self.fitting.is_none() {
                if self.fitted_at == Some(steps) {
                    break;
                }
                let start = self.model.clone().unwrap_or_else(|| DeepKernel::new(dims, curve_len, &self.settings, rng));
                let fitting = Fitting::start(start, points.len(), &self.settings);
                self.fitting = Some(FitInProgress { at: steps, points: points.to_vec(), y: y.to_vec(), fitting, fresh: false });
            }
            let Some(run) = self.fitting.as_mut() else { break };
            let per_epoch = (run.points.len() as f64).powi(3);
            // Without a finished fit there is nothing to decide with: the first one runs to its end.
            let epochs = if self.model.is_none() { usize::MAX } else { ((work / per_epoch) as usize).max(usize::from(!ran)) };
            if epochs == 0 {
                break;
            }
            let before = run.fitting.epochs();
            let progress = run.fitting.advance(&run.points, &run.y, &self.settings, epochs);
            ran = true;
            work -= (run.fitting.epochs() - before) as f64 * per_epoch;
            match progress {
                FitProgress::Running => break,
                FitProgress::Done(report) => {
                    let Some(FitInProgress { at, fitting, .. }) = self.fitting.take() else { break };
                    self.model = Some(fitting.into_model());
                    self.fitted_at = Some(at);
                    self.last_fit = Some(report);
                }
                FitProgress::Failed if run.fresh => return Err(self.error("the deep kernel cannot be fitted")),
                // As the authors' code: start again from fresh parameters, on the same data.
                FitProgress::Failed => {
                    let fresh = DeepKernel::new(dims, curve_len, &self.settings, rng);
                    run.fitting = Fitting::start(fresh, run.points.len(), &self.settings);
                    run.fresh = true;
                }
            }
        }
        let model = self.model.clone().ok_or_else(|| self.error("the deep kernel cannot be fitted"))?;
        if let Some(fitted) = FittedDeepKernel::new(model, points, y) {
            return Ok(fitted);
        }
        // The kept parameters cannot condition on the new data: a fit on them now, to its end.
        self.fitting = None;
        self.fitted_at = None;
        self.unbounded_fit(steps, (points, y), (dims, curve_len), rng)
    }

    /// The faithful step's fitting (and the fast variant's schedule): fit on the race's
    /// observations, warm-started, and the GP conditioned on them.
    fn unbounded_fit(
        &mut self,
        steps: usize,
        (points, y): (&[CurvePoint], &[f64]),
        (dims, curve_len): (usize, usize),
        rng: &mut MethodRng,
    ) -> Result<FittedDeepKernel> {
        let start = match self.model.take() {
            Some(m) => m,
            None => DeepKernel::new(dims, curve_len, &self.settings, rng),
        };
        let due = self.fitted_at.is_none_or(|at| steps < at || steps >= at + self.refit_every);
        // A kept model that cannot condition on the new data is refitted at once.
        let kept = if due { None } else { FittedDeepKernel::new(start.clone(), points, y) };
        match kept {
            Some(f) => Ok(f),
            None => {
                let mut model = start;
                let report = match fit(&mut model, points, y, &self.settings) {
                    Some(r) => r,
                    None => {
                        model = DeepKernel::new(dims, curve_len, &self.settings, rng);
                        fit(&mut model, points, y, &self.settings).ok_or_else(|| self.error("the deep kernel cannot be fitted"))?
                    }
                };
                self.last_fit = Some(report);
                self.fitted_at = Some(steps);
                FittedDeepKernel::new(model, points, y).ok_or_else(|| self.error("the deep kernel cannot be fitted"))
            }
        }
    }

    /// "DyHPO (fast)": the faithful model and acquisition with two shortcuts. The GP is
    /// fitted and conditioned on at most [`FAST_OBSERVATIONS`] observations — the latest of
    /// each configuration first (its curve input carries its history), then earlier ones,
    /// newest first. The parameters are fitted (warm-started, same early stopping) every
    /// [`FAST_REFIT_EVERY`] steps; in between, the GP is only conditioned on the observations
    /// with the parameters kept. Not the paper's method: the exact GP's O(n³) epochs make the
    /// faithful one slow beyond a few hundred observations (see docs/benchmarks.md).
    pub fn fast(name: &'static str) -> Self {
        DyHpo {
            max_observations: Some(FAST_OBSERVATIONS),
            refit_every: FAST_REFIT_EVERY,
            ..Self::with_settings(name, DeepKernelSettings::default())
        }
    }

    fn error(&self, message: &str) -> EngineError {
        EngineError::Method { method: self.name.into(), message: message.into() }
    }
}

impl Default for DyHpo {
    fn default() -> Self {
        Self::new()
    }
}

/// Per budget b (index b − 1): the lowest loss observed at b by any configuration, if any.
pub fn incumbents_per_budget(race: &Race) -> Vec<Option<f64>> {
    let mut best = vec![None; race.max_budget as usize];
    for curve in &race.curves {
        for (s, &v) in curve.iter().enumerate() {
            best[s] = Some(best[s].map_or(v, |b: f64| b.min(v)));
        }
    }
    best
}

/// Eq. 7 (for losses): the incumbent at budget `b` if something was observed there, else the
/// best loss observed at any budget.
pub fn incumbent_for(per_budget: &[Option<f64>], b: u32, overall: f64) -> f64 {
    per_budget.get(b as usize - 1).copied().flatten().unwrap_or(overall)
}

/// The (configuration, budget) pairs the surrogate is fitted on: all, or at most `cap`
/// chosen as [`DyHpo::fast`] describes.
fn training_set(race: &Race, cap: Option<usize>) -> Vec<(usize, u32)> {
    let all = || race.curves.iter().enumerate().flat_map(|(i, c)| (1..=c.len() as u32).map(move |b| (i, b)));
    let Some(cap) = cap.filter(|&c| race.curves.iter().map(Vec::len).sum::<usize>() > c) else { return all().collect() };
    // Configurations from the most recently trained one backwards.
    let mut recent = Vec::new();
    let mut seen = vec![false; race.curves.len()];
    for r in race.history.iter().rev() {
        if !seen[r.config] {
            seen[r.config] = true;
            recent.push(r.config);
        }
    }
    let mut chosen: Vec<(usize, u32)> = recent.iter().take(cap).map(|&i| (i, race.budget_of(i))).collect();
    'outer: for back in 1.. {
        let mut any = false;
        for &i in &recent {
            if chosen.len() >= cap {
                break 'outer;
            }
            if race.budget_of(i) > back {
                chosen.push((i, race.budget_of(i) - back));
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    chosen
}

/// Standardisation of every observed loss (mean, sd; sd 1 when all are equal).
fn standardisation(race: &Race) -> (f64, f64) {
    let all: Vec<f64> = race.curves.iter().flatten().copied().collect();
    let n = all.len().max(1) as f64;
    let mean = all.iter().sum::<f64>() / n;
    let sd = (all.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt();
    (mean, if sd > 1e-12 { sd } else { 1.0 })
}

/// The surrogate's input for configuration `i` at budget `b` with the curve before b.
fn point(x: &[f64], curve: &[f64], b: u32, race: &Race, curve_len: usize, (mean, sd): (f64, f64)) -> CurvePoint {
    let mut padded: Vec<f64> = curve[..b as usize - 1].iter().map(|v| (v - mean) / sd).collect();
    padded.resize(curve_len, 0.0);
    CurvePoint { x: x.to_vec(), budget: b as f64 / race.max_budget as f64, curve: padded }
}

impl MultiFidelityOptimizer for DyHpo {
    fn bound_decisions(&mut self) {
        *self = std::mem::take(self).bounding_decisions();
    }

    fn next(&mut self, race: &Race, candidates: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request> {
        let open: Vec<usize> = (0..race.curves.len()).filter(|&i| race.can_advance(i)).collect();
        if open.is_empty() {
            return Err(EngineError::Exhausted { method: self.name.into(), message: "every configuration is fully trained".into() });
        }
        self.last_scores = None;
        if race.history.is_empty() {
            let untouched: Vec<usize> = race.untouched().collect();
            return Ok(Request { config: untouched[index_below(rng, untouched.len())], budget: 1 });
        }
        let z = standardisation(race);
        let curve_len = (race.max_budget as usize).saturating_sub(1).max(self.settings.filter_width);
        let mut points = Vec::new();
        let mut y = Vec::new();
        for (i, b) in training_set(race, self.max_observations) {
            let curve = &race.curves[i];
            points.push(point(&candidates[i], curve, b, race, curve_len, z));
            y.push((curve[b as usize - 1] - z.0) / z.1);
        }
        let steps = race.history.len();
        self.last_fit = None;
        let shape = (candidates[0].len(), curve_len);
        let fitted = if let Some(work) = self.decision_work {
            self.bounded_fit(work, steps, (&points, &y), shape, rng)?
        } else {
            self.unbounded_fit(steps, (&points, &y), shape, rng)?
        };
        let queries: Vec<CurvePoint> =
            open.iter().map(|&i| point(&candidates[i], &race.curves[i], race.budget_of(i) + 1, race, curve_len, z)).collect();
        let per_budget: Vec<Option<f64>> = incumbents_per_budget(race).into_iter().map(|v| v.map(|v| (v - z.0) / z.1)).collect();
        let overall = y.iter().copied().fold(f64::INFINITY, f64::min);
        let incumbents: Vec<f64> = open.iter().map(|&i| incumbent_for(&per_budget, race.budget_of(i) + 1, overall)).collect();
        let ei = |p: usize, mean: f64, var: f64| expected_improvement(mean, var.sqrt(), incumbents[p]);
        // The first configuration with the highest EI (open[0] if none is above −∞).
        let pick = if self.record {
            // Every score is shown (the lessons), so every variance is finished.
            let mut best = (f64::NEG_INFINITY, open[0]);
            let mut scores = Vec::new();
            for (p, ((mean, var), &i)) in fitted.predict(&queries).into_iter().zip(&open).enumerate() {
                let score = ei(p, mean, var);
                if score > best.0 {
                    best = (score, i);
                }
                let (m, s) = z;
                let (config, budget, sd) = (i, race.budget_of(i) + 1, var.max(0.0).sqrt() * s);
                scores.push(StepScore { config, budget, mean: m + mean * s, sd, incumbent: m + incumbents[p] * s, ei: score * s });
            }
            self.last_scores = Some(scores);
            best.1
        } else {
            fitted.argmax_score(&queries, ei).map_or(open[0], |p| open[p])
        };
        self.model = Some(fitted.model().clone());
        Ok(Request { config: pick, budget: race.budget_of(pick) + 1 })
    }
}

/// A race with `observations` steps served in a DyHPO-like pattern (half fresh configurations
/// at budget 1, half one more step for a started one), for benchmarks of the surrogate.
pub fn race_with_observations(values: &[Vec<f64>], observations: usize, sign: f64, rng: &mut MethodRng) -> Race {
    let max_budget = values.iter().map(Vec::len).min().unwrap_or(0) as u32;
    let mut race = Race::new(values.len(), max_budget, u64::MAX);
    while race.history.len() < observations {
        let started: Vec<usize> = (0..values.len()).filter(|&i| (1..max_budget).contains(&race.budget_of(i))).collect();
        let fresh: Vec<usize> = race.untouched().collect();
        let i = if !started.is_empty() && (fresh.is_empty() || index_below(rng, 2) == 0) {
            started[index_below(rng, started.len())]
        } else if !fresh.is_empty() {
            fresh[index_below(rng, fresh.len())]
        } else {
            break;
        };
        let b = race.budget_of(i) + 1;
        race.curves[i].push(sign * values[i][b as usize - 1]);
        race.history.push(Request { config: i, budget: b });
    }
    race
}

/// How the faithful step's time grows: a fit of at least 11 epochs on every observation.
/// Fitted by least squares to the warm-started steps of a run on the 80-trial study Optuna
/// wrote (`tests/fixtures/studies/optuna-mlp-journal.log`, 700 steps, natively on the
/// reference host: docs/benchmarks.md, "How long a race takes"); a run of 700 steps comes to
/// about 80 s.
const FAITHFUL_STEP: StepGrowth = StepGrowth::Polynomial { base: 2e-3, square: 6.3e-7, cube: 5.5e-11, cap: None };

/// Registry entry: the paper's method.
pub const DYHPO: MethodEntry = MethodEntry {
    name: "DyHPO",
    summary: "Deep-kernel GP over learning curves, multi-fidelity EI, one budget unit per step (Wistuba et al. 2022)",
    paper: "Wistuba, Kadra & Grabocka 2022, §3, Alg. 1",
    cost: CostClass::Heavy,
    kind: MethodKind::Race {
        build: race_constructor(|name| Box::new(DyHpo::with_settings(name, DeepKernelSettings::default()))),
        step: FAITHFUL_STEP,
    },
};

/// Registry entry: the paper's ablation without the learning-curve input.
pub const DYHPO_WITHOUT_CNN: MethodEntry = MethodEntry {
    name: "DyHPO w/o CNN",
    summary: "DyHPO without the learning-curve input (the paper's ablation)",
    paper: "Wistuba, Kadra & Grabocka 2022, §5 (the ablation of Fig. 7)",
    cost: CostClass::Heavy,
    kind: MethodKind::Race {
        build: race_constructor(|name| Box::new(DyHpo::with_settings(name, DeepKernelSettings { filters: 0, ..Default::default() }))),
        step: FAITHFUL_STEP,
    },
};

/// Registry entry: not the paper's method (see [`DyHpo::fast`]).
pub const DYHPO_FAST: MethodEntry = MethodEntry {
    name: "DyHPO (fast)",
    summary: "Not the paper's method: DyHPO fitted on at most 256 observations (latest of each configuration first), for speed",
    paper: "Wistuba, Kadra & Grabocka 2022, §3, Alg. 1, with this project's shortcuts (docs/methods.md)",
    cost: CostClass::Model,
    kind: MethodKind::Race {
        build: race_constructor(|name| Box::new(DyHpo::fast(name))),
        // Its fits on at most 256 observations one step in 10; the steps between condition
        // the GP once (about 7 s for the 700 steps of the study above).
        step: StepGrowth::Polynomial { base: 2e-3, square: 1.2e-7, cube: 0.0, cap: Some(FAST_OBSERVATIONS as u64) },
    },
};

#[cfg(test)]
mod tests;
