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

use super::table::LoadedFile;
use super::table::{build_benchmark, ColumnRoles, CsvTable, LoadOptions};
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

impl TrialState {
    fn from_code(code: i64) -> Option<Self> {
        Some(match code {
            0 => TrialState::Running,
            1 => TrialState::Complete,
            2 => TrialState::Pruned,
            3 => TrialState::Fail,
            4 => TrialState::Waiting,
            _ => return None,
        })
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

/// Whether a table is `trials_dataframe()`'s: `number`, `state`, `params_*` and `value` (or
/// `values_0`, … for several objectives).
pub fn is_trials_dataframe(table: &CsvTable) -> bool {
    let has = |h: &str| table.headers.iter().any(|x| x == h);
    has("number") && has("state") && (has("value") || has("values_0")) && table.headers.iter().any(|h| h.starts_with("params_"))
}

/// A `trials_dataframe()` CSV as one task: its COMPLETE trials are the evaluations
/// (`params_*` the hyperparameters, `value` or `values_k` the objectives); the other states
/// are counted in the summary line. The CSV does not hold the directions: minimised unless the
/// link says otherwise, and said.
pub fn from_trials_dataframe(file: &str, table: &CsvTable, options: &LoadOptions) -> Result<LoadedFile> {
    let state_col = table.column("state").ok_or_else(|| EngineError::parse(file, "no 'state' column"))?;
    let states: Vec<TrialState> = table
        .rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            TrialState::from_name(&row[state_col]).ok_or_else(|| EngineError::Parse {
                file: file.into(),
                row: Some(r + 2),
                column: Some("state".into()),
                message: format!("'{}' is not an Optuna trial state (COMPLETE, PRUNED, FAIL, RUNNING, WAITING)", &row[state_col]),
            })
        })
        .collect::<Result<_>>()?;
    if !states.contains(&TrialState::Complete) {
        return Err(EngineError::parse(
            file,
            format!("an Optuna study with no complete trial: {}; nothing to compare yet", states_in_words(&states)),
        ));
    }
    // The hyperparameters without Optuna's prefix; every other column is bookkeeping.
    let params: Vec<(usize, String)> =
        table.headers.iter().enumerate().filter_map(|(c, h)| h.strip_prefix("params_").map(|n| (c, n.to_string()))).collect();
    let objectives: Vec<(usize, String)> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == "value" || h.strip_prefix("values_").is_some_and(|k| k.parse::<usize>().is_ok()))
        .map(|(c, h)| (c, h.clone()))
        .collect();
    let keep: Vec<usize> = params.iter().chain(&objectives).map(|(c, _)| *c).collect();
    let complete = CsvTable {
        headers: params.iter().map(|(_, n)| n.clone()).chain(objectives.iter().map(|(_, n)| n.clone())).collect(),
        rows: table
            .rows
            .iter()
            .zip(&states)
            .filter(|(_, s)| **s == TrialState::Complete)
            .map(|(row, _)| csv::StringRecord::from(keep.iter().map(|&c| &row[c]).collect::<Vec<_>>()))
            .collect(),
    };
    let roles = ColumnRoles {
        hyperparameters: params.iter().map(|(_, n)| n.clone()).collect(),
        categorical: Vec::new(),
        metrics: objectives.iter().map(|(_, n)| Metric { name: n.clone(), direction: Direction::Minimize }).collect(),
        objective: objectives[0].1.clone(),
        task: None,
        steps: Vec::new(),
        run: None,
        step: None,
    };
    let scales = LoadOptions { detect_scales: true, ..options.clone() };
    let (benchmark, mut warnings) = build_benchmark(file, &super::copula::file_stem(file), &complete, &roles, &scales)?;
    let direction = options.direction.unwrap_or(Direction::Minimize);
    warnings.insert(
        0,
        format!(
            "{file}: an Optuna study (trials_dataframe): {}, {} (params_*); the {} complete trials are the evaluations, pruned and failed ones are counted, not compared (their values are not final); the objective '{}' is {} — the CSV does not say the direction (switch it in Setup, or export the journal, which does)",
            states_in_words(&states),
            count(params.len(), "hyperparameter"),
            states.iter().filter(|&&s| s == TrialState::Complete).count(),
            roles.objective,
            if direction == Direction::Minimize { "minimised" } else { "maximised" }
        ),
    );
    Ok(LoadedFile { benchmark, warnings })
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

/// What reading a journal found besides its studies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalNotes {
    /// A last line cut off (a study still running when the file was copied): left out.
    pub torn_last_line: bool,
}

/// Whether `text` looks like a JournalStorage file: its first line a JSON object with an
/// `op_code`.
pub fn is_journal(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| v.get("op_code").is_some_and(Value::is_i64))
}

/// Replays a JournalStorage file. A torn last line is left out and noted; a line that is not
/// JSON before it, or an operation this reader does not know, is an error naming the line.
pub fn read_journal(file: &str, text: &str) -> Result<(Vec<Study>, JournalNotes)> {
    let mut studies: Vec<Option<Study>> = Vec::new();
    // Trials by their global id: (study index, trial index in it).
    let mut trials: Vec<(usize, usize)> = Vec::new();
    let mut notes = JournalNotes::default();
    let lines: Vec<&str> = text.lines().collect();
    let at = |line: usize, message: String| EngineError::Parse { file: file.into(), row: Some(line), column: None, message };
    for (k, raw) in lines.iter().enumerate() {
        let line = k + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let op: Value = match serde_json::from_str(raw) {
            Ok(v) => v,
            Err(_) if k + 1 == lines.len() => {
                notes.torn_last_line = true;
                break;
            }
            Err(e) => return Err(at(line, format!("not a journal operation (JSON expected): {e}"))),
        };
        let code = op.get("op_code").and_then(Value::as_i64).ok_or_else(|| at(line, "no op_code".into()))?;
        let trial_of = |op: &Value| -> Result<(usize, usize)> {
            let id = op.get("trial_id").and_then(Value::as_u64).ok_or_else(|| at(line, "no trial_id".into()))? as usize;
            trials.get(id).copied().ok_or_else(|| at(line, format!("trial {id} was never created")))
        };
        match code {
            // Create a study.
            0 => {
                let name = op.get("study_name").and_then(Value::as_str).unwrap_or("study").to_string();
                let directions = op
                    .get("directions")
                    .and_then(Value::as_array)
                    .map(|d| d.iter().map(|x| if x.as_i64() == Some(2) { Direction::Maximize } else { Direction::Minimize }).collect())
                    .unwrap_or_else(|| vec![Direction::Minimize]);
                studies.push(Some(Study { id: studies.len(), name, directions, distributions: Vec::new(), trials: Vec::new() }));
            }
            // Delete a study.
            1 => {
                let id = op.get("study_id").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                *studies.get_mut(id).ok_or_else(|| at(line, format!("study {id} was never created")))? = None;
            }
            // Study and trial attributes: bookkeeping; 10 (discard trials) is, as Optuna's own
            // reader treats it, for another implementation.
            2 | 3 | 8 | 9 | 10 => {}
            // Create a trial (enqueued ones carry their state and parameters).
            4 => {
                let id = op.get("study_id").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                let study = studies.get_mut(id).and_then(Option::as_mut).ok_or_else(|| at(line, format!("study {id} does not exist")))?;
                let state = op.get("state").and_then(Value::as_i64).and_then(TrialState::from_code).unwrap_or(TrialState::Running);
                // A trial made whole (`study.add_trial`, `enqueue` of a finished one) carries its
                // objective: `value` for one, `values` for several, and its curve.
                let values = match op.get("values").and_then(Value::as_array) {
                    Some(v) => Some(v.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect()),
                    None => op.get("value").and_then(Value::as_f64).map(|v| vec![v]),
                };
                let intermediate = op
                    .get("intermediate_values")
                    .and_then(Value::as_object)
                    .map(|m| m.iter().filter_map(|(k, v)| Some((k.parse::<i64>().ok()?, v.as_f64().unwrap_or(f64::NAN)))).collect())
                    .unwrap_or_default();
                let mut trial = Trial { state, params: BTreeMap::new(), values, intermediate };
                if let (Some(params), Some(dists)) = (op.get("params").and_then(Value::as_object), op.get("distributions").and_then(Value::as_object)) {
                    for (name, value) in params {
                        if let (Some(v), Some(d)) = (value.as_f64(), dists.get(name).and_then(Value::as_str).and_then(Distribution::from_json)) {
                            if !study.distributions.iter().any(|(n, _)| n == name) {
                                study.distributions.push((name.clone(), d));
                            }
                            trial.params.insert(name.clone(), v);
                        }
                    }
                }
                study.trials.push(trial);
                trials.push((id, study.trials.len() - 1));
            }
            // A parameter's value and distribution.
            5 => {
                let (s, t) = trial_of(&op)?;
                let name = op.get("param_name").and_then(Value::as_str).ok_or_else(|| at(line, "no param_name".into()))?.to_string();
                let value = op.get("param_value_internal").and_then(Value::as_f64).ok_or_else(|| at(line, "no param_value_internal".into()))?;
                let dist = op
                    .get("distribution")
                    .and_then(Value::as_str)
                    .and_then(Distribution::from_json)
                    .ok_or_else(|| at(line, format!("the distribution of '{name}' is not one Optuna writes")))?;
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                if !study.distributions.iter().any(|(n, _)| *n == name) {
                    study.distributions.push((name.clone(), dist));
                }
                study.trials[t].params.insert(name, value);
            }
            // A trial's state and values.
            6 => {
                let (s, t) = trial_of(&op)?;
                let state = op.get("state").and_then(Value::as_i64).and_then(TrialState::from_code).ok_or_else(|| at(line, "an unknown trial state".into()))?;
                let values = op.get("values").and_then(Value::as_array).map(|v| v.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect());
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                study.trials[t].state = state;
                if values.is_some() {
                    study.trials[t].values = values;
                }
            }
            // An intermediate value (one point of the learning curve).
            7 => {
                let (s, t) = trial_of(&op)?;
                let step = op.get("step").and_then(Value::as_i64).ok_or_else(|| at(line, "no step".into()))?;
                let value = op.get("intermediate_value").and_then(Value::as_f64).unwrap_or(f64::NAN);
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                study.trials[t].intermediate.insert(step, value);
            }
            other => {
                return Err(at(
                    line,
                    format!("operation {other} is not one this reader knows (Optuna 5.0's journal has 0 to 10): was the file written by a newer Optuna?"),
                ))
            }
        }
    }
    Ok((studies.into_iter().flatten().collect(), notes))
}

/// A journal's studies as a benchmark: the studies whose search space is the first
/// complete one's are its tasks (so the transfer methods learn across them); others are
/// listed in the notes. Each task's evaluations are its complete trials; when all of them
/// report the same number of intermediate steps (at least two), those are its curves.
pub fn journal_benchmark(file: &str, text: &str) -> Result<LoadedFile> {
    let (studies, notes) = read_journal(file, text)?;
    studies_benchmark(file, "Optuna journal", &studies, &notes)
}

/// An Optuna SQLite storage's studies as a benchmark, as [`journal_benchmark`] makes one.
pub fn storage_benchmark(file: &str, bytes: &[u8]) -> Result<LoadedFile> {
    let studies = storage::read_storage(file, bytes)?;
    studies_benchmark(file, "Optuna storage (SQLite)", &studies, &JournalNotes::default())
}

/// Studies as a benchmark (see [`journal_benchmark`]); `what` names the file's kind.
fn studies_benchmark(file: &str, what: &str, studies: &[Study], notes: &JournalNotes) -> Result<LoadedFile> {
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
    let space =
        SearchSpace { params: first.distributions.iter().map(|(n, d)| Hyperparameter { name: n.clone(), kind: d.kind() }).collect() };
    let metrics: Vec<Metric> = first
        .directions
        .iter()
        .enumerate()
        .map(|(k, &direction)| Metric { name: if first.directions.len() == 1 { "value".into() } else { format!("values_{k}") }, direction })
        .collect();
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
        let configs: Vec<Vec<f64>> = complete.iter().map(|t| first.config(t)).collect();
        let metric_values: Vec<Vec<f64>> =
            (0..metrics.len()).map(|m| complete.iter().map(|t| t.values.as_ref().map_or(f64::NAN, |v| v[m])).collect()).collect();
        let steps = complete.first().map_or(0, |t| t.intermediate.len());
        let whole = steps >= 2 && complete.iter().all(|t| t.intermediate.len() == steps && t.intermediate.values().all(|v| v.is_finite()));
        let curves =
            whole.then(|| Curves { values: complete.iter().map(|t| t.intermediate.values().copied().collect()).collect(), cost: None });
        let longest = study.trials.iter().map(|t| t.intermediate.len()).max().unwrap_or(0);
        lines.push(format!(
            "'{}': {}{}",
            study.name,
            states_in_words(&study.trials.iter().map(|t| t.state).collect::<Vec<_>>()),
            if longest >= 2 {
                format!(
                    ", curves of up to {longest} steps from intermediate values{}",
                    if whole { "" } else { " (uneven among complete trials: not raced)" }
                )
            } else {
                String::new()
            }
        ));
        // The study as it ran: every trial in creation order, with the steps it reported.
        let history = StudyHistory {
            tool: "Optuna".into(),
            trials: study
                .trials
                .iter()
                .map(|t| RanTrial {
                    steps: t.intermediate.len().max(1) as u32,
                    value: (t.state == TrialState::Complete).then(|| t.values.as_ref().and_then(|v| v.first().copied())).flatten(),
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
    let mut warnings = vec![format!(
        "{file}: {what}, {} with one search space ({} from its distributions: {}): {}; the complete trials are the evaluations (a race replays them), pruned and failed ones are counted, not compared",
        count(tasks_of.len(), "study"),
        count(first.distributions.len(), "hyperparameter"),
        first.distributions.iter().map(|(n, d)| format!("{n} {}", describe(d))).collect::<Vec<_>>().join(", "),
        lines.join("; ")
    )];
    let conditional = first.conditional();
    if !conditional.is_empty() {
        let conditions = first.conditions();
        warnings.push(format!(
            "{file}: a conditional search space: {}; in a trial that did not suggest it, a parameter stands at its inactive value (a number at its lower bound, a choice at its first), so every trial is a point of one space",
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
        ));
    }
    if !others.is_empty() {
        warnings.push(format!(
            "{file}: {} with another search space left out: {}",
            count(others.len(), "study"),
            others.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
        ));
    }
    if notes.torn_last_line {
        warnings.push(format!("{file}: its last line is cut off (a study still running when it was copied?): read up to the line before"));
    }
    Ok(LoadedFile { benchmark, warnings })
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

pub mod storage;
pub mod trials;

#[cfg(test)]
mod tests;
