//! A study explored: the views a researcher opens first on a file of trials — the trials
//! table, the optimization history, the trials' own intermediate values, the parameters'
//! importance, slices and a contour of a surrogate, parallel coordinates, the EDF and, for
//! several objectives, the Pareto front — computed here once for the page's workers and for
//! `hpo explore`, and written as CSV by [`files`] (page = CLI byte for byte).
//!
//! Every file that holds trials reads into one [`StudyTrials`]: an Optuna journal or SQLite
//! storage from its [`Study`] (every trial, pruned and failed ones with their intermediate
//! values), any other file from the task of its loaded [`Benchmark`] (each evaluation a
//! complete trial, its learning curve its intermediate values).
//!
//! - [`forest`], [`fanova`]: the importance (Optuna's fANOVA, with its spread over trees);
//! - [`surrogate`]: the GP's mean ± 2 sd along each parameter and over two;
//! - [`views`]: history, EDF, intermediate values, parallel coordinates, Pareto front;
//! - [`files`]: each view's CSV.

use serde::{Deserialize, Serialize};

use crate::benchmark::{Benchmark, Direction};
use crate::error::{EngineError, Result};
use crate::loaders::file_format::FileFormat;
use crate::loaders::formats::recognise;
use crate::loaders::optuna::journal::read_journal;
use crate::loaders::optuna::storage::read_storage;
use crate::loaders::table::LoadOptions;
use crate::loaders::unpacked::Unpacked;
use crate::loaders::upload::{load_unpacked, LoadFailure};
use crate::space::{ParamKind, SearchSpace};
use crate::study::encoding::search_space;
use crate::study::{Study, TrialState};

pub mod fanova;
pub mod files;
pub mod forest;
pub mod importance;
pub mod link;
pub mod surrogate;
pub mod views;

/// One trial as the views read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRow {
    /// Its number (Optuna's `trial.number`; a table's row).
    pub number: usize,
    /// Its state.
    pub state: TrialState,
    /// Each parameter's raw value (a categorical's choice index), `None` where the trial did
    /// not suggest it.
    pub params: Vec<Option<f64>>,
    /// Its objective values, when complete.
    pub values: Option<Vec<f64>>,
    /// Its intermediate values by step.
    pub intermediate: Vec<(i64, f64)>,
}

/// The trials of one study, from any file that holds trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyTrials {
    /// The study's (or task's) name.
    pub name: String,
    /// Where the trials come from, in words ("Optuna journal", …).
    pub source: String,
    /// The parameters.
    pub space: SearchSpace,
    /// Each objective's name and direction.
    pub objectives: Vec<(String, Direction)>,
    /// The trials, in their order.
    pub trials: Vec<TrialRow>,
}

impl StudyTrials {
    /// Every trial of an Optuna study.
    pub fn of_study(study: &Study, source: &str) -> Self {
        let objectives = match study.directions.len() {
            1 => vec![("value".to_string(), study.directions[0])],
            _ => study.directions.iter().enumerate().map(|(k, &d)| (format!("values_{k}"), d)).collect(),
        };
        let trials = study
            .trials
            .iter()
            .enumerate()
            .map(|(number, t)| TrialRow {
                number,
                state: t.state,
                params: study.distributions.iter().map(|(n, _)| t.params.get(n).copied()).collect(),
                values: t.values.clone(),
                intermediate: t.intermediate.iter().map(|(&s, &v)| (s, v)).collect(),
            })
            .collect();
        StudyTrials { name: study.name.clone(), source: source.to_string(), space: search_space(&study.distributions), objectives, trials }
    }

    /// The evaluations of task `task` of a loaded table, each a complete trial (its learning
    /// curve, when the table has one, its intermediate values at steps 1, 2, …). The objective
    /// is the benchmark's, or all its metrics when they are optimised jointly.
    pub fn of_task(benchmark: &Benchmark, task: usize, source: &str) -> Self {
        let t = &benchmark.tasks[task];
        let metrics: Vec<usize> =
            if benchmark.joint_objectives { (0..benchmark.metrics.len()).collect() } else { vec![benchmark.objective] };
        let trials = (0..t.len())
            .map(|i| TrialRow {
                number: i,
                state: TrialState::Complete,
                params: t.configs[i].iter().map(|&v| Some(v)).collect(),
                values: Some(metrics.iter().map(|&m| t.metrics[m][i]).collect()),
                intermediate: t
                    .curves
                    .as_ref()
                    .and_then(|c| c.values.get(i))
                    .map(|c| c.iter().enumerate().map(|(s, &v)| (s as i64 + 1, v)).collect())
                    .unwrap_or_default(),
            })
            .collect();
        StudyTrials {
            name: t.name.clone(),
            source: source.to_string(),
            space: benchmark.space.clone(),
            objectives: metrics.iter().map(|&m| (benchmark.metrics[m].name.clone(), benchmark.metrics[m].direction)).collect(),
            trials,
        }
    }

    /// The complete trials with a finite first objective value.
    pub fn complete(&self) -> impl Iterator<Item = &TrialRow> {
        self.trials
            .iter()
            .filter(|t| t.state == TrialState::Complete && t.values.as_ref().is_some_and(|v| v.first().is_some_and(|x| x.is_finite())))
    }

    /// The first objective's value as a loss (smaller is better).
    pub fn loss(&self, value: f64) -> f64 {
        self.objectives[0].1.loss(value)
    }

    /// The parameters some trial with parameters left out: conditional ones.
    pub fn conditional(&self) -> Vec<usize> {
        (0..self.space.params.len())
            .filter(|&p| self.trials.iter().filter(|t| t.params.iter().any(Option::is_some)).any(|t| t.params[p].is_none()))
            .collect()
    }

    /// Parameter `p`'s range: its bounds, or its choices' indices.
    pub fn range(&self, p: usize) -> (f64, f64) {
        match &self.space.params[p].kind {
            ParamKind::Continuous { lower, upper, .. } => (*lower, *upper),
            ParamKind::Integer { lower, upper } => (*lower as f64, *upper as f64),
            ParamKind::Categorical { levels } => (0.0, levels.len().saturating_sub(1) as f64),
        }
    }
}

/// The trials of `file`: its Optuna study (the one named `study`, or the only one), or its
/// table's task (named `study`, or the first), read as the page and `hpo run` read it.
pub fn read_trials(file: &str, bytes: &[u8], study: Option<&str>, options: &LoadOptions) -> Result<StudyTrials> {
    let unpacked = Unpacked::of(file, bytes)?;
    let format = recognise(&unpacked).map(|f| f.format);
    let studies = match format {
        Some(FileFormat::OptunaJournal) => Some(read_journal(file, unpacked.text()?)?.0),
        Some(FileFormat::OptunaStorage) => Some(read_storage(file, unpacked.bytes())?),
        _ => None,
    };
    if let Some(studies) = studies {
        let words = format.map(FileFormat::name).unwrap_or_default();
        return Ok(StudyTrials::of_study(choose(file, &studies, study, |s| &s.name)?, words));
    }
    let loaded = load_unpacked(&unpacked, options).map_err(|e| match e {
        LoadFailure::Error(m) => EngineError::Spec(m),
        LoadFailure::NeedsRoles { message, .. } => EngineError::Spec(message),
    })?;
    let tasks = &loaded.benchmark.tasks;
    let task = choose(file, tasks, study, |t| &t.name)?;
    let index = tasks.iter().position(|t| std::ptr::eq(t, task)).unwrap_or_default();
    Ok(StudyTrials::of_task(&loaded.benchmark, index, loaded.format.name()))
}

/// The study (or task) named `name` among `all`, or the only (for tasks, the first) one.
fn choose<'a, T>(file: &str, all: &'a [T], name: Option<&str>, name_of: impl Fn(&T) -> &String) -> Result<&'a T> {
    let names = || all.iter().map(|s| format!("'{}'", name_of(s))).collect::<Vec<_>>().join(", ");
    match name {
        Some(n) => all
            .iter()
            .find(|s| name_of(s) == n)
            .ok_or_else(|| EngineError::Spec(format!("{file} has no study or task '{n}'; it has: {}", names()))),
        None => all.first().ok_or_else(|| EngineError::Spec(format!("{file} holds no study"))),
    }
}

#[cfg(test)]
mod tests;
