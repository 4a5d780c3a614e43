//! What a job leaves behind: its trace (every evaluation of a full-evaluation run, or every
//! served request of a race) and what it reports while it runs. Plain data below the runners,
//! so that whatever reads a trace (metrics, exports, the kept store, the page) stands below
//! the code that makes one.

use serde::{Deserialize, Serialize};

use crate::race::RaceRow;

/// What a running job reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobProgress {
    /// Training the parametric prior: steps done of total (before the first iteration).
    Prior {
        /// Adam steps done.
        step: u32,
        /// Adam steps in all.
        total: u32,
    },
    /// Iterations done.
    Iterations(u32),
    /// Multi-fidelity races: budget units spent of the run's total.
    Budget {
        /// Units spent.
        spent: u64,
        /// Units in all.
        total: u64,
    },
}

/// One evaluation of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    /// 0-based iteration.
    pub iteration: u32,
    /// Index of the evaluated configuration in its task.
    pub candidate: usize,
    /// Objective value at that configuration (raw, in the metric's own direction).
    pub value: f64,
    /// Best value so far (in the objective's direction).
    pub best: f64,
    /// Seconds the optimizer spent deciding (suggest + observe); not part of equality checks.
    pub optimizer_seconds: f64,
    /// Multi-objective runs: the raw value of every objective (then `value` and `best` are the
    /// first objective's); empty otherwise.
    #[serde(default)]
    pub objectives: Vec<f64>,
    /// Multi-objective runs: hypervolume error after this evaluation, with every objective
    /// normalised to [0, 1] by its range over the task (reference point (1, …, 1)).
    #[serde(default)]
    pub hv_error: Option<f64>,
}

/// The result of one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Method name.
    pub method: String,
    /// Benchmark name.
    pub blackbox: String,
    /// Task name.
    pub task: String,
    /// Seed.
    pub seed: u64,
    /// What the run did: full evaluations or a race.
    pub body: TraceBody,
}

/// The two shapes of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TraceBody {
    /// Full evaluations.
    Evaluations {
        /// One row per iteration.
        rows: Vec<TraceRow>,
        /// Methods with a parametric prior: its RMSE on the target task's warped values (Fig. 4).
        prior_rmse: Option<f64>,
    },
    /// A multi-fidelity race: every served request.
    Race(Vec<RaceRow>),
}

impl Trace {
    /// What the job spent: its evaluations, or a race's budget units (a race ends early when
    /// its table is used up).
    pub fn units_spent(&self) -> u64 {
        match &self.body {
            TraceBody::Evaluations { rows, .. } => rows.len() as u64,
            TraceBody::Race(rows) => rows.last().map_or(0, |r| r.spent),
        }
    }

    /// The evaluations of a full-evaluation run, one per iteration (none for a race).
    pub fn rows(&self) -> &[TraceRow] {
        match &self.body {
            TraceBody::Evaluations { rows, .. } => rows,
            TraceBody::Race(_) => &[],
        }
    }

    /// The requests of a race, `None` for a full-evaluation run.
    pub fn race(&self) -> Option<&[RaceRow]> {
        match &self.body {
            TraceBody::Race(rows) => Some(rows),
            TraceBody::Evaluations { .. } => None,
        }
    }

    /// The prior's RMSE on the target task, for methods with a prior.
    pub fn prior_rmse(&self) -> Option<f64> {
        match self.body {
            TraceBody::Evaluations { prior_rmse, .. } => prior_rmse,
            TraceBody::Race(_) => None,
        }
    }
}
