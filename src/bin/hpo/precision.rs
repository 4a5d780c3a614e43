//! `hpo bench-precision`: the faithful DyHPO with its fit's arithmetic as the authors' code has
//! it — the n × n algebra in f32, and GPyTorch's conjugate gradients beyond 800 observations —
//! against the exact f64 path it runs by default, on LCBench: what a step costs, whether two
//! arithmetics pick the same configuration from the same race, and whole runs side by side.
//! docs/benchmarks.md ("Float32", "Conjugate gradients") keeps the figures and the decisions.

use std::path::Path;
use std::time::Instant;

use hpo_playground::engine::fidelity::dyhpo::deep_kernel::{DeepKernelSettings, Precision, Solver};
use hpo_playground::engine::fidelity::dyhpo::{race_with_observations, DyHpo};
use hpo_playground::engine::fidelity::runner::race_curves;
use hpo_playground::engine::fidelity::{run_race, MultiFidelityOptimizer, RaceRow};
use hpo_playground::engine::loaders::clean::MissingPolicy;
use hpo_playground::engine::optimizer::job_rng;

use crate::common::CliResult;

/// A fit's arithmetic: the precision of its n × n algebra and how it gets the likelihood.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arithmetic {
    precision: Precision,
    solver: Solver,
}

impl Arithmetic {
    const ALL: [(&'static str, Precision, Solver); 4] = [
        ("f64", Precision::F64, Solver::Cholesky),
        ("f32", Precision::F32, Solver::Cholesky),
        ("f64-gpytorch", Precision::F64, Solver::Gpytorch),
        ("f32-gpytorch", Precision::F32, Solver::Gpytorch),
    ];

    pub fn parse(name: &str) -> Result<Arithmetic, String> {
        Self::ALL
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|&(_, precision, solver)| Arithmetic { precision, solver })
            .ok_or_else(|| format!("--precisions takes {}, not '{name}'", Self::ALL.map(|a| a.0).join(", ")))
    }

    fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, p, s)| (*p, *s) == (self.precision, self.solver)).map_or("?", |a| a.0)
    }

    fn dyhpo(self) -> DyHpo {
        DyHpo::with_settings("DyHPO", DeepKernelSettings { precision: self.precision, solver: self.solver, ..Default::default() })
    }
}

/// At `n` observations of task 0 (a race grown by random requests, as `hpo bench` builds it):
/// each arithmetic's cold fit and EI_MF pick, then `steps` more steps in which both see the
/// same race — advanced by the reference's picks — and each warm-starts from its own last fit.
/// Prints the times and how many of the picks agree.
fn shadow(
    values: &[Vec<f64>],
    candidates: &[Vec<f64>],
    sign: f64,
    n: usize,
    steps: usize,
    [reference, other]: [Arithmetic; 2],
) -> CliResult<()> {
    let (ra, rb) = (reference.name(), other.name());
    let mut rng = job_rng(n as u64, "bench");
    let mut race = race_with_observations(values, n, sign, &mut rng);
    let (mut exact, mut single) = (reference.dyhpo(), other.dyhpo());
    let (mut exact_ms, mut single_ms, mut same) = (Vec::new(), Vec::new(), 0);
    let mut epochs = [Vec::new(), Vec::new()];
    for step in 0..=steps {
        // Each optimizer draws from its own copy of one stream, so a pick can differ only by
        // the arithmetic.
        let (mut rng_a, mut rng_b) = (rng.clone(), rng.clone());
        let t0 = Instant::now();
        let a = exact.next(&race, candidates, &mut rng_a).map_err(|e| e.to_string())?;
        let t1 = Instant::now();
        let b = single.next(&race, candidates, &mut rng_b).map_err(|e| e.to_string())?;
        let t2 = Instant::now();
        rng = rng_a;
        if step > 0 {
            exact_ms.push((t1 - t0).as_secs_f64() * 1000.0);
            single_ms.push((t2 - t1).as_secs_f64() * 1000.0);
        } else {
            println!(
                "n = {n}: cold fit + EI_MF  {ra} {:.0} ms ({} epochs, loss {:.5})  {rb} {:.0} ms ({} epochs, loss {:.5})  same pick: {}",
                (t1 - t0).as_secs_f64() * 1000.0,
                exact.last_fit.map_or(0, |f| f.epochs),
                exact.last_fit.map_or(f64::NAN, |f| f.loss),
                (t2 - t1).as_secs_f64() * 1000.0,
                single.last_fit.map_or(0, |f| f.epochs),
                single.last_fit.map_or(f64::NAN, |f| f.loss),
                a == b
            );
        }
        if step > 0 {
            epochs[0].push(exact.last_fit.map_or(0, |f| f.epochs));
            epochs[1].push(single.last_fit.map_or(0, |f| f.epochs));
            same += usize::from(a == b);
        }
        race.curves[a.config].push(sign * values[a.config][a.budget as usize - 1]);
        race.history.push(a);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mean_epochs = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
    println!(
        "n = {n}: next {steps} steps, mean ms  {ra} {:.0} ({:.1} epochs)  {rb} {:.0} ({:.1} epochs)  ratio {:.2}  same picks {same} / {steps}",
        mean(&exact_ms),
        mean_epochs(&epochs[0]),
        mean(&single_ms),
        mean_epochs(&epochs[1]),
        mean(&exact_ms) / mean(&single_ms)
    );
    Ok(())
}

/// The step at which two runs' requests first differ (`None` if never), and how many steps
/// requested the same configuration and budget.
fn agreement(a: &[RaceRow], b: &[RaceRow]) -> (Option<usize>, usize) {
    let first = a.iter().zip(b).position(|(x, y)| (x.config, x.budget) != (y.config, y.budget));
    let same = a.iter().zip(b).filter(|(x, y)| (x.config, x.budget) == (y.config, y.budget)).count();
    (first, same)
}

/// What `hpo bench-precision` measures.
pub struct Plan<'a> {
    pub steps_at: &'a [usize],
    pub tasks: &'a [usize],
    pub seeds: u64,
    pub epochs: u64,
    /// The arithmetics of the steps (the first two) and of the whole runs (the first two's
    /// requests are compared).
    pub precisions: &'a [Arithmetic],
}

pub fn run(lcbench_dir: &Path, plan: Plan) -> CliResult<()> {
    let Plan { steps_at, tasks, seeds, epochs, precisions } = plan;
    let bench = crate::race::load("lcbench", lcbench_dir, None, MissingPolicy::default())?;
    let sign = bench.metrics[bench.objective].direction.sign();
    {
        let (values, _) = race_curves(&bench, 0).map_err(|e| e.to_string())?;
        let candidates = bench.encoded_task(0);
        for &n in steps_at.iter().filter(|&&n| n > 0) {
            let [a, b, ..] = precisions else {
                return Err("--steps-at compares two arithmetics: give two --precisions, or --steps-at 0".into());
            };
            shadow(&values, &candidates, sign, n, 10, [*a, *b])?;
        }
    }
    for &t in tasks {
        if t >= bench.tasks.len() {
            return Err(format!("task {t}: LCBench has {} tasks (0 to {})", bench.tasks.len(), bench.tasks.len() - 1).into());
        }
        let (values, cost) = race_curves(&bench, t).map_err(|e| e.to_string())?;
        let candidates = bench.encoded_task(t);
        // The best final value of any configuration: the regret's zero.
        let optimum = values.iter().filter_map(|c| c.last()).map(|v| sign * v).fold(f64::INFINITY, f64::min);
        for seed in 0..seeds {
            let mut runs = Vec::new();
            for &precision in precisions {
                let mut optimizer = precision.dyhpo();
                let mut rng = job_rng(seed, &format!("race/{}", bench.tasks[t].name));
                let origin = Instant::now();
                let now = move || origin.elapsed().as_secs_f64();
                let rows = run_race(
                    &mut optimizer as &mut dyn MultiFidelityOptimizer,
                    "DyHPO",
                    &candidates,
                    &values,
                    cost.as_deref(),
                    sign,
                    epochs,
                    &mut rng,
                    &now,
                    &mut |_| true,
                )
                .map_err(|e| e.to_string())?;
                let seconds: f64 = rows.iter().map(|r| r.optimizer_seconds).sum();
                let best = rows.last().map_or(f64::NAN, |r| sign * r.best);
                let halfway = rows.iter().take_while(|r| r.spent <= epochs / 2).last().map_or(f64::NAN, |r| sign * r.best);
                println!(
                    "task {t} ({}) seed {seed}, {epochs} epochs, {}: optimizer {seconds:.1} s; best {:.6} (the task's {:.6}); regret (raw) at 50 % {:.6}, at 100 % {:.6}",
                    bench.tasks[t].name,
                    precision.name(),
                    sign * best,
                    sign * optimum,
                    halfway - optimum,
                    best - optimum
                );
                runs.push(rows);
            }
            let [a, b, ..] = &runs[..] else { continue };
            let (first, same) = agreement(a, b);
            println!(
                "task {t} seed {seed}: requests identical at {same} of {} steps; first difference at step {}",
                a.len().min(b.len()),
                first.map_or("none".to_string(), |s| s.to_string())
            );
        }
    }
    Ok(())
}
