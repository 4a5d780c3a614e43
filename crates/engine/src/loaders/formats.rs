//! The one place a file's format is decided: an ordered table of the formats read with no
//! column roles typed, each recognised from the unpacked file ([`Unpacked`]) and loaded from
//! it; the first that recognises the file loads it. The CLI, the page's parser worker and the
//! next trials (`crate::suggest`) all ask this table.
//!
//! The order matters where formats overlap: a zip of LCBench's folder or of a Ray Tune
//! experiment is several files, recognised before its first file is read as a table; a
//! learning-curve table may also have `hp_*` columns (the copula format's), so it comes first.

use super::copula::{copula_from_table, is_copula_table};
use super::curves::{curves_from_table, is_lcbench_layout, load_lcbench_members, step_columns};
use super::file_format::FileFormat;
use super::notes::Note;
use super::runs::recorded_benchmark;
use super::table::{LoadOptions, LoadedFile};
use super::{base_name, optuna, ray_tune, sqlite, syne_tune, Unpacked};
use crate::benchmark::Direction;
use crate::error::Result;

/// One row of [`FORMATS`].
pub struct FormatEntry {
    /// The format (its name in words: [`FileFormat::name`]).
    pub format: FileFormat,
    /// Whether the unpacked file is in this format.
    pub recognise: fn(&Unpacked) -> bool,
    /// Loads it.
    pub load: fn(&Unpacked, &LoadOptions) -> Result<LoadedFile>,
}

/// The formats, in the order they are tried.
pub const FORMATS: &[FormatEntry] = &[
    FormatEntry {
        format: FileFormat::LcbenchFolder,
        recognise: |u| is_lcbench_layout(&u.member_names()),
        load: |u, _| {
            let members: Vec<(String, Vec<u8>)> = u.members().iter().map(|(path, data)| (base_name(path), data.clone())).collect();
            load_lcbench_members(u.file(), &members)
        },
    },
    FormatEntry {
        format: FileFormat::RayTuneExperiment,
        recognise: |u| ray_tune::is_experiment_folder(&u.member_paths()),
        load: |u, o| {
            recorded_benchmark(u.file(), ray_tune::from_experiment_folder(u.file(), u.members())?, o, FileFormat::RayTuneExperiment)
        },
    },
    FormatEntry {
        format: FileFormat::OptunaStorage,
        recognise: |u| u.bytes().starts_with(sqlite::MAGIC),
        load: |u, o| optuna::storage_benchmark(u.file(), u.bytes(), o),
    },
    FormatEntry {
        format: FileFormat::OptunaJournal,
        recognise: |u| u.text().is_ok_and(optuna::is_journal),
        load: |u, o| optuna::journal_benchmark(u.file(), u.text()?, o),
    },
    FormatEntry {
        format: FileFormat::LearningCurves,
        recognise: |u| u.table().is_ok_and(|t| step_columns(t).len() >= 2 && !t.headers.iter().any(|h| h.starts_with("metric_"))),
        load: load_learning_curves,
    },
    FormatEntry {
        format: FileFormat::RayTuneDataframe,
        recognise: |u| u.table().is_ok_and(ray_tune::is_result_dataframe),
        load: |u, o| recorded_benchmark(u.file(), ray_tune::from_result_dataframe(u.file(), u.table()?)?, o, FileFormat::RayTuneDataframe),
    },
    FormatEntry {
        format: FileFormat::SyneTuneResults,
        recognise: |u| u.table().is_ok_and(syne_tune::is_results),
        load: |u, o| recorded_benchmark(u.file(), syne_tune::from_results(u.file(), u.table()?)?, o, FileFormat::SyneTuneResults),
    },
    FormatEntry {
        format: FileFormat::Copula,
        recognise: |u| u.table().is_ok_and(is_copula_table),
        load: |u, o| copula_from_table(u.file(), u.table()?, o),
    },
    FormatEntry {
        format: FileFormat::OptunaTrialsCsv,
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

#[cfg(test)]
mod tests;
