//! The posterior at one point with its gradient in the point, and log-EI with its gradient:
//! what a continuous search of the acquisition ([`crate::continuous`]) climbs.
//!
//! With k_i = k(x, x_i), α = K⁻¹(y − c), v = L⁻¹k and β = L⁻ᵀv = K⁻¹k:
//! μ = c + kᵀα, σ² = σ_f² − vᵀv, ∂μ/∂x_d = Σ_i α_i·∂k_i/∂x_d, ∂σ²/∂x_d = −2·Σ_i β_i·∂k_i/∂x_d,
//! and for the Matérn-5/2 kernel ∂k_i/∂x_d = −slope_i·s_d·(x_d − x_id) with the `slope` of
//! the likelihood's gradient (σ_f²·(5/3)·(1 + √5 r)·e^{−√5 r}) and s_d = 1/ℓ_d².

use super::linalg::{solve_lower, solve_upper_t};
use super::FittedGp;
use crate::stats::log_expected_improvement;

/// Smallest posterior variance (as [`FittedGp::predict`] clamps it).
const MIN_VARIANCE: f64 = 1e-12;

impl FittedGp {
    /// Posterior mean and variance at `x` (dense, model encoding) and their gradients in x.
    pub fn predict_with_gradient(&self, x: &[f64]) -> (f64, f64, Vec<f64>, Vec<f64>) {
        let n = self.alpha.len();
        let dim = self.kernel.scale.len();
        let q = self.kernel.query(x);
        let (mut r2, mut r, mut k, mut slope) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        self.points.r2_all(&q, &mut r2);
        self.kernel.values_and_slopes(&r2, &mut r, &mut k, &mut slope);
        let mut v = k.clone();
        solve_lower(&self.chol, n, &mut v);
        let explained: f64 = v.iter().map(|a| a * a).sum();
        let mut beta = v;
        solve_upper_t(&self.chol, n, &mut beta);
        let mean = self.params.mean() + k.iter().zip(&self.alpha).map(|(k, a)| k * a).sum::<f64>();
        let raw_variance = self.params.signal_variance() - explained;
        let (mut dmean, mut dvar) = (vec![0.0; dim], vec![0.0; dim]);
        for d in 0..dim {
            let s = self.kernel.scale[d];
            let column = self.points.scaled_input(d);
            let (mut gm, mut gv) = (0.0, 0.0);
            for i in 0..n {
                // ∂k_i/∂x_d = −slope_i·(s_d·x_d − s_d·x_id).
                let dk = -slope[i] * (s * x[d] - column[i]);
                gm += self.alpha[i] * dk;
                gv += beta[i] * dk;
            }
            dmean[d] = gm;
            dvar[d] = if raw_variance > MIN_VARIANCE { -2.0 * gv } else { 0.0 };
        }
        (mean, raw_variance.max(MIN_VARIANCE), dmean, dvar)
    }

    /// log EI at `x` below `best` (minimisation) and its gradient in x.
    pub fn log_ei_with_gradient(&self, x: &[f64], best: f64) -> (f64, Vec<f64>) {
        let (mean, variance, dmean, dvar) = self.predict_with_gradient(x);
        let sd = variance.sqrt();
        let (value, by_mean, by_sd) = log_expected_improvement(mean, sd, best);
        let grad = dmean.iter().zip(&dvar).map(|(dm, dv)| by_mean * dm + by_sd * dv / (2.0 * sd)).collect();
        (value, grad)
    }
}

#[cfg(test)]
mod tests {
    use crate::gp::{FittedGp, GpParams};

    fn gp() -> FittedGp {
        let x: Vec<Vec<f64>> = (0..15).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0, (i as f64 * 0.23) % 1.0]).collect();
        let y: Vec<f64> = x.iter().map(|v| (6.0 * v[0]).sin() + 0.5 * v[1] * v[1] - v[2]).collect();
        FittedGp::with_params(&x, &y, GpParams(vec![-1.2, -0.4, 0.3, 0.2, (1e-3f64).ln(), 0.1])).unwrap()
    }

    #[test]
    fn the_point_posterior_is_predict_s_and_its_gradient_matches_finite_differences() {
        let gp = gp();
        for x in [vec![0.31, 0.52, 0.77], vec![0.9, 0.05, 0.4], vec![0.0, 1.0, 0.5]] {
            let (m, v, dm, dv) = gp.predict_with_gradient(&x);
            let (pm, pv) = gp.predict(&x);
            assert!((m - pm).abs() < 1e-12 && (v - pv).abs() < 1e-12, "{m} {v} vs {pm} {pv}");
            for d in 0..3 {
                let h = 1e-6;
                let (mut a, mut b) = (x.clone(), x.clone());
                a[d] += h;
                b[d] -= h;
                let (fm, fv) = {
                    let (pa, pb) = (gp.predict(&a), gp.predict(&b));
                    ((pa.0 - pb.0) / (2.0 * h), (pa.1 - pb.1) / (2.0 * h))
                };
                assert!((dm[d] - fm).abs() < 1e-6 * (1.0 + fm.abs()), "mean, input {d}: {} vs {fm}", dm[d]);
                assert!((dv[d] - fv).abs() < 1e-6 * (1.0 + fv.abs()), "variance, input {d}: {} vs {fv}", dv[d]);
            }
        }
    }

    #[test]
    fn the_log_ei_gradient_matches_finite_differences() {
        let gp = gp();
        // A best far below the data too, where EI itself underflows.
        for best in [-0.5, -3.0, -40.0] {
            let x = vec![0.45, 0.3, 0.6];
            let (v, g) = gp.log_ei_with_gradient(&x, best);
            assert!(v.is_finite());
            for d in 0..3 {
                let h = 1e-6;
                let (mut a, mut b) = (x.clone(), x.clone());
                a[d] += h;
                b[d] -= h;
                let fd = (gp.log_ei_with_gradient(&a, best).0 - gp.log_ei_with_gradient(&b, best).0) / (2.0 * h);
                assert!((g[d] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "best {best}, input {d}: {} vs {fd}", g[d]);
            }
        }
    }
}
