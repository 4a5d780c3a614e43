//! The loaders on files Optuna 5.0 wrote (`tests/fixtures/studies/make.py` remakes them).

use serde_json::Value;

use super::*;
use crate::loaders::file_format::FileFormat;
use crate::loaders::notes::Note;
use crate::loaders::upload::load_file;
use crate::spec::ExperimentSpec;

const JOURNAL: &str = include_str!("../../../../../tests/fixtures/studies/optuna-mlp-journal.log");
const TRIALS_CSV: &str = include_str!("../../../../../tests/fixtures/studies/optuna-mlp-trials.csv");

#[test]
fn a_trials_dataframe_loads_with_no_roles_its_complete_trials_as_evaluations() {
    let loaded = load_file("optuna-mlp-trials.csv", TRIALS_CSV.as_bytes(), None).unwrap();
    let b = &loaded.benchmark;
    assert_eq!(b.tasks.len(), 1);
    assert_eq!(b.tasks[0].len(), 35, "the 35 complete trials; 41 pruned and 4 failed left out");
    let names: Vec<&str> = b.space.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["lr", "n_units", "optimizer", "weight_decay"], "params_* without the prefix; no bookkeeping column");
    assert!(matches!(&b.space.params[2].kind, ParamKind::Categorical { levels } if levels.len() >= 2));
    assert!(matches!(b.space.params[0].kind, ParamKind::Continuous { log: true, .. }), "lr spans decades: log");
    assert_eq!(b.metrics[0].name, "value");
    assert!(loaded.notes[0].to_string().contains("80 trials (35 complete, 41 pruned, 4 failed)"), "{}", loaded.notes[0]);
    assert!(matches!(&loaded.notes[1], Note::DirectionAssumed { direction: Direction::Minimize, .. }), "{:?}", loaded.notes);
    assert!(loaded.notes[1].to_string().contains("does not say its direction"), "{}", loaded.notes[1]);
    assert_eq!(loaded.format, FileFormat::OptunaTrialsCsv);
}

#[test]
fn a_journal_gives_optuna_s_own_space_states_and_curves() {
    let (studies, notes) = read_journal("journal.log", JOURNAL).unwrap();
    assert_eq!(notes, JournalNotes::default());
    assert_eq!(studies.len(), 1);
    let s = &studies[0];
    assert_eq!(s.name, "mlp-cifar");
    assert_eq!(s.directions, [Direction::Minimize]);
    assert_eq!(s.distributions[0], ("lr".to_string(), Distribution::Float { low: 1e-5, high: 0.1, log: true, step: None }));
    assert_eq!(s.distributions[2], ("n_units".to_string(), Distribution::Int { low: 32, high: 512, log: false, step: 32 }));
    let states = |st: TrialState| s.trials.iter().filter(|t| t.state == st).count();
    assert_eq!((states(TrialState::Complete), states(TrialState::Pruned), states(TrialState::Fail)), (35, 41, 4));
    // The same trials as the CSV, value for value.
    let csv_values: Vec<f64> =
        TRIALS_CSV.lines().skip(1).filter(|l| l.ends_with(",COMPLETE")).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    let journal_values: Vec<f64> =
        s.trials.iter().filter(|t| t.state == TrialState::Complete).filter_map(|t| t.values.as_ref().map(|v| v[0])).collect();
    assert_eq!(csv_values, journal_values);
    // Optuna gives a pruned trial the value it was stopped at: never an evaluation here.
    assert!(s.trials.iter().any(|t| t.state == TrialState::Pruned && t.values.is_some()));
    assert!(s.trials.iter().filter(|t| t.state == TrialState::Complete).all(|t| t.intermediate.len() == 20));
    assert!(
        s.trials.iter().filter(|t| t.state == TrialState::Pruned).all(|t| (1..20).contains(&t.intermediate.len())),
        "pruned: shorter curves"
    );

    let loaded = load_file("optuna-mlp-journal.log", JOURNAL.as_bytes(), None).unwrap();
    let b = &loaded.benchmark;
    assert_eq!(b.tasks[0].len(), 35);
    assert_eq!(b.tasks[0].curves.as_ref().unwrap().values[0].len(), 20, "the complete trials' whole curves");
    assert_eq!(b.space.params[2].kind, ParamKind::Integer { lower: 32, upper: 512 });
    assert!(matches!(&b.space.params[3].kind, ParamKind::Categorical { levels } if levels == &["adam", "sgd", "rmsprop"]));
    assert!(
        loaded.notes[0].to_string().contains("'mlp-cifar': 80 trials (35 complete, 41 pruned, 4 failed), curves of up to 20 steps"),
        "{}",
        loaded.notes[0]
    );
    assert!(
        loaded.notes[0].to_string().contains("lr 1e-5…0.1, log, weight_decay 1e-8…0.01, log, n_units 32…512 step 32"),
        "{}",
        loaded.notes[0]
    );
}

#[test]
fn the_link_s_options_reach_a_journal_and_a_database() {
    use crate::loaders::clean::MissingPolicy;
    use crate::loaders::table::LoadOptions;
    use crate::loaders::upload::load_file_with;
    let options = LoadOptions { direction: Some(Direction::Maximize), linear: vec!["lr".into()], ..LoadOptions::default() };
    let db = include_bytes!("../../../../../tests/fixtures/studies/optuna-mlp.db");
    for (name, bytes) in [("optuna-mlp-journal.log", JOURNAL.as_bytes()), ("optuna-mlp.db", db.as_slice())] {
        let loaded = load_file_with(name, bytes, &options).unwrap();
        let b = &loaded.benchmark;
        assert_eq!(b.metrics[0].direction, Direction::Maximize, "{name}: direction=max");
        assert!(matches!(b.space.params[0].kind, ParamKind::Continuous { log: false, .. }), "{name}: lin=lr");
        assert!(matches!(b.space.params[1].kind, ParamKind::Continuous { log: true, .. }), "{name}: weight_decay keeps Optuna's log scale");
        let said = loaded.notes.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert!(
            said.contains("'value' is maximised as the link says") && said.contains("'lr' is modelled on a linear scale as the link says"),
            "{said}"
        );
    }
    // A non-finite intermediate value is repaired by the link's policy; dropped, its trial leaves the race.
    let ops: Vec<serde_json::Value> = JOURNAL.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let complete = ops.iter().find(|o| o["op_code"] == 6 && o["state"] == 1).unwrap()["trial_id"].clone();
    let point = JOURNAL.lines().zip(&ops).find(|(_, o)| o["op_code"] == 7 && o["trial_id"] == complete && o["step"] == 5).unwrap().0;
    let mut broken: serde_json::Value = serde_json::from_str(point).unwrap();
    broken["intermediate_value"] = serde_json::Value::Null;
    let text = JOURNAL.replacen(point, &broken.to_string(), 1);
    let intact = load_file("j.log", JOURNAL.as_bytes(), None).unwrap();
    assert!(!intact.notes.iter().any(|n| matches!(n, Note::Repaired { .. })), "finite curves are taken as recorded");
    let whole = intact.benchmark.tasks[0].len();
    let repaired = load_file("j.log", text.as_bytes(), None).unwrap();
    assert_eq!(repaired.benchmark.tasks[0].len(), whole, "missing=untrained repairs the point");
    assert!(repaired.benchmark.tasks[0].curves.is_some(), "and the study still races");
    assert!(repaired.notes.iter().any(|n| matches!(n, Note::Repaired { counts, .. } if counts.cells >= 1)), "{:?}", repaired.notes);
    let dropped =
        load_file_with("j.log", text.as_bytes(), &LoadOptions { missing: MissingPolicy::Drop, ..LoadOptions::default() }).unwrap();
    assert_eq!(dropped.benchmark.tasks[0].len(), whole - 1, "missing=drop takes the trial out");
}

#[test]
fn a_torn_last_line_is_read_up_to_the_line_before_and_an_unknown_operation_is_named() {
    let cut = &JOURNAL[..JOURNAL.len() - 30];
    let (studies, notes) = read_journal("j.log", cut).unwrap();
    assert!(notes.torn_last_line);
    assert_eq!(studies[0].trials.len(), 80);
    let loaded = load_file("j.log", cut.as_bytes(), None).unwrap();
    let cut_off = loaded.notes.iter().find(|n| matches!(n, Note::CutOff { .. })).expect("the cut is said");
    assert!(cut_off.to_string().contains("last line is cut off") && cut_off.to_string().contains(" trials ("), "{cut_off}");

    let unknown = format!("{}{{\"op_code\":42,\"worker_id\":\"w\"}}\n", &JOURNAL[..JOURNAL.find('\n').unwrap() + 1]);
    let e = read_journal("j.log", &unknown).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("operation 42"), "{e}");

    // A study that has not finished a trial yet: said, not a panic.
    let only_start: String = JOURNAL.lines().take(8).map(|l| format!("{l}\n")).collect();
    let e = load_file("j.log", only_start.as_bytes(), None).unwrap_err();
    assert!(
        matches!(e, crate::loaders::upload::LoadFailure::Error(m) if m.contains("no study in this Optuna journal has a complete trial yet ('mlp-cifar': 1 trial (1 running))"))
    );
}

#[test]
fn studies_with_one_space_are_tasks_and_others_are_named() {
    // A second study in the same journal: the first one's lines again under study 1, and a
    // third with another space.
    let mut text = JOURNAL.to_string();
    let offset = 80; // trial ids of the second study follow the first one's
    for line in JOURNAL.lines() {
        let mut op: Value = serde_json::from_str(line).unwrap();
        match op["op_code"].as_i64().unwrap() {
            0 => op["study_name"] = "mlp-svhn".into(),
            4 => op["study_id"] = 1.into(),
            _ => {}
        }
        if let Some(id) = op.get("trial_id").and_then(Value::as_u64) {
            op["trial_id"] = (id + offset).into();
        }
        text.push_str(&format!("{op}\n"));
    }
    text.push_str("{\"op_code\":0,\"worker_id\":\"w\",\"study_name\":\"other\",\"directions\":[1]}\n");
    text.push_str("{\"op_code\":4,\"worker_id\":\"w\",\"study_id\":2,\"datetime_start\":\"2026-01-01T00:00:00\"}\n");
    text.push_str("{\"op_code\":5,\"worker_id\":\"w\",\"trial_id\":160,\"param_name\":\"x\",\"param_value_internal\":0.5,\"distribution\":\"{\\\"name\\\": \\\"FloatDistribution\\\", \\\"attributes\\\": {\\\"step\\\": null, \\\"low\\\": 0.0, \\\"high\\\": 1.0, \\\"log\\\": false}}\"}\n");
    text.push_str("{\"op_code\":6,\"worker_id\":\"w\",\"trial_id\":160,\"state\":1,\"values\":[0.3]}\n");
    let loaded = load_file("two.log", text.as_bytes(), None).unwrap();
    let names: Vec<&str> = loaded.benchmark.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["mlp-cifar", "mlp-svhn"]);
    assert!(
        loaded.notes.iter().any(|w| w.to_string().contains("1 study with another search space left out: 'other'")),
        "{:?}",
        loaded.notes
    );
}

/// A distribution Optuna refuses to construct (a log-scale float with a step) is no file Optuna
/// wrote: the journal is refused with the rule's reason and the line, whether the parameter
/// comes in its own operation or with an added trial.
#[test]
fn a_distribution_optuna_refuses_is_said_with_its_line() {
    let dist = r#"{\"name\": \"FloatDistribution\", \"attributes\": {\"step\": 0.01, \"low\": 1e-05, \"high\": 0.1, \"log\": true}}"#;
    let head = "{\"op_code\":0,\"worker_id\":\"w\",\"study_name\":\"s\",\"directions\":[1]}\n";
    let set_param = format!(
        "{head}{{\"op_code\":4,\"worker_id\":\"w\",\"study_id\":0}}\n{{\"op_code\":5,\"worker_id\":\"w\",\"trial_id\":0,\"param_name\":\"lr\",\"param_value_internal\":0.01,\"distribution\":\"{dist}\"}}\n"
    );
    let added_trial = format!(
        "{head}{{\"op_code\":4,\"worker_id\":\"w\",\"study_id\":0,\"state\":1,\"value\":0.5,\"params\":{{\"lr\":0.01}},\"distributions\":{{\"lr\":\"{dist}\"}}}}\n"
    );
    for (text, line) in [(set_param, 3), (added_trial, 2)] {
        let Err(EngineError::Parse { row, message, .. }) = read_journal("bad.log", &text) else { panic!("refused as a parse error") };
        assert_eq!(row, Some(line));
        assert!(message.starts_with("the distribution of 'lr': ") && message.contains("none on a log scale"), "{message}");
    }
}

#[test]
fn a_value_outside_its_distribution_is_said_with_its_line() {
    // A 0 on a log scale (found by the fuzzer in a journal Optuna wrote, one byte changed) has
    // no place in the models' inputs; Optuna itself refuses such a trial.
    let dist = r#"{\"name\": \"FloatDistribution\", \"attributes\": {\"step\": null, \"low\": 1e-05, \"high\": 0.1, \"log\": true}}"#;
    let head = "{\"op_code\":0,\"worker_id\":\"w\",\"study_name\":\"s\",\"directions\":[1]}\n";
    for v in ["0", "-1", "0.5"] {
        let set_param = format!(
            "{head}{{\"op_code\":4,\"worker_id\":\"w\",\"study_id\":0}}\n{{\"op_code\":5,\"worker_id\":\"w\",\"trial_id\":0,\"param_name\":\"lr\",\"param_value_internal\":{v},\"distribution\":\"{dist}\"}}\n"
        );
        let added_trial = format!(
            "{head}{{\"op_code\":4,\"worker_id\":\"w\",\"study_id\":0,\"state\":1,\"value\":0.5,\"params\":{{\"lr\":{v}}},\"distributions\":{{\"lr\":\"{dist}\"}}}}\n"
        );
        for (text, line) in [(set_param, 3), (added_trial, 2)] {
            let Err(EngineError::Parse { row, message, .. }) = read_journal("bad.log", &text) else { panic!("refused as a parse error") };
            assert_eq!(row, Some(line));
            assert!(
                message.starts_with("a trial's 'lr' is ") && message.contains("not a value of its distribution (1e-5…0.1, log)"),
                "{message}"
            );
        }
    }
}

#[test]
fn the_sqlite_storage_reads_as_optuna_wrote_it() {
    // Counts as Python's sqlite3 reads them: study 1 has 21 complete, 17 pruned, 2 failed;
    // study 2 has 19, 19, 2; study 3 ('lr-only', another space) 10 complete.
    let bytes = include_bytes!("../../../../../tests/fixtures/studies/optuna-mlp.db");
    let loaded = load_file("optuna-mlp.db", bytes, None).unwrap();
    let b = &loaded.benchmark;
    assert_eq!(b.tasks.iter().map(|t| (t.name.as_str(), t.len())).collect::<Vec<_>>(), [("mlp-cifar", 21), ("mlp-svhn", 19)]);
    assert!(b.tasks.iter().all(|t| t.curves.as_ref().is_some_and(|c| c.values.iter().all(|v| v.len() == 20))));
    assert!(loaded.notes[0].to_string().contains("Optuna storage (SQLite), 2 studies with one search space"), "{:?}", loaded.notes);
    assert!(loaded.notes[0].to_string().contains("'mlp-cifar': 40 trials (21 complete, 17 pruned, 2 failed)"), "{:?}", loaded.notes);
    assert!(loaded.notes[1].to_string().contains("'lr-only'"), "{:?}", loaded.notes);
    let history = b.tasks[0].history.as_ref().unwrap();
    assert_eq!(history.trials.len(), 40);
    // An SQLite database that is not Optuna's says so, naming its tables.
    let other = include_bytes!("../../../../../tests/fixtures/studies/not-optuna.db");
    let Err(crate::loaders::upload::LoadFailure::Error(e)) = load_file("runs.db", other, None) else { panic!("an error") };
    assert!(e.contains("not an Optuna storage") && e.contains("runs"), "{e}");
    // A cut database is an error, not a panic.
    assert!(load_file("cut.db", &bytes[..8192], None).is_err());
}

#[test]
fn trials_recorded_whole_with_add_trials_keep_their_values_and_curves() {
    // `study.add_trials` writes each trial in one create-trial line with its value and curve;
    // read as no trial complete before ("nothing to learn from").
    let text = include_str!("../../../../../tests/fixtures/studies/optuna-added-trials-journal.log");
    let (studies, _) = read_journal("journal.log", text).unwrap();
    let s = &studies[0];
    assert_eq!(s.trials.len(), 12);
    assert!(s.trials.iter().all(|t| t.state == TrialState::Complete && t.values.as_ref().is_some_and(|v| v.len() == 1)));
    assert!(s.trials.iter().all(|t| t.intermediate.len() == 5 && t.intermediate.get(&5).copied() == t.values.as_ref().map(|v| v[0])));
    let loaded = load_file("optuna-added-trials-journal.log", text.as_bytes(), None).unwrap();
    assert_eq!(loaded.benchmark.tasks[0].len(), 12);
}

#[test]
fn infinite_and_nan_values_that_optunas_journal_writes_as_bare_words_are_read() {
    // Optuna writes inf and NaN with Python's json.dumps: `Infinity`, `-Infinity`, `NaN`, not
    // JSON. 12 complete trials: two infinite (lr > 1), one −∞, the curves of the diverged ones
    // inf and NaN.
    let text = include_str!("../../../../../tests/fixtures/studies/optuna-infinite-journal.log");
    assert!(text.contains(":Infinity") && text.contains("[-Infinity]") && text.contains(":NaN"), "the fixture has the bare words");
    let (studies, notes) = read_journal("journal.log", text).unwrap();
    assert!(!notes.torn_last_line);
    let s = &studies[0];
    assert_eq!(s.trials.len(), 12);
    assert!(s.trials.iter().all(|t| t.state == TrialState::Complete));
    let values: Vec<f64> = s.trials.iter().map(|t| t.values.as_ref().unwrap()[0]).collect();
    assert_eq!(values.iter().filter(|v| **v == f64::INFINITY).count(), 2);
    assert_eq!(values.iter().filter(|v| **v == f64::NEG_INFINITY).count(), 1);
    assert!(values.iter().all(|v| !v.is_nan()));
    let curves = s.trials.iter().flat_map(|t| t.intermediate.values());
    assert_eq!(curves.clone().filter(|v| v.is_nan()).count(), 4);
    assert_eq!(curves.filter(|v| v.is_infinite()).count(), 2);
}

const CONDITIONAL: &str = include_str!("../../../../../tests/fixtures/studies/optuna-conditional-journal.log");

#[test]
fn a_conditional_space_loads_every_trial_and_races() {
    // Optuna's tutorial shape: momentum only for sgd, beta2 only for adam; 60 trials, 33 complete.
    let loaded = load_file("optuna-conditional-journal.log", CONDITIONAL.as_bytes(), None).unwrap();
    let b = &loaded.benchmark;
    let names: Vec<&str> = b.space.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["optimizer", "lr", "beta2", "momentum"], "in the order first suggested");
    assert_eq!(b.tasks[0].len(), 33, "every complete trial, of either branch");
    let note = loaded.notes.iter().find(|w| w.to_string().contains("conditional search space")).expect("the conditional space is said");
    assert!(note.to_string().contains("'beta2' only when 'optimizer' is adam, 'momentum' only when 'optimizer' is sgd"), "{note}");
    // An adam trial's momentum stands at its inactive value (the lower bound, 0), an sgd
    // trial's beta2 at 0.9.
    assert!(b.tasks[0].configs.iter().any(|c| c[0] == 1.0 && c[3] == 0.0 && c[2] > 0.9));
    assert!(b.tasks[0].configs.iter().any(|c| c[0] == 0.0 && c[2] == 0.9 && c[3] > 0.0));
    // Raced: the complete trials' whole curves are replayed.
    let spec = ExperimentSpec {
        data: crate::spec::DataRef::Bundled("curves".into()),
        methods: vec!["RS".into(), "ASHA".into()],
        seeds: 2,
        race_budget: Some(60),
        ..ExperimentSpec::default()
    };
    let resolved = spec.resolve(b).unwrap();
    for job in resolved.jobs() {
        crate::runner::run_job(b, &resolved, &job, &crate::transfer::PriorCache::new(), &|| 0.0, &mut |_| true).unwrap();
    }
}

#[test]
fn a_study_whose_trials_share_no_parameter_says_so_with_the_way_out() {
    let text = include_str!("../../../../../tests/fixtures/studies/optuna-disjoint-journal.log");
    let Err(crate::loaders::upload::LoadFailure::Error(e)) = load_file("disjoint.log", text.as_bytes(), None) else { panic!("an error") };
    assert!(e.contains("share no parameter") && e.contains("Suggest in every trial the choice"), "{e}");
}
