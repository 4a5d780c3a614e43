//! The catalogue of methods: one file per method, built by name.

pub mod gcp;
pub mod gp;
pub mod random_search;
pub mod surrogate_bo;

use super::error::{EngineError, Result};
use super::optimizer::Optimizer;

/// What the page and the CLI show about a method.
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    /// Name as in the paper, written verbatim in the traces' `optimizer` column.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Whether the method uses the other tasks' evaluations.
    pub uses_transfer: bool,
}

/// Every method the engine can run.
pub const METHODS: &[MethodInfo] = &[
    MethodInfo { name: "RS", summary: "Random search without replacement", uses_transfer: false },
    MethodInfo { name: "GP", summary: "GP (Matérn-5/2 ARD) on standardised y, expected improvement", uses_transfer: false },
    MethodInfo { name: "GCP", summary: "Gaussian Copula Process: GP on ψ(y) = Φ⁻¹(F(y)), expected improvement", uses_transfer: false },
];

/// Looks a method up by name.
pub fn method_info(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.name == name)
}

/// Builds a fresh optimizer for one job.
pub fn build_optimizer(name: &str) -> Result<Box<dyn Optimizer>> {
    match name {
        "RS" => Ok(Box::new(random_search::RandomSearch::new())),
        "GP" => Ok(Box::new(gp::gp())),
        "GCP" => Ok(Box::new(gcp::gcp())),
        other => Err(EngineError::Spec(format!(
            "unknown method '{other}'; available: {}",
            METHODS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
        ))),
    }
}
