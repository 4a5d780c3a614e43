//! The one place a file's format is decided: an ordered table of the formats read with no
//! column roles typed, each recognised from the unpacked file ([`Unpacked`]) and loaded from
//! it; the first that recognises the file loads it. The CLI, the page's parser worker and the
//! next trials (`crate::suggest`) all ask this table.
//!
//! The order matters where formats overlap: a zip of LCBench's folder or of a Ray Tune
//! experiment is several files, recognised before its first file is read as a table; a
//! learning-curve table may also have `hp_*` columns (the copula format's), so it comes first.

use serde::{Deserialize, Serialize};

use super::copula::{copula_from_table, is_copula_table};
use super::curves::{curves_from_table, is_lcbench_layout, load_lcbench_members, step_columns};
use super::notes::Note;
use super::runs::recorded_benchmark;
use super::table::{LoadOptions, LoadedFile};
use super::{base_name, optuna, ray_tune, sqlite, syne_tune, Unpacked};
use crate::benchmark::Direction;
use crate::error::Result;

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

/// One row of [`FORMATS`].
pub struct FormatEntry {
    /// The format.
    pub format: FileFormat,
    /// Its name in words.
    pub name: &'static str,
    /// Whether the unpacked file is in this format.
    pub recognise: fn(&Unpacked) -> bool,
    /// Loads it.
    pub load: fn(&Unpacked, &LoadOptions) -> Result<LoadedFile>,
}

/// The formats, in the order they are tried.
pub const FORMATS: &[FormatEntry] = &[
    FormatEntry {
        format: FileFormat::LcbenchFolder,
        name: "LCBench's folder (zip)",
        recognise: |u| is_lcbench_layout(&u.member_names()),
        load: |u, _| {
            let members: Vec<(String, Vec<u8>)> = u.members().iter().map(|(path, data)| (base_name(path), data.clone())).collect();
            load_lcbench_members(u.file(), &members)
        },
    },
    FormatEntry {
        format: FileFormat::RayTuneExperiment,
        name: "Ray Tune experiment (zip)",
        recognise: |u| ray_tune::is_experiment_folder(&u.member_paths()),
        load: |u, o| {
            recorded_benchmark(u.file(), ray_tune::from_experiment_folder(u.file(), u.members())?, o, FileFormat::RayTuneExperiment)
        },
    },
    FormatEntry {
        format: FileFormat::OptunaStorage,
        name: "Optuna storage (SQLite)",
        recognise: |u| u.bytes().starts_with(sqlite::MAGIC),
        load: |u, o| optuna::storage_benchmark(u.file(), u.bytes(), o),
    },
    FormatEntry {
        format: FileFormat::OptunaJournal,
        name: "Optuna journal",
        recognise: |u| u.text().is_ok_and(optuna::is_journal),
        load: |u, o| optuna::journal_benchmark(u.file(), u.text()?, o),
    },
    FormatEntry {
        format: FileFormat::LearningCurves,
        name: "learning curves",
        recognise: |u| u.table().is_ok_and(|t| step_columns(t).len() >= 2 && !t.headers.iter().any(|h| h.starts_with("metric_"))),
        load: load_learning_curves,
    },
    FormatEntry {
        format: FileFormat::RayTuneDataframe,
        name: "Ray Tune result dataframe",
        recognise: |u| u.table().is_ok_and(ray_tune::is_result_dataframe),
        load: |u, o| recorded_benchmark(u.file(), ray_tune::from_result_dataframe(u.file(), u.table()?)?, o, FileFormat::RayTuneDataframe),
    },
    FormatEntry {
        format: FileFormat::SyneTuneResults,
        name: "Syne Tune results",
        recognise: |u| u.table().is_ok_and(syne_tune::is_results),
        load: |u, o| recorded_benchmark(u.file(), syne_tune::from_results(u.file(), u.table()?)?, o, FileFormat::SyneTuneResults),
    },
    FormatEntry {
        format: FileFormat::Copula,
        name: "copula format",
        recognise: |u| u.table().is_ok_and(is_copula_table),
        load: |u, o| copula_from_table(u.file(), u.table()?, o),
    },
    FormatEntry {
        format: FileFormat::OptunaTrialsCsv,
        name: "Optuna trials_dataframe CSV",
        recognise: |u| u.table().is_ok_and(optuna::is_trials_dataframe),
        load: |u, o| optuna::from_trials_dataframe(u.file(), u.table()?, o),
    },
];

/// A learning-curve table with no roles named: the objective is the value at the last step,
/// minimised unless the link says max (said in a note).
fn load_learning_curves(u: &Unpacked, options: &LoadOptions) -> Result<LoadedFile> {
    let table = u.table()?;
    let steps = step_columns(table).len();
    let direction = options.direction.unwrap_or(Direction::Minimize);
    let mut loaded = curves_from_table(u.file(), table.clone(), "final_value", direction, options)?;
    loaded.notes.push(Note::CurveSteps { file: u.file().to_string(), steps, direction });
    Ok(loaded)
}

/// The first format of [`FORMATS`] that recognises `unpacked`, if any.
pub fn recognise(unpacked: &Unpacked) -> Option<&'static FormatEntry> {
    FORMATS.iter().find(|f| (f.recognise)(unpacked))
}

impl FileFormat {
    /// The format's name in words.
    pub fn name(self) -> &'static str {
        match FORMATS.iter().find(|f| f.format == self) {
            Some(f) => f.name,
            None => "a table with the column roles named",
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

#[cfg(test)]
mod tests;
