//! Lesson 3: transfer learning as the copula paper does it (Salinas et al. 2020, §4). Eight
//! related 1-D tasks were evaluated before; the target is a new one. The MLP prior (§4.1) is
//! trained on the other tasks' ψ-warped values and predicts a mean and a standard deviation
//! of ψ(y) at each candidate; CTS (Alg. 1) draws one value per candidate from it and evaluates
//! the smallest draw; GCP+prior (Alg. 2) starts with 5 CTS picks and then fits a GP to the
//! prior's residuals. GCP, the same GP without the prior, starts from 5 random points.
//!
//! The tasks are f_t(x) = a_t·g(x) + b_t + c_t·(x − ½) on 101 candidates x ∈ {0, 0.01, …, 1},
//! g Forrester's function, with a_t log-uniform in [0.5, 2], b_t uniform in [−10, 10] and
//! c_t in [−6, 6]: scales and offsets differ — what ψ removes — and the tilt moves the
//! minimum between g's two valleys (x ≈ 0.14 and 0.76) on some tasks. The prior, the methods
//! and their defaults are the engine's own (`engine::transfer::train_target_prior`, the
//! registry's CTS, GCP+prior and GCP); only the family is the lesson's.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::gp_ei::forrester;
use super::steps::{record, Pick};
use crate::benchmark::{Benchmark, Direction, Metric, Task};
use crate::error::Result;
use crate::methods::gcp::gcp;
use crate::methods::prior_gp::PriorResidualGp;
use crate::methods::thompson::PriorThompson;
use crate::optimizer::{job_rng, MethodRng};
use crate::space::{Hyperparameter, ParamKind, SearchSpace};
use crate::spec::{ExperimentSpec, TransferMode};
use crate::transfer::{task_targets, train_target_prior};
use crate::warping::OutputWarp;

/// Candidates per task.
pub const GRID: usize = 101;
/// Tasks seen before the target.
pub const SOURCES: usize = 8;
/// Evaluations each method makes in the lesson.
pub const MAX_STEPS: usize = 15;

/// The family the lesson opens on: the typical one for GCP+prior against GCP over the seeds
/// counted (`sentences::transfer`'s test checks it).
pub const DEFAULT_SEED: u64 = 10;

/// The three methods, in the order of [`TransferFrames::runs`].
pub const METHODS: [&str; 3] = ["GCP+prior", "GCP", "CTS"];

/// Everything lesson 3 draws, for one seed (which draws the family and the methods' seeds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransferFrames {
    /// The candidates' x.
    pub x: Vec<f64>,
    /// The source tasks' values at each candidate.
    pub sources: Vec<Vec<f64>>,
    /// The target's values at each candidate (hidden from the methods until evaluated).
    pub target: Vec<f64>,
    /// ψ of the target's values, fitted on all of them: what a perfect prior would predict.
    pub target_psi: Vec<f64>,
    /// The prior's mean and standard deviation of ψ(y) at each candidate.
    pub prior: Vec<(f64, f64)>,
    /// The prior's RMSE on `target_psi` (the paper's Fig. 4 measure; 1 = no better than 0).
    pub prior_rmse: f64,
    /// Each method's frames 0 ..= [`MAX_STEPS`] ([`METHODS`] order).
    pub runs: Vec<Vec<Pick>>,
}

/// The family for `seed`: the source tasks, then the target.
pub fn family(seed: u64) -> Benchmark {
    let mut rng = MethodRng::seed_from_u64(seed ^ 0x7472_616e_7366_6572);
    let configs: Vec<Vec<f64>> = (0..GRID).map(|i| vec![i as f64 / (GRID - 1) as f64]).collect();
    let tasks = (0..=SOURCES)
        .map(|t| {
            let a = (rng.random_range(0.5f64.ln()..2f64.ln())).exp();
            let b = rng.random_range(-10.0..10.0);
            let c = rng.random_range(-6.0..6.0);
            let values = configs.iter().map(|x| a * forrester(x[0]) + b + c * (x[0] - 0.5)).collect();
            let name = if t == SOURCES { "target".to_string() } else { format!("task-{t}") };
            Task { name, configs: configs.clone(), metrics: vec![values], curves: None, history: None }
        })
        .collect();
    Benchmark {
        name: "lesson-transfer".into(),
        space: SearchSpace {
            params: vec![Hyperparameter { name: "x".into(), kind: ParamKind::Continuous { lower: 0.0, upper: 1.0, log: false } }],
        },
        metrics: vec![Metric { name: "y".into(), direction: Direction::Minimize }],
        objective: 0,
        tasks,
        joint_objectives: false,
    }
}

/// Trains the prior on the sources (leave-one-task-out with the target held out) and runs
/// the three methods on the target, each from the same seed.
pub fn frames(seed: u64) -> Result<TransferFrames> {
    let bench = family(seed);
    let target = SOURCES;
    let resolved =
        ExperimentSpec { methods: vec![METHODS[0].into()], transfer: TransferMode::LeaveOneTaskOut, ..ExperimentSpec::default() }
            .resolve(&bench)?;
    let prior = Arc::new(train_target_prior(&bench, &resolved, target, OutputWarp::Copula, &mut |_, _| true)?);
    let candidates = bench.encoded_task(target);
    let losses = bench.tasks[target].metrics[0].clone();
    let target_psi = task_targets(&bench, &resolved, target, OutputWarp::Copula);
    let predictions: Vec<(f64, f64)> = candidates.iter().map(|c| prior.predict(c)).collect();
    let prior_rmse = (predictions.iter().zip(&target_psi).map(|((m, _), z)| (m - z) * (m - z)).sum::<f64>() / GRID as f64).sqrt();
    let rng = || job_rng(seed, "target");
    let runs = vec![
        record(&mut PriorResidualGp::new(OutputWarp::Copula, prior.clone()), &candidates, &losses, MAX_STEPS, &mut rng())?,
        record(&mut gcp(), &candidates, &losses, MAX_STEPS, &mut rng())?,
        record(&mut PriorThompson::new(prior), &candidates, &losses, MAX_STEPS, &mut rng())?,
    ];
    Ok(TransferFrames {
        x: candidates.iter().map(|c| c[0]).collect(),
        sources: bench.tasks[..SOURCES].iter().map(|t| t.metrics[0].clone()).collect(),
        target: losses,
        target_psi,
        prior: predictions,
        prior_rmse,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::Acquisition;

    #[test]
    fn the_prior_transfers_and_each_method_shows_its_model() {
        let f = frames(0).unwrap();
        assert_eq!((f.sources.len(), f.target.len(), f.runs.len()), (SOURCES, GRID, 3));
        // The prior learned the family's shape: better than predicting 0 everywhere.
        assert!(f.prior_rmse < 0.8, "prior RMSE {}", f.prior_rmse);
        let (gcp_prior, gcp, cts) = (&f.runs[0], &f.runs[1], &f.runs[2]);
        // GCP+prior: 5 CTS picks (Thompson draws), then EI on the residual GP.
        for (k, p) in gcp_prior.iter().enumerate() {
            let kind = p.belief.as_ref().unwrap().acquisition_kind;
            assert_eq!(kind, if k < 5 { Acquisition::ThompsonDraw } else { Acquisition::ExpectedImprovement }, "step {k}");
        }
        // CTS's first pick is the smallest draw, and the draws are the prior's mean ± noise.
        let b = cts[0].belief.as_ref().unwrap();
        let smallest = (0..GRID).min_by(|&i, &j| b.acquisition[i].total_cmp(&b.acquisition[j])).unwrap();
        assert_eq!(smallest, cts[0].next);
        assert_eq!(b.mean, f.prior.iter().map(|p| p.0).collect::<Vec<_>>());
        // GCP has no belief during its random start, and its picks follow its own EI.
        assert!(gcp[..5].iter().all(|p| p.belief.is_none()) && gcp[5].belief.is_some());
        // GCP+prior's and GCP's fits, as a class sees them (the residual GP's and GCP's; see
        // `copula.rs` for why 3 sd).
        super::super::steps::fits_are_sound(gcp_prior, 3.0).unwrap_or_else(|e| panic!("GCP+prior: {e}"));
        super::super::steps::fits_are_sound(gcp, 3.0).unwrap_or_else(|e| panic!("GCP: {e}"));
        // Same seed, same frames (compared as text: NaN marks evaluated candidates).
        assert_eq!(format!("{:?}", frames(0).unwrap()), format!("{f:?}"));
    }
}
