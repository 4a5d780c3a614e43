//! The copula paper's offline-evaluation format (Salinas et al. 2020, public repository):
//! columns `hp_*` (hyperparameters; `_log` ones are already log-scaled), `metric_*`,
//! `dataset_*` (task descriptors, unused by the methods), `task` and `blackbox`.

use super::file_format::FileFormat;
use super::notes::Note;
use super::table::{build_benchmark, guess_direction, read_table, ColumnRoles, CsvTable, LoadOptions};
use super::unpack_text;
use crate::benchmark::Metric;
use crate::error::{EngineError, Result};

/// A benchmark read from a file, with what was repaired or left out (one type for every loader).
pub type Loaded = super::table::LoadedFile;

/// The objective each known blackbox is optimised on in the paper (Table 2).
const KNOWN_OBJECTIVES: &[(&str, &str)] =
    &[("DeepAR", "metric_CRPS"), ("XGBoost", "metric_error"), ("NAS", "metric_error"), ("FCNET", "metric_error")];

/// Blackboxes whose hyperparameters are categorical although written as numbers (Table 3:
/// NAS-Bench-201 has 6 edges with 5 operations each, encoded one-hot).
const CATEGORICAL_BLACKBOXES: &[&str] = &["NAS"];

/// Loads a copula-format file from `.csv`, `.csv.gz` or `.zip` bytes, with the default
/// options (missing values count as the task's worst; scales as the file has them).
pub fn load_copula_format(file: &str, bytes: &[u8]) -> Result<Loaded> {
    let text = unpack_text(file, bytes)?;
    copula_from_table(file, &read_table(file, &text)?, &LoadOptions::default())
}

/// True when a table is meant to be in the copula format: it has `hp_*` or `metric_*`
/// columns (if one kind is missing, loading says so).
pub fn is_copula_table(table: &CsvTable) -> bool {
    table.headers.iter().any(|h| h.starts_with("hp_") || h.starts_with("metric_"))
}

/// Builds a benchmark from a parsed copula-format table.
pub fn copula_from_table(file: &str, table: &CsvTable, options: &LoadOptions) -> Result<Loaded> {
    let hps: Vec<String> = table.headers.iter().filter(|h| h.starts_with("hp_")).cloned().collect();
    let metric_names: Vec<String> = table.headers.iter().filter(|h| h.starts_with("metric_")).cloned().collect();
    if hps.is_empty() {
        return Err(EngineError::Parse {
            file: file.into(),
            row: Some(1),
            column: None,
            message: format!("no hyperparameter column: expected columns named hp_*; the header has: {}", table.headers.join(", ")),
        });
    }
    if metric_names.is_empty() {
        return Err(EngineError::Parse {
            file: file.into(),
            row: Some(1),
            column: None,
            message: format!(
                "no objective column: expected at least one column named metric_*; the header has: {}",
                table.headers.join(", ")
            ),
        });
    }
    let blackbox = table.column("blackbox").map(|c| table.rows[0][c].to_string());
    let name = blackbox.clone().unwrap_or_else(|| file_stem(file));
    let mut warnings = Vec::new();
    if let Some(c) = table.column("blackbox") {
        if table.rows.iter().any(|r| r[c] != table.rows[0][c]) {
            warnings
                .push(Note::said(file, format!("several blackboxes in one file; all rows are treated as one benchmark named '{name}'")));
        }
    }
    let objective = KNOWN_OBJECTIVES
        .iter()
        .find(|(b, m)| Some(*b) == blackbox.as_deref() && metric_names.iter().any(|n| n == m))
        .map(|(_, m)| m.to_string())
        .or_else(|| metric_names.iter().find(|m| *m == "metric_error").cloned())
        .unwrap_or_else(|| metric_names[0].clone());
    let categorical = if blackbox.as_deref().is_some_and(|b| CATEGORICAL_BLACKBOXES.contains(&b)) { hps.clone() } else { Vec::new() };
    let ignored: Vec<&String> = table
        .headers
        .iter()
        .filter(|h| !h.starts_with("hp_") && !h.starts_with("metric_") && !h.starts_with("dataset_") && *h != "task" && *h != "blackbox")
        .collect();
    if !ignored.is_empty() {
        warnings.push(Note::said(file, format!("ignored column(s) {}", ignored.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))));
    }
    let task = table.column("task").map(|_| "task".to_string());
    if task.is_none() {
        warnings.push(Note::said(file, "no 'task' column; all rows form one task"));
    }
    let roles = ColumnRoles {
        hyperparameters: hps,
        categorical,
        metrics: metric_names.iter().map(|n| Metric { name: n.clone(), direction: guess_direction(n) }).collect(),
        objective,
        task,
        steps: Vec::new(),
        run: None,
        step: None,
    };
    let (benchmark, more) = build_benchmark(file, &name, table, &roles, options)?;
    warnings.extend(more);
    Ok(Loaded { benchmark, notes: warnings, format: FileFormat::Copula })
}

/// File name without directories and without `.csv`, `.gz`, `.zip` extensions.
pub fn file_stem(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let mut s = base;
    for ext in [".zip", ".gz", ".csv"] {
        s = s.strip_suffix(ext).unwrap_or(s);
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::ParamKind;

    #[test]
    fn reads_roles_from_names() {
        let text = "hp_a,hp_b_log,dataset_freq,metric_error,metric_time,extra,blackbox,task\n\
                    1,0.5,1D,0.2,10,z,BB,t1\n2,0.25,1D,0.1,12,z,BB,t1\n3,0.125,1H,0.3,9,z,BB,t2\n";
        let l = load_copula_format("bb.csv", text.as_bytes()).unwrap();
        assert_eq!(l.benchmark.name, "BB");
        assert_eq!(l.benchmark.tasks.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
        assert_eq!(l.benchmark.metrics[l.benchmark.objective].name, "metric_error");
        assert!(matches!(l.benchmark.space.params[0].kind, ParamKind::Integer { lower: 1, upper: 3 }));
        assert!(l.notes.iter().any(|w| w.to_string().contains("extra")), "{:?}", l.notes);
    }

    #[test]
    fn missing_objective_column_is_named() {
        let e = load_copula_format("x.csv", b"hp_a,task\n1,t\n").unwrap_err().to_string();
        assert!(e.contains("no objective column") && e.contains("metric_*"), "{e}");
    }

    #[test]
    fn stems() {
        assert_eq!(file_stem("/a/b/XGBoost.csv.zip"), "XGBoost");
        assert_eq!(file_stem("q.csv.gz"), "q");
    }
}
