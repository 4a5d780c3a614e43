//! The copula paper's "+MO" variants (Salinas et al. 2020, §5.2): a single-objective method
//! run on the average of the objectives, each warped first with Z (ψ for the copula methods,
//! Δ for the others) on the observations so far. The base method is unchanged — the runner
//! feeds it the scalarized losses — so an entry here is its base's entry with a new name and
//! the [`MethodObjectives::Scalarized`] kind. Defaults: the base method's.

use super::{gcp, gp, prior_gp, thompson};
use crate::method_entry::{MethodEntry, MethodKind, MethodObjectives};
use crate::warping::OutputWarp;

/// The "+MO" variant of `base`, averaging objectives warped with `warp`.
const fn scalarized(base: MethodEntry, name: &'static str, summary: &'static str, warp: OutputWarp) -> MethodEntry {
    let (transfer, build) = match base.kind {
        MethodKind::Full { transfer, build, .. } => (transfer, build),
        MethodKind::Race { .. } => panic!("a race method has no +MO variant"),
    };
    MethodEntry {
        name,
        summary,
        paper: "Salinas et al. 2020, §5.2",
        cost: base.cost,
        kind: MethodKind::Full { objectives: MethodObjectives::Scalarized(warp), transfer, build },
    }
}

/// GP on the average of the standardised objectives.
pub const GP_MO: MethodEntry =
    scalarized(gp::GP, "GP+MO", "GP on the average of the standardised objectives (linear scalarization)", OutputWarp::Standardize);
/// GCP on the average of the ψ-warped objectives.
pub const GCP_MO: MethodEntry = scalarized(gcp::GCP, "GCP+MO", "GCP on the average of the ψ-warped objectives", OutputWarp::Copula);
/// CTS with a prior trained on the average of the ψ-warped objectives.
pub const CTS_MO: MethodEntry = scalarized(
    thompson::CTS,
    "CTS+MO",
    "Copula Thompson sampling, prior trained on the average of ψ-warped objectives",
    OutputWarp::Copula,
);
/// TS with a prior trained on the average of the standardised objectives.
pub const TS_MO: MethodEntry = scalarized(
    thompson::TS,
    "TS+MO",
    "Thompson sampling, prior trained on the average of standardised objectives",
    OutputWarp::Standardize,
);
/// GCP+prior on the average of the ψ-warped objectives.
pub const GCP_PRIOR_MO: MethodEntry =
    scalarized(prior_gp::GCP_PRIOR, "GCP+prior+MO", "GCP+prior on the average of the ψ-warped objectives", OutputWarp::Copula);
/// GP+prior on the average of the standardised objectives.
pub const GP_PRIOR_MO: MethodEntry =
    scalarized(prior_gp::GP_PRIOR, "GP+prior+MO", "GP+prior on the average of the standardised objectives", OutputWarp::Standardize);
