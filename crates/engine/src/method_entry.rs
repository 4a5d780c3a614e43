//! What a method is, apart from any particular method: its kind of run, what it learns from
//! the other tasks, its cost and its constructor. Each method file declares its
//! [`MethodEntry`] next to the code it builds, and `registry.rs` lists them; this module
//! imports no method, so the method files and the table both stand above it.
//!
//! A build with the feature `registry-only` (the page's: it shows the methods, its workers
//! run them) has the same entries without their constructors ([`full_constructor`],
//! [`race_constructor`]), so that no method's code is linked into it.

use std::sync::Arc;

use super::error::{EngineError, Result};
use super::optimizer::Optimizer;
use super::prior::TrainedPrior;
use super::race::MultiFidelityOptimizer;
use super::warping::OutputWarp;

/// Most objectives of a multi-objective run (exact hypervolumes grow fast with the dimension);
/// the link validator, the setup and the Pareto methods' entries read it.
pub const MAX_OBJECTIVES: usize = 5;

/// The two kinds of run: every evaluation at full fidelity, or a multi-fidelity race.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunKind {
    /// Each step evaluates one configuration fully (the copula paper's setting).
    Full,
    /// Each step trains one configuration further along its learning curve (DyHPO's setting).
    Race,
}

/// What a full-evaluation method learns from the other tasks of the benchmark. Anything but
/// `None` needs the leave-one-task-out protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferNeed {
    /// Nothing: the method sees the target task only.
    None,
    /// The parametric prior trained on the other tasks' values under this warp (CTS, TS,
    /// GCP+prior, GP+prior and their +MO variants).
    Prior(OutputWarp),
    /// The best configuration of each other task (WS-GP, AutoGP).
    OtherBest,
    /// One GP per other task on values under this warp, as its means at the target's
    /// candidates (SGPT, SGPT Copula).
    OtherTaskGps(OutputWarp),
    /// Every evaluation of every other task (ABLR, ABLR Copula).
    OtherData,
}

impl TransferNeed {
    /// True when the method needs the other tasks at all.
    pub fn learns_from_other_tasks(self) -> bool {
        self != TransferNeed::None
    }

    /// The warp of the prior it needs, if it needs one.
    pub fn prior(self) -> Option<OutputWarp> {
        match self {
            TransferNeed::Prior(warp) => Some(warp),
            _ => None,
        }
    }
}

/// How long a job of the method takes, roughly; the pool and the CLI schedule by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CostClass {
    /// No model: a job takes microseconds to milliseconds.
    Instant,
    /// Fits a model at some steps: a job takes seconds.
    Model,
    /// Fits a large model at every step: a job takes minutes (the faithful DyHPO).
    Heavy,
}

/// Builds a fresh full-evaluation optimizer for one job from what it may learn.
pub type BuildFull = fn(TransferContext) -> Result<Box<dyn Optimizer>>;

/// Builds a fresh multi-fidelity optimizer for one job, labelled with its entry's name (what
/// its errors say).
pub type BuildRace = fn(&'static str) -> Box<dyn MultiFidelityOptimizer>;

/// `build` as a full-evaluation entry's constructor: `None` in a build without constructors
/// (feature `registry-only`), where the entry only describes its method. A constant's value
/// holds no reference to a constructor left out, so nothing links the method's code in.
pub const fn full_constructor(build: BuildFull) -> Option<BuildFull> {
    if cfg!(feature = "registry-only") {
        None
    } else {
        Some(build)
    }
}

/// [`full_constructor`] for a race entry.
pub const fn race_constructor(build: BuildRace) -> Option<BuildRace> {
    if cfg!(feature = "registry-only") {
        None
    } else {
        Some(build)
    }
}

/// The kind of run a method belongs to, with what that kind needs to know.
#[derive(Clone, Copy)]
pub enum MethodKind {
    /// Full evaluations.
    Full {
        /// How many objectives it optimises.
        objectives: MethodObjectives,
        /// What it learns from the other tasks.
        transfer: TransferNeed,
        /// Its constructor ([`full_constructor`]).
        build: Option<BuildFull>,
    },
    /// A multi-fidelity race.
    Race {
        /// Its constructor ([`race_constructor`]).
        build: Option<BuildRace>,
        /// How its step's time grows over a race.
        step: StepGrowth,
    },
}

/// How long a race method's step takes at its n-th step (n budget units spent), natively on
/// this project's reference host (docs/benchmarks.md, "How long a race takes"): the shape a
/// job's time left follows ([`crate::eta`]) and what the default race reads to choose a
/// method that finishes ([`crate::registry::stand_in`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepGrowth {
    /// About the same at every step (no model, or one that does not grow with the race).
    Flat,
    /// `base + square·m² + cube·m³` seconds at m = min(n, `cap`) observations: a model refitted
    /// on every observation. A deep-kernel epoch builds and differentiates the n × n kernel
    /// over 128 features (the square term, which dominates up to about 1,000 observations)
    /// and factors and inverts it (the cube term).
    Polynomial {
        /// Seconds of a step's fixed part.
        base: f64,
        /// Seconds per m².
        square: f64,
        /// Seconds per m³.
        cube: f64,
        /// The most observations the model sees.
        cap: Option<u64>,
    },
}

impl StepGrowth {
    /// The work of steps 1..=`steps`: reference seconds for [`StepGrowth::Polynomial`], steps
    /// for [`StepGrowth::Flat`] (the time left uses only ratios of it).
    pub fn through(self, steps: u64) -> f64 {
        match self {
            StepGrowth::Flat => steps as f64,
            StepGrowth::Polynomial { base, square, cube, cap } => {
                let m = cap.map_or(steps, |c| c.min(steps)) as f64;
                let beyond = steps as f64 - m;
                // Σ n² and Σ n³ over n ≤ m in closed form, then every later step at m.
                let squares = m * (m + 1.0) * (2.0 * m + 1.0) / 6.0 + beyond * m * m;
                let cubes = (m * (m + 1.0) / 2.0).powi(2) + beyond * m * m * m;
                base * steps as f64 + square * squares + cube * cubes
            }
        }
    }
}

/// One method.
#[derive(Clone, Copy)]
pub struct MethodEntry {
    /// Name as in the paper: what links carry and what the traces' `optimizer` column holds.
    pub name: &'static str,
    /// One line for the page and the CLI's help.
    pub summary: &'static str,
    /// The paper and section it implements.
    pub paper: &'static str,
    /// Its kind of run.
    pub kind: MethodKind,
    /// How long its jobs take.
    pub cost: CostClass,
}

impl std::fmt::Debug for MethodEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.name, self.run_kind())
    }
}

impl PartialEq for MethodEntry {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.run_kind() == other.run_kind()
    }
}

impl MethodEntry {
    /// Its kind of run.
    pub fn run_kind(&self) -> RunKind {
        match self.kind {
            MethodKind::Full { .. } => RunKind::Full,
            MethodKind::Race { .. } => RunKind::Race,
        }
    }

    /// How its step's time grows over a run (flat for full evaluations: a few hundred
    /// evaluations at most, each fit small).
    pub fn step_growth(&self) -> StepGrowth {
        match self.kind {
            MethodKind::Full { .. } => StepGrowth::Flat,
            MethodKind::Race { step, .. } => step,
        }
    }

    /// What it learns from the other tasks (races learn nothing from them).
    pub fn transfer(&self) -> TransferNeed {
        match self.kind {
            MethodKind::Full { transfer, .. } => transfer,
            MethodKind::Race { .. } => TransferNeed::None,
        }
    }

    /// How many objectives it optimises (a race optimises one).
    pub fn objectives(&self) -> MethodObjectives {
        match self.kind {
            MethodKind::Full { objectives, .. } => objectives,
            MethodKind::Race { .. } => MethodObjectives::Single,
        }
    }

    /// A fresh full-evaluation optimizer.
    pub fn build_full(&self, transfer: TransferContext) -> Result<Box<dyn Optimizer>> {
        match self.kind {
            MethodKind::Full { build: Some(build), .. } => build(transfer).map_err(|e| e.for_method(self.name)),
            MethodKind::Full { build: None, .. } => Err(self.not_in_this_build()),
            MethodKind::Race { .. } => Err(EngineError::Spec(format!("{} runs in a multi-fidelity race only", self.name))),
        }
    }

    /// A fresh multi-fidelity optimizer.
    pub fn build_race(&self) -> Result<Box<dyn MultiFidelityOptimizer>> {
        match self.kind {
            MethodKind::Race { build: Some(build), .. } => Ok(build(self.name)),
            MethodKind::Race { build: None, .. } => Err(self.not_in_this_build()),
            MethodKind::Full { .. } => Err(EngineError::Spec(format!("{} does not run in a multi-fidelity race", self.name))),
        }
    }

    /// What building the method says in a build without constructors (`registry-only`).
    fn not_in_this_build(&self) -> EngineError {
        EngineError::Spec(format!(
            "{} cannot run here: this build describes the methods without their code (it runs in the workers)",
            self.name
        ))
    }
}

/// How many objectives a method optimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodObjectives {
    /// One or several: the method ignores losses (random search).
    Any,
    /// Exactly one.
    Single,
    /// Several, averaged after the warp Z of each objective (the paper's "+MO" scalarization,
    /// §5.2: Z = ψ for copula methods, Δ for the others); the base method sees the average.
    Scalarized(OutputWarp),
    /// Several, kept apart (dedicated multi-objective methods).
    Pareto {
        /// Largest number of objectives handled.
        max_objectives: usize,
    },
}

/// One task's evaluations as a model sees them: (encoded configurations, losses).
pub type Evaluations = (Vec<Vec<f64>>, Vec<f64>);

/// What a method may learn from the other tasks (leave-one-task-out).
#[derive(Debug, Clone, Default)]
pub struct TransferContext {
    /// The trained prior, for methods that declare one.
    pub prior: Option<Arc<TrainedPrior>>,
    /// The best configuration of each other task (encoded), for WS-GP and AutoGP.
    pub other_best: Vec<Vec<f64>>,
    /// The mean of each other task's GP at every target candidate, for SGPT.
    pub other_task_means: Option<Arc<Vec<Vec<f64>>>>,
    /// Every evaluation of each other task: (encoded configurations, losses), for ABLR.
    pub other_data: Vec<Evaluations>,
}
