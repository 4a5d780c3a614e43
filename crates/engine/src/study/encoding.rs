//! A configuration over a study's distributions (one internal value each, in the study's
//! order) as the methods see it: drawn fresh, encoded into the engine's [`SearchSpace`], and
//! searched as a [`ContinuousSpace`] whose points decode back onto the distributions' steps.
//! `crate::suggest` proposes the next trials with these, and its multi-fidelity session
//! draws its candidates with them; so both, in the page, the CLI and Python, get the same bits.

use rand::Rng;
use serde_json::Value;

use super::Distribution;
use crate::continuous::{ContinuousSpace, Coordinate};
use crate::space::{Hyperparameter, SearchSpace};

/// Distributions with more values than this are searched as continuous and rounded after.
const LONGEST_GRID: usize = 4096;

impl Distribution {
    /// A stepped float's or an integer's values in order, when it has at most
    /// [`LONGEST_GRID`] of them.
    fn grid(&self) -> Option<Vec<f64>> {
        match *self {
            Distribution::Float { low, high, step: Some(s), .. } if s > 0.0 && (high - low) / s < LONGEST_GRID as f64 => {
                Some((0..=((high - low) / s + 1e-9).floor() as usize).map(|k| (low + k as f64 * s).min(high)).collect())
            }
            Distribution::Int { low, high, step, .. } if step > 0 && (high - low) / step < LONGEST_GRID as i64 => {
                Some((0..=(high - low) / step).map(|k| (low + k * step) as f64).collect())
            }
            _ => None,
        }
    }

    /// How many coordinates of a searched point this distribution takes: a choice's one-hot
    /// width, else one.
    fn searched_width(&self) -> usize {
        match self {
            Distribution::Categorical { choices } => choices.len(),
            _ => 1,
        }
    }

    /// The internal value of this distribution's coordinates `x` (from its first, see
    /// [`Distribution::searched_width`]) of a point of [`searched_space`]: the likeliest
    /// choice, or the coordinate mapped back through its encoding onto the steps and bounds.
    fn decode(&self, x: &[f64]) -> f64 {
        match *self {
            Distribution::Categorical { ref choices } => (0..choices.len()).fold(0, |b, l| if x[l] > x[b] { l } else { b }) as f64,
            Distribution::Float { low, high, log, .. } => {
                let u = x[0].clamp(0.0, 1.0);
                self.on_steps(if log && low > 0.0 {
                    libm::exp(libm::log(low) + u * (libm::log(high) - libm::log(low)))
                } else {
                    low + u * (high - low)
                })
            }
            Distribution::Int { low, high, .. } => {
                // Encoded linearly ([`Distribution::kind`]), on a log scale or not.
                let u = x[0].clamp(0.0, 1.0);
                self.on_steps(low as f64 + u * (high - low) as f64)
            }
        }
    }
}

/// The engine's search space of `distributions`: each parameter of its [`Distribution::kind`].
pub fn search_space(distributions: &[(String, Distribution)]) -> SearchSpace {
    SearchSpace { params: distributions.iter().map(|(n, d)| Hyperparameter { name: n.clone(), kind: d.kind() }).collect() }
}

/// One configuration drawn from `distributions` ([`Distribution::draw`], in their order).
pub fn draw(distributions: &[(String, Distribution)], rng: &mut impl Rng) -> Vec<f64> {
    distributions.iter().map(|(_, d)| d.draw(rng)).collect()
}

/// The study's space as the methods' continuous search sees it: a float without a step is
/// free in [0, 1]; a stepped float or an integer is a grid of its values' encodings (searched
/// as free and rounded when it has more than [`LONGEST_GRID`] values); a categorical is
/// one-hot. `space` is [`search_space`] of `distributions`.
pub fn searched_space(distributions: &[(String, Distribution)], space: &SearchSpace) -> ContinuousSpace {
    let mut at = 0;
    let coordinates = distributions
        .iter()
        .zip(&space.params)
        .map(|((_, d), p)| {
            let encode = |v: f64| SearchSpace { params: vec![p.clone()] }.encode(&[v])[0];
            let c = match (d, d.grid()) {
                (Distribution::Categorical { choices }, _) => Coordinate::OneHot { at, width: choices.len() },
                (_, Some(values)) => Coordinate::Grid { at, values: values.into_iter().map(encode).collect() },
                (_, None) => Coordinate::Free { at },
            };
            at += p.encoded_width();
            c
        })
        .collect();
    ContinuousSpace { coordinates }
}

/// The configuration (internal values) a point of [`searched_space`] stands for: each
/// coordinate mapped back through its encoding and onto the distribution's steps and bounds.
pub fn decode(distributions: &[(String, Distribution)], x: &[f64]) -> Vec<f64> {
    let mut at = 0;
    distributions
        .iter()
        .map(|(_, d)| {
            let v = d.decode(&x[at..]);
            at += d.searched_width();
            v
        })
        .collect()
}

/// A configuration's external values (a number as it is, a choice as written) as internal
/// ones ([`Distribution::internal`]), or which value is not one of its distribution's.
pub fn internal(distributions: &[(String, Distribution)], row: &[Value]) -> Result<Vec<f64>, String> {
    distributions
        .iter()
        .zip(row)
        .map(|((param, d), v)| d.internal(v).ok_or_else(|| format!("{v} for '{param}', not a value of its distribution")))
        .collect()
}
