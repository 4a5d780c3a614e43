//! The posterior over several points at once: their means and the covariance between them,
//! Σ* = K** − Vᵀ·V with V = L⁻¹·K(X, x*), and a draw of the latent function there (Thompson
//! sampling's sample path). The rest of the GP predicts points one at a time (mean and
//! variance), which is all an acquisition like EI needs; a sample path needs the joint law.

use rand::Rng;

use super::linalg::{cholesky, solve_lower};
use super::FittedGp;
use crate::stats::standard_normal;

/// Jitter added to the posterior covariance's diagonal, as a share of the largest variance,
/// before its Cholesky factor: near the observations the covariance is singular to rounding.
/// Raised tenfold until the factor exists.
const FIRST_JITTER: f64 = 1e-10;

impl FittedGp {
    /// The posterior means at `xs` and their covariance (row-major m × m, symmetric), of the
    /// latent function (without observation noise).
    pub fn predict_joint(&self, xs: &[Vec<f64>]) -> (Vec<f64>, Vec<f64>) {
        let (m, n) = (xs.len(), self.alpha.len());
        let (mut r2, mut r) = (vec![0.0; n.max(m)], vec![0.0; n.max(m)]);
        // Column i of V = L⁻¹·k(X, x_i), and the mean, for each point.
        let mut v = vec![0.0; m * n];
        let mut means = Vec::with_capacity(m);
        for (i, x) in xs.iter().enumerate() {
            let q = self.kernel.query(x);
            self.points.r2_all(&q, &mut r2);
            let k = &mut v[i * n..(i + 1) * n];
            self.kernel.values(&r2[..n], &mut r[..n], k);
            means.push(self.params.mean() + k.iter().zip(&self.alpha).map(|(k, a)| k * a).sum::<f64>());
            solve_lower(&self.chol, n, k);
        }
        // K** between the points, then minus Vᵀ·V.
        let grid = super::kernel::ScaledPoints::new(xs, &self.kernel);
        let mut cov = vec![0.0; m * m];
        for (i, x) in xs.iter().enumerate() {
            let q = self.kernel.query(x);
            grid.r2_all(&q, &mut r2[..m]);
            self.kernel.values(&r2[..m], &mut r[..m], &mut cov[i * m..(i + 1) * m]);
        }
        for i in 0..m {
            for j in 0..=i {
                let c = cov[i * m + j] - super::dot(&v[i * n..(i + 1) * n], &v[j * n..(j + 1) * n]);
                cov[i * m + j] = c;
                cov[j * m + i] = c;
            }
        }
        (means, cov)
    }

    /// One draw of the latent function at `xs` from the joint posterior, with `rng`'s
    /// standard normals (the same draw for the same generator state on every target).
    pub fn sample_path<R: Rng + ?Sized>(&self, xs: &[Vec<f64>], rng: &mut R) -> Vec<f64> {
        let (means, mut cov) = self.predict_joint(xs);
        let m = xs.len();
        let largest = (0..m).map(|i| cov[i * m + i]).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        let mut jitter = FIRST_JITTER * largest;
        let l = loop {
            if let Some(l) = cholesky(&cov, m) {
                break l;
            }
            for i in 0..m {
                cov[i * m + i] += jitter;
            }
            jitter *= 10.0;
        };
        let z: Vec<f64> = (0..m).map(|_| standard_normal(rng)).collect();
        (0..m).map(|i| means[i] + super::dot(&l[i * m..i * m + i + 1], &z[..=i])).collect()
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::gp::GpParams;
    use crate::optimizer::MethodRng;

    fn gp() -> FittedGp {
        let x = vec![vec![0.1], vec![0.4], vec![0.45], vec![0.9]];
        let y = vec![1.0, -0.5, -0.3, 0.8];
        FittedGp::with_params(&x, &y, GpParams(vec![libm::log(0.2), libm::log(1.5), libm::log(1e-4), 0.1])).unwrap()
    }

    #[test]
    fn the_joint_posterior_has_the_pointwise_means_and_variances_on_its_diagonal() {
        let gp = gp();
        let xs: Vec<Vec<f64>> = (0..=20).map(|i| vec![i as f64 / 20.0]).collect();
        let (means, cov) = gp.predict_joint(&xs);
        for (i, x) in xs.iter().enumerate() {
            let (m, v) = gp.predict(x);
            assert!((means[i] - m).abs() < 1e-12, "{i}: mean {} vs {m}", means[i]);
            assert!((cov[i * 21 + i] - v).abs() < 1e-10, "{i}: variance {} vs {v}", cov[i * 21 + i]);
        }
    }

    #[test]
    fn the_covariance_is_the_closed_form_for_one_observation() {
        // One observation at x₀ with noise σ_n²: Σ(a, b) = k(a, b) − k(a, x₀)·k(x₀, b)/(σ_f² + σ_n²).
        let (l, sf2, sn2) = (0.3_f64, 2.0_f64, 0.01_f64);
        let gp = FittedGp::with_params(&[vec![0.5]], &[1.0], GpParams(vec![libm::log(l), libm::log(sf2), libm::log(sn2), 0.0])).unwrap();
        let k = |a: f64, b: f64| {
            let r = (a - b).abs() / l;
            sf2 * (1.0 + 5f64.sqrt() * r + 5.0 / 3.0 * r * r) * (-(5f64.sqrt()) * r).exp()
        };
        let xs = [0.0, 0.3, 0.55, 1.0];
        let (_, cov) = gp.predict_joint(&xs.iter().map(|&x| vec![x]).collect::<Vec<_>>());
        for (i, &a) in xs.iter().enumerate() {
            for (j, &b) in xs.iter().enumerate() {
                // The GP adds a little jitter to its own diagonal when factoring: compare to 1e-6.
                let expected = k(a, b) - k(a, 0.5) * k(0.5, b) / (sf2 + sn2);
                assert!((cov[i * 4 + j] - expected).abs() < 1e-6, "({a}, {b}): {} vs {expected}", cov[i * 4 + j]);
            }
        }
    }

    #[test]
    fn sample_paths_have_the_posteriors_mean_and_spread_and_repeat_with_their_seed() {
        let gp = gp();
        let xs: Vec<Vec<f64>> = (0..=10).map(|i| vec![i as f64 / 10.0]).collect();
        let draw = |seed| gp.sample_path(&xs, &mut MethodRng::seed_from_u64(seed));
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        // Over 4,000 draws, at x = 0.7 (between observations) the sample mean and variance
        // are the posterior's to within 5 standard errors.
        let (m, v) = gp.predict(&[0.7]);
        let values: Vec<f64> = (0..4000).map(|s| draw(s)[7]).collect();
        let mean = values.iter().sum::<f64>() / 4000.0;
        let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3999.0;
        assert!((mean - m).abs() < 5.0 * (v / 4000.0).sqrt(), "mean {mean} vs {m}");
        assert!((var - v).abs() < 5.0 * v * (2.0 / 3999.0f64).sqrt(), "variance {var} vs {v}");
        // Next to an observation the paths pass close to the observed value.
        let at_obs = gp.sample_path(&[vec![0.4]], &mut MethodRng::seed_from_u64(1))[0];
        assert!((at_obs - gp.predict(&[0.4]).0).abs() < 0.05, "{at_obs}");
    }
}
