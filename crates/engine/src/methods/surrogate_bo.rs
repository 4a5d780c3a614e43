//! The loop shared by the GP-based methods: after an initial design, warp the task's losses,
//! fit a GP to them, and evaluate the remaining candidate with the largest expected
//! improvement (maximised over all remaining candidates: the papers' tabular setting).
//!
//! Two hooks serve the transfer baselines: a list of points to evaluate first (WS-GP: the
//! nearest remaining candidate to each point) and a box the search is restricted to (AutoGP).

use std::collections::VecDeque;

use crate::continuous::{self, ContinuousSpace};
use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::{index_below, Acquisition, Belief, MethodRng, Optimizer, Prediction, SearchState};
use crate::stats::{expected_improvement, log_expected_improvement};
pub use crate::warping::OutputWarp;
use crate::warping::WarpBack;

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
    /// History entries from this one on are lies ([`Optimizer::lies_from`]), and whether they
    /// are believed (replaced by the posterior mean).
    told: Option<usize>,
    believe: bool,
    /// The model of the last proposal, its best warped loss and its warp turned around, for
    /// [`Optimizer::predict_at`].
    proposal_model: Option<(FittedGp, f64, WarpBack)>,
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
            told: None,
            believe: false,
            proposal_model: None,
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
        self.proposal_model = None;
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
        let (gp, z, best, _) = self.fitted(state)?;
        let pick = gp.argmax_score(state.candidates, &allowed, |_, m, v| expected_improvement(m, v.sqrt(), best));
        if self.recording {
            self.belief = Some(belief_of(&gp, state.candidates, &allowed, z, |m, s| expected_improvement(m, s, best)));
        }
        Ok(pick.unwrap_or(allowed[0]))
    }

    fn propose(&mut self, state: &SearchState, space: &ContinuousSpace, rng: &mut MethodRng) -> Option<Result<Vec<Vec<f64>>>> {
        // A warm start or a region is a choice among candidates (WS-GP, AutoGP), and so is
        // the random initial design.
        if !self.warm_start.is_empty() || self.region.is_some() || state.history.len() < self.initial {
            return None;
        }
        Some(self.propose_over(state, space, rng))
    }

    fn record_beliefs(&mut self) -> bool {
        self.recording = true;
        true
    }

    fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }

    fn lies_from(&mut self, told: usize, believe: bool) {
        self.told = Some(told);
        self.believe = believe;
    }

    fn predict_at(&self, x: &[f64]) -> Option<Prediction> {
        let (gp, best, back) = self.proposal_model.as_ref()?;
        let (m, v) = gp.predict(x);
        let (loss, sd) = back.prediction(m, v.max(0.0).sqrt());
        Some(Prediction { loss, sd, log_ei: gp.log_ei_with_gradient(x, *best).0 })
    }
}

impl GpEiSearch {
    /// Whether the last of `n` observations are lies the kriging believer replaces: the warp
    /// is then fitted on the told ones alone.
    fn believing(&self, n: usize) -> bool {
        let told = self.told.unwrap_or(n).min(n);
        self.believe && told > 0 && told < n
    }

    /// The GP on the warped losses, the warped losses, the lowest and the point that has it.
    fn fitted(&mut self, state: &SearchState) -> Result<(FittedGp, Vec<f64>, f64, Vec<f64>)> {
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let told = self.told.unwrap_or(x.len()).min(x.len());
        let (gp, z) = if self.believing(x.len()) {
            // The kriging believer: the lies are the posterior mean of the GP of the told
            // observations (warped among themselves), which conditioning on them keeps.
            let z_told = self.warp.apply(&losses[..told]);
            let on_told = FittedGp::fit_from(&x[..told], &z_told, &self.settings, self.last_params.as_ref())?;
            let z: Vec<f64> = z_told.iter().copied().chain(x[told..].iter().map(|p| on_told.predict_mean(p))).collect();
            (FittedGp::with_params(&x, &z, on_told.params().clone())?, z)
        } else {
            let z = self.warp.apply(&losses);
            (FittedGp::fit_told(&x, &z, told, &self.settings, self.last_params.as_ref())?, z)
        };
        let best = z.iter().copied().enumerate().fold((0, f64::INFINITY), |b, (i, v)| if v < b.1 { (i, v) } else { b });
        self.last_params = Some(gp.params().clone());
        Ok((gp, z, best.1, x[best.0].clone()))
    }

    /// Log-EI searched over `space` from the best observed point and the best quasi-random
    /// points ([`crate::continuous`]); the local maxima best first, then the quasi-random
    /// points by score.
    fn propose_over(&mut self, state: &SearchState, space: &ContinuousSpace, rng: &mut MethodRng) -> Result<Vec<Vec<f64>>> {
        self.belief = None;
        let (gp, _, best, incumbent) = self.fitted(state)?;
        let preliminary = space.sample(continuous::PRELIMINARY, rng);
        let all: Vec<usize> = (0..preliminary.len()).collect();
        let scores: Vec<f64> =
            gp.predict_many(&preliminary, &all).into_iter().map(|(m, v)| log_expected_improvement(m, v.sqrt(), best).0).collect();
        let starts = continuous::starts(vec![incumbent], &preliminary, &scores);
        let log_ei = |x: &[f64]| gp.log_ei_with_gradient(x, best);
        let mut ranked: Vec<Vec<f64>> = space.maximise(&log_ei, &starts).into_iter().map(|(x, _)| x).collect();
        ranked.extend(continuous::best_first(&scores).into_iter().map(|i| preliminary[i].clone()));
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let warped_on = if self.believing(losses.len()) { self.told.unwrap_or(0) } else { losses.len() };
        self.proposal_model = Some((gp, best, self.warp.back(&losses[..warped_on])));
        Ok(ranked)
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
    let lengthscales = gp.params().0[..gp.params().dim()].iter().map(|l| libm::exp(*l)).collect();
    Belief {
        mean,
        sd,
        acquisition,
        acquisition_kind: Acquisition::ExpectedImprovement,
        observed: z,
        lengthscales,
        noise_variance: gp.params().noise_variance(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposal_beats_every_quasi_random_point_and_needs_no_candidate() {
        use crate::continuous::{ContinuousSpace, Coordinate};
        use crate::optimizer::job_rng;
        // Nine observations of a bowl in two free inputs, as candidates 0–8; nothing else.
        let candidates: Vec<Vec<f64>> = (0..9).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0]).collect();
        let history: Vec<(usize, f64)> =
            candidates.iter().enumerate().map(|(i, x)| (i, (x[0] - 0.3).powi(2) + (x[1] - 0.8).powi(2))).collect();
        let evaluated = vec![true; 9];
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
        let space = ContinuousSpace { coordinates: vec![Coordinate::Free { at: 0 }, Coordinate::Free { at: 1 }] };
        let mut search = GpEiSearch::new(OutputWarp::Standardize, 5, GpSettings::default());
        let ranked = search.propose(&state, &space, &mut job_rng(3, "t")).unwrap().unwrap();
        // The GP the proposal was searched on (a fresh search fits the same), and log-EI there
        // against the Halton points': the local search climbs above the best of them.
        let (gp, _, best, _) = GpEiSearch::new(OutputWarp::Standardize, 5, GpSettings::default()).fitted(&state).unwrap();
        let score = |x: &[f64]| gp.log_ei_with_gradient(x, best).0;
        let halton = space.sample(crate::continuous::PRELIMINARY, &mut job_rng(3, "t"));
        let top = halton.iter().map(|x| score(x)).fold(f64::NEG_INFINITY, f64::max);
        assert!(score(&ranked[0]) > top, "{} ≤ {top}", score(&ranked[0]));
        assert!(!candidates.contains(&ranked[0]));
        // During the random initial design there is no proposal: the caller picks a candidate.
        let early = SearchState { history: &history[..3], ..state };
        assert!(GpEiSearch::new(OutputWarp::Standardize, 5, GpSettings::default()).propose(&early, &space, &mut job_rng(3, "t")).is_none());
    }

    #[test]
    fn bounding_box_contains_its_points_only() {
        let b = SearchBox::bounding(&[vec![0.2, 0.5], vec![0.4, 0.1]]).unwrap();
        assert_eq!((b.lower.clone(), b.upper.clone()), (vec![0.2, 0.1], vec![0.4, 0.5]));
        assert!(b.contains(&[0.3, 0.3]) && b.contains(&[0.2, 0.5]) && !b.contains(&[0.1, 0.3]));
    }
}
