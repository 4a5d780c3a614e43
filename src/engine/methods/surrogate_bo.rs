//! The loop shared by the GP-based methods: after an initial design, warp the task's losses,
//! fit a GP to them, and evaluate the remaining candidate with the largest expected
//! improvement (maximised over all remaining candidates: the papers' tabular setting).

use crate::engine::error::Result;
use crate::engine::gp::{FittedGp, GpSettings};
use crate::engine::optimizer::{MethodRng, Optimizer, SearchState};
use crate::engine::stats::expected_improvement;
pub use crate::engine::warping::OutputWarp;

use super::random_search::RandomSearch;

/// GP-EI Bayesian optimization over a finite candidate set.
#[derive(Debug, Clone)]
pub struct GpEiSearch {
    warp: OutputWarp,
    initial: usize,
    settings: GpSettings,
    random: RandomSearch,
}

impl GpEiSearch {
    /// A search with `initial` random evaluations before the first GP.
    pub fn new(warp: OutputWarp, initial: usize, settings: GpSettings) -> Self {
        GpEiSearch { warp, initial: initial.max(1), settings, random: RandomSearch::new() }
    }
}

/// Index of the largest finite score (the lowest index among ties), if any.
pub fn argmax(scores: impl Iterator<Item = (usize, f64)>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in scores {
        if s.is_finite() && best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|b| b.0)
}

impl Optimizer for GpEiSearch {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        if state.history.len() < self.initial {
            return self.random.suggest(state, rng);
        }
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let z = self.warp.apply(&losses);
        let best = z.iter().copied().fold(f64::INFINITY, f64::min);
        let gp = FittedGp::fit(&x, &z, &self.settings, rng)?;
        let pick = argmax(state.candidates.iter().enumerate().filter(|(i, _)| !state.evaluated[*i]).map(|(i, c)| {
            let (m, v) = gp.predict(c);
            (i, expected_improvement(m, v.sqrt(), best))
        }));
        match pick {
            Some(i) => Ok(i),
            None => self.random.suggest(state, rng),
        }
    }
}
