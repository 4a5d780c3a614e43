//! Runs as tuning tools record them — one row per (run, step) — read into a benchmark: Ray
//! Tune's files and Syne Tune's results ([`super::ray_tune`], [`super::syne_tune`]), and any
//! long-format curve table whose run and step columns the user (or the link) names.
//!
//! Which runs are evaluations: within a task, a run that did not fail and trained as far as
//! any run did (the most steps recorded). A run its scheduler stopped earlier (ASHA, a median
//! rule) holds a value after fewer steps: it is counted, and its steps are spent in the
//! study's history, but it is never compared with final values. A race replays the complete
//! runs' curves: it cannot train a stopped run further than it went.

use std::collections::BTreeMap;

use super::clean::spans_decades;
use super::file_format::FileFormat;
use super::notes::Note;
use super::roles::reported_metrics;
use super::table::LoadedFile;
use super::table::{build_benchmark, ColumnRoles, CsvTable, LoadOptions};
use crate::axis::count;
use crate::benchmark::{Curves, Direction, Metric, RanTrial, StudyHistory};
use crate::error::{EngineError, Result};
use crate::space::ParamKind;

/// One run: its configuration (as the file writes it), its reports in step order and
/// whether it failed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordedRun {
    /// Its task ("" when the file has one).
    pub task: String,
    /// One text value per hyperparameter of [`RecordedRuns::hyperparameters`].
    pub config: Vec<String>,
    /// The metric at each report, in step order.
    pub curve: Vec<f64>,
    /// Steps trained: the number of reports, or the step the tool wrote when only the last
    /// report is in the file (a results dataframe).
    pub reached: u32,
    /// It raised an error.
    pub failed: bool,
}

/// The runs of one file, in the order they started.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRuns {
    /// What the file is, for the summary: "Ray Tune experiment 'mlp-asha'".
    pub what: String,
    /// The study's name: the task's name when the file holds one study.
    pub name: String,
    /// The tool, for the study's line: "Ray Tune".
    pub tool: String,
    /// What a run that stopped early is called by this tool ("stopped early", "pruned").
    pub stopped: &'static str,
    /// Hyperparameter names (without the tool's prefix).
    pub hyperparameters: Vec<String>,
    /// Hyperparameters whose values are choices, whatever they look like.
    pub categorical: Vec<String>,
    /// The metric reported at each step.
    pub metric: Metric,
    /// What a step is called in the file ("training_iteration", "epoch").
    pub step_name: String,
    /// The runs, in start order.
    pub runs: Vec<RecordedRun>,
}

/// How a run ended, as the summary counts it.
fn run_states(runs: &[&RecordedRun], longest: u32) -> (usize, usize, usize) {
    let failed = runs.iter().filter(|r| r.failed).count();
    let complete = runs.iter().filter(|r| is_complete(r, longest)).count();
    (complete, runs.len() - complete - failed, failed)
}

fn is_complete(run: &RecordedRun, longest: u32) -> bool {
    !run.failed && run.reached == longest && run.curve.last().is_some_and(|v| v.is_finite())
}

/// The benchmark of recorded runs: each task's complete runs are its evaluations (their
/// curves too, when every one has all its steps), its history every run in start order.
pub fn recorded_benchmark(file: &str, recorded: RecordedRuns, options: &LoadOptions, format: FileFormat) -> Result<LoadedFile> {
    let mut tasks: Vec<String> = Vec::new();
    for r in &recorded.runs {
        if !tasks.contains(&r.task) {
            tasks.push(r.task.clone());
        }
    }
    // A file of one study names its one task after the study.
    let task_name = |task: &str| if task.is_empty() { recorded.name.clone() } else { task.to_string() };
    let runs_of = |task: &str| -> Vec<&RecordedRun> { recorded.runs.iter().filter(|r| r.task == task).collect() };
    let longest_of = |task: &str| runs_of(task).iter().filter(|r| !r.failed).map(|r| r.reached).max().unwrap_or(0);
    // A hyperparameter with one value in every run (Syne Tune's fixed `epochs`) is a constant
    // of the study, not a dimension of its space.
    let constant: Vec<usize> = (0..recorded.hyperparameters.len())
        .filter(|&h| {
            let mut values = recorded.runs.iter().map(|r| &r.config[h]);
            let first = values.next();
            values.all(|v| Some(v) == first)
        })
        .collect();
    let kept: Vec<usize> = (0..recorded.hyperparameters.len()).filter(|h| !constant.contains(h)).collect();
    if kept.is_empty() {
        return Err(EngineError::parse(file, "every run has the same configuration: there is no search space to compare methods on"));
    }
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut curves_of: BTreeMap<String, Option<Vec<Vec<f64>>>> = BTreeMap::new();
    let mut histories: BTreeMap<String, StudyHistory> = BTreeMap::new();
    for task in &tasks {
        let runs = runs_of(task);
        let longest = longest_of(task);
        let complete: Vec<&&RecordedRun> = runs.iter().filter(|r| is_complete(r, longest)).collect();
        for r in &complete {
            let mut row: Vec<String> = kept.iter().map(|&h| r.config[h].clone()).collect();
            row.push(task_name(task));
            row.push(r.curve.last().copied().unwrap_or(f64::NAN).to_string());
            rows.push(row);
        }
        let whole = longest >= 2 && complete.iter().all(|r| r.curve.len() == longest as usize && r.curve.iter().all(|v| v.is_finite()));
        curves_of.insert(task_name(task), whole.then(|| complete.iter().map(|r| r.curve.clone()).collect()));
        let (c, s, f) = run_states(&runs, longest);
        let mut states = vec![format!("{c} complete")];
        if s > 0 {
            states.push(format!("{s} {}", recorded.stopped));
        }
        if f > 0 {
            states.push(format!("{f} failed"));
        }
        lines.push(format!(
            "{}{} ({}){}",
            if task.is_empty() { String::new() } else { format!("'{task}': ") },
            count(runs.len(), "trial"),
            states.join(", "),
            if whole {
                format!(", curves of {longest} steps over {}", recorded.step_name)
            } else if longest >= 2 {
                format!(", trained up to {longest} {} (no curves in this file: not raced)", recorded.step_name)
            } else {
                String::new()
            }
        ));
        if complete.is_empty() {
            return Err(EngineError::parse(
                file,
                format!("{}: no run completed ({}); nothing to compare yet", recorded.what, lines.last().map_or("", String::as_str)),
            ));
        }
        histories.insert(
            task_name(task),
            StudyHistory {
                tool: recorded.tool.clone(),
                trials: runs
                    .iter()
                    .map(|r| RanTrial {
                        steps: r.reached,
                        value: is_complete(r, longest).then(|| r.curve.last().copied()).flatten(),
                        row: None,
                    })
                    .collect(),
            },
        );
    }
    let metric = recorded.metric.clone();
    let table = CsvTable {
        headers: kept.iter().map(|&h| recorded.hyperparameters[h].clone()).chain(["task".into(), metric.name.clone()]).collect(),
        rows: rows.into_iter().map(csv::StringRecord::from).collect(),
    };
    let roles = ColumnRoles {
        hyperparameters: kept.iter().map(|&h| recorded.hyperparameters[h].clone()).collect(),
        categorical: recorded.categorical.iter().filter(|c| kept.iter().any(|&h| &recorded.hyperparameters[h] == *c)).cloned().collect(),
        metrics: vec![Metric { direction: options.direction.unwrap_or(metric.direction), ..metric.clone() }],
        objective: metric.name.clone(),
        task: Some("task".into()),
        ..ColumnRoles::default()
    };
    let scales = LoadOptions { detect_scales: true, roles: None, ..options.clone() };
    let (mut benchmark, mut warnings) = build_benchmark(file, &super::copula::file_stem(file), &table, &roles, &scales)?;
    // The space is what the study sampled from: every trial's values bound it, not only the
    // complete ones' (a scheduler stops most trials, and their values were drawn from it too).
    for p in &mut benchmark.space.params {
        let Some(h) = recorded.hyperparameters.iter().position(|n| *n == p.name) else { continue };
        let values: Vec<f64> = recorded.runs.iter().filter_map(|r| r.config[h].parse::<f64>().ok()).filter(|v| v.is_finite()).collect();
        let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        match &mut p.kind {
            ParamKind::Continuous { lower, upper, log } => {
                (*lower, *upper) = (lower.min(lo), upper.max(hi));
                if !*log && !options.linear.contains(&p.name) && *lower > 0.0 && spans_decades(&values) {
                    *log = true;
                    warnings.push(Note::LogScale { file: file.to_string(), name: p.name.clone(), lower: *lower, upper: *upper });
                }
            }
            ParamKind::Integer { lower, upper } => (*lower, *upper) = ((*lower).min(lo as i64), (*upper).max(hi as i64)),
            ParamKind::Categorical { .. } => {}
        }
    }
    for task in &mut benchmark.tasks {
        task.curves = curves_of.get(&task.name).cloned().flatten().map(|values| Curves { values, cost: None });
        task.history = histories.remove(&task.name);
    }
    let space: Vec<String> = benchmark.space.params.iter().map(|p| format!("{} {}", p.name, describe_kind(&p.kind))).collect();
    warnings.insert(
        0,
        Note::said(
            file,
            format!(
            "{}: {}; {} ({}); '{}' {}; the complete trials (trained for every step) are the evaluations{}, the others are counted, not compared",
            recorded.what,
            lines.join("; "),
            count(space.len(), "hyperparameter"),
            space.join(", "),
            metric.name,
            if roles.metrics[0].direction == Direction::Minimize { "minimised" } else { "maximised" },
            if benchmark.tasks.iter().any(|t| t.curves.is_some()) { " (a race replays them)" } else { "" }
        ),
        ),
    );
    if !constant.is_empty() {
        warnings.push(Note::said(
            file,
            format!(
                "{} the same in every trial, so not searched: {}",
                if constant.len() == 1 { "one setting is" } else { "settings are" },
                constant
                    .iter()
                    .map(|&h| format!("{} = {}", recorded.hyperparameters[h], recorded.runs.first().map_or("", |r| r.config[h].as_str())))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(LoadedFile { benchmark, notes: warnings, format })
}

/// A hyperparameter's range in a few words: "1e-5…0.1, log", "32…512", "adam | sgd".
pub fn describe_kind(kind: &ParamKind) -> String {
    let num = |v: f64| crate::axis::significant(v, 3);
    match kind {
        ParamKind::Continuous { lower, upper, log } => format!("{}…{}{}", num(*lower), num(*upper), if *log { ", log" } else { "" }),
        ParamKind::Integer { lower, upper } => format!("{lower}…{upper}"),
        ParamKind::Categorical { levels } => levels.join(" | "),
    }
}

/// The runs of a tool's long table (Ray Tune's dataframe, Syne Tune's results): its
/// hyperparameters the columns named with the tool's `prefix` (the prefix left out), its
/// metric the first other numeric column that is not the tool's bookkeeping, a run per `run`
/// value and its steps by `step`.
pub fn from_tool_table(file: &str, table: &CsvTable, prefix: &str, run: &str, step: &str, what: &str, tool: &str) -> Result<RecordedRuns> {
    let metric = reported_metrics(table).into_iter().find(|m| !m.name.starts_with(prefix)).ok_or_else(|| {
        EngineError::parse(
            file,
            format!("{what}: no reported metric (a numeric column besides the configuration and {tool}'s own records)"),
        )
    })?;
    let hyperparameters: Vec<String> = table.headers.iter().filter(|h| h.starts_with(prefix)).cloned().collect();
    let roles = ColumnRoles {
        hyperparameters: hyperparameters.clone(),
        objective: metric.name.clone(),
        metrics: vec![metric],
        run: Some(run.into()),
        step: Some(step.into()),
        ..ColumnRoles::default()
    };
    let mut runs = from_long_table(file, table, &roles, what, tool)?;
    runs.hyperparameters = hyperparameters.iter().map(|h| h[prefix.len()..].to_string()).collect();
    Ok(runs)
}

/// The runs of a long-format table whose roles name a run column (and maybe a step column):
/// each run's configuration from its first row, its curve from its rows in step order.
pub fn from_long_table(file: &str, table: &CsvTable, roles: &ColumnRoles, what: &str, tool: &str) -> Result<RecordedRuns> {
    let name = super::copula::file_stem(file);
    let column = |name: &str| {
        table.column(name).ok_or_else(|| EngineError::Parse {
            file: file.into(),
            row: Some(1),
            column: Some(name.into()),
            message: "the column roles name this column, but the file has none of that name".into(),
        })
    };
    let run_col = column(roles.run.as_deref().unwrap_or_default())?;
    let step_col = roles.step.as_deref().map(column).transpose()?;
    let metric_col = column(&roles.objective)?;
    let task_col = roles.task.as_deref().map(column).transpose()?;
    let hp_cols: Vec<usize> = roles.hyperparameters.iter().map(|h| column(h)).collect::<Result<_>>()?;
    let mut order: Vec<String> = Vec::new();
    let mut rows_of: BTreeMap<String, Vec<(f64, usize)>> = BTreeMap::new();
    for (r, row) in table.rows.iter().enumerate() {
        let run = row[run_col].to_string();
        if run.is_empty() {
            return Err(EngineError::Parse {
                file: file.into(),
                row: Some(r + 2),
                column: Some(table.headers[run_col].clone()),
                message: "a row names no run".into(),
            });
        }
        let step = match step_col {
            Some(c) => row[c].parse::<f64>().map_err(|_| EngineError::Parse {
                file: file.into(),
                row: Some(r + 2),
                column: Some(table.headers[c].clone()),
                message: format!("'{}' is not a step number", &row[c]),
            })?,
            None => r as f64,
        };
        if !rows_of.contains_key(&run) {
            order.push(run.clone());
        }
        rows_of.entry(run).or_default().push((step, r));
    }
    let single_rows = rows_of.values().all(|rows| rows.len() == 1);
    let runs = order
        .iter()
        .map(|run| {
            let mut rows = rows_of[run].clone();
            rows.sort_by(|a, b| a.0.total_cmp(&b.0));
            // The same step reported twice (a restored trial): the later report stands.
            rows.dedup_by(|later, earlier| {
                let same = later.0 == earlier.0;
                if same {
                    *earlier = *later;
                }
                same
            });
            let first = &table.rows[rows[0].1];
            let curve: Vec<f64> = rows.iter().map(|&(_, r)| table.rows[r][metric_col].parse::<f64>().unwrap_or(f64::NAN)).collect();
            let reached = if single_rows && step_col.is_some() { rows[0].0.max(1.0).round() as u32 } else { rows.len() as u32 };
            RecordedRun {
                task: task_col.map_or(String::new(), |c| first[c].to_string()),
                config: hp_cols.iter().map(|&c| first[c].to_string()).collect(),
                failed: curve.iter().all(|v| !v.is_finite()),
                curve,
                reached,
            }
        })
        .collect();
    Ok(RecordedRuns {
        what: what.to_string(),
        name,
        tool: tool.to_string(),
        stopped: "stopped early",
        hyperparameters: roles.hyperparameters.clone(),
        categorical: roles.categorical.clone(),
        metric: roles
            .metrics
            .iter()
            .find(|m| m.name == roles.objective)
            .cloned()
            .unwrap_or(Metric { name: roles.objective.clone(), direction: Direction::Minimize }),
        step_name: roles.step.clone().unwrap_or_else(|| "report".into()),
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loaders::table::read_table;

    #[test]
    fn complete_runs_are_evaluations_and_every_run_is_in_the_history() {
        // Three runs of 3 steps: one complete, one stopped after 1 step, one complete; a fourth
        // failed (no finite value).
        let text = "run,step,lr,loss\na,1,0.1,0.9\na,2,0.1,0.5\na,3,0.1,0.4\nb,1,0.01,0.95\nc,2,0.02,0.6\nc,1,0.02,0.8\nc,3,0.02,0.3\nd,1,0.5,nan\n";
        let table = read_table("long.csv", text).unwrap();
        let roles = ColumnRoles {
            hyperparameters: vec!["lr".into()],
            metrics: vec![Metric { name: "loss".into(), direction: Direction::Minimize }],
            objective: "loss".into(),
            run: Some("run".into()),
            step: Some("step".into()),
            ..ColumnRoles::default()
        };
        let runs = from_long_table("long.csv", &table, &roles, "a long table 'long'", "the file").unwrap();
        let loaded = recorded_benchmark("long.csv", runs, &LoadOptions::default(), FileFormat::NamedRoles).unwrap();
        let task = &loaded.benchmark.tasks[0];
        assert_eq!(task.metrics[0], vec![0.4, 0.3]);
        // Run c's rows were out of step order in the file.
        assert_eq!(task.curves.as_ref().unwrap().values[1], vec![0.8, 0.6, 0.3]);
        let history = task.history.as_ref().unwrap();
        assert_eq!(history.trials.iter().map(|t| t.steps).collect::<Vec<_>>(), [3, 1, 3, 1]);
        assert_eq!(history.trials.iter().map(|t| t.value).collect::<Vec<_>>(), [Some(0.4), None, Some(0.3), None]);
        // Budget as the study spent it: 3, then 4 (b), then 7 when c improves.
        assert_eq!(history.best_so_far(Direction::Minimize), vec![(3, 0.4), (7, 0.3)]);
        assert!(loaded.notes[0].to_string().contains("4 trials (2 complete, 1 stopped early, 1 failed)"), "{:?}", loaded.notes);
    }
}
