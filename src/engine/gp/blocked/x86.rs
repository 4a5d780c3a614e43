//! [`super::accumulate`]'s tile with x86-64 vector intrinsics, for the AVX-512 (4 × 16) and
//! AVX2 (4 × 8) paths.
//!
//! Why by hand: written as loops over `[[f64; NR]; 4]`, LLVM's code for the tile changed with
//! every edit around it — the (a − b)² tiles kept their sums on the stack (a store and a
//! reload per step), and writing the rows out made the product tiles gather scalars instead.
//! Here each row of the tile is two vectors held in registers, and a step is exactly the
//! portable tile's: `sum + a·b`, `sum + (a − b)·(a − b)` or `sum − a·b`, lane by lane, a
//! multiply then an add (never fused), so every path still gives the same bits.

use std::arch::x86_64::{
    __m256d, __m512d, _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_storeu_pd, _mm256_sub_pd, _mm512_add_pd,
    _mm512_loadu_pd, _mm512_mul_pd, _mm512_set1_pd, _mm512_storeu_pd, _mm512_sub_pd,
};

use super::Term;

/// Panics unless the tile's reads lie inside the operands: rows of MR = 4 from `a` and of
/// `width` from `b`, `len` steps apart by their strides.
fn check_bounds(a: (&[f64], usize), b: (&[f64], usize), len: usize, width: usize) {
    assert!(len == 0 || (a.0.len() >= (len - 1) * a.1 + 4 && b.0.len() >= (len - 1) * b.1 + width), "tile operands too short");
}

#[inline]
#[target_feature(enable = "avx512f")]
fn step512<T: Term, const SUB: bool>(sum: __m512d, a: __m512d, b: __m512d) -> __m512d {
    if SUB {
        _mm512_sub_pd(sum, _mm512_mul_pd(a, b))
    } else if T::SQUARED_DIFFERENCE {
        let d = _mm512_sub_pd(a, b);
        _mm512_add_pd(sum, _mm512_mul_pd(d, d))
    } else {
        _mm512_add_pd(sum, _mm512_mul_pd(a, b))
    }
}

/// The 4 × 16 tile: `acc` ±= T(a[k·sa + r], b[k·sb + c]) for k in 0..len, in order.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn tile16<T: Term, const SUB: bool>(a: (&[f64], usize), b: (&[f64], usize), len: usize, acc: &mut [[f64; 16]; 4]) {
    check_bounds(a, b, len, 16);
    let ((ap, sa), (bp, sb)) = ((a.0.as_ptr(), a.1), (b.0.as_ptr(), b.1));
    // SAFETY (every load and store): the reads were bounds-checked just above; `acc` rows
    // hold 16 f64 each.
    let mut t: [[__m512d; 2]; 4] = acc.map(|row| unsafe { [_mm512_loadu_pd(row.as_ptr()), _mm512_loadu_pd(row.as_ptr().add(8))] });
    for k in 0..len {
        let (b0, b1) = unsafe { (_mm512_loadu_pd(bp.add(k * sb)), _mm512_loadu_pd(bp.add(k * sb + 8))) };
        for (r, t) in t.iter_mut().enumerate() {
            let ar = _mm512_set1_pd(unsafe { *ap.add(k * sa + r) });
            t[0] = step512::<T, SUB>(t[0], ar, b0);
            t[1] = step512::<T, SUB>(t[1], ar, b1);
        }
    }
    for (row, t) in acc.iter_mut().zip(t) {
        unsafe {
            _mm512_storeu_pd(row.as_mut_ptr(), t[0]);
            _mm512_storeu_pd(row.as_mut_ptr().add(8), t[1]);
        }
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn step256<T: Term, const SUB: bool>(sum: __m256d, a: __m256d, b: __m256d) -> __m256d {
    if SUB {
        _mm256_sub_pd(sum, _mm256_mul_pd(a, b))
    } else if T::SQUARED_DIFFERENCE {
        let d = _mm256_sub_pd(a, b);
        _mm256_add_pd(sum, _mm256_mul_pd(d, d))
    } else {
        _mm256_add_pd(sum, _mm256_mul_pd(a, b))
    }
}

/// The 4 × 8 tile: `acc` ±= T(a[k·sa + r], b[k·sb + c]) for k in 0..len, in order.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn tile8<T: Term, const SUB: bool>(a: (&[f64], usize), b: (&[f64], usize), len: usize, acc: &mut [[f64; 8]; 4]) {
    check_bounds(a, b, len, 8);
    let ((ap, sa), (bp, sb)) = ((a.0.as_ptr(), a.1), (b.0.as_ptr(), b.1));
    // SAFETY: as in `tile16`.
    let mut t: [[__m256d; 2]; 4] = acc.map(|row| unsafe { [_mm256_loadu_pd(row.as_ptr()), _mm256_loadu_pd(row.as_ptr().add(4))] });
    for k in 0..len {
        let (b0, b1) = unsafe { (_mm256_loadu_pd(bp.add(k * sb)), _mm256_loadu_pd(bp.add(k * sb + 4))) };
        for (r, t) in t.iter_mut().enumerate() {
            let ar = _mm256_set1_pd(unsafe { *ap.add(k * sa + r) });
            t[0] = step256::<T, SUB>(t[0], ar, b0);
            t[1] = step256::<T, SUB>(t[1], ar, b1);
        }
    }
    for (row, t) in acc.iter_mut().zip(t) {
        unsafe {
            _mm256_storeu_pd(row.as_mut_ptr(), t[0]);
            _mm256_storeu_pd(row.as_mut_ptr().add(4), t[1]);
        }
    }
}
