//! Syne Tune's results as its tuner writes them (`results.csv`, or `results.csv.zip` in the
//! tuner's folder), read with no column roles typed: one row per report, `trial_id` the
//! trial, `config_*` its configuration, `st_*` Syne Tune's bookkeeping, and the metric the
//! training script reported. A trial is complete when it reported as many times as any
//! trial did; those its scheduler stopped earlier are counted, not compared.

use super::runs::{from_tool_table, RecordedRuns};
use super::table::CsvTable;
use crate::error::Result;

const PREFIX: &str = "config_";
/// Syne Tune's count of a trial's reports (from 0), the step of its curve.
const STEP: &str = "st_worker_iter";

/// Whether a table is Syne Tune's results: `trial_id`, `st_*` bookkeeping and `config_*`.
pub fn is_results(table: &CsvTable) -> bool {
    let has = |h: &str| table.headers.iter().any(|x| x == h);
    has("trial_id") && has(STEP) && has("st_tuner_time") && table.headers.iter().any(|h| h.starts_with(PREFIX))
}

/// The trials of Syne Tune's results, in the order they first reported.
pub fn from_results(file: &str, table: &CsvTable) -> Result<RecordedRuns> {
    let name = super::copula::file_stem(file);
    let mut runs = from_tool_table(file, table, PREFIX, "trial_id", STEP, &format!("Syne Tune results '{name}'"), "Syne Tune")?;
    runs.step_name = "reports".into();
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use crate::loaders::upload::load_file;

    const RESULTS: &[u8] = include_bytes!("../../../../tests/fixtures/studies/synetune-mlp-results.csv.zip");

    #[test]
    fn the_results_load_with_curves_and_stopped_trials_counted() {
        let loaded = load_file("synetune-mlp-results.csv.zip", RESULTS, None).unwrap();
        let b = &loaded.benchmark;
        let names: Vec<&str> = b.space.params.iter().map(|p| p.name.as_str()).collect();
        // `epochs` is 20 in every trial: a constant of the study, said, not searched.
        assert_eq!(names, ["lr", "weight_decay", "n_units", "optimizer"]);
        assert!(loaded.notes.iter().any(|w| w.to_string().contains("epochs = 20")), "{:?}", loaded.notes);
        assert_eq!(b.metrics[0].name, "val_loss");
        let task = &b.tasks[0];
        let history = task.history.as_ref().unwrap();
        assert_eq!(history.trials.len(), 59);
        let complete = history.trials.iter().filter(|t| t.value.is_some()).count();
        assert!((5..59).contains(&complete), "{complete}");
        assert_eq!(task.curves.as_ref().unwrap().values.len(), complete);
        assert!(task.curves.as_ref().unwrap().values.iter().all(|c| c.len() == 20));
        assert!(
            loaded.notes[0].to_string().contains(&format!("59 trials ({complete} complete, {} stopped early)", 59 - complete)),
            "{:?}",
            loaded.notes
        );
    }
}
