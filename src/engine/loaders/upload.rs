//! One entry point for any user file: the copula format is recognised by its column names;
//! any other CSV needs its column roles, which the page asks the user for (starting from
//! [`guess_roles`]) and links carry.

use serde::{Deserialize, Serialize};

use super::copula::{copula_from_table, file_stem, is_copula_table, Loaded};
use super::curves::{is_lcbench_layout, load_curve_table, load_lcbench_members, step_columns};
use super::table::{build_benchmark, guess_direction, read_table, ColumnRoles, CsvTable};
use super::{detect_container, unpack_text, zip_member_names, zip_members, Container};
use crate::engine::benchmark::{Benchmark, Direction, Metric};

/// Why a file could not be loaded as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LoadFailure {
    /// A readable CSV that is not in the copula format: the user must assign column roles.
    NeedsRoles {
        /// Why (for the message).
        message: String,
        /// Column names.
        headers: Vec<String>,
        /// The first rows, for the role editor.
        preview: Vec<Vec<String>>,
        /// A starting point for the roles.
        guess: ColumnRoles,
    },
    /// Anything else, as a message naming file, line and column.
    Error(String),
}

/// A benchmark ready to install, with its warnings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedFile {
    /// The benchmark.
    pub benchmark: Benchmark,
    /// Non-fatal notes.
    pub warnings: Vec<String>,
}

impl From<Loaded> for LoadedFile {
    fn from(l: Loaded) -> Self {
        LoadedFile { benchmark: l.benchmark, warnings: l.warnings }
    }
}

/// Loads a file: with `roles` as a generic table, otherwise in the copula format.
// The large error variant (headers, preview rows and a role guess for the editor) is built
// at most once per file a user drops; boxing it would only add an indirection.
#[allow(clippy::result_large_err)]
pub fn load_file(file: &str, bytes: &[u8], roles: Option<&ColumnRoles>) -> Result<LoadedFile, LoadFailure> {
    let err = |e: crate::engine::EngineError| LoadFailure::Error(e.to_string());
    // A zip of LCBench's folder: several files make one benchmark.
    if roles.is_none() && detect_container(bytes) == Container::Zip && is_lcbench_layout(&zip_member_names(bytes)) {
        let members = zip_members(file, bytes).map_err(err)?;
        return load_lcbench_members(file, &members).map(Into::into).map_err(err);
    }
    let text = unpack_text(file, bytes).map_err(err)?;
    let table = read_table(file, &text).map_err(err)?;
    match roles {
        Some(roles) => {
            let (benchmark, warnings) = build_benchmark(file, &file_stem(file), &table, roles).map_err(err)?;
            Ok(LoadedFile { benchmark, warnings })
        }
        // A learning-curve table (e1..eN or step_1..step_N columns, no metric_* column; its
        // hyperparameters may be named hp_* as in the copula format): the objective is the
        // value at the last step; its direction is unknown, so minimise unless the user says
        // otherwise.
        None if step_columns(&table).len() >= 2 && !table.headers.iter().any(|h| h.starts_with("metric_")) => {
            let mut loaded: LoadedFile = load_curve_table(file, bytes, "final_value", Direction::Minimize).map_err(err)?.into();
            loaded.warnings.push(format!(
                "{file}: learning curves with {} steps; the objective is the value at the last step, minimised (switch the direction in Setup if larger is better)",
                step_columns(&table).len()
            ));
            Ok(loaded)
        }
        None if is_copula_table(&table) => copula_from_table(file, &table).map(Into::into).map_err(err),
        None => Err(LoadFailure::NeedsRoles {
            message: format!(
                "{file} is not in the copula format (hp_* and metric_* columns): say which columns are hyperparameters, which is the objective and which names the task"
            ),
            headers: table.headers.clone(),
            preview: table.rows.iter().take(5).map(|r| r.iter().map(str::to_string).collect()).collect(),
            guess: guess_roles(&table),
        }),
    }
}

const METRIC_WORDS: &[&str] =
    &["loss", "error", "err", "acc", "accuracy", "auc", "score", "metric", "rmse", "mse", "mae", "f1", "objective", "target", "value", "y"];
const TASK_WORDS: &[&str] = &["task", "dataset", "data", "problem", "benchmark"];

/// A first guess of column roles: metric-like names are objectives, a task-like name is the
/// task, the other columns are hyperparameters (text ones categorical).
pub fn guess_roles(table: &CsvTable) -> ColumnRoles {
    let mut roles = ColumnRoles::default();
    for (c, h) in table.headers.iter().enumerate() {
        let lower = h.to_ascii_lowercase();
        let numeric = table.rows.iter().take(200).all(|r| r[c].parse::<f64>().is_ok() || r[c].is_empty());
        if roles.task.is_none() && TASK_WORDS.contains(&lower.as_str()) {
            roles.task = Some(h.clone());
        } else if numeric && METRIC_WORDS.iter().any(|w| lower == *w || lower.split(['_', '-', ' ']).any(|part| part == *w)) {
            roles.metrics.push(Metric { name: h.clone(), direction: guess_direction(h) });
        } else if !h.is_empty() {
            roles.hyperparameters.push(h.clone());
            if !numeric {
                roles.categorical.push(h.clone());
            }
        }
    }
    if roles.metrics.is_empty() {
        // Without a metric-like name, the last numeric column is the likeliest objective.
        if let Some(pos) = roles.hyperparameters.iter().rposition(|h| !roles.categorical.contains(h)) {
            let h = roles.hyperparameters.remove(pos);
            roles.metrics.push(Metric { name: h.clone(), direction: guess_direction(&h) });
        }
    }
    roles.objective = roles.metrics.first().map(|m| m.name.clone()).unwrap_or_default();
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::benchmark::Direction;

    const GENERIC: &str = "learning_rate,depth,optimizer,val_accuracy,dataset\n0.1,3,adam,0.8,a\n0.01,5,sgd,0.7,a\n0.05,4,adam,0.9,b\n";

    #[test]
    fn generic_csv_asks_for_roles_with_a_sensible_guess() {
        let Err(LoadFailure::NeedsRoles { guess, headers, preview, .. }) = load_file("runs.csv", GENERIC.as_bytes(), None) else {
            panic!("expected NeedsRoles")
        };
        assert_eq!(headers.len(), 5);
        assert_eq!(preview.len(), 3);
        assert_eq!(guess.hyperparameters, ["learning_rate", "depth", "optimizer"]);
        assert_eq!(guess.categorical, ["optimizer"]);
        assert_eq!(guess.metrics, vec![Metric { name: "val_accuracy".into(), direction: Direction::Maximize }]);
        assert_eq!(guess.task.as_deref(), Some("dataset"));
        let loaded = load_file("runs.csv", GENERIC.as_bytes(), Some(&guess)).unwrap();
        assert_eq!(loaded.benchmark.tasks.len(), 2);
        assert_eq!(loaded.benchmark.space.encoded_dim(), 4);
    }

    #[test]
    fn learning_curve_tables_load_with_their_curves() {
        let text = "lr,task,e1,e2,e3\n0.1,a,0.5,0.6,0.7\n0.2,a,0.1,0.2,0.3\n";
        let loaded = load_file("curves.csv", text.as_bytes(), None).unwrap();
        assert_eq!(loaded.benchmark.tasks[0].metrics[0], vec![0.7, 0.3]);
        assert_eq!(loaded.benchmark.tasks[0].curves.as_ref().unwrap().values[1], vec![0.1, 0.2, 0.3]);
        assert!(loaded.warnings.iter().any(|w| w.contains("3 steps")), "{:?}", loaded.warnings);
    }

    #[test]
    fn copula_files_need_no_roles_and_errors_stay_errors() {
        assert!(load_file("c.csv", b"hp_a,metric_e,task\n1,2,t\n", None).is_ok());
        assert!(matches!(load_file("c.csv", b"a,b\n1,2\n3\n", None), Err(LoadFailure::Error(m)) if m.contains("line 3")));
        let missing = load_file("c.csv", b"hp_a,task\n1,t\n", None);
        assert!(matches!(missing, Err(LoadFailure::Error(m)) if m.contains("no objective column")));
    }
}
