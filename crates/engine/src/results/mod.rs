//! What the runs mean: the papers' performance measures and tables, computed from traces.
//! This layer stands above the runners and below the page and the CLI, which only show what
//! it computes.
//!
//! - [`metrics`]: best so far, DTM and ADTM, bands across seeds, Table 2's improvement over
//!   random search and average ranks (Salinas et al. 2020, §5).
//! - [`run_summary`]: a full-evaluation run's Table 2 and Fig. 4, the one summary the page
//!   and the CLI show.
//! - [`significance`]: Friedman, Wilcoxon–Holm and critical differences (Demšar 2006).
//! - [`race_analysis`], [`race_summary`], [`race_report`]: a race's regret, ranks,
//!   efficiency and critical-difference summaries (Wistuba et al. 2022, §5), and
//!   [`cd_layout`], the CD diagram's geometry that the page and `hpo race` draw.
//! - [`verdict`]: a race's verdict per run (seeds reaching the best, budget to reach it, area
//!   under the regret curve, signed-rank tests over seeds) and its sentence.

pub mod cd_layout;
pub mod metrics;
pub mod race_analysis;
pub mod race_report;
pub mod race_summary;
pub mod run_summary;
pub mod significance;
pub mod verdict;
