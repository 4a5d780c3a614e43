//! The in-memory form of every benchmark, bundled, real or uploaded.
//!
//! A benchmark has tasks; a task is a finite table of evaluated configurations (the
//! "tabular" setting of the papers: an optimizer may only pick among them). Each row has the
//! raw hyperparameter values, one value per metric, and optionally a learning curve (one
//! value per budget step) with the cumulative cost of reaching each step.

use serde::{Deserialize, Serialize};

use super::space::SearchSpace;

/// Whether smaller or larger values of a metric are better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// Smaller is better (errors, losses, latency).
    Minimize,
    /// Larger is better (accuracy).
    Maximize,
}

impl Direction {
    /// Factor that turns a value into a loss (smaller is better).
    pub fn sign(self) -> f64 {
        match self {
            Direction::Minimize => 1.0,
            Direction::Maximize => -1.0,
        }
    }

    /// The loss (smaller is better) of a value in this direction: sign × value. Every place
    /// that turns metric values into what optimizers minimise goes through here.
    pub fn loss(self, value: f64) -> f64 {
        self.sign() * value
    }

    /// The losses of a column of values.
    pub fn losses(self, values: &[f64]) -> Vec<f64> {
        values.iter().map(|&v| self.loss(v)).collect()
    }

    /// Short form used in links and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Minimize => "min",
            Direction::Maximize => "max",
        }
    }
}

/// A named metric column with its direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Column name, e.g. `metric_error`.
    pub name: String,
    /// Which way is better.
    pub direction: Direction,
}

/// Learning curves of one task: `values[i][s]` is the metric of configuration `i` after
/// budget step `s + 1`; `cost[i][s]`, when present, the cumulative cost of reaching it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Curves {
    /// Metric per configuration and step.
    pub values: Vec<Vec<f64>>,
    /// Cumulative cost (e.g. seconds) per configuration and step.
    pub cost: Option<Vec<Vec<f64>>>,
}

/// One task: a finite set of evaluated configurations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Task name (e.g. dataset).
    pub name: String,
    /// Raw hyperparameter values per configuration (categoricals as level index).
    pub configs: Vec<Vec<f64>>,
    /// `metrics[m][i]`: value of metric `m` for configuration `i`.
    pub metrics: Vec<Vec<f64>>,
    /// Optional learning curves.
    pub curves: Option<Curves>,
    /// The study as its tool ran it, when the file records one (Optuna, Ray Tune, Syne Tune).
    #[serde(default)]
    pub history: Option<StudyHistory>,
}

/// One trial of a study as it ran: the budget steps it used (a pruned trial's too) and its
/// final value when it completed (a pruned or failed trial has none to compare).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RanTrial {
    /// Budget steps (epochs, iterations) the trial trained for; 1 for a trial without a curve.
    pub steps: u32,
    /// Its final value, if it completed.
    pub value: Option<f64>,
    /// Its row among the task's configurations, when it is one of the task's evaluations (a
    /// complete trial the loader kept): every objective's value is read there (the study's
    /// own hypervolume error, several objectives). Set by the Optuna loader.
    #[serde(default)]
    pub row: Option<u32>,
}

/// A study's own run, in the order its trials started: drawn beside the methods that replay
/// its complete trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyHistory {
    /// Who ran it, as the file says: "Optuna", "Ray Tune", "Syne Tune".
    pub tool: String,
    /// Its trials in the order they started.
    pub trials: Vec<RanTrial>,
}

impl StudyHistory {
    /// The budget the study spent: every trial's steps, a pruned trial's too (at least 1 each).
    pub fn spent(&self) -> u64 {
        self.trials.iter().map(|t| u64::from(t.steps.max(1))).sum()
    }

    /// The name of its line beside the methods: "Optuna's own run".
    pub fn line_name(&self) -> String {
        format!("{}'s own run", self.tool)
    }

    /// (budget spent, best complete value so far) after each trial that improved on it:
    /// the study's best-so-far curve, budget counted as the study spent it (pruned steps too).
    pub fn best_so_far(&self, direction: Direction) -> Vec<(u64, f64)> {
        let mut spent = 0u64;
        let mut best: Option<f64> = None;
        let mut out = Vec::new();
        for t in &self.trials {
            spent += u64::from(t.steps.max(1));
            if let Some(v) = t.value.filter(|v| v.is_finite()) {
                if best.is_none_or(|b| direction.loss(v) < direction.loss(b)) {
                    best = Some(v);
                    out.push((spent, v));
                }
            }
        }
        out
    }
}

impl Task {
    /// Number of evaluated configurations.
    pub fn len(&self) -> usize {
        self.configs.len()
    }

    /// True when the task has no configurations.
    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }

    /// The most budget units a race on this task can spend: every configuration trained to
    /// the race's full budget, the shortest curve's length (`None` without curves). A race
    /// given more ends there (a pruned study's budget, what it spent, is often more).
    pub fn race_units(&self) -> Option<u64> {
        let curves = self.curves.as_ref()?;
        let full = curves.values.iter().map(Vec::len).min()?;
        Some(curves.values.len() as u64 * full as u64)
    }

    /// Minimum and maximum of metric `m` over all offline evaluations (DTM normalisation).
    pub fn metric_range(&self, m: usize) -> (f64, f64) {
        self.metrics[m].iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
    }
}

/// A benchmark: tasks sharing one search space and one set of metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    /// Name shown to users and written to the traces' `blackbox` column.
    pub name: String,
    /// The hyperparameters.
    pub space: SearchSpace,
    /// Metric columns.
    pub metrics: Vec<Metric>,
    /// Index of the default objective in `metrics`.
    pub objective: usize,
    /// Tasks, in file order.
    pub tasks: Vec<Task>,
    /// The file records that its metrics are objectives optimised jointly (an Optuna study of
    /// several directions): a fresh setup on it starts with several objectives.
    #[serde(default)]
    pub joint_objectives: bool,
}

impl Benchmark {
    /// Finds a task by name.
    pub fn task_index(&self, name: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.name == name)
    }

    /// Finds a metric by name.
    pub fn metric_index(&self, name: &str) -> Option<usize> {
        self.metrics.iter().position(|m| m.name == name)
    }

    /// Budget steps of the longest learning curve, `None` when no task has curves.
    pub fn curve_steps(&self) -> Option<usize> {
        self.tasks.iter().filter_map(|t| t.curves.as_ref()).flat_map(|c| c.values.iter().map(Vec::len)).max()
    }

    /// Total number of evaluated configurations over all tasks.
    pub fn total_rows(&self) -> usize {
        self.tasks.iter().map(Task::len).sum()
    }

    /// Model encodings of every configuration of task `t`.
    pub fn encoded_task(&self, t: usize) -> Vec<Vec<f64>> {
        self.tasks[t].configs.iter().map(|c| self.space.encode(c)).collect()
    }
}
