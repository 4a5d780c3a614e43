//! The element types the blocked routines run in: f64 (the faithful DyHPO's exact path) and
//! f32 (the authors' code's precision, measured against it in docs/benchmarks.md).
//!
//! What differs between them is only which vector tiles compute a block of C: f64 has four
//! elements per AVX2 register and two per wasm SIMD128 register, f32 twice as many, so its
//! tiles are twice as wide. Every tile is still the plain sequential sum over k (a multiply,
//! then an add, never fused), so each type gives the same bits on every path.

use std::ops::{Add, AddAssign, Div, DivAssign, Mul, Neg, Range, Sub, SubAssign};

use super::{accumulate_tiled, Accumulate, Path, Term};

/// A floating-point element of the blocked routines.
pub(crate) trait Real:
    Copy
    + Default
    + PartialOrd
    + Send
    + Sync
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + AddAssign
    + SubAssign
    + DivAssign
    + Neg<Output = Self>
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    fn sqrt(self) -> Self;
    fn is_finite(self) -> bool;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;

    /// The tile written with vector intrinsics for this MR × NR shape, if there is one on this
    /// target (`true` when it ran): see [`super::tile`].
    fn vector_tile<T: Term, const SUB: bool, const MR: usize, const NR: usize>(
        a: (&[Self], usize),
        b: (&[Self], usize),
        len: usize,
        acc: &mut [[Self; NR]; MR],
    ) -> bool;

    /// [`accumulate_tiled`] with this type's tiles for `path`.
    fn accumulate_on<T, S, K>(path: Path, c: &mut [Self], ldc: usize, job: Accumulate<Self, S, K>)
    where
        T: Term,
        S: Fn(Range<usize>, Range<usize>) -> Range<usize>,
        K: Fn(usize, usize) -> bool;
}

/// The instruction-set variants of [`accumulate_tiled`] for one element type, with its tile
/// widths: AVX-512 (`$wide`), AVX2 (`$middle`) and the portable one (`$portable`, SSE2
/// natively, SIMD128 in wasm). Each row of a tile is two vector registers.
macro_rules! accumulate_variants {
    ($elem:ty, $wide:literal, $middle:literal, $portable:literal) => {
        fn accumulate_on<T, S, K>(path: Path, c: &mut [Self], ldc: usize, job: Accumulate<Self, S, K>)
        where
            T: Term,
            S: Fn(Range<usize>, Range<usize>) -> Range<usize>,
            K: Fn(usize, usize) -> bool,
        {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f")]
            fn wide<T: Term, S: Fn(Range<usize>, Range<usize>) -> Range<usize>, K: Fn(usize, usize) -> bool>(
                c: &mut [$elem],
                ldc: usize,
                job: Accumulate<$elem, S, K>,
            ) {
                accumulate_tiled::<$elem, T, S, K, 4, $wide>(c, ldc, job)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            fn middle<T: Term, S: Fn(Range<usize>, Range<usize>) -> Range<usize>, K: Fn(usize, usize) -> bool>(
                c: &mut [$elem],
                ldc: usize,
                job: Accumulate<$elem, S, K>,
            ) {
                accumulate_tiled::<$elem, T, S, K, 4, $middle>(c, ldc, job)
            }
            match path {
                // SAFETY: `Path::chosen` returns Avx512 only when the CPU supports AVX-512F (a
                // test forces only paths from `available`, which checks the same).
                #[cfg(target_arch = "x86_64")]
                Path::Avx512 => unsafe { wide::<T, S, K>(c, ldc, job) },
                // SAFETY: likewise for AVX2.
                #[cfg(target_arch = "x86_64")]
                Path::Avx2 => unsafe { middle::<T, S, K>(c, ldc, job) },
                Path::Portable => accumulate_tiled::<$elem, T, S, K, 4, $portable>(c, ldc, job),
            }
        }
    };
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }

    #[inline(always)]
    fn vector_tile<T: Term, const SUB: bool, const MR: usize, const NR: usize>(
        a: (&[f64], usize),
        b: (&[f64], usize),
        len: usize,
        acc: &mut [[f64; NR]; MR],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if MR == 4 && (NR == 16 || NR == 8) {
            let acc = acc.as_mut_ptr().cast::<f64>();
            // SAFETY: the tile is MR × NR = 4 × NR contiguous f64, viewed as the same shape. NR
            // is 16 only in the AVX-512 variant and 8 only in the AVX2 one, each chosen after
            // checking the CPU has the feature.
            unsafe {
                if NR == 16 {
                    super::x86::tile16::<T, SUB>(a, b, len, &mut *acc.cast::<[[f64; 16]; 4]>());
                } else {
                    super::x86::tile8::<T, SUB>(a, b, len, &mut *acc.cast::<[[f64; 8]; 4]>());
                }
            }
            return true;
        }
        #[cfg(target_arch = "wasm32")]
        if MR == 4 && NR == 4 {
            // SAFETY: the tile is 4 × 4 contiguous f64, viewed as the same shape.
            let acc = unsafe { &mut *acc.as_mut_ptr().cast::<[[f64; 4]; 4]>() };
            super::wasm::tile4::<T, SUB>(a, b, len, acc);
            return true;
        }
        let _ = (a, b, len, acc);
        false
    }

    accumulate_variants!(f64, 16, 8, 4);
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }

    #[inline(always)]
    fn vector_tile<T: Term, const SUB: bool, const MR: usize, const NR: usize>(
        a: (&[f32], usize),
        b: (&[f32], usize),
        len: usize,
        acc: &mut [[f32; NR]; MR],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if MR == 4 && (NR == 32 || NR == 16) {
            let acc = acc.as_mut_ptr().cast::<f32>();
            // SAFETY: as for f64: 4 × NR contiguous f32; NR is 32 only in the AVX-512 variant
            // and 16 only in the AVX2 one.
            unsafe {
                if NR == 32 {
                    super::x86::tile32_f32::<T, SUB>(a, b, len, &mut *acc.cast::<[[f32; 32]; 4]>());
                } else {
                    super::x86::tile16_f32::<T, SUB>(a, b, len, &mut *acc.cast::<[[f32; 16]; 4]>());
                }
            }
            return true;
        }
        #[cfg(target_arch = "wasm32")]
        if MR == 4 && NR == 8 {
            // SAFETY: the tile is 4 × 8 contiguous f32, viewed as the same shape.
            let acc = unsafe { &mut *acc.as_mut_ptr().cast::<[[f32; 8]; 4]>() };
            super::wasm::tile8_f32::<T, SUB>(a, b, len, acc);
            return true;
        }
        let _ = (a, b, len, acc);
        false
    }

    accumulate_variants!(f32, 32, 16, 8);
}
