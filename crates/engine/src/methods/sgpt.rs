//! SGPT and SGPT Copula: the scalable GP transfer surrogate of Wistuba, Schilling and
//! Schmidt-Thieme (2018) as the copula paper runs it (Salinas et al. 2020, App. B).
//!
//! One GP per other task (M of them) and one on the target. Task i gets the weight
//! w_i = ¾·(1 − (d_i/ρ)²) if d_i ≤ ρ, else 0 (Epanechnikov kernel), where d_i is the
//! fraction of pairs of target observations that GP i's mean ranks in the opposite order to
//! the observed values (the ranking-based distance, their Eq. (42)); the target's own weight
//! is ¾ (distance 0). The transfer acquisition function scales each task's predicted
//! improvement by its weight:
//! a(x) = (w_t·EI_t(x) + Σ_i w_i·max(0, μ_i^min − μ_i(x))) / (w_t + Σ_i w_i),
//! with μ_i^min the smallest mean of GP i over the target's evaluated configurations.
//! SGPT standardises every task's values with Δ; "SGPT Copula" uses ψ (the paper's
//! variant, Table 2).
//!
//! Defaults: ρ = 0.01 (the paper's choice); 1,000 evaluations subsampled per other task
//! (App. B); Matérn-5/2 ARD GPs as everywhere here. *Deviations*, for speed: each other
//! task's GP hyperparameters are fitted by type-II ML on 100 of its 1,000 points and the GP
//! is then conditioned on all 1,000; the subsample is drawn once with a fixed seed (it does
//! not depend on the BO seed). Initial design: 5 random evaluations, as our GP baseline
//! (Wistuba et al. start from the transfer acquisition directly).

use std::sync::Arc;

use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::{index_below, job_rng, MethodRng, Optimizer, SearchState};
use crate::stats::expected_improvement;
use crate::warping::OutputWarp;

use super::gp::INITIAL_DESIGN;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// Bandwidth of the ranking distance (App. B: best of {1, 0.1, 0.01}).
pub const RHO: f64 = 0.01;
/// Evaluations kept per other task (App. B).
pub const SUBSAMPLE: usize = 1000;
/// Points on which each other task's GP hyperparameters are fitted (our speed deviation).
pub const HYPER_FIT_POINTS: usize = 100;
const SUBSAMPLE_SEED: u64 = 2018;

/// Weight of a task whose ranking distance to the target is `d`.
pub fn epanechnikov_weight(d: f64, rho: f64) -> f64 {
    if d <= rho {
        0.75 * (1.0 - (d / rho) * (d / rho))
    } else {
        0.0
    }
}

/// Fraction of pairs ranked in opposite orders by `predicted` and `observed` (0 with < 2 points).
pub fn discordant_fraction(predicted: &[f64], observed: &[f64]) -> f64 {
    let n = observed.len();
    let (mut bad, mut pairs) = (0usize, 0usize);
    for j in 0..n {
        for k in j + 1..n {
            pairs += 1;
            if (predicted[j] < predicted[k]) != (observed[j] < observed[k]) {
                bad += 1;
            }
        }
    }
    if pairs == 0 {
        0.0
    } else {
        bad as f64 / pairs as f64
    }
}

/// The mean of a GP fitted to each other task (values warped with `warp` on the whole task,
/// 1,000 subsampled points, hyperparameters from 100 of them) at every target candidate.
/// Independent of the BO seed, so one computation serves every seed (see
/// [`crate::transfer::PriorCache`]).
pub fn other_task_means(others: &[(Vec<Vec<f64>>, Vec<f64>)], warp: OutputWarp, candidates: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
    let settings = GpSettings::default();
    let mut out = Vec::with_capacity(others.len());
    for (k, (x, losses)) in others.iter().enumerate() {
        let z = warp.apply(losses);
        let mut rng = job_rng(SUBSAMPLE_SEED, &format!("sgpt/{k}"));
        let mut order: Vec<usize> = (0..x.len()).collect();
        for i in 0..order.len().min(SUBSAMPLE) {
            let j = i + index_below(&mut rng, order.len() - i);
            order.swap(i, j);
        }
        order.truncate(SUBSAMPLE);
        let xs: Vec<Vec<f64>> = order.iter().map(|&i| x[i].clone()).collect();
        let zs: Vec<f64> = order.iter().map(|&i| z[i]).collect();
        let m = HYPER_FIT_POINTS.min(xs.len());
        let params = FittedGp::fit(&xs[..m], &zs[..m], &settings)?.params().clone();
        let gp = FittedGp::with_params(&xs, &zs, params)?;
        out.push(candidates.iter().map(|c| gp.predict_mean(c)).collect());
    }
    Ok(out)
}

/// SGPT over a finite candidate set.
#[derive(Debug, Clone)]
pub struct Sgpt {
    warp: OutputWarp,
    /// Mean of each other task's GP at every candidate ([`other_task_means`]).
    means: Arc<Vec<Vec<f64>>>,
    settings: GpSettings,
    last_params: Option<GpParams>,
}

impl Sgpt {
    /// SGPT (`Standardize`) or SGPT Copula (`Copula`) given the other tasks' GP means.
    pub fn new(warp: OutputWarp, means: Arc<Vec<Vec<f64>>>) -> Self {
        Sgpt { warp, means, settings: GpSettings::default(), last_params: None }
    }
}

impl Optimizer for Sgpt {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        let remaining: Vec<usize> = (0..state.candidates.len()).filter(|&i| !state.evaluated[i]).collect();
        if remaining.is_empty() {
            // Labelled with the entry's name (SGPT or SGPT Copula) by the runner.
            return Err(EngineError::Method { method: String::new(), message: "no candidate left".into() });
        }
        if state.history.len() < INITIAL_DESIGN {
            return Ok(remaining[index_below(rng, remaining.len())]);
        }
        let means = self.means.as_ref();
        let observed: Vec<usize> = state.history.iter().map(|&(i, _)| i).collect();
        let z = self.warp.apply(&state.history.iter().map(|&(_, y)| y).collect::<Vec<_>>());
        let x: Vec<Vec<f64>> = observed.iter().map(|&i| state.candidates[i].clone()).collect();
        let gp = FittedGp::fit_from(&x, &z, &self.settings, self.last_params.as_ref())?;
        self.last_params = Some(gp.params().clone());
        let best = z.iter().copied().fold(f64::INFINITY, f64::min);
        // (weight, best mean over the target's observations) per other task.
        let tasks: Vec<(f64, f64)> = means
            .iter()
            .map(|mu| {
                let at_obs: Vec<f64> = observed.iter().map(|&i| mu[i]).collect();
                let w = epanechnikov_weight(discordant_fraction(&at_obs, &z), RHO);
                (w, at_obs.iter().copied().fold(f64::INFINITY, f64::min))
            })
            .collect();
        let target_weight = 0.75;
        let total = target_weight + tasks.iter().map(|t| t.0).sum::<f64>();
        // Grows with the variance (EI does, the transfer term does not depend on it), as the
        // pruned argmax needs.
        let pick = gp.argmax_score(state.candidates, &remaining, |i, m, v| {
            let transfer: f64 = tasks.iter().zip(means).filter(|(t, _)| t.0 > 0.0).map(|(t, mu)| t.0 * (t.1 - mu[i]).max(0.0)).sum();
            (target_weight * expected_improvement(m, v.sqrt(), best) + transfer) / total
        });
        Ok(pick.unwrap_or(remaining[0]))
    }
}

/// Registry entry.
pub const SGPT: MethodEntry = MethodEntry {
    name: "SGPT",
    summary: "GPs per task (Δ), weighted by rank matching (ρ = 0.01), transfer acquisition (Wistuba et al. 2018)",
    paper: "Wistuba et al. 2018, as Salinas et al. 2020, App. B",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::OtherTaskGps(OutputWarp::Standardize),
        build: full_constructor(|t| Ok(Box::new(Sgpt::new(OutputWarp::Standardize, needs_means(t.other_task_means)?)))),
    },
};

/// Registry entry: ψ instead of Δ.
pub const SGPT_COPULA: MethodEntry = MethodEntry {
    name: "SGPT Copula",
    summary: "SGPT with ψ instead of Δ on every task",
    paper: "Salinas et al. 2020, App. B and Table 2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::OtherTaskGps(OutputWarp::Copula),
        build: full_constructor(|t| Ok(Box::new(Sgpt::new(OutputWarp::Copula, needs_means(t.other_task_means)?)))),
    },
};

fn needs_means(means: Option<Arc<Vec<Vec<f64>>>>) -> Result<Arc<Vec<Vec<f64>>>> {
    means.ok_or_else(|| EngineError::Method { method: String::new(), message: "needs the other tasks' GPs".into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_distance_and_weights() {
        assert_eq!(discordant_fraction(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 0.0);
        assert_eq!(discordant_fraction(&[3.0, 2.0, 1.0], &[10.0, 20.0, 30.0]), 1.0);
        assert!((discordant_fraction(&[1.0, 3.0, 2.0], &[10.0, 20.0, 30.0]) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(epanechnikov_weight(0.0, 0.01), 0.75);
        assert!((epanechnikov_weight(0.005, 0.01) - 0.5625).abs() < 1e-15);
        assert_eq!(epanechnikov_weight(0.02, 0.01), 0.0);
    }

    #[test]
    fn a_perfectly_related_task_steers_the_search() {
        // Target and the one other task share their minimiser at x = 0.8; with 5 random
        // observations the other task ranks them perfectly and its improvement term points there.
        let candidates: Vec<Vec<f64>> = (0..101).map(|i| vec![i as f64 / 100.0]).collect();
        let f = |x: f64| (x - 0.8) * (x - 0.8);
        let other = (candidates.clone(), candidates.iter().map(|c| 3.0 * f(c[0]) + 1.0).collect());
        let means = other_task_means(&[other], OutputWarp::Standardize, &candidates).unwrap();
        let mut sgpt = Sgpt::new(OutputWarp::Standardize, Arc::new(means));
        let history: Vec<(usize, f64)> = [3usize, 20, 45, 60, 99].iter().map(|&i| (i, f(candidates[i][0]))).collect();
        let mut evaluated = vec![false; 101];
        history.iter().for_each(|&(i, _)| evaluated[i] = true);
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
        let pick = sgpt.suggest(&state, &mut job_rng(0, "t")).unwrap();
        assert!((candidates[pick][0] - 0.8).abs() <= 0.05, "picked {}", candidates[pick][0]);
    }
}
