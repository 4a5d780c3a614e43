//! ABLR and ABLR Copula: BO with the ABLR model ([`crate::ablr`]) and EI, the copula
//! paper's baseline (Salinas et al. 2020, App. B; Perrone et al. 2018).
//!
//! Every step the shared network and all tasks' Bayesian linear regressions are refitted
//! (L-BFGS on the summed marginal likelihood) on the other tasks' evaluations and the
//! target's observations, each task's values warped with Δ (ABLR) or ψ (ABLR Copula) on that
//! task; EI of the target's predictive distribution is maximised over every remaining
//! candidate. Defaults: 3 × 50 tanh units; about 2,000 transfer evaluations in all (App. B),
//! drawn once per other task with a fixed seed. *Our choices* (not stated in the papers):
//! L-BFGS runs at most 100 iterations for the first fit and 10 warm-started ones at every later
//! step; Glorot-uniform initial weights from the job's seed; 5 random initial evaluations as
//! for our GP.

use crate::error::{EngineError, Result};
use crate::methods::ablr::model::{features, fit, posterior, AblrParams, AblrShape, TaskData};
use crate::optimizer::{index_below, job_rng, MethodRng, Optimizer, SearchState};
use crate::stats::expected_improvement;
use crate::warping::OutputWarp;

use super::gp::INITIAL_DESIGN;
use super::surrogate_bo::argmax;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

pub mod model;

/// Transfer evaluations in all (App. B).
pub const TRANSFER_EVALUATIONS: usize = 2000;
/// Hidden units per layer and layers.
pub const HIDDEN: usize = 50;
/// Hidden layers.
pub const LAYERS: usize = 3;
/// L-BFGS iterations of the first fit and of each warm-started refit.
pub const FIRST_FIT_ITERS: u64 = 100;
/// See [`FIRST_FIT_ITERS`].
pub const REFIT_ITERS: u64 = 10;
const SUBSAMPLE_SEED: u64 = 2018;

/// ABLR over a finite candidate set.
#[derive(Debug, Clone)]
pub struct Ablr {
    warp: OutputWarp,
    transfer: Vec<TaskData>,
    params: Option<AblrParams>,
}

impl Ablr {
    /// ABLR (`Standardize`) or ABLR Copula (`Copula`) over the other tasks' (inputs, losses).
    pub fn new(warp: OutputWarp, others: &[(Vec<Vec<f64>>, Vec<f64>)]) -> Self {
        let per_task = TRANSFER_EVALUATIONS.div_ceil(others.len().max(1));
        let transfer = others
            .iter()
            .enumerate()
            .map(|(k, (x, losses))| {
                let z = warp.apply(losses);
                let mut rng = job_rng(SUBSAMPLE_SEED, &format!("ablr/{k}"));
                let mut order: Vec<usize> = (0..x.len()).collect();
                for i in 0..order.len().min(per_task) {
                    let j = i + index_below(&mut rng, order.len() - i);
                    order.swap(i, j);
                }
                order.truncate(per_task);
                (order.iter().map(|&i| x[i].clone()).collect(), order.iter().map(|&i| z[i]).collect())
            })
            .collect();
        Ablr { warp, transfer, params: None }
    }
}

impl Optimizer for Ablr {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        let remaining: Vec<usize> = (0..state.candidates.len()).filter(|&i| !state.evaluated[i]).collect();
        if remaining.is_empty() {
            return Err(EngineError::Method { method: "ABLR".into(), message: "no candidate left".into() });
        }
        if state.history.len() < INITIAL_DESIGN {
            return Ok(remaining[index_below(rng, remaining.len())]);
        }
        let z = self.warp.apply(&state.history.iter().map(|&(_, y)| y).collect::<Vec<_>>());
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let mut tasks = self.transfer.clone();
        tasks.push((x, z.clone()));
        let (start, iters) = match self.params.take() {
            Some(p) => (p, REFIT_ITERS),
            None => {
                let shape = AblrShape { input: state.candidates[0].len(), hidden: HIDDEN, layers: LAYERS };
                (AblrParams::init(shape, tasks.len(), rng), FIRST_FIT_ITERS)
            }
        };
        let params = fit(start, &tasks, iters);
        let post = posterior(&params, &tasks, tasks.len() - 1)
            .ok_or_else(|| EngineError::Method { method: "ABLR".into(), message: "the target's BLR is not positive definite".into() })?;
        let best = z.iter().copied().fold(f64::INFINITY, f64::min);
        let inputs: Vec<&[f64]> = remaining.iter().map(|&i| state.candidates[i].as_slice()).collect();
        let phi = features(&params, &inputs);
        let pick = argmax(remaining.iter().zip(phi.chunks_exact(params.shape.hidden)).map(|(&i, phi)| {
            let (m, v) = post.predict(phi);
            (i, expected_improvement(m, v.max(0.0).sqrt(), best))
        }));
        self.params = Some(params);
        Ok(pick.unwrap_or(remaining[0]))
    }
}

/// Registry entry.
pub const ABLR: MethodEntry = MethodEntry {
    name: "ABLR",
    summary: "Shared 3×50 tanh network with Bayesian linear regression per task (Δ), EI (Perrone et al. 2018)",
    paper: "Perrone et al. 2018, as Salinas et al. 2020, App. B",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::OtherData,
        build: full_constructor(|t| Ok(Box::new(Ablr::new(OutputWarp::Standardize, &t.other_data)))),
    },
};

/// Registry entry: ψ instead of Δ.
pub const ABLR_COPULA: MethodEntry = MethodEntry {
    name: "ABLR Copula",
    summary: "ABLR with ψ instead of Δ on every task",
    paper: "Salinas et al. 2020, App. B and Table 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::OtherData,
        build: full_constructor(|t| Ok(Box::new(Ablr::new(OutputWarp::Copula, &t.other_data)))),
    },
};
