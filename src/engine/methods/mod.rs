//! The catalogue of methods: one file per method, built by name.

pub mod ablr;
pub mod auto_gp;
pub mod ehvi;
pub mod gcp;
pub mod gp;
pub mod parego;
pub mod prior_gp;
pub mod random_search;
pub mod sgpt;
pub mod surrogate_bo;
pub mod thompson;
pub mod ws_gp;

use std::sync::Arc;

use super::error::{EngineError, Result};
use super::optimizer::Optimizer;
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

/// What the page and the CLI show about a method.
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    /// Name as in the paper, written verbatim in the traces' `optimizer` column.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// The parametric prior it needs (trained on the other tasks with this warp), if any.
    pub prior: Option<OutputWarp>,
    /// Whether it needs the other tasks' best configurations.
    pub uses_other_best: bool,
    /// Whether it needs one GP per other task (SGPT), and on which warp of their values.
    pub other_task_gps: Option<OutputWarp>,
    /// Whether it needs the other tasks' evaluations themselves (ABLR).
    pub uses_other_data: bool,
    /// How many objectives it optimises.
    pub objectives: MethodObjectives,
}

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
    pub other_data: Vec<(Vec<Vec<f64>>, Vec<f64>)>,
}

/// Every method the engine can run.
pub const METHODS: &[MethodInfo] = &[
    MethodInfo {
        name: "RS",
        summary: "Random search without replacement",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Any,
    },
    MethodInfo {
        name: "GP",
        summary: "GP (Matérn-5/2 ARD) on standardised y, expected improvement",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "GCP",
        summary: "Gaussian Copula Process: GP on ψ(y) = Φ⁻¹(F(y)), expected improvement",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "CTS",
        summary: "Copula Thompson sampling from the MLP prior trained on ψ of the other tasks",
        prior: Some(OutputWarp::Copula),
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "TS",
        summary: "Thompson sampling from the MLP prior trained on Δ of the other tasks (ablation)",
        prior: Some(OutputWarp::Standardize),
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "GCP+prior",
        summary: "GCP on the residual of the ψ prior, 5 CTS warm-start evaluations (the paper's method)",
        prior: Some(OutputWarp::Copula),
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "GP+prior",
        summary: "GP on the residual of the Δ prior, 5 TS warm-start evaluations (ablation)",
        prior: Some(OutputWarp::Standardize),
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "WS-GP",
        summary: "GP warm-started with the best configuration of each other task",
        prior: None,
        uses_other_best: true,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "AutoGP",
        summary: "GP inside the bounding box of the other tasks' best configurations",
        prior: None,
        uses_other_best: true,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "ABLR",
        summary: "Shared 3×50 tanh network with Bayesian linear regression per task (Δ), EI (Perrone et al. 2018)",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: true,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "ABLR Copula",
        summary: "ABLR with ψ instead of Δ on every task",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: true,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "SGPT",
        summary: "GPs per task (Δ), weighted by rank matching (ρ = 0.01), transfer acquisition (Wistuba et al. 2018)",
        prior: None,
        uses_other_best: false,
        other_task_gps: Some(OutputWarp::Standardize),
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    MethodInfo {
        name: "SGPT Copula",
        summary: "SGPT with ψ instead of Δ on every task",
        prior: None,
        uses_other_best: false,
        other_task_gps: Some(OutputWarp::Copula),
        uses_other_data: false,
        objectives: MethodObjectives::Single,
    },
    scalarized("GP+MO", "GP on the average of the standardised objectives (linear scalarization)", None, OutputWarp::Standardize),
    scalarized("GCP+MO", "GCP on the average of the ψ-warped objectives", None, OutputWarp::Copula),
    scalarized(
        "CTS+MO",
        "Copula Thompson sampling, prior trained on the average of ψ-warped objectives",
        Some(OutputWarp::Copula),
        OutputWarp::Copula,
    ),
    scalarized(
        "TS+MO",
        "Thompson sampling, prior trained on the average of standardised objectives",
        Some(OutputWarp::Standardize),
        OutputWarp::Standardize,
    ),
    scalarized("GCP+prior+MO", "GCP+prior on the average of the ψ-warped objectives", Some(OutputWarp::Copula), OutputWarp::Copula),
    scalarized(
        "GP+prior+MO",
        "GP+prior on the average of the standardised objectives",
        Some(OutputWarp::Standardize),
        OutputWarp::Standardize,
    ),
    MethodInfo {
        name: "ParEGO",
        summary: "Random augmented Chebyshev scalarization each step, GP-EI on it (Knowles 2006)",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Pareto { max_objectives: crate::engine::spec::MAX_OBJECTIVES },
    },
    MethodInfo {
        name: "EHVI",
        summary: "Expected hypervolume improvement, independent GPs per objective (exact, 2 objectives)",
        prior: None,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Pareto { max_objectives: 2 },
    },
];

const fn scalarized(name: &'static str, summary: &'static str, prior: Option<OutputWarp>, warp: OutputWarp) -> MethodInfo {
    MethodInfo {
        name,
        summary,
        prior,
        uses_other_best: false,
        other_task_gps: None,
        uses_other_data: false,
        objectives: MethodObjectives::Scalarized(warp),
    }
}

/// Suffix of the paper's scalarized multi-objective variants.
pub const MO_SUFFIX: &str = "+MO";

/// Looks a method up by name.
pub fn method_info(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.name == name)
}

/// Builds a fresh optimizer for one job with what it may learn from the other tasks.
pub fn build_optimizer(name: &str, transfer: TransferContext) -> Result<Box<dyn Optimizer>> {
    if let Some(base) = name.strip_suffix(MO_SUFFIX) {
        // The runner feeds the scalarized losses; the base method is unchanged.
        return build_optimizer(base, transfer);
    }
    let prior = transfer.prior;
    let needs_prior = || EngineError::Spec(format!("method '{name}' needs a trained prior"));
    match name {
        "RS" => Ok(Box::new(random_search::RandomSearch::new())),
        "GP" => Ok(Box::new(gp::gp())),
        "GCP" => Ok(Box::new(gcp::gcp())),
        "CTS" | "TS" => Ok(Box::new(thompson::PriorThompson::new(prior.ok_or_else(needs_prior)?))),
        "GCP+prior" => Ok(Box::new(prior_gp::PriorResidualGp::new(OutputWarp::Copula, prior.ok_or_else(needs_prior)?))),
        "GP+prior" => Ok(Box::new(prior_gp::PriorResidualGp::new(OutputWarp::Standardize, prior.ok_or_else(needs_prior)?))),
        "WS-GP" => Ok(Box::new(ws_gp::ws_gp(transfer.other_best))),
        "AutoGP" => Ok(Box::new(auto_gp::auto_gp(&transfer.other_best))),
        "ABLR" => Ok(Box::new(ablr::Ablr::new(OutputWarp::Standardize, &transfer.other_data))),
        "ABLR Copula" => Ok(Box::new(ablr::Ablr::new(OutputWarp::Copula, &transfer.other_data))),
        "SGPT" | "SGPT Copula" => {
            let warp = if name == "SGPT" { OutputWarp::Standardize } else { OutputWarp::Copula };
            let means =
                transfer.other_task_means.ok_or_else(|| EngineError::Spec(format!("method '{name}' needs the other tasks' GPs")))?;
            Ok(Box::new(sgpt::Sgpt::new(warp, means)))
        }
        "ParEGO" => Ok(Box::new(parego::ParEgo::new())),
        "EHVI" => Ok(Box::new(ehvi::Ehvi::new())),
        other => Err(EngineError::Spec(format!(
            "unknown method '{other}'; available: {}",
            METHODS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
        ))),
    }
}
