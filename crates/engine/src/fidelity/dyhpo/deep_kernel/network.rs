//! The feature network φ(x, Y, b) of DyHPO's deep kernel ([`super`]) and its backward pass,
//! for a whole batch of points at once.
//!
//! Batched because a fit evaluates every observation each epoch and the posterior every
//! query each step: one point at a time, the network was a third of a faithful run (a `perf`
//! profile of a 500-epoch LCBench run: forward 16 %, the per-point backward most of the
//! fit's 20 %). The batch changes no number:
//! - each pre-activation is `bias + dot(w, input)` in [`dot`]'s four-lane order, from tiles
//!   of two points by four units whose sums are four-lane vectors ([`affine_rows`]);
//! - each gradient element is the same sequential sum over the points, in point order, as
//!   when every point added its share in turn — now a cache-blocked product
//!   ([`blocked::add_product`]), whose elements are sequential sums too.
//!
//! The tests keep the per-point passes as the reference and compare bit for bit.
//!
//! [`dot`]: crate::gp::dot

use rand::Rng;

use super::{CurvePoint, DeepKernelSettings, GP_PARAMS, LEAK, NOISE_FLOOR};
use crate::gp::blocked::{self, affine_rows, Operand};
use crate::optimizer::MethodRng;
use crate::smooth::softplus;

/// Layer sizes; fixes the layout of the flat parameter vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) inputs: usize,
    pub(super) h1: usize,
    pub(super) filters: usize,
    pub(super) width: usize,
    pub(super) curve_len: usize,
    pub(super) h2: usize,
}

impl Shape {
    fn w1(&self) -> usize {
        0
    }
    fn b1(&self) -> usize {
        self.h1 * (self.inputs + 1)
    }
    fn wc(&self) -> usize {
        self.b1() + self.h1
    }
    fn bc(&self) -> usize {
        self.wc() + self.filters * self.width
    }
    fn w2(&self) -> usize {
        self.bc() + self.filters
    }
    fn b2(&self) -> usize {
        self.w2() + self.h2 * self.hidden()
    }
    pub(super) fn gp(&self) -> usize {
        self.b2() + self.h2
    }
    fn len(&self) -> usize {
        self.gp() + GP_PARAMS
    }
    /// Inputs of the first dense layer: x and b/B.
    fn dense_inputs(&self) -> usize {
        self.inputs + 1
    }
    /// Width of the hidden layer: the dense units, then the pooled filters.
    fn hidden(&self) -> usize {
        self.h1 + self.filters
    }
}

/// The deep kernel's parameters (network and GP), in one flat vector for Adam.
#[derive(Debug, Clone, PartialEq)]
pub struct DeepKernel {
    pub(super) shape: Shape,
    /// Every parameter; the last four are raw length scale, raw output scale, raw noise, mean.
    pub params: Vec<f64>,
}

pub(super) fn leaky(v: f64) -> f64 {
    if v > 0.0 {
        v
    } else {
        LEAK * v
    }
}

/// The forward pass of a batch of n points, each matrix row-major with a row per point:
/// φ, and what the backward pass needs.
#[derive(Debug, Default)]
pub(super) struct Activations {
    /// x and b/B (n × (inputs + 1)).
    input: Vec<f64>,
    /// First dense layer before its LeakyReLU (n × h1).
    z1: Vec<f64>,
    /// Per filter, the curve position of the max (n × filters).
    argmax: Vec<usize>,
    /// LeakyReLU(z1), then the pooled maxima (n × (h1 + filters)).
    hidden: Vec<f64>,
    /// Output layer before its LeakyReLU (n × h2).
    z2: Vec<f64>,
    /// The features φ = LeakyReLU(z2) (n × h2).
    pub(super) phi: Vec<f64>,
}

impl DeepKernel {
    /// Fresh parameters for configurations of `inputs` features and curves of `curve_len`
    /// steps (at least the filter width).
    pub fn new(inputs: usize, curve_len: usize, s: &DeepKernelSettings, rng: &mut MethodRng) -> Self {
        let shape = Shape {
            inputs,
            h1: s.hidden1,
            filters: s.filters,
            width: s.filter_width,
            curve_len: curve_len.max(s.filter_width),
            h2: s.hidden2,
        };
        let mut params = vec![0.0; shape.len()];
        let mut fill = |from: usize, to: usize, fan_in: usize| {
            let bound = 1.0 / (fan_in.max(1) as f64).sqrt();
            for p in &mut params[from..to] {
                *p = rng.random_range(-bound..bound);
            }
        };
        fill(shape.w1(), shape.wc(), inputs + 1);
        fill(shape.wc(), shape.w2(), shape.width);
        fill(shape.w2(), shape.gp(), shape.h1 + shape.filters);
        DeepKernel { shape, params }
    }

    /// Length of the curve input.
    pub fn curve_len(&self) -> usize {
        self.shape.curve_len
    }

    pub(super) fn lengthscale(&self) -> f64 {
        softplus(self.params[self.shape.gp()])
    }
    pub(super) fn outputscale(&self) -> f64 {
        softplus(self.params[self.shape.gp() + 1])
    }
    pub(super) fn noise(&self) -> f64 {
        NOISE_FLOOR + softplus(self.params[self.shape.gp() + 2])
    }
    pub(super) fn mean(&self) -> f64 {
        self.params[self.shape.gp() + 3]
    }

    /// The features φ of `points`, row-major (a row of h2 per point).
    pub(super) fn features_flat(&self, points: &[CurvePoint]) -> Vec<f64> {
        let mut act = Activations::default();
        self.forward(points, &mut act);
        act.phi
    }

    /// The features φ of `points`.
    pub fn features(&self, points: &[CurvePoint]) -> Vec<Vec<f64>> {
        self.features_flat(points).chunks_exact(self.shape.h2.max(1)).map(<[f64]>::to_vec).collect()
    }

    /// The forward pass of `points` into `act` (its buffers reused).
    pub(super) fn forward(&self, points: &[CurvePoint], act: &mut Activations) {
        let (s, p) = (&self.shape, &self.params);
        let (n, m, nh) = (points.len(), s.dense_inputs(), s.hidden());
        act.input.clear();
        for point in points {
            debug_assert_eq!(point.x.len(), s.inputs, "a configuration of the model's width");
            act.input.extend_from_slice(&point.x);
            act.input.push(point.budget);
        }
        affine_rows(&act.input, (n, m), &p[s.w1()..s.b1()], &p[s.b1()..s.wc()], &mut act.z1);
        act.hidden.clear();
        act.hidden.resize(n * nh, 0.0);
        act.argmax.clear();
        let positions = s.curve_len + 1 - s.width;
        for (i, point) in points.iter().enumerate() {
            let hidden = &mut act.hidden[i * nh..(i + 1) * nh];
            for (h, &z) in hidden.iter_mut().zip(&act.z1[i * s.h1..(i + 1) * s.h1]) {
                *h = leaky(z);
            }
            for f in 0..s.filters {
                let w = &p[s.wc() + f * s.width..s.wc() + (f + 1) * s.width];
                let (t, v) = (0..positions)
                    .map(|t| (t, p[s.bc() + f] + w.iter().zip(&point.curve[t..t + s.width]).map(|(a, b)| a * b).sum::<f64>()))
                    .fold((0, f64::NEG_INFINITY), |best, c| if c.1 > best.1 { c } else { best });
                act.argmax.push(t);
                hidden[s.h1 + f] = v;
            }
        }
        affine_rows(&act.hidden, (n, nh), &p[s.w2()..s.b2()], &p[s.b2()..s.gp()], &mut act.z2);
        act.phi.clear();
        act.phi.extend(act.z2.iter().map(|&v| leaky(v)));
    }

    /// Adds ∂L/∂params of the network to `grad`, given ∂L/∂φ of every point of the forward
    /// pass `act` (n × h2, row-major). Each element of `grad` gets its points' terms in point
    /// order, as a per-point backward pass adds them.
    pub(super) fn backward(&self, points: &[CurvePoint], act: &Activations, dphi: &[f64], grad: &mut [f64]) {
        let (s, p) = (&self.shape, &self.params);
        let (n, m, nh) = (points.len(), s.dense_inputs(), s.hidden());
        // Output layer: ∂z2 = ∂φ through the LeakyReLU; ∂b2 = Σᵢ ∂z2ᵢ; ∂W2 = Σᵢ ∂z2ᵢ ⊗ hiddenᵢ;
        // ∂hiddenᵢ = ∂z2ᵢ · W2.
        let dz2: Vec<f64> = dphi.iter().zip(&act.z2).map(|(&g, &z)| if z > 0.0 { g } else { LEAK * g }).collect();
        add_column_sums(&dz2, s.h2, &mut grad[s.b2()..s.gp()]);
        blocked::add_product(&mut grad[s.w2()..s.b2()], nh, (s.h2, nh), Operand::Cols(&dz2, s.h2), Operand::Cols(&act.hidden, nh), n);
        let mut dhidden = vec![0.0; n * nh];
        blocked::add_product(&mut dhidden, nh, (n, nh), Operand::Rows(&dz2, s.h2), Operand::Cols(&p[s.w2()..s.b2()], nh), s.h2);
        // The convolution: only each filter's max position receives a gradient.
        for (i, point) in points.iter().enumerate() {
            for f in 0..s.filters {
                let (g, t) = (dhidden[i * nh + s.h1 + f], act.argmax[i * s.filters + f]);
                grad[s.bc() + f] += g;
                for k in 0..s.width {
                    grad[s.wc() + f * s.width + k] += g * point.curve[t + k];
                }
            }
        }
        // First dense layer: ∂z1 through its LeakyReLU; ∂b1 = Σᵢ ∂z1ᵢ; ∂W1 = Σᵢ ∂z1ᵢ ⊗ inputᵢ.
        let dz1: Vec<f64> = (0..n * s.h1)
            .map(|e| {
                let (i, u) = (e / s.h1, e % s.h1);
                let g = dhidden[i * nh + u];
                if act.z1[e] > 0.0 {
                    g
                } else {
                    LEAK * g
                }
            })
            .collect();
        add_column_sums(&dz1, s.h1, &mut grad[s.b1()..s.wc()]);
        blocked::add_product(&mut grad[s.w1()..s.b1()], m, (s.h1, m), Operand::Cols(&dz1, s.h1), Operand::Cols(&act.input, m), n);
    }
}

/// sums[u] += Σᵢ rows[i][u], in row order (rows of `width`).
fn add_column_sums(rows: &[f64], width: usize, sums: &mut [f64]) {
    for row in rows.chunks_exact(width.max(1)) {
        for (s, &v) in sums.iter_mut().zip(row) {
            *s += v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{data, small};
    use super::*;
    use crate::gp::dot;
    use rand::SeedableRng;

    /// What the backward pass needs from the forward pass of one point.
    struct Trace {
        input: Vec<f64>,
        z1: Vec<f64>,
        pooled: Vec<(usize, f64)>,
        z2: Vec<f64>,
    }

    /// The network one point at a time, as it was before the batch: the reference.
    fn forward_one(model: &DeepKernel, point: &CurvePoint) -> (Vec<f64>, Trace) {
        let (s, p) = (&model.shape, &model.params);
        let mut input = point.x.clone();
        input.push(point.budget);
        let z1: Vec<f64> = (0..s.h1)
            .map(|u| {
                let w = &p[s.w1() + u * (s.inputs + 1)..s.w1() + (u + 1) * (s.inputs + 1)];
                p[s.b1() + u] + dot(w, &input)
            })
            .collect();
        let positions = s.curve_len + 1 - s.width;
        let pooled: Vec<(usize, f64)> = (0..s.filters)
            .map(|f| {
                let w = &p[s.wc() + f * s.width..s.wc() + (f + 1) * s.width];
                (0..positions)
                    .map(|t| (t, p[s.bc() + f] + w.iter().zip(&point.curve[t..t + s.width]).map(|(a, b)| a * b).sum::<f64>()))
                    .fold((0, f64::NEG_INFINITY), |best, c| if c.1 > best.1 { c } else { best })
            })
            .collect();
        let hidden: Vec<f64> = z1.iter().map(|&v| leaky(v)).chain(pooled.iter().map(|&(_, v)| v)).collect();
        let n2 = s.h1 + s.filters;
        let z2: Vec<f64> = (0..s.h2)
            .map(|u| {
                let w = &p[s.w2() + u * n2..s.w2() + (u + 1) * n2];
                p[s.b2() + u] + dot(w, &hidden)
            })
            .collect();
        let phi = z2.iter().map(|&v| leaky(v)).collect();
        (phi, Trace { input, z1, pooled, z2 })
    }

    /// One point's backward pass, added to `grad`: the reference.
    fn backward_one(model: &DeepKernel, point: &CurvePoint, trace: &Trace, dphi: &[f64], grad: &mut [f64]) {
        let (s, p) = (&model.shape, &model.params);
        let n2 = s.h1 + s.filters;
        let dz2: Vec<f64> = dphi.iter().zip(&trace.z2).map(|(&g, &z)| if z > 0.0 { g } else { LEAK * g }).collect();
        let hidden: Vec<f64> = trace.z1.iter().map(|&v| leaky(v)).chain(trace.pooled.iter().map(|&(_, v)| v)).collect();
        let mut dhidden = vec![0.0; n2];
        for (u, &g) in dz2.iter().enumerate() {
            grad[s.b2() + u] += g;
            let row = s.w2() + u * n2;
            for ((gr, dh), (&h, &w)) in grad[row..row + n2].iter_mut().zip(dhidden.iter_mut()).zip(hidden.iter().zip(&p[row..row + n2])) {
                *gr += g * h;
                *dh += g * w;
            }
        }
        for (f, &(t, _)) in trace.pooled.iter().enumerate() {
            let g = dhidden[s.h1 + f];
            grad[s.bc() + f] += g;
            for k in 0..s.width {
                grad[s.wc() + f * s.width + k] += g * point.curve[t + k];
            }
        }
        for u in 0..s.h1 {
            let g = if trace.z1[u] > 0.0 { dhidden[u] } else { LEAK * dhidden[u] };
            grad[s.b1() + u] += g;
            let row = s.w1() + u * (s.inputs + 1);
            for (k, &v) in trace.input.iter().enumerate() {
                grad[row + k] += g * v;
            }
        }
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn the_batched_passes_give_the_bits_of_the_per_point_ones() {
        // Widths that are and are not multiples of four (the four-row passes and their
        // remainders), with and without the curve's filters, and batches past a 256-wide
        // block of the products (n = 300).
        let shapes = [
            small(),
            DeepKernelSettings { filters: 0, ..small() },
            DeepKernelSettings { hidden1: 64, hidden2: 128, ..small() },
            DeepKernelSettings { hidden1: 7, hidden2: 9, filters: 3, filter_width: 2, ..small() },
        ];
        let mut rng = MethodRng::seed_from_u64(17);
        for settings in shapes {
            for n in [1, 5, 300] {
                let model = DeepKernel::new(3, 6, &settings, &mut rng);
                let (points, _) = data(&mut rng, n, 6);
                let mut act = Activations::default();
                model.forward(&points, &mut act);
                let reference: Vec<(Vec<f64>, Trace)> = points.iter().map(|q| forward_one(&model, q)).collect();
                let phi_ref: Vec<f64> = reference.iter().flat_map(|(f, _)| f.iter().copied()).collect();
                assert_eq!(bits(&act.phi), bits(&phi_ref), "φ, {settings:?}, n = {n}");
                let dphi: Vec<f64> = (0..phi_ref.len()).map(|_| rng.random::<f64>() - 0.5).collect();
                let mut grad = vec![0.0; model.params.len()];
                model.backward(&points, &act, &dphi, &mut grad);
                let mut grad_ref = vec![0.0; model.params.len()];
                let h2 = settings.hidden2;
                for (i, (q, (_, trace))) in points.iter().zip(&reference).enumerate() {
                    backward_one(&model, q, trace, &dphi[i * h2..(i + 1) * h2], &mut grad_ref);
                }
                assert_eq!(bits(&grad), bits(&grad_ref), "gradient, {settings:?}, n = {n}");
            }
        }
    }

    #[test]
    fn a_pass_over_no_points_is_empty() {
        let mut rng = MethodRng::seed_from_u64(2);
        let model = DeepKernel::new(3, 6, &small(), &mut rng);
        assert!(model.features(&[]).is_empty());
        let mut act = Activations::default();
        model.forward(&[], &mut act);
        let mut grad = vec![0.0; model.params.len()];
        model.backward(&[], &act, &[], &mut grad);
        assert!(grad.iter().all(|&g| g == 0.0));
    }
}
