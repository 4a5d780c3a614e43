//! Φ-optimal initial designs for the GPB model (paper 003, §3): the information matrix, the
//! criteria D, A and E, and the sensitivity d(x, ξ) of the equivalence theorem (Thm. 1).
//!
//! **Information.** For design points (xi, bi) the GLS information about β = (β1, β2) is
//! M = FᵀΨ⁻¹F (§3.2), F's rows f(xi, bi)ᵀ, Ψ the model's correlation at nominal covariance
//! parameters ([`CovParams::nominal`]: the design is *locally* optimal). Exact designs give
//! every point weight 1/N, which only scales M.
//!
//! **Criteria.** The paper writes Φℓ(M) = (tr Mℓ)^(1/ℓ) maximised, with ℓ = 0 det, ℓ = 1
//! trace and ℓ = ∞ "the maximum eigenvalue of M". Read literally, A would maximise tr M and E
//! the largest eigenvalue, which are not Kiefer's (1974) A- and E-optimality; the paper's own
//! Appendix B defines them by the covariance (XᵀX)⁻¹: A minimises tr M⁻¹, E minimises the
//! largest eigenvalue of M⁻¹ (= maximises the smallest of M). We use Kiefer's φ_p family
//! with p = 0 (D: log det M), p = −1 (A: −tr M⁻¹) and p = −∞ (E: λ_min(M)), all maximised.
//!
//! **Sensitivity.** Adding a point (x, b) to a design with correlated errors adds the
//! information r rᵀ/s², where r = f(x, b) − FᵀΨ⁻¹ψ(x, b) is what the design cannot predict
//! of the regressors and s² = Ψ((x,b),(x,b)) − ψᵀΨ⁻¹ψ the kriging variance (the Schur
//! complement of the enlarged Ψ). The directional derivative of log φ_p towards that point,
//! normalised as Kiefer's, is
//!   d(x, ξ) = N·rᵀM^(p−1)r / (s²·tr M^p) − 1  (D: N·rᵀM⁻¹r/(k·s²) − 1; E: N(vᵀr)²/(s²λ_min) − 1),
//! which is Thm. 1's d up to the factor 2 of its symmetrised form, reduces to Kiefer's
//! f(x)ᵀM⁻¹f(x) − k for independent errors, and is zero at every support point of an
//! optimal approximate design. "max over x of d(x, ξ) ≤ 0" is the optimality check.

use nalgebra::{Cholesky, DMatrix, DVector, Dyn, SymmetricEigen};
use serde::{Deserialize, Serialize};

use super::model::{corr, corr_matrix, regression_matrix, regressors, BudgetKernel, CovParams};

/// The model a design is optimal for.
#[derive(Debug, Clone, PartialEq)]
pub enum DesignModel {
    /// GPB at nominal covariance parameters (the paper's case).
    Gpb {
        /// The budget correlation.
        kernel: BudgetKernel,
        /// Nominal covariance parameters.
        params: CovParams,
    },
    /// Classical linear regression f(x) = (1, x1, …, xp) with independent unit-variance
    /// errors and no budget: the case of Kiefer's theorem, whose optimal designs are known in
    /// closed form (the tests check the machinery on it).
    IndependentLinear {
        /// Input dimension.
        dim: usize,
    },
}

impl DesignModel {
    /// Input dimension.
    pub fn dim(&self) -> usize {
        match self {
            DesignModel::Gpb { params, .. } => params.theta1.len(),
            DesignModel::IndependentLinear { dim } => *dim,
        }
    }

    fn regressors(&self, x: &[f64], b: f64) -> Vec<f64> {
        match self {
            DesignModel::Gpb { .. } => regressors(x, b),
            DesignModel::IndependentLinear { .. } => std::iter::once(1.0).chain(x.iter().copied()).collect(),
        }
    }

    fn regression_matrix(&self, x: &[Vec<f64>], b: &[f64]) -> DMatrix<f64> {
        match self {
            DesignModel::Gpb { .. } => regression_matrix(x, b),
            DesignModel::IndependentLinear { dim } => DMatrix::from_fn(x.len(), dim + 1, |i, j| if j == 0 { 1.0 } else { x[i][j - 1] }),
        }
    }

    /// The design's correlation matrix Ψ.
    fn corr_matrix(&self, x: &[Vec<f64>], b: &[f64]) -> DMatrix<f64> {
        match self {
            DesignModel::Gpb { kernel, params } => corr_matrix(*kernel, params, x, b),
            DesignModel::IndependentLinear { .. } => DMatrix::identity(x.len(), x.len()),
        }
    }

    /// Correlations of a new observation at (x, b) with the design's, and its own variance.
    fn cross(&self, x: &[f64], b: f64, design_x: &[Vec<f64>], design_b: &[f64]) -> (DVector<f64>, f64) {
        match self {
            DesignModel::Gpb { kernel, params } => (
                DVector::from_iterator(design_x.len(), design_x.iter().zip(design_b).map(|(xi, &bi)| corr(*kernel, params, x, b, xi, bi))),
                1.0 + params.ratio * kernel.corr(params.h, b, b),
            ),
            DesignModel::IndependentLinear { .. } => (DVector::zeros(design_x.len()), 1.0),
        }
    }
}

/// Which φ_p criterion a design maximises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Criterion {
    /// log det M: the volume of β's confidence ellipsoid. The default (invariant to how the
    /// regressors are scaled, and the most common choice).
    #[default]
    D,
    /// −tr M⁻¹: the total variance of β̂.
    A,
    /// λ_min(M): the worst-estimated direction of β.
    E,
}

impl Criterion {
    /// Every criterion, in display order.
    pub const ALL: [Criterion; 3] = [Criterion::D, Criterion::A, Criterion::E];

    /// The criterion's letter.
    pub fn name(self) -> &'static str {
        match self {
            Criterion::D => "D",
            Criterion::A => "A",
            Criterion::E => "E",
        }
    }

    /// Parses a letter.
    pub fn parse(s: &str) -> Option<Criterion> {
        Criterion::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(s))
    }

    /// The criterion's value at M (larger is better; −∞ when M is singular).
    pub fn value(self, m: &DMatrix<f64>) -> f64 {
        match self {
            Criterion::D => {
                Cholesky::new(m.clone()).map_or(f64::NEG_INFINITY, |c| c.l().diagonal().iter().map(|v| 2.0 * libm::log(*v)).sum())
            }
            Criterion::A => Cholesky::new(m.clone()).map_or(f64::NEG_INFINITY, |c| -c.inverse().trace()),
            Criterion::E => {
                let e = SymmetricEigen::new(m.clone()).eigenvalues.min();
                if e > 0.0 {
                    e
                } else {
                    f64::NEG_INFINITY
                }
            }
        }
    }
}

/// The space a design lives in: the unit cube of the inputs, a finite set of budgets (model
/// units), the correlation at nominal parameters, and the points over which max d is sought.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignProblem {
    /// The model the design is for.
    pub model: DesignModel,
    /// The criterion.
    pub criterion: Criterion,
    /// Allowed budgets, model units.
    pub budgets: Vec<f64>,
    /// Input points searched for max d (a grid on a continuous space; the table's
    /// configurations on a tabular one).
    pub grid: Vec<Vec<f64>>,
    /// True when designs must use the grid's points (tabular data): LHD points snap to the
    /// nearest unused grid point and a configuration appears once.
    pub tabular: bool,
}

/// An exact design: N input points in [0, 1]^p, each with an index into the budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// Input points.
    pub x: Vec<Vec<f64>>,
    /// Budget of each point, an index into [`DesignProblem::budgets`].
    pub budget: Vec<usize>,
}

impl Design {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True without points.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}

/// The sensitivity function of one design, ready to evaluate at many points.
pub struct Sensitivity<'a> {
    problem: &'a DesignProblem,
    x: Vec<Vec<f64>>,
    b: Vec<f64>,
    chol: Cholesky<f64, Dyn>,
    rinv_f: DMatrix<f64>,
    /// d = N·rᵀ·weight·r/s² − 1.
    weight: DMatrix<f64>,
}

impl DesignProblem {
    /// Input dimension.
    pub fn dim(&self) -> usize {
        self.model.dim()
    }

    /// Budgets of a design, model units.
    pub fn budgets_of(&self, design: &Design) -> Vec<f64> {
        design.budget.iter().map(|&i| self.budgets[i]).collect()
    }

    /// M = FᵀΨ⁻¹F, or `None` when Ψ is singular.
    pub fn information(&self, design: &Design) -> Option<DMatrix<f64>> {
        let b = self.budgets_of(design);
        let chol = Cholesky::new(self.model.corr_matrix(&design.x, &b))?;
        let f = self.model.regression_matrix(&design.x, &b);
        Some(f.transpose() * chol.solve(&f))
    }

    /// The criterion's value of a design (larger is better).
    pub fn value(&self, design: &Design) -> f64 {
        self.information(design).map_or(f64::NEG_INFINITY, |m| self.criterion.value(&m))
    }

    /// The sensitivity function of `design`, or `None` when its M is singular.
    pub fn sensitivity(&self, design: &Design) -> Option<Sensitivity<'_>> {
        let b = self.budgets_of(design);
        let chol = Cholesky::new(self.model.corr_matrix(&design.x, &b))?;
        let f = self.model.regression_matrix(&design.x, &b);
        let rinv_f = chol.solve(&f);
        let m = f.transpose() * &rinv_f;
        let k = m.nrows() as f64;
        let weight = match self.criterion {
            Criterion::D => Cholesky::new(m)?.inverse() / k,
            Criterion::A => {
                let inv = Cholesky::new(m)?.inverse();
                let t = inv.trace();
                &inv * &inv / t
            }
            Criterion::E => {
                let e = SymmetricEigen::new(m);
                let i = e.eigenvalues.imin();
                let (lambda, v) = (e.eigenvalues[i], e.eigenvectors.column(i).into_owned());
                if lambda <= 0.0 {
                    return None;
                }
                &v * v.transpose() / lambda
            }
        };
        Some(Sensitivity { problem: self, x: design.x.clone(), b, chol, rinv_f, weight })
    }

    /// Every (grid point, budget) pair a design may add: all of them on a continuous space,
    /// the grid points the design does not use yet on a tabular one.
    pub fn open_points<'a>(&'a self, design: &'a Design) -> impl Iterator<Item = (usize, usize)> + 'a {
        (0..self.grid.len())
            .filter(move |&g| !self.tabular || !design.x.iter().any(|x| x == &self.grid[g]))
            .flat_map(move |g| (0..self.budgets.len()).map(move |b| (g, b)))
    }

    /// max over the open points of d(x, ξ), with its argmax (grid index, budget index).
    pub fn max_sensitivity(&self, design: &Design) -> Option<(f64, (usize, usize))> {
        let s = self.sensitivity(design)?;
        self.open_points(design).map(|(g, b)| (s.at(&self.grid[g], self.budgets[b]), (g, b))).fold(
            None,
            |best: Option<(f64, (usize, usize))>, (d, at)| match best {
                Some((v, _)) if v >= d => best,
                _ => Some((d, at)),
            },
        )
    }
}

impl Sensitivity<'_> {
    /// d(x, ξ) at input x and budget b (model units); −1 where the design already determines
    /// y (a replicate of a design point), since such a point adds no information.
    pub fn at(&self, x: &[f64], b: f64) -> f64 {
        let model = &self.problem.model;
        let (c, c0) = model.cross(x, b, &self.x, &self.b);
        let s2 = c0 - c.dot(&self.chol.solve(&c));
        if s2 <= 1e-6 * c0 {
            return -1.0;
        }
        let r = DVector::from_vec(model.regressors(x, b)) - self.rinv_f.transpose() * &c;
        self.x.len() as f64 * r.dot(&(&self.weight * &r)) / s2 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_grid() -> Vec<Vec<f64>> {
        (0..=100).map(|i| vec![i as f64 / 100.0]).collect()
    }

    /// Linear regression on [0, 1] with independent errors (Kiefer's case).
    fn linear_problem(criterion: Criterion) -> DesignProblem {
        DesignProblem { model: DesignModel::IndependentLinear { dim: 1 }, criterion, budgets: vec![1.0], grid: unit_grid(), tabular: false }
    }

    /// GPB with nearly independent locations, two budgets.
    fn gpb_problem(criterion: Criterion) -> DesignProblem {
        DesignProblem {
            model: DesignModel::Gpb {
                kernel: BudgetKernel::Power,
                params: CovParams { theta1: vec![1e3], theta2: vec![1e3], ratio: 0.05, h: 1.0 },
            },
            criterion,
            budgets: vec![1.0, 0.5],
            grid: unit_grid(),
            tabular: false,
        }
    }

    #[test]
    fn kiefer_s_theorem_on_the_linear_model() {
        // D-optimal for (1, x) on [0, 1]: half the points at each end; d(x) = 2x² − 2x ≤ 0,
        // zero exactly at the support.
        let p = linear_problem(Criterion::D);
        let optimal = Design { x: vec![vec![0.0], vec![0.0], vec![1.0], vec![1.0]], budget: vec![0; 4] };
        let s = p.sensitivity(&optimal).unwrap();
        for x in [0.0, 0.25, 0.5, 1.0] {
            assert!((s.at(&[x], 1.0) - (2.0 * x * x - 2.0 * x)).abs() < 1e-12);
        }
        let (max_d, _) = p.max_sensitivity(&optimal).unwrap();
        assert!(max_d.abs() < 1e-12, "{max_d}");
        // A design that misses the right end leaves a positive region there.
        let skewed = Design { x: vec![vec![0.0], vec![0.0], vec![0.6], vec![0.6]], budget: vec![0; 4] };
        let (max_d, (g, _)) = p.max_sensitivity(&skewed).unwrap();
        assert!(max_d > 0.5 && p.grid[g][0] == 1.0, "{max_d} at {:?}", p.grid[g]);
    }

    #[test]
    fn sensitivity_is_the_derivative_of_the_criterion() {
        // d(x, ξ) = lim (log φ((1−ε)ξ + εδx) − log φ(ξ))/ε. With nearly independent
        // locations the information of the mixture is (1−ε)M + ε·N·f fᵀ/var in unnormalised terms.
        for criterion in Criterion::ALL {
            let p = gpb_problem(criterion);
            let design = Design { x: vec![vec![0.1], vec![0.5], vec![0.9], vec![0.3]], budget: vec![0, 1, 0, 1] };
            let m = p.information(&design).unwrap();
            let s = p.sensitivity(&design).unwrap();
            for (x, b) in [(0.0, 1.0), (0.7, 0.5), (1.0, 0.5)] {
                let f = DVector::from_vec(regressors(&[x], b));
                let var = 1.0 + 0.05 / b;
                let n = design.len() as f64;
                let log_phi = |eps: f64| {
                    let mix = &m * (1.0 - eps) + (&f * f.transpose()) * (eps * n / var);
                    match criterion {
                        Criterion::D => criterion.value(&mix) / 3.0,
                        Criterion::A => -libm::log(-criterion.value(&mix)),
                        Criterion::E => libm::log(criterion.value(&mix)),
                    }
                };
                let eps = 1e-7;
                let fd = (log_phi(eps) - log_phi(0.0)) / eps;
                let d = s.at(&[x], b);
                assert!((fd - d).abs() < 1e-4 * (1.0 + d.abs()), "{criterion:?} at ({x}, {b}): fd {fd}, d {d}");
            }
        }
    }

    #[test]
    fn a_second_budget_at_the_same_configuration_identifies_beta2() {
        // g is shared across budgets: observing x at a second budget cancels g and measures
        // the budget effect, so d is large there (the model's point, visible in the design view).
        let p = gpb_problem(Criterion::D);
        let design = Design { x: vec![vec![0.0], vec![0.5], vec![1.0], vec![0.8]], budget: vec![0, 0, 0, 1] };
        let s = p.sensitivity(&design).unwrap();
        assert!(s.at(&[0.5], 0.5) > s.at(&[0.25], 0.5));
    }
}
