//! The loop shared by the GP-based methods: after an initial design, warp the task's losses,
//! fit a GP to them, and evaluate the remaining candidate with the largest expected
//! improvement (maximised over all remaining candidates: the papers' tabular setting).
//!
//! Two hooks serve the transfer baselines: a list of points to evaluate first (WS-GP: the
//! nearest remaining candidate to each point) and a box the search is restricted to (AutoGP).

use std::collections::VecDeque;

use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::{index_below, Acquisition, Belief, MethodRng, Optimizer, SearchState};
use crate::stats::expected_improvement;
pub use crate::warping::OutputWarp;

/// A coordinatewise box in the model's input space.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchBox {
    /// Lower corner.
    pub lower: Vec<f64>,
    /// Upper corner.
    pub upper: Vec<f64>,
}

impl SearchBox {
    /// The smallest box containing `points` (None when there are none).
    pub fn bounding(points: &[Vec<f64>]) -> Option<Self> {
        let first = points.first()?;
        let mut b = SearchBox { lower: first.clone(), upper: first.clone() };
        for p in &points[1..] {
            for ((lo, hi), &v) in b.lower.iter_mut().zip(b.upper.iter_mut()).zip(p) {
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
        }
        Some(b)
    }

    /// True when `x` lies inside (bounds included).
    pub fn contains(&self, x: &[f64]) -> bool {
        x.iter().zip(&self.lower).zip(&self.upper).all(|((v, lo), hi)| *v >= *lo && *v <= *hi)
    }
}

/// GP-EI Bayesian optimization over a finite candidate set.
#[derive(Debug, Clone)]
pub struct GpEiSearch {
    warp: OutputWarp,
    initial: usize,
    settings: GpSettings,
    warm_start: VecDeque<Vec<f64>>,
    region: Option<SearchBox>,
    last_params: Option<GpParams>,
    recording: bool,
    belief: Option<Belief>,
}

impl GpEiSearch {
    /// A search with `initial` uniformly random evaluations before the first GP.
    pub fn new(warp: OutputWarp, initial: usize, settings: GpSettings) -> Self {
        GpEiSearch {
            warp,
            initial: initial.max(1),
            settings,
            warm_start: VecDeque::new(),
            region: None,
            last_params: None,
            recording: false,
            belief: None,
        }
    }

    /// Evaluates, first, the remaining candidate nearest to each of `points`, in order.
    pub fn with_warm_start(mut self, points: Vec<Vec<f64>>) -> Self {
        self.initial = self.initial.min(points.len().max(1));
        self.warm_start = points.into();
        self
    }

    /// Restricts the search to candidates inside `region` (all candidates if none is inside).
    pub fn within(mut self, region: SearchBox) -> Self {
        self.region = Some(region);
        self
    }

    /// Remaining candidates the search may pick from.
    fn allowed(&self, state: &SearchState) -> Vec<usize> {
        let remaining = (0..state.candidates.len()).filter(|&i| !state.evaluated[i]);
        if let Some(region) = &self.region {
            let inside: Vec<usize> = remaining.clone().filter(|&i| region.contains(&state.candidates[i])).collect();
            if !inside.is_empty() {
                return inside;
            }
        }
        remaining.collect()
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

fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

impl Optimizer for GpEiSearch {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        self.belief = None;
        let allowed = self.allowed(state);
        if allowed.is_empty() {
            return Err(EngineError::Method { method: "GP".into(), message: "no candidate left".into() });
        }
        if let Some(point) = self.warm_start.pop_front() {
            let nearest = (0..state.candidates.len())
                .filter(|&i| !state.evaluated[i])
                .min_by(|&a, &b| squared_distance(&state.candidates[a], &point).total_cmp(&squared_distance(&state.candidates[b], &point)));
            if let Some(i) = nearest {
                return Ok(i);
            }
        }
        if state.history.len() < self.initial {
            return Ok(allowed[index_below(rng, allowed.len())]);
        }
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let z = self.warp.apply(&losses);
        let best = z.iter().copied().fold(f64::INFINITY, f64::min);
        let gp = FittedGp::fit_from(&x, &z, &self.settings, self.last_params.as_ref(), rng)?;
        self.last_params = Some(gp.params().clone());
        let pick = gp.argmax_score(state.candidates, &allowed, |_, m, v| expected_improvement(m, v.sqrt(), best));
        if self.recording {
            self.belief = Some(belief_of(&gp, state.candidates, &allowed, z, |m, s| expected_improvement(m, s, best)));
        }
        Ok(pick.unwrap_or(allowed[0]))
    }

    fn record_beliefs(&mut self) -> bool {
        self.recording = true;
        true
    }

    fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }
}

/// The GP's mean and sd at every candidate, the acquisition `score(mean, sd)` at those in
/// `open` (EI; NaN elsewhere), and the observations `z` it was fitted on.
pub fn belief_of(gp: &FittedGp, candidates: &[Vec<f64>], open: &[usize], z: Vec<f64>, score: impl Fn(f64, f64) -> f64) -> Belief {
    let all: Vec<usize> = (0..candidates.len()).collect();
    let (mean, sd): (Vec<f64>, Vec<f64>) = gp.predict_many(candidates, &all).into_iter().map(|(m, v)| (m, v.max(0.0).sqrt())).unzip();
    let mut acquisition = vec![f64::NAN; candidates.len()];
    for &i in open {
        acquisition[i] = score(mean[i], sd[i]);
    }
    Belief { mean, sd, acquisition, acquisition_kind: Acquisition::ExpectedImprovement, observed: z }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounding_box_contains_its_points_only() {
        let b = SearchBox::bounding(&[vec![0.2, 0.5], vec![0.4, 0.1]]).unwrap();
        assert_eq!((b.lower.clone(), b.upper.clone()), (vec![0.2, 0.1], vec![0.4, 0.5]));
        assert!(b.contains(&[0.3, 0.3]) && b.contains(&[0.2, 0.5]) && !b.contains(&[0.1, 0.3]));
    }
}
