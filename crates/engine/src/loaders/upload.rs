//! One entry point for any user file: unpacked once, recognised by the table of formats
//! (`formats.rs`); any other CSV needs its column roles, which the page asks the user for (starting from
//! [`guess_roles`]) and links carry.

use serde::{Deserialize, Serialize};

use super::copula::file_stem;
use super::curves::curves_from_table;
use super::file_format::FileFormat;
use super::formats::recognise;
use super::runs::{from_long_table, recorded_benchmark};
use super::table::{build_benchmark, ColumnRoles, LoadOptions};
use super::Unpacked;
use crate::benchmark::Direction;

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
        /// A starting point for the roles (boxed: the roles are most of the variant's size).
        guess: Box<ColumnRoles>,
    },
    /// Anything else, as a message naming file, line and column.
    Error(String),
}

pub use super::roles::guess_roles;
pub use super::table::LoadedFile;

/// Loads a file: with `roles` as a generic table, otherwise by its format (default options).
// The large error variant (headers, preview rows and a role guess for the editor) is built
// at most once per file a user drops; boxing it would only add an indirection.
#[allow(clippy::result_large_err)]
pub fn load_file(file: &str, bytes: &[u8], roles: Option<&ColumnRoles>) -> Result<LoadedFile, LoadFailure> {
    load_file_with(file, bytes, &LoadOptions::with_roles(roles))
}

/// Loads a file as `options` say: with column roles as a generic table (or, when the roles
/// name steps, as learning curves, or runs), otherwise by the first format of
/// [`super::formats::FORMATS`] that recognises it; missing values and scales by `options`.
#[allow(clippy::result_large_err)]
pub fn load_file_with(file: &str, bytes: &[u8], options: &LoadOptions) -> Result<LoadedFile, LoadFailure> {
    load_unpacked(&Unpacked::of(file, bytes).map_err(failed)?, options)
}

fn failed(e: crate::EngineError) -> LoadFailure {
    LoadFailure::Error(e.to_string())
}

/// [`load_file_with`] for a file already unpacked.
#[allow(clippy::result_large_err)]
pub fn load_unpacked(unpacked: &Unpacked, options: &LoadOptions) -> Result<LoadedFile, LoadFailure> {
    let file = unpacked.file();
    let Some(roles) = &options.roles else {
        return match recognise(unpacked) {
            Some(entry) => (entry.load)(unpacked, options).map_err(failed),
            None => {
                let table = unpacked.table().map_err(failed)?;
                Err(LoadFailure::NeedsRoles {
                    message: format!(
                        "{file} is not in the copula format (hp_* and metric_* columns): say which columns are hyperparameters, which is the objective and which names the task"
                    ),
                    headers: table.headers.clone(),
                    preview: table.rows.iter().take(5).map(|r| r.iter().map(str::to_string).collect()).collect(),
                    guess: Box::new(guess_roles(table)),
                })
            }
        };
    };
    let table = unpacked.table().map_err(failed)?;
    let mut loaded = if roles.run.is_some() {
        let runs =
            from_long_table(file, table, roles, &format!("a curve table of runs '{}'", file_stem(file)), "the file").map_err(failed)?;
        recorded_benchmark(file, runs, options, FileFormat::NamedRoles).map_err(failed)?
    } else if !roles.steps.is_empty() {
        let direction = options.direction.unwrap_or(Direction::Minimize);
        curves_from_table(file, table.clone(), "final_value", direction, options).map_err(failed)?
    } else {
        let (benchmark, notes) = build_benchmark(file, &file_stem(file), table, roles, options).map_err(failed)?;
        LoadedFile { benchmark, notes, format: FileFormat::NamedRoles }
    };
    loaded.format = FileFormat::NamedRoles;
    Ok(loaded)
}

/// The column editor's starting point for any file: its headers, first rows and a guess of
/// roles (for a curve file: its step columns, with step 0 left out).
pub fn review_roles(file: &str, bytes: &[u8]) -> Result<LoadFailure, String> {
    let unpacked = Unpacked::of(file, bytes).map_err(|e| e.to_string())?;
    let table = unpacked.table().map_err(|e| e.to_string())?;
    Ok(LoadFailure::NeedsRoles {
        message: format!("{file}: the role of each column (hyperparameter, objective, task, learning-curve step, or ignored)"),
        headers: table.headers.clone(),
        preview: table.rows.iter().take(5).map(|r| r.iter().map(str::to_string).collect()).collect(),
        guess: Box::new(guess_roles(table)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmark::{Direction, Metric};
    use crate::loaders::table::read_table;

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
    fn bookkeeping_columns_are_never_proposed_as_hyperparameters() {
        // Optuna 5.0's trials_dataframe, proposed as roles (it also loads without them).
        let text = include_str!("../../../../tests/fixtures/studies/optuna-mlp-trials.csv");
        let guess = guess_roles(&read_table("t.csv", text).unwrap());
        assert_eq!(guess.hyperparameters, ["params_lr", "params_n_units", "params_optimizer", "params_weight_decay"]);
        assert_eq!(guess.metrics.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["value"]);
        // Any CSV: times, dates, durations, ids, hosts, addresses, paths, counters and states
        // by name, and dates, clocks, addresses and paths by value.
        let text = "lr,depth,timestamp,pid,hostname,node_ip,trial_id,logdir,training_iteration,done,time_total_s,when,where,loss\n\
                    0.1,3,1764330000,812,box,10.0.0.2,a1,/tmp/r/a1,20,True,3.2,2026-11-28 12:00:01,10.0.0.9,0.5\n\
                    0.01,5,1764330100,813,box,10.0.0.2,a2,/tmp/r/a2,20,True,3.9,2026-11-28 12:01:40,10.0.0.9,0.4\n";
        let guess = guess_roles(&read_table("runs.csv", text).unwrap());
        assert_eq!(guess.hyperparameters, ["lr", "depth"]);
        assert_eq!(guess.metrics.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["loss"]);
        // Hyperparameters named as a tool names them: only those, the other numbers results.
        let text = "config/lr,config/batch_size,mean_accuracy,val_f,timestamp\n0.1,32,0.8,0.3,1\n0.2,64,0.7,0.4,2\n";
        let guess = guess_roles(&read_table("tune.csv", text).unwrap());
        assert_eq!(guess.hyperparameters, ["config/lr", "config/batch_size"]);
        assert_eq!(guess.metrics.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["mean_accuracy", "val_f"]);
    }

    #[test]
    fn learning_curve_tables_load_with_their_curves() {
        let text = "lr,task,e1,e2,e3\n0.1,a,0.5,0.6,0.7\n0.2,a,0.1,0.2,0.3\n";
        let loaded = load_file("curves.csv", text.as_bytes(), None).unwrap();
        assert_eq!(loaded.benchmark.tasks[0].metrics[0], vec![0.7, 0.3]);
        assert_eq!(loaded.benchmark.tasks[0].curves.as_ref().unwrap().values[1], vec![0.1, 0.2, 0.3]);
        assert!(loaded.notes.iter().any(|n| matches!(n, crate::loaders::notes::Note::CurveSteps { steps: 3, .. })), "{:?}", loaded.notes);
        assert_eq!(loaded.format, FileFormat::LearningCurves);
    }

    #[test]
    fn copula_files_need_no_roles_and_errors_stay_errors() {
        assert!(load_file("c.csv", b"hp_a,metric_e,task\n1,2,t\n", None).is_ok());
        assert!(matches!(load_file("c.csv", b"a,b\n1,2\n3\n", None), Err(LoadFailure::Error(m)) if m.contains("line 3")));
        let missing = load_file("c.csv", b"hp_a,task\n1,t\n", None);
        assert!(matches!(missing, Err(LoadFailure::Error(m)) if m.contains("no objective column")));
    }
}
