//! The precision of a fit's n × n algebra. The authors' public code (PyTorch) fits DyHPO's
//! surrogate in float32; ours is exact f64 unless asked otherwise, and f32 is measured against
//! it (likelihood, gradient, picks: docs/benchmarks.md, "Float32").

use crate::gp::blocked::{self, Real};
use crate::gp::{exp_in_place, solve_lower};

/// The element type of the kernel matrix, its factor and K⁻¹ during a fit. The network, the
/// scalar sums of the likelihood and the posterior (EI_MF) stay f64 either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// Exact f64: the default and what every replication in docs/replication.md ran.
    #[default]
    F64,
    /// f32, as the authors' code: half the memory traffic, twice the lanes per vector.
    F32,
}

/// What an evaluation needs of its element type beyond [`Real`]'s blocked routines.
pub(super) trait Element: Real {
    /// exp of every element, in place.
    fn exp_in_place(v: &mut [Self]);
    /// Solves L·x = b in place (L row-major n × n lower triangular).
    fn solve_lower(l: &[Self], n: usize, b: &mut [Self]);
    /// The network's features (row-major, f64) as this type: for f64 the features themselves.
    fn features<'a>(phi: &'a [f64], buffer: &'a mut Vec<Self>) -> &'a [Self];
}

impl Element for f64 {
    fn exp_in_place(v: &mut [f64]) {
        exp_in_place(v)
    }
    fn solve_lower(l: &[f64], n: usize, b: &mut [f64]) {
        // The four-lane dot products the exact path has always used (its bits are pinned).
        solve_lower(l, n, b)
    }
    fn features<'a>(phi: &'a [f64], _: &'a mut Vec<f64>) -> &'a [f64] {
        phi
    }
}

impl Element for f32 {
    fn exp_in_place(v: &mut [f32]) {
        v.iter_mut().for_each(|x| *x = libm::expf(*x));
    }
    fn solve_lower(l: &[f32], n: usize, b: &mut [f32]) {
        // One right-hand side of the blocked forward substitution: sequential sums.
        blocked::solve_lower_many(l, n, b, 1)
    }
    fn features<'a>(phi: &'a [f64], buffer: &'a mut Vec<f32>) -> &'a [f32] {
        buffer.clear();
        buffer.extend(phi.iter().map(|&v| v as f32));
        buffer
    }
}
