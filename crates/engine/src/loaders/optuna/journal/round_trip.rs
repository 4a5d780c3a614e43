//! The journal written back keeps every record: over journals generated from a fixed seed —
//! every operation, non-finite values as Optuna writes them, unicode names, several studies
//! (one deleted) — reading, writing the next trials and reading again gives the same studies
//! with the trials enqueued, and the written text is the input byte for byte before them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};

use super::{read_journal, with_trials_enqueued, JournalOp};
use crate::study::TrialState;

/// A number as Optuna's `json.dumps` writes it: a placeholder string for a non-finite one,
/// made the bare word by [`line`].
fn num(x: f64) -> Value {
    if x.is_nan() {
        Value::from("\u{0}NaN")
    } else if x.is_infinite() {
        Value::from(if x > 0.0 { "\u{0}Infinity" } else { "\u{0}-Infinity" })
    } else {
        json!(x)
    }
}

/// One journal line: `op` as JSON with the placeholders of [`num`] as Python's bare words.
fn line(op: &Value) -> String {
    op.to_string().replace("\"\\u0000NaN\"", "NaN").replace("\"\\u0000Infinity\"", "Infinity").replace("\"\\u0000-Infinity\"", "-Infinity")
}

/// A value of an objective or a curve: now and then NaN or infinite.
fn value(rng: &mut ChaCha8Rng) -> f64 {
    match rng.random_range(0..10) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        _ => rng.random_range(-1e3..1e3),
    }
}

const NAMES: [&str; 6] = ["lr", "échelle", "学习率", "emoji 😀", "quote \" back\\slash", "NaN"];

/// A parameter of the generated studies: its name, Optuna's JSON of its distribution and a
/// draw of an internal value.
fn param(k: usize) -> (&'static str, String) {
    let dist = match k % 4 {
        0 => r#"{"name": "FloatDistribution", "attributes": {"step": null, "low": 0.0001, "high": 10.0, "log": true}}"#.to_string(),
        1 => r#"{"name": "IntDistribution", "attributes": {"log": false, "step": 2, "low": 1, "high": 9}}"#.to_string(),
        2 => r#"{"name": "CategoricalDistribution", "attributes": {"choices": ["adam", "sgd ü", null, 3]}}"#.to_string(),
        _ => r#"{"name": "FloatDistribution", "attributes": {"step": 0.5, "low": -1.0, "high": 1.0, "log": false}}"#.to_string(),
    };
    (NAMES[k], dist)
}

fn internal(k: usize, rng: &mut ChaCha8Rng) -> Value {
    match k % 4 {
        0 => json!(10f64.powf(rng.random_range(-4.0..1.0))),
        1 => json!((1 + 2 * rng.random_range(0..5)) as f64),
        2 => json!(rng.random_range(0..4) as f64),
        _ => json!(-1.0 + 0.5 * rng.random_range(0..5) as f64),
    }
}

/// A journal of `rng`'s choosing, one line an operation, every operation among them.
fn journal(rng: &mut ChaCha8Rng) -> String {
    let mut lines = Vec::new();
    let worker = "w-ü";
    // Studies alive, and each trial's study.
    let mut alive: Vec<bool> = Vec::new();
    let mut trial_study: Vec<usize> = Vec::new();
    let n_ops = rng.random_range(1..60);
    for _ in 0..n_ops {
        let live: Vec<usize> = (0..alive.len()).filter(|&s| alive[s]).collect();
        let live_trials: Vec<usize> = (0..trial_study.len()).filter(|&t| alive[trial_study[t]]).collect();
        let op = if live.is_empty() { 0 } else { rng.random_range(0..11) };
        let code = |o: JournalOp| o.code();
        let op = match op {
            0 => {
                alive.push(true);
                let name = format!("{} {}", ["étude", "研究", "study \"x\"", "😀"][rng.random_range(0..4)], alive.len());
                let directions: Vec<i64> = (0..rng.random_range(1..3)).map(|_| rng.random_range(1..3)).collect();
                json!({"op_code": code(JournalOp::CreateStudy), "worker_id": worker, "study_name": name, "directions": directions})
            }
            1 if live.len() > 1 => {
                let s = live[rng.random_range(0..live.len())];
                alive[s] = false;
                json!({"op_code": code(JournalOp::DeleteStudy), "worker_id": worker, "study_id": s})
            }
            2 | 3 => {
                let s = live[rng.random_range(0..live.len())];
                let (o, key) =
                    if op == 2 { (JournalOp::SetStudyUserAttr, "user_attr") } else { (JournalOp::SetStudySystemAttr, "system_attr") };
                json!({"op_code": code(o), "worker_id": worker, "study_id": s, key: {"clé ü": num(value(rng))}})
            }
            5..=9 if !live_trials.is_empty() => {
                let t = live_trials[rng.random_range(0..live_trials.len())];
                match op {
                    5 => {
                        let k = rng.random_range(0..NAMES.len());
                        let (name, dist) = param(k);
                        json!({"op_code": code(JournalOp::SetTrialParam), "worker_id": worker, "trial_id": t, "param_name": name,
                               "param_value_internal": internal(k, rng), "distribution": dist})
                    }
                    6 => {
                        let state = [TrialState::Complete, TrialState::Pruned, TrialState::Fail][rng.random_range(0..3)];
                        let values = (state == TrialState::Complete)
                            .then(|| (0..rng.random_range(1..3)).map(|_| num(value(rng))).collect::<Vec<_>>());
                        json!({"op_code": code(JournalOp::SetTrialStateValues), "worker_id": worker, "trial_id": t, "state": state.code(),
                               "values": values, "datetime_complete": "2026-12-04T00:00:00.000000+00:00"})
                    }
                    7 => json!({"op_code": code(JournalOp::SetTrialIntermediateValue), "worker_id": worker, "trial_id": t,
                                "step": rng.random_range(0..20), "intermediate_value": num(value(rng))}),
                    8 => {
                        json!({"op_code": code(JournalOp::SetTrialUserAttr), "worker_id": worker, "trial_id": t, "user_attr": {"ü": "Infinity"}})
                    }
                    _ => {
                        let attr = if rng.random_bool(0.5) {
                            json!({"constraints": [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)]})
                        } else {
                            json!({"constraints:mémoire": rng.random_range(-1.0..1.0)})
                        };
                        json!({"op_code": code(JournalOp::SetTrialSystemAttr), "worker_id": worker, "trial_id": t, "system_attr": attr})
                    }
                }
            }
            10 => {
                json!({"op_code": code(JournalOp::DiscardTrials), "worker_id": worker, "trial_ids": live_trials.iter().take(2).collect::<Vec<_>>()})
            }
            _ => {
                // A trial: started, or made whole (`add_trial`: its state, values, parameters, curve).
                let s = live[rng.random_range(0..live.len())];
                trial_study.push(s);
                if rng.random_bool(0.5) {
                    json!({"op_code": code(JournalOp::CreateTrial), "worker_id": worker, "study_id": s, "datetime_start": "2026-12-04T00:00:00.000000+00:00"})
                } else {
                    let ks: Vec<usize> = (0..rng.random_range(1..4)).map(|_| rng.random_range(0..NAMES.len())).collect();
                    let params: Map<String, Value> = ks.iter().map(|&k| (param(k).0.to_string(), internal(k, rng))).collect();
                    let dists: Map<String, Value> = ks.iter().map(|&k| (param(k).0.to_string(), Value::from(param(k).1))).collect();
                    let curve: Map<String, Value> = (0..rng.random_range(0..4)).map(|i| (i.to_string(), num(value(rng)))).collect();
                    json!({"op_code": code(JournalOp::CreateTrial), "worker_id": worker, "study_id": s, "state": TrialState::Complete.code(),
                           "value": num(value(rng)), "values": null, "datetime_start": null, "datetime_complete": null,
                           "params": params, "distributions": dists, "user_attrs": {}, "system_attrs": {}, "intermediate_values": curve})
                }
            }
        };
        lines.push(line(&op));
    }
    let mut text = String::new();
    for l in lines {
        text += &l;
        text.push('\n');
    }
    text
}

/// Studies compared through their debug text, where NaN equals NaN.
fn shown<T: std::fmt::Debug + ?Sized>(x: &T) -> String {
    format!("{x:?}")
}

#[test]
fn read_write_read_keeps_every_record_of_generated_journals() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let (mut non_finite_lines, mut ops_seen) = (0, [false; 11]);
    for case in 0..300 {
        let text = journal(&mut rng);
        non_finite_lines += text.lines().filter(|l| l.contains("Infinity") || l.contains(":NaN")).count();
        for l in text.lines() {
            let code = serde_json::from_str::<Value>(&super::non_finite_quoted(l).unwrap_or_else(|| l.to_string())).unwrap()["op_code"]
                .as_i64()
                .unwrap();
            ops_seen[code as usize] = true;
        }
        let (studies, notes) = read_journal("gen.log", &text).unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        assert!(!notes.torn_last_line);
        let target = &studies[rng.random_range(0..studies.len())];
        let fixed: Vec<Map<String, Value>> =
            (0..rng.random_range(0..3)).map(|i| [("lr".to_string(), json!(0.01 * (i + 1) as f64))].into_iter().collect()).collect();
        let written = with_trials_enqueued(&text, target.id, &fixed);
        assert!(!written.torn_last_line_left_out);
        assert!(written.text.starts_with(&text), "case {case}: the input kept byte for byte");
        assert_eq!(written.text.lines().count(), text.lines().count() + fixed.len());
        let (again, _) = read_journal("gen.log", &written.text).unwrap();
        assert_eq!(again.len(), studies.len());
        for (before, after) in studies.iter().zip(&again) {
            let added = if before.id == target.id { fixed.len() } else { 0 };
            assert_eq!(after.trials.len(), before.trials.len() + added, "case {case}");
            assert_eq!(shown(&after.trials[..before.trials.len()]), shown(&before.trials), "case {case}: the same trials");
            assert_eq!(
                (shown(&after.name), shown(&after.directions), after.id),
                (shown(&before.name), shown(&before.directions), before.id)
            );
            assert!(after.trials[before.trials.len()..].iter().all(|t| t.state == TrialState::Waiting));
        }
        // The same journal copied while a line was being written: that line is left out, and said.
        let cut = rng.random_range(1..40);
        let torn = format!(
            "{text}{}",
            &line(&json!({"op_code": 7, "worker_id": "w", "trial_id": 0, "step": 99, "intermediate_value": 0.5}))[..cut]
        );
        let (studies_torn, notes) = read_journal("gen.log", &torn).unwrap();
        assert!(notes.torn_last_line && shown(&studies_torn) == shown(&studies), "case {case}");
        let written_torn = with_trials_enqueued(&torn, target.id, &fixed);
        assert!(written_torn.torn_last_line_left_out);
        assert_eq!(written_torn.text, written.text, "case {case}: the torn line alone is left out");
    }
    assert!(ops_seen.iter().all(|&s| s), "every operation generated: {ops_seen:?}");
    assert!(non_finite_lines > 300, "non-finite values generated: {non_finite_lines} lines");
}

/// A journal whose last record lacks its newline gets one before the next record: nothing is
/// glued to it.
#[test]
fn a_last_record_without_its_newline_gets_one() {
    let text = r#"{"op_code":0,"worker_id":"w","study_name":"s","directions":[1]}"#;
    let written = with_trials_enqueued(text, 0, &[[("x".to_string(), json!(1.0))].into_iter().collect()]);
    assert!(written.text.starts_with(&format!("{text}\n{{")) && !written.torn_last_line_left_out);
    assert_eq!(read_journal("s.log", &written.text).unwrap().0[0].trials.len(), 1);
}
