//! The ABLR model (Perrone, Jenatton, Seeger, Archambeau. *Scalable hyperparameter transfer
//! learning*. NeurIPS 2018), as the copula paper configures it (App. B): a network shared by
//! all tasks — three dense layers of 50 tanh units — whose last layer's outputs are the
//! features of one Bayesian linear regression per task, y_t = Φ_t·w_t + ε with
//! w_t ~ N(0, α_t⁻¹·I) and ε ~ N(0, β_t⁻¹). The network weights and every (α_t, β_t) are
//! learned together by minimising the sum of the tasks' negative log marginal likelihoods with
//! L-BFGS.
//!
//! Per task, with A = β·ΦᵀΦ + α·I (D × D), m = β·A⁻¹Φᵀy and r = y − Φm:
//! NLL = n/2·log 2π − n/2·log β − D/2·log α + β/2·‖r‖² + α/2·‖m‖² + ½·log|A|.
//! Because m minimises the quadratic part, the gradients are
//! ∂NLL/∂Φ = β·(Φ·A⁻¹ − r·mᵀ), ∂NLL/∂α = ½‖m‖² + ½·tr A⁻¹ − D/(2α),
//! ∂NLL/∂β = ½‖r‖² + ½·tr(A⁻¹ΦᵀΦ) − n/(2β), and ∂NLL/∂Φ is backpropagated through the
//! network (checked against finite differences in the tests).
//!
//! Files: `network` (the shared network's forward pass and backpropagation over a batch of
//! points, bit for bit the point-by-point loops), `reference` (those loops, kept for the tests).

use argmin::core::{CostFunction, Error as ArgminError, Gradient};
use rand::Rng;

use crate::gp::{cholesky, dot, dot4, inverse_from_cholesky};
use crate::optimizer::MethodRng;
use network::layer_dims;

mod network;
#[cfg(test)]
mod reference;

/// Architecture of the shared network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AblrShape {
    /// Input dimension.
    pub input: usize,
    /// Units per hidden layer (the paper: 50); the last layer's are the features.
    pub hidden: usize,
    /// Hidden layers (the paper: 3).
    pub layers: usize,
}

impl AblrShape {
    /// Number of network weights (biases included).
    pub fn network_len(&self) -> usize {
        (0..self.layers).map(|l| layer_dims(self, l)).map(|(i, o)| i * o + o).sum()
    }
}

/// One task's training data: inputs and (warped) targets.
pub type TaskData = (Vec<Vec<f64>>, Vec<f64>);

/// Network weights followed by (log α_t, log β_t) per task.
#[derive(Debug, Clone, PartialEq)]
pub struct AblrParams {
    /// Architecture.
    pub shape: AblrShape,
    /// Flat parameters.
    pub values: Vec<f64>,
}

impl AblrParams {
    /// Glorot-uniform weights, zero biases, α = β = 1.
    pub fn init(shape: AblrShape, tasks: usize, rng: &mut MethodRng) -> Self {
        let mut values = Vec::with_capacity(shape.network_len() + 2 * tasks);
        for l in 0..shape.layers {
            let (i, o) = layer_dims(&shape, l);
            let limit = (6.0 / (i + o) as f64).sqrt();
            values.extend((0..i * o).map(|_| rng.random_range(-limit..limit)));
            values.extend(std::iter::repeat_n(0.0, o));
        }
        values.extend(std::iter::repeat_n(0.0, 2 * tasks));
        AblrParams { shape, values }
    }
}

/// The features φ(x) of every input (`xs.len()` × hidden, row-major).
pub fn features(params: &AblrParams, xs: &[&[f64]]) -> Vec<f64> {
    network::features(&params.shape, &params.values, xs)
}

/// Bayesian linear regression of one task on given features.
#[derive(Debug, Clone)]
pub struct TaskPosterior {
    /// Posterior mean of the weights.
    pub m: Vec<f64>,
    /// A⁻¹ (D × D, row-major): posterior covariance of the weights.
    pub a_inv: Vec<f64>,
    /// Noise precision β.
    pub beta: f64,
}

impl TaskPosterior {
    /// Predictive mean and variance (noise included) at features `phi`.
    pub fn predict(&self, phi: &[f64]) -> (f64, f64) {
        let d = phi.len();
        let mean = phi.iter().zip(&self.m).map(|(a, b)| a * b).sum();
        let quad: f64 = (0..d).map(|i| phi[i] * (0..d).map(|j| self.a_inv[i * d + j] * phi[j]).sum::<f64>()).sum();
        (mean, quad + 1.0 / self.beta)
    }
}

/// One task's Bayesian linear regression on its features at (log α, log β): everything but
/// ∂NLL/∂Φ, which the batched code and the tests' reference compute each their own way.
struct BlrFit {
    /// The task's negative log marginal likelihood.
    nll: f64,
    /// Posterior of the weights.
    posterior: TaskPosterior,
    /// Residuals y − Φ·m.
    residuals: Vec<f64>,
    /// ∂NLL/∂(log α, log β).
    grad_log_precisions: [f64; 2],
}

/// [`BlrFit`] for the task's n feature rows of length `d` in `phi` (n ≥ 1).
fn blr_fit(phi: &[f64], d: usize, y: &[f64], log_alpha: f64, log_beta: f64) -> Option<BlrFit> {
    if phi.is_empty() || d == 0 {
        return None;
    }
    let n = phi.len() / d;
    let (alpha, beta) = (libm::exp(log_alpha), libm::exp(log_beta));
    // A = β·ΦᵀΦ + α·I: the lower triangle of ΦᵀΦ row by row (contiguous inner loops).
    let mut a = vec![0.0; d * d];
    for row in phi.chunks_exact(d) {
        for i in 0..d {
            let ri = row[i];
            for (a, r) in a[i * d..i * d + i + 1].iter_mut().zip(&row[..=i]) {
                *a += ri * r;
            }
        }
    }
    for i in 0..d {
        for j in 0..i {
            a[i * d + j] *= beta;
            a[j * d + i] = a[i * d + j];
        }
        a[i * d + i] = beta * a[i * d + i] + alpha;
    }
    let l = cholesky(&a, d)?;
    let a_inv = inverse_from_cholesky(&l, d);
    let phty: Vec<f64> = (0..d).map(|j| phi.chunks_exact(d).zip(y).map(|(r, v)| r[j] * v).sum()).collect();
    let m: Vec<f64> = (0..d).map(|i| beta * (0..d).map(|j| a_inv[i * d + j] * phty[j]).sum::<f64>()).collect();
    let r: Vec<f64> = phi.chunks_exact(d).zip(y).map(|(row, v)| v - row.iter().zip(&m).map(|(a, b)| a * b).sum::<f64>()).collect();
    let log_det: f64 = (0..d).map(|i| libm::log(l[i * d + i])).sum::<f64>() * 2.0;
    let (rr, mm) = (r.iter().map(|v| v * v).sum::<f64>(), m.iter().map(|v| v * v).sum::<f64>());
    let nll = 0.5 * n as f64 * libm::log(2.0 * std::f64::consts::PI) - 0.5 * n as f64 * log_beta - 0.5 * d as f64 * log_alpha
        + 0.5 * beta * rr
        + 0.5 * alpha * mm
        + 0.5 * log_det;
    let tr_a_inv: f64 = (0..d).map(|i| a_inv[i * d + i]).sum();
    // tr(A⁻¹ΦᵀΦ) = (D − α·tr A⁻¹)/β since A⁻¹A = I.
    let tr_a_inv_ptp = (d as f64 - alpha * tr_a_inv) / beta;
    let d_log_alpha = alpha * (0.5 * mm + 0.5 * tr_a_inv) - 0.5 * d as f64;
    let d_log_beta = beta * (0.5 * rr + 0.5 * tr_a_inv_ptp) - 0.5 * n as f64;
    Some(BlrFit { nll, posterior: TaskPosterior { m, a_inv, beta }, residuals: r, grad_log_precisions: [d_log_alpha, d_log_beta] })
}

/// NLL of one task, the posterior, ∂NLL/∂Φ (n × D, row-major) and ∂NLL/∂(log α, log β).
type TaskNll = (f64, TaskPosterior, Vec<f64>, [f64; 2]);

/// See [`TaskNll`]; `phi` holds the task's n feature rows of length `d` (n ≥ 1).
fn task_nll(phi: &[f64], d: usize, y: &[f64], log_alpha: f64, log_beta: f64) -> Option<TaskNll> {
    let fit = blr_fit(phi, d, y, log_alpha, log_beta)?;
    let TaskPosterior { m, a_inv, beta } = &fit.posterior;
    // ∂NLL/∂Φ = β·(Φ·A⁻¹ − r·mᵀ); A⁻¹ is symmetric, so its row j is its column j, and four of
    // its rows share each pass over a feature row.
    let mut grad_phi = vec![0.0; phi.len()];
    let a_row = |j: usize| &a_inv[j * d..(j + 1) * d];
    for ((row, ri), g) in phi.chunks_exact(d).zip(&fit.residuals).zip(grad_phi.chunks_exact_mut(d)) {
        let mut j = 0;
        while j + 4 <= d {
            let sums = dot4(row, [a_row(j), a_row(j + 1), a_row(j + 2), a_row(j + 3)]);
            for (k, s) in sums.into_iter().enumerate() {
                g[j + k] = beta * (s - ri * m[j + k]);
            }
            j += 4;
        }
        for j in j..d {
            g[j] = beta * (dot(row, a_row(j)) - ri * m[j]);
        }
    }
    Some((fit.nll, fit.posterior, grad_phi, fit.grad_log_precisions))
}

/// log α and log β live in [−B, B] (B = 10) through a sigmoid of the free parameter, so no
/// line-search step can make A numerically singular.
const LOG_PRECISION_BOUND: f64 = 10.0;

/// (log precision, its derivative) for a free parameter `u`; u = 0 gives log precision 0.
fn log_precision(u: f64) -> (f64, f64) {
    let s = 1.0 / (1.0 + libm::exp(-u));
    (LOG_PRECISION_BOUND * (2.0 * s - 1.0), 2.0 * LOG_PRECISION_BOUND * s * (1.0 - s))
}

/// Summed NLL of all tasks divided by the number of points (so that gradients are O(1) and the
/// line search's first step is sensible), and its gradient with respect to every parameter.
pub fn loss_and_grad(params: &AblrParams, tasks: &[TaskData]) -> Option<(f64, Vec<f64>)> {
    let shape = params.shape;
    let net = shape.network_len();
    let w = &params.values[..net];
    let scale = 1.0 / tasks.iter().map(|t| t.1.len()).sum::<usize>().max(1) as f64;
    let mut grad = vec![0.0; params.values.len()];
    let mut total = 0.0;
    for (t, (xs, ys)) in tasks.iter().enumerate() {
        let xs: Vec<&[f64]> = xs.iter().map(Vec::as_slice).collect();
        let acts = network::forward(&shape, w, &xs);
        let (la, dla) = log_precision(params.values[net + 2 * t]);
        let (lb, dlb) = log_precision(params.values[net + 2 * t + 1]);
        let (nll, _, g_phi, g_ab) = task_nll(&acts[shape.layers - 1], shape.hidden, ys, la, lb)?;
        total += scale * nll;
        grad[net + 2 * t] += scale * g_ab[0] * dla;
        grad[net + 2 * t + 1] += scale * g_ab[1] * dlb;
        network::backprop(&shape, w, &xs, &acts, &g_phi, scale, &mut grad[..net]);
    }
    total.is_finite().then_some((total, grad))
}

/// The posterior of task `t` under the current parameters.
pub fn posterior(params: &AblrParams, tasks: &[TaskData], t: usize) -> Option<TaskPosterior> {
    let net = params.shape.network_len();
    let xs: Vec<&[f64]> = tasks[t].0.iter().map(Vec::as_slice).collect();
    task_nll(
        &features(params, &xs),
        params.shape.hidden,
        &tasks[t].1,
        log_precision(params.values[net + 2 * t]).0,
        log_precision(params.values[net + 2 * t + 1]).0,
    )
    .map(|r| r.1)
}

type Evaluation = Option<(f64, Vec<f64>)>;

struct Problem<'a> {
    shape: AblrShape,
    tasks: &'a [TaskData],
    /// The line search asks for the cost and then the gradient at the same point: one pass.
    last: std::cell::RefCell<Option<(Vec<f64>, Evaluation)>>,
}

impl Problem<'_> {
    fn evaluate(&self, u: &[f64]) -> Evaluation {
        if let Some((p, e)) = self.last.borrow().as_ref() {
            if p.as_slice() == u {
                return e.clone();
            }
        }
        let e = loss_and_grad(&AblrParams { shape: self.shape, values: u.to_vec() }, self.tasks);
        *self.last.borrow_mut() = Some((u.to_vec(), e.clone()));
        e
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> Result<f64, ArgminError> {
        Ok(self.evaluate(u).map_or(f64::INFINITY, |r| r.0))
    }
}

impl Gradient for Problem<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> Result<Vec<f64>, ArgminError> {
        self.evaluate(u).map(|r| r.1).ok_or_else(|| ArgminError::msg("BLR precision matrix not positive definite"))
    }
}

/// Minimises the summed NLL with L-BFGS from `start` for at most `max_iters` iterations;
/// returns `start` unchanged if the optimizer fails.
pub fn fit(start: AblrParams, tasks: &[TaskData], max_iters: u64) -> AblrParams {
    let shape = start.shape;
    let problem = Problem { shape, tasks, last: std::cell::RefCell::new(None) };
    match crate::lbfgs::minimise(problem, start.values.clone(), max_iters) {
        Some(values) => AblrParams { shape, values },
        None => start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn toy() -> (AblrParams, Vec<TaskData>) {
        let mut rng = MethodRng::seed_from_u64(3);
        let shape = AblrShape { input: 2, hidden: 4, layers: 3 };
        let tasks: Vec<TaskData> = (0..2)
            .map(|t| {
                let xs: Vec<Vec<f64>> = (0..7).map(|_| vec![rng.random::<f64>(), rng.random::<f64>()]).collect();
                let ys = xs.iter().map(|x| (3.0 * x[0]).sin() + t as f64 * x[1]).collect();
                (xs, ys)
            })
            .collect();
        let mut params = AblrParams::init(shape, 2, &mut rng);
        params.values.iter_mut().rev().take(4).for_each(|v| *v = rng.random_range(-0.5..0.5));
        (params, tasks)
    }

    /// Shapes whose widths are not multiples of four (the batched loops' tails), several
    /// tasks of different sizes, weights and precisions away from their initial values.
    #[test]
    fn batched_loss_and_gradient_equal_the_point_by_point_ones_bit_for_bit() {
        let mut rng = MethodRng::seed_from_u64(17);
        for (input, hidden, layers) in [(2, 4, 3), (7, 10, 3), (30, 50, 3), (5, 9, 1)] {
            let shape = AblrShape { input, hidden, layers };
            let tasks: Vec<TaskData> = [1usize, 13, 40]
                .iter()
                .map(|&n| {
                    let xs: Vec<Vec<f64>> = (0..n).map(|_| (0..input).map(|_| rng.random::<f64>()).collect()).collect();
                    let ys = xs.iter().map(|x| (4.0 * x[0]).cos() + x[input - 1] * rng.random::<f64>()).collect();
                    (xs, ys)
                })
                .collect();
            let mut params = AblrParams::init(shape, tasks.len(), &mut rng);
            params.values.iter_mut().for_each(|v| *v += rng.random_range(-0.3..0.3));
            let (loss, grad) = loss_and_grad(&params, &tasks).unwrap();
            let (want_loss, want_grad) = reference::loss_and_grad(&params, &tasks).unwrap();
            assert_eq!(loss.to_bits(), want_loss.to_bits(), "loss, shape {shape:?}");
            for (k, (g, w)) in grad.iter().zip(&want_grad).enumerate() {
                assert_eq!(g.to_bits(), w.to_bits(), "gradient {k}, shape {shape:?}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (params, tasks) = toy();
        let (_, grad) = loss_and_grad(&params, &tasks).unwrap();
        let h = 1e-6;
        for (k, &g) in grad.iter().enumerate() {
            let mut p = params.clone();
            p.values[k] += h;
            let up = loss_and_grad(&p, &tasks).unwrap().0;
            p.values[k] -= 2.0 * h;
            let down = loss_and_grad(&p, &tasks).unwrap().0;
            let fd = (up - down) / (2.0 * h);
            assert!((fd - g).abs() < 1e-5 * (1.0 + fd.abs()), "parameter {k}: analytic {g} vs finite difference {fd}");
        }
    }

    #[test]
    fn blr_matches_the_closed_form_on_identity_features() {
        // Φ = I (3 × 3), α = 2, β = 4: A = 6I, m = (4/6)·y, NLL by hand.
        let phi = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let y = [1.0, -2.0, 0.5];
        let (nll, post, _, _) = task_nll(&phi, 3, &y, 2f64.ln(), 4f64.ln()).unwrap();
        for (m, v) in post.m.iter().zip(y) {
            assert!((m - v * 4.0 / 6.0).abs() < 1e-12);
        }
        let yy: f64 = y.iter().map(|v| v * v).sum();
        // Marginal: y ~ N(0, (1/α + 1/β)·I) = N(0, 0.75·I).
        let expected = 1.5 * (2.0 * std::f64::consts::PI * 0.75).ln() + yy / (2.0 * 0.75);
        assert!((nll - expected).abs() < 1e-12, "{nll} vs {expected}");
        let (mean, var) = post.predict(&[1.0, 0.0, 0.0]);
        assert!((mean - 4.0 / 6.0).abs() < 1e-12 && (var - (1.0 / 6.0 + 0.25)).abs() < 1e-12);
    }

    #[test]
    fn fitting_lowers_the_loss() {
        let (params, tasks) = toy();
        let before = loss_and_grad(&params, &tasks).unwrap().0;
        let after = loss_and_grad(&fit(params, &tasks, 50), &tasks).unwrap().0;
        assert!(after < before - 0.05, "{before} → {after} (mean NLL per point)");
    }
}
