//! Ray Tune's files as its users have them, read with no column roles typed: the
//! `ResultGrid.get_dataframe()` CSV (one row per trial, its last report, `config/*` the
//! configuration) and the experiment folder zipped as it lies on disk (one folder per trial:
//! `params.json`, the reports in `progress.csv` or `result.json`, `error.txt` when it failed).
//! Both become [`RecordedRuns`]: a trial is complete when it trained for as many iterations as
//! any trial did; those ASHA (or another scheduler) stopped earlier are counted, not compared.

use std::collections::BTreeMap;

use serde_json::Value;

use super::roles::reported_metrics;
use super::runs::{from_tool_table, RecordedRun, RecordedRuns};
use super::table::{read_table, CsvTable};
use crate::benchmark::Metric;
use crate::error::{EngineError, Result};

const PREFIX: &str = "config/";
const STEP: &str = "training_iteration";

/// Whether a table is `ResultGrid.get_dataframe()`'s: `trial_id`, `training_iteration` and
/// `config/*` columns.
pub fn is_result_dataframe(table: &CsvTable) -> bool {
    let has = |h: &str| table.headers.iter().any(|x| x == h);
    has("trial_id") && has(STEP) && table.headers.iter().any(|h| h.starts_with(PREFIX))
}

/// The metric a Ray Tune file reports: the first numeric column that is neither the
/// configuration nor Ray's bookkeeping, minimised unless its name says otherwise (the files
/// do not record the mode).
fn metric_of(file: &str, table: &CsvTable) -> Result<Metric> {
    reported_metrics(table)
        .into_iter()
        .find(|m| !m.name.starts_with(PREFIX))
        .ok_or_else(|| EngineError::parse(file, "a Ray Tune file with no reported metric (a numeric column besides Ray's own)"))
}

/// The trials of a `get_dataframe()` CSV: one report each, after `training_iteration` steps.
pub fn from_result_dataframe(file: &str, table: &CsvTable) -> Result<RecordedRuns> {
    let name = super::copula::file_stem(file);
    from_tool_table(file, table, PREFIX, "trial_id", STEP, &format!("Ray Tune results dataframe '{name}'"), "Ray Tune")
}

/// Whether zip member paths are a Ray Tune experiment folder: trial folders with a
/// `params.json` beside `progress.csv` or `result.json`.
pub fn is_experiment_folder(paths: &[String]) -> bool {
    paths
        .iter()
        .filter_map(|p| p.strip_suffix("/params.json"))
        .any(|dir| paths.iter().any(|q| q == &format!("{dir}/progress.csv") || q == &format!("{dir}/result.json")))
}

/// A trial folder's configuration, flattened as Ray names it (`a/b` for nested keys).
fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                flatten(&if prefix.is_empty() { k.clone() } else { format!("{prefix}/{k}") }, v, out);
            }
        }
        Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

/// A trial's reports as a table: `progress.csv` as it is, or `result.json`'s lines (one JSON
/// object per report) with their scalar fields.
fn reports(file: &str, progress: Option<&[u8]>, result: Option<&[u8]>) -> Result<Option<CsvTable>> {
    if let Some(bytes) = progress.filter(|b| !b.is_empty()) {
        let text = String::from_utf8_lossy(bytes);
        return read_table(file, &text).map(Some);
    }
    let Some(bytes) = result.filter(|b| !b.is_empty()) else { return Ok(None) };
    let lines: Vec<BTreeMap<String, Value>> =
        String::from_utf8_lossy(bytes).lines().filter(|l| !l.trim().is_empty()).filter_map(|l| serde_json::from_str(l).ok()).collect();
    let Some(first) = lines.first() else { return Ok(None) };
    let headers: Vec<String> =
        first.iter().filter(|(_, v)| v.is_number() || v.is_string() || v.is_boolean()).map(|(k, _)| k.clone()).collect();
    let rows = lines
        .iter()
        .map(|l| {
            csv::StringRecord::from(
                headers
                    .iter()
                    .map(|h| l.get(h).map_or(String::new(), |v| v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    Ok(Some(CsvTable { headers, rows }))
}

/// The trials of a zipped experiment folder, in the order Ray created them (their folder
/// names carry the trial's number).
pub fn from_experiment_folder(file: &str, members: &[(String, Vec<u8>)]) -> Result<RecordedRuns> {
    let member = |path: &str| members.iter().find(|(p, _)| p == path).map(|(_, b)| b.as_slice());
    let mut dirs: Vec<&str> = members.iter().filter_map(|(p, _)| p.strip_suffix("/params.json")).collect();
    dirs.sort_by_key(|d| trial_number(d));
    if dirs.is_empty() {
        return Err(EngineError::parse(file, "a zip with no Ray Tune trial folder in it (each trial's folder holds params.json)"));
    }
    let experiment = dirs[0]
        .rsplit_once('/')
        .map_or(super::copula::file_stem(file), |(parent, _)| parent.rsplit('/').next().unwrap_or(parent).to_string());
    let mut metric: Option<Metric> = None;
    let mut hyperparameters: Vec<String> = Vec::new();
    let mut trials = Vec::new();
    for dir in &dirs {
        let params: Value = serde_json::from_slice(member(&format!("{dir}/params.json")).unwrap_or_default())
            .map_err(|e| EngineError::parse(file, format!("{dir}/params.json is not JSON ({e})")))?;
        let mut config = Vec::new();
        flatten("", &params, &mut config);
        for (k, _) in &config {
            if !hyperparameters.contains(k) {
                hyperparameters.push(k.clone());
            }
        }
        let table = reports(&format!("{file}/{dir}"), member(&format!("{dir}/progress.csv")), member(&format!("{dir}/result.json")))?;
        if metric.is_none() {
            metric = table.as_ref().and_then(|t| metric_of(file, t).ok());
        }
        let failed = member(&format!("{dir}/error.txt")).is_some();
        trials.push((config, table, failed));
    }
    let metric = metric.ok_or_else(|| EngineError::parse(file, "no trial of this Ray Tune experiment reported a metric"))?;
    let runs = trials
        .into_iter()
        .map(|(config, table, failed)| {
            let curve: Vec<f64> = table
                .as_ref()
                .and_then(|t| t.column(&metric.name).map(|c| t.rows.iter().map(|r| r[c].parse::<f64>().unwrap_or(f64::NAN)).collect()))
                .unwrap_or_default();
            let config: BTreeMap<String, String> = config.into_iter().collect();
            RecordedRun {
                task: String::new(),
                config: hyperparameters.iter().map(|h| config.get(h).cloned().unwrap_or_default()).collect(),
                reached: curve.len() as u32,
                failed: failed || curve.is_empty(),
                curve,
            }
        })
        .collect();
    Ok(RecordedRuns {
        what: format!("Ray Tune experiment '{experiment}'"),
        name: experiment,
        tool: "Ray Tune".into(),
        stopped: "stopped early",
        hyperparameters,
        categorical: Vec::new(),
        metric,
        step_name: STEP.into(),
        runs,
    })
}

/// The trial's number in its folder name (`trainable_f1b77_00036_36_lr=…`): the token after
/// the run id's five-digit counter; folders without one sort last, by name.
fn trial_number(dir: &str) -> (u64, String) {
    let name = dir.rsplit('/').next().unwrap_or(dir);
    let number = name.split('_').find(|t| t.len() == 5 && t.bytes().all(|b| b.is_ascii_digit())).and_then(|t| t.parse().ok());
    (number.unwrap_or(u64::MAX), name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loaders::upload::load_file;

    const DATAFRAME: &str = include_str!("../../../../tests/fixtures/studies/raytune-mlp-dataframe.csv");
    const EXPERIMENT: &[u8] = include_bytes!("../../../../tests/fixtures/studies/raytune-mlp-experiment.zip");

    #[test]
    fn the_dataframe_loads_with_its_complete_trials_and_no_roles() {
        let loaded = load_file("raytune-mlp-dataframe.csv", DATAFRAME.as_bytes(), None).unwrap();
        let b = &loaded.benchmark;
        let names: Vec<&str> = b.space.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["lr", "weight_decay", "n_units", "optimizer"]);
        assert_eq!(b.metrics[0].name, "val_loss");
        let task = &b.tasks[0];
        let history = task.history.as_ref().unwrap();
        // 79 trials in the dataframe (the failed one is not in it), the 20 at 20 iterations complete.
        assert_eq!(history.trials.len(), 79);
        let complete = history.trials.iter().filter(|t| t.value.is_some()).count();
        assert_eq!(task.len(), complete);
        assert!(history.trials.iter().filter(|t| t.value.is_some()).all(|t| t.steps == 20));
        assert!(task.curves.is_none(), "a dataframe holds only last reports");
        assert!(loaded.notes[0].to_string().contains("79 trials (20 complete, 59 stopped early)"), "{:?}", loaded.notes);
        assert!(matches!(b.space.params[0].kind, crate::space::ParamKind::Continuous { log: true, .. }), "{:?}", b.space.params[0]);
    }

    #[test]
    fn the_experiment_folder_loads_with_curves_and_its_failed_trial() {
        let loaded = load_file("raytune-mlp-experiment.zip", EXPERIMENT, None).unwrap();
        let b = &loaded.benchmark;
        assert_eq!(b.tasks[0].name, "mlp-asha");
        let history = b.tasks[0].history.as_ref().unwrap();
        assert_eq!(history.trials.len(), 80);
        let complete = history.trials.iter().filter(|t| t.value.is_some()).count();
        let curves = b.tasks[0].curves.as_ref().expect("progress.csv curves");
        assert_eq!(curves.values.len(), complete);
        assert!(curves.values.iter().all(|c| c.len() == 20));
        // Each complete trial's value is its curve's last point.
        assert_eq!(b.tasks[0].metrics[0], curves.values.iter().map(|c| c[19]).collect::<Vec<_>>());
        assert!(loaded.notes[0].to_string().contains("1 failed"), "{:?}", loaded.notes);
        assert!(loaded.notes[0].to_string().contains("curves of 20 steps over training_iteration"), "{:?}", loaded.notes);
        // The dataframe of the same run has the same complete trials.
        let df = load_file("raytune-mlp-dataframe.csv", DATAFRAME.as_bytes(), None).unwrap();
        assert_eq!(df.benchmark.tasks[0].len(), complete);
    }

    #[test]
    fn a_zip_without_trial_folders_is_said() {
        let err = from_experiment_folder("x.zip", &[("a/b.txt".into(), b"x".to_vec())]).unwrap_err().to_string();
        assert!(err.contains("no Ray Tune trial folder"), "{err}");
    }
}
