//! The parametric prior of the copula paper (Salinas et al. 2020, §3 and §5): an MLP h with
//! 3 hidden layers of 50 ReLU units and dropout 0.1 after each, with two heads
//! μθ(x) and σθ(x) = softplus(·), trained on the other tasks' warped objectives z by the
//! Gaussian negative log-likelihood of Eq. (1), each term weighted inversely to its task's
//! number of observations. Adam, learning rate 0.01, batch 64, three rounds of 1,000 steps,
//! the learning rate divided by 5 after each round.
//!
//! Weights start as PyTorch's `Linear` default, U(−1/√fan_in, 1/√fan_in); Adam uses
//! β = (0.9, 0.999), ε = 1e-8 (neither is stated in the paper). Gradients are derived by hand
//! and checked against finite differences in the tests.

use crate::smooth::{sigmoid, softplus};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::error::{EngineError, Result};
use super::optimizer::{index_below, MethodRng};

/// Training settings; the defaults are the paper's.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorSettings {
    /// Hidden layers.
    pub layers: usize,
    /// Units per hidden layer.
    pub hidden: usize,
    /// Dropout rate after each hidden layer.
    pub dropout: f64,
    /// Initial Adam learning rate.
    pub learning_rate: f64,
    /// Mini-batch size.
    pub batch: usize,
    /// Rounds of training.
    pub rounds: usize,
    /// Adam steps per round.
    pub steps_per_round: usize,
    /// Factor dividing the learning rate after each round.
    pub decay: f64,
}

impl Default for PriorSettings {
    fn default() -> Self {
        PriorSettings { layers: 3, hidden: 50, dropout: 0.1, learning_rate: 0.01, batch: 64, rounds: 3, steps_per_round: 1000, decay: 5.0 }
    }
}

/// One training example: encoded configuration, warped objective, weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// Model inputs.
    pub x: Vec<f64>,
    /// Target z (ψ- or Δ-warped objective of its task).
    pub z: f64,
    /// Weight, inversely proportional to the task's number of observations.
    pub weight: f64,
}

/// A fully connected layer, weights row-major `out × in`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Dense {
    w: Vec<f64>,
    b: Vec<f64>,
    n_in: usize,
    n_out: usize,
}

impl Dense {
    /// b + W·input. Four rows at a time: each sum still runs left to right from −0.0 (as an
    /// iterator's `sum` does, so results are bit for bit the same), but four independent
    /// chains overlap in the pipeline instead of one waiting on each add.
    fn affine(&self, input: &[f64]) -> Vec<f64> {
        let n = self.n_in;
        let input = &input[..n];
        let mut out = Vec::with_capacity(self.n_out);
        let mut blocks = self.w.chunks_exact(4 * n);
        for block in &mut blocks {
            let (r0, rest) = block.split_at(n);
            let (r1, rest) = rest.split_at(n);
            let (r2, r3) = rest.split_at(n);
            let mut acc = [-0.0f64; 4];
            for i in 0..n {
                let v = input[i];
                acc[0] += r0[i] * v;
                acc[1] += r1[i] * v;
                acc[2] += r2[i] * v;
                acc[3] += r3[i] * v;
            }
            out.extend(acc);
        }
        for row in blocks.remainder().chunks_exact(n) {
            out.push(row.iter().zip(input).map(|(w, v)| w * v).sum::<f64>());
        }
        for (o, b) in out.iter_mut().zip(&self.b) {
            *o += b;
        }
        out
    }
}

/// The MLP; flat parameter views make Adam and gradient checks simple.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorMlp {
    layers: Vec<Dense>,
}

/// Smallest σ the prior may predict (keeps the likelihood finite).
const MIN_SIGMA: f64 = 1e-6;

impl PriorMlp {
    fn new(n_in: usize, s: &PriorSettings, rng: &mut MethodRng) -> Self {
        let mut sizes = vec![n_in];
        sizes.extend(std::iter::repeat_n(s.hidden, s.layers));
        sizes.push(2);
        let layers = sizes
            .windows(2)
            .map(|w| {
                let bound = 1.0 / (w[0] as f64).sqrt();
                let mut draw = || rng.random_range(-bound..bound);
                Dense { w: (0..w[0] * w[1]).map(|_| draw()).collect(), b: (0..w[1]).map(|_| draw()).collect(), n_in: w[0], n_out: w[1] }
            })
            .collect();
        PriorMlp { layers }
    }

    fn n_params(&self) -> usize {
        self.layers.iter().map(|l| l.w.len() + l.b.len()).sum()
    }

    fn params_mut(&mut self) -> impl Iterator<Item = &mut f64> {
        self.layers.iter_mut().flat_map(|l| l.w.iter_mut().chain(l.b.iter_mut()))
    }

    /// Forward pass; `masks` (one per hidden layer) applies inverted dropout.
    fn forward(&self, x: &[f64], masks: Option<&[Vec<f64>]>) -> (Vec<Vec<f64>>, f64, f64) {
        let mut acts = vec![x.to_vec()];
        for (k, layer) in self.layers.iter().enumerate() {
            let input = acts.last().unwrap();
            let mut out = layer.affine(input);
            if k + 1 < self.layers.len() {
                for (j, v) in out.iter_mut().enumerate() {
                    // ReLU as a comparison: `max` is a per-element libm call on wasm.
                    *v = if *v > 0.0 { *v } else { 0.0 } * masks.map_or(1.0, |m| m[k][j]);
                }
            }
            acts.push(out);
        }
        let head = acts.last().unwrap();
        let (mu, s) = (head[0], head[1]);
        (acts, mu, s)
    }

    /// Predictive mean and standard deviation at `x` (no dropout).
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let (_, mu, s) = self.forward(x, None);
        (mu, softplus(s) + MIN_SIGMA)
    }

    /// μθ(x), σθ(x) and their gradients in x: what a continuous search of an acquisition
    /// built on the prior climbs (GCP+prior's, [`crate::methods::prior_gp`]). Back through the
    /// network once per head; a unit ReLU switched off passes nothing back (its one-sided
    /// derivative at exactly 0 is taken as 0, as in training).
    pub fn predict_with_gradient(&self, x: &[f64]) -> (f64, f64, Vec<f64>, Vec<f64>) {
        let (acts, mu, s) = self.forward(x, None);
        let back = |head: usize| -> Vec<f64> {
            let mut delta = vec![0.0; 2];
            delta[head] = 1.0;
            for k in (0..self.layers.len()).rev() {
                let layer = &self.layers[k];
                let mut prev = vec![0.0; layer.n_in];
                for (row, &d) in layer.w.chunks_exact(layer.n_in).zip(&delta) {
                    if d != 0.0 {
                        for (p, w) in prev.iter_mut().zip(row) {
                            *p += d * w;
                        }
                    }
                }
                if k > 0 {
                    for (p, &a) in prev.iter_mut().zip(&acts[k]) {
                        if a <= 0.0 {
                            *p = 0.0;
                        }
                    }
                }
                delta = prev;
            }
            delta
        };
        let slope = sigmoid(s);
        let dsigma = back(1).into_iter().map(|g| g * slope).collect();
        (mu, softplus(s) + MIN_SIGMA, back(0), dsigma)
    }

    /// Adds weight·∂NLL/∂θ of one example to `grad` (same order as `params_mut`); returns the loss.
    fn backward(&self, ex: &Example, masks: Option<&[Vec<f64>]>, grad: &mut [f64]) -> f64 {
        let (acts, mu, s) = self.forward(&ex.x, masks);
        let sigma = softplus(s) + MIN_SIGMA;
        let r = (ex.z - mu) / sigma;
        let loss = ex.weight * (0.5 * libm::log(2.0 * std::f64::consts::PI * sigma * sigma) + 0.5 * r * r);
        // ∂/∂μ = −w·r/σ; ∂/∂σ = w·(1/σ − r²/σ); ∂σ/∂s = sigmoid(s).
        let mut delta = vec![-ex.weight * r / sigma, ex.weight * (1.0 - r * r) / sigma * sigmoid(s)];
        let mut offsets = Vec::with_capacity(self.layers.len());
        let mut off = 0;
        for l in &self.layers {
            offsets.push(off);
            off += l.w.len() + l.b.len();
        }
        for k in (0..self.layers.len()).rev() {
            let layer = &self.layers[k];
            let input = &acts[k];
            let base = offsets[k];
            // Units that ReLU or dropout switched off have δ = 0 and add nothing (skipping
            // them leaves every sum bit for bit as it was).
            let (weight_grad, bias_grad) = grad[base..base + layer.w.len() + layer.n_out].split_at_mut(layer.w.len());
            for ((row, g_bias), &d) in weight_grad.chunks_exact_mut(layer.n_in).zip(bias_grad).zip(&delta) {
                if d != 0.0 {
                    for (g, v) in row.iter_mut().zip(input) {
                        *g += d * v;
                    }
                    *g_bias += d;
                }
            }
            if k > 0 {
                // Back through W, then through dropout and ReLU of layer k − 1's output.
                let mut prev = vec![0.0; layer.n_in];
                for (row, &d) in layer.w.chunks_exact(layer.n_in).zip(&delta) {
                    if d != 0.0 {
                        for (p, w) in prev.iter_mut().zip(row) {
                            *p += d * w;
                        }
                    }
                }
                for (i, p) in prev.iter_mut().enumerate() {
                    let active = acts[k][i] > 0.0;
                    *p = if active { *p * masks.map_or(1.0, |m| m[k - 1][i]) } else { 0.0 };
                }
                delta = prev;
            }
        }
        loss
    }
}

/// A trained prior with its training summary (serialisable: a worker trains it, the page
/// draws it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainedPrior {
    /// The network.
    pub mlp: PriorMlp,
    /// Weighted mean NLL over the training data at the end.
    pub final_loss: f64,
}

impl TrainedPrior {
    /// μθ(x), σθ(x).
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        self.mlp.predict(x)
    }

    /// μθ(x), σθ(x) and their gradients in x ([`PriorMlp::predict_with_gradient`]).
    pub fn predict_with_gradient(&self, x: &[f64]) -> (f64, f64, Vec<f64>, Vec<f64>) {
        self.mlp.predict_with_gradient(x)
    }

    /// Root mean squared error of μθ against warped targets (the paper's Fig. 4 key).
    pub fn rmse(&self, data: &[(Vec<f64>, f64)]) -> f64 {
        let mse = data.iter().map(|(x, z)| (self.predict(x).0 - z) * (self.predict(x).0 - z)).sum::<f64>() / data.len().max(1) as f64;
        mse.sqrt()
    }
}

/// Trains the prior. `progress(step, total)` is called every 100 steps; returning false cancels.
pub fn train_prior(
    data: &[Example],
    settings: &PriorSettings,
    rng: &mut MethodRng,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<TrainedPrior> {
    let Some(first) = data.first() else {
        return Err(EngineError::Method { method: "prior".into(), message: "no evaluations from other tasks to learn from".into() });
    };
    let mut mlp = PriorMlp::new(first.x.len(), settings, rng);
    let n = mlp.n_params();
    let (mut m, mut v) = (vec![0.0; n], vec![0.0; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let total = settings.rounds * settings.steps_per_round;
    let keep = 1.0 - settings.dropout;
    let mut grad = vec![0.0; n];
    let mut t = 0;
    // β₁ᵗ and β₂ᵗ as running products (portable, unlike powi).
    let (mut b1t, mut b2t) = (1.0f64, 1.0f64);
    for round in 0..settings.rounds {
        let lr = settings.learning_rate / libm::pow(settings.decay, round as f64);
        for _ in 0..settings.steps_per_round {
            t += 1;
            grad.iter_mut().for_each(|g| *g = 0.0);
            let mut weight_sum = 0.0;
            for _ in 0..settings.batch {
                let ex = &data[index_below(rng, data.len())];
                let masks: Vec<Vec<f64>> = (0..settings.layers)
                    .map(|_| (0..settings.hidden).map(|_| if rng.random::<f64>() < keep { 1.0 / keep } else { 0.0 }).collect())
                    .collect();
                mlp.backward(ex, Some(&masks), &mut grad);
                weight_sum += ex.weight;
            }
            let scale = 1.0 / weight_sum.max(1e-12);
            b1t *= b1;
            b2t *= b2;
            let (c1, c2) = (1.0 - b1t, 1.0 - b2t);
            for (i, p) in mlp.params_mut().enumerate() {
                let g = grad[i] * scale;
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                *p -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
            }
            if t % 100 == 0 && !progress(t, total) {
                return Err(EngineError::Method { method: "prior".into(), message: "cancelled".into() });
            }
        }
    }
    let mut sink = vec![0.0; n];
    let weight_sum: f64 = data.iter().map(|e| e.weight).sum();
    let final_loss = data.iter().map(|e| mlp.backward(e, None, &mut sink)).sum::<f64>() / weight_sum;
    Ok(TrainedPrior { mlp, final_loss })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::job_rng;

    #[test]
    fn backprop_matches_finite_differences_with_a_fixed_dropout_mask() {
        let mut rng = job_rng(3, "mlp");
        let s = PriorSettings { hidden: 6, ..PriorSettings::default() };
        let mlp = PriorMlp::new(4, &s, &mut rng);
        let ex = Example { x: vec![0.3, -0.7, 0.9, 0.1], z: 0.4, weight: 0.7 };
        let masks: Vec<Vec<f64>> = (0..3).map(|k| (0..6).map(|j| if (j + k) % 5 == 0 { 0.0 } else { 1.0 / 0.9 }).collect()).collect();
        let mut grad = vec![0.0; mlp.n_params()];
        mlp.backward(&ex, Some(&masks), &mut grad);
        let loss = |m: &PriorMlp| m.backward(&ex, Some(&masks), &mut vec![0.0; m.n_params()]);
        for i in (0..mlp.n_params()).step_by(7) {
            let h = 1e-6;
            let (mut a, mut b) = (mlp.clone(), mlp.clone());
            *a.params_mut().nth(i).unwrap() += h;
            *b.params_mut().nth(i).unwrap() -= h;
            let fd = (loss(&a) - loss(&b)) / (2.0 * h);
            assert!((fd - grad[i]).abs() < 1e-6 * (1.0 + fd.abs()), "param {i}: {} vs {fd}", grad[i]);
        }
    }

    #[test]
    fn the_input_gradient_matches_finite_differences() {
        let mlp = PriorMlp::new(3, &PriorSettings::default(), &mut job_rng(4, "mlp"));
        for x in [vec![0.2, 0.7, 0.4], vec![0.9, 0.1, 0.55], vec![0.0, 1.0, 0.3]] {
            let (mu, sigma, dmu, dsigma) = mlp.predict_with_gradient(&x);
            assert_eq!((mu, sigma), mlp.predict(&x));
            for d in 0..3 {
                let h = 1e-7;
                let (mut a, mut b) = (x.clone(), x.clone());
                a[d] += h;
                b[d] -= h;
                let (pa, pb) = (mlp.predict(&a), mlp.predict(&b));
                let (fm, fs) = ((pa.0 - pb.0) / (2.0 * h), (pa.1 - pb.1) / (2.0 * h));
                assert!((dmu[d] - fm).abs() < 1e-6 * (1.0 + fm.abs()), "μ, input {d}: {} vs {fm}", dmu[d]);
                assert!((dsigma[d] - fs).abs() < 1e-6 * (1.0 + fs.abs()), "σ, input {d}: {} vs {fs}", dsigma[d]);
            }
        }
    }

    #[test]
    fn learns_a_mean_and_a_spread() {
        // z = 2x₀ − 1 + noise with sd 0.1 ⇒ μ ≈ 2x₀ − 1 and σ ≈ 0.1.
        let mut rng = job_rng(5, "data");
        let data: Vec<Example> = (0..2000)
            .map(|_| {
                let x0: f64 = rng.random();
                let noise = crate::stats::normal_quantile(rng.random::<f64>().clamp(1e-9, 1.0 - 1e-9)) * 0.1;
                Example { x: vec![x0, rng.random()], z: 2.0 * x0 - 1.0 + noise, weight: 1.0 }
            })
            .collect();
        let s = PriorSettings { steps_per_round: 400, ..PriorSettings::default() };
        let prior = train_prior(&data, &s, &mut job_rng(0, "train"), &mut |_, _| true).unwrap();
        let (mu, sigma) = prior.predict(&[0.75, 0.5]);
        assert!((mu - 0.5).abs() < 0.1, "μ(0.75) = {mu}");
        assert!(sigma > 0.05 && sigma < 0.25, "σ = {sigma}");
        let rmse = prior.rmse(&data.iter().map(|e| (e.x.clone(), e.z)).collect::<Vec<_>>());
        assert!(rmse < 0.2, "rmse {rmse}");
    }
}
