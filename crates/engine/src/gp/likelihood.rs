//! The GP's negative log marginal likelihood with its analytic gradient (Rasmussen & Williams
//! 2006, Eq. 5.8–5.9), the priors on its hyperparameters, and the objective a fit minimises
//! (the negative log posterior of the hyperparameters: MAP, as BoTorch and Optuna fit).

use super::blocked;
use super::kernel::{Kernel, KernelMatrix, ScaledPoints};
use super::linalg::{solve_lower, solve_upper_t};
use super::GpParams;

/// Cholesky factor of K + σ_n²·I with jitter escalation (duplicates, near-constant targets).
pub(super) fn factor(k: &[f64], n: usize, p: &GpParams) -> Option<Vec<f64>> {
    let (mut a, mut l) = (Vec::new(), Vec::new());
    factor_into(k, n, p, &mut a, &mut l).then_some(l)
}

/// [`factor`] into `l`, with `a` as scratch, reusing their memory; `false` if even the
/// largest jitter fails.
fn factor_into(k: &[f64], n: usize, p: &GpParams, a: &mut Vec<f64>, l: &mut Vec<f64>) -> bool {
    let noise = p.noise_variance();
    let mut jitter = 0.0;
    loop {
        a.clear();
        a.extend_from_slice(k);
        for i in 0..n {
            a[i * n + i] += noise + jitter;
        }
        // The cache-blocked factor (`blocked.rs`: sequential sums, the same bits on every
        // platform): at 1,000 observations 2.2× faster natively than the dot-product loops,
        // and the fit's time there is the factor and the inverse.
        if blocked::cholesky(a, n, l) {
            return true;
        }
        jitter = if jitter == 0.0 { 1e-10 * p.signal_variance().max(1e-12) } else { jitter * 10.0 };
        if jitter > 1e-1 * p.signal_variance().max(1.0) {
            return false;
        }
    }
}

/// The n×n buffers of one likelihood evaluation, reused by the next: a fit evaluates the
/// likelihood a hundred times or more at the same n, and allocating and zeroing them anew
/// each time cost about 4% of a GCP run.
#[derive(Debug, Default)]
pub(super) struct Workspace {
    points: Option<ScaledPoints>,
    matrix: KernelMatrix,
    shifted: Vec<f64>,
    factor: Vec<f64>,
    inverse_scratch: Vec<f64>,
    inverse: Vec<f64>,
}

/// ½·rᵀα + ½·log|A| + ½·n·log 2π from the factor L of A and α = A⁻¹r.
pub(super) fn nll_from_factor(l: &[f64], n: usize, resid: &[f64], alpha: &[f64]) -> f64 {
    let log_det: f64 = (0..n).map(|i| libm::log(l[i * n + i])).sum::<f64>() * 2.0;
    let quad: f64 = resid.iter().zip(alpha).map(|(r, a)| r * a).sum();
    0.5 * quad + 0.5 * log_det + 0.5 * n as f64 * libm::log(2.0 * std::f64::consts::PI)
}

/// Negative log marginal likelihood and its gradient with respect to the parameters.
pub fn nll_and_grad(x: &[Vec<f64>], y: &[f64], p: &GpParams) -> Option<(f64, Vec<f64>)> {
    nll_and_grad_looping(x, y, p, None, &mut Workspace::default())
}

/// [`nll_and_grad`] with the lengthscale gradient's loop chosen (`Some(true)`: every
/// coordinate; `Some(false)`: the nonzeros only) or, with `None`, by the inputs' density,
/// in the buffers of `ws`.
fn nll_and_grad_looping(x: &[Vec<f64>], y: &[f64], p: &GpParams, dense: Option<bool>, ws: &mut Workspace) -> Option<(f64, Vec<f64>)> {
    let n = x.len();
    let dim = p.dim();
    let kernel = Kernel::new(p);
    let points = match &mut ws.points {
        Some(points) => {
            points.refill(x, &kernel);
            points
        }
        none => none.insert(ScaledPoints::new(x, &kernel)),
    };
    ws.matrix.fill(points, &kernel, true);
    let (k, slope) = (&ws.matrix.k, &ws.matrix.slope);
    if !factor_into(k, n, p, &mut ws.shifted, &mut ws.factor) {
        return None;
    }
    let l = &ws.factor;
    let resid: Vec<f64> = y.iter().map(|v| v - p.mean()).collect();
    let mut alpha = resid.clone();
    solve_lower(l, n, &mut alpha);
    solve_upper_t(l, n, &mut alpha);
    let nll = nll_from_factor(l, n, &resid, &alpha);
    // W = K⁻¹ − ααᵀ; ∂nll/∂θ = ½·tr(W·∂K/∂θ). W and ∂K are symmetric: visit j < i once,
    // counting off-diagonal pairs twice. The diagonal has no lengthscale term (a = b there).
    blocked::inverse_lower(l, n, &mut ws.inverse_scratch);
    blocked::inverse_from_lower_inverse(&ws.inverse_scratch, n, &mut ws.inverse);
    let kinv = &ws.inverse;
    let mut grad = vec![0.0; dim + 3];
    // Σ_ij w_ij·slope_ij·(x_id − x_jd)², scaled by s_d at the end. Coordinates where both
    // points are zero add exactly 0, so for sparse inputs only the nonzeros of either point are
    // visited; each term is still the difference squared (no cancellation when W is large).
    // Inputs that are not very sparse take a plain loop over every coordinate instead, which
    // gives the same bits: the terms it adds on top are ±0, and a sum that starts at +0 never
    // becomes −0, so adding ±0 changes nothing (tested against the sparse loop). The plain loop
    // vectorises and the sparse one gathers, so the plain loop wins until the dimension is
    // several times a pair's nonzeros: on NAS-Bench-201 (30 one-hot inputs, 6 nonzeros a
    // point) a cold fit at 100 observations takes 70 instead of 74 ms under V8 and 60 instead
    // of 73 ms natively (docs/benchmarks.md).
    // The rule: dense while dim ≤ 3 × a pair's nonzeros on average (2·nonzeros / n).
    let nonzeros: usize = points.queries.iter().map(|q| q.index.len()).sum();
    let dense = dense.unwrap_or_else(|| n * dim <= 6 * nonzeros);
    let mut squared_terms = vec![0.0; dim];
    let mut signal = 0.0;
    let mut noise_trace = 0.0;
    for i in 0..n {
        let (xi, nz_i) = (&x[i], &points.queries[i]);
        // Row i's lower triangle zipped rather than indexed at i·n + j: no bounds checks per
        // pair on wasm.
        let row = kinv[i * n..i * n + i].iter().zip(&k[i * n..i * n + i]).zip(&slope[i * n..i * n + i]);
        for ((((&kinv_ij, &k_ij), &slope_ij), &alpha_j), (xj, nz_j)) in row.zip(&alpha[..i]).zip(x.iter().zip(&points.queries)) {
            let w = kinv_ij - alpha[i] * alpha_j;
            signal += w * k_ij;
            let c = w * slope_ij;
            if dense {
                for ((sum, a), b) in squared_terms.iter_mut().zip(&xi[..dim]).zip(&xj[..dim]) {
                    let diff = a - b;
                    *sum += c * diff * diff;
                }
                continue;
            }
            for (&d, &v) in nz_i.index.iter().zip(&nz_i.value) {
                let diff = v - xj[d];
                squared_terms[d] += c * diff * diff;
            }
            for (&d, &v) in nz_j.index.iter().zip(&nz_j.value) {
                if xi[d] == 0.0 {
                    squared_terms[d] += c * v * v;
                }
            }
        }
        let w = 0.5 * (kinv[i * n + i] - alpha[i] * alpha[i]);
        signal += w * k[i * n + i];
        noise_trace += w;
    }
    for (d, g) in squared_terms.iter().enumerate() {
        grad[d] = g * kernel.scale[d];
    }
    grad[dim] = signal;
    grad[dim + 1] = noise_trace * p.noise_variance();
    grad[dim + 2] = -alpha.iter().sum::<f64>();
    Some((nll, grad))
}

/// The objective a fit minimises: the NLL less the log prior density of the parameters
/// ([`HyperPriors`]), over the parameters themselves (logs of ℓ, σ_f², σ_n², and c) within
/// their bounds, with the n×n buffers of one evaluation reused by the next.
pub(super) struct Problem<'a> {
    x: &'a [Vec<f64>],
    y: &'a [f64],
    priors: &'a HyperPriors,
    workspace: Workspace,
}

impl<'a> Problem<'a> {
    pub(super) fn new(x: &'a [Vec<f64>], y: &'a [f64], priors: &'a HyperPriors) -> Self {
        Problem { x, y, priors, workspace: Workspace::default() }
    }

    /// The objective at `theta` with its gradient in `grad`; `None` where K is not positive
    /// definite even with jitter.
    pub(super) fn evaluate(&mut self, theta: &[f64], grad: &mut [f64]) -> Option<f64> {
        let p = GpParams(theta.to_vec());
        let (nll, g) = nll_and_grad_looping(self.x, self.y, &p, None, &mut self.workspace)?;
        grad.copy_from_slice(&g);
        Some(nll - self.priors.log_density(&p, grad))
    }
}

/// A Gamma(shape, rate) prior on a positive hyperparameter v: log density
/// (shape − 1)·log v − rate·v up to a constant, as GPyTorch's `GammaPrior` (on v itself, not
/// on its log: the fit maximises the density of v at the optimum, as BoTorch's does).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gamma {
    /// Shape α.
    pub shape: f64,
    /// Rate β (the mean is α/β).
    pub rate: f64,
}

impl Gamma {
    /// Log density at v = e^{log_v} (without its constant) and its derivative in log v.
    fn at_log(&self, log_v: f64) -> (f64, f64) {
        let v = libm::exp(log_v);
        ((self.shape - 1.0) * log_v - self.rate * v, (self.shape - 1.0) - self.rate * v)
    }
}

/// The priors of a fit's hyperparameters (`None`: flat within the bounds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HyperPriors {
    /// On each lengthscale ℓ_d, for one input: with d inputs its rate is divided by √d
    /// ([`HyperPriors::lengthscale_in`]).
    pub lengthscale: Option<Gamma>,
    /// On the signal variance σ_f².
    pub signal_variance: Option<Gamma>,
    /// On the noise variance σ_n².
    pub noise_variance: Option<Gamma>,
}

impl HyperPriors {
    /// No prior: type-II maximum likelihood.
    pub const FLAT: HyperPriors = HyperPriors { lengthscale: None, signal_variance: None, noise_variance: None };

    /// The prior on each of `dim` lengthscales: the one-input prior stretched by √d (its rate
    /// divided by √d, so its mean and mode grow as √d), as Hvarfner et al. (2024, "Vanilla
    /// Bayesian optimization performs great in high dimensions") scale theirs and BoTorch's
    /// `SingleTaskGP` has done since 0.12: the distance between two points of [0, 1]^d grows
    /// as √d, and a prior that does not follow it makes every pair of configurations nearly
    /// independent in many inputs (on NAS-Bench-201's 30 one-hot inputs, GP's Table 2 value
    /// fell from 0.41 to 0.14 with the unscaled prior; `docs/methods.md`).
    pub fn lengthscale_in(&self, dim: usize) -> Option<Gamma> {
        self.lengthscale.map(|g| Gamma { shape: g.shape, rate: g.rate / libm::sqrt(dim.max(1) as f64) })
    }

    /// The log prior density of `p`; its gradient is subtracted from `grad` (so that `grad`
    /// becomes the negative log posterior's).
    pub fn log_density(&self, p: &GpParams, grad: &mut [f64]) -> f64 {
        let dim = p.dim();
        let mut total = 0.0;
        let mut add = |prior: Option<Gamma>, i: usize| {
            if let Some(g) = prior {
                let (v, d) = g.at_log(p.0[i]);
                total += v;
                grad[i] -= d;
            }
        };
        let lengthscale = self.lengthscale_in(dim);
        for d in 0..dim {
            add(lengthscale, d);
        }
        add(self.signal_variance, dim);
        add(self.noise_variance, dim + 1);
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_gradient(x: &[Vec<f64>], y: &[f64], p: &GpParams) {
        let (_, g) = nll_and_grad(x, y, p).unwrap();
        for (i, &gi) in g.iter().enumerate() {
            let h = 1e-6;
            let (mut a, mut b) = (p.clone(), p.clone());
            a.0[i] += h;
            b.0[i] -= h;
            let fd = (nll_and_grad(x, y, &a).unwrap().0 - nll_and_grad(x, y, &b).unwrap().0) / (2.0 * h);
            assert!((fd - gi).abs() < 1e-5 * (1.0 + fd.abs()), "parameter {i}: analytic {gi} vs finite difference {fd}");
        }
    }

    #[test]
    fn the_dense_and_the_sparse_gradient_loops_give_the_same_bits() {
        // Points with zeros in some coordinates (both, one or neither of a pair), duplicates,
        // and one-hot rows, at lengthscales short and long.
        let mut rng = crate::optimizer::job_rng(3, "loops");
        use rand::Rng;
        let x: Vec<Vec<f64>> = (0..40)
            .map(|i| {
                (0..6)
                    .map(|d| match (i + d) % 4 {
                        0 => 0.0,
                        1 => 1.0,
                        _ => rng.random::<f64>(),
                    })
                    .collect()
            })
            .chain([vec![0.0; 6], vec![0.0; 6], vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
            .collect();
        let y: Vec<f64> = x.iter().map(|v| v.iter().sum::<f64>().sin()).collect();
        for log_l in [-4.0, -1.0, 0.5, 3.0] {
            let p = GpParams(vec![log_l, -0.3, 0.2, 1.0, -2.0, 0.0, 0.1, -3.0, 0.05]);
            let ws = &mut Workspace::default();
            let (dense, sparse) = (nll_and_grad_looping(&x, &y, &p, Some(true), ws), nll_and_grad_looping(&x, &y, &p, Some(false), ws));
            assert_eq!(bits(dense), bits(sparse), "log ℓ₁ = {log_l}");
        }
    }

    fn bits(r: Option<(f64, Vec<f64>)>) -> Option<(u64, Vec<u64>)> {
        r.map(|(v, g)| (v.to_bits(), g.iter().map(|g| g.to_bits()).collect()))
    }

    #[test]
    fn a_reused_workspace_gives_the_fresh_numbers_bit_for_bit() {
        let x: Vec<Vec<f64>> = (0..25).map(|i| (0..3).map(|d| ((i * (d + 2)) as f64 * 0.239) % 1.0).collect()).collect();
        let y: Vec<f64> = x.iter().map(|v| (4.0 * v[0]).cos() + v[1] - v[2] * v[2]).collect();
        let ws = &mut Workspace::default();
        // Growing, shrinking and growing again (once with a duplicated point at the smallest
        // noise), so stale buffers of every size are reused.
        for (n, noise) in [(25, -2.0), (8, -2.0), (25, -13.8), (17, -1.0), (25, -2.0)] {
            let (mut xs, ys) = (x[..n].to_vec(), &y[..n]);
            if noise < -10.0 {
                xs[3] = xs[2].clone();
            }
            let p = GpParams(vec![-0.7, 0.1, -1.2, 0.3, noise, 0.05]);
            let fresh = nll_and_grad_looping(&xs, ys, &p, None, &mut Workspace::default());
            assert!(fresh.is_some());
            assert_eq!(bits(nll_and_grad_looping(&xs, ys, &p, None, ws)), bits(fresh), "n = {n}");
        }
    }

    #[test]
    fn likelihood_gradient_matches_finite_differences() {
        let x: Vec<Vec<f64>> = (0..12).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0]).collect();
        let y: Vec<f64> = x.iter().map(|v| (6.0 * v[0]).sin() + 0.5 * v[1] * v[1]).collect();
        check_gradient(&x, &y, &GpParams(vec![(0.3f64).ln(), (0.8f64).ln(), (1.3f64).ln(), (0.05f64).ln(), 0.2]));
    }

    #[test]
    fn likelihood_gradient_matches_finite_differences_in_five_dimensions() {
        let x: Vec<Vec<f64>> = (0..30).map(|i| (0..5).map(|d| ((i * (d + 3)) as f64 * 0.171) % 1.0).collect()).collect();
        let y: Vec<f64> = x.iter().map(|v| v.iter().enumerate().map(|(d, t)| ((d + 1) as f64 * t).sin()).sum()).collect();
        check_gradient(&x, &y, &GpParams(vec![-1.0, -0.5, 0.0, 0.4, -1.5, 0.3, (0.02f64).ln(), -0.1]));
    }

    #[test]
    fn likelihood_gradient_matches_finite_differences_on_one_hot_inputs() {
        // Two categoricals with 3 levels each plus one continuous input, as the NAS encoding:
        // most coordinates zero, and pairs that share or differ in each category.
        let x: Vec<Vec<f64>> = (0..20)
            .map(|i| {
                let mut v = vec![0.0; 7];
                v[i % 3] = 1.0;
                v[3 + (i * 7 / 5) % 3] = 1.0;
                v[6] = (i as f64 * 0.29) % 1.0;
                v
            })
            .collect();
        let y: Vec<f64> = x.iter().map(|v| v[0] - 0.5 * v[4] + (3.0 * v[6]).sin()).collect();
        check_gradient(&x, &y, &GpParams(vec![0.2, -0.3, 0.5, 0.1, -0.6, 0.0, -0.8, 0.1, (0.03f64).ln(), 0.05]));
    }
}
