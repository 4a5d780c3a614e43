//! The next trials on files Optuna 5.0 wrote (`tests/fixtures/studies/make.py` remakes them).

use super::*;
use crate::loaders::file_format::FileFormat;
use crate::loaders::formats::recognise;
use crate::loaders::Unpacked;
use crate::space::{Hyperparameter, SearchSpace};
use crate::study::{Distribution, TrialState};

const JOURNAL: &str = include_str!("../../../../tests/fixtures/studies/optuna-mlp-journal.log");

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
    let (studies, _) = read_journal("j.log", &s.enqueued_journal(JOURNAL).text).unwrap();
    assert_eq!(studies[0].trials.iter().filter(|t| t.state == TrialState::Waiting).count(), 5);
    assert!(s.enqueue_python("", &files::journal_storage("journal.log")).contains("study.enqueue_trial({\"lr\": "));
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
    let two = include_str!("../../../../tests/fixtures/studies/optuna-two-studies-journal.log");
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

const CONDITIONAL: &str = include_str!("../../../../tests/fixtures/studies/optuna-conditional-journal.log");

#[test]
fn a_conditional_study_gets_next_trials_of_its_branches() {
    for method in ["GP", "GCP", "RS"] {
        let s = suggest("c.log", CONDITIONAL, None, method, 6, 2).unwrap_or_else(|e| panic!("{method}: {e}"));
        assert_eq!(s.names, ["optimizer", "lr", "beta2", "momentum"], "in the order first suggested");
        for row in &s.rows {
            // Each proposal suggests its branch's parameter only.
            match row[0].as_str().unwrap() {
                "sgd" => assert!(row[3].is_f64() && row[2].is_null(), "{method}: {row:?}"),
                "adam" => assert!(row[2].is_f64() && row[3].is_null(), "{method}: {row:?}"),
                other => panic!("{other}"),
            }
        }
        assert!(s.used.contains("33 complete trials observed") && s.used.contains("'beta2', 'momentum'"), "{}", s.used);
        // Written without the parameters a branch does not suggest; Optuna reads it back.
        assert!(
            !s.enqueue_python("", &files::journal_storage("j.log")).contains("null")
                && !s.enqueue_python("", &files::journal_storage("j.log")).contains("None")
        );
        let (studies, _) = read_journal("c.log", &s.enqueued_journal(CONDITIONAL).text).unwrap();
        assert_eq!(studies[0].trials.iter().filter(|t| t.state == TrialState::Waiting).count(), 6);
    }
    let disjoint = include_str!("../../../../tests/fixtures/studies/optuna-disjoint-journal.log");
    let e = suggest("d.log", disjoint, None, "GP", 2, 0).unwrap_err().to_string();
    assert!(e.contains("share no parameter"), "{e}");
}

#[test]
fn pruned_trials_enter_below_every_complete_trial_and_are_said() {
    let s = suggest("j.log", JOURNAL, None, "GCP", 4, 0).unwrap();
    assert_eq!(s.used, "35 complete trials observed; 41 pruned trials entered as no better than the worst complete trial (each at its last intermediate value, or at the worst complete value where that is better)");
    let left_out = suggest_with("j.log", JOURNAL, None, "GCP", 4, 0, PrunedTrials::LeftOut).unwrap();
    assert_eq!(left_out.used, "35 complete trials observed; 41 pruned trials left out");
    assert_ne!(left_out.rows, s.rows);
}

/// The measure of docs/benchmarks.md, "Pruned trials in the next trials": on the pruned
/// journal (80 trials, 41 pruned by the median pruner), how many of each method's proposals
/// (4 per seed, seeds 0–9) have a pruned trial as their nearest trial in the models'
/// encoding, and their mean final loss by the fixture's own objective (`make.py`'s
/// `validation_loss` after 20 epochs), with pruned trials left out and entered below every
/// complete trial.
/// `cargo test -p hpo-engine --release --lib measure_pruned_rule -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_pruned_rule() {
    let (studies, _) = read_journal("j.log", JOURNAL).unwrap();
    let study = &studies[0];
    let space =
        SearchSpace { params: study.distributions.iter().map(|(n, d)| Hyperparameter { name: n.clone(), kind: d.kind() }).collect() };
    let trials: Vec<(Vec<f64>, bool)> = study
        .trials
        .iter()
        .filter(|t| matches!(t.state, TrialState::Complete | TrialState::Pruned))
        .map(|t| (space.encode(&study.config(t)), t.state == TrialState::Pruned))
        .collect();
    let internal = |row: &[Value]| -> Vec<f64> {
        study
            .distributions
            .iter()
            .zip(row)
            .map(|((_, d), v)| match d {
                Distribution::Categorical { choices } => choices.iter().position(|c| c == v).unwrap() as f64,
                _ => v.as_f64().unwrap(),
            })
            .collect()
    };
    for method in ["RS", "GP", "GCP"] {
        for rule in [PrunedTrials::LeftOut, PrunedTrials::BelowComplete] {
            let (mut near_pruned, mut total, mut loss) = (0, 0, 0.0);
            for seed in 0..10 {
                let s = suggest_with("j.log", JOURNAL, None, method, 4, seed, rule).unwrap();
                for row in &s.rows {
                    let x = space.encode(&internal(row));
                    let d = |y: &[f64]| x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
                    let nearest = trials.iter().min_by(|a, b| d(&a.0).total_cmp(&d(&b.0))).unwrap();
                    near_pruned += nearest.1 as usize;
                    loss += final_loss(row);
                    total += 1;
                }
            }
            println!(
                "{method} {rule:?}: {near_pruned} of {total} proposals nearest to a pruned trial; mean final loss {:.4}",
                loss / total as f64
            );
        }
    }
}

/// `make.py`'s `validation_loss` after its 20 epochs, for a suggested row (lr, weight_decay, n_units, optimizer).
fn final_loss(row: &[Value]) -> f64 {
    let (lr, wd, units, opt) = (row[0].as_f64().unwrap(), row[1].as_f64().unwrap(), row[2].as_f64().unwrap(), row[3].as_str().unwrap());
    let best_lr: f64 = if opt == "adam" { 3e-3 } else { 3e-2 };
    let miss = (lr.log10() - best_lr.log10()).powi(2) + 0.3 * (wd.log10() + 5.0).powi(2) / 9.0;
    let floor = 0.15 + 0.08 * miss + 0.02 * (units - 192.0).abs() / 64.0;
    let speed = 0.15 + 0.5 * (lr / best_lr).min(3.0);
    floor + (1.2 - floor) * (-speed * 20.0).exp()
}

#[test]
fn an_sqlite_storage_gets_suggestions_and_an_enqueue_py_that_opens_it() {
    let bytes = include_bytes!("../../../../tests/fixtures/studies/optuna-mlp.db");
    assert_eq!(format_of("optuna-mlp.db", bytes), Some(FileFormat::OptunaStorage));
    let files = suggest_files("optuna-mlp.db", bytes, Some("mlp-svhn"), "GCP", 3, 0).unwrap();
    assert_eq!((files.study.as_str(), files.rows.len()), ("mlp-svhn", 3));
    assert_eq!(files.journal, None, "the database is never written here");
    assert!(
        files.python.contains("storage = \"sqlite:///optuna-mlp.db\"") && files.python.contains("study_name=\"mlp-svhn\""),
        "{}",
        files.python
    );
    assert_eq!(files.python.matches("study.enqueue_trial(").count(), 3);
    let e = suggest_files("optuna-mlp.db", bytes, None, "GCP", 3, 0).unwrap_err().to_string();
    assert!(e.contains("name one with --study"), "{e}");
    // A database that is Optuna's in name only, and a CSV, are said.
    let other = include_bytes!("../../../../tests/fixtures/studies/not-optuna.db");
    assert!(suggest_files("runs.db", other, None, "GP", 1, 0).unwrap_err().to_string().contains("not an Optuna storage"));
    assert!(suggest_files("x.csv", b"a,b\n1,2\n", None, "GP", 1, 0).unwrap_err().to_string().contains("neither an Optuna journal"));
}

#[test]
fn a_two_objective_sqlite_study_gets_proposals_from_the_multi_objective_methods() {
    // NSGA-II, two minimised directions, 40 trials; its trial_params rows run over overflow pages.
    let bytes = include_bytes!("../../../../tests/fixtures/studies/optuna-two-objective.db");
    let studies = crate::loaders::optuna::storage::read_storage("two.db", bytes).unwrap();
    assert_eq!(studies[0].directions, [Direction::Minimize, Direction::Minimize]);
    assert_eq!(studies[0].complete_trials().count(), 40);
    let Distribution::Categorical { choices } = &studies[0].distributions[2].1 else { panic!("the cell choice") };
    assert_eq!(choices.len(), 300, "the distribution's JSON read across its overflow pages");
    for method in ["GP+MO", "GCP+MO", "ParEGO", "EHVI", "RS"] {
        let files = suggest_files("two.db", bytes, None, method, 3, 0).unwrap_or_else(|e| panic!("{method}: {e}"));
        assert_eq!(files.rows.len(), 3, "{method}");
        assert!(files.used.contains("40 complete trials observed; 2 objectives (minimised, minimised)"), "{method}: {}", files.used);
        let mut distinct = files.rows.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{method}");
    }
    let e = suggest_files("two.db", bytes, None, "GP", 3, 0).unwrap_err().to_string();
    assert!(e.contains("'loss-latency' has 2 objectives: GP proposes for one objective") && e.contains("GP+MO"), "{e}");
    let e = suggest("j.log", JOURNAL, None, "ParEGO", 3, 0).unwrap_err().to_string();
    assert!(e.contains("ParEGO proposes for several objectives"), "{e}");
}

#[test]
fn a_gzipped_journal_gets_the_same_next_trials_as_the_plain_one() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(JOURNAL.as_bytes()).unwrap();
    let packed = gz.finish().unwrap();
    assert_eq!(format_of("j.log.gz", &packed), Some(FileFormat::OptunaJournal));
    let plain = suggest_files("j.log", JOURNAL.as_bytes(), None, "GP", 2, 0).unwrap();
    assert_eq!(suggest_files("j.log.gz", &packed, None, "GP", 2, 0).unwrap(), plain);
}

/// The format the format table gives a file.
fn format_of(file: &str, bytes: &[u8]) -> Option<FileFormat> {
    recognise(&Unpacked::of(file, bytes).ok()?).map(|f| f.format)
}

/// The normalised L-infinity distance between two suggested rows of the pruned journal's study
/// (log scales on the log, a different choice 1).
fn gap(a: &[Value], b: &[Value]) -> f64 {
    let unit = |v: &Value, lo: f64, hi: f64| (v.as_f64().unwrap().ln() - lo.ln()) / (hi.ln() - lo.ln());
    let lr = (unit(&a[0], 1e-5, 0.1) - unit(&b[0], 1e-5, 0.1)).abs();
    let wd = (unit(&a[1], 1e-6, 1e-2) - unit(&b[1], 1e-6, 1e-2)).abs();
    let units = (a[2].as_f64().unwrap() - b[2].as_f64().unwrap()).abs() / 480.0;
    lr.max(wd).max(units).max(f64::from(u8::from(a[3] != b[3])))
}

#[test]
fn a_batch_and_the_trials_it_enqueues_are_pending_for_the_next_one() {
    for method in ["GP", "GCP"] {
        let batch = suggest("j.log", JOURNAL, None, method, 4, 0).unwrap();
        // Four configurations, no two alike: the picks before are believed at the model's mean.
        let smallest = (0..4).flat_map(|i| (i + 1..4).map(move |j| (i, j))).map(|(i, j)| gap(&batch.rows[i], &batch.rows[j]));
        assert!(smallest.fold(f64::INFINITY, f64::min) > 0.05, "{method}: {:?}", batch.rows);
        // Enqueued (WAITING, their parameters fixed), they are pending for the next batch,
        // which goes elsewhere; the sentence says so.
        let enqueued = batch.enqueued_journal(JOURNAL).text;
        let (studies, _) = read_journal("j.log", &enqueued).unwrap();
        let waiting: Vec<&crate::study::Trial> = studies[0].trials.iter().filter(|t| t.state == TrialState::Waiting).collect();
        assert!(waiting.len() == 4 && waiting.iter().all(|t| t.params.len() == 4), "fixed_params read as the trials' parameters");
        let next = suggest("j.log", &enqueued, None, method, 4, 0).unwrap();
        assert!(
            next.used.ends_with(
                "; 4 pending trials (running or waiting) observed at the model's mean there (kriging believer) until they report"
            ),
            "{}",
            next.used
        );
        for row in &next.rows {
            assert!(batch.rows.iter().all(|b| gap(row, b) >= PENDING_RADIUS), "{method}: {row:?} repeats a pending trial");
        }
        // CL-min, the rule before: as good as the best trial.
        let (studies, _) = read_journal("j.log", JOURNAL).unwrap();
        let min = suggest_among("j.log", &studies, None, method, 4, 0, PrunedTrials::BelowComplete, Liar::Min).unwrap();
        assert_ne!(min.rows, batch.rows);
    }
}

#[test]
fn a_running_trial_outside_the_space_is_left_out_and_said() {
    let (mut studies, _) = read_journal("j.log", JOURNAL).unwrap();
    let mut running = studies[0].trials[0].clone();
    running.state = TrialState::Running;
    running.values = None;
    running.params.insert("optimizer".into(), 7.0); // there are 3 choices
    studies[0].trials.push(running);
    let s = suggest_for_study(&studies, &studies[0].name.clone(), "GP", 1, 0, Liar::Max).unwrap();
    assert!(s.used.ends_with("; 1 pending trial with a value outside the study's distributions left out"), "{}", s.used);
}

#[test]
fn an_infinite_value_is_clipped_and_a_used_up_space_repeats_its_best_trials() {
    use crate::study::Trial;
    let trial = |choice: f64, value: f64| Trial {
        state: TrialState::Complete,
        params: [("v".to_string(), choice)].into(),
        values: Some(vec![value]),
        intermediate: Default::default(),
        constraints: Default::default(),
    };
    let study = Study {
        id: 0,
        name: "small".into(),
        directions: vec![Direction::Minimize],
        distributions: vec![("v".into(), Distribution::Categorical { choices: vec!["a".into(), "b".into(), "c".into()] })],
        trials: vec![trial(0.0, 1.0), trial(1.0, f64::NEG_INFINITY), trial(2.0, 2.0), trial(2.0, f64::INFINITY)],
    };
    let (clipped, n) = study.infinite_values_clipped();
    assert_eq!(n, 2);
    assert_eq!(clipped.trials.iter().map(|t| t.values.as_ref().unwrap()[0]).collect::<Vec<_>>(), [1.0, 1.0, 2.0, 2.0]);
    // Every configuration tried: four picks repeat the best ones, best first (a and b tie at
    // 1.0 after clipping, kept in trial order; c once), then again.
    let s = suggest_for_study(&[study], "small", "GP", 4, 0, Liar::Max).unwrap();
    assert_eq!(s.rows, [["a"], ["b"], ["c"], ["a"]].map(|r| vec![Value::from(r[0])]));
    assert!(s.used.contains("2 infinite values clipped") && s.used.ends_with("so 4 suggestions repeat the best trials"), "{}", s.used);
}

#[test]
fn an_unnamed_optuna_study_seeds_by_its_prefix() {
    assert_eq!(seed_name("no-name-1f6bb5fa-6ea5-4b2c-9c57-0d9b3ac1a8a4"), "no-name");
    assert_eq!(seed_name("no-name-mine"), "no-name-mine");
    assert_eq!(seed_name("mlp-svhn"), "mlp-svhn");
}

#[test]
fn the_methods_offered_for_a_study_are_those_that_propose_for_its_objectives() {
    // One objective: every method from the study alone, GP first choice; the transfer methods
    // only with related studies.
    let one = methods_for(1, false);
    assert_eq!(
        one,
        methods().into_iter().filter(|m| registry::find(RunKind::Full, m).unwrap().objectives().fits(false)).collect::<Vec<_>>()
    );
    assert_eq!(default_method(1), "GP");
    assert!(one.contains(&"GP") && !one.contains(&"GP+MO") && !one.contains(&"ParEGO"), "{one:?}");
    let related = methods_for(1, true);
    assert!(transfer_methods()
        .iter()
        .filter(|m| registry::find(RunKind::Full, m).unwrap().objectives().fits(false))
        .all(|m| related.contains(m)));
    // Two objectives: the +MO variants from the study alone, ParEGO and EHVI, and RS; never a
    // transfer method, with related studies or not.
    let two = methods_for(2, true);
    assert_eq!(two, ["RS", "GP+MO", "GCP+MO", "ParEGO", "EHVI"]);
    assert_eq!(methods_for(2, false), two);
    assert_eq!(default_method(2), "GP+MO");
    // Three: EHVI handles two only.
    assert_eq!(methods_for(3, false), ["RS", "GP+MO", "GCP+MO", "ParEGO"]);
    // Every listed method passes the check the suggestion makes, every other fails it.
    let bytes = include_bytes!("../../../../tests/fixtures/studies/optuna-two-objective.db");
    let studies = crate::loaders::optuna::storage::read_storage("two.db", bytes).unwrap();
    for entry in registry::of_kind(RunKind::Full) {
        assert_eq!(check_objectives(&studies[0], entry).is_ok(), two.contains(&entry.name), "{}", entry.name);
    }
    let e = check_objectives(&studies[0], registry::find(RunKind::Full, "GCP+prior+MO").unwrap()).unwrap_err().to_string();
    assert!(e.contains("GCP+prior+MO proposes for several objectives only from the study alone; for this study: RS, GP+MO"), "{e}");
}

/// Bad input as Optuna writes it (`make.py edge`): a two-objective study whose loss was NaN
/// (failed, no value) or infinite gets proposals from every method listed for it, the default
/// first, and says what it left out; a study with one complete trial gets proposals too.
#[test]
fn a_two_objective_study_with_failed_values_and_a_one_trial_study_get_their_next_trials() {
    let text = include_str!("../../../../tests/fixtures/studies/optuna-two-objective-failed-journal.log");
    let (studies, _) = read_journal("f.log", text).unwrap();
    let n = studies[0].directions.len();
    assert_eq!(n, 2);
    for method in methods_for(n, false) {
        let s = suggest("f.log", text, None, method, 2, 0).unwrap_or_else(|e| panic!("{method}: {e}"));
        assert_eq!(s.rows.len(), 2, "{method}");
        // The infinite loss is clipped to the finite ones' range (a trial of its own), the
        // failed ones are not observed.
        assert!(
            s.used.starts_with(
                "13 complete trials observed; 1 infinite value clipped to the finite values' range; 2 objectives (minimised, maximised)"
            ),
            "{method}: {}",
            s.used
        );
    }
    assert_eq!(suggest("f.log", text, None, default_method(n), 2, 0).unwrap().method, "GP+MO");
    let e = suggest("f.log", text, None, default_method(1), 2, 0).unwrap_err().to_string();
    assert!(e.contains("'loss-throughput' has 2 objectives: GP proposes for one objective; for this study: RS, GP+MO"), "{e}");
    // One complete trial: the default method proposes from it.
    let one = include_str!("../../../../tests/fixtures/studies/optuna-one-complete-journal.log");
    for method in [default_method(1), "RS"] {
        let s = suggest("one.log", one, None, method, 3, 0).unwrap_or_else(|e| panic!("{method}: {e}"));
        assert_eq!(s.rows.len(), 3);
        assert!(s.used.starts_with("1 complete trial observed"), "{}", s.used);
    }
}

/// The journal written back is its input byte for byte, also the lines with Optuna's
/// `Infinity`, `-Infinity` and `NaN` (73 lines of `optuna-infinite-journal.log`, 9 of them with
/// such a word), and every trial reads back in its state; a torn last line is left out and said.
#[test]
fn the_journal_written_back_keeps_every_line_of_its_input() {
    let text = include_str!("../../../../tests/fixtures/studies/optuna-infinite-journal.log");
    let non_finite = text.lines().filter(|l| l.contains("Infinity") || l.contains("NaN")).count();
    assert!(non_finite >= 9, "{non_finite}");
    let files = suggest_files("optuna-infinite-journal.log", text.as_bytes(), None, "RS", 2, 0).unwrap();
    let journal = files.journal.as_deref().unwrap();
    assert!(journal.starts_with(text), "the input kept byte for byte");
    assert_eq!(journal.lines().count(), text.lines().count() + 2);
    assert_eq!((files.torn_last_line_left_out, files.journal_note()), (false, None));
    let (before, _) = read_journal("i.log", text).unwrap();
    let (after, _) = read_journal("i.log", journal).unwrap();
    let states = |s: &crate::study::Study| s.trials.iter().map(|t| t.state).collect::<Vec<_>>();
    assert_eq!(states(&after[0])[..before[0].trials.len()], states(&before[0]));
    assert!(before[0].trials.iter().any(|t| t.values.as_ref().is_some_and(|v| v[0].is_infinite())));
    // Copied while a line was being written: that line alone is left out, and said.
    let torn = format!("{text}{{\"op_code\":4,\"worker_id\":\"w\",\"stu");
    let files = suggest_files("optuna-infinite-journal.log", torn.as_bytes(), None, "RS", 2, 0).unwrap();
    assert_eq!(files.journal.as_deref(), Some(journal));
    assert!(files.journal_note().unwrap().contains("last line was cut off"));
}

/// suggestions.csv reads back as the rows it was written from: every number to the bit, a
/// choice as its text, a parameter its branch does not suggest as an empty cell.
#[test]
fn suggestions_csv_reads_back_as_its_rows() {
    for (file, text) in [("j.log", JOURNAL), ("c.log", CONDITIONAL)] {
        let s = suggest(file, text, None, "RS", 6, 2).unwrap();
        let written = s.csv();
        let mut reader = csv::Reader::from_reader(written.as_bytes());
        // The parameters, then the explanation columns (read back in the test below).
        let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let expected: Vec<String> = s.names.iter().cloned().chain(super::files::EXPLANATION_COLUMNS.map(String::from)).collect();
        assert_eq!(headers, expected);
        let read: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(read.len(), s.rows.len());
        for (record, row) in read.iter().zip(&s.rows) {
            for (cell, value) in record.iter().zip(row) {
                match value {
                    serde_json::Value::Null => assert_eq!(cell, ""),
                    serde_json::Value::String(choice) => assert_eq!(cell, choice),
                    v => assert_eq!(cell.parse::<f64>().unwrap().to_bits(), v.as_f64().unwrap().to_bits(), "{file}: {cell}"),
                }
            }
        }
        assert!(file != "c.log" || read.iter().any(|r| r.iter().any(str::is_empty)), "the conditional study leaves cells empty");
    }
}

#[test]
fn each_proposal_says_what_the_model_predicts_there_and_flags_an_untried_bound() {
    // GP on the 80-trial study: every proposal is a searched point, so each has the model's
    // prediction in the objective's units (a loss, minimised) and a log-EI.
    let s = suggest("j.log", JOURNAL, None, "GP", 4, 0).unwrap();
    assert_eq!(s.explanations.len(), 4);
    let (lo, hi) = {
        let study = &read_journal("j.log", JOURNAL).unwrap().0[0];
        let v: Vec<f64> = study.complete_trials().filter_map(|t| t.values.as_ref().map(|v| v[0])).collect();
        (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max))
    };
    for why in &s.explanations {
        let p = why.predicted.expect("a searched proposal has a prediction");
        assert!(p.value.is_finite() && p.sd > 0.0 && p.log_ei.is_finite(), "{p:?}");
        // A GP on standardised losses predicts near the values it saw, not far outside them.
        let span = hi - lo;
        assert!(p.value > lo - span && p.value < hi + span, "{p:?} for values in [{lo}, {hi}]");
        for text in &why.untried_bounds {
            assert!(text.contains("bound, where no trial went") && text.contains("the model extrapolates"), "{text}");
        }
    }
    // The table carries it: the parameters, then the five explanation columns.
    let csv = s.csv();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header,
        [
            "lr",
            "weight_decay",
            "n_units",
            "optimizer",
            "predicted_value",
            "predicted_sd",
            "log_ei",
            "on_untried_bound",
            "untried_bound_reason"
        ]
    );
    let first = s.explanations[0].predicted.unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(&format!(",{},{},{},", first.value, first.sd, first.log_ei)), "{csv}");
    // A method without a searched model (random search) predicts nothing: the cells are empty.
    let rs = suggest("j.log", JOURNAL, None, "RS", 2, 0).unwrap();
    assert!(rs.explanations.iter().all(|e| e.predicted.is_none()));
    assert!(rs.csv().lines().nth(1).unwrap().contains(",,,"), "{}", rs.csv());
}
