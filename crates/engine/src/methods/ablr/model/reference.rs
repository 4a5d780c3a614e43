//! The point-by-point ABLR loss and gradient as they were before the batched network
//! (`network.rs`), kept only as the tests' reference: the batched code must give the same bits.

use super::network::layer_dims;
use super::{blr_fit, log_precision, AblrParams, AblrShape, TaskData, TaskPosterior};
use crate::gp::dot;

fn tanh(x: f64) -> f64 {
    let e = libm::exp(-2.0 * x.abs());
    ((1.0 - e) / (1.0 + e)).copysign(x)
}

fn forward(shape: &AblrShape, w: &[f64], x: &[f64]) -> Vec<Vec<f64>> {
    let mut acts: Vec<Vec<f64>> = Vec::with_capacity(shape.layers);
    let mut offset = 0;
    for l in 0..shape.layers {
        let (ni, no) = layer_dims(shape, l);
        let input: &[f64] = if l == 0 { x } else { &acts[l - 1] };
        let (weights, biases) = (&w[offset..offset + ni * no], &w[offset + ni * no..offset + ni * no + no]);
        let h: Vec<f64> = (0..no).map(|o| tanh(biases[o] + dot(&weights[o * ni..(o + 1) * ni], input))).collect();
        offset += ni * no + no;
        acts.push(h);
    }
    acts
}

/// The task's NLL, ∂NLL/∂Φ row by row with one dot product per entry, and ∂NLL/∂(log α, log β).
/// The regression itself is the production [`blr_fit`]: the batching changed only the network
/// and ∂NLL/∂Φ, so that is what this reference re-derives.
fn task_nll(phi: &[Vec<f64>], y: &[f64], log_alpha: f64, log_beta: f64) -> Option<(f64, Vec<Vec<f64>>, [f64; 2])> {
    let d = phi.first()?.len();
    let fit = blr_fit(&phi.concat(), d, y, log_alpha, log_beta)?;
    let TaskPosterior { m, a_inv, beta } = &fit.posterior;
    let grad_phi: Vec<Vec<f64>> = phi
        .iter()
        .zip(&fit.residuals)
        .map(|(row, ri)| (0..d).map(|j| beta * (dot(row, &a_inv[j * d..(j + 1) * d]) - ri * m[j])).collect()) // A⁻¹ is symmetric: row j = column j
        .collect();
    Some((fit.nll, grad_phi, fit.grad_log_precisions))
}

pub(super) fn loss_and_grad(params: &AblrParams, tasks: &[TaskData]) -> Option<(f64, Vec<f64>)> {
    let shape = params.shape;
    let net = shape.network_len();
    let w = &params.values[..net];
    let scale = 1.0 / tasks.iter().map(|t| t.1.len()).sum::<usize>().max(1) as f64;
    let mut grad = vec![0.0; params.values.len()];
    let mut total = 0.0;
    for (t, (xs, ys)) in tasks.iter().enumerate() {
        let acts: Vec<Vec<Vec<f64>>> = xs.iter().map(|x| forward(&shape, w, x)).collect();
        let phi: Vec<Vec<f64>> = acts.iter().map(|a| a[shape.layers - 1].clone()).collect();
        let (la, dla) = log_precision(params.values[net + 2 * t]);
        let (lb, dlb) = log_precision(params.values[net + 2 * t + 1]);
        let (nll, g_phi, g_ab) = task_nll(&phi, ys, la, lb)?;
        total += scale * nll;
        grad[net + 2 * t] += scale * g_ab[0] * dla;
        grad[net + 2 * t + 1] += scale * g_ab[1] * dlb;
        for ((x, a), g) in xs.iter().zip(&acts).zip(g_phi) {
            let g: Vec<f64> = g.iter().map(|v| v * scale).collect();
            backprop(&shape, w, x, a, g, &mut grad[..net]);
        }
    }
    total.is_finite().then_some((total, grad))
}

fn backprop(shape: &AblrShape, w: &[f64], x: &[f64], acts: &[Vec<f64>], g_out: Vec<f64>, grad: &mut [f64]) {
    let offsets: Vec<usize> = (0..shape.layers)
        .scan(0, |o, l| {
            let (ni, no) = layer_dims(shape, l);
            let start = *o;
            *o += ni * no + no;
            Some(start)
        })
        .collect();
    let mut delta: Vec<f64> = g_out.iter().zip(&acts[shape.layers - 1]).map(|(g, h)| g * (1.0 - h * h)).collect();
    for l in (0..shape.layers).rev() {
        let (ni, no) = layer_dims(shape, l);
        let input: &[f64] = if l == 0 { x } else { &acts[l - 1] };
        let off = offsets[l];
        for (o, d) in delta.iter().enumerate() {
            for (g, x) in grad[off + o * ni..off + (o + 1) * ni].iter_mut().zip(input) {
                *g += d * x;
            }
            grad[off + ni * no + o] += d;
        }
        if l > 0 {
            // δ_prev = (Wᵀδ) ⊙ (1 − h²), accumulated row by row of W (contiguous).
            let mut back = vec![0.0; ni];
            for (o, d) in delta.iter().enumerate() {
                for (b, wv) in back.iter_mut().zip(&w[off + o * ni..off + (o + 1) * ni]) {
                    *b += wv * d;
                }
            }
            delta = back.iter().zip(input).map(|(b, h)| b * (1.0 - h * h)).collect();
        }
    }
}
