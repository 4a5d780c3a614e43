//! What the Results section shows of a run beside its line charts: a race, a prior, a warping, the objective space.

pub mod objective_space;
pub mod prior_view;
pub mod race_verdict;
pub mod race_view;
pub mod study_charts;
pub mod warping_view;
