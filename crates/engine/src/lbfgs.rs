//! The one L-BFGS set-up the engine's fits share (the GP's type-II maximum likelihood and
//! ABLR's summed marginal likelihood): argmin's L-BFGS with memory 7 and the More–Thuente
//! line search, stopping at a gradient norm of 1e-6 or a cost change of 1e-9.

use argmin::core::{CostFunction, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;

/// Minimises `problem` from `start` for at most `max_iters` iterations; the best point seen,
/// or `None` if the solver could not start or failed outright.
pub fn minimise<P>(problem: P, start: Vec<f64>, max_iters: u64) -> Option<Vec<f64>>
where
    P: CostFunction<Param = Vec<f64>, Output = f64> + Gradient<Param = Vec<f64>, Gradient = Vec<f64>>,
{
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-6).ok()?.with_tolerance_cost(1e-9).ok()?;
    let result = Executor::new(problem, solver).configure(|s| s.param(start).max_iters(max_iters)).run().ok()?;
    result.state().get_best_param().cloned()
}
