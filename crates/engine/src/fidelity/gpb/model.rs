//! The Gaussian process with budgets (GPB; paper 003, §2, Eq. 1–3):
//!
//! y(x, b) = g(x) + h(x, b),  E g(x) = f1(x)ᵀβ1,  E h(x, b) = f2(b)ᵀβ2,
//! Cov(g(x), g(x')) = σ²·Kθ1(x, x'),  Cov(h(x, b), h(x', b')) = τ²·Kθ2(x, x')·k_b(b, b'),
//! Kθ(x, x') = exp(−Σj θj (xj − x'j)²)  (Eq. 3).
//!
//! Our choices where the paper leaves room (all stated in `docs/methods.md`):
//! - f1(x) = (1, x1, …, xp) (linear; the paper's §3.3 names linear or quadratic f) and
//!   f2(b) = 1/b, which tends to 0 as b → ∞ as §2 requires.
//! - k_b is either `max(b, b')^(−h)` (§3.2, the default: it is the form the design theory
//!   uses, and it makes h's variance vanish with the budget so that y(x, b) → g(x) in mean
//!   and variance, the paper's stated intent) or the RBF `exp(−(b − b')²/(2h²))` of Eq. 2.
//! - β = (β1, β2) by generalised least squares; σ² profiled out in closed form; θ1, θ2,
//!   the ratio τ²/σ² and h by maximum likelihood inside boxes (θ ∈ [40, 1000] and
//!   τ²/σ² ∈ [0.03, 0.07] as in §4.1; h ∈ [0.1, 3] for the power form, [0.05, 2] in scaled
//!   budget units for the RBF — the paper gives no range for h).
//! - The model has no noise term (the paper's has none; h absorbs what a budget adds); a
//!   relative jitter of 1e-8 on the diagonal keeps the correlation matrix factorable.
//!
//! The likelihood is the profile likelihood of universal kriging (e.g. Santner, Williams,
//! Notz, *The Design and Analysis of Computer Experiments*, §3.3):
//! −2 log L ∝ n·log σ̂² + log|R|, σ̂² = (y − Fβ̂)ᵀR⁻¹(y − Fβ̂)/n, and its gradient
//! ∂/∂φ = tr((R⁻¹ − ααᵀ/σ̂²)·∂R/∂φ), α = R⁻¹(y − Fβ̂) (β̂'s own derivative drops out because
//! β̂ minimises the quadratic form).

use argmin::core::{CostFunction, Error as ArgminError, Gradient};
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};
use crate::lbfgs::minimise;
use crate::optimizer::MethodRng;
use crate::smooth::sigmoid;

/// The budget correlation k_b(b, b').
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum BudgetKernel {
    /// max(b, b')^(−h) (§3.2): h's variance falls with the budget. The default.
    #[default]
    Power,
    /// exp(−(b − b')²/(2h²)) (Eq. 2): a stationary RBF in the budget.
    Rbf,
}

impl BudgetKernel {
    /// k_b(b, b').
    pub fn corr(self, h: f64, b1: f64, b2: f64) -> f64 {
        match self {
            BudgetKernel::Power => libm::pow(b1.max(b2), -h),
            BudgetKernel::Rbf => libm::exp(-(b1 - b2) * (b1 - b2) / (2.0 * h * h)),
        }
    }

    /// ∂k_b/∂h.
    fn corr_dh(self, h: f64, b1: f64, b2: f64) -> f64 {
        match self {
            BudgetKernel::Power => {
                let m = b1.max(b2);
                -libm::log(m) * libm::pow(m, -h)
            }
            BudgetKernel::Rbf => {
                let d2 = (b1 - b2) * (b1 - b2);
                libm::exp(-d2 / (2.0 * h * h)) * d2 / (h * h * h)
            }
        }
    }

    /// The range of h searched by maximum likelihood.
    pub fn h_range(self) -> (f64, f64) {
        match self {
            BudgetKernel::Power => (0.1, 3.0),
            BudgetKernel::Rbf => (0.05, 2.0),
        }
    }
}

/// The model's settings: budget kernel, parameter boxes, restarts.
#[derive(Debug, Clone, PartialEq)]
pub struct GpbSettings {
    /// The budget correlation.
    pub kernel: BudgetKernel,
    /// Box of every θ1j and θ2j (§4.1: [40, 1000]).
    pub theta: (f64, f64),
    /// Box of τ²/σ² (§4.1: [0.03, 0.07]).
    pub ratio: (f64, f64),
    /// Box of h.
    pub h: (f64, f64),
    /// L-BFGS starts of the likelihood fit (the first at the box centre, the others random).
    pub starts: usize,
    /// L-BFGS iterations per start.
    pub iterations: u64,
}

impl Default for GpbSettings {
    fn default() -> Self {
        GpbSettings::with_kernel(BudgetKernel::Power)
    }
}

impl GpbSettings {
    /// The paper's boxes with `kernel`'s range of h, 3 starts of at most 50 iterations.
    pub fn with_kernel(kernel: BudgetKernel) -> Self {
        GpbSettings { kernel, theta: (40.0, 1000.0), ratio: (0.03, 0.07), h: kernel.h_range(), starts: 3, iterations: 50 }
    }
}

/// Covariance parameters: θ1, θ2 (one per input dimension), τ²/σ² and h.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CovParams {
    /// Inverse squared length scales of g's kernel.
    pub theta1: Vec<f64>,
    /// Inverse squared length scales of h's kernel.
    pub theta2: Vec<f64>,
    /// τ²/σ².
    pub ratio: f64,
    /// The budget kernel's parameter.
    pub h: f64,
}

impl CovParams {
    /// The nominal values at which designs are computed (locally optimal designs, §3.2):
    /// the geometric centre of the θ box, the centre of the ratio box, and h = 1.
    pub fn nominal(dim: usize, settings: &GpbSettings) -> Self {
        let theta = (settings.theta.0 * settings.theta.1).sqrt();
        CovParams { theta1: vec![theta; dim], theta2: vec![theta; dim], ratio: 0.5 * (settings.ratio.0 + settings.ratio.1), h: 1.0 }
    }

    /// θ1, θ2, ratio, h as one vector (the order of the gradient).
    pub fn to_vec(&self) -> Vec<f64> {
        self.theta1.iter().chain(&self.theta2).copied().chain([self.ratio, self.h]).collect()
    }

    /// Inverse of [`CovParams::to_vec`].
    pub fn from_vec(v: &[f64]) -> Self {
        let d = (v.len() - 2) / 2;
        CovParams { theta1: v[..d].to_vec(), theta2: v[d..2 * d].to_vec(), ratio: v[2 * d], h: v[2 * d + 1] }
    }
}

/// Relative jitter on the correlation matrix's diagonal.
pub const JITTER: f64 = 1e-8;

/// Gaussian correlation Kθ(x, x') = exp(−Σ θj (xj − x'j)²) (Eq. 3).
pub fn gaussian_corr(theta: &[f64], a: &[f64], b: &[f64]) -> f64 {
    libm::exp(-theta.iter().zip(a).zip(b).map(|((t, u), v)| t * (u - v) * (u - v)).sum::<f64>())
}

/// The regressors f(x, b) = (1, x1, …, xp, 1/b).
pub fn regressors(x: &[f64], b: f64) -> Vec<f64> {
    std::iter::once(1.0).chain(x.iter().copied()).chain([1.0 / b]).collect()
}

/// The regressors of the limit b → ∞: (1, x1, …, xp, 0).
pub fn limit_regressors(x: &[f64]) -> Vec<f64> {
    std::iter::once(1.0).chain(x.iter().copied()).chain([0.0]).collect()
}

/// Correlation of y at (x1, b1) and (x2, b2) in units of σ²: Kθ1 + (τ²/σ²)·Kθ2·k_b.
pub fn corr(kernel: BudgetKernel, p: &CovParams, x1: &[f64], b1: f64, x2: &[f64], b2: f64) -> f64 {
    gaussian_corr(&p.theta1, x1, x2) + p.ratio * gaussian_corr(&p.theta2, x1, x2) * kernel.corr(p.h, b1, b2)
}

/// The correlation matrix R of points (x, b) (with the jitter).
pub fn corr_matrix(kernel: BudgetKernel, p: &CovParams, x: &[Vec<f64>], b: &[f64]) -> DMatrix<f64> {
    let n = x.len();
    let mut r = DMatrix::zeros(n, n);
    for i in 0..n {
        for j in 0..=i {
            let v = corr(kernel, p, &x[i], b[i], &x[j], b[j]);
            r[(i, j)] = v;
            r[(j, i)] = v;
        }
        r[(i, i)] *= 1.0 + JITTER;
    }
    r
}

/// The regression matrix F (one row f(xi, bi)ᵀ per point).
pub fn regression_matrix(x: &[Vec<f64>], b: &[f64]) -> DMatrix<f64> {
    let k = x.first().map_or(2, |v| v.len() + 2);
    DMatrix::from_fn(x.len(), k, |i, j| regressors(&x[i], b[i])[j])
}

/// True when the budgets are not all equal: only then is β2 identifiable. With one budget
/// (e.g. a GP at the full budget) f2(b) is a constant, collinear with f1's intercept, and
/// the model drops it (β2 is reported as 0).
pub fn identifies_budget_term(b: &[f64]) -> bool {
    b.iter().any(|v| *v != b[0])
}

/// F without the budget column when the budget term is not identifiable.
fn fitted_regression(x: &[Vec<f64>], b: &[f64]) -> DMatrix<f64> {
    let f = regression_matrix(x, b);
    if identifies_budget_term(b) {
        f
    } else {
        let k = f.ncols();
        f.columns(0, k - 1).into_owned()
    }
}

/// The GLS solution at fixed correlation: β̂, the residual's R⁻¹(y − Fβ̂), σ̂², and what
/// prediction needs.
struct Gls {
    chol: Cholesky<f64, Dyn>,
    rinv_f: DMatrix<f64>,
    ftrf_inv: DMatrix<f64>,
    beta: DVector<f64>,
    alpha: DVector<f64>,
    sigma2: f64,
}

fn gls(r: DMatrix<f64>, f: &DMatrix<f64>, y: &DVector<f64>) -> Option<Gls> {
    let n = y.len();
    if n < f.ncols() {
        return None;
    }
    let chol = Cholesky::new(r)?;
    let rinv_f = chol.solve(f);
    let ftrf_inv = (f.transpose() * &rinv_f).try_inverse()?;
    let beta = &ftrf_inv * (rinv_f.transpose() * y);
    let resid = y - f * &beta;
    let alpha = chol.solve(&resid);
    let sigma2 = (resid.dot(&alpha) / n as f64).max(1e-300);
    Some(Gls { chol, rinv_f, ftrf_inv, beta, alpha, sigma2 })
}

/// Half the profile −2·log-likelihood, ½(n·log σ̂² + log|R|), and its gradient with respect
/// to [`CovParams::to_vec`]. `None` when R or FᵀR⁻¹F is singular.
pub fn profile_nll(kernel: BudgetKernel, p: &CovParams, x: &[Vec<f64>], b: &[f64], y: &[f64]) -> Option<(f64, Vec<f64>)> {
    let n = x.len();
    let d = p.theta1.len();
    let r = corr_matrix(kernel, p, x, b);
    let f = fitted_regression(x, b);
    let yv = DVector::from_column_slice(y);
    let g = gls(r, &f, &yv)?;
    let log_det: f64 = g.chol.l().diagonal().iter().map(|v| 2.0 * libm::log(*v)).sum();
    let nll = 0.5 * (n as f64 * libm::log(g.sigma2) + log_det);
    // W = R⁻¹ − ααᵀ/σ̂²; ∂nll/∂φ = ½·tr(W·∂R/∂φ) = ½·Σ_ij W_ij ∂R_ij.
    let mut w = g.chol.inverse();
    w -= &g.alpha * g.alpha.transpose() / g.sigma2;
    let mut grad = vec![0.0; 2 * d + 2];
    for i in 0..n {
        for j in 0..n {
            let wij = 0.5 * w[(i, j)] * if i == j { 1.0 + JITTER } else { 1.0 };
            if wij == 0.0 {
                continue;
            }
            let k1 = gaussian_corr(&p.theta1, &x[i], &x[j]);
            let k2 = gaussian_corr(&p.theta2, &x[i], &x[j]);
            let kb = kernel.corr(p.h, b[i], b[j]);
            for t in 0..d {
                let d2 = (x[i][t] - x[j][t]) * (x[i][t] - x[j][t]);
                grad[t] -= wij * d2 * k1;
                grad[d + t] -= wij * d2 * p.ratio * k2 * kb;
            }
            grad[2 * d] += wij * k2 * kb;
            grad[2 * d + 1] += wij * p.ratio * k2 * kernel.corr_dh(p.h, b[i], b[j]);
        }
    }
    Some((nll, grad))
}

/// Box of each entry of [`CovParams::to_vec`] (θ on a log scale).
fn boxes(settings: &GpbSettings, d: usize) -> Vec<(f64, f64, bool)> {
    let mut v = vec![(settings.theta.0, settings.theta.1, true); 2 * d];
    v.push((settings.ratio.0, settings.ratio.1, false));
    v.push((settings.h.0, settings.h.1, false));
    v
}

/// Maps an unconstrained vector into the boxes (sigmoid, log-scale for θ) with the
/// derivative of each entry.
fn to_box(u: &[f64], boxes: &[(f64, f64, bool)]) -> (Vec<f64>, Vec<f64>) {
    u.iter()
        .zip(boxes)
        .map(|(&u, &(lo, hi, log))| {
            let s = sigmoid(u);
            if log {
                let v = lo * libm::exp(s * libm::log(hi / lo));
                (v, v * libm::log(hi / lo) * s * (1.0 - s))
            } else {
                (lo + (hi - lo) * s, (hi - lo) * s * (1.0 - s))
            }
        })
        .unzip()
}

/// A point (unconstrained), the likelihood there and its gradient.
type Evaluation = (Vec<f64>, f64, Vec<f64>);

struct Likelihood<'a> {
    kernel: BudgetKernel,
    boxes: Vec<(f64, f64, bool)>,
    x: &'a [Vec<f64>],
    b: &'a [f64],
    y: &'a [f64],
    /// The last evaluation: argmin asks for the cost and the gradient at the same point
    /// separately, and one evaluation gives both.
    last: std::cell::RefCell<Option<Evaluation>>,
}

impl Likelihood<'_> {
    fn eval(&self, u: &[f64]) -> (f64, Vec<f64>) {
        if let Some((at, value, grad)) = self.last.borrow().as_ref() {
            if at.as_slice() == u {
                return (*value, grad.clone());
            }
        }
        let (v, dv) = to_box(u, &self.boxes);
        let (value, grad) = match profile_nll(self.kernel, &CovParams::from_vec(&v), self.x, self.b, self.y) {
            Some((nll, g)) => (nll, g.iter().zip(&dv).map(|(a, b)| a * b).collect()),
            None => (f64::INFINITY, vec![0.0; u.len()]),
        };
        *self.last.borrow_mut() = Some((u.to_vec(), value, grad.clone()));
        (value, grad)
    }
}

impl CostFunction for Likelihood<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> std::result::Result<f64, ArgminError> {
        Ok(self.eval(u).0)
    }
}

impl Gradient for Likelihood<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> std::result::Result<Vec<f64>, ArgminError> {
        Ok(self.eval(u).1)
    }
}

/// A fitted GPB: parameters, β̂, σ̂² and what prediction needs.
pub struct Gpb {
    kernel: BudgetKernel,
    params: CovParams,
    x: Vec<Vec<f64>>,
    b: Vec<f64>,
    gls: Gls,
}

impl std::fmt::Debug for Gpb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpb")
            .field("params", &self.params)
            .field("beta", &self.gls.beta.as_slice())
            .field("sigma2", &self.gls.sigma2)
            .finish()
    }
}

fn check(x: &[Vec<f64>], b: &[f64], y: &[f64]) -> Result<()> {
    let d = x.first().map_or(0, Vec::len);
    if x.len() != b.len() || x.len() != y.len() || x.iter().any(|v| v.len() != d) {
        return Err(EngineError::Spec("GPB: inputs, budgets and values differ in length".into()));
    }
    let k = d + 1 + identifies_budget_term(b) as usize;
    if x.len() < k {
        return Err(EngineError::Spec(format!("GPB needs at least {k} observations in {d} dimensions (has {})", x.len())));
    }
    if b.iter().any(|&v| !(v > 0.0 && v.is_finite())) || y.iter().any(|v| !v.is_finite()) {
        return Err(EngineError::Spec("GPB: budgets must be positive and values finite".into()));
    }
    Ok(())
}

impl Gpb {
    /// Conditions the model on (x, b, y) at fixed covariance parameters: β̂ and σ̂² by GLS.
    pub fn condition(kernel: BudgetKernel, params: CovParams, x: Vec<Vec<f64>>, b: Vec<f64>, y: &[f64]) -> Result<Gpb> {
        check(&x, &b, y)?;
        let r = corr_matrix(kernel, &params, &x, &b);
        let f = fitted_regression(&x, &b);
        let gls = gls(r, &f, &DVector::from_column_slice(y))
            .ok_or_else(|| EngineError::Method { method: "GPB".into(), message: "singular correlation or regression matrix".into() })?;
        Ok(Gpb { kernel, params, x, b, gls })
    }

    /// Fits the covariance parameters by maximum likelihood inside the settings' boxes (the
    /// best of `settings.starts` L-BFGS runs), then conditions on the data.
    pub fn fit(settings: &GpbSettings, x: Vec<Vec<f64>>, b: Vec<f64>, y: &[f64], rng: &mut MethodRng) -> Result<Gpb> {
        check(&x, &b, y)?;
        let d = x[0].len();
        let problem = Likelihood { kernel: settings.kernel, boxes: boxes(settings, d), x: &x, b: &b, y, last: Default::default() };
        let mut best: Option<(f64, Vec<f64>)> = None;
        for start in 0..settings.starts.max(1) {
            let u0: Vec<f64> = (0..2 * d + 2).map(|_| if start == 0 { 0.0 } else { rng.random_range(-2.0..2.0) }).collect();
            let u =
                minimise(Likelihood { boxes: problem.boxes.clone(), last: Default::default(), ..problem }, u0.clone(), settings.iterations)
                    .unwrap_or(u0);
            let value = problem.eval(&u).0;
            if value.is_finite() && best.as_ref().is_none_or(|(v, _)| value < *v) {
                best = Some((value, u));
            }
        }
        let params = match best {
            Some((_, u)) => CovParams::from_vec(&to_box(&u, &problem.boxes).0),
            None => CovParams::nominal(d, settings),
        };
        Gpb::condition(settings.kernel, params, x, b, y)
    }

    /// The covariance parameters.
    pub fn params(&self) -> &CovParams {
        &self.params
    }

    /// β̂ = (β1, β2) by GLS (β2 = 0 when the data has a single budget).
    pub fn beta(&self) -> Vec<f64> {
        let mut beta = self.gls.beta.as_slice().to_vec();
        beta.resize(self.x[0].len() + 2, 0.0);
        beta
    }

    /// σ̂².
    pub fn sigma2(&self) -> f64 {
        self.gls.sigma2
    }

    /// Number of observations.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True without observations (never: fitting needs some).
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Universal-kriging mean and variance from the cross-correlations `c` with the data, the
    /// point's regressors `f` and its prior correlation `c0`.
    fn krige(&self, c: DVector<f64>, mut f: Vec<f64>, c0: f64) -> (f64, f64) {
        f.truncate(self.gls.beta.len());
        let f = DVector::from_vec(f);
        let mean = f.dot(&self.gls.beta) + c.dot(&self.gls.alpha);
        let rinv_c = self.gls.chol.solve(&c);
        let u = &f - self.gls.rinv_f.transpose() * &c;
        let var = self.gls.sigma2 * (c0 - c.dot(&rinv_c) + u.dot(&(&self.gls.ftrf_inv * &u)));
        (mean, var.max(0.0))
    }

    /// Posterior mean and variance of y(x, b).
    pub fn predict(&self, x: &[f64], b: f64) -> (f64, f64) {
        let c =
            DVector::from_iterator(self.x.len(), self.x.iter().zip(&self.b).map(|(xi, &bi)| corr(self.kernel, &self.params, x, b, xi, bi)));
        self.krige(c, regressors(x, b), 1.0 + self.params.ratio * self.kernel.corr(self.params.h, b, b))
    }

    /// Posterior mean and variance of the limit b → ∞, g(x): the target of the optimisation.
    pub fn predict_limit(&self, x: &[f64]) -> (f64, f64) {
        let c = DVector::from_iterator(self.x.len(), self.x.iter().map(|xi| gaussian_corr(&self.params.theta1, x, xi)));
        self.krige(c, limit_regressors(x), 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn data(n: usize, d: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>, Vec<f64>) {
        let mut rng = MethodRng::seed_from_u64(seed);
        let x: Vec<Vec<f64>> = (0..n).map(|_| (0..d).map(|_| rng.random_range(0.0..1.0)).collect()).collect();
        let b: Vec<f64> = (0..n).map(|i| [0.5, 2.0 / 3.0, 1.0][i % 3]).collect();
        let y = x.iter().zip(&b).map(|(x, b)| libm::sin(6.0 * x[0]) + x.iter().sum::<f64>() + 0.3 / b).collect();
        (x, b, y)
    }

    #[test]
    fn likelihood_gradient_matches_finite_differences() {
        for kernel in [BudgetKernel::Power, BudgetKernel::Rbf] {
            let (x, b, y) = data(12, 2, 1);
            let p = CovParams { theta1: vec![45.0, 60.0], theta2: vec![50.0, 70.0], ratio: 0.05, h: 0.8 };
            let (_, grad) = profile_nll(kernel, &p, &x, &b, &y).unwrap();
            let v = p.to_vec();
            for k in 0..v.len() {
                let step = 1e-6 * v[k].abs().max(1e-3);
                let at = |s: f64| {
                    let mut w = v.clone();
                    w[k] += s;
                    profile_nll(kernel, &CovParams::from_vec(&w), &x, &b, &y).unwrap().0
                };
                let fd = (at(step) - at(-step)) / (2.0 * step);
                assert!((fd - grad[k]).abs() <= 1e-5 * fd.abs().max(1e-3), "{kernel:?} parameter {k}: fd {fd}, analytic {}", grad[k]);
            }
        }
    }

    #[test]
    fn gls_beta_matches_the_closed_form_on_independent_points() {
        // Far-apart points (θ at 1000): R ≈ diag(1 + ratio·b^-h), so β̂ is weighted least squares.
        let x = vec![vec![0.0], vec![0.5], vec![1.0], vec![0.25]];
        let b = vec![1.0, 0.5, 1.0, 0.5];
        let y = vec![1.0, 3.0, 2.0, 2.5];
        let p = CovParams { theta1: vec![1e6], theta2: vec![1e6], ratio: 0.05, h: 1.0 };
        let model = Gpb::condition(BudgetKernel::Power, p, x.clone(), b.clone(), &y).unwrap();
        // Weighted normal equations by hand.
        let w: Vec<f64> = b.iter().map(|b| 1.0 / (1.0 + 0.05 / b)).collect();
        let f: Vec<Vec<f64>> = x.iter().zip(&b).map(|(x, b)| regressors(x, *b)).collect();
        let a = DMatrix::from_fn(3, 3, |r, c| (0..4).map(|i| w[i] * f[i][r] * f[i][c]).sum::<f64>());
        let rhs = DVector::from_fn(3, |r, _| (0..4).map(|i| w[i] * f[i][r] * y[i]).sum::<f64>());
        let beta = a.try_inverse().unwrap() * rhs;
        for (got, want) in model.beta().iter().zip(beta.iter()) {
            assert!((got - want).abs() < 1e-6, "{:?} vs {beta}", model.beta());
        }
    }

    #[test]
    fn the_fit_stays_in_the_paper_boxes_and_interpolates() {
        let (x, b, y) = data(15, 1, 3);
        let settings = GpbSettings::default();
        let model = Gpb::fit(&settings, x.clone(), b.clone(), &y, &mut MethodRng::seed_from_u64(0)).unwrap();
        let p = model.params();
        assert!(p.theta1.iter().chain(&p.theta2).all(|t| (40.0..=1000.0).contains(t)), "{p:?}");
        assert!((0.03..=0.07).contains(&p.ratio) && (0.1..=3.0).contains(&p.h), "{p:?}");
        for i in 0..x.len() {
            let (m, v) = model.predict(&x[i], b[i]);
            assert!((m - y[i]).abs() < 1e-3 && v < 1e-4 * model.sigma2(), "point {i}: {m} vs {}, var {v}", y[i]);
        }
        // Far from every point, the limit prediction falls back to the trend f1(x)ᵀβ1.
        let (m, _) = model.predict_limit(&[2.0]);
        let beta = model.beta();
        assert!((m - (beta[0] + 2.0 * beta[1])).abs() < 1e-9);
    }

    #[test]
    fn nalgebra_products_are_sums_in_order_of_plain_products() {
        // Every element of a product must be Σₖ aᵢₖbₖⱼ summed from k = 0 up, unfused, as in
        // wasm: nalgebra's std feature would hand products larger than 5 × 5 (FᵀR⁻¹F with 4 or
        // more inputs) to matrixmultiply, whose kernels are picked at run time (FMA here,
        // none in wasm), and the CLI's GPB would differ from the page's in the last bits.
        let a = DMatrix::from_fn(20, 9, |i, j| libm::sin((9 * i + j) as f64));
        let b = DMatrix::from_fn(20, 9, |i, j| libm::cos((i + 3 * j) as f64) / 3.0);
        let product = a.transpose() * &b;
        for i in 0..9 {
            for j in 0..9 {
                let sum = (1..20).fold(a[(0, i)] * b[(0, j)], |s, k| s + a[(k, i)] * b[(k, j)]);
                assert_eq!(product[(i, j)].to_bits(), sum.to_bits(), "element ({i}, {j})");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_fit() {
        let (x, b, y) = data(10, 2, 5);
        let fit =
            |s| Gpb::fit(&GpbSettings::default(), x.clone(), b.clone(), &y, &mut MethodRng::seed_from_u64(s)).unwrap().params().clone();
        assert_eq!(fit(7), fit(7));
    }
}
