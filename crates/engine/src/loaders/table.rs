//! Generic CSV tables and the assignment of column roles (hyperparameter, metric, task).
//!
//! The copula-format loader infers roles from column names; a user uploading any other CSV
//! assigns them in the page. Both end here, in [`build_benchmark`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::clean::{parse_cell, repair_values, spans_decades, MissingPolicy, Repaired};
use super::file_format::FileFormat;
use super::notes::Note;
use crate::benchmark::{Benchmark, Direction, Metric, Task};
use crate::error::{EngineError, Result};
use crate::space::{Hyperparameter, ParamKind, SearchSpace};

/// A parsed CSV: header and rows of equal width.
#[derive(Debug, Clone)]
pub struct CsvTable {
    /// Column names.
    pub headers: Vec<String>,
    /// Data rows (without the header).
    pub rows: Vec<csv::StringRecord>,
}

impl CsvTable {
    /// Index of a column by name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }
}

/// Parses CSV text; every row must have as many fields as the header.
pub fn read_table(file: &str, text: &str) -> Result<CsvTable> {
    let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
    let headers: Vec<String> =
        reader.headers().map_err(|e| csv_error(file, e))?.iter().map(|h| h.trim_start_matches('\u{feff}').to_string()).collect();
    if headers.iter().all(|h| h.is_empty()) {
        return Err(EngineError::parse(file, "the file is empty or has no header line"));
    }
    let mut seen = BTreeSet::new();
    for h in &headers {
        if !h.is_empty() && !seen.insert(h.as_str()) {
            return Err(EngineError::Parse {
                file: file.into(),
                row: Some(1),
                column: Some(h.clone()),
                message: "this column name appears twice in the header".into(),
            });
        }
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        rows.push(record.map_err(|e| csv_error(file, e))?);
    }
    if rows.is_empty() {
        return Err(EngineError::parse(file, "the file has a header but no data rows"));
    }
    Ok(CsvTable { headers, rows })
}

fn csv_error(file: &str, e: csv::Error) -> EngineError {
    let row = e.position().map(|p| p.line() as usize);
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("expected {expected_len} fields like the header, found {len}")
        }
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8 text".to_string(),
        _ => format!("malformed CSV ({e})"),
    };
    EngineError::Parse { file: file.into(), row, column: None, message }
}

/// A benchmark read from a file, ready to install, with its non-fatal notes (dropped rows,
/// repaired values, detected scales, what a study file held).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedFile {
    /// The benchmark.
    pub benchmark: Benchmark,
    /// Non-fatal notes.
    pub notes: Vec<Note>,
    /// What the file was recognised as.
    pub format: FileFormat,
}

/// Which column plays which role.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ColumnRoles {
    /// Hyperparameter columns, in order.
    pub hyperparameters: Vec<String>,
    /// Hyperparameters to treat as categorical even if their values are numbers.
    pub categorical: Vec<String>,
    /// Metric columns with their directions.
    pub metrics: Vec<Metric>,
    /// The default objective (one of `metrics`).
    pub objective: String,
    /// Column naming the task of each row; `None` means a single task.
    pub task: Option<String>,
    /// Learning-curve step columns, in order: names, or prefixes ending in `*` (`loss_*`);
    /// empty when the file has no curves (or names its steps `e1..eN`).
    #[serde(default)]
    pub steps: Vec<String>,
    /// Column naming the run of each row, in a long-format curve table (one row per run and
    /// step, as tuning tools write them); `None`: one row per evaluation.
    #[serde(default)]
    pub run: Option<String>,
    /// Column numbering the steps of a run in a long-format table; `None`: the rows' order.
    #[serde(default)]
    pub step: Option<String>,
}

/// Guesses a metric's direction from its name: accuracies and scores are maximised.
pub fn guess_direction(name: &str) -> Direction {
    let n = name.to_ascii_lowercase();
    if ["accuracy", "acc", "auc", "score", "f1", "precision", "recall", "throughput"].iter().any(|k| n.contains(k)) && !n.contains("error")
    {
        Direction::Maximize
    } else {
        Direction::Minimize
    }
}

/// How a file is read beyond its bytes: column roles, what to do with missing values, and
/// which hyperparameters are on a log scale. Built from the link ([`crate::spec::ExperimentSpec::load_options`]),
/// so the page and the CLI read a file the same way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadOptions {
    /// Column roles of a generic CSV (or a curve file's columns); `None`: by the format.
    pub roles: Option<ColumnRoles>,
    /// Missing or non-finite metric values and curve points.
    pub missing: MissingPolicy,
    /// Hyperparameters put on a log scale whatever their values.
    pub log: Vec<String>,
    /// Hyperparameters kept linear whatever their values.
    pub linear: Vec<String>,
    /// Put positive hyperparameters spanning two or more decades on a log scale (off for the
    /// bundled and published tables, which keep their documented scales).
    pub detect_scales: bool,
    /// The objective's direction when the link overrides it (the worst value of a missing one
    /// depends on it).
    pub direction: Option<Direction>,
    /// The objective the link names, if any.
    pub objective: Option<String>,
}

impl LoadOptions {
    /// Only column roles (or none), everything else by default: no scale detection.
    pub fn with_roles(roles: Option<&ColumnRoles>) -> Self {
        LoadOptions { roles: roles.cloned(), ..LoadOptions::default() }
    }
}

/// Builds a benchmark from a table and its column roles. Missing or non-finite metric values
/// are repaired by `options.missing` (the task's worst value, or the row dropped), and the
/// hyperparameters' scales follow `options`; both are said in the returned notes.
pub fn build_benchmark(
    file: &str,
    name: &str,
    table: &CsvTable,
    roles: &ColumnRoles,
    options: &LoadOptions,
) -> Result<(Benchmark, Vec<Note>)> {
    let col = |c: &str| -> Result<usize> {
        table.column(c).ok_or_else(|| EngineError::Parse {
            file: file.into(),
            row: Some(1),
            column: Some(c.into()),
            message: format!("no such column; the header has: {}", table.headers.join(", ")),
        })
    };
    if roles.hyperparameters.is_empty() {
        return Err(EngineError::parse(file, "no hyperparameter columns: expected at least one (named hp_* in the copula format)"));
    }
    if roles.metrics.is_empty() {
        return Err(EngineError::parse(
            file,
            "no objective column: expected at least one metric column (named metric_* in the copula format)",
        ));
    }
    let hp_cols: Vec<usize> = roles.hyperparameters.iter().map(|h| col(h)).collect::<Result<_>>()?;
    let metric_cols: Vec<usize> = roles.metrics.iter().map(|m| col(&m.name)).collect::<Result<_>>()?;
    let objective = roles
        .metrics
        .iter()
        .position(|m| m.name == roles.objective)
        .ok_or_else(|| EngineError::parse(file, format!("the objective '{}' is not among the metric columns", roles.objective)))?;
    let task_col = roles.task.as_deref().map(col).transpose()?;

    // Hyperparameter kinds: numeric unless forced categorical or non-numeric text.
    let mut kinds = Vec::with_capacity(hp_cols.len());
    for (h, &c) in roles.hyperparameters.iter().zip(&hp_cols) {
        kinds.push(infer_kind(file, h, c, table, roles.categorical.contains(h))?);
    }
    let mut space =
        SearchSpace { params: roles.hyperparameters.iter().zip(kinds).map(|(n, kind)| Hyperparameter { name: n.clone(), kind }).collect() };
    let mut notes = apply_scales(file, &mut space, &hp_cols, table, options);

    // Metric values per row (None: missing or not finite), rows grouped by task.
    let mut task_index: BTreeMap<String, usize> = BTreeMap::new();
    let mut task_names: Vec<String> = Vec::new();
    let mut rows_of: Vec<Vec<usize>> = Vec::new();
    let mut values: Vec<Vec<Option<f64>>> = Vec::with_capacity(table.rows.len());
    for (r, record) in table.rows.iter().enumerate() {
        let mut row = Vec::with_capacity(metric_cols.len());
        for (m, &c) in roles.metrics.iter().zip(&metric_cols) {
            let text = &record[c];
            row.push(parse_cell(text).map_err(|_| EngineError::Parse {
                file: file.into(),
                row: Some(r + 2),
                column: Some(m.name.clone()),
                message: format!("expected a number, found '{text}'"),
            })?);
        }
        values.push(row);
        let task_name = task_col.map(|c| record[c].to_string()).unwrap_or_else(|| name.to_string());
        let t = *task_index.entry(task_name.clone()).or_insert_with(|| {
            task_names.push(task_name);
            rows_of.push(Vec::new());
            task_names.len() - 1
        });
        rows_of[t].push(r);
    }
    // Repair each task's metric columns: the worst value is the task's own.
    let objective_name = options.objective.as_deref().unwrap_or(&roles.objective);
    let mut repaired = Repaired::default();
    for rows in &rows_of {
        for (m, metric) in roles.metrics.iter().enumerate() {
            let direction = if metric.name == objective_name { options.direction.unwrap_or(metric.direction) } else { metric.direction };
            let column: Vec<Option<f64>> = rows.iter().map(|&r| values[r][m]).collect();
            let (fixed, counts) = repair_values(&column, direction.sign(), options.missing);
            repaired.add(counts);
            for (&r, v) in rows.iter().zip(fixed) {
                values[r][m] = v;
            }
        }
    }
    let mut tasks: Vec<Task> = Vec::new();
    for (t, rows) in rows_of.iter().enumerate() {
        let mut task = Task {
            name: task_names[t].clone(),
            configs: Vec::new(),
            metrics: vec![Vec::new(); metric_cols.len()],
            curves: None,
            history: None,
        };
        for &r in rows {
            let Some(row) = values[r].iter().copied().collect::<Option<Vec<f64>>>() else { continue };
            let mut config = Vec::with_capacity(hp_cols.len());
            for (p, &c) in space.params.iter().zip(&hp_cols) {
                config.push(raw_value(file, r + 2, &p.name, &p.kind, &table.rows[r][c])?);
            }
            task.configs.push(config);
            for (m, v) in row.into_iter().enumerate() {
                task.metrics[m].push(v);
            }
        }
        if !task.configs.is_empty() {
            tasks.push(task);
        }
    }
    if tasks.is_empty() {
        return Err(EngineError::parse(file, "every row has a missing or non-finite metric value; nothing to optimise"));
    }
    notes.extend(Note::repaired(repaired, file, "metric values", options.missing, None));
    let benchmark = Benchmark { name: name.to_string(), space, metrics: roles.metrics.clone(), objective, tasks, joint_objectives: false };
    Ok((benchmark, notes))
}

/// Puts hyperparameters on a log scale as `options` say (explicitly, or detected when they
/// span two or more decades); returns what it did and refused, in words.
fn apply_scales(file: &str, space: &mut SearchSpace, hp_cols: &[usize], table: &CsvTable, options: &LoadOptions) -> Vec<Note> {
    let mut notes = Vec::new();
    for named in options.log.iter().chain(&options.linear) {
        let numeric = space.params.iter().any(|p| &p.name == named && !matches!(p.kind, ParamKind::Categorical { .. }));
        if !numeric {
            notes.push(Note::said(
                file,
                format!("the link puts '{named}' on a log or linear scale, but it is no numeric hyperparameter; ignored"),
            ));
        }
    }
    for (p, &c) in space.params.iter_mut().zip(hp_cols) {
        let (lower, upper) = match p.kind {
            ParamKind::Continuous { lower, upper, .. } => (lower, upper),
            ParamKind::Integer { lower, upper } => (lower as f64, upper as f64),
            ParamKind::Categorical { .. } => continue,
        };
        if options.linear.contains(&p.name) {
            continue;
        }
        let forced = options.log.contains(&p.name);
        let detected = !forced && options.detect_scales && {
            let values: Vec<f64> = table.rows.iter().filter_map(|r| parse_number(&r[c])).collect();
            spans_decades(&values)
        };
        if !(forced || detected) {
            continue;
        }
        if lower <= 0.0 {
            notes.push(Note::said(file, format!("'{}' cannot be on a log scale (it has values ≤ 0); kept linear", p.name)));
            continue;
        }
        p.kind = ParamKind::Continuous { lower, upper, log: true };
        if detected {
            notes.push(Note::LogScale { file: file.to_string(), name: p.name.clone(), lower, upper });
        }
    }
    notes
}

fn parse_number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok()
}

fn infer_kind(file: &str, name: &str, c: usize, table: &CsvTable, force_categorical: bool) -> Result<ParamKind> {
    let mut numbers = Vec::with_capacity(table.rows.len());
    let mut texts = BTreeSet::new();
    for (r, record) in table.rows.iter().enumerate() {
        let text = &record[c];
        if text.is_empty() {
            return Err(EngineError::Parse {
                file: file.into(),
                row: Some(r + 2),
                column: Some(name.into()),
                message: "missing hyperparameter value".into(),
            });
        }
        match parse_number(text) {
            Some(v) if !v.is_finite() => {
                return Err(EngineError::Parse {
                    file: file.into(),
                    row: Some(r + 2),
                    column: Some(name.into()),
                    message: format!("hyperparameter value '{text}' is not finite"),
                })
            }
            Some(v) => numbers.push(v),
            None => {
                texts.insert(text.to_string());
            }
        }
    }
    if force_categorical || !texts.is_empty() {
        let mut levels: Vec<String> = Vec::new();
        if texts.is_empty() {
            // Numeric levels sort numerically ("2" before "10").
            let mut nums: Vec<f64> = numbers.clone();
            nums.sort_by(f64::total_cmp);
            nums.dedup();
            levels = nums.iter().map(|v| format!("{v}")).collect();
        } else {
            for record in &table.rows {
                texts.insert(record[c].to_string());
            }
            levels.extend(texts);
        }
        if levels.len() > 1000 {
            return Err(EngineError::Parse {
                file: file.into(),
                row: None,
                column: Some(name.into()),
                message: format!("{} distinct values is too many for a categorical hyperparameter (at most 1000)", levels.len()),
            });
        }
        return Ok(ParamKind::Categorical { levels });
    }
    let (lo, hi) = numbers.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    if numbers.iter().all(|v| v.fract() == 0.0 && v.abs() < 1e15) {
        Ok(ParamKind::Integer { lower: lo as i64, upper: hi as i64 })
    } else {
        Ok(ParamKind::Continuous { lower: lo, upper: hi, log: false })
    }
}

fn raw_value(file: &str, line: usize, name: &str, kind: &ParamKind, text: &str) -> Result<f64> {
    match kind {
        ParamKind::Categorical { levels } => {
            let found = levels.iter().position(|l| l == text).or_else(|| {
                let v = parse_number(text)?;
                levels.iter().position(|l| parse_number(l) == Some(v))
            });
            found.map(|i| i as f64).ok_or_else(|| EngineError::Parse {
                file: file.into(),
                row: Some(line),
                column: Some(name.into()),
                message: format!("unknown level '{text}'"),
            })
        }
        _ => parse_number(text).ok_or_else(|| EngineError::Parse {
            file: file.into(),
            row: Some(line),
            column: Some(name.into()),
            message: format!("expected a number, found '{text}'"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles() -> ColumnRoles {
        ColumnRoles {
            hyperparameters: vec!["x".into(), "op".into()],
            categorical: vec![],
            metrics: vec![Metric { name: "loss".into(), direction: Direction::Minimize }],
            objective: "loss".into(),
            task: Some("ds".into()),
            steps: Vec::new(),
            run: None,
            step: None,
        }
    }

    #[test]
    fn builds_tasks_kinds_and_drops_nan_rows() {
        let text = "x,op,loss,ds\n0.5,conv,1.0,a\n1.5,pool,2.0,a\n2.5,conv,NaN,b\n3.5,pool,0.5,b\n";
        let t = read_table("f.csv", text).unwrap();
        let (b, warnings) =
            build_benchmark("f.csv", "F", &t, &roles(), &LoadOptions { missing: MissingPolicy::Drop, ..LoadOptions::default() }).unwrap();
        assert_eq!(b.tasks.len(), 2);
        assert_eq!(b.tasks[1].len(), 1);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(matches!(b.space.params[1].kind, ParamKind::Categorical { ref levels } if levels == &["conv", "pool"]));
        assert_eq!(b.tasks[0].configs[1], vec![1.5, 1.0]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let t = read_table("f.csv", "x,op,loss,ds\n0.5,conv,abc,a\n").unwrap();
        let e = build_benchmark("f.csv", "F", &t, &roles(), &LoadOptions::default()).unwrap_err().to_string();
        assert_eq!(e, "f.csv, line 2, column 'loss': expected a number, found 'abc'");
        let e = read_table("g.csv", "a,b\n1,2\n3\n").unwrap_err().to_string();
        assert!(e.contains("g.csv, line 3") && e.contains("expected 2 fields"), "{e}");
        let mut r = roles();
        r.task = Some("dataset".into());
        let e = build_benchmark("f.csv", "F", &t, &r, &LoadOptions::default()).unwrap_err().to_string();
        assert!(e.contains("column 'dataset': no such column"), "{e}");
    }

    #[test]
    fn direction_guess() {
        assert_eq!(guess_direction("metric_test_accuracy"), Direction::Maximize);
        assert_eq!(guess_direction("metric_error"), Direction::Minimize);
        assert_eq!(guess_direction("metric_CRPS"), Direction::Minimize);
    }
}
