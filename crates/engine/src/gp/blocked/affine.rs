//! A dense layer's pre-activations for a batch, each element bit for bit one four-lane dot
//! product: the deep kernel's network runs on it (its AVX2 and wasm tiles are in `x86.rs` and
//! `wasm.rs`).

/// `out[i·m + u] = bias[u] + dot(w[u], a[i])` for the n rows of `a` and the m = `bias.len()`
/// rows of `w` (rows of `len`, row-major): a dense layer's pre-activations for a batch, each
/// element bit for bit [`crate::gp::linalg::dot`]'s — four lanes, lane l the
/// sequential sum of the products at 4c + l, then (lane₀ + lane₁) + (lane₂ + lane₃) + tail,
/// the tail the remaining products summed in order.
///
/// In tiles of two rows of `a` by four of `w`, each of the eight sums one four-lane vector,
/// so every load feeds several products. One point at a time, the four-lane dots were
/// vectorised by LLVM across the weight rows instead of the lanes (two-wide, with shuffles):
/// 4.4 µs per LCBench point, a third of a faithful run. With AVX2 and in wasm the lanes are
/// written as intrinsics (a multiply, then an add: never fused), so the tile is what the CPU
/// runs.
pub(crate) fn affine_rows(a: &[f64], (n, len): (usize, usize), w: &[f64], bias: &[f64], out: &mut Vec<f64>) {
    let m = bias.len();
    out.clear();
    out.resize(n * m, 0.0);
    assert!(a.len() >= n * len && w.len() >= m * len, "operands of {n} and {m} rows of {len}");
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { super::x86::affine_rows_avx2(a, (n, len), w, bias, out) };
    }
    #[cfg(target_arch = "wasm32")]
    return super::wasm::affine_rows(a, (n, len), w, bias, out);
    #[allow(unreachable_code)]
    affine_rows_portable(a, (n, len), w, bias, out)
}

/// The finished element of [`affine_rows`] from its four lanes.
#[inline(always)]
pub(super) fn affine_element(lanes: [f64; 4], bias: f64, x_tail: &[f64], w_tail: &[f64]) -> f64 {
    let tail: f64 = w_tail.iter().zip(x_tail).map(|(y, x)| y * x).sum();
    bias + ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail)
}

/// Rows `first..first + 2` of a tile, the second repeating the first past the end (its sums
/// are computed and dropped), and the same for the four weight rows.
#[inline(always)]
pub(super) fn tile_rows<const R: usize>(first: usize, end: usize) -> [usize; R] {
    std::array::from_fn(|r| (first + r).min(end - 1))
}

pub(super) fn affine_rows_portable(a: &[f64], (n, len): (usize, usize), w: &[f64], bias: &[f64], out: &mut [f64]) {
    let (m, whole) = (bias.len(), len - len % 4);
    for i0 in (0..n).step_by(2) {
        let is = tile_rows::<2>(i0, n);
        for u0 in (0..m).step_by(4) {
            let us = tile_rows::<4>(u0, m);
            let mut acc = [[[0.0f64; 4]; 4]; 2];
            for c in (0..whole).step_by(4) {
                for (acc, &i) in acc.iter_mut().zip(&is) {
                    let x = &a[i * len + c..i * len + c + 4];
                    for (acc, &u) in acc.iter_mut().zip(&us) {
                        let y = &w[u * len + c..u * len + c + 4];
                        for l in 0..4 {
                            acc[l] += y[l] * x[l];
                        }
                    }
                }
            }
            for (p, &i) in is.iter().enumerate().take(n - i0) {
                for (v, &u) in us.iter().enumerate().take(m - u0) {
                    out[i * m + u] =
                        affine_element(acc[p][v], bias[u], &a[i * len + whole..(i + 1) * len], &w[u * len + whole..(u + 1) * len]);
                }
            }
        }
    }
}
