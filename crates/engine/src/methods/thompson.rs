//! CTS and TS: Thompson sampling from the parametric prior (Salinas et al. 2020, Alg. 1).
//!
//! Each step draws z̃ᵢ ~ N(μθ(xᵢ), σθ(xᵢ)²) independently for every remaining candidate and
//! evaluates the argmin. CTS uses the prior trained on ψ-warped objectives, TS (ablation) the
//! prior trained on Δ-standardised ones. No other settings; the prior's are in `prior.rs`.

use std::sync::Arc;

use crate::error::Result;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};
use crate::optimizer::{Acquisition, Belief, MethodRng, Optimizer, SearchState};
use crate::prior::TrainedPrior;
use crate::stats::standard_normal;
use crate::warping::OutputWarp;

/// Thompson sampling from a prior over a candidate set.
#[derive(Debug, Clone)]
pub struct PriorThompson {
    prior: Arc<TrainedPrior>,
    predictions: Vec<(f64, f64)>,
    recording: bool,
    belief: Option<Belief>,
}

impl PriorThompson {
    /// Thompson sampling from `prior`.
    pub fn new(prior: Arc<TrainedPrior>) -> Self {
        PriorThompson { prior, predictions: Vec::new(), recording: false, belief: None }
    }

    /// The prior it draws from.
    pub fn prior(&self) -> Arc<TrainedPrior> {
        Arc::clone(&self.prior)
    }

    /// μθ, σθ of every candidate (computed once per task).
    pub fn predictions(&mut self, candidates: &[Vec<f64>]) -> &[(f64, f64)] {
        if self.predictions.len() != candidates.len() {
            self.predictions = candidates.iter().map(|c| self.prior.predict(c)).collect();
        }
        &self.predictions
    }
}

impl Optimizer for PriorThompson {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        self.predictions(state.candidates);
        let mut best: Option<(usize, f64)> = None;
        let mut draws = if self.recording { vec![f64::NAN; state.candidates.len()] } else { Vec::new() };
        for (i, &(mu, sigma)) in self.predictions.iter().enumerate() {
            if state.evaluated[i] {
                continue;
            }
            let draw = mu + sigma * standard_normal(rng);
            if let Some(d) = draws.get_mut(i) {
                *d = draw;
            }
            if best.is_none_or(|(_, b)| draw < b) {
                best = Some((i, draw));
            }
        }
        if self.recording {
            let (mean, sd) = self.predictions.iter().copied().unzip();
            self.belief = Some(Belief {
                mean,
                sd,
                acquisition: draws,
                acquisition_kind: Acquisition::ThompsonDraw,
                observed: Vec::new(),
                lengthscales: Vec::new(),
                noise_variance: 0.0,
            });
        }
        best.map(|b| b.0).ok_or_else(|| crate::error::EngineError::Method { method: "CTS".into(), message: "no candidate left".into() })
    }

    fn record_beliefs(&mut self) -> bool {
        self.recording = true;
        true
    }

    fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }
}

/// Registry entry: Thompson sampling from the ψ prior.
pub const CTS: MethodEntry = MethodEntry {
    name: "CTS",
    summary: "Copula Thompson sampling from the MLP prior trained on ψ of the other tasks",
    paper: "Salinas et al. 2020, §4.1, Alg. 1",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::Prior(OutputWarp::Copula),
        build: full_constructor(|t| Ok(Box::new(PriorThompson::new(needs_prior(t.prior)?)))),
    },
};

/// Registry entry: the ablation with the Δ prior.
pub const TS: MethodEntry = MethodEntry {
    name: "TS",
    summary: "Thompson sampling from the MLP prior trained on Δ of the other tasks (ablation)",
    paper: "Salinas et al. 2020, §5 and Table 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::Prior(OutputWarp::Standardize),
        build: full_constructor(|t| Ok(Box::new(PriorThompson::new(needs_prior(t.prior)?)))),
    },
};

/// The prior a prior-based method was given, or the error that it was not.
pub fn needs_prior(prior: Option<Arc<TrainedPrior>>) -> Result<Arc<TrainedPrior>> {
    prior.ok_or_else(|| crate::error::EngineError::Method { method: String::new(), message: "needs a trained prior".into() })
}
