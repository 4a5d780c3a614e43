//! GCP: the Gaussian Copula Process without the parametric prior — the ablation "GCP" of
//! Salinas et al. (2020, §4.2 and Table 2): a GP on z = ψ(y) = Φ⁻¹(F(y)), F the winsorized
//! empirical CDF of the task's observations, with expected improvement on z.
//!
//! Defaults as for [`super::gp`] (Matérn-5/2 ARD, type-II ML, EI over all remaining
//! candidates); the warm start is 5 uniformly random configurations (ψ needs observations;
//! with the prior, Algorithm 2 draws these 5 by CTS instead).

use super::surrogate_bo::{GpEiSearch, OutputWarp};
use crate::gp::GpSettings;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// Random evaluations before the first GP fit.
pub const INITIAL_DESIGN: usize = 5;

/// GCP without prior, with its defaults.
pub fn gcp() -> GpEiSearch {
    GpEiSearch::new(OutputWarp::Copula, INITIAL_DESIGN, GpSettings::default())
}

/// Registry entry.
pub const GCP: MethodEntry = MethodEntry {
    name: "GCP",
    summary: "Gaussian Copula Process: GP on ψ(y) = Φ⁻¹(F(y)), expected improvement",
    paper: "Salinas et al. 2020, §4.2 and Table 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::None,
        build: full_constructor(|_| Ok(Box::new(gcp()))),
    },
};
