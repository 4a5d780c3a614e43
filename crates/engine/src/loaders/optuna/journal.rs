//! Optuna's JournalStorage file, one JSON operation a line: its operations as one enum
//! ([`JournalOp`], Optuna's `JournalOperation` codes), which the reader here replays
//! ([`read_journal`]) and the writer here appends to (the next trials enqueued,
//! [`with_trials_enqueued`]), so that both speak the same record.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::benchmark::Direction;
use crate::error::{EngineError, Result};
use crate::study::{Distribution, Study, Trial, TrialState};

/// A journal operation, numbered as Optuna's `JournalOperation` numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalOp {
    /// Create a study (its name and directions).
    CreateStudy,
    /// Delete a study.
    DeleteStudy,
    /// A study's user attribute.
    SetStudyUserAttr,
    /// A study's system attribute.
    SetStudySystemAttr,
    /// Create a trial (an enqueued one carries its state and fixed parameters).
    CreateTrial,
    /// A trial's parameter: its internal value and distribution.
    SetTrialParam,
    /// A trial's state and values.
    SetTrialStateValues,
    /// One intermediate value of a trial.
    SetTrialIntermediateValue,
    /// A trial's user attribute.
    SetTrialUserAttr,
    /// A trial's system attribute.
    SetTrialSystemAttr,
    /// Discard trials (for another implementation of the storage, as Optuna's own reader treats it).
    DiscardTrials,
}

/// The operations in the order of their codes.
const OPS: [JournalOp; 11] = [
    JournalOp::CreateStudy,
    JournalOp::DeleteStudy,
    JournalOp::SetStudyUserAttr,
    JournalOp::SetStudySystemAttr,
    JournalOp::CreateTrial,
    JournalOp::SetTrialParam,
    JournalOp::SetTrialStateValues,
    JournalOp::SetTrialIntermediateValue,
    JournalOp::SetTrialUserAttr,
    JournalOp::SetTrialSystemAttr,
    JournalOp::DiscardTrials,
];

impl JournalOp {
    /// The operation of `code`, if it is one.
    pub fn from_code(code: i64) -> Option<JournalOp> {
        usize::try_from(code).ok().and_then(|c| OPS.get(c)).copied()
    }

    /// Its `op_code` in the journal.
    pub fn code(self) -> i64 {
        OPS.iter().position(|&o| o == self).unwrap_or_default() as i64
    }
}

/// What reading a journal found besides its studies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalNotes {
    /// A last line cut off (a study still running when the file was copied): left out.
    pub torn_last_line: bool,
}

/// Why a trial's internal value `v` of `name` is not one of its distribution's, if it is not:
/// Optuna refuses such a trial (`FrozenTrial` checks that each distribution contains its
/// value), and the models could not place it (a 0 on a log scale has no logarithm).
pub(crate) fn not_held(name: &str, v: f64, d: &Distribution) -> Option<String> {
    (!d.holds(v))
        .then(|| format!("a trial's '{name}' is {v}, not a value of its distribution ({}); Optuna refuses such a trial", d.in_words()))
}

/// Whether `text` looks like a JournalStorage file: its first line a JSON object with an
/// `op_code`.
pub fn is_journal(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| v.get("op_code").is_some_and(Value::is_i64))
}

/// Optuna writes each operation with Python's `json.dumps`, which writes an infinite or NaN
/// value as the bare word `Infinity`, `-Infinity` or `NaN` (an objective may be infinite, an
/// intermediate value NaN) — not JSON. This is `line` with those words, outside strings, made
/// strings that [`number`] reads; `None` when it has none.
fn non_finite_quoted(line: &str) -> Option<String> {
    let mut out = String::with_capacity(line.len() + 8);
    let (mut in_string, mut escaped, mut changed) = (false, false, false);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if in_string {
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
        } else if c == '"' {
            in_string = true;
        } else if let Some(word) = ["-Infinity", "Infinity", "NaN"].into_iter().find(|w| rest.starts_with(w)) {
            out.push_str(&format!("\"{word}\""));
            rest = &rest[word.len()..];
            changed = true;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    changed.then_some(out)
}

/// A number of the journal, with [`non_finite_quoted`]'s words read as the values they name.
fn number(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| match v.as_str()? {
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => None,
    })
}

/// One line of the journal as JSON, Python's words for non-finite numbers read too: what
/// the reader replays and the writer keeps.
fn operation(line: &str) -> serde_json::Result<Value> {
    serde_json::from_str(line).or_else(|e| non_finite_quoted(line).map_or(Err(e), |q| serde_json::from_str(&q)))
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
        let op: Value = match operation(raw) {
            Ok(v) => v,
            Err(_) if k + 1 == lines.len() => {
                notes.torn_last_line = true;
                break;
            }
            Err(e) => return Err(at(line, format!("not a journal operation (JSON expected): {e}"))),
        };
        let code = op.get("op_code").and_then(Value::as_i64).ok_or_else(|| at(line, "no op_code".into()))?;
        let Some(kind) = JournalOp::from_code(code) else {
            return Err(at(
                line,
                format!("operation {code} is not one this reader knows (Optuna 5.0's journal has 0 to 10): was the file written by a newer Optuna?"),
            ));
        };
        let trial_of = |op: &Value| -> Result<(usize, usize)> {
            let id = op.get("trial_id").and_then(Value::as_u64).ok_or_else(|| at(line, "no trial_id".into()))? as usize;
            trials.get(id).copied().ok_or_else(|| at(line, format!("trial {id} was never created")))
        };
        match kind {
            JournalOp::CreateStudy => {
                let name = op.get("study_name").and_then(Value::as_str).unwrap_or("study").to_string();
                let directions = op
                    .get("directions")
                    .and_then(Value::as_array)
                    .map(|d| d.iter().map(|x| if x.as_i64() == Some(2) { Direction::Maximize } else { Direction::Minimize }).collect())
                    .unwrap_or_else(|| vec![Direction::Minimize]);
                studies.push(Some(Study { id: studies.len(), name, directions, distributions: Vec::new(), trials: Vec::new() }));
            }
            JournalOp::DeleteStudy => {
                let id = op.get("study_id").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                *studies.get_mut(id).ok_or_else(|| at(line, format!("study {id} was never created")))? = None;
            }
            // Attributes are bookkeeping, but for a trial's constraints and enqueued parameters.
            JournalOp::SetStudyUserAttr | JournalOp::SetStudySystemAttr | JournalOp::SetTrialUserAttr | JournalOp::DiscardTrials => {}
            JournalOp::SetTrialSystemAttr => {
                let (s, t) = trial_of(&op)?;
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                for (key, value) in op.get("system_attr").and_then(Value::as_object).into_iter().flatten() {
                    study.set_trial_system_attr(t, key, value);
                }
            }
            JournalOp::CreateTrial => {
                let id = op.get("study_id").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                let study = studies.get_mut(id).and_then(Option::as_mut).ok_or_else(|| at(line, format!("study {id} does not exist")))?;
                let state = op.get("state").and_then(Value::as_i64).and_then(TrialState::from_code).unwrap_or(TrialState::Running);
                // A trial made whole (`study.add_trial`, `enqueue` of a finished one) carries its
                // objective: `value` for one, `values` for several, and its curve.
                let values = match op.get("values").and_then(Value::as_array) {
                    Some(v) => Some(v.iter().map(|x| number(x).unwrap_or(f64::NAN)).collect()),
                    None => op.get("value").and_then(number).map(|v| vec![v]),
                };
                let intermediate = op
                    .get("intermediate_values")
                    .and_then(Value::as_object)
                    .map(|m| m.iter().filter_map(|(k, v)| Some((k.parse::<i64>().ok()?, number(v).unwrap_or(f64::NAN)))).collect())
                    .unwrap_or_default();
                let mut trial = Trial { state, params: BTreeMap::new(), values, intermediate, constraints: BTreeMap::new() };
                if let (Some(params), Some(dists)) =
                    (op.get("params").and_then(Value::as_object), op.get("distributions").and_then(Value::as_object))
                {
                    for (name, value) in params {
                        let d = dists.get(name).and_then(Value::as_str).map(Distribution::from_optuna_json);
                        if let Some(Err(why)) = &d {
                            return Err(at(line, format!("the distribution of '{name}': {why}")));
                        }
                        if let (Some(v), Some(Ok(d))) = (value.as_f64(), d) {
                            if let Some(why) = not_held(name, v, &d) {
                                return Err(at(line, why));
                            }
                            if !study.distributions.iter().any(|(n, _)| n == name) {
                                study.distributions.push((name.clone(), d));
                            }
                            trial.params.insert(name.clone(), v);
                        }
                    }
                }
                study.trials.push(trial);
                let t = study.trials.len() - 1;
                for (key, value) in op.get("system_attrs").and_then(Value::as_object).into_iter().flatten() {
                    study.set_trial_system_attr(t, key, value);
                }
                trials.push((id, t));
            }
            JournalOp::SetTrialParam => {
                let (s, t) = trial_of(&op)?;
                let name = op.get("param_name").and_then(Value::as_str).ok_or_else(|| at(line, "no param_name".into()))?.to_string();
                let value =
                    op.get("param_value_internal").and_then(Value::as_f64).ok_or_else(|| at(line, "no param_value_internal".into()))?;
                let dist = op
                    .get("distribution")
                    .and_then(Value::as_str)
                    .ok_or_else(|| "no distribution".to_string())
                    .and_then(Distribution::from_optuna_json)
                    .map_err(|why| at(line, format!("the distribution of '{name}': {why}")))?;
                if let Some(why) = not_held(&name, value, &dist) {
                    return Err(at(line, why));
                }
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                if !study.distributions.iter().any(|(n, _)| *n == name) {
                    study.distributions.push((name.clone(), dist));
                }
                study.trials[t].params.insert(name, value);
            }
            JournalOp::SetTrialStateValues => {
                let (s, t) = trial_of(&op)?;
                let state = op
                    .get("state")
                    .and_then(Value::as_i64)
                    .and_then(TrialState::from_code)
                    .ok_or_else(|| at(line, "an unknown trial state".into()))?;
                let values = op.get("values").and_then(Value::as_array).map(|v| v.iter().map(|x| number(x).unwrap_or(f64::NAN)).collect());
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                study.trials[t].state = state;
                if values.is_some() {
                    study.trials[t].values = values;
                }
            }
            JournalOp::SetTrialIntermediateValue => {
                let (s, t) = trial_of(&op)?;
                let step = op.get("step").and_then(Value::as_i64).ok_or_else(|| at(line, "no step".into()))?;
                let value = op.get("intermediate_value").and_then(number).unwrap_or(f64::NAN);
                let study = studies[s].as_mut().ok_or_else(|| at(line, "the trial's study was deleted".into()))?;
                study.trials[t].intermediate.insert(step, value);
            }
        }
    }
    Ok((studies.into_iter().flatten().collect(), notes))
}

/// A journal written back: the input with the new records after it.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenJournal {
    /// The journal's text.
    pub text: String,
    /// The input's last line was cut off (a study copied while it ran) and is left out, as
    /// the reader leaves it out: the one byte range of the input not kept.
    pub torn_last_line_left_out: bool,
}

/// The journal `text` with one trial enqueued for each of `fixed_params` (external values by
/// parameter name) in the study `study_id`, as Optuna's `enqueue_trial` writes it: a WAITING
/// trial whose `fixed_params` system attribute [`read_journal`] reads back as its parameters.
/// The input is kept byte for byte — every record, also those with Python's `Infinity` or
/// `NaN` that strict JSON refuses — but for a last line cut off, which is left out (and said)
/// since a record appended after it would garble both; a last record without its newline
/// gets one.
pub fn with_trials_enqueued(text: &str, study_id: usize, fixed_params: &[serde_json::Map<String, Value>]) -> WrittenJournal {
    let (kept, torn_last_line_left_out) = match last_line(text) {
        Some((start, line)) if !line.trim().is_empty() && operation(line).is_err() => (&text[..start], true),
        _ => (text, false),
    };
    let mut out = String::with_capacity(kept.len() + 1 + 400 * fixed_params.len());
    out += kept;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for fixed in fixed_params {
        let op = serde_json::json!({
            "op_code": JournalOp::CreateTrial.code(), "worker_id": "hpo-playground", "study_id": study_id,
            "datetime_start": null, "state": TrialState::Waiting.code(),
            "value": null, "values": null, "distributions": {}, "params": {}, "user_attrs": {},
            "system_attrs": { "fixed_params": fixed }, "intermediate_values": {}
        });
        out += &op.to_string();
        out.push('\n');
    }
    WrittenJournal { text: out, torn_last_line_left_out }
}

/// The last line of `text` as `str::lines` sees it (its byte offset and its text without the
/// line ending): the line the reader treats as torn when it does not parse.
fn last_line(text: &str) -> Option<(usize, &str)> {
    let body = text.strip_suffix('\n').map_or(text, |t| t.strip_suffix('\r').unwrap_or(t));
    if text.is_empty() {
        return None;
    }
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    Some((start, &body[start..]))
}

#[cfg(test)]
mod round_trip;

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's words for the numbers JSON has not, as Optuna's journal writes them (an infinite
    /// objective value, a NaN intermediate value), read outside strings only.
    #[test]
    fn python_s_infinity_and_nan_are_read_outside_strings() {
        let line = r#"{"op_code":6,"trial_id":0,"state":1,"values":[Infinity,-Infinity,NaN,1.5],"note":"NaN \"Infinity\""}"#;
        assert!(serde_json::from_str::<Value>(line).is_err());
        let op: Value = serde_json::from_str(&non_finite_quoted(line).unwrap()).unwrap();
        let values: Vec<f64> = op["values"].as_array().unwrap().iter().map(|v| number(v).unwrap()).collect();
        assert_eq!(values[..2], [f64::INFINITY, f64::NEG_INFINITY]);
        assert!(values[2].is_nan() && values[3] == 1.5);
        assert_eq!(op["note"], "NaN \"Infinity\"", "a string keeps its words");
        assert_eq!(non_finite_quoted(r#"{"a":"Infinity"}"#), None);
        // The two-objective study whose loss was infinite in trial 6 (Optuna wrote `Infinity`).
        let text = include_str!("../../../../../tests/fixtures/studies/optuna-two-objective-failed-journal.log");
        let (studies, _) = read_journal("f.log", text).unwrap();
        assert_eq!(studies[0].trials[6].values.as_ref().unwrap()[0], f64::INFINITY);
        assert_eq!(studies[0].trials.len(), 16);
    }
}
