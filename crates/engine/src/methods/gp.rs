//! GP: Bayesian optimization with a GP on standardised losses and expected improvement — the
//! "GP" baseline of Salinas et al. (2020, §5 and Table 2).
//!
//! Defaults: Matérn-5/2 ARD kernel, constant mean, Gaussian noise, hyperparameters by type-II
//! maximum likelihood (L-BFGS, 2 starts: the default and the previous optimum), y standardised
//! with Δ on the task's observations, EI maximised over every remaining candidate. The paper
//! does not state the initial design; we use 5 uniformly random configurations, the N₀ = 5 of
//! its own Algorithm 2.

use super::surrogate_bo::{GpEiSearch, OutputWarp};
use crate::gp::GpSettings;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// Random evaluations before the first GP fit.
pub const INITIAL_DESIGN: usize = 5;

/// The GP baseline with its defaults.
pub fn gp() -> GpEiSearch {
    GpEiSearch::new(OutputWarp::Standardize, INITIAL_DESIGN, GpSettings::default())
}

/// Registry entry.
pub const GP: MethodEntry = MethodEntry {
    name: "GP",
    summary: "GP (Matérn-5/2 ARD) on standardised y, expected improvement",
    paper: "Salinas et al. 2020, §5 and Table 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::None,
        build: full_constructor(|_| Ok(Box::new(gp()))),
    },
};
