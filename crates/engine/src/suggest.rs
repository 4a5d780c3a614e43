//! The next trials of a study, written back where its tool picks them up: for a study of an
//! Optuna journal, `k` configurations a full-evaluation method proposes over the study's own
//! search space, as a table, as `study.enqueue_trial(...)` calls, and as the journal with the
//! trials enqueued.
//!
//! A method with a continuous search ([`crate::optimizer::Optimizer::propose`]: the GP-EI
//! methods GP and GCP, WS-GP after its warm start, GCP+prior and GP+prior after theirs) proposes anywhere in the study's own
//! space: log-EI searched from quasi-random points and the best trial by L-BFGS on its
//! continuous parameters and exhaustive passes over its discrete ones
//! ([`crate::continuous`]), as Optuna's GPSampler searches; the best proposal no trial has is
//! taken. The other methods pick among candidates (the papers' tabular setting): the study's
//! complete trials (observed) and [`POOL`] fresh draws from its distributions —
//! log-uniform where the distribution is on a log scale, on its integer or float steps, one of
//! its choices — never a configuration any trial of the study already has. A batch of `k`
//! is picked one at a time with the constant liar (Ginsbourger et al. 2010): each pick is
//! observed at the best value so far, so that the next one goes elsewhere. Methods that learn
//! from other tasks learn from the file's other studies of the same space (the chosen study is
//! the held-out task of a leave-one-task-out run).

use rand::Rng;
use serde_json::Value;

use crate::benchmark::{Benchmark, Direction, Metric, Task};
use crate::continuous::{ContinuousSpace, Coordinate};
use crate::error::{EngineError, Result};
use crate::loaders::optuna::{read_journal, Distribution, Study, TrialState};
use crate::method_entry::RunKind;
use crate::method_entry::{TransferContext, TransferNeed};
use crate::optimizer::{job_rng, SearchState};
use crate::registry;
use crate::space::{Hyperparameter, SearchSpace};
use crate::spec::{ExperimentSpec, TransferMode};
use crate::transfer::{transfer_context, PriorCache};

/// Fresh candidates drawn from the study's distributions.
pub const POOL: usize = 2048;

/// The methods that suggest from the study alone: full-evaluation methods that need no other task.
pub fn methods() -> Vec<&'static str> {
    registry::of_kind(RunKind::Full).filter(|e| e.transfer() == TransferNeed::None).map(|e| e.name).collect()
}

/// The transfer methods, which suggest when the file holds other studies of the same space.
pub fn transfer_methods() -> Vec<&'static str> {
    registry::of_kind(RunKind::Full).filter(|e| e.transfer() != TransferNeed::None).map(|e| e.name).collect()
}

/// What a user takes away: the suggestions as a table (text cells), and the three files.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SuggestedFiles {
    /// The study's name.
    pub study: String,
    /// The method that proposed them.
    pub method: String,
    /// Parameter names.
    pub names: Vec<String>,
    /// One row per suggestion, each value as text.
    pub rows: Vec<Vec<String>>,
    /// `suggestions.csv`.
    pub csv: String,
    /// `enqueue.py`.
    pub python: String,
    /// `journal.log`: the journal with the trials enqueued.
    pub journal: String,
}

/// The files of [`suggest`] for a journal of `bytes` (plain, .gz or .zip): what `hpo
/// suggest` writes and the page offers to download.
pub fn suggest_files(file: &str, bytes: &[u8], study: Option<&str>, method: &str, k: usize, seed: u64) -> Result<SuggestedFiles> {
    let text = crate::loaders::unpack_text(file, bytes)?;
    if !crate::loaders::optuna::is_journal(&text) {
        return Err(EngineError::Spec(format!(
            "{file} is not an Optuna journal (JournalStorage's file, one JSON operation a line): suggestions are written back into a journal"
        )));
    }
    if k == 0 {
        return Err(EngineError::Spec("ask for at least one suggestion".into()));
    }
    let s = suggest(file, &text, study, method, k, seed)?;
    Ok(SuggestedFiles {
        rows: s.rows.iter().map(|r| r.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect()).collect(),
        csv: s.csv(),
        python: s.enqueue_python("journal.log"),
        journal: s.enqueued_journal(&text),
        study: s.study,
        method: s.method,
        names: s.names,
    })
}

/// What [`suggest`] proposes for one study.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestions {
    /// The study's name.
    pub study: String,
    /// Its id in the journal.
    pub study_id: usize,
    /// The method that proposed them.
    pub method: String,
    /// Parameter names, in the study's order.
    pub names: Vec<String>,
    /// Each configuration, as Optuna's external values (numbers, choices as written).
    pub rows: Vec<Vec<Value>>,
}

/// Draws one configuration's internal values (a categorical's is the choice's index). Logs and
/// exponentials are libm's, so that the page (wasm) and the CLI draw the same bits.
fn draw(distributions: &[(String, Distribution)], rng: &mut impl Rng) -> Vec<f64> {
    distributions
        .iter()
        .map(|(_, d)| match *d {
            Distribution::Float { low, high, log, .. } => {
                on_steps(d, if log { libm::exp(rng.random_range(libm::log(low)..=libm::log(high))) } else { rng.random_range(low..=high) })
            }
            Distribution::Int { low, high, log, .. } => on_steps(
                d,
                if log {
                    libm::exp(rng.random_range(libm::log(low.max(1) as f64)..=libm::log(high as f64)))
                } else {
                    rng.random_range(low as f64..=high as f64)
                },
            ),
            Distribution::Categorical { ref choices } => rng.random_range(0..choices.len()) as f64,
        })
        .collect()
}

/// A number's nearest allowed value under a numeric distribution: on its step (from `low`),
/// within its bounds. Drawn candidates and searched proposals alike.
fn on_steps(d: &Distribution, v: f64) -> f64 {
    match *d {
        Distribution::Float { low, high, step: Some(s), .. } if s > 0.0 => (low + ((v - low) / s).round() * s).min(high),
        Distribution::Float { low, high, .. } => v.clamp(low, high),
        Distribution::Int { low, high, step, .. } => {
            let step = step.max(1);
            let k = ((v - low as f64) / step as f64).round() as i64;
            (low + k * step).min(high - (high - low) % step) as f64
        }
        Distribution::Categorical { .. } => v,
    }
}

/// Distributions with more values than this are searched as continuous and rounded after.
const LONGEST_GRID: usize = 4096;

/// The study's space as the methods' continuous search sees it: a float without a step is
/// free in [0, 1]; a stepped float or an integer is a grid of its values' encodings (searched
/// as free and rounded when it has more than [`LONGEST_GRID`] values); a categorical is one-hot.
fn searched_space(distributions: &[(String, Distribution)], space: &SearchSpace) -> ContinuousSpace {
    let mut at = 0;
    let coordinates = distributions
        .iter()
        .zip(&space.params)
        .map(|((_, d), p)| {
            let encode = |v: f64| SearchSpace { params: vec![p.clone()] }.encode(&[v])[0];
            let values = match *d {
                Distribution::Float { low, high, step: Some(s), .. } if s > 0.0 && (high - low) / s < LONGEST_GRID as f64 => {
                    Some((0..=((high - low) / s + 1e-9).floor() as usize).map(|k| (low + k as f64 * s).min(high)).collect::<Vec<f64>>())
                }
                Distribution::Int { low, high, step, .. } if step > 0 && (high - low) / step < LONGEST_GRID as i64 => {
                    Some((0..=(high - low) / step).map(|k| (low + k * step) as f64).collect())
                }
                _ => None,
            };
            let c = match (d, values) {
                (Distribution::Categorical { choices }, _) => Coordinate::OneHot { at, width: choices.len() },
                (_, Some(values)) => Coordinate::Grid { at, values: values.into_iter().map(encode).collect() },
                (_, None) => Coordinate::Free { at },
            };
            at += p.encoded_width();
            c
        })
        .collect();
    ContinuousSpace { coordinates }
}

/// The configuration (internal values) a point of [`searched_space`] stands for: each
/// coordinate mapped back through its encoding and onto the distribution's steps and bounds.
fn decode(distributions: &[(String, Distribution)], x: &[f64]) -> Vec<f64> {
    let mut at = 0;
    distributions
        .iter()
        .map(|(_, d)| match *d {
            Distribution::Categorical { ref choices } => {
                let level = (0..choices.len()).fold(0, |b, l| if x[at + l] > x[at + b] { l } else { b });
                at += choices.len();
                level as f64
            }
            Distribution::Float { low, high, log, .. } => {
                let u = x[at].clamp(0.0, 1.0);
                at += 1;
                on_steps(
                    d,
                    if log && low > 0.0 {
                        libm::exp(libm::log(low) + u * (libm::log(high) - libm::log(low)))
                    } else {
                        low + u * (high - low)
                    },
                )
            }
            Distribution::Int { low, high, .. } => {
                // Encoded linearly ([`Distribution::kind`]), on a log scale or not.
                let u = x[at].clamp(0.0, 1.0);
                at += 1;
                on_steps(d, low as f64 + u * (high - low) as f64)
            }
        })
        .collect()
}

/// The external value of an internal one, as Optuna writes it.
fn external(d: &Distribution, v: f64) -> Value {
    match d {
        Distribution::Float { .. } => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        Distribution::Int { .. } => Value::from(v.round() as i64),
        Distribution::Categorical { choices } => choices.get(v as usize).cloned().unwrap_or(Value::Null),
    }
}

/// Proposes `k` new configurations for a study of the journal `text` (the one named `study`,
/// or the only one) with the full-evaluation method `method`.
pub fn suggest(file: &str, text: &str, study: Option<&str>, method: &str, k: usize, seed: u64) -> Result<Suggestions> {
    let (studies, _) = read_journal(file, text)?;
    let chosen: &Study = match study {
        Some(name) => studies.iter().find(|s| s.name == name).ok_or_else(|| {
            EngineError::Spec(format!(
                "{file} has no study '{name}'; it has: {}",
                studies.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
            ))
        })?,
        None if studies.len() == 1 => &studies[0],
        None => {
            return Err(EngineError::Spec(format!(
                "{file} holds {} studies: name one with --study ({})",
                studies.len(),
                studies.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
            )))
        }
    };
    suggest_for_study(&studies, chosen, method, k, seed)
}

/// Proposes `k` new configurations for the study `chosen` with the full-evaluation method
/// `method`; transfer methods learn from the studies of `studies` other than `chosen` (by id).
/// [`suggest`] on a journal and the Python package on a study held in memory call this.
pub fn suggest_for_study(studies: &[Study], chosen: &Study, method: &str, k: usize, seed: u64) -> Result<Suggestions> {
    if chosen.directions.len() != 1 {
        return Err(EngineError::Spec(format!(
            "'{}' has {} objectives: suggestions are made for studies of one",
            chosen.name,
            chosen.directions.len()
        )));
    }
    let entry = registry::lookup(RunKind::Full, method)?;
    let dists = &chosen.distributions;
    let internal =
        |t: &crate::loaders::optuna::Trial| -> Option<Vec<f64>> { dists.iter().map(|(n, _)| t.params.get(n).copied()).collect() };
    let complete: Vec<(Vec<f64>, f64)> = chosen
        .trials
        .iter()
        .filter(|t| t.state == TrialState::Complete)
        .filter_map(|t| Some((internal(t)?, t.values.as_ref()?.first().copied().filter(|v| v.is_finite())?)))
        .collect();
    if complete.is_empty() {
        return Err(EngineError::Spec(format!("'{}' has no complete trial yet: nothing to learn from", chosen.name)));
    }
    // Every configuration a trial has (complete, pruned, failed, running or waiting).
    let tried: Vec<Vec<f64>> = chosen.trials.iter().filter_map(internal).collect();
    let space = SearchSpace { params: dists.iter().map(|(n, d)| Hyperparameter { name: n.clone(), kind: d.kind() }).collect() };
    let mut rng = job_rng(seed, &chosen.name);
    let mut raw: Vec<Vec<f64>> = complete.iter().map(|c| c.0.clone()).collect();
    let observed = raw.len();
    let mut attempts = 0;
    while raw.len() < observed + POOL && attempts < 20 * POOL {
        attempts += 1;
        let c = draw(dists, &mut rng);
        if !tried.contains(&c) && !raw[observed..].contains(&c) {
            raw.push(c);
        }
    }
    let fresh = raw.len() - observed;
    if fresh < k {
        return Err(EngineError::Spec(format!("the search space of '{}' has only {fresh} configurations left untried", chosen.name)));
    }
    let candidates: Vec<Vec<f64>> = raw.iter().map(|c| space.encode(c)).collect();
    let sign = if chosen.directions[0] == Direction::Maximize { -1.0 } else { 1.0 };
    let mut history: Vec<(usize, f64)> = complete.iter().enumerate().map(|(i, c)| (i, sign * c.1)).collect();
    let mut evaluated = vec![false; raw.len()];
    let context = if entry.transfer() == TransferNeed::None {
        TransferContext::default()
    } else {
        related_context(studies, chosen, entry, &space, &raw, &complete)?
    };
    let mut optimizer = entry.build_full(context)?;
    for &(i, loss) in &history {
        evaluated[i] = true;
        optimizer.observe(i, loss);
    }
    let searched = searched_space(dists, &space);
    let mut candidates = candidates;
    let mut picks = Vec::with_capacity(k);
    for _ in 0..k {
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
        let proposed = optimizer.propose(&state, &searched, &mut rng).transpose().map_err(|e| e.for_method(entry.name))?;
        // The best proposal no trial has and no earlier pick of this batch, as a new candidate.
        let untried =
            proposed.into_iter().flatten().map(|x| decode(dists, &x)).find(|c| !tried.contains(c) && !picks.iter().any(|&p| raw[p] == *c));
        let pick = match untried {
            Some(config) => {
                candidates.push(space.encode(&config));
                raw.push(config);
                evaluated.push(false);
                raw.len() - 1
            }
            None => {
                let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
                optimizer.suggest(&state, &mut rng).map_err(|e| e.for_method(entry.name))?
            }
        };
        if pick < observed || evaluated[pick] {
            return Err(EngineError::Method {
                method: entry.name.into(),
                message: format!("suggested candidate {pick}, already observed"),
            });
        }
        // The constant liar: observed at the best value so far.
        let lie = history.iter().map(|h| h.1).fold(f64::INFINITY, f64::min);
        evaluated[pick] = true;
        history.push((pick, lie));
        optimizer.observe(pick, lie);
        picks.push(pick);
    }
    Ok(Suggestions {
        study: chosen.name.clone(),
        study_id: chosen.id,
        method: entry.name.to_string(),
        names: dists.iter().map(|(n, _)| n.clone()).collect(),
        rows: picks.iter().map(|&p| dists.iter().zip(&raw[p]).map(|((_, d), &v)| external(d, v)).collect()).collect(),
    })
}

/// What a transfer method learns from the file's other studies of the chosen one's search
/// space and directions, as in a leave-one-task-out run where the chosen study is the held-out
/// task: its candidates are the study's (observed and fresh), the other studies' complete
/// trials are the tasks seen before.
fn related_context(
    studies: &[Study],
    chosen: &Study,
    entry: &'static crate::method_entry::MethodEntry,
    space: &SearchSpace,
    candidates: &[Vec<f64>],
    complete: &[(Vec<f64>, f64)],
) -> Result<TransferContext> {
    fn sorted(s: &Study) -> Vec<&(String, Distribution)> {
        let mut d: Vec<&(String, Distribution)> = s.distributions.iter().collect();
        d.sort_by(|a, b| a.0.cmp(&b.0));
        d
    }
    let related: Vec<&Study> =
        studies.iter().filter(|s| s.id != chosen.id && s.directions == chosen.directions && sorted(s) == sorted(chosen)).collect();
    let task = |s: &Study| -> Option<Task> {
        let rows: Vec<(Vec<f64>, f64)> = s
            .trials
            .iter()
            .filter(|t| t.state == TrialState::Complete)
            .filter_map(|t| {
                let config: Option<Vec<f64>> = chosen.distributions.iter().map(|(n, _)| t.params.get(n).copied()).collect();
                Some((config?, t.values.as_ref()?.first().copied().filter(|v| v.is_finite())?))
            })
            .collect();
        (!rows.is_empty()).then(|| Task {
            name: s.name.clone(),
            metrics: vec![rows.iter().map(|r| r.1).collect()],
            configs: rows.into_iter().map(|r| r.0).collect(),
            curves: None,
            history: None,
        })
    };
    let others: Vec<Task> = related.iter().filter_map(|s| task(s)).collect();
    if others.is_empty() {
        return Err(EngineError::Spec(format!(
            "{} learns from other studies of the same search space, and this file has none beside '{}' (methods that learn from the study alone: {})",
            entry.name,
            chosen.name,
            methods().join(", ")
        )));
    }
    // The held-out task: every candidate, the observed ones with their values (the fresh
    // ones have none: no method reads the held-out task's values when it learns).
    let mut values: Vec<f64> = complete.iter().map(|c| c.1).collect();
    values.resize(candidates.len(), f64::NAN);
    let target = Task { name: chosen.name.clone(), configs: candidates.to_vec(), metrics: vec![values], curves: None, history: None };
    let bench = Benchmark {
        name: chosen.name.clone(),
        space: space.clone(),
        metrics: vec![Metric { name: "value".into(), direction: chosen.directions[0] }],
        objective: 0,
        tasks: std::iter::once(target).chain(others).collect(),
    };
    // One iteration: the spec only has to accept the tasks (the smallest may be small).
    let spec = ExperimentSpec {
        methods: vec![entry.name.to_string()],
        transfer: TransferMode::LeaveOneTaskOut,
        iterations: 1,
        ..ExperimentSpec::default()
    };
    let resolved = spec.resolve(&bench)?;
    Ok(transfer_context(&bench, &resolved, 0, entry, &PriorCache::new(), &mut |_, _| true)?.0)
}

impl Suggestions {
    /// The configurations as a CSV table, one row each (choices as their text).
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(&self.names);
        for row in &self.rows {
            let _ = w.write_record(row.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)));
        }
        w.into_inner().ok().and_then(|b| String::from_utf8(b).ok()).unwrap_or_default()
    }

    /// A Python snippet that enqueues them into the study (`storage` is the Python expression
    /// of its storage).
    pub fn enqueue_python(&self, journal_path: &str) -> String {
        let mut out = format!(
            "# The next {} trials {} proposes for the study '{}' (hpo-playground).\n# Run with the study's journal beside it, then study.optimize(...) runs them first.\nimport optuna\n\nstorage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend({}))\nstudy = optuna.load_study(study_name={}, storage=storage)\n",
            self.rows.len(),
            self.method,
            self.study,
            python(&Value::from(journal_path)),
            python(&Value::from(self.study.as_str()))
        );
        for row in &self.rows {
            let fields: Vec<String> =
                self.names.iter().zip(row).map(|(n, v)| format!("{}: {}", python(&Value::from(n.as_str())), python(v))).collect();
            out += &format!("study.enqueue_trial({{{}}})\n", fields.join(", "));
        }
        out
    }

    /// The journal `text` with the trials enqueued, as Optuna's `enqueue_trial` writes them (a
    /// last line cut off is left out, so that the file stays readable).
    pub fn enqueued_journal(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 400 * self.rows.len());
        for line in text.lines() {
            if serde_json::from_str::<Value>(line).is_ok() {
                out += line;
                out.push('\n');
            }
        }
        for row in &self.rows {
            let fixed: serde_json::Map<String, Value> = self.names.iter().cloned().zip(row.iter().cloned()).collect();
            let op = serde_json::json!({
                "op_code": 4, "worker_id": "hpo-playground", "study_id": self.study_id, "datetime_start": null, "state": 4,
                "value": null, "values": null, "distributions": {}, "params": {}, "user_attrs": {},
                "system_attrs": { "fixed_params": fixed }, "intermediate_values": {}
            });
            out += &op.to_string();
            out.push('\n');
        }
        out
    }
}

/// A JSON value as a Python literal.
fn python(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Array(a) => format!("[{}]", a.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter().map(|(k, v)| format!("{}: {}", python(&Value::from(k.as_str())), python(v))).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOURNAL: &str = include_str!("../../../tests/fixtures/studies/optuna-mlp-journal.log");

    #[test]
    fn suggestions_respect_the_space_and_are_new() {
        let s = suggest("j.log", JOURNAL, None, "GP", 5, 1).unwrap();
        assert_eq!(s.names, ["lr", "weight_decay", "n_units", "optimizer"]);
        assert_eq!(s.rows.len(), 5);
        for row in &s.rows {
            let lr = row[0].as_f64().unwrap();
            assert!((1e-5..=0.1).contains(&lr));
            let units = row[2].as_i64().unwrap();
            assert!((32..=512).contains(&units) && units % 32 == 0, "{units}: on the step of 32");
            assert!(["adam", "sgd", "rmsprop"].contains(&row[3].as_str().unwrap()));
        }
        let mut distinct = s.rows.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 5);
        assert_eq!(suggest("j.log", JOURNAL, None, "GP", 5, 1).unwrap(), s, "deterministic given the seed");
        // The journal with them enqueued reads back with 5 more waiting trials.
        let (studies, _) = read_journal("j.log", &s.enqueued_journal(JOURNAL)).unwrap();
        assert_eq!(studies[0].trials.iter().filter(|t| t.state == TrialState::Waiting).count(), 5);
        assert!(s.enqueue_python("journal.log").contains("study.enqueue_trial({\"lr\": "));
        assert_eq!(s.csv().lines().count(), 6);
    }

    #[test]
    fn what_cannot_be_suggested_is_said() {
        assert!(suggest("j.log", JOURNAL, Some("nope"), "GP", 2, 0).unwrap_err().to_string().contains("no study 'nope'"));
        let alone = suggest("j.log", JOURNAL, None, "CTS", 2, 0).unwrap_err().to_string();
        assert!(alone.contains("learns from other studies of the same search space") && alone.contains("GCP"), "{alone}");
        assert!(suggest("j.log", JOURNAL, None, "Nope", 2, 0).is_err());
    }

    #[test]
    fn transfer_methods_learn_from_the_files_other_studies() {
        let two = include_str!("../../../tests/fixtures/studies/optuna-two-studies-journal.log");
        let (studies, _) = read_journal("two.log", two).unwrap();
        let tried: Vec<Vec<f64>> = studies[1]
            .trials
            .iter()
            .map(|t| studies[1].distributions.iter().map(|(n, _)| t.params.get(n).copied().unwrap_or(f64::NAN)).collect())
            .collect();
        for method in ["GCP+prior", "CTS", "WS-GP", "SGPT", "ABLR"] {
            let s = suggest("two.log", two, Some("mlp-svhn"), method, 3, 0).unwrap_or_else(|e| panic!("{method}: {e}"));
            assert_eq!(s.rows.len(), 3, "{method}");
            assert_eq!(s.study, "mlp-svhn");
            // New to the study, in its space.
            for row in &s.rows {
                let lr = row[0].as_f64().unwrap();
                assert!((1e-5..=0.1).contains(&lr), "{method}: {lr}");
                assert!(!tried.iter().any(|t| (t[0] - lr).abs() < 1e-15 && row[2].as_i64() == Some(t[2] as i64)), "{method}: tried before");
            }
            assert_eq!(suggest("two.log", two, Some("mlp-svhn"), method, 3, 0).unwrap(), s, "{method}: deterministic given the seed");
        }
    }
}
