//! What a file is, in words: the formats the loaders read and what each offers the page. A leaf
//! that every loader may name (each tags its `LoadedFile` with its format) without importing
//! the table that tries them in order (`super::formats::FORMATS`), which imports every loader.

use serde::{Deserialize, Serialize};

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileFormat {
    /// A zip of LCBench's folder (its `meta.csv` and `data_*.csv`).
    LcbenchFolder,
    /// A zip of a Ray Tune experiment's folder (`*/params.json`, `*/progress.csv`).
    RayTuneExperiment,
    /// Optuna's SQLite storage.
    OptunaStorage,
    /// Optuna's JournalStorage file.
    OptunaJournal,
    /// A learning-curve table (`e1..eN`, `step_*` or `epoch_*` columns, no `metric_*`).
    LearningCurves,
    /// Ray Tune's `ResultGrid.get_dataframe()`.
    RayTuneDataframe,
    /// Syne Tune's `results.csv`.
    SyneTuneResults,
    /// The copula paper's format (`hp_*`, `metric_*`, `task`).
    Copula,
    /// Optuna's `trials_dataframe()` CSV.
    OptunaTrialsCsv,
    /// Any table, read by the column roles its user named.
    NamedRoles,
}

impl FileFormat {
    /// The format's name in words.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::LcbenchFolder => "LCBench's folder (zip)",
            FileFormat::RayTuneExperiment => "Ray Tune experiment (zip)",
            FileFormat::OptunaStorage => "Optuna storage (SQLite)",
            FileFormat::OptunaJournal => "Optuna journal",
            FileFormat::LearningCurves => "learning curves",
            FileFormat::RayTuneDataframe => "Ray Tune result dataframe",
            FileFormat::SyneTuneResults => "Syne Tune results",
            FileFormat::Copula => "copula format",
            FileFormat::OptunaTrialsCsv => "Optuna trials_dataframe CSV",
            FileFormat::NamedRoles => "a table with the column roles named",
        }
    }

    /// Whether the next trials can be written back for a file of this format (Optuna's storages).
    pub fn takes_next_trials(self) -> bool {
        matches!(self, FileFormat::OptunaJournal | FileFormat::OptunaStorage)
    }

    /// Why a study's file of this format gets no next trials, and where they can be had: the
    /// sentence the page shows where its Next trials panel would be (a tool's file that is not
    /// one of Optuna's storages); `None` for the storages and for tables that are no study.
    pub fn why_no_next_trials(self) -> Option<&'static str> {
        match self {
            FileFormat::OptunaTrialsCsv => Some(
                "An Optuna trials CSV gets no next trials: trials_dataframe() writes the values each trial took, not the distributions they were drawn from (bounds, log scales, steps, choices), so a proposal could not keep to the study's space, and Optuna reads no enqueued trial from a CSV. Load the study's own storage instead — its JournalStorage file or its SQLite database — and this panel proposes over its space and writes enqueue.py; or let hpo_playground.optuna.Sampler propose inside Optuna (crates/py/README.md).",
            ),
            FileFormat::RayTuneExperiment | FileFormat::RayTuneDataframe => Some(
                "A Ray Tune file gets no next trials: it holds the configuration each trial ran, not the param_space they were drawn from (tune.loguniform, tune.choice, …), so a proposal could not keep to it, and Ray Tune takes new configurations from its search algorithm, not from a file. To have these methods propose inside Ray Tune, pass hpo_playground.ray_tune.Searcher as tune.TuneConfig's search_alg (crates/py/README.md).",
            ),
            FileFormat::SyneTuneResults => Some(
                "A Syne Tune results file gets no next trials: it holds the configuration each trial ran, not the config_space they were drawn from, so a proposal could not keep to it, and Syne Tune takes new configurations from its scheduler, not from a file. To have this project's multi-fidelity methods decide inside Syne Tune, use hpo_playground.syne_tune.Scheduler (crates/py/README.md).",
            ),
            _ => None,
        }
    }
}
