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

/// Lower-triangular Cholesky factor (row-major n×n) or `None` if not positive definite.
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
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

/// Solves L·x = b in place.
pub fn solve_lower(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let s = b[i] - dot(&l[i * n..i * n + i], &b[..i]);
        b[i] = s / l[i * n + i];
    }
}

/// Solves Lᵀ·x = b in place.
pub fn solve_upper_t(l: &[f64], n: usize, b: &mut [f64]) {
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
    // Row j of `mt` is column j of M = L⁻¹ (so every inner loop below is contiguous).
    let mut mt = vec![0.0; n * n];
    for j in 0..n {
        mt[j * n + j] = 1.0 / l[j * n + j];
        for i in j + 1..n {
            let s = dot(&l[i * n + j..i * n + i], &mt[j * n + j..j * n + i]);
            mt[j * n + i] = -s / l[i * n + i];
        }
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s = dot(&mt[i * n + i..i * n + n], &mt[j * n + i..j * n + n]);
            inv[i * n + j] = s;
            inv[j * n + i] = s;
        }
    }
    inv
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
