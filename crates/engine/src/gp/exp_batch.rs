//! `exp` over a whole slice, bit for bit what `libm::exp` returns, in a loop the compiler can
//! vectorise (simd128 on wasm; natively with AVX2, chosen at run time).
//!
//! Why: every kernel value costs one exp (plus a square root), and one libm call per value was
//! about an eighth of a GP run's time natively. Identical bits matter because the replication
//! traces were produced with libm's exp and must not move.
//!
//! How: the same algorithm as libm 0.2's `exp` (FreeBSD `e_exp.c`: reduction x = k·ln2 + r
//! with r = hi − lo, a degree-5 rational approximation, scaling by 2^k), with the same
//! constants and the same operations in the same order, its three reduction branches turned
//! into selects. The scaling 2^k·y is one exact multiplication for every k libm reaches without
//! its special cases; a slice holding any of those (|x| ≥ 708.39…, NaN, ±∞) goes through
//! `libm::exp` one value at a time instead. A unit test compares the fast path bit for bit with
//! `libm::exp`.

// libm's constants, by their bit patterns (as its source lists them).
const LN2HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);

/// High word of |x| from which libm takes its overflow / underflow paths (|x| ≥ 708.39…).
const SPECIAL: u32 = 0x4086_232b;

/// High word of |x|.
fn high_word(x: f64) -> u32 {
    ((x.to_bits() >> 32) as u32) & 0x7fff_ffff
}

/// Replaces every `x` by `libm::exp(x)`, bit for bit. A slice holding any argument of libm's
/// special paths goes through `libm::exp` one value at a time.
pub(crate) fn exp_in_place(xs: &mut [f64]) {
    if xs.iter().fold(false, |special, &x| special | (high_word(x) >= SPECIAL)) {
        for x in xs.iter_mut() {
            *x = libm::exp(*x);
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { exp_lanes_avx2(xs) };
        return;
    }
    exp_lanes::<{ cfg!(target_arch = "wasm32") }>(xs);
}

/// [`exp_lanes`] compiled for AVX2, chosen at run time where the CPU has it. LLVM's cost
/// model keeps the loop scalar for baseline x86-64 (SSE2) and SSE4.2, so natively it ran one
/// value at a time, no faster than `libm::exp`; with AVX2 it runs four lanes. The same IEEE
/// operations in the same order (Rust never fuses a multiply and an add, and FMA is not
/// enabled here), so the same bits, which the tests check on whichever path the CPU takes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn exp_lanes_avx2(xs: &mut [f64]) {
    exp_lanes::<false>(xs);
}

/// Truncation toward zero of `t` (|t| < 2³¹): `f64::trunc` on wasm, whose SIMD has no
/// f64 → i32 lane conversion (through `as i32` the loop ran one lane at a time there);
/// through i32 natively, where baseline x86-64 has that conversion but no vector `trunc`
/// (a libm call per value). The same integer either way; the tests run both natively.
#[inline]
fn truncate<const IN_F64: bool>(t: f64) -> f64 {
    if IN_F64 {
        t.trunc()
    } else {
        t as i32 as f64
    }
}

/// The fast path of [`exp_in_place`] for a slice without special arguments (inlined, so that
/// [`exp_lanes_avx2`] compiles its own copy with AVX2).
#[inline(always)]
fn exp_lanes<const TRUNC_IN_F64: bool>(xs: &mut [f64]) {
    for x in xs.iter_mut() {
        let v = *x;
        let a = v.abs();
        // libm's reduction: k from the rounded quotient when |x| ≥ 1.5·ln2, ±1 when
        // 0.5·ln2 < |x| < 1.5·ln2, 0 below (where hi = x and lo = 0, which the formulas
        // below reproduce exactly with k = 0). k is kept as an f64 (thresholds on |x| for
        // libm's on its high word, copysign for its sign bit) so that every lane operation
        // exists in wasm SIMD; it is the same integer (|k| ≤ 1022).
        let k_far = truncate::<TRUNC_IN_F64>(INVLN2 * v + 0.5f64.copysign(v));
        let kf = if a >= NEAR_FROM {
            if a >= FAR_FROM {
                k_far
            } else {
                1.0f64.copysign(v)
            }
        } else {
            0.0
        };
        let hi = v - kf * LN2HI;
        let lo = kf * LN2LO;
        let r = hi - lo;
        let rr = r * r;
        let c = r - rr * (P1 + rr * (P2 + rr * (P3 + rr * (P4 + rr * P5))));
        let y = 1. + (r * c / (2. - c) - lo + hi);
        // 2^k is a normal number for every k reached here (|k| ≤ 1022), so y·2^k rounds as
        // libm's scalbn does (one multiplication), and y·2^0 = y. Its exponent field is
        // k + 1023, read off the low bits of k + 1.5·2⁵² (exact for integer k), whose other
        // bits the shift drops.
        let scale = f64::from_bits((kf + TWO_52_AND_A_HALF).to_bits().wrapping_add(0x3ff) << 52);
        // |x| ≤ 2⁻²⁸: libm returns 1 + x.
        *x = if a >= TINY_ABOVE { y * scale } else { 1. + v };
    }
}

/// |x| from which libm reduces with k = ±1 (high word above 0x3fd6_2e42, 0.5·ln2).
const NEAR_FROM: f64 = f64::from_bits(0x3fd6_2e43 << 32);
/// |x| from which libm reduces with the rounded k (high word from 0x3ff0_a2b2, 1.5·ln2).
const FAR_FROM: f64 = f64::from_bits(0x3ff0_a2b2 << 32);
/// |x| from which libm evaluates the polynomial (high word above 0x3e30_0000, 2⁻²⁸).
const TINY_ABOVE: f64 = f64::from_bits(0x3e30_0001 << 32);
/// 1.5·2⁵²: adding it to an integer below 2⁵¹ in magnitude puts the integer in the low bits.
const TWO_52_AND_A_HALF: f64 = 6_755_399_441_055_744.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::job_rng;
    use rand::Rng;

    fn check_slice(xs: &[f64]) {
        let compare = |got: Vec<f64>, how: &str| {
            for (x, g) in xs.iter().zip(got) {
                let want = libm::exp(*x);
                assert!(g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()), "{how}: exp({x:e}) = {g:e}, libm {want:e}");
            }
        };
        let mut got = xs.to_vec();
        exp_in_place(&mut got);
        compare(got, "exp_in_place");
        // Both truncations, whichever this target uses (special arguments are libm's).
        if xs.iter().all(|&x| high_word(x) < SPECIAL) {
            for in_f64 in [false, true] {
                let mut got = xs.to_vec();
                if in_f64 {
                    exp_lanes::<true>(&mut got);
                } else {
                    exp_lanes::<false>(&mut got);
                }
                compare(got, if in_f64 { "truncation in f64" } else { "truncation through i32" });
            }
        }
    }

    /// The arguments of the fast path as one slice (one special argument would send the whole
    /// slice to libm, and the test could not fail), then the special ones on their own.
    fn check(xs: Vec<f64>) {
        let (fast, special): (Vec<f64>, Vec<f64>) = xs.into_iter().partition(|&x| high_word(x) < SPECIAL);
        assert!(fast.len() > 100_000 && !special.is_empty());
        check_slice(&fast);
        check_slice(&special);
    }

    #[test]
    fn matches_libm_bit_for_bit_across_the_range_and_at_every_branch_boundary() {
        let mut rng = job_rng(11, "exp");
        // Uniform over the kernel's range (−√5·r for r up to ~600), over the whole double
        // range, and log-uniform magnitudes of both signs down to 1e-20.
        let mut xs: Vec<f64> = (0..200_000).map(|_| -1400.0 * rng.random::<f64>()).collect();
        xs.extend((0..50_000).map(|_| 1500.0 * (rng.random::<f64>() - 0.5)));
        xs.extend((0..50_000).map(|_| {
            let m = 10f64.powf(-20.0 + 23.0 * rng.random::<f64>());
            if rng.random::<bool>() {
                m
            } else {
                -m
            }
        }));
        // Around each threshold of libm's branches (high words and their exact values).
        for high in [0x3e30_0000u64, 0x3fd6_2e42, 0x3ff0_a2b2, 0x4086_232b] {
            for low in [0u64, 1, 0x7fff_ffff, 0xffff_fffe, 0xffff_ffff] {
                for sign in [0u64, 1 << 63] {
                    let bits = sign | (high << 32) | low;
                    for step in -3i64..=3 {
                        xs.push(f64::from_bits((bits as i64 + step) as u64));
                    }
                }
            }
        }
        let ln2 = std::f64::consts::LN_2;
        for m in [0.5, 1.5, 1022.0, 1022.5, 1074.0] {
            for x in [m * ln2, -m * ln2] {
                xs.extend([x, x.next_up(), x.next_down()]);
            }
        }
        xs.extend([0.0, -0.0, 709.782712893384, 709.79, -708.396_418_532_264_1, -745.1332191019411, -745.2, -800.0]);
        xs.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE, -f64::MIN_POSITIVE, f64::MAX, f64::MIN]);
        check(xs);
    }
}
