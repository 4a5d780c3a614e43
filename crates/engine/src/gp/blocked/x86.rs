//! [`super::accumulate`]'s tile with x86-64 vector intrinsics, for the AVX-512 (4 × 16) and
//! AVX2 (4 × 8) paths, and [`super::affine_rows`]'s AVX2 path.
//!
//! Why by hand: written as loops over `[[f64; NR]; 4]`, LLVM's code for the tile changed with
//! every edit around it — the (a − b)² tiles kept their sums on the stack (a store and a
//! reload per step), and writing the rows out made the product tiles gather scalars instead.
//! Here each row of the tile is two vectors held in registers, and a step is exactly the
//! portable tile's: `sum + a·b`, `sum + (a − b)·(a − b)` or `sum − a·b`, lane by lane, a
//! multiply then an add (never fused), so every path still gives the same bits.

use std::arch::x86_64::{
    __m256, __m256d, __m512, __m512d, _mm256_add_pd, _mm256_add_ps, _mm256_loadu_pd, _mm256_loadu_ps, _mm256_mul_pd, _mm256_mul_ps,
    _mm256_set1_pd, _mm256_set1_ps, _mm256_setzero_pd, _mm256_storeu_pd, _mm256_storeu_ps, _mm256_sub_pd, _mm256_sub_ps, _mm512_add_pd,
    _mm512_add_ps, _mm512_loadu_pd, _mm512_loadu_ps, _mm512_mul_pd, _mm512_mul_ps, _mm512_set1_pd, _mm512_set1_ps, _mm512_storeu_pd,
    _mm512_storeu_ps, _mm512_sub_pd, _mm512_sub_ps,
};

use super::Term;

/// Panics unless the tile's reads lie inside the operands: rows of MR = 4 from `a` and of
/// `width` from `b`, `len` steps apart by their strides.
fn check_bounds<E>(a: (&[E], usize), b: (&[E], usize), len: usize, width: usize) {
    assert!(len == 0 || (a.0.len() >= (len - 1) * a.1 + 4 && b.0.len() >= (len - 1) * b.1 + width), "tile operands too short");
}

/// Defines a tile of 4 × `$width` elements of `$elem` (two vectors of `$lanes` per row) and its
/// step, compiled for `$feature`: the AVX-512 and AVX2 tiles, in f64 and in f32, are the same
/// code on other vector types.
macro_rules! vector_tile {
    ($tile:ident, $step:ident, $feature:literal, $elem:ty, $vector:ty, $lanes:literal, $width:literal,
     [$load:ident, $store:ident, $splat:ident, $add:ident, $sub:ident, $mul:ident]) => {
        #[inline]
        #[target_feature(enable = $feature)]
        fn $step<T: Term, const SUB: bool>(sum: $vector, a: $vector, b: $vector) -> $vector {
            if SUB {
                $sub(sum, $mul(a, b))
            } else if T::SQUARED_DIFFERENCE {
                let d = $sub(a, b);
                $add(sum, $mul(d, d))
            } else {
                $add(sum, $mul(a, b))
            }
        }

        /// The tile: `acc` ±= T(a[k·sa + r], b[k·sb + c]) for k in 0..len, in order.
        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn $tile<T: Term, const SUB: bool>(
            a: (&[$elem], usize),
            b: (&[$elem], usize),
            len: usize,
            acc: &mut [[$elem; $width]; 4],
        ) {
            check_bounds(a, b, len, $width);
            let ((ap, sa), (bp, sb)) = ((a.0.as_ptr(), a.1), (b.0.as_ptr(), b.1));
            // SAFETY (every load and store): the reads were bounds-checked just above; each
            // row of `acc` holds two vectors' worth of elements.
            let mut t: [[$vector; 2]; 4] = acc.map(|row| unsafe { [$load(row.as_ptr()), $load(row.as_ptr().add($lanes))] });
            for k in 0..len {
                let (b0, b1) = unsafe { ($load(bp.add(k * sb)), $load(bp.add(k * sb + $lanes))) };
                for (r, t) in t.iter_mut().enumerate() {
                    let ar = $splat(unsafe { *ap.add(k * sa + r) });
                    t[0] = $step::<T, SUB>(t[0], ar, b0);
                    t[1] = $step::<T, SUB>(t[1], ar, b1);
                }
            }
            for (row, t) in acc.iter_mut().zip(t) {
                unsafe {
                    $store(row.as_mut_ptr(), t[0]);
                    $store(row.as_mut_ptr().add($lanes), t[1]);
                }
            }
        }
    };
}

vector_tile!(
    tile16,
    step512,
    "avx512f",
    f64,
    __m512d,
    8,
    16,
    [_mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd, _mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd]
);
vector_tile!(
    tile8,
    step256,
    "avx2",
    f64,
    __m256d,
    4,
    8,
    [_mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd, _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd]
);
vector_tile!(
    tile32_f32,
    step512_f32,
    "avx512f",
    f32,
    __m512,
    16,
    32,
    [_mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps]
);
vector_tile!(
    tile16_f32,
    step256_f32,
    "avx2",
    f32,
    __m256,
    8,
    16,
    [_mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps]
);

/// [`super::affine_rows`] in tiles of two rows of `a` by four of `w`, each sum's four lanes
/// one AVX2 vector (the portable loop's lanes exactly).
#[target_feature(enable = "avx2")]
pub(super) fn affine_rows_avx2(a: &[f64], (n, len): (usize, usize), w: &[f64], bias: &[f64], out: &mut [f64]) {
    let (m, whole) = (bias.len(), len - len % 4);
    // SAFETY (every load): `c + 4 <= whole <= len` and every row index is below n (or m), so
    // each four-element load lies inside its row, which `affine_rows` checked is in bounds.
    for i0 in (0..n).step_by(2) {
        let is = super::tile_rows::<2>(i0, n);
        for u0 in (0..m).step_by(4) {
            let us = super::tile_rows::<4>(u0, m);
            let mut acc: [[__m256d; 4]; 2] = [[_mm256_setzero_pd(); 4]; 2];
            for c in (0..whole).step_by(4) {
                let x = is.map(|i| unsafe { _mm256_loadu_pd(a.as_ptr().add(i * len + c)) });
                for (v, &u) in us.iter().enumerate() {
                    let y = unsafe { _mm256_loadu_pd(w.as_ptr().add(u * len + c)) };
                    for p in 0..2 {
                        acc[p][v] = _mm256_add_pd(acc[p][v], _mm256_mul_pd(y, x[p]));
                    }
                }
            }
            for (p, &i) in is.iter().enumerate().take(n - i0) {
                for (v, &u) in us.iter().enumerate().take(m - u0) {
                    let mut lanes = [0.0; 4];
                    // SAFETY: `lanes` holds four f64.
                    unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), acc[p][v]) };
                    out[i * m + u] =
                        super::affine_element(lanes, bias[u], &a[i * len + whole..(i + 1) * len], &w[u * len + whole..(u + 1) * len]);
                }
            }
        }
    }
}
