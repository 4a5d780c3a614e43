//! An Optuna study as the engine models it: its [`Distribution`]s, its [`Trial`]s and their
//! [`TrialState`]s, and the rules that make its trials evaluations. The loaders read the
//! journal, the SQLite storage and the trials table into a [`Study`]; `crate::suggest`
//! proposes the next trials of one; the Python package builds one from its JSON description.
//! Each of them reads the same rules here, so that a distribution Optuna refuses is refused
//! everywhere alike and the page, the CLI and Python draw and convert the same bits.
//!
//! The data layer: this module imports no loader, method or runner.
//!
//! - [`distribution`]: one distribution — its validity, kind, inactive value, steps, draws and
//!   external ↔ internal values.
//! - [`encoding`]: a configuration of distributions as the models encode and search it.
//! - [`trial`]: a trial and its states.
//! - [`rules`]: what a study's trials are as evaluations (same space, complete trials,
//!   conditional parameters at their inactive values).

use crate::benchmark::Direction;

pub mod distribution;
pub mod encoding;
pub mod rules;
pub mod trial;

pub use distribution::{choice_name, Distribution};
pub use rules::Condition;
pub use trial::{Trial, TrialState};

/// One study of a journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    /// Its id in the journal (creation order, deleted studies included).
    pub id: usize,
    /// Its name.
    pub name: String,
    /// The direction of each objective.
    pub directions: Vec<Direction>,
    /// Each parameter's distribution, in the order first suggested.
    pub distributions: Vec<(String, Distribution)>,
    /// The trials, in the order they were created.
    pub trials: Vec<Trial>,
}

#[cfg(test)]
mod tests;
