//! DyHPO's step: the fast variant's training set and schedule, the bounded decisions, EI_MF's
//! incumbents, and whole races.

use super::*;
use crate::fidelity::run_race;
use rand::SeedableRng;

#[test]
fn the_fast_variant_keeps_the_latest_observation_of_each_configuration_first() {
    let mut race = Race::new(4, 5, 100);
    race.curves = vec![vec![0.5, 0.4, 0.3], vec![0.9], vec![0.8, 0.7], vec![]];
    for (config, budget) in [(0, 1), (0, 2), (1, 1), (2, 1), (0, 3), (2, 2)] {
        race.history.push(Request { config, budget });
    }
    assert_eq!(training_set(&race, None).len(), 6);
    assert_eq!(training_set(&race, Some(10)).len(), 6);
    // Most recent first: 2 (at 2), 0 (at 3), 1 (at 1); then one step back: 2 at 1, 0 at 2.
    assert_eq!(training_set(&race, Some(4)), vec![(2, 2), (0, 3), (1, 1), (2, 1)]);
    assert_eq!(training_set(&race, Some(2)), vec![(2, 2), (0, 3)]);
}

#[test]
fn the_fast_variant_fits_its_parameters_every_tenth_step_and_conditions_in_between() {
    let (xs, values) = curves(30, 9);
    let mut rng = MethodRng::seed_from_u64(3);
    let mut race = race_with_observations(&values, 20, 1.0, &mut rng);
    let (mut fast, mut exact) = (DyHpo::fast(DYHPO_FAST.name), DyHpo::new());
    let mut fitted = Vec::new();
    for step in 0..25 {
        let request = fast.next(&race, &xs, &mut rng).unwrap();
        fitted.push(fast.last_fit.is_some());
        exact.next(&race, &xs, &mut rng).unwrap();
        assert!(exact.last_fit.is_some(), "the faithful DyHPO fits at every step ({step})");
        race.curves[request.config].push(values[request.config][request.budget as usize - 1]);
        race.history.push(request);
    }
    let at: Vec<usize> = (0..25).filter(|&s| fitted[s]).collect();
    assert_eq!(at, vec![0, FAST_REFIT_EVERY, 2 * FAST_REFIT_EVERY]);
}

/// Runs `dyhpo` for `steps` steps on `race`, returning its requests.
fn steps_of(dyhpo: &mut DyHpo, race: &mut Race, xs: &[Vec<f64>], values: &[Vec<f64>], steps: usize) -> Vec<Request> {
    let mut rng = MethodRng::seed_from_u64(5);
    (0..steps)
        .map(|_| {
            let request = dyhpo.next(race, xs, &mut rng).unwrap();
            race.curves[request.config].push(values[request.config][request.budget as usize - 1]);
            race.history.push(request);
            request
        })
        .collect()
}

#[test]
fn bounded_decisions_are_the_faithful_steps_while_every_fit_fits_the_bound() {
    let (xs, values) = curves(30, 9);
    let settings = DeepKernelSettings { hidden1: 16, hidden2: 16, ..Default::default() };
    let start = race_with_observations(&values, 15, 1.0, &mut MethodRng::seed_from_u64(3));
    let mut faithful = DyHpo::with_settings("DyHPO", settings.clone());
    let mut bounded = DyHpo::with_settings("DyHPO", settings).bounding_decisions();
    let a = steps_of(&mut faithful, &mut start.clone(), &xs, &values, 12);
    let b = steps_of(&mut bounded, &mut start.clone(), &xs, &values, 12);
    assert_eq!(a, b);
    assert_eq!(faithful.model.unwrap().params, bounded.model.unwrap().params, "same fits, same bits");
}

#[test]
fn a_bounded_decision_runs_at_most_the_epochs_its_bound_allows_and_adopts_finished_fits() {
    let (xs, values) = curves(30, 9);
    let settings = DeepKernelSettings { hidden1: 16, hidden2: 16, max_epochs: 40, ..Default::default() };
    let mut race = race_with_observations(&values, 20, 1.0, &mut MethodRng::seed_from_u64(3));
    // Room for 6 epochs at 20 observations, 3 at 25, 1 from 37 on.
    let work = 6.0 * 20f64.powi(3);
    let mut dyhpo = DyHpo::with_settings("DyHPO", settings).bounding_decisions_to(work);
    let mut rng = MethodRng::seed_from_u64(5);
    // The first decision fits to the end: nothing to decide with before.
    let first = dyhpo.next(&race, &xs, &mut rng).unwrap();
    assert_eq!(dyhpo.fitted_at, Some(20));
    race.curves[first.config].push(values[first.config][first.budget as usize - 1]);
    race.history.push(first);
    let mut adopted = 0;
    for _ in 0..30 {
        // In this race every step adds one observation: a fit's data size is its step count.
        let running_before = dyhpo.fitting.as_ref().map_or(0, |f| f.fitting.epochs());
        let request = dyhpo.next(&race, &xs, &mut rng).unwrap();
        let running = dyhpo.fitting.as_ref().map_or((0, 0.0), |f| (f.fitting.epochs(), f.points.len() as f64));
        let (epochs, used) = match dyhpo.last_fit {
            Some(ended) => {
                adopted += 1;
                let at = dyhpo.fitted_at.unwrap();
                assert!(at < race.history.len(), "a fit adopted by a later decision is on earlier data");
                let finishing = ended.epochs - running_before;
                (finishing + running.0, finishing as f64 * (at as f64).powi(3) + running.0 as f64 * running.1.powi(3))
            }
            None => (running.0 - running_before, (running.0 - running_before) as f64 * running.1.powi(3)),
        };
        assert!(epochs >= 1, "each decision runs at least one epoch");
        assert!(epochs == 1 || used <= work, "{epochs} epochs, {used} units of n³ against {work}");
        race.curves[request.config].push(values[request.config][request.budget as usize - 1]);
        race.history.push(request);
    }
    assert!(adopted >= 2, "fits ended and were adopted in 30 decisions: {adopted}");
    assert!(dyhpo.fitted_at.unwrap() < race.history.len() - 1, "the parameters lag the data");
}

#[test]
fn an_ask_tell_session_bounds_the_faithful_dyhpo_and_leaves_the_fast_one_alone() {
    let mut faithful = DyHpo::new();
    faithful.bound_decisions();
    assert_eq!(faithful.decision_work, Some(DECISION_WORK));
    let mut fast = DyHpo::fast(DYHPO_FAST.name);
    fast.bound_decisions();
    assert_eq!(fast.decision_work, None);
}

#[test]
fn incumbent_is_per_budget_when_observed_else_overall() {
    let mut race = Race::new(3, 4, 100);
    race.curves = vec![vec![0.9, 0.5, 0.4], vec![0.7], vec![]];
    let per = incumbents_per_budget(&race);
    assert_eq!(per, vec![Some(0.7), Some(0.5), Some(0.4), None]);
    let overall = 0.4;
    assert_eq!(incumbent_for(&per, 1, overall), 0.7, "budget 1 was observed: its own best, not the overall 0.4");
    assert_eq!(incumbent_for(&per, 2, overall), 0.5);
    assert_eq!(incumbent_for(&per, 4, overall), 0.4, "nothing at budget 4 yet: the overall best");
}

/// Curves where good configurations (small x) are recognisable early.
fn curves(n: usize, steps: usize) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let xs: Vec<Vec<f64>> = (0..n).map(|i| vec![(i as f64 * 0.618_034) % 1.0]).collect();
    let values = xs.iter().map(|x| (1..=steps).map(|b| x[0] + 1.0 / b as f64).collect()).collect();
    (xs, values)
}

#[test]
fn advances_one_unit_at_a_time_never_skips_and_spends_exactly_the_budget() {
    let (xs, values) = curves(30, 9);
    let settings = DeepKernelSettings { hidden1: 16, hidden2: 16, max_epochs: 50, ..Default::default() };
    let mut dyhpo = DyHpo::with_settings("DyHPO", settings);
    let mut rng = MethodRng::seed_from_u64(7);
    let rows = run_race(&mut dyhpo, "DyHPO", &xs, &values, None, 1.0, 60, &mut rng, &|| 0.0, &mut |_| true).unwrap();
    assert_eq!(rows.len(), 60, "one budget unit per step");
    assert_eq!(rows.last().unwrap().spent, 60);
    let mut reached = vec![0u32; 30];
    for r in &rows {
        assert_eq!(r.budget, reached[r.config] + 1, "configuration {} skipped a budget", r.config);
        reached[r.config] = r.budget;
    }
    // It should both explore (several configurations) and exploit (someone gets deep).
    assert!(reached.iter().filter(|&&b| b > 0).count() >= 5, "{reached:?}");
    assert!(reached.iter().any(|&b| b >= 5), "{reached:?}");
}

#[test]
fn default_surrogate_discriminates_between_configurations() {
    // Regression: with the paper's learning rate 0.1 (no batch norm) the GP collapsed to
    // white noise, every open configuration got the same EI and the ties sent DyHPO
    // through the table in index order.
    let bench = crate::bundled::crossing_curves_family();
    let values = &bench.tasks[0].curves.as_ref().unwrap().values;
    let xs = bench.encoded_task(0);
    let mut rng = MethodRng::seed_from_u64(0);
    let rows = run_race(&mut DyHpo::new(), "DyHPO", &xs, values, None, 1.0, 40, &mut rng, &|| 0.0, &mut |_| true).unwrap();
    let fresh: Vec<usize> = rows.iter().filter(|r| r.budget == 1).map(|r| r.config).collect();
    let in_order = fresh.windows(2).filter(|w| w[1] == w[0] + 1).count();
    assert!(in_order * 4 < fresh.len(), "{in_order} of {} new configurations follow index order: {fresh:?}", fresh.len());
    assert!(rows.iter().any(|r| r.budget >= 5), "DyHPO should also exploit");
}

#[test]
fn finds_better_configurations_than_random_at_equal_budget() {
    let (xs, values) = curves(200, 9);
    let settings = DeepKernelSettings { hidden1: 32, hidden2: 32, ..Default::default() };
    let total = 90;
    let mut wins = 0;
    for seed in 0..3 {
        let mut rng = MethodRng::seed_from_u64(seed);
        let mut dyhpo = DyHpo::with_settings("DyHPO", settings.clone());
        let d = run_race(&mut dyhpo, "DyHPO", &xs, &values, None, 1.0, total, &mut rng, &|| 0.0, &mut |_| true).unwrap();
        let mut rng = MethodRng::seed_from_u64(seed);
        let rs = run_race(
            &mut super::super::hyperband::FullBudgetRandomSearch,
            "RS",
            &xs,
            &values,
            None,
            1.0,
            total,
            &mut rng,
            &|| 0.0,
            &mut |_| true,
        )
        .unwrap();
        if d.last().unwrap().best < rs.last().unwrap().best {
            wins += 1;
        }
    }
    assert!(wins >= 2, "DyHPO beat random search in {wins} of 3 seeds");
}
