//! Multi-fidelity ("gray-box") optimization over tabulated learning curves: the race of
//! configurations that DyHPO (Wistuba et al. 2022) and the Hyperband family compete in.
//!
//! A task's configurations each have a learning curve (metric after budget step 1, 2, …, B).
//! An optimizer asks to train a configuration up to some budget; training pauses there and
//! resumes later (the framework of the paper, App. C.3), so going from budget b to b' costs
//! b' − b budget units and the benchmark's cost (e.g. seconds) between the two steps, and the
//! metric at every step in between is observed on the way. The optimizer's own wall time is
//! recorded separately. Losses are always "smaller is better" for the optimizers.

pub mod analysis;
pub mod cd_layout;
pub mod deep_kernel;
pub mod dyhpo;
pub mod gpb;
pub mod hyperband;
pub mod picks;
pub mod race;
pub mod report;
pub mod runner;
pub mod samplers;
pub mod summary;
pub mod targets;

use super::error::Result;
use super::optimizer::MethodRng;

pub use race::{run_race, run_race_with_progress, Race, RaceRow, RaceTrace};

/// What a multi-fidelity optimizer asks for: train `config` up to `budget` (in budget units,
/// 1..=max), strictly beyond the budget it has reached so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Configuration index in the task.
    pub config: usize,
    /// Budget to reach.
    pub budget: u32,
}

/// A multi-fidelity optimizer over a finite set of configurations with learning curves.
pub trait MultiFidelityOptimizer {
    /// The next configuration to train, and how far. `candidates` are the model encodings.
    fn next(&mut self, race: &Race, candidates: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request>;
}
