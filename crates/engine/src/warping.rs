//! Output warpings of the copula paper (Salinas et al. 2020, §3): the Gaussian-copula
//! transform ψ = Φ⁻¹∘F with the winsorized empirical CDF, and the standardisation Δ used by
//! the ablations.
//!
//! F(t) is the empirical CDF (1/N)·#{yᵢ ≤ t} clipped to [δ_N, 1 − δ_N] with
//! δ_N = 1 / (4·N^{1/4}·√(π·log N)) (Liu et al. 2009), so ψ stays finite at the extremes.

use super::stats::normal_quantile;

/// The winsorization cut-off δ_N (defined for N ≥ 2).
pub fn delta_n(n: usize) -> f64 {
    let n = n as f64;
    1.0 / (4.0 * libm::sqrt(libm::sqrt(n)) * libm::sqrt(std::f64::consts::PI * libm::log(n)))
}

/// ψ fitted on one task's observations.
#[derive(Debug, Clone, PartialEq)]
pub struct CopulaWarp {
    sorted: Vec<f64>,
    delta: f64,
}

impl CopulaWarp {
    /// Fits the empirical CDF of `ys` (finite values).
    pub fn fit(ys: &[f64]) -> Self {
        let mut sorted = ys.to_vec();
        sorted.sort_by(f64::total_cmp);
        let delta = if sorted.len() >= 2 { delta_n(sorted.len()) } else { 0.5 };
        CopulaWarp { sorted, delta }
    }

    /// Winsorized empirical CDF F(y).
    pub fn cdf(&self, y: f64) -> f64 {
        let n = self.sorted.len();
        if n == 0 {
            return 0.5;
        }
        let below_or_equal = self.sorted.partition_point(|&v| v <= y);
        (below_or_equal as f64 / n as f64).clamp(self.delta, 1.0 - self.delta)
    }

    /// ψ(y) = Φ⁻¹(F(y)).
    pub fn psi(&self, y: f64) -> f64 {
        normal_quantile(self.cdf(y))
    }

    /// ψ of every value.
    pub fn transform(&self, ys: &[f64]) -> Vec<f64> {
        ys.iter().map(|&y| self.psi(y)).collect()
    }
}

/// How losses are transformed before a model sees them: ψ (copula) or Δ (standardisation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum OutputWarp {
    /// Δ: standardise to zero mean and unit variance.
    Standardize,
    /// ψ = Φ⁻¹∘F with the winsorized empirical CDF (Gaussian copula).
    Copula,
}

impl OutputWarp {
    /// Applies the warp, fitted on `ys`, to `ys`.
    pub fn apply(self, ys: &[f64]) -> Vec<f64> {
        match self {
            OutputWarp::Standardize => standardize(ys),
            OutputWarp::Copula => CopulaWarp::fit(ys).transform(ys),
        }
    }

    /// Short name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputWarp::Standardize => "Δ",
            OutputWarp::Copula => "ψ",
        }
    }
}

/// Δ(y) = (y − mean) / sd with the population sd (1 when the values are constant).
pub fn standardize(ys: &[f64]) -> Vec<f64> {
    let (mean, sd) = standardization(ys);
    ys.iter().map(|y| (y - mean) / sd).collect()
}

/// The mean and population sd Δ standardises `ys` by (sd 1 when the values are constant).
fn standardization(ys: &[f64]) -> (f64, f64) {
    let n = ys.len().max(1) as f64;
    let mean = ys.iter().sum::<f64>() / n;
    let var = ys.iter().map(|y| (y - mean) * (y - mean)).sum::<f64>() / n;
    (mean, if var > 0.0 { var.sqrt() } else { 1.0 })
}

/// A warp fitted on losses, turned around: a model's prediction back in the losses' units.
#[derive(Debug, Clone, PartialEq)]
pub enum WarpBack {
    /// Δ: loss = mean + sd · z, exactly.
    Linear {
        /// The losses' mean.
        mean: f64,
        /// Their population sd.
        sd: f64,
    },
    /// ψ: the empirical quantile at Φ(z) ([`CopulaWarp::inverse`]).
    Copula(CopulaWarp),
}

impl OutputWarp {
    /// The warp fitted on `ys`, as [`OutputWarp::apply`] fits it, turned around.
    pub fn back(self, ys: &[f64]) -> WarpBack {
        match self {
            OutputWarp::Standardize => {
                let (mean, sd) = standardization(ys);
                WarpBack::Linear { mean, sd }
            }
            OutputWarp::Copula => WarpBack::Copula(CopulaWarp::fit(ys)),
        }
    }
}

impl WarpBack {
    /// A Gaussian prediction N(z, sd²) in the warped units as (centre, half-width) in the
    /// losses' units: Δ's mean and sd exactly; under ψ, which is monotone, the median ψ⁻¹(z)
    /// and half the distance between ψ⁻¹(z − sd) and ψ⁻¹(z + sd) (the central 68 %).
    pub fn prediction(&self, z: f64, sd: f64) -> (f64, f64) {
        match self {
            WarpBack::Linear { mean, sd: scale } => (mean + scale * z, scale * sd),
            WarpBack::Copula(c) => (c.inverse(z), (c.inverse(z + sd) - c.inverse(z - sd)) / 2.0),
        }
    }
}

impl CopulaWarp {
    /// ψ⁻¹(z): the smallest observed value y with F(y) ≥ Φ(z) (the empirical quantile; the
    /// empirical CDF is a step function, so a prediction maps onto an observed value).
    pub fn inverse(&self, z: f64) -> f64 {
        let n = self.sorted.len();
        if n == 0 {
            return f64::NAN;
        }
        let p = crate::stats::normal_cdf(z);
        let k = ((p * n as f64).ceil() as usize).clamp(1, n);
        self.sorted[k - 1]
    }
}

/// The paper's "+MO" scalarization (§5.2): each objective warped by `warp` (fitted on its own
/// values), then averaged. `columns[l][i]` is the loss of objective `l` at point `i`.
pub fn scalarize(columns: &[Vec<f64>], warp: OutputWarp) -> Vec<f64> {
    let weights = vec![1.0 / columns.len().max(1) as f64; columns.len()];
    scalarize_weighted(columns, &weights, warp)
}

/// Σ_l α_l·Z(y_l): the weighted scalarizations of the paper's Fig. 6 (α and 1 − α).
pub fn scalarize_weighted(columns: &[Vec<f64>], weights: &[f64], warp: OutputWarp) -> Vec<f64> {
    let n = columns.first().map_or(0, Vec::len);
    let mut sum = vec![0.0; n];
    for (column, w) in columns.iter().zip(weights) {
        for (s, z) in sum.iter_mut().zip(warp.apply(column)) {
            *s += w * z;
        }
    }
    sum
}

/// [`scalarize`] for points given as loss vectors (`points[i][l]`).
pub fn scalarize_points(points: &[Vec<f64>], warp: OutputWarp) -> Vec<f64> {
    let objectives = points.first().map_or(0, Vec::len);
    let columns: Vec<Vec<f64>> = (0..objectives).map(|l| points.iter().map(|p| p[l]).collect()).collect();
    scalarize(&columns, warp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::normal_cdf;

    #[test]
    fn a_warp_turned_around_gives_the_losses_back() {
        // Δ of (1, 2, 3, 6): mean 3, population sd √3.5; z = 1 is 3 + √3.5, an sd of 0.5 is
        // 0.5·√3.5.
        let back = OutputWarp::Standardize.back(&[1.0, 2.0, 3.0, 6.0]);
        let (value, sd) = back.prediction(1.0, 0.5);
        assert!((value - (3.0 + 3.5f64.sqrt())).abs() < 1e-14 && (sd - 0.5 * 3.5f64.sqrt()).abs() < 1e-14);
        // ψ of 4 values: Φ(0) = 0.5 → the 2nd smallest (⌈0.5·4⌉ = 2); Φ(1) = 0.841 → the 4th
        // (⌈3.37⌉); Φ(−1) = 0.159 → the 1st (⌈0.63⌉). So the median 2 and half of 6 − 1.
        let back = OutputWarp::Copula.back(&[6.0, 1.0, 3.0, 2.0]);
        assert_eq!(back.prediction(0.0, 1.0), (2.0, 2.5));
        // And ψ⁻¹ undoes ψ on every observed value (away from the winsorized ends).
        let ys = [0.5, 0.1, 0.9, 0.3, 0.7, 0.2];
        let c = CopulaWarp::fit(&ys);
        for y in [0.2, 0.3, 0.5, 0.7] {
            assert_eq!(c.inverse(c.psi(y) - 1e-6), y, "{y}");
        }
    }

    #[test]
    fn delta_formula() {
        // N = 100: 1 / (4 · 100^{1/4} · √(π · ln 100))
        let expected = 1.0 / (4.0 * 10f64.sqrt() * (std::f64::consts::PI * 100f64.ln()).sqrt());
        assert!((delta_n(100) - expected).abs() < 1e-15);
        assert!((delta_n(100) - 0.020_786).abs() < 1e-5);
    }

    #[test]
    fn psi_is_monotone_finite_and_clipped() {
        let ys: Vec<f64> = (0..200).map(|i| ((i * 37) % 200) as f64 * 0.01).collect();
        let w = CopulaWarp::fit(&ys);
        let mut sorted = ys.clone();
        sorted.sort_by(f64::total_cmp);
        let z = w.transform(&sorted);
        assert!(z.windows(2).all(|p| p[1] >= p[0]), "ψ must be non-decreasing");
        let d = delta_n(200);
        assert!((normal_cdf(z[0]) - d).abs() < 1e-12 && (normal_cdf(z[199]) - (1.0 - d)).abs() < 1e-12);
        assert!(w.psi(-1e9).is_finite() && w.psi(1e9).is_finite());
    }

    #[test]
    fn psi_marginal_is_close_to_standard_normal() {
        // Heavy-tailed, skewed input (exp of a uniform grid): ψ(y) has mean ≈ 0 and sd ≈ 1.
        let ys: Vec<f64> = (0..5000).map(|i| ((i as f64 + 0.5) / 5000.0 * 8.0).exp()).collect();
        let z = CopulaWarp::fit(&ys).transform(&ys);
        let mean = z.iter().sum::<f64>() / z.len() as f64;
        let sd = (z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / z.len() as f64).sqrt();
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((sd - 1.0).abs() < 0.03, "sd {sd}");
    }

    #[test]
    fn scalarization_averages_the_warped_objectives() {
        let points = vec![vec![1.0, 30.0], vec![2.0, 10.0], vec![3.0, 20.0]];
        let s = scalarize_points(&points, OutputWarp::Standardize);
        let a = standardize(&[1.0, 2.0, 3.0]);
        let b = standardize(&[30.0, 10.0, 20.0]);
        for i in 0..3 {
            assert!((s[i] - (a[i] + b[i]) / 2.0).abs() < 1e-15);
        }
        // ψ only sees ranks: rescaling one objective changes nothing.
        let rescaled: Vec<Vec<f64>> = points.iter().map(|p| vec![p[0], p[1] * 1e6]).collect();
        assert_eq!(scalarize_points(&points, OutputWarp::Copula), scalarize_points(&rescaled, OutputWarp::Copula));
    }

    #[test]
    fn standardize_has_zero_mean_unit_sd() {
        let z = standardize(&[1.0, 2.0, 3.0, 4.0]);
        assert!(z.iter().sum::<f64>().abs() < 1e-12);
        assert!((z.iter().map(|v| v * v).sum::<f64>() / 4.0 - 1.0).abs() < 1e-12);
        assert_eq!(standardize(&[2.0, 2.0]), vec![0.0, 0.0]);
    }
}
