//! GCP+prior and GP+prior: a GP on the residual of the warped objective with respect to the
//! parametric prior (Salinas et al. 2020, §4.2, Alg. 2).
//!
//! After N₀ = 5 Thompson-sampling evaluations from the prior, every step warps the task's
//! losses (ψ refitted on the observations for GCP+prior, Δ for the GP+prior ablation), fits a
//! GP (Matérn-5/2 ARD, type-II ML) to r = (z − μθ(x)) / σθ(x), and evaluates the remaining
//! candidate maximising EI of ĝ ~ N(μ_r·σθ + μθ, (σ_r·σθ)²) below the best observed z. Over a
//! study's own space ([`Optimizer::propose`]) log-EI of ĝ is searched instead, its gradient
//! through the network ([`TrainedPrior::predict_with_gradient`]) and the residual GP.

use std::sync::Arc;

use crate::continuous::{self, ContinuousSpace};
use crate::error::Result;
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::{Belief, MethodRng, Optimizer, Prediction, SearchState};
use crate::prior::TrainedPrior;
use crate::stats::{expected_improvement, log_expected_improvement};
use crate::warping::{OutputWarp, WarpBack};

use super::surrogate_bo::belief_of;
use super::thompson::needs_prior;
use super::thompson::PriorThompson;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

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
    /// History entries from this one on are lies ([`Optimizer::lies_from`]), and whether they
    /// are believed (replaced by the posterior mean).
    told: Option<usize>,
    believe: bool,
    /// The residual GP of the last proposal, its best warped loss and its warp turned around,
    /// for [`Optimizer::predict_at`].
    proposal_model: Option<(FittedGp, f64, WarpBack)>,
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
            told: None,
            believe: false,
            proposal_model: None,
        }
    }
}

impl Optimizer for PriorResidualGp {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        self.belief = None;
        self.proposal_model = None;
        if state.history.len() < WARM_START {
            let pick = self.thompson.suggest(state, rng);
            self.belief = self.thompson.belief().cloned();
            return pick;
        }
        let prior = self.thompson.predictions(state.candidates).to_vec();
        let Fitted { gp, z, best, .. } = self.fitted(state, &prior)?;
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

    fn propose(&mut self, state: &SearchState, space: &ContinuousSpace, rng: &mut MethodRng) -> Option<Result<Vec<Vec<f64>>>> {
        // The Thompson warm start draws among candidates, as Algorithm 2 does.
        (state.history.len() >= WARM_START).then(|| self.propose_over(state, space, rng))
    }

    fn record_beliefs(&mut self) -> bool {
        self.recording = true;
        self.thompson.record_beliefs()
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
        let prior = self.thompson.prior();
        let (mu, sigma) = prior.predict(x);
        let (m, v) = gp.predict(x);
        let (loss, sd) = back.prediction(mu + sigma * m, sigma * v.max(0.0).sqrt());
        Some(Prediction { loss, sd, log_ei: residual_log_ei(&prior, gp, *best, x).0 })
    }
}

/// The residual GP of one step and what EI needs beside it.
struct Fitted {
    gp: FittedGp,
    /// The warped losses.
    z: Vec<f64>,
    /// The lowest of them.
    best: f64,
    /// The observed point that has it.
    incumbent: Vec<f64>,
}

impl PriorResidualGp {
    /// Whether the last of `n` observations are lies the kriging believer replaces: the warp
    /// is then fitted on the told ones alone.
    fn believing(&self, n: usize) -> bool {
        let told = self.told.unwrap_or(n).min(n);
        self.believe && told > 0 && told < n
    }

    /// Warps the losses, and fits the GP to their residuals r = (z − μθ)/σθ; `prior` holds
    /// μθ, σθ of every candidate.
    fn fitted(&mut self, state: &SearchState, prior: &[(f64, f64)]) -> Result<Fitted> {
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let told = self.told.unwrap_or(x.len()).min(x.len());
        let believed = self.believing(x.len());
        // The kriging believer warps the told losses among themselves; the lies follow.
        let mut z = if believed { self.warp.apply(&losses[..told]) } else { self.warp.apply(&losses) };
        let mut residuals: Vec<f64> = state.history.iter().zip(&z).map(|(&(i, _), z)| (z - prior[i].0) / prior[i].1).collect();
        let gp = if believed {
            let on_told = FittedGp::fit_from(&x[..told], &residuals, &self.settings, self.last_params.as_ref())?;
            for (&(i, _), p) in state.history[told..].iter().zip(&x[told..]) {
                let r = on_told.predict_mean(p);
                residuals.push(r);
                z.push(r * prior[i].1 + prior[i].0);
            }
            FittedGp::with_params(&x, &residuals, on_told.params().clone())?
        } else {
            FittedGp::fit_told(&x, &residuals, told, &self.settings, self.last_params.as_ref())?
        };
        let lowest = z.iter().copied().enumerate().fold((0, f64::INFINITY), |b, (i, v)| if v < b.1 { (i, v) } else { b });
        self.last_params = Some(gp.params().clone());
        Ok(Fitted { gp, z, best: lowest.1, incumbent: x[lowest.0].clone() })
    }

    /// Log-EI of ĝ = μθ + σθ·r searched over `space` from the best observed point and the
    /// best quasi-random points, as [`super::surrogate_bo::GpEiSearch`] searches GP's: the
    /// local maxima best first, then the quasi-random points by score. The observations'
    /// μθ, σθ come from the network at those points, so no candidate but the observed ones is
    /// predicted.
    fn propose_over(&mut self, state: &SearchState, space: &ContinuousSpace, rng: &mut MethodRng) -> Result<Vec<Vec<f64>>> {
        self.belief = None;
        let prior_net = self.thompson.prior();
        let mut prior = vec![(0.0, 1.0); state.candidates.len()];
        for &(i, _) in state.history {
            prior[i] = prior_net.predict(&state.candidates[i]);
        }
        let Fitted { gp, best, incumbent, .. } = self.fitted(state, &prior)?;
        let preliminary = space.sample(continuous::PRELIMINARY, rng);
        let all: Vec<usize> = (0..preliminary.len()).collect();
        let scores: Vec<f64> = gp
            .predict_many(&preliminary, &all)
            .into_iter()
            .zip(&preliminary)
            .map(|((m, v), x)| {
                let (mu, sigma) = prior_net.predict(x);
                log_expected_improvement(mu + sigma * m, sigma * v.sqrt(), best).0
            })
            .collect();
        let starts = continuous::starts(vec![incumbent], &preliminary, &scores);
        let log_ei = |x: &[f64]| residual_log_ei(&prior_net, &gp, best, x);
        let mut ranked: Vec<Vec<f64>> = space.maximise(&log_ei, &starts).into_iter().map(|(x, _)| x).collect();
        ranked.extend(continuous::best_first(&scores).into_iter().map(|i| preliminary[i].clone()));
        let losses: Vec<f64> = state.history.iter().map(|&(_, y)| y).collect();
        let warped_on = if self.believing(losses.len()) { self.told.unwrap_or(0) } else { losses.len() };
        self.proposal_model = Some((gp, best, self.warp.back(&losses[..warped_on])));
        Ok(ranked)
    }
}

/// log EI below `best` of ĝ = μθ + σθ·r at `x`, r the residual GP's posterior, and its
/// gradient in x.
fn residual_log_ei(prior: &TrainedPrior, gp: &FittedGp, best: f64, x: &[f64]) -> (f64, Vec<f64>) {
    let (mu, sigma, dmu, dsigma) = prior.predict_with_gradient(x);
    let (m, v, dm, dv) = gp.predict_with_gradient(x);
    let s = v.sqrt();
    let (value, by_mean, by_sd) = log_expected_improvement(mu + sigma * m, sigma * s, best);
    // ĝ's mean μθ + σθ·m and sd σθ·s, differentiated in x.
    let grad = (0..x.len())
        .map(|d| {
            let dmean = dmu[d] + dsigma[d] * m + sigma * dm[d];
            let dsd = dsigma[d] * s + sigma * dv[d] / (2.0 * s);
            by_mean * dmean + by_sd * dsd
        })
        .collect();
    (value, grad)
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
        build: full_constructor(|t| Ok(Box::new(PriorResidualGp::new(OutputWarp::Copula, needs_prior(t.prior)?)))),
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
        build: full_constructor(|t| Ok(Box::new(PriorResidualGp::new(OutputWarp::Standardize, needs_prior(t.prior)?)))),
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuous::Coordinate;
    use crate::optimizer::job_rng;
    use crate::prior::{train_prior, Example, PriorSettings};

    /// A prior that learned a bowl centred at (0.3, 0.8) from a related task.
    fn bowl_prior() -> Arc<TrainedPrior> {
        let data: Vec<Example> = (0..200)
            .map(|i| {
                let x = vec![(i as f64 * 0.137) % 1.0, (i as f64 * 0.291) % 1.0];
                let z = 4.0 * ((x[0] - 0.3).powi(2) + (x[1] - 0.8).powi(2)) - 1.0;
                Example { x, z, weight: 1.0 }
            })
            .collect();
        let settings = PriorSettings { steps_per_round: 300, ..PriorSettings::default() };
        Arc::new(train_prior(&data, &settings, &mut job_rng(1, "prior"), &mut |_, _| true).unwrap())
    }

    #[test]
    fn a_proposal_climbs_above_every_quasi_random_point_and_needs_no_candidate() {
        let prior = bowl_prior();
        // Eight observations of a shifted bowl (the task itself), as candidates 0–7.
        let candidates: Vec<Vec<f64>> = (0..8).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0]).collect();
        let history: Vec<(usize, f64)> =
            candidates.iter().enumerate().map(|(i, x)| (i, (x[0] - 0.35).powi(2) + (x[1] - 0.75).powi(2))).collect();
        let evaluated = vec![true; 8];
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
        let space = ContinuousSpace { coordinates: vec![Coordinate::Free { at: 0 }, Coordinate::Free { at: 1 }] };
        let mut method = PriorResidualGp::new(OutputWarp::Copula, Arc::clone(&prior));
        let ranked = method.propose(&state, &space, &mut job_rng(3, "t")).unwrap().unwrap();
        // log-EI of ĝ on the same fit (a fresh method fits the same), against the Halton points'.
        let observed: Vec<(f64, f64)> = candidates.iter().map(|x| prior.predict(x)).collect();
        let fit = PriorResidualGp::new(OutputWarp::Copula, Arc::clone(&prior)).fitted(&state, &observed).unwrap();
        let score = |x: &[f64]| residual_log_ei(&prior, &fit.gp, fit.best, x).0;
        let halton = space.sample(continuous::PRELIMINARY, &mut job_rng(3, "t"));
        let top = halton.iter().map(|x| score(x)).fold(f64::NEG_INFINITY, f64::max);
        assert!(score(&ranked[0]) > top, "{} ≤ {top}", score(&ranked[0]));
        assert!(!candidates.contains(&ranked[0]));
        // Near the bowls' bottoms, where the prior and the data agree.
        assert!((ranked[0][0] - 0.33).abs() < 0.2 && (ranked[0][1] - 0.77).abs() < 0.2, "{:?}", ranked[0]);
        // During the Thompson warm start there is no proposal: the caller picks a candidate.
        let early = SearchState { history: &history[..WARM_START - 1], ..state };
        assert!(PriorResidualGp::new(OutputWarp::Copula, prior).propose(&early, &space, &mut job_rng(3, "t")).is_none());
    }

    #[test]
    fn the_searched_log_ei_gradient_matches_finite_differences() {
        let prior = bowl_prior();
        let candidates: Vec<Vec<f64>> = (0..8).map(|i| vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0]).collect();
        let history: Vec<(usize, f64)> = candidates.iter().enumerate().map(|(i, x)| (i, x[0] * x[1] + 0.1 * x[0])).collect();
        let evaluated = vec![true; 8];
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
        let observed: Vec<(f64, f64)> = candidates.iter().map(|x| prior.predict(x)).collect();
        let fit = PriorResidualGp::new(OutputWarp::Standardize, Arc::clone(&prior)).fitted(&state, &observed).unwrap();
        // A best far below the data too, where EI itself underflows.
        for best in [fit.best, fit.best - 30.0] {
            for x in [vec![0.42, 0.57], vec![0.9, 0.1]] {
                let (v, g) = residual_log_ei(&prior, &fit.gp, best, &x);
                assert!(v.is_finite());
                for d in 0..2 {
                    let h = 1e-6;
                    let (mut a, mut b) = (x.clone(), x.clone());
                    a[d] += h;
                    b[d] -= h;
                    let fd = (residual_log_ei(&prior, &fit.gp, best, &a).0 - residual_log_ei(&prior, &fit.gp, best, &b).0) / (2.0 * h);
                    assert!((g[d] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "best {best}, input {d}: {} vs {fd}", g[d]);
                }
            }
        }
    }
}
