//! Gaussian-process regression with a Matérn-5/2 ARD kernel, constant mean and Gaussian
//! noise, its hyperparameters fitted by maximum a posteriori (MAP) estimation with analytic
//! gradients and box-constrained L-BFGS ([`crate::lbfgsb`]).
//!
//! k(x, x') = σ_f²·(1 + √5·r + 5r²/3)·exp(−√5·r), r² = Σ_d (x_d − x'_d)²/ℓ_d².
//! Hyperparameters live in log space (ℓ_d, σ_f², σ_n²) plus the constant mean c, each within
//! bounds. Robustness: Cholesky with jitter escalation (duplicates and near-constant targets).
//!
//! The fit is the copula paper's public reimplementation's (its GP and GCP fit BoTorch's
//! `SingleTaskGP` with `fit_gpytorch_model`): Gamma(3, 6) on each lengthscale — stretched by
//! √d for d inputs ([`HyperPriors::lengthscale_in`] says why) —, Gamma(2, 0.15) on the signal
//! variance (BoTorch's `get_matern_kernel_with_gamma_prior`), a constant mean,
//! inputs in [0, 1] and targets standardised (or ψ-warped) before the fit; but the noise is
//! Optuna's GPSampler's, Gamma(1.1, 30) with the variance at 10⁻⁶ or more, where the
//! reimplementation holds it at 10⁻³ or more ([`NOISE_FLOOR`] says why). Without priors,
//! maximum likelihood on few points slid to either end of the lengthscale's range from one
//! step to the next (lesson 1's flat line and shattered band). Starts: the default point
//! (ℓ = 0.5·√d, the prior's mean) and, when given, the previous fit's optimum (a run's last
//! iteration); each runs to convergence (the projected gradient at most [`FIT_PGTOL`], as
//! Optuna's GPSampler stops) and the more probable wins. `docs/methods.md` has the choice and
//! its sources.
//!
//! Files: `kernel` (Matérn-5/2 on sparse inputs), `likelihood` (NLL, gradient, priors),
//! `linalg` (Cholesky and solves), `predict` (posterior and the acquisition's argmax over
//! candidates), `acquisition` (log-EI with its gradient in x and its continuous search),
//! `joint` (the joint posterior over several points and a sample path), `exp_batch` (exp
//! over slices).

use super::error::{EngineError, Result};
use super::lbfgsb;

mod acquisition;
pub(crate) mod blocked;
mod exp_batch;
mod joint;
mod kernel;
mod likelihood;
pub(crate) mod linalg;
mod predict;
pub(crate) use predict::{argmax_by_bounds, BOUND_ROWS_SHARE};

pub(crate) use exp_batch::exp_in_place;
use kernel::{kernel_matrix, Kernel, ScaledPoints};
pub use likelihood::nll_and_grad;
use likelihood::{factor, nll_from_factor, Problem};
pub use likelihood::{Gamma, HyperPriors};
pub(crate) use linalg::solve_upper_t;
pub use linalg::{cholesky, cholesky_into, dot, dot4, inverse_from_cholesky, solve_lower};

/// GP hyperparameters: `[log ℓ_1..log ℓ_d, log σ_f², log σ_n², c]`.
#[derive(Debug, Clone, PartialEq)]
pub struct GpParams(pub Vec<f64>);

impl GpParams {
    /// Input dimension.
    pub fn dim(&self) -> usize {
        self.0.len() - 3
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

/// Bounds, priors and the fit's stopping rule (for inputs in [0, 1] and targets of unit scale).
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
    /// Priors on ℓ, σ_f² and σ_n².
    pub priors: HyperPriors,
    /// Most L-BFGS iterations per start.
    pub max_iters: usize,
}

/// BoTorch's lengthscale prior in `SingleTaskGP` (≤ 0.11, the copula reimplementation's), for
/// one input; d inputs stretch it by √d ([`HyperPriors::lengthscale_in`]).
pub const LENGTHSCALE_PRIOR: Gamma = Gamma { shape: 3.0, rate: 6.0 };
/// BoTorch's output-scale prior there.
pub const SIGNAL_VARIANCE_PRIOR: Gamma = Gamma { shape: 2.0, rate: 0.15 };
/// Optuna's GPSampler's prior on the noise variance (`optuna/_gp/prior.py`).
pub const NOISE_VARIANCE_PRIOR: Gamma = Gamma { shape: 1.1, rate: 30.0 };
/// Optuna's GPSampler's noise floor (`DEFAULT_MINIMUM_NOISE_VAR`). The copula
/// reimplementation holds the noise variance at 10⁻³ or more; on standardised targets that
/// blurs everything below about 3 % of their spread, and on deterministic functions our GP
/// then ended 3–8× behind GPSampler in final regret (Branin, the study-shaped function).
pub const NOISE_FLOOR: f64 = 1e-6;
/// The fit stops once the largest entry of the projected gradient of the negative log
/// posterior (in log parameters) is at most this: Optuna's GPSampler's `gtol`.
pub const FIT_PGTOL: f64 = 1e-2;

impl Default for GpSettings {
    fn default() -> Self {
        GpSettings {
            lengthscale: (1e-2, 1e2),
            signal_variance: (1e-3, 1e2),
            noise_variance: (NOISE_FLOOR, 1.0),
            mean: (-5.0, 5.0),
            priors: HyperPriors {
                lengthscale: Some(LENGTHSCALE_PRIOR),
                signal_variance: Some(SIGNAL_VARIANCE_PRIOR),
                noise_variance: Some(NOISE_VARIANCE_PRIOR),
            },
            max_iters: 200,
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
    /// ℓ = 0.5·√d (the mean of the lengthscale prior for d inputs, [`HyperPriors::lengthscale_in`]),
    /// σ_f² = 1, σ_n² = 10⁻², c = 0; each clamped into its bounds.
    fn default_start(&self, dim: usize) -> GpParams {
        let mut p = vec![libm::log(0.5 * libm::sqrt(dim.max(1) as f64)); dim];
        p.push(0.0);
        p.push(libm::log(1e-2));
        p.push(0.0);
        for (v, (lo, hi)) in p.iter_mut().zip(self.bounds(dim)) {
            *v = v.clamp(lo, hi);
        }
        GpParams(p)
    }
}

/// A GP conditioned on data, ready to predict.
#[derive(Debug, Clone)]
pub struct FittedGp {
    points: ScaledPoints,
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
        let points = ScaledPoints::new(x, &kernel);
        let chol = factor(&kernel_matrix(&points, &kernel, false).0, n, &params).ok_or_else(|| EngineError::Method {
            method: "GP".into(),
            message: "covariance matrix not positive definite even with jitter".into(),
        })?;
        let resid: Vec<f64> = y.iter().map(|v| v - params.mean()).collect();
        let mut alpha = resid.clone();
        solve_lower(&chol, n, &mut alpha);
        solve_upper_t(&chol, n, &mut alpha);
        // The NLL from the factor at hand (O(n²)); nll_and_grad would add an O(n³) inverse.
        let nll = nll_from_factor(&chol, n, &resid, &alpha);
        Ok(FittedGp { points, params, kernel, chol, alpha, nll })
    }

    /// Fits the hyperparameters (MAP), then conditions on the data.
    pub fn fit(x: &[Vec<f64>], y: &[f64], settings: &GpSettings) -> Result<Self> {
        Self::fit_from(x, y, settings, None)
    }

    /// As [`FittedGp::fit`], with `previous` (e.g. the last iteration's optimum) as a second
    /// start beside the default one.
    pub fn fit_from(x: &[Vec<f64>], y: &[f64], settings: &GpSettings, previous: Option<&GpParams>) -> Result<Self> {
        if x.is_empty() || x.len() != y.len() {
            return Err(EngineError::Method {
                method: "GP".into(),
                message: format!("cannot fit {} inputs to {} targets", x.len(), y.len()),
            });
        }
        let dim = x[0].len();
        let bounds = settings.bounds(dim);
        let mut problem = Problem::new(x, y, &settings.priors);
        let mut starts = vec![settings.default_start(dim)];
        starts.extend(previous.filter(|p| p.0.len() == dim + 3 && **p != starts[0]).cloned());
        let stop = lbfgsb::Settings { pgtol: FIT_PGTOL, max_iters: settings.max_iters, ..lbfgsb::Settings::default() };
        let mut best: Option<lbfgsb::Minimum> = None;
        for start in starts {
            let found = lbfgsb::minimise(|theta, grad| problem.evaluate(theta, grad), &start.0, &bounds, &stop);
            if let Some(m) = found {
                if best.as_ref().is_none_or(|b| m.value < b.value) {
                    best = Some(m);
                }
            }
        }
        let params = best.map_or_else(|| settings.default_start(dim), |m| GpParams(m.x));
        Self::with_params(x, y, params)
    }

    /// [`FittedGp::fit_from`] with the hyperparameters fitted on the first `told` observations
    /// only and the GP conditioned on all of them: the observations after `told` are lies
    /// (configurations handed out and not yet told, `engine::suggest`), which must move the
    /// posterior where they stand without bending the kernel — a lie at the worst value beside
    /// the best ones would otherwise shrink the lengthscales or raise the noise for every
    /// prediction.
    pub fn fit_told(x: &[Vec<f64>], y: &[f64], told: usize, settings: &GpSettings, previous: Option<&GpParams>) -> Result<Self> {
        if told >= x.len() || told == 0 {
            return Self::fit_from(x, y, settings, previous);
        }
        let on_told = Self::fit_from(&x[..told], &y[..told], settings, previous)?;
        Self::with_params(x, y, on_told.params)
    }

    /// The fitted hyperparameters.
    pub fn params(&self) -> &GpParams {
        &self.params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> (Vec<Vec<f64>>, Vec<f64>) {
        let x: Vec<Vec<f64>> = (0..12).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0]).collect();
        let y = x.iter().map(|v| (6.0 * v[0]).sin() + 0.5 * v[1] * v[1]).collect();
        (x, y)
    }

    /// The negative log posterior a fit minimises, at `p`.
    fn objective(x: &[Vec<f64>], y: &[f64], settings: &GpSettings, p: &GpParams) -> f64 {
        let mut grad = vec![0.0; p.0.len()];
        Problem::new(x, y, &settings.priors).evaluate(&p.0, &mut grad).unwrap()
    }

    #[test]
    fn posterior_matches_hand_computed_two_point_case() {
        // Two 1-D points, ℓ = 1, σ_f² = 1, σ_n² = 0.1, c = 0. At x* = 0.5:
        // k(0, 0.5) = k(1, 0.5) = m(0.5) with m(r) = (1 + √5 r + 5r²/3)e^{−√5 r}; k(0,1) = m(1).
        use kernel::SQRT5;
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
    fn a_fit_is_never_less_probable_than_any_of_its_starts() {
        let (x, y) = data();
        let settings = GpSettings::default();
        let previous = FittedGp::fit(&x[..8], &y[..8], &settings).unwrap();
        let refit = FittedGp::fit_from(&x, &y, &settings, Some(previous.params())).unwrap();
        let at = |p: &GpParams| objective(&x, &y, &settings, p);
        assert!(at(refit.params()) <= at(previous.params()) + 1e-9);
        assert!(at(refit.params()) <= at(&settings.default_start(2)));
    }

    #[test]
    fn fitting_improves_the_posterior_and_interpolates() {
        let (x, y) = data();
        let settings = GpSettings::default();
        let gp = FittedGp::fit(&x, &y, &settings).unwrap();
        let at = |p: &GpParams| objective(&x, &y, &settings, p);
        assert!(at(gp.params()) < at(&settings.default_start(2)) - 1.0);
        let (m, _) = gp.predict(&x[3]);
        assert!((m - y[3]).abs() < 0.1, "{m} vs {}", y[3]);
    }

    #[test]
    fn the_fit_ends_where_the_posterior_is_flat() {
        // The MAP point: the projected gradient of the negative log posterior is within the
        // fit's tolerance, checked by central differences of the objective itself.
        let (x, y) = data();
        let settings = GpSettings::default();
        let gp = FittedGp::fit(&x, &y, &settings).unwrap();
        let bounds = settings.bounds(2);
        for (i, &(lo, hi)) in bounds.iter().enumerate() {
            let (mut a, mut b) = (gp.params().clone(), gp.params().clone());
            let h = 1e-6;
            a.0[i] += h;
            b.0[i] -= h;
            let slope = (objective(&x, &y, &settings, &a) - objective(&x, &y, &settings, &b)) / (2.0 * h);
            let v = gp.params().0[i];
            let projected = ((v - slope).clamp(lo, hi) - v).abs();
            assert!(projected < 2.0 * FIT_PGTOL, "parameter {i} at {v}: slope {slope}");
        }
    }

    #[test]
    fn predicting_many_points_gives_the_single_point_numbers_bit_for_bit() {
        let (x, y) = data();
        let gp = FittedGp::fit(&x, &y, &GpSettings::default()).unwrap();
        let candidates: Vec<Vec<f64>> = (0..21).map(|i| vec![(i as f64 * 0.13) % 1.0, (i as f64 * 0.29) % 1.0]).collect();
        // An odd subset, so blocks are partly filled and points sit in different lanes.
        let which: Vec<usize> = (0..21).rev().step_by(2).chain([4, 4]).collect();
        for (&i, got) in which.iter().zip(gp.predict_many(&candidates, &which)) {
            assert_eq!(got, gp.predict(&candidates[i]), "candidate {i}");
            assert_eq!(got.0, gp.predict_mean(&candidates[i]));
        }
    }

    #[test]
    fn duplicates_and_constant_targets_are_survived() {
        let x = vec![vec![0.2, 0.2]; 6];
        let y = vec![1.0; 6];
        let gp = FittedGp::fit(&x, &y, &GpSettings::default()).unwrap();
        let (m, v) = gp.predict(&[0.2, 0.2]);
        assert!(m.is_finite() && v.is_finite() && v > 0.0);
    }

    #[test]
    fn bounds_collapsed_to_one_value_fix_that_parameter() {
        let (x, y) = data();
        let settings = GpSettings { lengthscale: (0.3, 0.3), ..GpSettings::default() };
        let gp = FittedGp::fit(&x, &y, &settings).unwrap();
        let p = gp.params();
        assert!(p.0[..2].iter().all(|l| (libm::exp(*l) - 0.3).abs() < 1e-12), "{:?}", p.0);
        assert!(p.0.iter().all(|v| v.is_finite()));
        // The other parameters are still fitted: at least as probable as the default start.
        assert!(objective(&x, &y, &settings, p) <= objective(&x, &y, &settings, &settings.default_start(2)) + 1e-9);
    }
}
