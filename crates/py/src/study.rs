//! A study as the Python side describes it (plain JSON: what Optuna's trials hold),
//! deserialised into the engine's [`Study`] and checked by its rules (`hpo_engine::study`: the
//! distributions' validity is the one a journal's are read with), so that a study in memory
//! goes through the same suggest path as one read from a journal.

use std::collections::BTreeMap;

use hpo_engine::benchmark::Direction;
use hpo_engine::study::{Distribution, Study, Trial, TrialState};
use serde::Deserialize;
use serde_json::Value;

/// One study: its name (part of the engine's seed, as in `hpo suggest`), the direction of each
/// objective, its distributions in the order first suggested, and its trials in creation order.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyDescription {
    name: String,
    directions: Vec<String>,
    distributions: Vec<(String, DistributionDescription)>,
    trials: Vec<TrialDescription>,
}

/// Optuna's three distributions, by its own attribute names.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum DistributionDescription {
    Float { low: f64, high: f64, log: bool, step: Option<f64> },
    Int { low: i64, high: i64, log: bool, step: i64 },
    Categorical { choices: Vec<Value> },
}

/// One trial: its state by Optuna's name, its parameters' internal values (a choice's index),
/// its objective values (`"inf"`/`"-inf"` for an infinite one, `null` for NaN; strict JSON has
/// neither) and its intermediate values by step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrialDescription {
    state: String,
    params: BTreeMap<String, f64>,
    values: Option<Vec<Option<ObjectiveValue>>>,
    #[serde(default)]
    intermediate: BTreeMap<i64, Option<f64>>,
    /// Constraint values by name (Optuna's `trial.constraints`); feasible when all are <= 0.
    #[serde(default)]
    constraints: BTreeMap<String, f64>,
}

/// An objective value: a number, or an infinity by name.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ObjectiveValue {
    Number(f64),
    Named(String),
}

impl ObjectiveValue {
    fn finite_or_infinite(&self) -> Option<f64> {
        match self {
            ObjectiveValue::Number(v) => Some(*v),
            ObjectiveValue::Named(n) if n == "inf" => Some(f64::INFINITY),
            ObjectiveValue::Named(n) if n == "-inf" => Some(f64::NEG_INFINITY),
            ObjectiveValue::Named(_) => None,
        }
    }
}

/// Parses a description; every error says what is wrong in words a Python user can act on.
pub fn parse(json: &str) -> Result<StudyDescription, String> {
    serde_json::from_str(json).map_err(|e| format!("not a study description: {e}"))
}

impl StudyDescription {
    /// The loader's study, with `id` (transfer methods tell the chosen study from the others by
    /// it). Checks what the journal loader checks (valid distributions, known states, directions)
    /// and refuses a complete trial without a finite value, which the loader would skip.
    pub fn into_study(self, id: usize) -> Result<Study, String> {
        let name = self.name;
        let directions = self
            .directions
            .iter()
            .map(|d| match d.to_ascii_lowercase().as_str() {
                "minimize" => Ok(Direction::Minimize),
                "maximize" => Ok(Direction::Maximize),
                other => Err(format!("study '{name}': direction '{other}' is neither 'minimize' nor 'maximize'")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let distributions = self
            .distributions
            .into_iter()
            .map(|(param, d)| Ok((param.clone(), checked(d).map_err(|why| format!("study '{name}', parameter '{param}': {why}"))?)))
            .collect::<Result<Vec<_>, String>>()?;
        let trials = self
            .trials
            .into_iter()
            .enumerate()
            .map(|(number, t)| {
                let state = TrialState::from_name(&t.state).ok_or_else(|| {
                    format!("study '{name}', trial {number}: state '{}' is not one of COMPLETE, PRUNED, FAIL, RUNNING, WAITING", t.state)
                })?;
                let values = match t.values {
                    Some(values) => Some(
                        values
                            .into_iter()
                            .map(|v| {
                                v.as_ref().and_then(ObjectiveValue::finite_or_infinite).ok_or_else(|| {
                                    format!("study '{name}', trial {number}: an objective value is not a number (NaN, or text other than 'inf' and '-inf')")
                                })
                            })
                            .collect::<Result<Vec<f64>, String>>()?,
                    ),
                    None => None,
                };
                if state == TrialState::Complete && values.as_ref().is_none_or(|v| v.len() != directions.len()) {
                    return Err(format!(
                        "study '{name}', trial {number} is COMPLETE without {} objective value{}",
                        directions.len(),
                        if directions.len() == 1 { "" } else { "s" }
                    ));
                }
                if let Some(bad) = t.params.iter().find(|(_, v)| !v.is_finite()) {
                    return Err(format!("study '{name}', trial {number}: parameter '{}' is not a finite number", bad.0));
                }
                // A reported NaN is part of a curve (a diverged step), kept as the journal loader keeps it.
                let intermediate = t.intermediate.into_iter().map(|(step, v)| (step, v.unwrap_or(f64::NAN))).collect();
                Ok(Trial { state, params: t.params, values, intermediate, constraints: t.constraints })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Study { id, name, directions, distributions, trials })
    }
}

/// A search space: a JSON list of `[name, distribution]` as a study description holds them,
/// each checked as a study's are.
pub fn distributions(json: &str) -> Result<Vec<(String, Distribution)>, String> {
    let described: Vec<(String, DistributionDescription)> = serde_json::from_str(json).map_err(|e| format!("not a search space: {e}"))?;
    described.into_iter().map(|(name, d)| Ok((name.clone(), checked(d).map_err(|why| format!("parameter '{name}': {why}"))?))).collect()
}

/// A description's distribution, if the engine's rule ([`Distribution::validate`], Optuna's)
/// accepts it; else why not.
fn checked(d: DistributionDescription) -> Result<Distribution, String> {
    let d = match d {
        DistributionDescription::Float { low, high, log, step } => Distribution::Float { low, high, log, step },
        DistributionDescription::Int { low, high, log, step } => Distribution::Int { low, high, log, step },
        DistributionDescription::Categorical { choices } => Distribution::Categorical { choices },
    };
    d.validate()?;
    Ok(d)
}

/// A suggested configuration's external values (as [`hpo_engine::suggest::Suggestions`] holds
/// them) as Optuna's internal ones: a number as it is, a choice as its index.
pub fn internal(distributions: &[(String, Distribution)], row: &[Value]) -> Result<Vec<f64>, String> {
    hpo_engine::study::encoding::internal(distributions, row).map_err(|why| format!("the engine proposed {why}"))
}
