//! How long GPB's model and designs take, by a clock the caller passes (`Instant` natively,
//! `performance.now()` in a browser): `hpo gpb bench` and `tests/wasm_gpb_bench.rs` time the
//! same work on the same points (`docs/benchmarks.md`).

use rand::{Rng, SeedableRng};

use crate::error::Result;
use crate::fidelity::gpb::construct::DesignMethod;
use crate::fidelity::gpb::design::{Criterion, DesignModel, DesignProblem};
use crate::fidelity::gpb::model::{CovParams, Gpb, GpbSettings};
use crate::optimizer::MethodRng;
use crate::stats::expected_improvement;

/// The budget levels of a 50-epoch table, model units (1, 10, 20, …, 50 epochs).
pub fn levels() -> Vec<f64> {
    [1.0, 10.0, 20.0, 30.0, 40.0, 50.0].iter().map(|l| l / 50.0).collect()
}

/// `n` points uniform in [0, 1]^`dim`, from `seed`.
fn points(n: usize, dim: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = MethodRng::seed_from_u64(seed);
    (0..n).map(|_| (0..dim).map(|_| rng.random_range(0.0..1.0)).collect()).collect()
}

/// One race step's time, seconds.
#[derive(Debug, Clone, Copy)]
pub struct StepTime {
    /// The likelihood fit.
    pub fit: f64,
    /// The fit and EI over every configuration and level.
    pub total: f64,
    /// The largest EI (that the work was done).
    pub best_ei: f64,
}

/// One GPB step in `dim` dimensions: the ML fit (3 starts of ≤ 50 L-BFGS iterations) on `n`
/// observations of a smooth function spread over the 6 levels, then EI over `candidates`
/// configurations × the 6 levels.
pub fn gpb_step(n: usize, dim: usize, candidates: usize, now: &dyn Fn() -> f64) -> Result<StepTime> {
    let levels = levels();
    let x = points(n, dim, 1);
    let b: Vec<f64> = (0..n).map(|i| levels[i % levels.len()]).collect();
    let y: Vec<f64> = x.iter().zip(&b).map(|(x, b)| x.iter().map(|v| (v - 0.4) * (v - 0.4)).sum::<f64>() + 0.05 / b).collect();
    let candidates = points(candidates, dim, 2);
    let t0 = now();
    let model = Gpb::fit(&GpbSettings::default(), x, b, &y, &mut MethodRng::seed_from_u64(2))?;
    let fit = now() - t0;
    let y_min = y.iter().copied().fold(f64::INFINITY, f64::min);
    let best_ei = candidates
        .iter()
        .flat_map(|c| levels.iter().map(move |&l| (c, l)))
        .map(|(c, l)| {
            let (m, v) = model.predict(c, l);
            expected_improvement(m, v.sqrt(), y_min)
        })
        .fold(0.0, f64::max);
    Ok(StepTime { fit, total: now() - t0, best_ei })
}

/// A D-optimal design of `n` points by `method` in `dim` dimensions, max d sought over 1,000
/// random points × the 6 levels (a table's design set): seconds and iterates.
pub fn design_seconds(dim: usize, method: DesignMethod, n: usize, now: &dyn Fn() -> f64) -> (f64, usize) {
    let settings = GpbSettings::default();
    let problem = DesignProblem {
        model: DesignModel::Gpb { kernel: settings.kernel, params: CovParams::nominal(dim, &settings) },
        criterion: Criterion::D,
        budgets: levels(),
        grid: points(1000, dim, 3),
        tabular: false,
    };
    let t0 = now();
    let c = problem.construct(method, n, &mut MethodRng::seed_from_u64(1));
    (now() - t0, c.path.len())
}
