use super::*;

/// Runs `check` on each case: side by side natively (rayon; each case is seeded and checked on
/// its own, so the order they finish in decides nothing), one after another on wasm32, whose
/// test runner has one thread.
fn side_by_side<T: Send>(cases: Vec<T>, check: impl Fn(T) + Send + Sync) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        cases.into_par_iter().for_each(check);
    }
    #[cfg(target_arch = "wasm32")]
    cases.into_iter().for_each(check);
}
use crate::bundled::crossing_curves_family;
use crate::fidelity::dyhpo::DYHPO;
use crate::fidelity::runner::race_curves;
use crate::method_entry::CostClass;
use crate::race::run_race;
use crate::suggest::POOL;

/// Every race method but the faithful DyHPO (minutes per run; "DyHPO (fast)" runs its code).
fn quick_methods() -> impl Iterator<Item = &'static MethodEntry> {
    registry::of_kind(RunKind::Race).filter(|m| m.cost < CostClass::Heavy)
}

/// Asks, tells every step of each assignment from `value(config, step)`, until done.
fn one_worker(session: &mut MultiFidelitySession, value: &dyn Fn(usize, u32) -> f64) -> Vec<(usize, u32)> {
    let mut served = Vec::new();
    loop {
        match session.ask().unwrap() {
            Asked::Train(a) => {
                for step in a.from + 1..=a.budget {
                    assert_eq!(session.tell(a.config, step, value(a.config, step)).unwrap(), step == a.budget);
                }
                served.push((a.config, a.budget));
            }
            Asked::Done => return served,
            Asked::Wait => panic!("one worker never waits: nothing is in training"),
        }
    }
}

#[test]
fn one_worker_is_served_what_a_simulated_race_runs() {
    let bench = crossing_curves_family();
    let t = 2;
    let (values, _) = race_curves(&bench, t).unwrap();
    let sign = bench.metrics[bench.objective].direction.sign();
    let max_budget = values[0].len() as u32;
    let rng = || job_rng(1, &format!("race/{}", bench.tasks[t].name));
    for m in quick_methods() {
        let mut optimizer = m.build_race().unwrap();
        let rows =
            run_race(optimizer.as_mut(), m.name, &bench.encoded_task(t), &values, None, sign, 60, &mut rng(), &|| 0.0, &mut |_| true)
                .unwrap();
        let simulated: Vec<(usize, u32)> = rows.iter().map(|r| (r.config, r.budget)).collect();
        let mut session = MultiFidelitySession::over(m, bench.encoded_task(t), max_budget, Some(60), sign, rng()).unwrap();
        let told = one_worker(&mut session, &|c, s| values[c][s as usize - 1]);
        assert_eq!(told, simulated, "{}", m.name);
        assert_eq!(session.remaining(), 0);
    }
}

/// A family of learning curves over the space of [`space`]: the loss falls with the budget
/// towards a floor set by the parameters (best near lr = 1e-2, width 64).
fn curve(params: &[Value], step: u32) -> f64 {
    let lr = params[0].as_f64().unwrap();
    let width = params[1].as_f64().unwrap();
    let floor = (lr.log10() + 2.0).powi(2) + ((width - 64.0) / 64.0).powi(2) + if params[2] == "sgd" { 0.3 } else { 0.0 };
    floor + 1.0 / step as f64
}

fn space() -> Vec<(String, Distribution)> {
    vec![
        ("lr".into(), Distribution::Float { low: 1e-4, high: 1.0, log: true, step: None }),
        ("width".into(), Distribution::Int { low: 8, high: 256, log: false, step: 8 }),
        ("optimizer".into(), Distribution::Categorical { choices: vec![Value::from("adam"), Value::from("sgd")] }),
    ]
}

#[test]
fn the_same_tells_give_the_same_asks_and_the_seed_matters() {
    for method in ["ASHA", "DyHPO (fast)", "GPB (IC)"] {
        let run = |seed| {
            let mut s = MultiFidelitySession::new(space(), method, 9, Some(60), 1.0, seed, POOL).unwrap();
            let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
            let served = one_worker(&mut s, &|c, step| curve(&configs[c], step));
            (served, s.best())
        };
        let a = run(3);
        assert_eq!(a, run(3), "{method}");
        assert_ne!(a.0, run(4).0, "{method}");
        assert!(a.1.unwrap().2 < 1.5, "{method}: best {:?}", a.1);
    }
}

#[test]
fn without_a_total_budget_promotions_reach_their_rung() {
    // ASHA on 27 steps: rungs 1, 3, 9, 27; the session has no budget to cut requests to.
    let mut s = MultiFidelitySession::new(space(), "ASHA", 27, None, 1.0, 0, POOL).unwrap();
    let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
    let mut budgets = Vec::new();
    for _ in 0..40 {
        let Asked::Train(a) = s.ask().unwrap() else { panic!("one worker without a budget always trains") };
        for step in a.from + 1..=a.budget {
            s.tell(a.config, step, curve(&configs[a.config], step)).unwrap();
        }
        budgets.push(a.budget);
    }
    assert!(budgets.contains(&3) && budgets.contains(&9), "{budgets:?}");
    assert!(budgets.iter().all(|b| [1, 3, 9, 27].contains(b)), "{budgets:?}");
    assert_eq!(s.remaining(), u64::MAX);
}

#[test]
fn parameters_respect_their_distributions() {
    let s = MultiFidelitySession::new(space(), "ASHA", 9, None, 1.0, 0, POOL).unwrap();
    assert_eq!(s.configurations(), POOL);
    for c in 0..s.configurations() {
        let p = s.params(c).unwrap();
        let lr = p[0].as_f64().unwrap();
        assert!((1e-4..=1.0).contains(&lr));
        let width = p[1].as_i64().expect("an int parameter is an integer");
        assert!((8..=256).contains(&width) && width % 8 == 0, "{width}");
        assert!(p[2] == "adam" || p[2] == "sgd");
    }
    // A space with fewer configurations than the pool: each one once.
    let small = vec![("k".into(), Distribution::Int { low: 1, high: 5, log: false, step: 1 })];
    assert_eq!(MultiFidelitySession::new(small, "ASHA", 3, None, 1.0, 0, POOL).unwrap().configurations(), 5);
}

#[test]
fn parallel_workers_never_share_a_configuration() {
    // Each method is a session of its own: they run side by side.
    side_by_side(quick_methods().collect(), |m| {
        let mut s = MultiFidelitySession::new(space(), m.name, 9, Some(150), 1.0, 2, POOL).unwrap();
        let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
        let mut outstanding: Vec<Assignment> = Vec::new();
        let (mut served, mut waits) = (0, 0);
        loop {
            // Four workers: fill the free ones, then the oldest reports all its steps.
            let mut done = false;
            while outstanding.len() < 4 {
                match s.ask().unwrap() {
                    Asked::Train(a) => {
                        assert!(outstanding.iter().all(|o| o.config != a.config), "{}: {} handed out twice", m.name, a.config);
                        outstanding.push(a);
                        served += 1;
                    }
                    Asked::Wait => {
                        assert!(!outstanding.is_empty(), "{}: waits with nothing in training", m.name);
                        waits += 1;
                        break;
                    }
                    Asked::Done => {
                        done = true;
                        break;
                    }
                }
            }
            assert_eq!(s.in_training(), {
                let mut o = outstanding.clone();
                o.sort_by_key(|a| a.config);
                o
            });
            if outstanding.is_empty() && done {
                break;
            }
            let a = outstanding.remove(0);
            for step in a.from + 1..=a.budget {
                s.tell(a.config, step, curve(&configs[a.config], step)).unwrap();
            }
        }
        assert!(served > 4, "{}: {served} assignments, {waits} waits", m.name);
    });
}

#[test]
fn bad_requests_get_clear_errors() {
    let e = MultiFidelitySession::new(space(), "GP", 9, None, 1.0, 0, POOL).err().unwrap().to_string();
    assert!(e.contains("not a multi-fidelity method") && e.contains("DyHPO") && e.contains("ASHA"), "{e}");
    let e = MultiFidelitySession::new(space(), "DyHPQ", 9, None, 1.0, 0, POOL).err().unwrap().to_string();
    assert!(e.contains("unknown method 'DyHPQ'") && e.contains(DYHPO.name), "{e}");
    assert!(MultiFidelitySession::new(space(), "ASHA", 0, None, 1.0, 0, POOL).err().unwrap().to_string().contains("max_budget"));
    assert!(MultiFidelitySession::new(Vec::new(), "ASHA", 3, None, 1.0, 0, POOL).is_err());
    assert!(MultiFidelitySession::new(space(), "ASHA", 3, None, 1.0, 0, 0).is_err());
    assert_eq!(MultiFidelitySession::new(space(), "ASHA", 3, None, 1.0, 0, 100).unwrap().configurations(), 100);

    let mut s = MultiFidelitySession::new(space(), "Hyperband", 9, None, 1.0, 0, POOL).unwrap();
    let Asked::Train(a) = s.ask().unwrap() else { panic!("the first ask trains") };
    let other = (a.config + 1) % s.configurations();
    let said = |r: Result<bool>| r.unwrap_err().to_string();
    assert!(said(s.tell(other, 1, 0.5)).contains("not in training"));
    assert!(said(s.tell(POOL + 3, 1, 0.5)).contains("no configuration"));
    assert!(said(s.tell(a.config, a.from + 2, 0.5)).contains(&format!("tell step {} next", a.from + 1)));
    assert!(said(s.tell(a.config, a.from + 1, f64::NAN)).contains("not a finite number"));
    // The refused tells changed nothing: the request is still open and completes as asked.
    for step in a.from + 1..=a.budget {
        s.tell(a.config, step, 0.5).unwrap();
    }
    assert!(s.in_training().is_empty());
    assert_eq!(s.best(), Some((a.config, 1, 0.5)));
}

#[test]
fn a_failed_member_no_longer_holds_up_a_synchronous_rung() {
    // Hyperband on 9 steps: its first bracket trains 9 configurations to budget 1, then the
    // best 3 to 3. One worker trains every assignment but the first, whose training fails.
    let mut s = MultiFidelitySession::new(space(), "Hyperband", 9, Some(60), 1.0, 0, POOL).unwrap();
    let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
    let Asked::Train(lost) = s.ask().unwrap() else { panic!("the first ask trains") };
    let mut rung = Vec::new();
    for _ in 0..8 {
        let Asked::Train(a) = s.ask().unwrap() else { panic!("the first rung has 9 members") };
        assert_eq!(a.budget, 1);
        s.tell(a.config, 1, curve(&configs[a.config], 1)).unwrap();
        rung.push(a.config);
    }
    // The rung waits for its lost member and is not decided: the next bracket (5 fresh
    // configurations at budget 3) goes on meanwhile, never a promotion from the rung.
    for _ in 0..5 {
        let Asked::Train(a) = s.ask().unwrap() else { panic!("the second bracket starts") };
        assert_eq!((a.from, a.budget), (0, 3), "the rung is not decided while a member trains");
        for step in 1..=3 {
            s.tell(a.config, step, curve(&configs[a.config], step)).unwrap();
        }
    }
    let before = s.remaining();
    s.fail(lost.config).unwrap();
    assert_eq!(s.remaining(), before + 1, "the step it did not tell returns to the budget");
    assert_eq!(s.failed(), vec![lost.config]);
    assert!(s.in_training().is_empty());
    let mut served = Vec::new();
    loop {
        match s.ask().unwrap() {
            Asked::Train(a) => {
                assert_ne!(a.config, lost.config, "a failed configuration is never handed out again");
                for step in a.from + 1..=a.budget {
                    s.tell(a.config, step, curve(&configs[a.config], step)).unwrap();
                }
                served.push((a.config, a.budget));
            }
            Asked::Wait => panic!("one worker waits with nothing in training"),
            Asked::Done => break,
        }
    }
    // The rung's other 8 members are ranked: its best 3 are promoted to budget 3.
    rung.sort_by(|&a, &b| curve(&configs[a], 1).total_cmp(&curve(&configs[b], 1)).then(a.cmp(&b)));
    assert_eq!(served[..3], rung[..3].iter().map(|&c| (c, 3)).collect::<Vec<_>>(), "{served:?}");
    assert_eq!(s.remaining(), 0);
    assert!(s.tell(lost.config, 1, 0.5).unwrap_err().to_string().contains("its training failed"));
    assert!(s.fail(lost.config).unwrap_err().to_string().contains("its training failed"));
}

#[test]
fn an_asynchronous_method_goes_on_past_a_failed_promotion() {
    // ASHA on 9 steps (rungs 1, 3, 9): the first promotion to budget 3 tells step 2, then fails.
    let mut s = MultiFidelitySession::new(space(), "ASHA", 9, Some(80), 1.0, 1, POOL).unwrap();
    let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
    let mut failed = None;
    let mut told = 0u64;
    loop {
        match s.ask().unwrap() {
            Asked::Train(a) => {
                assert_ne!(Some(a.config), failed, "a failed configuration is never handed out again");
                if failed.is_none() && a.from > 0 {
                    s.tell(a.config, a.from + 1, curve(&configs[a.config], a.from + 1)).unwrap();
                    let before = s.remaining();
                    s.fail(a.config).unwrap();
                    assert_eq!(s.remaining(), before + (a.budget - a.from - 1) as u64);
                    failed = Some(a.config);
                    told += 1;
                    continue;
                }
                for step in a.from + 1..=a.budget {
                    s.tell(a.config, step, curve(&configs[a.config], step)).unwrap();
                }
                told += (a.budget - a.from) as u64;
            }
            Asked::Wait => panic!("one worker waits with nothing in training"),
            Asked::Done => break,
        }
    }
    let failed = failed.expect("ASHA promoted something");
    assert_eq!(s.reached(failed).unwrap(), 2, "the steps it told stay");
    assert_eq!(told, 80, "the budget counts the steps told");
}

#[test]
fn parallel_workers_with_failures_finish_and_count_the_steps_told() {
    // Each method is a session of its own: they run side by side.
    side_by_side(quick_methods().collect(), |m| {
        let mut s = MultiFidelitySession::new(space(), m.name, 9, Some(150), 1.0, 2, POOL).unwrap();
        let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
        let mut outstanding: Vec<Assignment> = Vec::new();
        let (mut served, mut told, mut failed) = (0, 0u64, Vec::new());
        // Done is final, as a face ends its run on it (Ray's searcher says FINISHED).
        let mut done = false;
        loop {
            // Three workers; every fourth assignment fails after telling half its steps.
            while !done && outstanding.len() < 3 {
                match s.ask().unwrap() {
                    Asked::Train(a) => {
                        assert!(!failed.contains(&a.config), "{}: failed configuration {} handed out again", m.name, a.config);
                        outstanding.push(a);
                    }
                    Asked::Wait => {
                        assert!(!outstanding.is_empty(), "{}: waits with nothing in training", m.name);
                        break;
                    }
                    Asked::Done => {
                        done = true;
                        break;
                    }
                }
            }
            if outstanding.is_empty() && done {
                break;
            }
            let a = outstanding.remove(0);
            served += 1;
            let last = if served % 4 == 0 { a.from + (a.budget - a.from) / 2 } else { a.budget };
            for step in a.from + 1..=last {
                s.tell(a.config, step, curve(&configs[a.config], step)).unwrap();
            }
            told += (last - a.from) as u64;
            if last < a.budget {
                s.fail(a.config).unwrap();
                failed.push(a.config);
            }
        }
        failed.sort();
        assert_eq!(s.failed(), failed, "{}", m.name);
        assert!(failed.len() > 2, "{}: {served} assignments, {} failed", m.name, failed.len());
        assert_eq!(told + s.remaining(), 150, "{}: the budget counts the steps told", m.name);
        // The steps a failure gave back are trained, even at the end of the budget: a free
        // worker waits while others train rather than ending the run.
        assert_eq!(s.remaining(), 0, "{}: steps left untrained", m.name);
    });
}

/// `workers` parallel workers against `s`: every free worker asks; then one of the outstanding
/// requests (a fixed pseudo-random pick, so that workers finish out of order) reports all its
/// steps. Returns the assignments handed out, the waits seen and the steps told. Fails when a
/// configuration is handed out while in training, or when `ask` waits with nothing in training
/// (a wait that never ends).
fn run_workers(
    s: &mut MultiFidelitySession,
    workers: usize,
    value: &dyn Fn(usize, u32) -> f64,
    name: &str,
) -> (Vec<Assignment>, usize, u64) {
    let mut outstanding: Vec<Assignment> = Vec::new();
    let (mut served, mut waits, mut told) = (Vec::new(), 0, 0u64);
    let mut pick = 7usize;
    loop {
        let mut done = false;
        while outstanding.len() < workers {
            match s.ask().unwrap() {
                Asked::Train(a) => {
                    assert!(outstanding.iter().all(|o| o.config != a.config), "{name}: {} handed out while in training", a.config);
                    outstanding.push(a);
                    served.push(a);
                }
                Asked::Wait => {
                    assert!(!outstanding.is_empty(), "{name}: waits with nothing in training");
                    // At the end of the budget a free worker waits for the others: one of them
                    // may fail and give back steps. A wait before then is the method's.
                    if s.remaining() > 0 {
                        waits += 1;
                    }
                    break;
                }
                Asked::Done => {
                    done = true;
                    break;
                }
            }
        }
        if outstanding.is_empty() {
            assert!(done, "{name}: nothing in training and not done");
            return (served, waits, told);
        }
        pick = (pick * 31 + 11) % 101;
        let a = outstanding.remove(pick % outstanding.len());
        for step in a.from + 1..=a.budget {
            s.tell(a.config, step, value(a.config, step)).unwrap();
        }
        told += (a.budget - a.from) as u64;
    }
}

#[test]
fn two_three_and_four_workers_spend_the_whole_budget_without_waiting() {
    // With 2,048 configurations drawn something useful is always left to train: no method
    // waits (Hyperband, BOHB and DEHB open the next bracket while a rung trains; GPB's design
    // goes on past a configuration it planned twice), and the run ends only when every unit
    // is told. Each method and number of workers is a session of its own, run side by side.
    let cases: Vec<(&MethodEntry, usize)> = quick_methods().flat_map(|m| [2, 3, 4].map(|workers| (m, workers))).collect();
    side_by_side(cases, |(m, workers)| {
        let name = format!("{} with {workers} workers", m.name);
        let mut s = MultiFidelitySession::new(space(), m.name, 9, Some(200), 1.0, 5, POOL).unwrap();
        let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
        let (served, waits, told) = run_workers(&mut s, workers, &|c, step| curve(&configs[c], step), &name);
        assert_eq!(waits, 0, "{name}: waited {waits} times");
        assert_eq!((told, s.remaining()), (200, 0), "{name}: the whole budget is told");
        assert!(served.len() > workers, "{name}: {} assignments", served.len());
        assert_eq!(s.ask().unwrap(), Asked::Done, "{name}");
    });
}

#[test]
fn with_few_configurations_workers_wait_only_while_something_trains_and_finish() {
    // 12 configurations: every one is started early, and then a rung's decision can only
    // come from a result; the session waits (it never says done while units remain and a
    // configuration could still be trained) and every run ends.
    for m in quick_methods() {
        for workers in [2, 4] {
            let name = format!("{} with {workers} workers", m.name);
            let mut s = MultiFidelitySession::new(space(), m.name, 9, Some(60), 1.0, 3, 12).unwrap();
            let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
            let (_, _, told) = run_workers(&mut s, workers, &|c, step| curve(&configs[c], step), &name);
            assert!(told > 12 && told + s.remaining() == 60, "{name}: told {told}, {} left", s.remaining());
            assert!(s.in_training().is_empty(), "{name}");
        }
    }
}

#[test]
fn hyperband_opens_the_next_bracket_while_a_rung_trains() {
    // 9 steps: brackets (9 at 1, 3 at 3, 1 at 9), (5 at 3, 1 at 9), (3 at 9). Nothing is told:
    // after the first rung's 9 the next brackets' first rungs are handed out, then the first
    // bracket's schedule again, each with fresh configurations.
    let mut s = MultiFidelitySession::new(space(), "Hyperband", 9, None, 1.0, 0, POOL).unwrap();
    let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
    let asked: Vec<Assignment> = (0..20)
        .map(|_| match s.ask().unwrap() {
            Asked::Train(a) => a,
            other => panic!("{other:?}"),
        })
        .collect();
    let budgets: Vec<u32> = asked.iter().map(|a| a.budget).collect();
    assert_eq!(budgets, [vec![1; 9], vec![3; 5], vec![9; 3], vec![1; 3]].concat());
    assert!(asked.iter().all(|a| a.from == 0));
    let mut distinct: Vec<usize> = asked.iter().map(|a| a.config).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 20);
    // The first rung is decided when its 9 members are told, whatever else trains: its best
    // 3 at budget 1 go on to 3 before anything else.
    let value = |c: usize, step: u32| curve(&configs[c], step);
    for a in &asked[..9] {
        s.tell(a.config, 1, value(a.config, 1)).unwrap();
    }
    let mut first: Vec<usize> = asked[..9].iter().map(|a| a.config).collect();
    first.sort_by(|&a, &b| value(a, 1).total_cmp(&value(b, 1)).then(a.cmp(&b)));
    let promoted: Vec<Assignment> = (0..3)
        .map(|_| match s.ask().unwrap() {
            Asked::Train(a) => a,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        promoted.iter().map(|a| (a.config, a.from, a.budget)).collect::<Vec<_>>(),
        first[..3].iter().map(|&c| (c, 1, 3)).collect::<Vec<_>>()
    );
}

/// A value from training by the one rule every face uses: a NaN is its configuration's
/// failure (released, the run goes on to spend the whole budget without it), an infinite value
/// is clipped to the finite values told so far; a NaN at a wrong step is still refused.
#[test]
fn a_nan_from_training_fails_its_configuration_and_an_infinite_value_is_clipped() {
    let mut s = MultiFidelitySession::new(space(), "ASHA", 9, Some(40), 1.0, 0, POOL).unwrap();
    let configs: Vec<Vec<Value>> = (0..s.configurations()).map(|c| s.params(c).unwrap()).collect();
    let (mut nans, mut infs, mut served) = (Vec::new(), 0, 0);
    loop {
        match s.ask().unwrap() {
            Asked::Train(a) => {
                served += 1;
                assert!(!nans.contains(&a.config), "a configuration that reported NaN is never handed out again");
                if served == 1 {
                    assert!(s.report(a.config, a.from + 2, f64::NAN).unwrap_err().to_string().contains("tell step"));
                }
                for step in a.from + 1..=a.budget {
                    let value = match served % 4 {
                        1 if served > 1 => f64::NAN,
                        2 => f64::INFINITY,
                        _ => curve(&configs[a.config], step),
                    };
                    let reported = s.report(a.config, step, value).unwrap();
                    if value.is_nan() {
                        assert_eq!(reported, Reported::Failed);
                        nans.push(a.config);
                        break;
                    }
                    infs += value.is_infinite() as usize;
                    assert_eq!(reported, if step == a.budget { Reported::Completed } else { Reported::Training });
                }
            }
            Asked::Wait => panic!("one worker never waits"),
            Asked::Done => break,
        }
    }
    assert!(nans.len() >= 3 && infs >= 3, "{nans:?} {infs}");
    assert_eq!(s.failed(), {
        nans.sort();
        nans
    });
    assert_eq!(s.remaining(), 0, "the steps the failed ones did not train were spent on others");
    // Every value kept is finite, an infinite one no worse than the worst finite one before it.
    let worst = s.race.curves.iter().flatten().fold(f64::NEG_INFINITY, |w, &v| w.max(v));
    assert!(worst.is_finite() && s.race.curves.iter().flatten().all(|v| v.is_finite()));
    // The first value of a session, infinite, has nothing to be clipped to: its configuration
    // fails (clipped to 0, a +inf loss would have stood as the best), and the run goes on.
    for infinite in [f64::INFINITY, f64::NEG_INFINITY] {
        let mut first = MultiFidelitySession::new(space(), "ASHA", 9, None, -1.0, 0, POOL).unwrap();
        let Asked::Train(a) = first.ask().unwrap() else { panic!("the first ask trains") };
        assert_eq!(first.report(a.config, 1, infinite).unwrap(), Reported::Failed);
        assert_eq!((first.failed(), first.best()), (vec![a.config], None));
        let Asked::Train(b) = first.ask().unwrap() else { panic!("the run goes on") };
        assert_ne!(b.config, a.config);
        assert_eq!(first.report(b.config, 1, 0.5).unwrap(), Reported::Completed);
        // Once a finite value is told, an infinite one is clipped to it.
        let Asked::Train(c) = first.ask().unwrap() else { panic!("the run goes on") };
        assert_eq!(first.report(c.config, 1, infinite).unwrap(), Reported::Completed);
        assert!(first.race.curves.iter().flatten().all(|v| v.is_finite()));
    }
}
