//! Dense linear algebra on row-major n×n matrices for the GP: Cholesky, triangular solves
//! and the inverse from the factor. Small enough (n ≤ a few hundred) that hand-written loops
//! with independent accumulators beat pulling in a BLAS, and they run the same on wasm.

/// Dot product with four independent accumulators, so the compiler can vectorise it (a
/// single running sum is a dependency chain it must keep in order).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// [`dot`] of `a` with four vectors at once, each result bit for bit what [`dot`] gives (same
/// accumulators, same order), with every load of `a` shared: the blocked loops below are
/// about twice as fast and change no number.
#[inline]
pub fn dot4(a: &[f64], b: [&[f64]; 4]) -> [f64; 4] {
    let n = b.iter().fold(a.len(), |n, v| n.min(v.len()));
    let whole = n - n % 4;
    let mut acc = [[0.0f64; 4]; 4];
    // Zipped chunks of exactly 4 rather than indexing at k: no bounds check per step (on
    // wasm the indexed loop checked all five slices every 4 elements).
    let [b0, b1, b2, b3] = b.map(|v| v[..whole].chunks_exact(4));
    for ((((x, y0), y1), y2), y3) in a[..whole].chunks_exact(4).zip(b0).zip(b1).zip(b2).zip(b3) {
        for (acc, y) in acc.iter_mut().zip([y0, y1, y2, y3]) {
            acc[0] += x[0] * y[0];
            acc[1] += x[1] * y[1];
            acc[2] += x[2] * y[2];
            acc[3] += x[3] * y[3];
        }
    }
    let mut out = [0.0; 4];
    for ((o, acc), v) in out.iter_mut().zip(&acc).zip(&b) {
        let tail: f64 = a[whole..n].iter().zip(&v[whole..n]).map(|(x, y)| x * y).sum();
        *o = (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail;
    }
    out
}

/// Lower-triangular Cholesky factor (row-major n×n) or `None` if not positive definite.
/// Column by column (every element is the same expression as row by row), so that four rows
/// share each pass over the column's pivot row in [`dot4`].
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = Vec::new();
    cholesky_into(a, n, &mut l).then_some(l)
}

/// [`cholesky`] into `l` (resized to n×n; its upper triangle zero), reusing its memory;
/// `false` if `a` is not positive definite.
pub fn cholesky_into(a: &[f64], n: usize, l: &mut Vec<f64>) -> bool {
    l.clear();
    l.resize(n * n, 0.0);
    for j in 0..n {
        let s = a[j * n + j] - dot(&l[j * n..j * n + j], &l[j * n..j * n + j]);
        if s <= 0.0 || !s.is_finite() {
            return false;
        }
        l[j * n + j] = s.sqrt();
        let ljj = l[j * n + j];
        let mut i = j + 1;
        while i + 4 <= n {
            let pivot = &l[j * n..j * n + j];
            let rows = [
                &l[i * n..i * n + j],
                &l[(i + 1) * n..(i + 1) * n + j],
                &l[(i + 2) * n..(i + 2) * n + j],
                &l[(i + 3) * n..(i + 3) * n + j],
            ];
            let sums = dot4(pivot, rows);
            for (r, sum) in sums.iter().enumerate() {
                l[(i + r) * n + j] = (a[(i + r) * n + j] - sum) / ljj;
            }
            i += 4;
        }
        for i in i..n {
            l[i * n + j] = (a[i * n + j] - dot(&l[i * n..i * n + j], &l[j * n..j * n + j])) / ljj;
        }
    }
    true
}

/// Solves L·x = b in place.
pub fn solve_lower(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let s = b[i] - dot(&l[i * n..i * n + i], &b[..i]);
        b[i] = s / l[i * n + i];
    }
}

/// Solves Lᵀ·x = b in place (in f64, or f32 for the deep kernel's f32 fit).
pub(crate) fn solve_upper_t<R: super::blocked::Real>(l: &[R], n: usize, b: &mut [R]) {
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// (L·Lᵀ)⁻¹ = L⁻ᵀ·L⁻¹ from the Cholesky factor, exploiting the triangular and symmetric
/// structure (about n³/3 multiply-adds instead of n³ for n solves).
pub fn inverse_from_cholesky(l: &[f64], n: usize) -> Vec<f64> {
    let (mut mt, mut inv) = (Vec::new(), Vec::new());
    inverse_from_cholesky_into(l, n, &mut mt, &mut inv);
    inv
}

/// [`inverse_from_cholesky`] into `inv`, with `mt` as scratch (both resized to n×n), reusing
/// their memory.
pub fn inverse_from_cholesky_into(l: &[f64], n: usize, mt: &mut Vec<f64>, inv: &mut Vec<f64>) {
    // Row j of `mt` is column j of M = L⁻¹ (so every inner loop below is contiguous). Each
    // element needs the one before it in its row (a chain of dot, divide, dot…), so four rows
    // advance together: their dots are independent and overlap, and every element is still
    // the same dot over the same slices.
    mt.clear();
    mt.resize(n * n, 0.0);
    for first in (0..n).step_by(4) {
        let rows = first..(first + 4).min(n);
        for j in rows.clone() {
            mt[j * n + j] = 1.0 / l[j * n + j];
        }
        for i in first + 1..n {
            for j in rows.start..rows.end.min(i) {
                let s = dot(&l[i * n + j..i * n + i], &mt[j * n + j..j * n + i]);
                mt[j * n + i] = -s / l[i * n + i];
            }
        }
    }
    inv.clear();
    inv.resize(n * n, 0.0);
    for i in 0..n {
        let row = &mt[i * n + i..i * n + n];
        let col = |j: usize| &mt[j * n + i..j * n + n];
        let mut j = 0;
        while j + 4 <= i + 1 {
            let sums = dot4(row, [col(j), col(j + 1), col(j + 2), col(j + 3)]);
            for (r, &s) in sums.iter().enumerate() {
                inv[i * n + j + r] = s;
                inv[(j + r) * n + i] = s;
            }
            j += 4;
        }
        for j in j..=i {
            let s = dot(row, col(j));
            inv[i * n + j] = s;
            inv[j * n + i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_from_cholesky_inverts() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let l = cholesky(&a, 3).unwrap();
        let inv = inverse_from_cholesky(&l, 3);
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((v - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
    }

    /// The row-by-row, one-dot-at-a-time loops the blocked ones replaced (the references).
    fn cholesky_by_rows(a: &[f64], n: usize) -> Option<Vec<f64>> {
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let s = a[i * n + j] - dot(&l[i * n..i * n + j], &l[j * n..j * n + j]);
                if i == j {
                    if s <= 0.0 || !s.is_finite() {
                        return None;
                    }
                    l[i * n + i] = s.sqrt();
                } else {
                    l[i * n + j] = s / l[j * n + j];
                }
            }
        }
        Some(l)
    }

    #[test]
    fn blocked_loops_give_the_one_dot_at_a_time_numbers_bit_for_bit() {
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 16, 23, 40] {
            let a = crate::gp::blocked::tests::kernel_matrix(n);
            let l = cholesky(&a, n).unwrap();
            let reference = cholesky_by_rows(&a, n).unwrap();
            assert!(l.iter().zip(&reference).all(|(p, q)| p.to_bits() == q.to_bits()), "cholesky, n = {n}");
            let inv = inverse_from_cholesky(&l, n);
            for i in 0..n {
                for j in 0..=i {
                    let mut mt = vec![0.0; n * n];
                    for c in 0..n {
                        mt[c * n + c] = 1.0 / l[c * n + c];
                        for r in c + 1..n {
                            mt[c * n + r] = -dot(&l[r * n + c..r * n + r], &mt[c * n + c..c * n + r]) / l[r * n + r];
                        }
                    }
                    let want = dot(&mt[i * n + i..i * n + n], &mt[j * n + i..j * n + n]);
                    assert_eq!(inv[i * n + j].to_bits(), want.to_bits(), "inverse ({i}, {j}), n = {n}");
                    assert_eq!(inv[j * n + i].to_bits(), want.to_bits());
                }
            }
        }
        // Not positive definite: refused by both.
        let a = [1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert!(cholesky(&a, 3).is_none() && cholesky_by_rows(&a, 3).is_none());
    }

    #[test]
    fn solves_invert_the_factor() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let l = cholesky(&a, 3).unwrap();
        let b = [1.0, -2.0, 0.5];
        let mut x = b;
        solve_lower(&l, 3, &mut x);
        solve_upper_t(&l, 3, &mut x);
        for i in 0..3 {
            let v: f64 = (0..3).map(|k| a[i * 3 + k] * x[k]).sum();
            assert!((v - b[i]).abs() < 1e-14);
        }
        assert!(cholesky(&[1.0, 2.0, 2.0, 1.0], 2).is_none(), "indefinite matrices are refused");
    }
}
