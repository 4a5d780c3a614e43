//! One trial of a study and the states Optuna gives it, with the journal's codes and the
//! names SQLite storages and the Python package write: what every reader of a study maps its
//! trials onto.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Optuna's trial states, as its journal numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TrialState {
    /// Still running (a study in progress).
    Running,
    /// Finished with its value.
    Complete,
    /// Stopped early by a pruner.
    Pruned,
    /// Raised an error.
    Fail,
    /// Enqueued, not started.
    Waiting,
}

/// The states in the order of the journal's codes for them.
const STATES: [TrialState; 5] = [TrialState::Running, TrialState::Complete, TrialState::Pruned, TrialState::Fail, TrialState::Waiting];

impl TrialState {
    /// The state the journal numbers `code`.
    pub fn from_code(code: i64) -> Option<Self> {
        usize::try_from(code).ok().and_then(|c| STATES.get(c)).copied()
    }

    /// The journal's number for this state.
    pub fn code(self) -> i64 {
        STATES.iter().position(|&s| s == self).unwrap_or_default() as i64
    }

    /// The state by Optuna's name for it (`TrialState.COMPLETE.name`), as SQLite storages and
    /// the Python package write it.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "RUNNING" => TrialState::Running,
            "COMPLETE" => TrialState::Complete,
            "PRUNED" => TrialState::Pruned,
            "FAIL" => TrialState::Fail,
            "WAITING" => TrialState::Waiting,
            _ => return None,
        })
    }
}

/// One trial of a study.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// Its state.
    pub state: TrialState,
    /// Internal values of its parameters (a categorical's is the choice's index).
    pub params: BTreeMap<String, f64>,
    /// Its objective values, once complete.
    pub values: Option<Vec<f64>>,
    /// Intermediate values by step (the learning curve).
    pub intermediate: BTreeMap<i64, f64>,
    /// Its constraint values by name (Optuna's `trial.set_constraint`, or the list a
    /// sampler's `constraints_func` stored, by position): feasible when every one is ≤ 0.
    pub constraints: BTreeMap<String, f64>,
}
