//! Runs a full-evaluation method over a finite task one pick at a time and keeps, for each
//! pick, what the method believed ([`Belief`]) and what it chose: the frames of lessons 2 and 3.
//! The loop is the runner's (`engine::runner::run_job`) for one objective, so the picks are
//! the method's own; only the beliefs are extra.

use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};
use crate::optimizer::{Belief, MethodRng, Optimizer, SearchState};

/// One pick: the observations before it, what the method believed, and what it chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pick {
    /// Candidates evaluated before this pick, in order.
    pub evaluated: Vec<usize>,
    /// The model's view when it picked; `None` for a random warm-start pick.
    pub belief: Option<Belief>,
    /// The candidate chosen.
    pub next: usize,
}

/// Frames 0 ..= `steps` of `optimizer` minimising `losses` over `candidates`: frame k has k
/// observations and frame k's `next` is frame k + 1's last observation.
pub fn record(
    optimizer: &mut dyn Optimizer,
    candidates: &[Vec<f64>],
    losses: &[f64],
    steps: usize,
    rng: &mut MethodRng,
) -> Result<Vec<Pick>> {
    if candidates.len() != losses.len() || steps >= candidates.len() {
        return Err(EngineError::Spec(format!("{steps} steps need more than {steps} candidates with a loss each")));
    }
    optimizer.record_beliefs();
    let mut evaluated = vec![false; candidates.len()];
    let mut history: Vec<(usize, f64)> = Vec::with_capacity(steps + 1);
    let mut picks = Vec::with_capacity(steps + 1);
    loop {
        let state = SearchState { candidates, evaluated: &evaluated, history: &history, objectives: &[] };
        let next = optimizer.suggest(&state, rng)?;
        if evaluated[next] {
            return Err(EngineError::Method { method: String::new(), message: format!("picked candidate {next} twice") });
        }
        picks.push(Pick { evaluated: history.iter().map(|h| h.0).collect(), belief: optimizer.belief().cloned(), next });
        if picks.len() > steps {
            return Ok(picks);
        }
        optimizer.observe(next, losses[next]);
        evaluated[next] = true;
        history.push((next, losses[next]));
    }
}

/// Checks what a class sees of a GP method's frames: every fitted lengthscale inside the
/// fit's bounds (away from them by more than rounding), and the mean within `sds` standard
/// deviations of an observation (the latent sd and the noise: an observation's sd) at every
/// observation of every frame. A frame without a GP (a random start, a Thompson draw from
/// the prior) is skipped. The message names the first frame that fails.
#[cfg(test)]
pub(crate) fn fits_are_sound(picks: &[Pick], sds: f64) -> std::result::Result<(), String> {
    let (lo, hi) = crate::gp::GpSettings::default().lengthscale;
    for (step, p) in picks.iter().enumerate() {
        let Some(b) = &p.belief else { continue };
        if let Some(l) = b.lengthscales.iter().find(|&&l| l <= lo * 1.01 || l >= hi / 1.01) {
            return Err(format!("step {step}: a lengthscale at its bound ({l})"));
        }
        for (&i, z) in p.evaluated.iter().zip(&b.observed) {
            let sd = (b.sd[i] * b.sd[i] + b.noise_variance).sqrt();
            if (b.mean[i] - z).abs() > sds * sd {
                return Err(format!(
                    "step {step}: observation {z} of candidate {i} lies {:.2} sd from the mean {}",
                    (b.mean[i] - z).abs() / sd,
                    b.mean[i]
                ));
            }
        }
    }
    Ok(())
}

/// The lowest loss among the first `k` evaluations of each frame: best-so-far per step.
pub fn best_so_far(picks: &[Pick], losses: &[f64]) -> Vec<f64> {
    let mut best = f64::INFINITY;
    let mut out = Vec::with_capacity(picks.len());
    for p in picks {
        if let Some(&last) = p.evaluated.last() {
            best = best.min(losses[last]);
        }
        out.push(best);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::gcp::gcp;
    use crate::optimizer::Acquisition;
    use rand::SeedableRng;

    #[test]
    fn picks_match_a_plain_run_and_beliefs_follow_the_warm_start() {
        let candidates: Vec<Vec<f64>> = (0..41).map(|i| vec![i as f64 / 40.0]).collect();
        let losses: Vec<f64> = candidates.iter().map(|x| (x[0] - 0.3).powi(2)).collect();
        let picks = record(&mut gcp(), &candidates, &losses, 8, &mut MethodRng::seed_from_u64(4)).unwrap();
        assert_eq!(picks.len(), 9);
        // The same picks as without recording: recording only looks.
        let mut plain = gcp();
        let mut rng = MethodRng::seed_from_u64(4);
        let mut evaluated = vec![false; candidates.len()];
        let mut history = Vec::new();
        for p in &picks {
            let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
            assert_eq!(plain.suggest(&state, &mut rng).unwrap(), p.next);
            evaluated[p.next] = true;
            history.push((p.next, losses[p.next]));
        }
        // Random warm start (5) without a belief, then EI's: the pick is the largest EI.
        for (k, p) in picks.iter().enumerate() {
            assert_eq!(p.evaluated.len(), k);
            assert_eq!(p.belief.is_some(), k >= 5, "frame {k}");
            if let Some(b) = &p.belief {
                assert_eq!(b.acquisition_kind, Acquisition::ExpectedImprovement);
                assert_eq!(b.observed.len(), k);
                let best = (0..b.acquisition.len())
                    .filter(|&i| b.acquisition[i].is_finite())
                    .max_by(|&i, &j| b.acquisition[i].total_cmp(&b.acquisition[j]));
                assert_eq!(b.acquisition[best.unwrap()], b.acquisition[p.next]);
                assert!(p.evaluated.iter().all(|&i| b.acquisition[i].is_nan()));
            }
        }
        let best = best_so_far(&picks, &losses);
        assert!(best[0].is_infinite() && best.windows(2).all(|w| w[1] <= w[0]));
    }
}
