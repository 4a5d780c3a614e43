//! The GP posterior of a fitted deep kernel (DyHPO's surrogate, [`super`]): the means and
//! variances of Eq. 2 of the arXiv version for many queries at once, and EI_MF's argmax,
//! which finishes only the variances that can still win.

use std::ops::Range;

use super::{blocked_algebra, correlations, factor, Algebra, CurvePoint, DeepKernel};
use crate::gp::blocked;
use crate::gp::{argmax_by_bounds, dot, exp_in_place, solve_lower, solve_upper_t, BOUND_ROWS_SHARE};

/// The GP posterior of a fitted deep kernel, ready to predict.
#[derive(Debug, Clone)]
pub struct FittedDeepKernel {
    model: DeepKernel,
    /// The observations' features φ.
    pub(super) phi: Vec<Vec<f64>>,
    /// The Cholesky factor of their kernel matrix, row-major.
    pub(super) chol: Vec<f64>,
    /// K⁻¹(y − m).
    pub(super) alpha: Vec<f64>,
}

impl FittedDeepKernel {
    /// Conditions `model` on (points, y); `None` if the kernel matrix cannot be factored.
    pub fn new(model: DeepKernel, points: &[CurvePoint], y: &[f64]) -> Option<Self> {
        Self::with(blocked_algebra(), model, points, y)
    }

    pub(super) fn with(algebra: Algebra<f64>, model: DeepKernel, points: &[CurvePoint], y: &[f64]) -> Option<Self> {
        let phi = model.features(points);
        let n = phi.len();
        let flat: Vec<f64> = phi.iter().flatten().copied().collect();
        let (mut d2, mut r, mut chol) = (Vec::new(), Vec::new(), Vec::new());
        correlations(algebra, &flat, (n, model.shape.h2), model.lengthscale(), &mut d2, &mut r);
        if !factor(algebra, &r, n, (model.outputscale(), model.noise()), &mut chol) {
            return None;
        }
        let mean = model.mean();
        let mut alpha: Vec<f64> = y.iter().map(|v| v - mean).collect();
        solve_lower(&chol, n, &mut alpha);
        solve_upper_t(&chol, n, &mut alpha);
        Some(FittedDeepKernel { model, phi, chol, alpha })
    }

    /// Posterior mean and variance of the latent f (Eq. 2) at each point.
    pub fn predict(&self, points: &[CurvePoint]) -> Vec<(f64, f64)> {
        // For all q queries at once (cache-blocked, [`blocked`]): the q × n cross-covariances
        // K*, the means m + K*·α, and the variances s − ‖L⁻¹k*‖² from one triangular solve with
        // q right-hand sides (at n = 1,000 and 2,000 queries about 10⁹ multiply-adds, a third
        // of a faithful step when it was done one query at a time).
        let (n, q) = (self.phi.len(), points.len());
        let (scale, mean) = (self.model.outputscale(), self.model.mean());
        if n == 0 {
            // No observations: the prior (and the row chunks below would yield no row at all).
            return vec![(mean, scale); q];
        }
        let (k, means) = self.cross_covariances(points);
        let mut solved = transposed_rows(&k, n, 0..n);
        blocked::solve_lower_many(&self.chol, n, &mut solved, q);
        let mut explained = vec![0.0; q];
        add_squares(&solved, &mut explained);
        means.into_iter().zip(explained).map(|(m, e)| (m, (scale - e).max(0.0))).collect()
    }

    /// The position of the query that scoring every [`FittedDeepKernel::predict`] output with
    /// `score(position, mean, variance)` would pick — the first highest score above −∞ (so never
    /// a NaN), `None` if there is none — for `score` that does not decrease as the variance
    /// grows (EI_MF's EI).
    ///
    /// Most variances are never finished, as in the GP methods' argmax (`gp::predict`):
    /// solving only the first quarter of the rows of L·v = k* gives the first terms of the sum
    /// of squares Σvᵢ², bit for bit, and the rest are nonnegative, so the variance conditioned
    /// on the first observations bounds the full one from above and the score is bounded too.
    /// Queries are finished, sixteen at a time, in order of decreasing bound until the next
    /// bound is below the best exact score.
    pub fn argmax_score(&self, points: &[CurvePoint], score: impl Fn(usize, f64, f64) -> f64) -> Option<usize> {
        self.argmax_counting(points, &score).0
    }

    /// [`FittedDeepKernel::argmax_score`], and how many queries it finished (for the tests).
    fn argmax_counting(&self, points: &[CurvePoint], score: &dyn Fn(usize, f64, f64) -> f64) -> (Option<usize>, usize) {
        // EI_MF's rule: the first score above −∞ that no later one exceeds (never a NaN).
        let admits = |s: f64| s > f64::NEG_INFINITY;
        let n = self.phi.len();
        if n == 0 || points.is_empty() {
            let scores: Vec<f64> = self.predict(points).into_iter().enumerate().map(|(p, (m, v))| score(p, m, v)).collect();
            let exact = |group: &[usize]| group.iter().map(|&p| scores[p]).collect();
            return argmax_by_bounds(scores.iter().copied(), scores.len().max(1), admits, exact);
        }
        let scale = self.model.outputscale();
        let (k, means) = self.cross_covariances(points);
        let q = means.len();
        let rows = ((n as f64 * BOUND_ROWS_SHARE) as usize).min(n);
        let mut prefix = transposed_rows(&k, n, 0..rows);
        blocked::solve_lower_rows(&self.chol, n, &mut prefix, q, 0..rows);
        let mut explained = vec![0.0; q];
        add_squares(&prefix, &mut explained);
        let bounds = (0..q).map(|p| score(p, means[p], (scale - explained[p]).max(0.0)));
        argmax_by_bounds(bounds, 16, admits, |group| {
            // The group's columns: the solved prefix, then the rest of k* to solve.
            let g = group.len();
            let mut x = vec![0.0; n * g];
            for (c, &p) in group.iter().enumerate() {
                for i in 0..rows {
                    x[i * g + c] = prefix[i * q + p];
                }
                for i in rows..n {
                    x[i * g + c] = k[p * n + i];
                }
            }
            blocked::solve_lower_rows(&self.chol, n, &mut x, g, rows..n);
            let mut sums: Vec<f64> = group.iter().map(|&p| explained[p]).collect();
            add_squares(&x[rows * g..], &mut sums);
            group.iter().zip(sums).map(|(&p, e)| score(p, means[p], (scale - e).max(0.0))).collect()
        })
    }

    /// The q × n cross-covariances K* of the queries with the observations, row-major, and
    /// the posterior means m + K*·α.
    fn cross_covariances(&self, points: &[CurvePoint]) -> (Vec<f64>, Vec<f64>) {
        let (n, q, d) = (self.phi.len(), points.len(), self.model.shape.h2);
        let (ell, scale, mean) = (self.model.lengthscale(), self.model.outputscale(), self.model.mean());
        let c = -0.5 / (ell * ell);
        let features = self.model.features_flat(points);
        let training: Vec<f64> = self.phi.iter().flatten().copied().collect();
        let mut k = blocked::cross_squared_distances(&features, q, &training, n, d);
        k.iter_mut().for_each(|v| *v *= c);
        exp_in_place(&mut k);
        k.iter_mut().for_each(|v| *v *= scale);
        let means = k.chunks_exact(n).map(|row| mean + dot(row, &self.alpha)).collect();
        (k, means)
    }

    /// The fitted parameters.
    pub fn model(&self) -> &DeepKernel {
        &self.model
    }
}

/// Rows `rows` of the transpose of the row-major q × n `k` (q = k.len() / n): each query's
/// values a column, so that one triangular solve handles them all.
fn transposed_rows(k: &[f64], n: usize, rows: Range<usize>) -> Vec<f64> {
    let q = k.len() / n;
    let mut out = vec![0.0; rows.len() * q];
    for (query, row) in k.chunks_exact(n).enumerate() {
        for (i, &v) in row[rows.clone()].iter().enumerate() {
            out[i * q + query] = v;
        }
    }
    out
}

/// sums[c] += Σᵢ x[i][c]² for the row-major x with `sums.len()` columns, row by row (each sum
/// sequential in i, so a sum continued over later rows equals one over all of them).
fn add_squares(x: &[f64], sums: &mut [f64]) {
    for row in x.chunks_exact(sums.len().max(1)) {
        for (e, &v) in sums.iter_mut().zip(row) {
            *e += v * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{data, small};
    use super::super::{fit, DeepKernelSettings};
    use super::*;
    use crate::optimizer::MethodRng;
    use rand::SeedableRng;

    #[test]
    fn the_posterior_gives_one_prediction_per_query_even_without_observations() {
        let mut rng = MethodRng::seed_from_u64(8);
        let (points, y) = data(&mut rng, 5, 6);
        let model = DeepKernel::new(3, 6, &small(), &mut rng);
        let scale = model.outputscale();
        let prior = FittedDeepKernel::new(model.clone(), &[], &[]).unwrap().predict(&points);
        assert_eq!(prior, vec![(model.mean(), scale); 5]);
        let fitted = FittedDeepKernel::new(model, &points[..2], &y[..2]).unwrap().predict(&points);
        assert_eq!(fitted.len(), 5);
        assert!(
            fitted[0].1 < scale && fitted.iter().all(|p| p.1 <= scale),
            "observing lowers the variance below the prior's {scale}: {fitted:?}"
        );
    }

    /// The first highest score above −∞ over every `predict` output: what `argmax_score`
    /// must return.
    fn full_argmax(f: &FittedDeepKernel, queries: &[CurvePoint], score: &dyn Fn(usize, f64, f64) -> f64) -> Option<usize> {
        let mut best = (f64::NEG_INFINITY, None);
        for (p, (m, v)) in f.predict(queries).into_iter().enumerate() {
            let s = score(p, m, v);
            if s > best.0 {
                best = (s, Some(p));
            }
        }
        best.1
    }

    #[test]
    fn the_pruned_argmax_picks_what_scoring_every_query_picks() {
        let mut rng = MethodRng::seed_from_u64(11);
        let settings = DeepKernelSettings { max_epochs: 15, ..Default::default() };
        let (points, y) = data(&mut rng, 300, 50);
        let queries: Vec<CurvePoint> = data(&mut rng, 600, 50).0;
        let mut model = DeepKernel::new(3, 50, &settings, &mut rng);
        fit(&mut model, &points, &y, &settings).unwrap();
        let f = FittedDeepKernel::new(model, &points, &y).unwrap();
        let means: Vec<f64> = f.predict(&queries).iter().map(|mv| mv.0).collect();
        let mut pruned_somewhere = false;
        for (k, incumbent) in [-2.0, -0.5, 0.0, 1.0].into_iter().enumerate() {
            // EI with a per-query incumbent, as EI_MF's.
            let ei = |p: usize, m: f64, v: f64| crate::stats::expected_improvement(m, v.sqrt(), incumbent + 0.01 * (p % 7) as f64);
            let (got, finished) = f.argmax_counting(&queries, &ei);
            assert_eq!(got, full_argmax(&f, &queries, &ei), "incumbent {incumbent} (case {k})");
            pruned_somewhere |= finished < queries.len();
        }
        assert!(pruned_somewhere, "the bound never pruned, so the pruning went untested");
        // Ties go to the first query; NaN and −∞ never win; none above −∞ gives None.
        type Score<'a> = &'a dyn Fn(usize, f64, f64) -> f64;
        let cases: [(&str, Score); 6] = [
            ("the variance", &|_, _, v| v),
            ("all tie", &|_, _, _| 1.0),
            ("NaN at even positions", &|p, _, _| if p % 2 == 0 { f64::NAN } else { 1.0 }),
            ("all −∞", &|_, _, _| f64::NEG_INFINITY),
            ("coarse, increasing in the variance", &|_, _, v| (v * 4.0).floor()),
            ("mean-only ties", &|p, _, _| (means[p] * 2.0).round()),
        ];
        for (what, score) in cases {
            assert_eq!(f.argmax_score(&queries, score), full_argmax(&f, &queries, score), "{what}");
        }
        // Twenty copies of the last observation come first by their bound (their variance
        // conditioned on the first quarter of the observations, which they are not in) but
        // score low exactly, so the pick is not among the first sixteen finished. (With little
        // noise, so that observing a point says much about it.)
        let mut quiet = f.model().clone();
        let gp = quiet.shape.gp();
        quiet.params[gp + 2] = -30.0;
        let f = FittedDeepKernel::new(quiet, &points, &y).unwrap();
        let mut adversarial = vec![points[299].clone(); 20];
        adversarial.extend(queries.iter().cloned());
        let full = f.predict(&adversarial);
        let v_copy = full[0].1.max(1e-300);
        let v_max = full[20..].iter().map(|mv| mv.1).fold(0.0, f64::max);
        let weight = |p: usize| if p < 20 { 0.9 * v_max / v_copy } else { 1.0 };
        let quarter = FittedDeepKernel::new(f.model().clone(), &points[..75], &y[..75]).unwrap().predict(&adversarial);
        let others_bound = quarter[20..].iter().map(|mv| mv.1).fold(0.0, f64::max);
        assert!(quarter[0].1 * weight(0) > others_bound, "the copies would not come first by their bound");
        let score = |p: usize, _: f64, v: f64| v * weight(p);
        let (got, finished) = f.argmax_counting(&adversarial, &score);
        assert_eq!(got, full_argmax(&f, &adversarial, &score));
        assert!(got.is_some_and(|p| p >= 20) && finished > 16, "{got:?} after {finished} finished");
        assert_eq!(f.argmax_score(&queries, |_, _, _| 1.0), Some(0));
        assert_eq!(f.argmax_score(&queries, |_, _, _| f64::NEG_INFINITY), None);
        // No observations: the prior for every query.
        let empty = FittedDeepKernel::new(f.model().clone(), &[], &[]).unwrap();
        assert_eq!(empty.argmax_score(&queries, |p, _, _| -((p as f64) - 5.0).abs()), Some(5));
    }
}
