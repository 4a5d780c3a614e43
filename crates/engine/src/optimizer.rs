//! The one trait every method implements, and the state it sees.
//!
//! The papers' setting is tabular: a task is a finite set of evaluated configurations, so an
//! optimizer picks the index of a candidate not yet evaluated. Losses are always "smaller is
//! better" (the runner flips maximised metrics), so methods never care about directions.

use rand::{Rng, SeedableRng};

use super::continuous::ContinuousSpace;
use super::error::Result;

/// The random number generator of every method: ChaCha8, identical on every platform.
pub type MethodRng = rand_chacha::ChaCha8Rng;

/// Creates the generator of one job: the seed picks the key, the task picks the stream, so
/// that one seed gives independent draws on different tasks and common random numbers across
/// methods on the same task.
pub fn job_rng(seed: u64, task: &str) -> MethodRng {
    let mut rng = MethodRng::seed_from_u64(seed);
    rng.set_stream(fnv1a(task.as_bytes()));
    rng
}

/// FNV-1a, a stable hash (unlike `std`'s, which may change between releases).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// A uniform index in `0..n`, drawn through `u64` so that 32- and 64-bit targets agree.
pub fn index_below(rng: &mut MethodRng, n: usize) -> usize {
    rng.random_range(0..n as u64) as usize
}

/// What an optimizer sees when asked for the next candidate.
#[derive(Debug, Clone, Copy)]
pub struct SearchState<'a> {
    /// Model encoding of every candidate of the task (see [`crate::space`]).
    pub candidates: &'a [Vec<f64>],
    /// `evaluated[i]` is true once candidate `i` has been observed.
    pub evaluated: &'a [bool],
    /// Observations so far, in order: (candidate index, loss). In multi-objective runs the loss
    /// is the scalarized one for "+MO" methods and the first objective's for the others.
    pub history: &'a [(usize, f64)],
    /// Multi-objective runs: the loss vector of each history entry (empty otherwise).
    pub objectives: &'a [Vec<f64>],
}

impl SearchState<'_> {
    /// Number of candidates not yet evaluated.
    pub fn remaining(&self) -> usize {
        self.candidates.len() - self.history.len()
    }
}

/// A hyperparameter optimizer over a finite candidate set.
pub trait Optimizer {
    /// Picks the next candidate among those not yet evaluated.
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize>;

    /// Learns the loss of a candidate it (or a warm start) evaluated.
    fn observe(&mut self, _candidate: usize, _loss: f64) {}

    /// The history's entries from `told` on are lies, now and at every later step: the
    /// configurations handed out and not yet told, observed at a constant lie so that the next
    /// pick goes elsewhere (`engine::suggest`). A method with a GP fits its hyperparameters on
    /// the entries before `told` and conditions on all ([`crate::gp::FittedGp::fit_told`]);
    /// with `believe`, it replaces each lie by its posterior mean given the told entries (the
    /// kriging believer), so that only its variance collapses. By default nothing changes: the
    /// method models every entry alike, at the lie's value.
    fn lies_from(&mut self, _told: usize, _believe: bool) {}

    /// Points anywhere in `space` (the model's encoding), best first, by the method's own
    /// acquisition searched over the space: for a study, whose space is searched rather than
    /// tabulated (`engine::suggest`). The caller takes the first it has not tried and adds it
    /// to the candidates. `None` when the method picks among candidates only, or at this
    /// step (a random or warm start): the caller then asks [`Optimizer::suggest`].
    fn propose(&mut self, _state: &SearchState, _space: &ContinuousSpace, _rng: &mut MethodRng) -> Option<Result<Vec<Vec<f64>>>> {
        None
    }

    /// Asks the method to keep what it believed at each pick (see [`Belief`]); false when it
    /// has no model to show. Off by default: recording predicts every candidate, which a run
    /// does not need.
    fn record_beliefs(&mut self) -> bool {
        false
    }

    /// What the method believed when it made its last pick, if it recorded it and a model
    /// made that pick (a random warm start has none).
    fn belief(&self) -> Option<&Belief> {
        None
    }

    /// What the model behind the last [`Optimizer::propose`] predicts at `x` (a point of the
    /// model's encoding): why a proposal is where it is. `None` for a method without such a
    /// model, or when the last pick was not proposed by one.
    fn predict_at(&self, _x: &[f64]) -> Option<Prediction> {
        None
    }
}

/// A model's prediction at a proposed point, the loss (smaller is better) in the losses' own
/// units ([`crate::warping::WarpBack::prediction`]), and the acquisition it maximised there.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prediction {
    /// The predicted loss: the mean (Δ-warped models) or the median (ψ-warped ones).
    pub loss: f64,
    /// Its sd (Δ), or half its central 68 % interval (ψ).
    pub sd: f64,
    /// log expected improvement there, in the model's warped units.
    pub log_ei: f64,
}

/// How a method scored the candidates at a pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Acquisition {
    /// Expected improvement; the largest is picked.
    ExpectedImprovement,
    /// A Thompson draw of the warped loss; the smallest is picked.
    ThompsonDraw,
}

/// A model's view of every candidate at one pick, in the model's own units (warped losses),
/// for the Learn section: what a method believed, not only what it chose.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Belief {
    /// Predictive mean of every candidate.
    pub mean: Vec<f64>,
    /// Predictive standard deviation of every candidate.
    pub sd: Vec<f64>,
    /// What the pick maximised or minimised ([`Belief::acquisition_kind`]) per candidate; NaN
    /// for those already evaluated.
    pub acquisition: Vec<f64>,
    /// Which acquisition.
    pub acquisition_kind: Acquisition,
    /// The observations as the model saw them (warped losses), in the order evaluated; empty
    /// for a model that does not condition on them (Thompson sampling from the prior).
    pub observed: Vec<f64>,
    /// The model's fitted lengthscales, one per input; empty for a model without (Thompson
    /// sampling from the prior).
    #[serde(default)]
    pub lengthscales: Vec<f64>,
    /// The model's noise variance (an observation's sd is √(sd² + this)); 0 for a model without.
    #[serde(default)]
    pub noise_variance: f64,
}
