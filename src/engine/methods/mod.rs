//! Full-evaluation methods, one file per method (or per paper variant pair), each declaring
//! its [`crate::engine::registry::MethodEntry`] beside the code it builds.

pub mod ablr;
pub mod auto_gp;
pub mod ehvi;
pub mod gcp;
pub mod gp;
pub mod parego;
pub mod prior_gp;
pub mod random_search;
pub mod scalarized;
pub mod sgpt;
pub mod surrogate_bo;
pub mod thompson;
pub mod ws_gp;

use std::sync::Arc;

use super::prior::TrainedPrior;
use super::warping::OutputWarp;

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
