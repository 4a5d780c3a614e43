//! `hpo bench`: native speed measurements of the copula methods' building blocks, printed as
//! a Markdown table (docs/benchmarks.md keeps the latest).

use std::path::Path;
use std::time::Instant;

use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::fidelity::dyhpo::step_bench::time_steps;
use hpo_playground::engine::fidelity::dyhpo::{DyHpo, DYHPO, DYHPO_FAST};
use hpo_playground::engine::gp::{FittedGp, GpSettings};
use hpo_playground::engine::loaders::copula::load_copula_format;
use hpo_playground::engine::methods::ehvi::Ehvi;
use hpo_playground::engine::optimizer::{job_rng, Optimizer, SearchState};
use hpo_playground::engine::pareto::hypervolume;
use hpo_playground::engine::prior::{train_prior, PriorSettings};
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::spec::{ExperimentSpec, Job};
use hpo_playground::engine::stats::expected_improvement;
use hpo_playground::engine::transfer::{prior_examples, PriorCache};
use hpo_playground::engine::warping::OutputWarp;
use rand::Rng;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// GP fit (type-II ML) + the EI argmax over every candidate, with `n` observations of task 0.
fn gp_iteration(bench: &Benchmark, n: usize, repeats: usize) -> (f64, f64) {
    let candidates = bench.encoded_task(0);
    let ys = OutputWarp::Copula.apply(&bench.tasks[0].metrics[bench.objective][..n]);
    let x = &candidates[..n];
    let (mut fit, mut ei) = (Vec::new(), Vec::new());
    for _ in 0..repeats {
        let t0 = Instant::now();
        let gp = FittedGp::fit(x, &ys, &GpSettings::default()).expect("fit");
        let t1 = Instant::now();
        let best = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let all: Vec<usize> = (0..candidates.len()).collect();
        // As the methods pick: the argmax, which skips the variances that cannot win.
        let pick = gp.argmax_score(&candidates, &all, |_, m, v| expected_improvement(m, v.sqrt(), best));
        std::hint::black_box(pick);
        fit.push((t1 - t0).as_secs_f64() * 1000.0);
        ei.push(t1.elapsed().as_secs_f64() * 1000.0);
    }
    (median(fit), median(ei))
}

/// 100 mutually non-dominated points on the positive unit sphere in `d` dimensions.
fn sphere_front(d: usize, n: usize) -> Vec<Vec<f64>> {
    let mut rng = job_rng(7, "front");
    (0..n)
        .map(|_| {
            let v: Vec<f64> = (0..d).map(|_| rng.random::<f64>() + 1e-3).collect();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            v.iter().map(|x| x / norm).collect()
        })
        .collect()
}

/// Hypervolumes of 100-point fronts and one EHVI step on NAS-Bench-201 (error, latency).
fn multi_objective(shared_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    for d in [2, 3] {
        let front = sphere_front(d, 100);
        let reference = vec![1.1; d];
        let times: Vec<f64> = (0..5)
            .map(|_| {
                let t0 = Instant::now();
                std::hint::black_box(hypervolume(&front, &reference));
                t0.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        println!("| exact hypervolume of a 100-point front, {d} objectives (median of 5) | {:.3} |", median(times));
    }
    let file = "nas_bench102.csv.zip";
    let path = shared_dir.join(file);
    let Ok(bytes) = std::fs::read(&path) else {
        println!("| EHVI step on NAS-Bench-201 | skipped: {} not found |", path.display());
        return Ok(());
    };
    let bench = load_copula_format(file, &bytes)?.benchmark;
    let candidates = bench.encoded_task(0);
    let (err, lat) =
        (bench.metric_index("metric_error").ok_or("no metric_error")?, bench.metric_index("metric_latency").ok_or("no metric_latency")?);
    for n in [25, 50, 100] {
        let history: Vec<(usize, f64)> = (0..n).map(|i| (i * 151, 0.0)).collect();
        let objectives: Vec<Vec<f64>> =
            history.iter().map(|&(i, _)| vec![bench.tasks[0].metrics[err][i], bench.tasks[0].metrics[lat][i]]).collect();
        let mut evaluated = vec![false; candidates.len()];
        history.iter().for_each(|&(i, _)| evaluated[i] = true);
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &objectives };
        let t0 = Instant::now();
        Ehvi::new().suggest(&state, &mut job_rng(0, "bench"))?;
        println!(
            "| EHVI step: 2 GP fits + exact EHVI over 15,625 candidates, NAS-Bench-201 error/latency, {n} observations | {:.0} |",
            t0.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
}

/// DyHPO's surrogate step (fit + EI_MF over every open configuration) at growing numbers of
/// observations, on LCBench's first task when present, else on the bundled crossing curves.
fn dyhpo_steps(lcbench_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let data = crate::dyhpo_step::step_data(lcbench_dir)?;
    let fast = || DyHpo::fast(DYHPO_FAST.name);
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    for (name, make) in [(DYHPO.name, DyHpo::new as fn() -> DyHpo), (DYHPO_FAST.name, fast as fn() -> DyHpo)] {
        for n in [50, 200, 500, 1000] {
            // Ten more steps, each advancing the chosen configuration: the faithful DyHPO
            // refits at every one, the fast variant at one in ten (its amortised cost).
            let t = time_steps(&mut make(), &data, n, 10, &now)?;
            println!(
                "| {name} step (fit + EI_MF), {}, {n} observations: cold ({} epochs) / next step ({} epochs; 0 = conditioned only) / mean of the next 10 | {:.0} / {:.0} / {:.0} |",
                data.what,
                t.cold.epochs,
                t.next[0].epochs,
                t.cold.ms,
                t.next[0].ms,
                t.mean_next_ms()
            );
        }
    }
    Ok(())
}

pub fn run(shared_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    println!("| what | native (ms) |\n|---|---|");
    dyhpo_steps(&shared_dir.join("../lcbench-surrogate"))?;
    multi_objective(shared_dir)?;
    for (file, name) in [
        ("XGBoost.csv.zip", "XGBoost, 5,000 candidates, 8 inputs"),
        ("nas_bench102.csv.zip", "NAS-Bench-201, 15,625 candidates, 30 inputs"),
    ] {
        let path = shared_dir.join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            println!("| {name} | skipped: {} not found |", path.display());
            continue;
        };
        let bench = load_copula_format(file, &bytes)?.benchmark;
        for n in [25, 50, 100] {
            let (fit, ei) = gp_iteration(&bench, n, 3);
            println!(
                "| cold GP fit (MAP from the default start, no previous optimum; the task's first n rows as observations) + EI maximised over all candidates, {name}, {n} observations | {fit:.0} + {ei:.0} = {:.0} |",
                fit + ei
            );
        }
        let spec = ExperimentSpec {
            data: format!("shared:{file}").parse()?,
            // CTS shares GCP+prior's prior: its run trains it, so the timed run does not.
            methods: vec!["GCP+prior".into(), "CTS".into()],
            seeds: 1,
            iterations: if file.starts_with("nas") { 70 } else { 100 },
            ..ExperimentSpec::default()
        };
        let resolved = spec.resolve(&bench)?;
        let examples = prior_examples(&bench, &resolved, 0, OutputWarp::Copula);
        let t0 = Instant::now();
        train_prior(&examples, &PriorSettings::default(), &mut job_rng(0, "bench"), &mut |_, _| true)?;
        println!(
            "| prior training, {name}: {} evaluations of the other tasks, 3,000 Adam steps | {:.0} |",
            examples.len(),
            t0.elapsed().as_secs_f64() * 1000.0
        );
        let priors = PriorCache::new();
        let job = Job { method: "GCP+prior".into(), task: 0, seed: 0 };
        run_job(&bench, &resolved, &Job { method: "CTS".into(), ..job.clone() }, &priors, &|| 0.0, &mut |_| true)?; // trains the prior
        let t0 = Instant::now();
        run_job(&bench, &resolved, &job, &priors, &|| 0.0, &mut |_| true)?;
        println!(
            "| one GCP+prior seed, {name}, {} iterations (prior already trained) | {:.0} |",
            spec.iterations,
            t0.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
