//! [`super::accumulate`]'s 4 × 4 tile with WebAssembly SIMD (two f64 lanes per vector), for
//! the page and its workers.
//!
//! Why by hand: as for the x86-64 tiles ([`super::x86`]), LLVM's code for the loop over
//! `[[f64; 4]; 4]` is at the mercy of its cost model; here each row of the tile is two
//! vectors, and a step is exactly the portable tile's — `sum + a·b`, `sum + (a − b)·(a − b)`
//! or `sum − a·b`, lane by lane, a multiply then an add (wasm has no fused multiply-add in
//! its SIMD128 set) — so the page still gives the CLI's bits (`tests/wasm_engine.rs` checks
//! `BLOCKED_FINGERPRINT`).

use core::arch::wasm32::{f64x2_add, f64x2_mul, f64x2_splat, f64x2_sub, v128, v128_load, v128_store};

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
