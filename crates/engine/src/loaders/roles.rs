//! The page's first guess of a CSV's column roles, and what tools' bookkeeping looks like: a
//! file's hyperparameters, objectives, task, learning-curve steps, and the run and step
//! columns of a long-format table, from the columns' names and values.

use super::curves::step_columns;
use super::table::{guess_direction, ColumnRoles, CsvTable};
use crate::benchmark::Metric;

const METRIC_WORDS: &[&str] =
    &["loss", "error", "err", "acc", "accuracy", "auc", "score", "metric", "rmse", "mse", "mae", "f1", "objective", "target", "value", "y"];
const TASK_WORDS: &[&str] = &["task", "dataset", "data", "problem", "benchmark"];

/// Words of a column name that mark what tools write about a run rather than its
/// configuration or result: times, dates, durations, process ids, hosts, addresses, paths,
/// counters, states.
const BOOKKEEPING_WORDS: &[&str] = &[
    "time",
    "timestamp",
    "date",
    "datetime",
    "duration",
    "elapsed",
    "pid",
    "host",
    "hostname",
    "node",
    "ip",
    "address",
    "addr",
    "path",
    "logdir",
    "dir",
    "checkpoint",
    "state",
    "status",
    "done",
    "id",
    "uuid",
    "worker",
    "decision",
    "attrs",
];
/// Whole names of counters and run numbers.
const BOOKKEEPING_NAMES: &[&str] = &[
    "number",
    "trial",
    "training_iteration",
    "iterations_since_restore",
    "episodes_total",
    "timesteps_total",
    "step",
    "epoch",
    "iteration",
];
/// Prefixes of the tools' own records (Optuna's attributes, Syne Tune's `st_*`).
const BOOKKEEPING_PREFIXES: &[&str] = &["system_attrs", "user_attrs", "st_"];
/// Prefixes the tools give their hyperparameters: Optuna's `params_*`, Ray Tune's `config/*`,
/// Syne Tune's `config_*`.
const HYPERPARAMETER_PREFIXES: &[&str] = &["params_", "config/", "config_"];

/// Whether column `c` is bookkeeping: by its name's words, or by its values (dates, times,
/// durations, addresses and paths are text no search space holds).
fn is_bookkeeping(table: &CsvTable, c: usize) -> bool {
    let name = table.headers[c].to_ascii_lowercase();
    if HYPERPARAMETER_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    if BOOKKEEPING_NAMES.contains(&name.as_str()) || BOOKKEEPING_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return true;
    }
    if name.split(['_', '-', '/', '.', ':', ' ']).any(|part| BOOKKEEPING_WORDS.contains(&part)) {
        return true;
    }
    let looks_like_run_record = |v: &str| {
        let b = v.as_bytes();
        let date = b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-';
        let clock = v.contains(':')
            && v.chars().filter(|ch| ch.is_ascii_digit()).count() >= 4
            && v.chars().all(|ch| ch.is_ascii_digit() || " :.-days".contains(ch));
        let address = v.split('.').count() == 4 && v.split('.').all(|p| p.parse::<u8>().is_ok());
        date || clock || address || v.starts_with('/') || v.contains(":\\")
    };
    let values: Vec<&str> = table.rows.iter().take(50).map(|r| &r[c]).filter(|v| !v.is_empty()).collect();
    !values.is_empty() && values.iter().all(|v| looks_like_run_record(v))
}

/// Whether column `c` holds numbers (or nothing) in its first 200 rows, and some number.
fn is_numeric(table: &CsvTable, c: usize) -> bool {
    let cells = || table.rows.iter().take(200).map(|r| &r[c]);
    cells().all(|v| v.parse::<f64>().is_ok() || v.is_empty()) && cells().any(|v| !v.is_empty())
}

/// What a tool's run reported besides its configuration and the tool's own records: the
/// numeric columns that are neither bookkeeping nor named as hyperparameters, with the
/// direction their names suggest.
pub(super) fn reported_metrics(table: &CsvTable) -> Vec<Metric> {
    let prefixed = |h: &str| HYPERPARAMETER_PREFIXES.iter().any(|p| h.starts_with(p));
    (0..table.headers.len())
        .filter(|&c| !table.headers[c].is_empty() && !prefixed(&table.headers[c]) && !is_bookkeeping(table, c) && is_numeric(table, c))
        .map(|c| Metric { name: table.headers[c].clone(), direction: guess_direction(&table.headers[c]) })
        .collect()
}

/// Names of a run's id and of its step count in long-format curve tables.
const RUN_NAMES: &[&str] = &["trial_id", "trial", "trial_number", "run", "run_id", "config_id", "configuration"];
const STEP_NAMES: &[&str] = &["step", "epoch", "training_iteration", "iteration", "iter", "st_worker_iter", "budget"];

/// A long-format curve table's run and step columns: a run-like column whose values repeat
/// and a step-like numeric one.
fn long_format_columns(table: &CsvTable) -> Option<(String, String)> {
    let find = |names: &[&str]| table.headers.iter().position(|h| names.contains(&h.to_ascii_lowercase().as_str()));
    let run = find(RUN_NAMES)?;
    let step = find(STEP_NAMES).filter(|&c| is_numeric(table, c))?;
    let distinct: std::collections::BTreeSet<&str> = table.rows.iter().map(|r| &r[run]).collect();
    (distinct.len() < table.rows.len()).then(|| (table.headers[run].clone(), table.headers[step].clone()))
}

/// A first guess of column roles: metric-like names are objectives, a task-like name is the
/// task, bookkeeping columns (times, dates, ids, hosts, paths, counters, states: see
/// [`is_bookkeeping`]) are left out, the other columns are hyperparameters (text ones
/// categorical) — only the prefixed ones when the file names its hyperparameters as a tool
/// does (`params_*`, `config/*`, `config_*`).
pub fn guess_roles(table: &CsvTable) -> ColumnRoles {
    let prefixed = |h: &str| HYPERPARAMETER_PREFIXES.iter().any(|p| h.starts_with(p));
    let tool_names_its_hyperparameters = table.headers.iter().any(|h| prefixed(h));
    let mut roles = ColumnRoles::default();
    // Learning-curve steps (k ≥ 1) by name; a step 0 column (the untrained value) is left out.
    let steps = step_columns(table);
    let step_zero: Vec<&String> =
        table.headers.iter().filter(|h| h.as_str() == "e0" || h.as_str() == "step_0" || h.as_str() == "epoch_0").collect();
    if steps.len() >= 2 {
        roles.steps = steps.iter().map(|&(_, c)| table.headers[c].clone()).collect();
    } else if let Some((run, step)) = long_format_columns(table) {
        // One row per run and step: the run's rows make its learning curve.
        roles.run = Some(run);
        roles.step = Some(step);
    }
    for (c, h) in table.headers.iter().enumerate() {
        if roles.steps.contains(h)
            || step_zero.contains(&h)
            || h == "config_id"
            || roles.run.as_ref() == Some(h)
            || roles.step.as_ref() == Some(h)
            || is_bookkeeping(table, c)
        {
            continue;
        }
        let lower = h.to_ascii_lowercase();
        let numeric = table.rows.iter().take(200).all(|r| r[c].parse::<f64>().is_ok() || r[c].is_empty());
        if roles.task.is_none() && TASK_WORDS.contains(&lower.as_str()) {
            roles.task = Some(h.clone());
        } else if numeric && METRIC_WORDS.iter().any(|w| lower == *w || lower.split(['_', '-', ' ']).any(|part| part == *w)) {
            roles.metrics.push(Metric { name: h.clone(), direction: guess_direction(h) });
        } else if tool_names_its_hyperparameters && !prefixed(h) && numeric && !h.is_empty() {
            // What such a tool's run reported besides its configuration: a result.
            roles.metrics.push(Metric { name: h.clone(), direction: guess_direction(h) });
        } else if !h.is_empty() && (!tool_names_its_hyperparameters || prefixed(h)) {
            roles.hyperparameters.push(h.clone());
            if !numeric {
                roles.categorical.push(h.clone());
            }
        }
    }
    if roles.metrics.is_empty() && roles.steps.is_empty() {
        // Without a metric-like name, the last numeric column is the likeliest objective.
        if let Some(pos) = roles.hyperparameters.iter().rposition(|h| !roles.categorical.contains(h)) {
            let h = roles.hyperparameters.remove(pos);
            roles.metrics.push(Metric { name: h.clone(), direction: guess_direction(&h) });
        }
    }
    roles.objective = roles.metrics.first().map(|m| m.name.clone()).unwrap_or_default();
    roles
}
