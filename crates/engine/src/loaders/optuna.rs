//! Optuna's files as its users write them, read with no column roles typed:
//! `study.trials_dataframe().to_csv(...)` ([`is_trials_dataframe`]) and the JournalStorage
//! file, one JSON operation per line ([`is_journal`], [`read_journal`]).
//!
//! What becomes an evaluation: a COMPLETE trial's final value. A pruned trial's value is the
//! loss where it was stopped and a failed one has none: both are counted and said, never
//! compared with final values. From the journal the search space is Optuna's own (bounds, log
//! scales, integer steps, choices) and the intermediate values are learning curves; a race
//! replays the complete trials, whose curves are whole (a tabular race cannot train a pruned
//! trial further than it went). Several studies of one journal with the same space are tasks.

use std::collections::BTreeMap;

use serde_json::Value;

use super::clean::{repair_curves, Repaired};
use super::file_format::FileFormat;
use super::notes::Note;
use super::table::LoadOptions;
use super::table::LoadedFile;
use crate::axis::count;
use crate::benchmark::{Benchmark, Curves, Direction, Metric, RanTrial, StudyHistory, Task};
use crate::error::{EngineError, Result};
use crate::space::{Hyperparameter, ParamKind, SearchSpace};

/// Optuna's trial states, as its journal numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TrialState {
    /// Still running (a study in progress).
    Running,
    /// Finished with its value.
    Complete,
    /// Stopped early by a pruner.
    Pruned,
    /// Raised an error.
    Fail,
    /// Enqueued, not started.
    Waiting,
}

/// The states in the order of the journal's codes for them.
const STATES: [TrialState; 5] = [TrialState::Running, TrialState::Complete, TrialState::Pruned, TrialState::Fail, TrialState::Waiting];

impl TrialState {
    /// The state the journal numbers `code`.
    pub fn from_code(code: i64) -> Option<Self> {
        usize::try_from(code).ok().and_then(|c| STATES.get(c)).copied()
    }

    /// The journal's number for this state.
    pub fn code(self) -> i64 {
        STATES.iter().position(|&s| s == self).unwrap_or_default() as i64
    }

    /// The state by Optuna's name for it (`TrialState.COMPLETE.name`), as SQLite storages and
    /// the Python package write it.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "RUNNING" => TrialState::Running,
            "COMPLETE" => TrialState::Complete,
            "PRUNED" => TrialState::Pruned,
            "FAIL" => TrialState::Fail,
            "WAITING" => TrialState::Waiting,
            _ => return None,
        })
    }
}

/// How many trials of a study are in each state, in words: "80 trials (35 complete, 41
/// pruned, 4 failed)".
fn states_in_words(states: &[TrialState]) -> String {
    let n = |s: TrialState| states.iter().filter(|&&x| x == s).count();
    let parts: Vec<String> = [
        (TrialState::Complete, "complete"),
        (TrialState::Pruned, "pruned"),
        (TrialState::Fail, "failed"),
        (TrialState::Running, "running"),
        (TrialState::Waiting, "waiting"),
    ]
    .iter()
    .filter(|(s, _)| n(*s) > 0)
    .map(|&(s, word)| format!("{} {word}", n(s)))
    .collect();
    format!("{} ({})", count(states.len(), "trial"), parts.join(", "))
}

/// One of Optuna's distributions.
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// `FloatDistribution`.
    Float {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
        /// Log scale.
        log: bool,
        /// Step, if discrete.
        step: Option<f64>,
    },
    /// `IntDistribution`.
    Int {
        /// Lower bound.
        low: i64,
        /// Upper bound.
        high: i64,
        /// Log scale.
        log: bool,
        /// Step.
        step: i64,
    },
    /// `CategoricalDistribution`: its choices as Optuna wrote them (JSON values).
    Categorical {
        /// The choices.
        choices: Vec<Value>,
    },
}

impl Distribution {
    /// The distribution Optuna wrote as `text`, if it is one and it is valid (bounds in
    /// order and finite, a log scale above 0, a positive step, at least one choice).
    pub(crate) fn from_json(text: &str) -> Option<Self> {
        let d = Self::parse(text)?;
        let valid = match &d {
            Distribution::Float { low, high, log, step } => {
                low.is_finite() && high.is_finite() && low <= high && (!log || *low > 0.0) && step.is_none_or(|s| s > 0.0)
            }
            Distribution::Int { low, high, log, step } => low <= high && (!log || *low > 0) && *step > 0,
            Distribution::Categorical { choices } => !choices.is_empty(),
        };
        valid.then_some(d)
    }

    fn parse(text: &str) -> Option<Self> {
        let v: Value = serde_json::from_str(text).ok()?;
        let a = v.get("attributes")?;
        let f = |k: &str| a.get(k).and_then(Value::as_f64);
        let i = |k: &str| a.get(k).and_then(Value::as_i64);
        let log = a.get("log").and_then(Value::as_bool).unwrap_or(false);
        match v.get("name")?.as_str()? {
            "FloatDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log, step: f("step") }),
            "IntDistribution" => Some(Distribution::Int { low: i("low")?, high: i("high")?, log, step: i("step").unwrap_or(1) }),
            "CategoricalDistribution" => Some(Distribution::Categorical { choices: a.get("choices")?.as_array()?.clone() }),
            // The distributions of Optuna before 3.0, still read by it.
            "UniformDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log: false, step: None }),
            "LogUniformDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log: true, step: None }),
            "DiscreteUniformDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log: false, step: f("q") }),
            "IntUniformDistribution" => {
                Some(Distribution::Int { low: i("low")?, high: i("high")?, log: false, step: i("step").unwrap_or(1) })
            }
            "IntLogUniformDistribution" => Some(Distribution::Int { low: i("low")?, high: i("high")?, log: true, step: 1 }),
            _ => None,
        }
    }

    /// Whether the internal value `v` is one of this distribution's: within its bounds (a
    /// float's up to rounding), on an integer's step, a choice's index.
    pub fn holds(&self, v: f64) -> bool {
        match *self {
            Distribution::Float { low, high, .. } => {
                let slack = 1e-12 * (high - low).abs().max(low.abs()).max(high.abs());
                v >= low - slack && v <= high + slack
            }
            Distribution::Int { low, high, step, .. } => {
                v.fract() == 0.0 && v >= low as f64 && v <= high as f64 && (v as i64 - low) % step.max(1) == 0
            }
            Distribution::Categorical { ref choices } => v.fract() == 0.0 && v >= 0.0 && (v as usize) < choices.len(),
        }
    }

    /// The internal value of an external one as Optuna writes it (a number as it is, a
    /// choice as its index), if it is one of this distribution's.
    pub fn internal(&self, external: &Value) -> Option<f64> {
        let v = match self {
            Distribution::Categorical { choices } => choices.iter().position(|c| c == external)? as f64,
            _ => external.as_f64()?,
        };
        self.holds(v).then_some(v)
    }

    /// The playground's kind for this distribution.
    pub fn kind(&self) -> ParamKind {
        match self {
            Distribution::Float { low, high, log, .. } => ParamKind::Continuous { lower: *low, upper: *high, log: *log },
            Distribution::Int { low, high, .. } => ParamKind::Integer { lower: *low, upper: *high },
            Distribution::Categorical { choices } => ParamKind::Categorical { levels: choices.iter().map(choice_name).collect() },
        }
    }
}

/// A categorical choice as text: strings as they are, anything else as its JSON.
pub fn choice_name(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// One trial of a journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// Its state.
    pub state: TrialState,
    /// Internal values of its parameters (a categorical's is the choice's index).
    pub params: BTreeMap<String, f64>,
    /// Its objective values, once complete.
    pub values: Option<Vec<f64>>,
    /// Intermediate values by step (the learning curve).
    pub intermediate: BTreeMap<i64, f64>,
    /// Its constraint values by name (Optuna's `trial.set_constraint`, or the list a
    /// sampler's `constraints_func` stored, by position): feasible when every one is ≤ 0.
    pub constraints: BTreeMap<String, f64>,
}

/// One study of a journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    /// Its id in the journal (creation order, deleted studies included).
    pub id: usize,
    /// Its name.
    pub name: String,
    /// The direction of each objective.
    pub directions: Vec<Direction>,
    /// Each parameter's distribution, in the order first suggested.
    pub distributions: Vec<(String, Distribution)>,
    /// The trials, in the order they were created.
    pub trials: Vec<Trial>,
}

/// A journal's studies as a benchmark: the studies whose search space is the first
/// complete one's are its tasks (so the transfer methods learn across them); others are
/// listed in the notes. Each task's evaluations are its complete trials; when all of them
/// report the same number of intermediate steps (at least two), those are its curves.
pub fn journal_benchmark(file: &str, text: &str, options: &LoadOptions) -> Result<LoadedFile> {
    let (studies, notes) = read_journal(file, text)?;
    studies_benchmark(file, FileFormat::OptunaJournal, &studies, &notes, options)
}

/// An Optuna SQLite storage's studies as a benchmark, as [`journal_benchmark`] makes one.
pub fn storage_benchmark(file: &str, bytes: &[u8], options: &LoadOptions) -> Result<LoadedFile> {
    let studies = storage::read_storage(file, bytes)?;
    studies_benchmark(file, FileFormat::OptunaStorage, &studies, &JournalNotes::default(), options)
}

/// Studies as a benchmark (see [`journal_benchmark`]) of a file in `format`, as the link's
/// options say: `direction=` for the first objective, `lin=`/`log=` for the scales, the
/// missing-value policy for the intermediate values' non-finite points.
fn studies_benchmark(file: &str, format: FileFormat, studies: &[Study], notes: &JournalNotes, options: &LoadOptions) -> Result<LoadedFile> {
    let what = format.name();
    let usable: Vec<&Study> = studies.iter().filter(|s| s.trials.iter().any(|t| t.state == TrialState::Complete)).collect();
    let Some(first) = usable.first() else {
        let said: Vec<String> = studies
            .iter()
            .map(|s| format!("'{}': {}", s.name, states_in_words(&s.trials.iter().map(|t| t.state).collect::<Vec<_>>())))
            .collect();
        return Err(EngineError::parse(
            file,
            if said.is_empty() {
                format!("an {what} with no study in it")
            } else {
                format!("no study in this {what} has a complete trial yet ({})", said.join("; "))
            },
        ));
    };
    let (tasks_of, others): (Vec<&Study>, Vec<&Study>) = usable.iter().copied().partition(|s| first.same_space(s));
    let mut warnings = Vec::new();
    let space = SearchSpace {
        params: first
            .distributions
            .iter()
            .map(|(n, d)| Hyperparameter { name: n.clone(), kind: scaled(file, n, d.kind(), options, &mut warnings) })
            .collect(),
    };
    let mut metrics: Vec<Metric> = first
        .directions
        .iter()
        .enumerate()
        .map(|(k, &direction)| Metric { name: if first.directions.len() == 1 { "value".into() } else { format!("values_{k}") }, direction })
        .collect();
    if let Some(direction) = options.direction.filter(|&d| d != metrics[0].direction) {
        metrics[0].direction = direction;
        warnings.push(Note::said(
            file,
            format!(
                "'{}' is {} as the link says (the study {} it)",
                metrics[0].name,
                if direction == Direction::Minimize { "minimised" } else { "maximised" },
                if direction == Direction::Minimize { "maximises" } else { "minimises" }
            ),
        ));
    }
    let sign = if metrics[0].direction == Direction::Minimize { 1.0 } else { -1.0 };
    let mut repaired = Repaired::default();
    let mut tasks = Vec::new();
    let mut lines = Vec::new();
    for study in &tasks_of {
        // Every complete trial, a parameter it did not suggest at its inactive value
        // (trials.rs): a conditional space is one space.
        if let Some(sentence) = study.shares_nothing() {
            return Err(EngineError::parse(file, sentence));
        }
        let complete: Vec<&Trial> = study.complete_trials().collect();
        if complete.is_empty() {
            continue;
        }
        let steps = complete.first().map_or(0, |t| t.intermediate.len());
        let whole = steps >= 2 && complete.iter().all(|t| t.intermediate.len() == steps);
        // Curves with a non-finite intermediate value are repaired by the missing-value policy
        // as a curve file's are (its first-step bound included); a curve it drops takes its
        // trial out of the task. All finite, they are taken as Optuna recorded them.
        let finite = complete.iter().all(|t| t.intermediate.values().all(|v| v.is_finite()));
        let (complete, curves) = if whole && finite {
            let values = complete.iter().map(|t| t.intermediate.values().copied().collect()).collect();
            (complete, Some(Curves { values, cost: None }))
        } else if whole {
            let raw = complete.iter().map(|t| t.intermediate.values().map(|v| v.is_finite().then_some(*v)).collect()).collect();
            let (fixed, r) = repair_curves(raw, &[], sign, options.missing);
            repaired.add(r);
            let kept: Vec<&Trial> = complete.iter().zip(&fixed).filter(|(_, c)| c.is_some()).map(|(t, _)| *t).collect();
            (kept, Some(Curves { values: fixed.into_iter().flatten().collect(), cost: None }))
        } else {
            (complete, None)
        };
        if complete.is_empty() {
            continue;
        }
        let configs: Vec<Vec<f64>> = complete.iter().map(|t| first.config(t)).collect();
        let metric_values: Vec<Vec<f64>> =
            (0..metrics.len()).map(|m| complete.iter().map(|t| t.values.as_ref().map_or(f64::NAN, |v| v[m])).collect()).collect();
        let longest = study.trials.iter().map(|t| t.intermediate.len()).max().unwrap_or(0);
        // A complete trial with an infinite value (Optuna stores one; a NaN makes it FAIL) is
        // no evaluation: no front or best value holds it.
        let infinite = study.trials.iter().filter(|t| t.state == TrialState::Complete).count() - study.complete_trials().count();
        lines.push(format!(
            "'{}': {}{}{}",
            study.name,
            states_in_words(&study.trials.iter().map(|t| t.state).collect::<Vec<_>>()),
            if infinite > 0 {
                format!(", {} with a value that is not finite left out", count(infinite, "complete trial"))
            } else {
                String::new()
            },
            if longest >= 2 {
                format!(
                    ", curves of up to {longest} steps from intermediate values{}",
                    if whole { "" } else { " (uneven among complete trials: not raced)" }
                )
            } else {
                String::new()
            }
        ));
        // The study as it ran: every trial in creation order, with the steps it reported and,
        // for one kept as an evaluation, its row.
        let rows: std::collections::HashMap<*const Trial, u32> =
            complete.iter().enumerate().map(|(r, &t)| (t as *const Trial, r as u32)).collect();
        let history = StudyHistory {
            tool: "Optuna".into(),
            trials: study
                .trials
                .iter()
                .map(|t| RanTrial {
                    steps: t.intermediate.len().max(1) as u32,
                    value: (t.state == TrialState::Complete).then(|| t.values.as_ref().and_then(|v| v.first().copied())).flatten(),
                    row: rows.get(&(t as *const Trial)).copied(),
                })
                .collect(),
        };
        tasks.push(Task { name: study.name.clone(), configs, metrics: metric_values, curves, history: Some(history) });
    }
    if tasks.is_empty() {
        return Err(EngineError::parse(file, format!("no complete trial of '{}' has a finite value for every objective", first.name)));
    }
    let benchmark = Benchmark {
        name: super::copula::file_stem(file).trim_end_matches(".log").trim_end_matches(".db").to_string(),
        space,
        metrics,
        objective: 0,
        tasks,
        joint_objectives: first.directions.len() > 1,
    };
    warnings.insert(0, Note::said(file, format!(
        "{what}, {} with one search space ({} from its distributions: {}): {}; the complete trials are the evaluations (a race replays them), pruned and failed ones are counted, not compared",
        count(tasks_of.len(), "study"),
        count(first.distributions.len(), "hyperparameter"),
        first.distributions.iter().map(|(n, d)| format!("{n} {}", describe(d))).collect::<Vec<_>>().join(", "),
        lines.join("; ")
    )));
    warnings.extend(Note::repaired(repaired, file, "curve points", options.missing, None));
    let conditional = first.conditional();
    if !conditional.is_empty() {
        let conditions = first.conditions();
        warnings.push(Note::said(file, format!(
            "a conditional search space: {}; in a trial that did not suggest it, a parameter stands at its inactive value (a number at its lower bound, a choice at its first), so every trial is a point of one space",
            conditional
                .iter()
                .map(|&k| {
                    let (name, _) = &first.distributions[k];
                    match &conditions[k] {
                        Some(c) => {
                            let (parent, d) = &first.distributions[c.parent];
                            let choices: Vec<String> = match d {
                                Distribution::Categorical { choices } => c.levels.iter().filter_map(|&l| choices.get(l).map(choice_name)).collect(),
                                _ => Vec::new(),
                            };
                            format!("'{name}' only when '{parent}' is {}", choices.join(" or "))
                        }
                        None => format!("'{name}' in some trials only"),
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if !others.is_empty() {
        warnings.push(Note::said(
            file,
            format!(
                "{} with another search space left out: {}",
                count(others.len(), "study"),
                others.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if notes.torn_last_line {
        let studies =
            studies.iter().map(|s| (s.name.clone(), states_in_words(&s.trials.iter().map(|t| t.state).collect::<Vec<_>>()))).collect();
        warnings.push(Note::CutOff { file: file.to_string(), studies });
    }
    Ok(LoadedFile { benchmark, notes: warnings, format })
}

/// A parameter's kind on the scale the link asks for: `lin=` keeps a log-scaled one linear,
/// `log=` puts a positive one on a log scale (said in `notes`); otherwise the study's own.
fn scaled(file: &str, name: &str, kind: ParamKind, options: &LoadOptions, notes: &mut Vec<Note>) -> ParamKind {
    let ParamKind::Continuous { lower, upper, log } = kind else { return kind };
    let wanted = if options.linear.iter().any(|n| n == name) {
        false
    } else if options.log.iter().any(|n| n == name) && lower > 0.0 {
        true
    } else {
        log
    };
    if wanted != log {
        notes.push(Note::said(
            file,
            format!(
                "'{name}' is modelled on a {} scale as the link says (the study samples it on a {} one)",
                if wanted { "log" } else { "linear" },
                if log { "log" } else { "linear" }
            ),
        ));
    }
    ParamKind::Continuous { lower, upper, log: wanted }
}

/// A distribution in a few words: "1e-5…0.1, log", "32…512 step 32", "adam | sgd".
fn describe(d: &Distribution) -> String {
    let num = |v: f64| if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e5) { format!("{v:e}") } else { format!("{v}") };
    match d {
        Distribution::Float { low, high, log, step } => {
            format!(
                "{}…{}{}{}",
                num(*low),
                num(*high),
                if *log { ", log" } else { "" },
                step.map_or(String::new(), |s| format!(" step {}", num(s)))
            )
        }
        Distribution::Int { low, high, log, step } => {
            format!("{low}…{high}{}{}", if *log { ", log" } else { "" }, if *step > 1 { format!(" step {step}") } else { String::new() })
        }
        Distribution::Categorical { choices } => choices.iter().map(choice_name).collect::<Vec<_>>().join(" | "),
    }
}

pub mod journal;
pub mod storage;
pub mod trials;
pub mod trials_csv;

pub use journal::{is_journal, read_journal, JournalNotes, JournalOp};
pub use trials_csv::{from_trials_dataframe, is_trials_dataframe};

#[cfg(test)]
mod tests;
