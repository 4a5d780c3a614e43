use rand::{Rng, SeedableRng};

use super::views::{edf, explore, history, pareto};
use super::*;
use crate::benchmark::Direction;
use crate::optimizer::MethodRng;
use crate::pareto::dominates;
use crate::space::Hyperparameter;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../../tests/fixtures/studies/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn trials(name: &str) -> StudyTrials {
    read_trials(name, &fixture(name), None, &LoadOptions::default()).unwrap()
}

#[test]
fn an_optuna_journal_gives_every_trial_with_its_own_intermediate_values() {
    let t = trials("optuna-mlp-journal.log");
    let (studies, _) = read_journal("j", std::str::from_utf8(&fixture("optuna-mlp-journal.log")).unwrap()).unwrap();
    assert_eq!(t.trials.len(), studies[0].trials.len());
    let pruned: Vec<&TrialRow> = t.trials.iter().filter(|r| r.state == TrialState::Pruned).collect();
    assert!(!pruned.is_empty() && pruned.iter().all(|r| !r.intermediate.is_empty()));
    // A pruned trial's value (Optuna writes its last intermediate value) is no complete value.
    assert!(history(&t).iter().filter(|h| h.state == TrialState::Pruned).all(|h| h.value.is_none()));
    let steps: usize = t.trials.iter().map(|r| r.intermediate.len()).sum();
    assert_eq!(steps, studies[0].trials.iter().map(|r| r.intermediate.len()).sum::<usize>());
    assert_eq!(t.source, "Optuna journal");
}

#[test]
fn every_file_of_trials_reads_into_the_views() {
    for name in [
        "optuna-mlp-journal.log",
        "optuna-mlp.db",
        "optuna-mlp-trials.csv",
        "optuna-conditional-journal.log",
        "optuna-two-objective.db",
        "raytune-mlp-dataframe.csv",
        "raytune-mlp-experiment.zip",
        "synetune-mlp-results.csv.zip",
    ] {
        let t = trials(name);
        let complete = t.complete().count();
        assert!(complete >= 2, "{name}: {complete} complete trials");
        let e = explore(t, None, 0);
        let sum: f64 = e.importance.rows.iter().map(|r| r.importance.mean).sum();
        assert!((sum - 1.0).abs() < 1e-9, "{name}: importances sum to {sum}");
        assert!(!e.slices.is_empty(), "{name}: {}", e.surrogate_note);
        let curves = e.study.trials.iter().any(|r| !r.intermediate.is_empty());
        for (file, csv) in e.files() {
            // A trials_dataframe CSV holds no intermediate values.
            let expected = if file == "intermediate.csv" && !curves { 1 } else { 2 };
            assert!(csv.lines().count() >= expected, "{name}: {file} is empty:\n{csv}");
        }
    }
}

#[test]
fn a_conditional_parameter_is_left_out_of_the_importance_and_named() {
    let t = trials("optuna-conditional-journal.log");
    let conditional: Vec<String> = t.conditional().iter().map(|&p| t.space.params[p].name.clone()).collect();
    assert!(!conditional.is_empty());
    let e = explore(t, None, 0);
    assert_eq!(e.importance.conditional, conditional);
    assert!(e.importance.rows.iter().all(|r| !conditional.contains(&r.parameter)));
}

/// A study of four parameters whose value is 4·a + 2·b + c (+ 0·d), `a` on a log scale and
/// `c` a categorical whose choices add 0, 0.5 and 1: its importance order is known.
fn synthetic(n: usize, seed: u64) -> StudyTrials {
    let mut rng = MethodRng::seed_from_u64(seed);
    let space = SearchSpace {
        params: vec![
            Hyperparameter { name: "a".into(), kind: ParamKind::Continuous { lower: 1.0, upper: 10.0, log: true } },
            Hyperparameter { name: "b".into(), kind: ParamKind::Continuous { lower: 0.0, upper: 1.0, log: false } },
            Hyperparameter { name: "c".into(), kind: ParamKind::Categorical { levels: vec!["x".into(), "y".into(), "z".into()] } },
            Hyperparameter { name: "d".into(), kind: ParamKind::Integer { lower: 0, upper: 9 } },
        ],
    };
    let trials = (0..n)
        .map(|number| {
            let a: f64 = rng.random_range(1.0..10.0);
            let b: f64 = rng.random();
            let c = rng.random_range(0..3usize) as f64;
            let d = rng.random_range(0..10i64) as f64;
            let value = 4.0 * (a - 1.0) / 9.0 + 2.0 * b + 0.5 * c;
            TrialRow {
                number,
                state: TrialState::Complete,
                params: vec![Some(a), Some(b), Some(c), Some(d)],
                values: Some(vec![value]),
                intermediate: vec![],
            }
        })
        .collect();
    StudyTrials { name: "synthetic".into(), source: "test".into(), space, objectives: vec![("value".into(), Direction::Minimize)], trials }
}

#[test]
fn a_synthetic_study_ranks_its_parameters_in_their_known_order() {
    // Variances of the terms: (4²)/12, (2²)/12, Var(0.5·c) = 0.25·2/3 = 1/6, 0.
    for seed in 0..5 {
        let e = explore(synthetic(300, seed), None, seed);
        let order: Vec<&str> = e.importance.rows.iter().map(|r| r.parameter.as_str()).collect();
        assert_eq!(order, ["a", "b", "c", "d"], "seed {seed}: {:?}", e.importance.rows);
        assert!(e.importance.rows[3].importance.mean < 0.02, "{:?}", e.importance.rows);
        let (x, y, _) = e.contour.as_ref().unwrap();
        assert_eq!((x.as_str(), y.as_str()), ("a", "b"), "the contour opens on the two most important");
    }
}

#[test]
fn the_slice_follows_the_function_where_trials_are_dense() {
    let e = explore(synthetic(150, 1), None, 1);
    // Along b the others sit at the best trial's values: the mean's slope is the function's, 2.
    let (_, b) = e.slices.iter().find(|(n, _)| n == "b").unwrap();
    let slope = (b[b.len() - 1].mean - b[0].mean) / (b[b.len() - 1].x - b[0].x);
    assert!((slope - 2.0).abs() < 0.2, "slope {slope}");
    assert!(b.iter().all(|p| p.sd >= 0.0 && p.sd < 0.5), "{b:?}");
}

#[test]
fn the_history_keeps_the_best_so_far_and_the_edf_ends_at_one() {
    let t = trials("optuna-mlp-journal.log");
    let h = history(&t);
    let bests: Vec<f64> = h.iter().filter_map(|p| p.best).collect();
    let maximise = t.objectives[0].1 == Direction::Maximize;
    assert!(bests.windows(2).all(|w| if maximise { w[1] >= w[0] } else { w[1] <= w[0] }));
    let best =
        t.complete().map(|r| r.values.as_ref().unwrap()[0]).fold(f64::NAN, |b, v| if b.is_nan() || t.loss(v) < t.loss(b) { v } else { b });
    assert_eq!(*bests.last().unwrap(), best);
    let e = edf(&t);
    assert_eq!(e.last().unwrap().1, 1.0);
    assert!(e.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
}

#[test]
fn the_pareto_front_holds_exactly_the_trials_no_other_dominates() {
    let t = trials("optuna-two-objective.db");
    let rows = pareto(&t);
    assert!(rows.iter().any(|r| r.2));
    let losses = |v: &[f64]| -> Vec<f64> { v.iter().zip(&t.objectives).map(|(x, (_, d))| d.loss(*x)).collect() };
    for (n, v, on_front) in &rows {
        let dominated = rows.iter().any(|(m, w, _)| m != n && dominates(&losses(w), &losses(v)));
        assert_eq!(*on_front, !dominated, "trial {n}");
    }
}

#[test]
fn the_views_are_the_same_bits_for_the_same_seed() {
    let a = explore(trials("optuna-mlp-journal.log"), None, 3).files();
    let b = explore(trials("optuna-mlp-journal.log"), None, 3).files();
    assert_eq!(a, b);
}

#[test]
fn a_proposal_reads_back_as_raw_values_choices_by_index() {
    let t = trials("optuna-mlp-journal.log");
    let names: Vec<String> = ["optimizer", "lr", "n_units"].map(String::from).to_vec();
    let cells: Vec<String> = ["sgd", "0.01", "128"].map(String::from).to_vec();
    let raw = super::views::proposal_raw(&t.space, &names, &cells);
    let at = |n: &str| t.space.params.iter().position(|p| p.name == n).unwrap();
    let ParamKind::Categorical { levels } = &t.space.params[at("optimizer")].kind else { panic!("optimizer is a choice") };
    assert_eq!(raw[at("optimizer")], Some(levels.iter().position(|l| l == "sgd").unwrap() as f64));
    assert_eq!((raw[at("lr")], raw[at("n_units")], raw[at("weight_decay")]), (Some(0.01), Some(128.0), None));
}

#[test]
fn a_study_too_small_or_all_failed_says_what_each_view_needs() {
    let one = explore(trials("optuna-one-complete-journal.log"), None, 0);
    assert!(one.importance.too_few() && one.importance.rows.is_empty());
    assert!(
        one.summary().contains("importance needs at least 3 complete trials with a finite value; this study has 1"),
        "{}",
        one.summary()
    );
    assert!(one.summary().contains("a surrogate needs at least 2 trials"), "{}", one.summary());
    let mut two = synthetic(2, 1);
    let e = explore(two.clone(), None, 0);
    assert!(e.importance.too_few() && e.summary().contains("this study has 2"), "{}", e.summary());
    for t in &mut two.trials {
        t.state = TrialState::Fail;
        t.values = None;
    }
    let failed = explore(two, None, 0);
    assert!(failed.history.iter().all(|h| h.best.is_none()) && failed.edf.is_empty() && failed.slices.is_empty());
    assert!(failed.summary().contains("2 trials, 0 complete"), "{}", failed.summary());
    for (file, csv) in failed.files() {
        assert!(csv.lines().count() >= 1, "{file} has its header");
    }
}

#[test]
fn a_parameter_of_one_value_is_named_with_importance_zero() {
    let mut t = synthetic(60, 2);
    t.space.params[3].kind = ParamKind::Integer { lower: 4, upper: 4 };
    for row in &mut t.trials {
        row.params[3] = Some(4.0);
    }
    let e = explore(t, None, 0);
    assert_eq!(e.importance.single, ["d"]);
    let d = e.importance.rows.iter().find(|r| r.parameter == "d").unwrap();
    assert_eq!(d.importance.mean, 0.0);
    assert!(e.summary().contains("a single value only, so importance 0: d"), "{}", e.summary());
}

#[test]
fn a_categorical_of_200_choices_gets_its_importance_and_every_view() {
    let mut rng = MethodRng::seed_from_u64(200);
    let levels: Vec<String> = (0..200).map(|k| format!("level{k}")).collect();
    let space = SearchSpace {
        params: vec![
            Hyperparameter { name: "choice".into(), kind: ParamKind::Categorical { levels } },
            Hyperparameter { name: "x".into(), kind: ParamKind::Continuous { lower: 0.0, upper: 1.0, log: false } },
        ],
    };
    let trials = (0..300)
        .map(|number| {
            let (c, x) = (rng.random_range(0..200usize), rng.random::<f64>());
            let value = (c % 7) as f64 + 0.1 * x;
            TrialRow {
                number,
                state: TrialState::Complete,
                params: vec![Some(c as f64), Some(x)],
                values: Some(vec![value]),
                intermediate: vec![],
            }
        })
        .collect();
    let t =
        StudyTrials { name: "wide".into(), source: "test".into(), space, objectives: vec![("value".into(), Direction::Minimize)], trials };
    let e = explore(t, None, 0);
    assert_eq!(e.importance.rows[0].parameter, "choice", "{:?}", e.importance.rows);
    assert!(e.importance.rows.iter().all(|r| r.importance.mean.is_finite()));
    assert_eq!(e.slices.len(), 2, "{}", e.surrogate_note);
}

#[test]
fn beyond_its_most_trials_the_importance_draws_them_and_says_so() {
    use super::importance::MOST_TRIALS;
    let e = explore(synthetic(MOST_TRIALS + 500, 3), None, 5);
    assert_eq!((e.importance.trials, e.importance.complete), (MOST_TRIALS, MOST_TRIALS + 500));
    assert!(
        e.summary().contains("importance by fANOVA over 2000 of the 2500 complete trials, drawn at random (seed 5)"),
        "{}",
        e.summary()
    );
    let order: Vec<&str> = e.importance.rows.iter().map(|r| r.parameter.as_str()).collect();
    assert_eq!(order, ["a", "b", "c", "d"]);
}
