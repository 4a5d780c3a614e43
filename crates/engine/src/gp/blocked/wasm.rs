//! [`super::accumulate`]'s 4 × 4 tile with WebAssembly SIMD (two f64 lanes per vector), for
//! the page and its workers.
//!
//! Why by hand: as for the x86-64 tiles ([`super::x86`]), LLVM's code for the loop over
//! `[[f64; 4]; 4]` is at the mercy of its cost model; here each row of the tile is two
//! vectors, and a step is exactly the portable tile's — `sum + a·b`, `sum + (a − b)·(a − b)`
//! or `sum − a·b`, lane by lane, a multiply then an add (wasm has no fused multiply-add in
//! its SIMD128 set) — so the page still gives the CLI's bits (`tests/wasm_engine.rs` checks
//! `BLOCKED_FINGERPRINT`).

use core::arch::wasm32::{
    f32x4_add, f32x4_mul, f32x4_splat, f32x4_sub, f64x2_add, f64x2_mul, f64x2_splat, f64x2_sub, v128, v128_load, v128_store,
};

use super::Term;

#[inline(always)]
fn step<T: Term, const SUB: bool>(sum: v128, a: v128, b: v128) -> v128 {
    if SUB {
        f64x2_sub(sum, f64x2_mul(a, b))
    } else if T::SQUARED_DIFFERENCE {
        let d = f64x2_sub(a, b);
        f64x2_add(sum, f64x2_mul(d, d))
    } else {
        f64x2_add(sum, f64x2_mul(a, b))
    }
}

/// The 4 × 4 tile: `acc` ±= T(a[k·sa + r], b[k·sb + c]) for k in 0..len, in order.
#[inline(always)]
pub(super) fn tile4<T: Term, const SUB: bool>((a, sa): (&[f64], usize), (b, sb): (&[f64], usize), len: usize, acc: &mut [[f64; 4]; 4]) {
    assert!(len == 0 || (a.len() >= (len - 1) * sa + 4 && b.len() >= (len - 1) * sb + 4), "tile operands too short");
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    // SAFETY (every load and store): the reads were bounds-checked just above; `acc` rows
    // hold 4 f64 each; v128_load and v128_store need no alignment.
    let mut t: [[v128; 2]; 4] = acc.map(|row| unsafe { [v128_load(row.as_ptr().cast()), v128_load(row.as_ptr().add(2).cast())] });
    for k in 0..len {
        let (b0, b1) = unsafe { (v128_load(bp.add(k * sb).cast()), v128_load(bp.add(k * sb + 2).cast())) };
        for (r, t) in t.iter_mut().enumerate() {
            let ar = f64x2_splat(unsafe { *ap.add(k * sa + r) });
            t[0] = step::<T, SUB>(t[0], ar, b0);
            t[1] = step::<T, SUB>(t[1], ar, b1);
        }
    }
    for (row, t) in acc.iter_mut().zip(t) {
        unsafe {
            v128_store(row.as_mut_ptr().cast(), t[0]);
            v128_store(row.as_mut_ptr().add(2).cast(), t[1]);
        }
    }
}

#[inline(always)]
fn step_f32<T: Term, const SUB: bool>(sum: v128, a: v128, b: v128) -> v128 {
    if SUB {
        f32x4_sub(sum, f32x4_mul(a, b))
    } else if T::SQUARED_DIFFERENCE {
        let d = f32x4_sub(a, b);
        f32x4_add(sum, f32x4_mul(d, d))
    } else {
        f32x4_add(sum, f32x4_mul(a, b))
    }
}

/// The 4 × 8 tile in f32 (four lanes per vector, so a row is two vectors as in [`tile4`]).
#[inline(always)]
pub(super) fn tile8_f32<T: Term, const SUB: bool>((a, sa): (&[f32], usize), (b, sb): (&[f32], usize), len: usize, acc: &mut [[f32; 8]; 4]) {
    assert!(len == 0 || (a.len() >= (len - 1) * sa + 4 && b.len() >= (len - 1) * sb + 8), "tile operands too short");
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    // SAFETY (every load and store): as in `tile4`; `acc` rows hold 8 f32 each.
    let mut t: [[v128; 2]; 4] = acc.map(|row| unsafe { [v128_load(row.as_ptr().cast()), v128_load(row.as_ptr().add(4).cast())] });
    for k in 0..len {
        let (b0, b1) = unsafe { (v128_load(bp.add(k * sb).cast()), v128_load(bp.add(k * sb + 4).cast())) };
        for (r, t) in t.iter_mut().enumerate() {
            let ar = f32x4_splat(unsafe { *ap.add(k * sa + r) });
            t[0] = step_f32::<T, SUB>(t[0], ar, b0);
            t[1] = step_f32::<T, SUB>(t[1], ar, b1);
        }
    }
    for (row, t) in acc.iter_mut().zip(t) {
        unsafe {
            v128_store(row.as_mut_ptr().cast(), t[0]);
            v128_store(row.as_mut_ptr().add(4).cast(), t[1]);
        }
    }
}

/// [`super::affine_rows`] in tiles of two rows of `a` by two of `w`, each of the four sums'
/// lanes two `f64x2` (lanes 0–1 and 2–3), so that the four lanes are exactly
/// [`crate::gp::dot`]'s; `out` is n × m, already sized.
pub(super) fn affine_rows(a: &[f64], (n, len): (usize, usize), w: &[f64], bias: &[f64], out: &mut [f64]) {
    use core::arch::wasm32::f64x2_extract_lane;
    let (m, whole) = (bias.len(), len - len % 4);
    assert!(a.len() >= n * len && w.len() >= m * len && out.len() >= n * m, "operands of {n} and {m} rows of {len}");
    let (ap, wp) = (a.as_ptr(), w.as_ptr());
    for i0 in (0..n).step_by(2) {
        let is = super::tile_rows::<2>(i0, n);
        for u0 in (0..m).step_by(2) {
            let us = super::tile_rows::<2>(u0, m);
            let zero = f64x2_splat(0.0);
            let mut acc = [[[zero; 2]; 2]; 2];
            for c in (0..whole).step_by(4) {
                // SAFETY: `c + 4 <= whole <= len` and every row index is below n (or m),
                // so each load lies inside its row, bounds-checked above.
                let x = is.map(|i| unsafe { [v128_load(ap.add(i * len + c).cast()), v128_load(ap.add(i * len + c + 2).cast())] });
                for (v, &u) in us.iter().enumerate() {
                    let y = unsafe { [v128_load(wp.add(u * len + c).cast()), v128_load(wp.add(u * len + c + 2).cast())] };
                    for p in 0..2 {
                        acc[p][v][0] = f64x2_add(acc[p][v][0], f64x2_mul(y[0], x[p][0]));
                        acc[p][v][1] = f64x2_add(acc[p][v][1], f64x2_mul(y[1], x[p][1]));
                    }
                }
            }
            for (p, &i) in is.iter().enumerate().take(n - i0) {
                for (v, &u) in us.iter().enumerate().take(m - u0) {
                    let [lo, hi] = acc[p][v];
                    let lanes = [
                        f64x2_extract_lane::<0>(lo),
                        f64x2_extract_lane::<1>(lo),
                        f64x2_extract_lane::<0>(hi),
                        f64x2_extract_lane::<1>(hi),
                    ];
                    out[i * m + u] =
                        super::affine_element(lanes, bias[u], &a[i * len + whole..(i + 1) * len], &w[u * len + whole..(u + 1) * len]);
                }
            }
        }
    }
}
