//! The Matérn-5/2 ARD kernel, k(a, b) = σ_f²·(1 + √5·r + 5r²/3)·e^{−√5·r} with
//! r² = Σ_d s_d·(a_d − b_d)², s_d = 1/ℓ_d², evaluated on sparse inputs.
//!
//! Why sparse: one-hot categoricals leave most inputs zero (NAS-Bench-201: 6 of 30), and a
//! dense 30-term distance per pair was most of a GP step. So r² is computed as
//! ‖a‖²_s + ‖b‖²_s − 2·⟨a, b⟩_s with the inner product over b's nonzeros only, clamped at 0.
//! Every sum runs over the nonzeros in increasing index with the same products, so
//! r²(a, a) is exactly 0; for distinct points the rounding error is about 1e-16·(‖a‖²_s + ‖b‖²_s),
//! at most about 6e-11 for 30 inputs in [0, 1] at the shortest lengthscale we allow (0.01), so
//! k is off by at most about 5e-9 (σ_f² ≤ 100), below the noise variance's lower bound 1e-6.

use super::exp_batch::exp_in_place;
use super::GpParams;

pub(super) const SQRT5: f64 = 2.236_067_977_499_79;

/// Kernel constants for one parameter vector (exp of the logs, computed once).
#[derive(Debug, Clone)]
pub(super) struct Kernel {
    /// s_d = 1/ℓ_d².
    pub(super) scale: Vec<f64>,
    pub(super) signal_variance: f64,
}

impl Kernel {
    pub(super) fn new(p: &GpParams) -> Self {
        Kernel { scale: (0..p.dim()).map(|d| libm::exp(-2.0 * p.0[d])).collect(), signal_variance: p.signal_variance() }
    }

    /// Matérn-5/2 value at r² and, for the gradient, the factor `slope` with
    /// ∂k/∂log ℓ_d = slope·s_d·(a_d − b_d)², slope = σ_f²·(5/3)·(1 + √5 r)·e^{−√5 r}.
    /// One value at a time: the reference for the batched [`Kernel::values_and_slopes`].
    #[cfg(test)]
    pub(super) fn value_and_slope(&self, r2: f64) -> (f64, f64) {
        let r = r2.sqrt();
        let e = libm::exp(-SQRT5 * r);
        let value = self.signal_variance * (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * e;
        (value, self.signal_variance * (5.0 / 3.0) * (1.0 + SQRT5 * r) * e)
    }

    /// [`Kernel::value_and_slope`]'s value at every r² of `r2`, into `out`, bit for bit, in
    /// loops the compiler vectorises (square roots, then all the exps, then the polynomial).
    /// `r` is scratch of the same length for the square roots (a square root costs about half
    /// an exp on SIMD units, so they are taken once).
    pub(super) fn values(&self, r2: &[f64], r: &mut [f64], out: &mut [f64]) {
        for ((o, r), &r2) in out.iter_mut().zip(r.iter_mut()).zip(r2) {
            *r = r2.sqrt();
            *o = -SQRT5 * *r;
        }
        exp_in_place(out);
        for ((o, &r), &r2) in out.iter_mut().zip(r.iter()).zip(r2) {
            let e = *o;
            *o = self.signal_variance * (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * e;
        }
    }

    /// [`Kernel::values`] and the matching slopes, bit for bit [`Kernel::value_and_slope`].
    pub(super) fn values_and_slopes(&self, r2: &[f64], r: &mut [f64], value: &mut [f64], slope: &mut [f64]) {
        for ((o, r), &r2) in value.iter_mut().zip(r.iter_mut()).zip(r2) {
            *r = r2.sqrt();
            *o = -SQRT5 * *r;
        }
        exp_in_place(value);
        for (((v, s), &r), &r2) in value.iter_mut().zip(slope.iter_mut()).zip(r.iter()).zip(r2) {
            let e = *v;
            *v = self.signal_variance * (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * e;
            *s = self.signal_variance * (5.0 / 3.0) * (1.0 + SQRT5 * r) * e;
        }
    }

    /// A point's nonzero coordinates and its squared scaled norm, ready for [`ScaledPoints::r2`].
    pub(super) fn query(&self, point: &[f64]) -> Query {
        let mut q = Query { index: Vec::new(), value: Vec::new(), norm: 0.0 };
        self.fill_query(point, &mut q);
        q
    }

    /// [`Kernel::query`] into an existing buffer (no allocation in prediction loops).
    ///
    /// Without a branch per coordinate: every coordinate is written at the next free slot,
    /// which only advances past a nonzero, and every coordinate's term goes into the norm. A
    /// zero's term is +0 (s_d is finite and positive), and adding +0 to a sum that starts at
    /// +0 changes no bit, so the norm is the nonzeros' sum in increasing index as before. Why:
    /// where the nonzeros sit differs from candidate to candidate, so the branch was
    /// mispredicted about once per nonzero; measured natively, that made this loop about half
    /// of the argmax's kernel pass outside the exp (NAS-Bench-201, 15,625 candidates).
    pub(super) fn fill_query(&self, point: &[f64], q: &mut Query) {
        let dim = point.len().min(self.scale.len());
        q.index.resize(dim, 0);
        q.value.resize(dim, 0.0);
        let mut nonzeros = 0;
        let mut norm = 0.0;
        for (d, (&v, &s)) in point.iter().zip(&self.scale).enumerate() {
            q.index[nonzeros] = d;
            q.value[nonzeros] = v;
            nonzeros += usize::from(v != 0.0);
            norm += (s * v) * v;
        }
        q.index.truncate(nonzeros);
        q.value.truncate(nonzeros);
        q.norm = norm;
    }
}

/// A point's nonzero coordinates (in increasing index) and ‖point‖²_s.
#[derive(Debug, Clone, Default)]
pub(super) struct Query {
    pub(super) index: Vec<usize>,
    pub(super) value: Vec<f64>,
    pub(super) norm: f64,
}

/// The conditioning points under one kernel: as queries, and scaled (s ⊙ x) and stored by
/// input (d×n: input d of every point is contiguous), so that the distances from a query to
/// all of them cost one multiply-add per nonzero of the query and point, in loops the compiler
/// vectorises.
#[derive(Debug, Clone)]
pub(super) struct ScaledPoints {
    pub(super) queries: Vec<Query>,
    scaled_by_input: Vec<f64>,
}

impl ScaledPoints {
    pub(super) fn new(x: &[Vec<f64>], kernel: &Kernel) -> Self {
        let mut points = ScaledPoints { queries: Vec::new(), scaled_by_input: Vec::new() };
        points.refill(x, kernel);
        points
    }

    /// [`ScaledPoints::new`] in place, reusing the memory of earlier points.
    pub(super) fn refill(&mut self, x: &[Vec<f64>], kernel: &Kernel) {
        let (n, dim) = (x.len(), kernel.scale.len());
        self.scaled_by_input.clear();
        self.scaled_by_input.resize(n * dim, 0.0);
        for (i, point) in x.iter().enumerate() {
            for (d, (s, v)) in kernel.scale.iter().zip(point).enumerate() {
                self.scaled_by_input[d * n + i] = s * v;
            }
        }
        self.queries.resize_with(n, Query::default);
        for (q, point) in self.queries.iter_mut().zip(x) {
            kernel.fill_query(point, q);
        }
    }

    /// r² from `q` to every conditioning point, into `out` (length n). Per point it is
    /// ‖x_i‖²_s + ‖q‖²_s − 2·Σ_{d ∈ nonzeros(q)} s_d·x_id·q_d with the sum in increasing d,
    /// exactly as [`ScaledPoints::r2`] computes it one point at a time (tested bit for bit).
    pub(super) fn r2_all(&self, q: &Query, out: &mut [f64]) {
        let n = self.queries.len();
        let out = &mut out[..n];
        out.fill(0.0);
        let column = |d: usize| &self.scaled_by_input[d * n..(d + 1) * n];
        // Four nonzeros per pass over `out`: each element still gets its terms one at a time
        // in increasing d (same bits), with a quarter of the loads and stores of `out`.
        let (index, value) = (q.index.chunks_exact(4), q.value.chunks_exact(4));
        let (index_rest, value_rest) = (index.remainder(), value.remainder());
        for (d, v) in index.zip(value) {
            let columns = column(d[0]).iter().zip(column(d[1])).zip(column(d[2])).zip(column(d[3]));
            for (cross, (((s0, s1), s2), s3)) in out.iter_mut().zip(columns) {
                *cross = (((*cross + s0 * v[0]) + s1 * v[1]) + s2 * v[2]) + s3 * v[3];
            }
        }
        for (&d, &v) in index_rest.iter().zip(value_rest) {
            for (cross, s) in out.iter_mut().zip(column(d)) {
                *cross += s * v;
            }
        }
        for (r2, point) in out.iter_mut().zip(&self.queries) {
            *r2 = at_least_zero(point.norm + q.norm - 2.0 * *r2);
        }
    }

    /// s_d·x_id of every conditioning point i, for input `d`.
    pub(super) fn scaled_input(&self, d: usize) -> &[f64] {
        let n = self.queries.len();
        &self.scaled_by_input[d * n..(d + 1) * n]
    }

    /// r² between conditioning point `i` and `q`, one point at a time: the reference for
    /// [`ScaledPoints::r2_all`] (and what prediction computed before it).
    #[cfg(test)]
    pub(super) fn r2(&self, i: usize, q: &Query) -> f64 {
        let n = self.queries.len();
        let mut cross = 0.0;
        for (&d, &v) in q.index.iter().zip(&q.value) {
            cross += self.scaled_by_input[d * n + i] * v;
        }
        at_least_zero(self.queries[i].norm + q.norm - 2.0 * cross)
    }
}

/// `v.max(0.0)` as a comparison (NaN gives 0 as well). Rust's `max` returns the other
/// argument for NaN where wasm's `f64.max` returns NaN, so on wasm `max` is a call to libm's
/// `fmax` per element, which kept the distance loop from being vectorised (about 5% of a GCP
/// run in V8); natively the two compile alike. Both give 0 for a negative or zero argument
/// (the sign of a zero r² cannot reach the kernel: √±0 = ±0 and exp(∓0) = 1 alike).
#[inline]
pub(super) fn at_least_zero(v: f64) -> f64 {
    if v > 0.0 {
        v
    } else {
        0.0
    }
}

/// The noise-free kernel matrix (row-major n×n) and, if asked, the matching `slope` matrix
/// of [`Kernel::value_and_slope`] (lower triangle) for the gradient.
pub(super) fn kernel_matrix(points: &ScaledPoints, kernel: &Kernel, with_slope: bool) -> (Vec<f64>, Vec<f64>) {
    let mut m = KernelMatrix::default();
    m.fill(points, kernel, with_slope);
    (m.k, m.slope)
}

/// [`kernel_matrix`]'s output and scratch, refilled in place across a fit's evaluations.
#[derive(Debug, Default)]
pub(super) struct KernelMatrix {
    pub(super) k: Vec<f64>,
    pub(super) slope: Vec<f64>,
    r2: Vec<f64>,
    r: Vec<f64>,
    values: Vec<f64>,
    slopes: Vec<f64>,
}

impl KernelMatrix {
    /// Computes [`kernel_matrix`] into `self` (`slope` empty unless `with_slope`).
    pub(super) fn fill(&mut self, points: &ScaledPoints, kernel: &Kernel, with_slope: bool) {
        let n = points.queries.len();
        self.k.resize(n * n, 0.0);
        self.slope.clear();
        if with_slope {
            self.slope.resize(n * n, 0.0);
        }
        for v in [&mut self.r2, &mut self.r, &mut self.values, &mut self.slopes] {
            v.resize(n, 0.0);
        }
        let (k, slope) = (&mut self.k, &mut self.slope);
        for j in 0..n {
            points.r2_all(&points.queries[j], &mut self.r2);
            if with_slope {
                kernel.values_and_slopes(&self.r2[j..], &mut self.r[j..], &mut self.values[j..], &mut self.slopes[j..]);
            } else {
                kernel.values(&self.r2[j..], &mut self.r[j..], &mut self.values[j..]);
            }
            for i in j..n {
                k[i * n + j] = self.values[i];
                k[j * n + i] = self.values[i];
                if with_slope {
                    slope[i * n + j] = self.slopes[i];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook dense formula, as the independent reference.
    fn dense_r2(scale: &[f64], a: &[f64], b: &[f64]) -> f64 {
        scale.iter().zip(a).zip(b).map(|((s, x), y)| s * (x - y) * (x - y)).sum()
    }

    #[test]
    fn sparse_distances_match_the_dense_formula_and_vanish_on_the_diagonal() {
        let p = GpParams(vec![-1.2, 0.3, 2.0, -0.4, 0.0, 0.0, 0.0]);
        let kernel = Kernel::new(&p);
        let x =
            vec![vec![1.0, 0.0, 0.0, 1.0], vec![0.0, 1.0, 0.0, 1.0], vec![0.3, 0.0, 0.7, 0.25], vec![0.0; 4], vec![0.3, 0.0, 0.7, 0.25]];
        let points = ScaledPoints::new(&x, &kernel);
        for (i, a) in x.iter().enumerate() {
            for b in &x {
                let got = points.r2(i, &kernel.query(b));
                let mut all = vec![f64::NAN; x.len()];
                points.r2_all(&kernel.query(b), &mut all);
                assert_eq!(all[i].to_bits(), got.to_bits(), "r2_all must match r2 bit for bit");
                let want = dense_r2(&kernel.scale, a, b);
                assert!((got - want).abs() < 1e-13 * (1.0 + want), "{a:?} {b:?}: {got} vs {want}");
                if a == b {
                    assert_eq!(got, 0.0, "identical points must be at distance exactly 0");
                }
            }
        }
    }

    #[test]
    fn distances_to_all_points_match_one_at_a_time_for_any_number_of_nonzeros() {
        // 0 to 11 nonzeros, so that every split into passes of four and a rest occurs.
        let dim = 11;
        let p = GpParams((0..dim).map(|d| -2.0 + 0.4 * d as f64).chain([0.0, 0.0, 0.0]).collect());
        let kernel = Kernel::new(&p);
        let point = |seed: usize| -> Vec<f64> {
            let nonzeros = seed % (dim + 1);
            (0..dim).map(|d| if (d * 7 + seed) % dim < nonzeros { ((d * 13 + seed * 5) % 17) as f64 / 16.0 + 0.01 } else { 0.0 }).collect()
        };
        let x: Vec<Vec<f64>> = (0..37).map(point).collect();
        let points = ScaledPoints::new(&x, &kernel);
        let mut all = vec![f64::NAN; x.len()];
        for seed in 100..124 {
            let b = point(seed);
            let q = kernel.query(&b);
            points.r2_all(&q, &mut all);
            for (i, a) in x.iter().enumerate() {
                assert_eq!(all[i].to_bits(), points.r2(i, &q).to_bits(), "point {i}, query with {} nonzeros", q.index.len());
                let want = dense_r2(&kernel.scale, a, &b);
                assert!((all[i] - want).abs() < 1e-12 * (1.0 + want), "{} vs {want}", all[i]);
            }
        }
    }

    #[test]
    fn a_query_holds_the_nonzeros_in_order_and_their_norm_bit_for_bit() {
        // The branchy loop the branch-free one replaced, as the reference.
        fn reference(kernel: &Kernel, point: &[f64]) -> (Vec<usize>, Vec<u64>, u64) {
            let (mut index, mut value, mut norm) = (Vec::new(), Vec::new(), 0.0);
            for (d, &v) in point.iter().enumerate().take(kernel.scale.len()) {
                if v != 0.0 {
                    index.push(d);
                    value.push(v.to_bits());
                    norm += (kernel.scale[d] * v) * v;
                }
            }
            (index, value, norm.to_bits())
        }
        let kernel = Kernel::new(&GpParams(vec![-4.6, -1.2, 0.3, 2.0, -0.4, 4.6, 0.0, 0.0, 0.0]));
        let points = [
            vec![0.0, -0.0, 1.0, 0.0, 1.0, 0.0],
            vec![-0.0; 6],
            vec![0.3, 1e-310, -0.7, 0.25, 0.0, 1.0],
            vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.9],
            vec![0.5, 0.0, 0.1],
            vec![0.5, 0.0, 0.1, 0.0, 0.3, 0.0, 0.8],
        ];
        let mut q = kernel.query(&[1.0; 6]);
        for point in &points {
            kernel.fill_query(point, &mut q);
            let got = (q.index.clone(), q.value.iter().map(|v| v.to_bits()).collect(), q.norm.to_bits());
            assert_eq!(got, reference(&kernel, point), "{point:?}");
        }
    }

    #[test]
    fn batched_values_and_slopes_are_the_single_ones_bit_for_bit() {
        let kernel = Kernel { scale: vec![1.0], signal_variance: 1.7 };
        // Distances whose exps all take the batched path (r < 316), and separately ones that
        // send their slice to libm (a single such value would hide the batched path).
        let near: Vec<f64> = (0..2000).map(|i| (i as f64 * 0.37).powi(2) * 1e-3).chain([0.0, 1e-300]).collect();
        for r2 in [near, vec![4e5, 1e6, 3.0]] {
            let (mut v, mut s, mut only, mut r) = (vec![0.0; r2.len()], vec![0.0; r2.len()], vec![0.0; r2.len()], vec![f64::NAN; r2.len()]);
            kernel.values_and_slopes(&r2, &mut r, &mut v, &mut s);
            kernel.values(&r2, &mut r, &mut only);
            for (i, &r2) in r2.iter().enumerate() {
                let (want_v, want_s) = kernel.value_and_slope(r2);
                assert_eq!(
                    (v[i].to_bits(), s[i].to_bits(), only[i].to_bits()),
                    (want_v.to_bits(), want_s.to_bits(), want_v.to_bits()),
                    "r² = {r2}"
                );
            }
        }
    }

    #[test]
    fn matern_value_and_slope_match_closed_form_and_finite_differences() {
        let kernel = Kernel { scale: vec![1.0], signal_variance: 2.0 };
        for r in [0.0, 0.3, 1.0, 2.5] {
            let (v, s) = kernel.value_and_slope(r * r);
            let m = 2.0 * (1.0 + SQRT5 * r + 5.0 * r * r / 3.0) * (-SQRT5 * r).exp();
            assert!((v - m).abs() < 1e-14);
            // ∂k/∂log ℓ = −∂k/∂r·r (r scales as 1/ℓ) = slope·r² for one input.
            let h = 1e-6;
            let f = |rr: f64| 2.0 * (1.0 + SQRT5 * rr + 5.0 * rr * rr / 3.0) * (-SQRT5 * rr).exp();
            let fd = -(f(r + h) - f(r - h)) / (2.0 * h) * r;
            assert!((fd - s * r * r).abs() < 1e-8, "r = {r}: {fd} vs {}", s * r * r);
        }
    }
}
