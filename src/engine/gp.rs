//! Gaussian-process regression with a Matérn-5/2 ARD kernel, constant mean and Gaussian
//! noise, hyperparameters fitted by type-II maximum likelihood (Rasmussen & Williams 2006,
//! §5.4) with analytic gradients and L-BFGS (argmin), as the copula paper's GP and GCP use.
//!
//! k(x, x') = σ_f²·(1 + √5·r + 5r²/3)·exp(−√5·r), r² = Σ_d (x_d − x'_d)²/ℓ_d².
//! Hyperparameters live in log space (ℓ_d, σ_f², σ_n²) plus the constant mean c, each within
//! bounds; the optimizer works on an unconstrained u with θ = lo + (hi − lo)·sigmoid(u).
//! Robustness: Cholesky with jitter escalation (duplicates and near-constant targets),
//! restarts from the default and from random points.

use argmin::core::{CostFunction, Error as ArgminError, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use rand::Rng;

use super::error::{EngineError, Result};
use super::optimizer::MethodRng;

const SQRT5: f64 = 2.236_067_977_499_79;

/// GP hyperparameters: `[log ℓ_1..log ℓ_d, log σ_f², log σ_n², c]`.
#[derive(Debug, Clone, PartialEq)]
pub struct GpParams(pub Vec<f64>);

impl GpParams {
    /// Input dimension.
    pub fn dim(&self) -> usize {
        self.0.len() - 3
    }
    fn lengthscale(&self, d: usize) -> f64 {
        libm::exp(self.0[d])
    }
    /// Signal variance σ_f².
    pub fn signal_variance(&self) -> f64 {
        libm::exp(self.0[self.dim()])
    }
    /// Noise variance σ_n².
    pub fn noise_variance(&self) -> f64 {
        libm::exp(self.0[self.dim() + 1])
    }
    /// Constant mean c.
    pub fn mean(&self) -> f64 {
        self.0[self.dim() + 2]
    }
}

/// Bounds and optimizer settings (defaults for inputs in [0, 1] and targets of unit scale).
#[derive(Debug, Clone, PartialEq)]
pub struct GpSettings {
    /// Bounds of ℓ (not logged).
    pub lengthscale: (f64, f64),
    /// Bounds of σ_f².
    pub signal_variance: (f64, f64),
    /// Bounds of σ_n².
    pub noise_variance: (f64, f64),
    /// Bounds of c.
    pub mean: (f64, f64),
    /// Optimizer runs: the default start plus `restarts − 1` random ones.
    pub restarts: usize,
    /// L-BFGS iterations per run.
    pub max_iters: u64,
}

impl Default for GpSettings {
    fn default() -> Self {
        GpSettings {
            lengthscale: (1e-2, 1e2),
            signal_variance: (1e-3, 1e2),
            noise_variance: (1e-6, 1.0),
            mean: (-5.0, 5.0),
            restarts: 3,
            max_iters: 100,
        }
    }
}

impl GpSettings {
    fn bounds(&self, dim: usize) -> Vec<(f64, f64)> {
        let log = |(a, b): (f64, f64)| (libm::log(a), libm::log(b));
        let mut b = vec![log(self.lengthscale); dim];
        b.push(log(self.signal_variance));
        b.push(log(self.noise_variance));
        b.push(self.mean);
        b
    }
    fn default_start(&self, dim: usize) -> GpParams {
        let mut p = vec![libm::log(0.5); dim];
        p.push(0.0);
        p.push(libm::log(1e-2));
        p.push(0.0);
        GpParams(p)
    }
}

/// Dot product with four independent accumulators, so the compiler can vectorise it (a
/// single running sum is a dependency chain it must keep in order).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Lower-triangular Cholesky factor (row-major n×n) or `None` if not positive definite.
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s = a[i * n + j] - dot(&l[i * n..i * n + j], &l[j * n..j * n + j]);
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solves L·x = b in place.
pub fn solve_lower(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let s = b[i] - dot(&l[i * n..i * n + i], &b[..i]);
        b[i] = s / l[i * n + i];
    }
}

/// Solves Lᵀ·x = b in place.
pub fn solve_upper_t(l: &[f64], n: usize, b: &mut [f64]) {
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// (L·Lᵀ)⁻¹ = L⁻ᵀ·L⁻¹ from the Cholesky factor, exploiting the triangular and symmetric
/// structure (about n³/3 multiply-adds instead of n³ for n solves).
pub fn inverse_from_cholesky(l: &[f64], n: usize) -> Vec<f64> {
    // Row j of `mt` is column j of M = L⁻¹ (so every inner loop below is contiguous).
    let mut mt = vec![0.0; n * n];
    for j in 0..n {
        mt[j * n + j] = 1.0 / l[j * n + j];
        for i in j + 1..n {
            let s = dot(&l[i * n + j..i * n + i], &mt[j * n + j..j * n + i]);
            mt[j * n + i] = -s / l[i * n + i];
        }
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s = dot(&mt[i * n + i..i * n + n], &mt[j * n + i..j * n + n]);
            inv[i * n + j] = s;
            inv[j * n + i] = s;
        }
    }
    inv
}

/// Kernel constants precomputed once per parameter vector (exp of the logs).
#[derive(Debug, Clone)]
struct Kernel {
    inv_lengthscale: Vec<f64>,
    signal_variance: f64,
}

impl Kernel {
    fn new(p: &GpParams) -> Self {
        Kernel { inv_lengthscale: (0..p.dim()).map(|d| 1.0 / p.lengthscale(d)).collect(), signal_variance: p.signal_variance() }
    }

    /// Squared scaled distance r² = Σ_d (a_d − b_d)²/ℓ_d².
    #[inline]
    fn scaled_r2(&self, a: &[f64], b: &[f64]) -> f64 {
        // Four independent sums, as in `dot`: one running sum is a chain of dependent adds.
        let d = self.inv_lengthscale.len().min(a.len()).min(b.len());
        let (a, b, il) = (&a[..d], &b[..d], &self.inv_lengthscale[..d]);
        let mut acc = [0.0f64; 4];
        let (ca, cb, cl) = (a.chunks_exact(4), b.chunks_exact(4), il.chunks_exact(4));
        let (ra, rb, rl) = (ca.remainder(), cb.remainder(), cl.remainder());
        for ((x, y), l) in ca.zip(cb).zip(cl) {
            for k in 0..4 {
                let s = (x[k] - y[k]) * l[k];
                acc[k] += s * s;
            }
        }
        let mut tail = 0.0;
        for ((x, y), l) in ra.iter().zip(rb).zip(rl) {
            let s = (x - y) * l;
            tail += s * s;
        }
        (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
    }

    /// Matérn-5/2 value at r² and, for the gradient, the factor `slope` with
    /// ∂k/∂log ℓ_d = slope·(a_d − b_d)²/ℓ_d², slope = σ_f²·(5/3)·(1 + √5 r)·e^{−√5 r}.
    #[inline]
    fn value_and_slope(&self, r2: f64) -> (f64, f64) {
        let r = r2.sqrt();
        let e = libm::exp(-SQRT5 * r);
        let value = self.signal_variance * (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * e;
        (value, self.signal_variance * (5.0 / 3.0) * (1.0 + SQRT5 * r) * e)
    }

    fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        self.value_and_slope(self.scaled_r2(a, b)).0
    }
}

/// The noise-free kernel matrix (row-major n×n) and, if asked, the matching `slope` matrix
/// of [`Kernel::value_and_slope`] for the gradient.
fn kernel_matrix(x: &[Vec<f64>], kernel: &Kernel, with_slope: bool) -> (Vec<f64>, Vec<f64>) {
    let n = x.len();
    let mut k = vec![0.0; n * n];
    let mut slope = if with_slope { vec![0.0; n * n] } else { Vec::new() };
    for i in 0..n {
        for j in 0..=i {
            let (v, s) = kernel.value_and_slope(kernel.scaled_r2(&x[i], &x[j]));
            k[i * n + j] = v;
            k[j * n + i] = v;
            if with_slope {
                slope[i * n + j] = s;
            }
        }
    }
    (k, slope)
}

/// Cholesky factor of K + σ_n²·I with jitter escalation (duplicates, near-constant targets).
fn factor(k: &[f64], n: usize, p: &GpParams) -> Option<Vec<f64>> {
    let noise = p.noise_variance();
    let mut jitter = 0.0;
    loop {
        let mut a = k.to_vec();
        for i in 0..n {
            a[i * n + i] += noise + jitter;
        }
        if let Some(l) = cholesky(&a, n) {
            return Some(l);
        }
        jitter = if jitter == 0.0 { 1e-10 * p.signal_variance().max(1e-12) } else { jitter * 10.0 };
        if jitter > 1e-1 * p.signal_variance().max(1.0) {
            return None;
        }
    }
}

/// Negative log marginal likelihood and its gradient with respect to the parameters.
pub fn nll_and_grad(x: &[Vec<f64>], y: &[f64], p: &GpParams) -> Option<(f64, Vec<f64>)> {
    let n = x.len();
    let dim = p.dim();
    let kernel = Kernel::new(p);
    let (k, slope) = kernel_matrix(x, &kernel, true);
    let l = factor(&k, n, p)?;
    let mut alpha: Vec<f64> = y.iter().map(|v| v - p.mean()).collect();
    let resid = alpha.clone();
    solve_lower(&l, n, &mut alpha);
    solve_upper_t(&l, n, &mut alpha);
    let log_det: f64 = (0..n).map(|i| libm::log(l[i * n + i])).sum::<f64>() * 2.0;
    let quad: f64 = resid.iter().zip(&alpha).map(|(r, a)| r * a).sum();
    let nll = 0.5 * quad + 0.5 * log_det + 0.5 * n as f64 * libm::log(2.0 * std::f64::consts::PI);
    // W = K⁻¹ − ααᵀ; ∂nll/∂θ = ½·tr(W·∂K/∂θ). W and ∂K are symmetric: visit j ≤ i once,
    // counting off-diagonal pairs twice. The diagonal has no lengthscale term (a = b there).
    let kinv = inverse_from_cholesky(&l, n);
    let mut grad = vec![0.0; dim + 3];
    // Σ_ij w_ij·slope_ij·(x_id − x_jd)², scaled by 1/ℓ_d² at the end.
    let mut squared_terms = vec![0.0; dim];
    let mut signal = 0.0;
    let mut noise_trace = 0.0;
    for i in 0..n {
        for j in 0..i {
            let w = kinv[i * n + j] - alpha[i] * alpha[j];
            signal += w * k[i * n + j];
            let c = w * slope[i * n + j];
            for ((g, a), b) in squared_terms.iter_mut().zip(&x[i]).zip(&x[j]) {
                let diff = a - b;
                *g += c * diff * diff;
            }
        }
        let w = 0.5 * (kinv[i * n + i] - alpha[i] * alpha[i]);
        signal += w * k[i * n + i];
        noise_trace += w;
    }
    for (d, g) in squared_terms.iter().enumerate() {
        grad[d] = g * kernel.inv_lengthscale[d] * kernel.inv_lengthscale[d];
    }
    grad[dim] = signal;
    grad[dim + 1] = noise_trace * p.noise_variance();
    grad[dim + 2] = -alpha.iter().sum::<f64>();
    Some((nll, grad))
}

fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-u))
}

/// Evaluations cached by parameter vector (argmin asks for cost and gradient separately).
type Evaluation = Option<(f64, Vec<f64>)>;

struct Problem<'a> {
    x: &'a [Vec<f64>],
    y: &'a [f64],
    bounds: &'a [(f64, f64)],
    last: std::cell::RefCell<Option<(Vec<f64>, Evaluation)>>,
}

impl<'a> Problem<'a> {
    fn new(x: &'a [Vec<f64>], y: &'a [f64], bounds: &'a [(f64, f64)]) -> Self {
        Problem { x, y, bounds, last: std::cell::RefCell::new(None) }
    }

    /// NLL and its gradient with respect to u (the unconstrained parameters), cached.
    fn evaluate(&self, u: &[f64]) -> Evaluation {
        if let Some((cached_u, value)) = self.last.borrow().as_ref() {
            if cached_u.as_slice() == u {
                return value.clone();
            }
        }
        let value = nll_and_grad(self.x, self.y, &self.params(u)).map(|(v, g)| {
            let gu = g.iter().zip(u).zip(self.bounds).map(|((g, &u), &(lo, hi))| g * (hi - lo) * sigmoid(u) * (1.0 - sigmoid(u))).collect();
            (v, gu)
        });
        *self.last.borrow_mut() = Some((u.to_vec(), value.clone()));
        value
    }

    fn params(&self, u: &[f64]) -> GpParams {
        GpParams(u.iter().zip(self.bounds).map(|(&u, &(lo, hi))| lo + (hi - lo) * sigmoid(u)).collect())
    }
    fn unconstrained(&self, p: &GpParams) -> Vec<f64> {
        p.0.iter()
            .zip(self.bounds)
            .map(|(&t, &(lo, hi))| {
                let f = ((t - lo) / (hi - lo)).clamp(1e-6, 1.0 - 1e-6);
                libm::log(f / (1.0 - f))
            })
            .collect()
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> std::result::Result<f64, ArgminError> {
        Ok(self.evaluate(u).map(|r| r.0).unwrap_or(f64::INFINITY))
    }
}

impl Gradient for Problem<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> std::result::Result<Vec<f64>, ArgminError> {
        self.evaluate(u).map(|r| r.1).ok_or_else(|| ArgminError::msg("covariance not positive definite"))
    }
}

/// A GP conditioned on data, ready to predict.
#[derive(Debug, Clone)]
pub struct FittedGp {
    x: Vec<Vec<f64>>,
    params: GpParams,
    kernel: Kernel,
    chol: Vec<f64>,
    alpha: Vec<f64>,
    /// Negative log marginal likelihood at the fitted parameters.
    pub nll: f64,
}

impl FittedGp {
    /// Conditions on data with given parameters.
    pub fn with_params(x: &[Vec<f64>], y: &[f64], params: GpParams) -> Result<Self> {
        let n = x.len();
        let kernel = Kernel::new(&params);
        let chol = factor(&kernel_matrix(x, &kernel, false).0, n, &params).ok_or_else(|| EngineError::Method {
            method: "GP".into(),
            message: "covariance matrix not positive definite even with jitter".into(),
        })?;
        let resid: Vec<f64> = y.iter().map(|v| v - params.mean()).collect();
        let mut alpha = resid.clone();
        solve_lower(&chol, n, &mut alpha);
        solve_upper_t(&chol, n, &mut alpha);
        // The NLL from the factor at hand (O(n²)); nll_and_grad would add an O(n³) inverse.
        let log_det: f64 = (0..n).map(|i| libm::log(chol[i * n + i])).sum::<f64>() * 2.0;
        let quad: f64 = resid.iter().zip(&alpha).map(|(r, a)| r * a).sum();
        let nll = 0.5 * quad + 0.5 * log_det + 0.5 * n as f64 * libm::log(2.0 * std::f64::consts::PI);
        Ok(FittedGp { x: x.to_vec(), params, kernel, chol, alpha, nll })
    }

    /// Fits hyperparameters by type-II maximum likelihood, then conditions on the data.
    pub fn fit(x: &[Vec<f64>], y: &[f64], settings: &GpSettings, rng: &mut MethodRng) -> Result<Self> {
        Self::fit_from(x, y, settings, None, rng)
    }

    /// As [`FittedGp::fit`], with `previous` (e.g. the last iteration's optimum) as an extra
    /// start in place of one random restart.
    pub fn fit_from(x: &[Vec<f64>], y: &[f64], settings: &GpSettings, previous: Option<&GpParams>, rng: &mut MethodRng) -> Result<Self> {
        if x.is_empty() || x.len() != y.len() {
            return Err(EngineError::Method {
                method: "GP".into(),
                message: format!("cannot fit {} inputs to {} targets", x.len(), y.len()),
            });
        }
        let dim = x[0].len();
        let bounds = settings.bounds(dim);
        let problem = Problem::new(x, y, &bounds);
        let mut starts = vec![settings.default_start(dim)];
        starts.extend(previous.filter(|p| p.0.len() == dim + 3).cloned());
        // Random restarts are drawn even when `previous` replaces one, so the random stream
        // does not depend on whether a previous optimum was given.
        for _ in 1..settings.restarts.max(1) {
            starts.push(GpParams(bounds.iter().map(|&(lo, hi)| lo + (hi - lo) * rng.random::<f64>()).collect()));
        }
        starts.truncate(settings.restarts.max(1));
        let mut best: Option<(f64, GpParams)> = None;
        for start in starts {
            let u0 = problem.unconstrained(&start);
            let candidate = match run_lbfgs(Problem::new(x, y, &bounds), u0.clone(), settings.max_iters) {
                Some(u) => problem.params(&u),
                None => start,
            };
            let value = nll_and_grad(x, y, &candidate).map(|r| r.0).unwrap_or(f64::INFINITY);
            if value.is_finite() && best.as_ref().is_none_or(|(b, _)| value < *b) {
                best = Some((value, candidate));
            }
        }
        let params = best.map(|b| b.1).unwrap_or_else(|| settings.default_start(dim));
        Self::with_params(x, y, params)
    }

    /// The fitted hyperparameters.
    pub fn params(&self) -> &GpParams {
        &self.params
    }

    /// Posterior mean only: O(n) per point instead of O(n²) with the variance.
    pub fn predict_mean(&self, x: &[f64]) -> f64 {
        self.params.mean() + self.x.iter().zip(&self.alpha).map(|(xi, a)| self.kernel.eval(xi, x) * a).sum::<f64>()
    }

    /// Posterior mean and variance of the latent function at `x` (without observation noise).
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let mut out = Vec::with_capacity(1);
        self.predict_block::<1>(&[x], &mut vec![0.0; self.x.len()], &mut out);
        out[0]
    }

    /// [`FittedGp::predict`] at `candidates[i]` for every `i` in `which`, bit for bit the
    /// same numbers, about three times faster (blocks of points share each pass over L).
    pub fn predict_many(&self, candidates: &[Vec<f64>], which: &[usize]) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(which.len());
        let mut scratch = vec![0.0; self.x.len() * PREDICT_BLOCK];
        for block in which.chunks(PREDICT_BLOCK) {
            let points: Vec<&[f64]> = block.iter().map(|&i| candidates[i].as_slice()).collect();
            self.predict_block::<PREDICT_BLOCK>(&points, &mut scratch, &mut out);
        }
        out
    }

    /// Up to `B` points at once: `kt` holds k(x_i, point_c) at i·B + c and is
    /// overwritten by L⁻¹·k column by column. Every point is its own lane with the same
    /// operations in the same order, so a result does not depend on its block-mates.
    fn predict_block<const B: usize>(&self, points: &[&[f64]], kt: &mut [f64], out: &mut Vec<(f64, f64)>) {
        let n = self.x.len();
        kt.fill(0.0);
        for (i, xi) in self.x.iter().enumerate() {
            for (c, point) in points.iter().enumerate() {
                kt[i * B + c] = self.kernel.eval(xi, point);
            }
        }
        let mut mean = [0.0f64; B];
        for (i, a) in self.alpha.iter().enumerate() {
            for c in 0..B {
                mean[c] += kt[i * B + c] * a;
            }
        }
        for i in 0..n {
            let mut acc = [0.0f64; B];
            let (solved, rest) = kt.split_at_mut(i * B);
            for (row, &lik) in solved.chunks_exact(B).zip(&self.chol[i * n..i * n + i]) {
                for (a, v) in acc.iter_mut().zip(row) {
                    *a += lik * v;
                }
            }
            let lii = self.chol[i * n + i];
            for (v, a) in rest[..B].iter_mut().zip(&acc) {
                *v = (*v - a) / lii;
            }
        }
        let mut explained = [0.0f64; B];
        for i in 0..n {
            for c in 0..B {
                explained[c] += kt[i * B + c] * kt[i * B + c];
            }
        }
        for c in 0..points.len() {
            out.push((self.params.mean() + mean[c], (self.params.signal_variance() - explained[c]).max(1e-12)));
        }
    }
}

/// Points per block in [`FittedGp::predict_many`].
const PREDICT_BLOCK: usize = 8;

fn run_lbfgs(problem: Problem, u0: Vec<f64>, max_iters: u64) -> Option<Vec<f64>> {
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-6).ok()?.with_tolerance_cost(1e-9).ok()?;
    let result = Executor::new(problem, solver).configure(|s| s.param(u0).max_iters(max_iters)).run().ok()?;
    result.state().get_best_param().cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::optimizer::job_rng;

    fn data() -> (Vec<Vec<f64>>, Vec<f64>) {
        let x: Vec<Vec<f64>> = (0..12).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0]).collect();
        let y = x.iter().map(|v| (6.0 * v[0]).sin() + 0.5 * v[1] * v[1]).collect();
        (x, y)
    }

    #[test]
    fn likelihood_gradient_matches_finite_differences() {
        let (x, y) = data();
        let p = GpParams(vec![(0.3f64).ln(), (0.8f64).ln(), (1.3f64).ln(), (0.05f64).ln(), 0.2]);
        let (_, g) = nll_and_grad(&x, &y, &p).unwrap();
        for i in 0..p.0.len() {
            let h = 1e-6;
            let mut a = p.clone();
            a.0[i] += h;
            let mut b = p.clone();
            b.0[i] -= h;
            let fd = (nll_and_grad(&x, &y, &a).unwrap().0 - nll_and_grad(&x, &y, &b).unwrap().0) / (2.0 * h);
            assert!((fd - g[i]).abs() < 1e-5 * (1.0 + fd.abs()), "parameter {i}: analytic {} vs finite difference {fd}", g[i]);
        }
    }

    #[test]
    fn inverse_from_cholesky_inverts() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let l = cholesky(&a, 3).unwrap();
        let inv = inverse_from_cholesky(&l, 3);
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((v - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn posterior_matches_hand_computed_two_point_case() {
        // Two 1-D points, ℓ = 1, σ_f² = 1, σ_n² = 0.1, c = 0. At x* = 0.5:
        // k(0, 0.5) = k(1, 0.5) = m(0.5) with m(r) = (1 + √5 r + 5r²/3)e^{−√5 r}; k(0,1) = m(1).
        let m = |r: f64| (1.0 + SQRT5 * r + 5.0 * r * r / 3.0) * (-SQRT5 * r).exp(); // Matérn-5/2, ℓ = σ_f = 1
        let (a, b, ks) = (1.1, m(1.0), m(0.5));
        let det = a * a - b * b;
        let kinv = [[a / det, -b / det], [-b / det, a / det]];
        let y = [1.0, -2.0];
        let mean = ks * (kinv[0][0] * y[0] + kinv[0][1] * y[1]) + ks * (kinv[1][0] * y[0] + kinv[1][1] * y[1]);
        let var = 1.0 - ks * ks * (kinv[0][0] + kinv[0][1] + kinv[1][0] + kinv[1][1]);
        let gp = FittedGp::with_params(&[vec![0.0], vec![1.0]], &y, GpParams(vec![0.0, 0.0, 0.1f64.ln(), 0.0])).unwrap();
        let (pm, pv) = gp.predict(&[0.5]);
        assert!((pm - mean).abs() < 1e-12 && (pv - var).abs() < 1e-12, "{pm} {pv} vs {mean} {var}");
    }

    #[test]
    fn fitting_improves_likelihood_and_interpolates() {
        let (x, y) = data();
        let mut rng = job_rng(0, "gp");
        let settings = GpSettings::default();
        let gp = FittedGp::fit(&x, &y, &settings, &mut rng).unwrap();
        let start = nll_and_grad(&x, &y, &settings.default_start(2)).unwrap().0;
        assert!(gp.nll < start - 1.0, "fitted {} vs start {start}", gp.nll);
        let (m, _) = gp.predict(&x[3]);
        assert!((m - y[3]).abs() < 0.1, "{m} vs {}", y[3]);
    }

    #[test]
    fn predicting_many_points_gives_the_single_point_numbers_bit_for_bit() {
        let (x, y) = data();
        let gp = FittedGp::fit(&x, &y, &GpSettings::default(), &mut job_rng(2, "gp")).unwrap();
        let candidates: Vec<Vec<f64>> = (0..21).map(|i| vec![(i as f64 * 0.13) % 1.0, (i as f64 * 0.29) % 1.0]).collect();
        // An odd subset, so blocks are partly filled and points sit in different lanes.
        let which: Vec<usize> = (0..21).rev().step_by(2).chain([4, 4]).collect();
        for (&i, got) in which.iter().zip(gp.predict_many(&candidates, &which)) {
            assert_eq!(got, gp.predict(&candidates[i]), "candidate {i}");
            assert_eq!(got.0, gp.predict_mean(&candidates[i]));
        }
    }

    #[test]
    fn likelihood_gradient_matches_finite_differences_in_five_dimensions() {
        let x: Vec<Vec<f64>> = (0..30).map(|i| (0..5).map(|d| ((i * (d + 3)) as f64 * 0.171) % 1.0).collect()).collect();
        let y: Vec<f64> = x.iter().map(|v| v.iter().enumerate().map(|(d, t)| ((d + 1) as f64 * t).sin()).sum()).collect();
        let p = GpParams(vec![-1.0, -0.5, 0.0, 0.4, -1.5, 0.3, (0.02f64).ln(), -0.1]);
        let (_, g) = nll_and_grad(&x, &y, &p).unwrap();
        for i in 0..p.0.len() {
            let h = 1e-6;
            let (mut a, mut b) = (p.clone(), p.clone());
            a.0[i] += h;
            b.0[i] -= h;
            let fd = (nll_and_grad(&x, &y, &a).unwrap().0 - nll_and_grad(&x, &y, &b).unwrap().0) / (2.0 * h);
            assert!((fd - g[i]).abs() < 1e-5 * (1.0 + fd.abs()), "parameter {i}: analytic {} vs finite difference {fd}", g[i]);
        }
    }

    #[test]
    fn duplicates_and_constant_targets_are_survived() {
        let x = vec![vec![0.2, 0.2]; 6];
        let y = vec![1.0; 6];
        let gp = FittedGp::fit(&x, &y, &GpSettings::default(), &mut job_rng(1, "gp")).unwrap();
        let (m, v) = gp.predict(&[0.2, 0.2]);
        assert!(m.is_finite() && v.is_finite() && v > 0.0);
    }
}
