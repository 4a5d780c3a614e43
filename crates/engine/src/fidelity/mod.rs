//! Multi-fidelity ("gray-box") optimization over tabulated learning curves: the race of
//! configurations that DyHPO (Wistuba et al. 2022) and the Hyperband family compete in.
//!
//! A task's configurations each have a learning curve (metric after budget step 1, 2, …, B).
//! An optimizer asks to train a configuration up to some budget; training pauses there and
//! resumes later (the framework of the paper, App. C.3), so going from budget b to b' costs
//! b' − b budget units and the benchmark's cost (e.g. seconds) between the two steps, and the
//! metric at every step in between is observed on the way. The optimizer's own wall time is
//! recorded separately. Losses are always "smaller is better" for the optimizers.

pub mod dyhpo;
pub mod gpb;
pub mod hyperband;
pub mod picks;
pub mod runner;
pub mod samplers;
pub mod targets;

pub use crate::race::{run_race, MultiFidelityOptimizer, Race, RaceRow, RaceTrace, Request};
