//! The catalogue of methods: one file per method, built by name.

pub mod gcp;
pub mod gp;
pub mod prior_gp;
pub mod random_search;
pub mod surrogate_bo;
pub mod thompson;

use std::sync::Arc;

use super::error::{EngineError, Result};
use super::optimizer::Optimizer;
use super::prior::TrainedPrior;
use super::warping::OutputWarp;

/// What the page and the CLI show about a method.
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    /// Name as in the paper, written verbatim in the traces' `optimizer` column.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// The parametric prior it needs (trained on the other tasks with this warp), if any.
    pub prior: Option<OutputWarp>,
}

/// Every method the engine can run.
pub const METHODS: &[MethodInfo] = &[
    MethodInfo { name: "RS", summary: "Random search without replacement", prior: None },
    MethodInfo { name: "GP", summary: "GP (Matérn-5/2 ARD) on standardised y, expected improvement", prior: None },
    MethodInfo { name: "GCP", summary: "Gaussian Copula Process: GP on ψ(y) = Φ⁻¹(F(y)), expected improvement", prior: None },
    MethodInfo {
        name: "CTS",
        summary: "Copula Thompson sampling from the MLP prior trained on ψ of the other tasks",
        prior: Some(OutputWarp::Copula),
    },
    MethodInfo {
        name: "TS",
        summary: "Thompson sampling from the MLP prior trained on Δ of the other tasks (ablation)",
        prior: Some(OutputWarp::Standardize),
    },
    MethodInfo {
        name: "GCP+prior",
        summary: "GCP on the residual of the ψ prior, 5 CTS warm-start evaluations (the paper's method)",
        prior: Some(OutputWarp::Copula),
    },
    MethodInfo {
        name: "GP+prior",
        summary: "GP on the residual of the Δ prior, 5 TS warm-start evaluations (ablation)",
        prior: Some(OutputWarp::Standardize),
    },
];

/// Looks a method up by name.
pub fn method_info(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.name == name)
}

/// Builds a fresh optimizer for one job; `prior` must be given for methods that need one.
pub fn build_optimizer(name: &str, prior: Option<Arc<TrainedPrior>>) -> Result<Box<dyn Optimizer>> {
    let needs_prior = || EngineError::Spec(format!("method '{name}' needs a trained prior"));
    match name {
        "RS" => Ok(Box::new(random_search::RandomSearch::new())),
        "GP" => Ok(Box::new(gp::gp())),
        "GCP" => Ok(Box::new(gcp::gcp())),
        "CTS" | "TS" => Ok(Box::new(thompson::PriorThompson::new(prior.ok_or_else(needs_prior)?))),
        "GCP+prior" => Ok(Box::new(prior_gp::PriorResidualGp::new(OutputWarp::Copula, prior.ok_or_else(needs_prior)?))),
        "GP+prior" => Ok(Box::new(prior_gp::PriorResidualGp::new(OutputWarp::Standardize, prior.ok_or_else(needs_prior)?))),
        other => Err(EngineError::Spec(format!(
            "unknown method '{other}'; available: {}",
            METHODS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
        ))),
    }
}
