//! GCP+prior and GP+prior: a GP on the residual of the warped objective with respect to the
//! parametric prior (Salinas et al. 2020, §4.2, Alg. 2).
//!
//! After N₀ = 5 Thompson-sampling evaluations from the prior, every step warps the task's
//! losses (ψ refitted on the observations for GCP+prior, Δ for the GP+prior ablation), fits a
//! GP (Matérn-5/2 ARD, type-II ML) to r = (z − μθ(x)) / σθ(x), and evaluates the remaining
//! candidate maximising EI of ĝ ~ N(μ_r·σθ + μθ, (σ_r·σθ)²) below the best observed z.

use std::sync::Arc;

use crate::error::Result;
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::{Belief, MethodRng, Optimizer, SearchState};
use crate::prior::TrainedPrior;
use crate::stats::expected_improvement;
use crate::warping::OutputWarp;

use super::surrogate_bo::belief_of;
use super::thompson::needs_prior;
use super::thompson::PriorThompson;
use crate::method_entry::{CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// Thompson-sampling warm start of Algorithm 2.
pub const WARM_START: usize = 5;

/// GP on prior residuals with EI.
#[derive(Debug, Clone)]
pub struct PriorResidualGp {
    warp: OutputWarp,
    thompson: PriorThompson,
    settings: GpSettings,
    last_params: Option<GpParams>,
    recording: bool,
    belief: Option<Belief>,
}

impl PriorResidualGp {
    /// GCP+prior (`OutputWarp::Copula`) or GP+prior (`OutputWarp::Standardize`).
    pub fn new(warp: OutputWarp, prior: Arc<TrainedPrior>) -> Self {
        PriorResidualGp {
            warp,
            thompson: PriorThompson::new(prior),
            settings: GpSettings::default(),
            last_params: None,
            recording: false,
            belief: None,
        }
    }
}

impl Optimizer for PriorResidualGp {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        self.belief = None;
        if state.history.len() < WARM_START {
            let pick = self.thompson.suggest(state, rng);
            self.belief = self.thompson.belief().cloned();
            return pick;
        }
        let prior = self.thompson.predictions(state.candidates).to_vec();
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let z = self.warp.apply(&losses);
        let best = z.iter().copied().fold(f64::INFINITY, f64::min);
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let residuals: Vec<f64> = state.history.iter().zip(&z).map(|(&(i, _), z)| (z - prior[i].0) / prior[i].1).collect();
        let gp = FittedGp::fit_from(&x, &residuals, &self.settings, self.last_params.as_ref())?;
        self.last_params = Some(gp.params().clone());
        let open: Vec<usize> = (0..state.candidates.len()).filter(|&i| !state.evaluated[i]).collect();
        let pick = gp.argmax_score(state.candidates, &open, |i, mr, vr| {
            let (mu, sigma) = prior[i];
            expected_improvement(mr * sigma + mu, vr.sqrt() * sigma, best)
        });
        if self.recording {
            // In the units of z: prior mean + σθ·(residual GP), as EI saw them.
            let mut belief = belief_of(&gp, state.candidates, &open, z, |_, _| f64::NAN);
            for ((m, s), &(mu, sigma)) in belief.mean.iter_mut().zip(belief.sd.iter_mut()).zip(&prior) {
                *m = *m * sigma + mu;
                *s *= sigma;
            }
            for &i in &open {
                belief.acquisition[i] = expected_improvement(belief.mean[i], belief.sd[i], best);
            }
            self.belief = Some(belief);
        }
        match pick {
            Some(i) => Ok(i),
            None => self.thompson.suggest(state, rng),
        }
    }

    fn record_beliefs(&mut self) -> bool {
        self.recording = true;
        self.thompson.record_beliefs()
    }

    fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }
}

/// Registry entry: the copula paper's method.
pub const GCP_PRIOR: MethodEntry = MethodEntry {
    name: "GCP+prior",
    summary: "GCP on the residual of the ψ prior, 5 CTS warm-start evaluations (the paper's method)",
    paper: "Salinas et al. 2020, §4.2, Alg. 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::Prior(OutputWarp::Copula),
        build: |t| Ok(Box::new(PriorResidualGp::new(OutputWarp::Copula, needs_prior(t.prior)?))),
    },
};

/// Registry entry: the ablation with Δ instead of ψ.
pub const GP_PRIOR: MethodEntry = MethodEntry {
    name: "GP+prior",
    summary: "GP on the residual of the Δ prior, 5 TS warm-start evaluations (ablation)",
    paper: "Salinas et al. 2020, §5 and Table 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::Prior(OutputWarp::Standardize),
        build: |t| Ok(Box::new(PriorResidualGp::new(OutputWarp::Standardize, needs_prior(t.prior)?))),
    },
};
