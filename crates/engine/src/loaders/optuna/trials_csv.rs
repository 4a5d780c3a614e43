//! Optuna's `study.trials_dataframe().to_csv(...)`: one row a trial, `params_*` its
//! parameters, `value` (or `values_k`) its objectives, `state` its state.

use super::states_in_words;
use crate::axis::count;
use crate::benchmark::{Direction, Metric};
use crate::error::{EngineError, Result};
use crate::loaders::file_format::FileFormat;
use crate::loaders::notes::Note;
use crate::loaders::table::{build_benchmark, ColumnRoles, CsvTable, LoadOptions, LoadedFile};
use crate::study::TrialState;

/// Whether a table is `trials_dataframe()`'s: `number`, `state`, `params_*` and `value` (or
/// `values_0`, … for several objectives).
pub fn is_trials_dataframe(table: &CsvTable) -> bool {
    let has = |h: &str| table.headers.iter().any(|x| x == h);
    has("number") && has("state") && (has("value") || has("values_0")) && table.headers.iter().any(|h| h.starts_with("params_"))
}

/// A `trials_dataframe()` CSV as one task: its COMPLETE trials are the evaluations
/// (`params_*` the hyperparameters, `value` or `values_k` the objectives); the other states
/// are counted in the summary line. The CSV does not hold the directions: minimised unless the
/// link says otherwise, and said.
pub fn from_trials_dataframe(file: &str, table: &CsvTable, options: &LoadOptions) -> Result<LoadedFile> {
    let state_col = table.column("state").ok_or_else(|| EngineError::parse(file, "no 'state' column"))?;
    let states: Vec<TrialState> = table
        .rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            TrialState::from_name(&row[state_col]).ok_or_else(|| EngineError::Parse {
                file: file.into(),
                row: Some(r + 2),
                column: Some("state".into()),
                message: format!("'{}' is not an Optuna trial state (COMPLETE, PRUNED, FAIL, RUNNING, WAITING)", &row[state_col]),
            })
        })
        .collect::<Result<_>>()?;
    if !states.contains(&TrialState::Complete) {
        return Err(EngineError::parse(
            file,
            format!("an Optuna study with no complete trial: {}; nothing to compare yet", states_in_words(&states)),
        ));
    }
    // The hyperparameters without Optuna's prefix; every other column is bookkeeping.
    let params: Vec<(usize, String)> =
        table.headers.iter().enumerate().filter_map(|(c, h)| h.strip_prefix("params_").map(|n| (c, n.to_string()))).collect();
    let objectives: Vec<(usize, String)> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == "value" || h.strip_prefix("values_").is_some_and(|k| k.parse::<usize>().is_ok()))
        .map(|(c, h)| (c, h.clone()))
        .collect();
    let keep: Vec<usize> = params.iter().chain(&objectives).map(|(c, _)| *c).collect();
    let complete = CsvTable {
        headers: params.iter().map(|(_, n)| n.clone()).chain(objectives.iter().map(|(_, n)| n.clone())).collect(),
        rows: table
            .rows
            .iter()
            .zip(&states)
            .filter(|(_, s)| **s == TrialState::Complete)
            .map(|(row, _)| csv::StringRecord::from(keep.iter().map(|&c| &row[c]).collect::<Vec<_>>()))
            .collect(),
    };
    let roles = ColumnRoles {
        hyperparameters: params.iter().map(|(_, n)| n.clone()).collect(),
        categorical: Vec::new(),
        metrics: objectives.iter().map(|(_, n)| Metric { name: n.clone(), direction: Direction::Minimize }).collect(),
        objective: objectives[0].1.clone(),
        task: None,
        steps: Vec::new(),
        run: None,
        step: None,
    };
    let scales = LoadOptions { detect_scales: true, ..options.clone() };
    let (benchmark, mut notes) = build_benchmark(file, &crate::loaders::copula::file_stem(file), &complete, &roles, &scales)?;
    let said = Note::said(
        file,
        format!(
            "an Optuna study (trials_dataframe): {}, {} (params_*); the {} complete trials are the evaluations, pruned and failed ones are counted, not compared (their values are not final)",
            states_in_words(&states),
            count(params.len(), "hyperparameter"),
            states.iter().filter(|&&s| s == TrialState::Complete).count(),
        ),
    );
    // The link's direction is the user's word; without it the CSV leaves the direction unsaid.
    if options.direction.is_none() {
        notes.insert(
            0,
            Note::DirectionAssumed { file: file.to_string(), objective: roles.objective.clone(), direction: Direction::Minimize },
        );
    }
    notes.insert(0, said);
    Ok(LoadedFile { benchmark, notes, format: FileFormat::OptunaTrialsCsv })
}
