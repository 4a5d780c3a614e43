//! What a surrogate of the study says between its trials: a GP (the engine's, [`crate::gp`],
//! fitted as the GP methods fit theirs: inputs encoded in [0, 1], targets standardised) on
//! the complete trials, read along each parameter with the others at the best trial's values
//! (the slice view's mean ± 2 sd) and over a grid of two parameters (the contour view).
//!
//! A GP fit costs the cube of its trials: past [`MOST_TRIALS`] it is fitted on that many,
//! drawn at random with the view's seed, and the view says so.

use rand::seq::index::sample;

use super::StudyTrials;
use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpSettings};
use crate::optimizer::job_rng;
use crate::space::{Hyperparameter, ParamKind, SearchSpace};

/// The most trials the surrogate is fitted on.
pub const MOST_TRIALS: usize = 200;
/// Points along a numeric parameter's slice.
pub const SLICE_POINTS: usize = 41;
/// Points along each side of the contour's grid.
pub const CONTOUR_POINTS: usize = 21;

/// The fitted surrogate over the parameters every complete trial suggested.
pub struct Surrogate {
    gp: FittedGp,
    /// The modelled parameters (indices into the study's space).
    pub params: Vec<usize>,
    space: SearchSpace,
    /// The best complete trial's values of the modelled parameters.
    pub best: Vec<f64>,
    /// The trials it was fitted on, and how many complete trials there were.
    pub fitted_on: (usize, usize),
    mean: f64,
    scale: f64,
}

/// One point of a slice or the contour: where, the mean and its standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prediction {
    /// The parameter's raw value (a choice's index); the contour's second one in `y`.
    pub x: f64,
    /// The contour's second parameter's raw value (`NaN` for a slice).
    pub y: f64,
    /// The predicted objective value.
    pub mean: f64,
    /// Its standard deviation.
    pub sd: f64,
}

impl Surrogate {
    /// Fits the GP on `study`'s complete trials (at most [`MOST_TRIALS`], drawn with `seed`).
    pub fn fit(study: &StudyTrials, seed: u64) -> Result<Self> {
        let complete: Vec<_> = study.complete().collect();
        let params: Vec<usize> = (0..study.space.params.len()).filter(|&p| complete.iter().all(|t| t.params[p].is_some())).collect();
        if complete.len() < 2 || params.is_empty() {
            return Err(EngineError::Spec(format!(
                "'{}' has {} complete trials sharing {} parameters: a surrogate needs at least 2 trials and 1 parameter",
                study.name,
                complete.len(),
                params.len()
            )));
        }
        let space = SearchSpace { params: params.iter().map(|&p| study.space.params[p].clone()).collect() };
        let raw = |t: &super::TrialRow| params.iter().map(|&p| t.params[p].unwrap_or_default()).collect::<Vec<f64>>();
        let best = complete
            .iter()
            .min_by(|a, b| study.loss(a.values.as_ref().unwrap()[0]).total_cmp(&study.loss(b.values.as_ref().unwrap()[0])))
            .map(|t| raw(t))
            .unwrap_or_default();
        let chosen: Vec<usize> = if complete.len() > MOST_TRIALS {
            let mut rng = job_rng(seed, "surrogate");
            let mut s = sample(&mut rng, complete.len(), MOST_TRIALS).into_vec();
            s.sort_unstable();
            s
        } else {
            (0..complete.len()).collect()
        };
        let x: Vec<Vec<f64>> = chosen.iter().map(|&i| space.encode(&raw(complete[i]))).collect();
        let values: Vec<f64> = chosen.iter().map(|&i| complete[i].values.as_ref().unwrap()[0]).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt();
        let scale = if sd > 0.0 { sd } else { 1.0 };
        let y: Vec<f64> = values.iter().map(|v| (v - mean) / scale).collect();
        let gp = FittedGp::fit(&x, &y, &GpSettings::default())?;
        Ok(Surrogate { gp, params, space, best, fitted_on: (chosen.len(), complete.len()), mean, scale })
    }

    /// The prediction at the raw configuration `raw` (the modelled parameters').
    fn predict(&self, raw: &[f64]) -> (f64, f64) {
        let (m, v) = self.gp.predict(&self.space.encode(raw));
        (self.mean + self.scale * m, self.scale * v.max(0.0).sqrt())
    }

    /// The mean and sd along modelled parameter `k` (its position in [`Surrogate::params`]),
    /// the others at the best trial's values.
    pub fn slice(&self, k: usize) -> Vec<Prediction> {
        axis(&self.space.params[k], SLICE_POINTS)
            .into_iter()
            .map(|x| {
                let mut at = self.best.clone();
                at[k] = x;
                let (mean, sd) = self.predict(&at);
                Prediction { x, y: f64::NAN, mean, sd }
            })
            .collect()
    }

    /// The mean and sd over a grid of modelled parameters `a` and `b`, the others at the best
    /// trial's values; `a` varies fastest.
    pub fn contour(&self, a: usize, b: usize) -> Vec<Prediction> {
        let (xs, ys) = (axis(&self.space.params[a], CONTOUR_POINTS), axis(&self.space.params[b], CONTOUR_POINTS));
        ys.iter()
            .flat_map(|&y| xs.iter().map(move |&x| (x, y)))
            .map(|(x, y)| {
                let mut at = self.best.clone();
                at[a] = x;
                at[b] = y;
                let (mean, sd) = self.predict(&at);
                Prediction { x, y, mean, sd }
            })
            .collect()
    }
}

/// `n` raw values along a parameter: evenly spaced (in logs for a log scale), every integer
/// when there are at most `n`, every choice of a categorical.
pub fn axis(p: &Hyperparameter, n: usize) -> Vec<f64> {
    let even = |lo: f64, hi: f64| (0..n).map(move |i| lo + (hi - lo) * i as f64 / (n - 1) as f64);
    match &p.kind {
        ParamKind::Categorical { levels } => (0..levels.len()).map(|l| l as f64).collect(),
        ParamKind::Integer { lower, upper } if ((upper - lower) as usize) < n => (*lower..=*upper).map(|v| v as f64).collect(),
        ParamKind::Integer { lower, upper } => {
            let mut v: Vec<f64> = even(*lower as f64, *upper as f64).map(f64::round).collect();
            v.dedup();
            v
        }
        // The ends exactly at the bounds (exp(ln(x)) may miss x by an ulp); libm, not std, so
        // that the page (wasm) and the CLI agree to the bit.
        ParamKind::Continuous { lower, upper, log: true } => {
            let mut v: Vec<f64> = even(libm::log(*lower), libm::log(*upper)).map(libm::exp).collect();
            v[0] = *lower;
            v[n - 1] = *upper;
            v
        }
        ParamKind::Continuous { lower, upper, .. } => even(*lower, *upper).collect(),
    }
}
