//! The marginal likelihood as the authors' code gets it beyond 800 observations: GPyTorch
//! (linear_operator 0.6.1, the versions read for this file) factors the kernel matrix only up
//! to `max_cholesky_size` = 800 rows. Beyond, `inv_quad_logdet` solves K·[z₁ … z_t, y − m] by
//! batched conjugate gradients (`linear_cg`), takes log|K| by stochastic Lanczos quadrature
//! from the CG coefficients (Gardner et al. 2018, GPyTorch, §4 and App. C; Ubaru et al. 2017),
//! and differentiates through the estimate ½(1/t·Σᵢ K⁻¹zᵢzᵢᵀ − ααᵀ) of ∂NLL/∂K.
//!
//! Its defaults, which are ours (linear_operator `settings`): t = 10 Gaussian probes
//! (`num_trace_samples`); no preconditioner below 2,000 rows (`min_preconditioning_size`), so
//! none at LCBench's 1,000 epochs; CG stops once at least 10 iterations and the 20 Lanczos
//! steps (`max_lanczos_quadrature_iterations`) are done and the mean relative residual is
//! below 1 (`cg_tolerance`), or after 1,000 (`max_cg_iterations`). A column stops updating
//! at a residual of 1e-10.
//!
//! *Our choices:* the probes are drawn from a generator seeded by the fit (deterministic,
//! where PyTorch's global one is not), and CG's scalars (step lengths, residual norms) are
//! summed in f64 whatever the matrix's precision.

use nalgebra::{DMatrix, SymmetricEigen};
use rand::SeedableRng;

use super::Element;
use crate::gp::blocked;
use crate::optimizer::MethodRng;
use crate::stats::standard_normal;

/// How a fit gets the likelihood and its gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solver {
    /// Exact, by a Cholesky factor at every size: the default.
    #[default]
    Cholesky,
    /// As GPyTorch: Cholesky up to [`MAX_CHOLESKY_SIZE`] observations, CG with stochastic
    /// Lanczos quadrature beyond (this module).
    Gpytorch,
}

/// GPyTorch's `max_cholesky_size`.
pub const MAX_CHOLESKY_SIZE: usize = 800;

/// When CG stops (GPyTorch's defaults in [`CgRule::GPYTORCH`]; tighter ones in the tests).
#[derive(Debug, Clone, Copy)]
pub(super) struct CgRule {
    /// Random probes of the trace and log-determinant estimates.
    pub probes: usize,
    /// Iterations before the tolerance is looked at.
    pub min_iterations: usize,
    /// Lanczos steps kept for the quadrature (CG runs at least this many).
    pub lanczos: usize,
    pub max_iterations: usize,
    /// Bound on the mean of the columns' relative residual norms.
    pub tolerance: f64,
    /// A step length's or β's denominator below this makes it 0 (GPyTorch's "safe
    /// division"): with 1e-10, CG stalls once pᵀKp < 1e-10, at a relative residual of about
    /// 1e-5 — as GPyTorch's does.
    pub eps: f64,
    /// A column whose relative residual is below this stops updating.
    pub stop_updating_after: f64,
}

impl CgRule {
    pub const GPYTORCH: CgRule = CgRule {
        probes: 10,
        min_iterations: 10,
        lanczos: 20,
        max_iterations: 1000,
        tolerance: 1.0,
        eps: 1e-10,
        stop_updating_after: 1e-10,
    };
}

/// The symmetric tridiagonal matrix Lanczos builds for one probe: its diagonal and the band
/// below it.
#[derive(Debug, Clone, Default)]
pub(super) struct Tridiagonal {
    pub diagonal: Vec<f64>,
    pub band: Vec<f64>,
}

/// What [`linear_cg`] returns.
pub(super) struct CgSolution<R> {
    /// K⁻¹·B, n × c row-major.
    pub x: Vec<R>,
    /// The Lanczos tridiagonals of B's first `tridiagonals.len()` columns.
    pub tridiagonals: Vec<Tridiagonal>,
    /// Products with K (the tests check GPyTorch's stopping rule).
    #[cfg_attr(not(test), allow(dead_code))]
    pub iterations: usize,
}

/// Solves K·X = B for the row-major n × n `k` and n × c `b` as linear_operator's `linear_cg`
/// without a preconditioner: every column normalised, all iterated together, the first
/// `tridiagonal` columns' Lanczos coefficients kept (T_kk = 1/α_k + β_{k−1}/α_{k−1},
/// T_{k,k−1} = √β_{k−1}/α_{k−1}).
pub(super) fn linear_cg<R: Element>(k: &[R], n: usize, b: &[R], c: usize, tridiagonal: usize, rule: &CgRule) -> CgSolution<R> {
    let CgRule { eps, stop_updating_after, .. } = *rule;
    let dot_columns = |a: &[R], b: &[R]| -> Vec<f64> {
        let mut sums = vec![0.0; c];
        for (ra, rb) in a.chunks_exact(c).zip(b.chunks_exact(c)) {
            for ((s, &x), &y) in sums.iter_mut().zip(ra).zip(rb) {
                *s += x.to_f64() * y.to_f64();
            }
        }
        sums
    };
    let norms: Vec<f64> = dot_columns(b, b).into_iter().map(f64::sqrt).collect();
    let rhs_is_zero: Vec<bool> = norms.iter().map(|&v| v < eps).collect();
    let rhs_norm: Vec<f64> = norms.iter().map(|&v| if v < eps { 1.0 } else { v }).collect();
    // x₀ = 0, so the first residual is the normalised right-hand side.
    let mut residual: Vec<R> =
        b.chunks_exact(c).flat_map(|row| row.iter().zip(&rhs_norm).map(|(&v, &s)| R::from_f64(v.to_f64() / s))).collect();
    let mut x = vec![R::ZERO; n * c];
    let mut conjugate = residual.clone();
    let mut residual_inner = dot_columns(&residual, &residual);
    let mut converged: Vec<bool> = residual_inner.iter().map(|v| v.sqrt() < stop_updating_after).collect();
    let lanczos = rule.lanczos.min(n);
    let mut tridiagonals = vec![Tridiagonal::default(); tridiagonal];
    let (mut previous_reciprocal, mut previous_beta) = (vec![0.0; tridiagonal], vec![0.0; tridiagonal]);
    let mut update_tridiagonal = true;
    let mut product = Vec::new();
    let max_iterations = rule.max_iterations;
    let mut iterations = 0;
    for step in 0..max_iterations {
        iterations = step + 1;
        blocked::product_into(k, &conjugate, n, c, &mut product);
        // α = rᵀr / pᵀKp, zero where pᵀKp < eps or the column has converged.
        let curvature = dot_columns(&conjugate, &product);
        let alpha: Vec<f64> =
            (0..c).map(|j| if curvature[j] < eps || converged[j] { 0.0 } else { residual_inner[j] / curvature[j] }).collect();
        for i in 0..n {
            for j in 0..c {
                let a = R::from_f64(alpha[j]);
                x[i * c + j] += a * conjugate[i * c + j];
                residual[i * c + j] -= a * product[i * c + j];
            }
        }
        let new_inner = dot_columns(&residual, &residual);
        let beta: Vec<f64> = (0..c).map(|j| if residual_inner[j] < eps { 0.0 } else { new_inner[j] / residual_inner[j] }).collect();
        residual_inner = new_inner;
        for i in 0..n {
            for j in 0..c {
                conjugate[i * c + j] = residual[i * c + j] + R::from_f64(beta[j]) * conjugate[i * c + j];
            }
        }
        let norms: Vec<f64> = (0..c).map(|j| if rhs_is_zero[j] { 0.0 } else { residual_inner[j].sqrt() }).collect();
        converged = norms.iter().map(|&v| v < stop_updating_after).collect();
        let mean_norm = norms.iter().sum::<f64>() / c as f64;
        if step >= rule.min_iterations.min(max_iterations - 1)
            && mean_norm < rule.tolerance
            && !(tridiagonal > 0 && step < lanczos.min(max_iterations - 1))
        {
            break;
        }
        if tridiagonal > 0 && step < lanczos && update_tridiagonal {
            // A zero step length counts as 1 in the reciprocal, as GPyTorch's does.
            let reciprocal: Vec<f64> = alpha[..tridiagonal].iter().map(|&a| if a == 0.0 { 1.0 } else { 1.0 / a }).collect();
            let mut largest_band = f64::NEG_INFINITY;
            for (p, t) in tridiagonals.iter_mut().enumerate() {
                if step == 0 {
                    t.diagonal.push(reciprocal[p]);
                } else {
                    t.diagonal.push(reciprocal[p] + previous_beta[p] * previous_reciprocal[p]);
                    let band = previous_beta[p].sqrt() * previous_reciprocal[p];
                    t.band.push(band);
                    largest_band = largest_band.max(band);
                }
            }
            if step > 0 && largest_band < 1e-6 {
                update_tridiagonal = false;
            }
            previous_reciprocal = reciprocal;
            previous_beta.copy_from_slice(&beta[..tridiagonal]);
        }
    }
    for row in x.chunks_exact_mut(c) {
        for (v, &s) in row.iter_mut().zip(&rhs_norm) {
            *v = R::from_f64(v.to_f64() * s);
        }
    }
    CgSolution { x, tridiagonals, iterations }
}

/// log|K| by stochastic Lanczos quadrature, as GPyTorch's `StochasticLQ`:
/// n/t · Σ_probes Σᵢ (e₁ᵀvᵢ)²·log λᵢ over the eigenpairs (λᵢ, vᵢ) of each probe's tridiagonal.
pub(super) fn lanczos_log_det(n: usize, tridiagonals: &[Tridiagonal]) -> f64 {
    let mut total = 0.0;
    for t in tridiagonals {
        let m = t.diagonal.len();
        let matrix = DMatrix::from_fn(m, m, |i, j| match i.abs_diff(j) {
            0 => t.diagonal[i],
            1 => t.band[i.min(j)],
            _ => 0.0,
        });
        let eigen = SymmetricEigen::new(matrix);
        // libm's log, not the platform's: the estimate must have the same bits in the page.
        total += (0..m).map(|i| eigen.eigenvectors[(0, i)].powi(2) * libm::log(eigen.eigenvalues[i])).sum::<f64>();
    }
    total * n as f64 / tridiagonals.len() as f64
}

/// The generator of a fit's probes: one per fit, so every epoch draws new ones and the fit is
/// still a function of its inputs.
pub(super) fn probe_generator(n: usize) -> MethodRng {
    MethodRng::seed_from_u64(0x5147_0000 ^ n as u64)
}

/// One estimated evaluation for the row-major n × n kernel matrix `k` and the residuals
/// y − m: α = K⁻¹(y − m) by CG into `alpha`, the symmetrised estimate ½(A + Aᵀ) of K⁻¹ with
/// A = 1/t·Σᵢ K⁻¹zᵢ·zᵢᵀ into `w` (the gradient's trace terms read it where the exact path
/// reads K⁻¹), and log|K| returned.
pub(super) fn estimate<R: Element>(
    k: &[R],
    n: usize,
    resid: &[R],
    rule: &CgRule,
    rng: &mut MethodRng,
    (alpha, w): (&mut Vec<R>, &mut Vec<R>),
) -> f64 {
    let t = rule.probes;
    let c = t + 1;
    // Columns 0..t: the probes zᵢ ~ N(0, I), normalised (the norms come back below); column
    // t: y − m.
    let mut z = vec![0.0; n * t];
    z.iter_mut().for_each(|v| *v = standard_normal(rng));
    let mut norms = vec![0.0; t];
    for row in z.chunks_exact(t) {
        for (s, &v) in norms.iter_mut().zip(row) {
            *s += v * v;
        }
    }
    norms.iter_mut().for_each(|s| *s = s.sqrt());
    let mut b = vec![R::ZERO; n * c];
    for i in 0..n {
        for p in 0..t {
            b[i * c + p] = R::from_f64(z[i * t + p] / norms[p]);
        }
        b[i * c + t] = resid[i];
    }
    let solution = linear_cg(k, n, &b, c, t, rule);
    alpha.clear();
    alpha.extend((0..n).map(|i| solution.x[i * c + t]));
    // u_p = K⁻¹z_p = ‖z_p‖·K⁻¹(z_p/‖z_p‖); wₐᵦ = 1/(2t)·Σ_p (u_p[a]·z_p[b] + u_p[b]·z_p[a]).
    let u: Vec<f64> = (0..n * t).map(|e| solution.x[(e / t) * c + e % t].to_f64() * norms[e % t]).collect();
    if w.len() != n * n {
        w.clear();
        w.resize(n * n, R::ZERO);
    }
    let scale = 0.5 / t as f64;
    for a in 0..n {
        let (ua, za) = (&u[a * t..(a + 1) * t], &z[a * t..(a + 1) * t]);
        for bcol in 0..=a {
            let (ub, zb) = (&u[bcol * t..(bcol + 1) * t], &z[bcol * t..(bcol + 1) * t]);
            let s: f64 = (0..t).map(|p| ua[p] * zb[p] + ub[p] * za[p]).sum();
            w[a * n + bcol] = R::from_f64(scale * s);
        }
    }
    blocked::mirror_lower(w, n);
    lanczos_log_det(n, &solution.tridiagonals)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{data, small};
    use super::super::{blocked_algebra, nll_and_grad_with, DeepKernel, LikelihoodBuffers};
    use super::*;
    use nalgebra::DVector;
    use rand::Rng;

    /// A random symmetric positive definite n × n matrix (row-major) with eigenvalues spread
    /// evenly in log from `low` to `high` (1e-3 to 10: as ill-conditioned as a fitted kernel
    /// matrix with a small noise).
    fn spd(rng: &mut MethodRng, n: usize, (low, high): (f64, f64)) -> Vec<f64> {
        let q = DMatrix::from_fn(n, n, |_, _| standard_normal(rng)).qr().q();
        let spectrum = DVector::from_fn(n, |i, _| low * (high / low).powf(i as f64 / (n - 1) as f64));
        let m = &q * DMatrix::from_diagonal(&spectrum) * q.transpose();
        (0..n * n).map(|e| m[(e / n, e % n)]).collect()
    }

    /// Run to convergence, without GPyTorch's safe-division floors.
    const TIGHT: CgRule =
        CgRule { probes: 1, min_iterations: 10, lanczos: 12, max_iterations: 400, tolerance: 1e-13, eps: 0.0, stop_updating_after: 0.0 };

    #[test]
    fn cg_solves_every_column_as_a_cholesky_factor_does() {
        let mut rng = MethodRng::seed_from_u64(1);
        let (n, c) = (40, 3);
        let k = spd(&mut rng, n, (1e-3, 10.0));
        let b: Vec<f64> = (0..n * c).map(|_| rng.random::<f64>() - 0.5).collect();
        let solution = linear_cg(&k, n, &b, c, 0, &TIGHT);
        let chol = DMatrix::from_row_slice(n, n, &k).cholesky().unwrap();
        for j in 0..c {
            let exact = chol.solve(&DVector::from_fn(n, |i, _| b[i * c + j]));
            let worst = (0..n).map(|i| (solution.x[i * c + j] - exact[i]).abs()).fold(0.0, f64::max) / exact.amax();
            assert!(worst < 1e-9, "column {j}: largest error {worst:e} of the largest element after {} iterations", solution.iterations);
        }
    }

    #[test]
    fn lanczos_quadrature_from_cg_gives_the_quadratic_form_of_log_k() {
        // With as many Lanczos steps as rows, e₁ᵀ·log(T)·e₁ is zᵀ·log(K)·z/‖z‖² exactly (in
        // exact arithmetic); log(K) here comes from an eigendecomposition of K.
        let mut rng = MethodRng::seed_from_u64(2);
        let n = 12;
        let k = spd(&mut rng, n, (0.1, 10.0));
        let z: Vec<f64> = (0..n).map(|_| standard_normal(&mut rng)).collect();
        let solution = linear_cg(&k, n, &z, 1, 1, &TIGHT);
        assert_eq!(solution.tridiagonals[0].diagonal.len(), n);
        let quadrature = lanczos_log_det(1, &solution.tridiagonals);
        let eigen = SymmetricEigen::new(DMatrix::from_row_slice(n, n, &k));
        let log_k = &eigen.eigenvectors * DMatrix::from_diagonal(&eigen.eigenvalues.map(f64::ln)) * eigen.eigenvectors.transpose();
        let zv = DVector::from_vec(z);
        let exact = (zv.transpose() * log_k * &zv)[(0, 0)] / zv.norm_squared();
        assert!((quadrature - exact).abs() < 1e-9, "quadrature {quadrature}, exact {exact}");
    }

    #[test]
    fn gpytorchs_rule_stops_after_the_twentieth_lanczos_step() {
        // At least 10 iterations, 20 Lanczos steps kept, and CG stops at the first check after
        // them where the mean relative residual is below 1: the 21st product.
        let mut rng = MethodRng::seed_from_u64(4);
        let n = 60;
        let k = spd(&mut rng, n, (1.0, 10.0));
        let b: Vec<f64> = (0..n * 3).map(|_| rng.random::<f64>()).collect();
        let solution = linear_cg(&k, n, &b, 3, 2, &CgRule::GPYTORCH);
        assert_eq!(solution.iterations, 21);
        assert!(solution.tridiagonals.iter().all(|t| t.diagonal.len() == 20 && t.band.len() == 19));
    }

    #[test]
    fn the_estimated_likelihood_and_gradient_approach_the_exact_ones_with_many_probes() {
        // The estimates are unbiased in the probes: with CG run to convergence and 4,000
        // probes, log|K| and every gradient component agree with the Cholesky path to about
        // 1/√4000. With the symmetrisation's ½ left out, the gradient is off by 1.6 times its norm.
        let mut rng = MethodRng::seed_from_u64(5);
        let (points, y) = data(&mut rng, 50, 6);
        let mut model = DeepKernel::new(3, 6, &small(), &mut rng);
        let gp = model.shape.gp();
        model.params[gp..gp + 4].copy_from_slice(&[0.3, 0.2, -1.0, 0.1]);
        let exact =
            nll_and_grad_with(blocked_algebra::<f64>(), &model, &points, &y, &mut LikelihoodBuffers::default(), None, &mut |_| {}).unwrap();
        let rule = CgRule {
            probes: 4000,
            lanczos: 50,
            max_iterations: 200,
            tolerance: 1e-12,
            eps: 0.0,
            stop_updating_after: 0.0,
            ..CgRule::GPYTORCH
        };
        let mut probes = probe_generator(points.len());
        let estimated = nll_and_grad_with(
            blocked_algebra::<f64>(),
            &model,
            &points,
            &y,
            &mut LikelihoodBuffers::default(),
            Some((&rule, &mut probes)),
            &mut |_| {},
        )
        .unwrap();
        let nll_error = (estimated.0 - exact.0).abs() / exact.0.abs();
        let difference: f64 = estimated.1.iter().zip(&exact.1).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
        let norm: f64 = exact.1.iter().map(|v| v * v).sum::<f64>().sqrt();
        println!("NLL off by {nll_error:.2e}, gradient by {:.2e} of its norm", difference / norm);
        assert!(nll_error < 1e-3, "NLL {} against {}", estimated.0, exact.0);
        assert!(difference / norm < 0.03, "gradient off by {:.4} of its norm", difference / norm);
    }

    #[test]
    fn gpytorchs_solver_factors_up_to_800_observations_and_estimates_beyond() {
        // Two Adam epochs from one start: at 800 observations the GPyTorch solver's fit is the
        // exact one bit for bit; at 801 it runs CG and lands elsewhere.
        let mut rng = MethodRng::seed_from_u64(6);
        let (points, y) = data(&mut rng, MAX_CHOLESKY_SIZE + 1, 6);
        let exact = super::super::DeepKernelSettings { max_epochs: 2, ..small() };
        let estimated = super::super::DeepKernelSettings { solver: Solver::Gpytorch, ..exact.clone() };
        let start = DeepKernel::new(3, 6, &exact, &mut rng);
        for (n, same) in [(MAX_CHOLESKY_SIZE, true), (MAX_CHOLESKY_SIZE + 1, false)] {
            let (mut a, mut b) = (start.clone(), start.clone());
            let report_a = super::super::fit(&mut a, &points[..n], &y[..n], &exact).unwrap();
            let report_b = super::super::fit(&mut b, &points[..n], &y[..n], &estimated).unwrap();
            assert_eq!(a.params == b.params && report_a.loss == report_b.loss, same, "n = {n}");
        }
    }
}
