//! The shared network over a batch of inputs: the forward pass (every layer's activations)
//! and the backpropagation of ∂loss/∂features into the weights' gradient.
//!
//! Every number is the one a point-by-point loop gives (each sum has the same terms in the
//! same order; the tests compare bits with such a loop). What the batch changes is speed: each
//! input is loaded once for four units ([`dot4`]), and a whole layer's tanh goes through the
//! vectorised exp ([`exp_in_place`]) — one libm `exp` call per unit was over a third of an
//! ABLR run's time.

use super::AblrShape;
use crate::gp::{dot, dot4, exp_in_place};

/// Points per forward batch when only the features are wanted, so that predicting over
/// 15,625 candidates never holds all their hidden layers at once.
const FEATURE_BATCH: usize = 1024;

/// tanh of every value through one exp each: (1 − e)/(1 + e) with e = exp(−2|x|), signed as
/// x. libm's tanh goes through expm1 and was a third of a loss evaluation; this one is within
/// a few ulps away from 0 and within 1e-16 absolute near it (tested), and, being plain IEEE
/// arithmetic on libm's exp (bit for bit, see [`exp_in_place`]), gives the same bits natively
/// and in wasm.
pub(super) fn tanh_in_place(values: &mut [f64], scratch: &mut Vec<f64>) {
    scratch.clear();
    scratch.extend(values.iter().map(|x| -2.0 * x.abs()));
    exp_in_place(scratch);
    for (x, e) in values.iter_mut().zip(scratch.iter()) {
        *x = ((1.0 - e) / (1.0 + e)).copysign(*x);
    }
}

/// Input and output widths of layer `l`.
pub(super) fn layer_dims(shape: &AblrShape, l: usize) -> (usize, usize) {
    (if l == 0 { shape.input } else { shape.hidden }, shape.hidden)
}

/// Every hidden layer's activations for the inputs `xs`, each layer stored point by point
/// (`xs.len()` × hidden, row-major); the last layer holds the features φ(x).
pub(super) fn forward(shape: &AblrShape, w: &[f64], xs: &[&[f64]]) -> Vec<Vec<f64>> {
    let n = xs.len();
    let mut layers: Vec<Vec<f64>> = Vec::with_capacity(shape.layers);
    let mut scratch = Vec::new();
    let mut offset = 0;
    for l in 0..shape.layers {
        let (ni, no) = layer_dims(shape, l);
        let (weights, biases) = (&w[offset..offset + ni * no], &w[offset + ni * no..offset + ni * no + no]);
        let unit = |o: usize| &weights[o * ni..(o + 1) * ni];
        let mut out = vec![0.0; n * no];
        for (p, row) in out.chunks_exact_mut(no).enumerate() {
            let input: &[f64] = if l == 0 { xs[p] } else { &layers[l - 1][p * ni..(p + 1) * ni] };
            let mut o = 0;
            while o + 4 <= no {
                let sums = dot4(input, [unit(o), unit(o + 1), unit(o + 2), unit(o + 3)]);
                for (j, s) in sums.into_iter().enumerate() {
                    row[o + j] = biases[o + j] + s;
                }
                o += 4;
            }
            for o in o..no {
                row[o] = biases[o] + dot(unit(o), input);
            }
        }
        tanh_in_place(&mut out, &mut scratch);
        offset += ni * no + no;
        layers.push(out);
    }
    layers
}

/// The features φ(x) of every input (`xs.len()` × hidden, row-major), in batches.
pub(super) fn features(shape: &AblrShape, w: &[f64], xs: &[&[f64]]) -> Vec<f64> {
    let mut out = Vec::with_capacity(xs.len() * shape.hidden);
    for batch in xs.chunks(FEATURE_BATCH) {
        if let Some(last) = forward(shape, w, batch).pop() {
            out.extend(last);
        }
    }
    out
}

/// Adds ∂loss/∂weights to `grad` (the network's part of the gradient), given the inputs `xs`,
/// their activations `acts` from [`forward`] and ∂loss/∂φ as `scale · g_features` (row-major,
/// like the features). Every element of `grad` receives its terms point by point, in order,
/// as a point-by-point loop adds them; four points share each pass over the gradient (one
/// load and store of an element per four terms instead of per term).
pub(super) fn backprop(shape: &AblrShape, w: &[f64], xs: &[&[f64]], acts: &[Vec<f64>], g_features: &[f64], scale: f64, grad: &mut [f64]) {
    let hidden = shape.hidden;
    let last = shape.layers - 1;
    let mut offsets = Vec::with_capacity(shape.layers);
    let mut offset = 0;
    for l in 0..shape.layers {
        let (ni, no) = layer_dims(shape, l);
        offsets.push(offset);
        offset += ni * no + no;
    }
    // δ of each point of the block (BLOCK × hidden) and Wᵀδ.
    let (mut delta, mut back) = (vec![0.0; BLOCK * hidden], vec![0.0; BLOCK * hidden]);
    let mut start = 0;
    while start < xs.len() {
        let block = BLOCK.min(xs.len() - start);
        for q in 0..block {
            let p = start + q;
            let h = &acts[last][p * hidden..(p + 1) * hidden];
            for ((d, g), h) in delta[q * hidden..(q + 1) * hidden].iter_mut().zip(&g_features[p * hidden..(p + 1) * hidden]).zip(h) {
                *d = (g * scale) * (1.0 - h * h);
            }
        }
        for l in (0..shape.layers).rev() {
            let (ni, no) = layer_dims(shape, l);
            let input = |q: usize| -> &[f64] {
                let p = start + q;
                if l == 0 {
                    &xs[p][..ni.min(xs[p].len())]
                } else {
                    &acts[l - 1][p * ni..(p + 1) * ni]
                }
            };
            let off = offsets[l];
            let (weight_grad, bias_grad) = grad[off..off + ni * no + no].split_at_mut(ni * no);
            if block == BLOCK {
                let [i0, i1, i2, i3] = [input(0), input(1), input(2), input(3)];
                for (o, (row, b)) in weight_grad.chunks_exact_mut(ni).zip(bias_grad.iter_mut()).enumerate() {
                    let [d0, d1, d2, d3] = [delta[o], delta[hidden + o], delta[2 * hidden + o], delta[3 * hidden + o]];
                    for ((((g, x0), x1), x2), x3) in row.iter_mut().zip(i0).zip(i1).zip(i2).zip(i3) {
                        *g = (((*g + d0 * x0) + d1 * x1) + d2 * x2) + d3 * x3;
                    }
                    *b = (((*b + d0) + d1) + d2) + d3;
                }
            } else {
                for q in 0..block {
                    let ds = &delta[q * hidden..(q + 1) * hidden];
                    for ((row, d), b) in weight_grad.chunks_exact_mut(ni).zip(ds).zip(bias_grad.iter_mut()) {
                        for (g, x) in row.iter_mut().zip(input(q)) {
                            *g += d * x;
                        }
                        *b += d;
                    }
                }
            }
            if l > 0 {
                // δ_prev = (Wᵀδ) ⊙ (1 − h²). Each sum starts at 0 and adds w[o][k]·δ[o] for
                // the units o in order, as a one-point loop over the rows of W does.
                let weights = &w[off..off + ni * no];
                if block == BLOCK {
                    transposed_times_four(weights, ni, &delta, &mut back);
                } else {
                    for q in 0..block {
                        let b = &mut back[q * ni..(q + 1) * ni];
                        b.iter_mut().for_each(|b| *b = 0.0);
                        for (row, d) in weights.chunks_exact(ni).zip(&delta[q * hidden..(q + 1) * hidden]) {
                            for (b, wv) in b.iter_mut().zip(row) {
                                *b += wv * d;
                            }
                        }
                    }
                }
                for q in 0..block {
                    for ((d, b), h) in delta[q * hidden..(q + 1) * hidden].iter_mut().zip(&back[q * ni..(q + 1) * ni]).zip(input(q)) {
                        *d = b * (1.0 - h * h);
                    }
                }
            }
        }
        start += block;
    }
}

/// Points whose terms [`backprop`] adds in one pass over the gradient.
const BLOCK: usize = 4;

/// Wᵀδ_q for the four points' δ (`deltas`: 4 × rows of W, row-major) into `out` (4 × `ni`),
/// W being `weights` (rows of `ni`). Four inputs × four points of sums stay in registers over
/// the whole pass through W, so each weight is loaded once for four points; each sum starts
/// at 0 and adds w[o][k]·δ_q[o] for o in order, exactly as the one-point loop.
fn transposed_times_four(weights: &[f64], ni: usize, deltas: &[f64], out: &mut [f64]) {
    let units = weights.len() / ni;
    let d = |q: usize| &deltas[q * units..(q + 1) * units];
    let (d0, d1, d2, d3) = (d(0), d(1), d(2), d(3));
    let whole = ni - ni % 4;
    for k0 in (0..whole).step_by(4) {
        let mut acc = [[0.0f64; 4]; 4];
        for ((((row, &e0), &e1), &e2), &e3) in weights.chunks_exact(ni).zip(d0).zip(d1).zip(d2).zip(d3) {
            let wv = &row[k0..k0 + 4];
            for (acc, e) in acc.iter_mut().zip([e0, e1, e2, e3]) {
                for (a, wv) in acc.iter_mut().zip(wv) {
                    *a += wv * e;
                }
            }
        }
        for (q, acc) in acc.iter().enumerate() {
            out[q * ni + k0..q * ni + k0 + 4].copy_from_slice(acc);
        }
    }
    for k in whole..ni {
        let mut acc = [0.0f64; 4];
        for ((((row, &e0), &e1), &e2), &e3) in weights.chunks_exact(ni).zip(d0).zip(d1).zip(d2).zip(d3) {
            for (a, e) in acc.iter_mut().zip([e0, e1, e2, e3]) {
                *a += row[k] * e;
            }
        }
        for (q, a) in acc.into_iter().enumerate() {
            out[q * ni + k] = a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tanh_matches_libm() {
        let mut xs: Vec<f64> = (-4000..=4000).map(|i| i as f64 * 0.005 + 1e-7).collect();
        let mut scratch = Vec::new();
        let want: Vec<f64> = xs.iter().map(|&x| libm::tanh(x)).collect();
        tanh_in_place(&mut xs, &mut scratch);
        for (got, want) in xs.iter().zip(want) {
            assert!((got - want).abs() <= 1e-16 + 4.0 * f64::EPSILON * want.abs(), "{got} vs {want}");
        }
        // 800 sends the slice through libm's special path, one value at a time.
        let mut edges = [0.0, -0.0, 800.0, -800.0, f64::NAN];
        tanh_in_place(&mut edges, &mut scratch);
        assert_eq!(edges[..4].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), [0.0f64, -0.0, 1.0, -1.0].map(f64::to_bits));
        assert!(edges[4].is_nan());
    }
}
