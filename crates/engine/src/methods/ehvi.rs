//! EHVI: expected hypervolume improvement with independent GPs per objective, in closed form
//! for two objectives (Emmerich, Deutz, Klinkenberg, CEC 2011) — the standard counterpart of
//! the GPareto "EHI" criterion the copula paper compares with (§5.2).
//!
//! The region not dominated by the observed front is cut into vertical strips
//! [a_k, b_k) × (−∞, c_k) ([`crate::pareto::strips_2d`]); for independent Gaussians
//! Y₁, Y₂ the improvement inside a strip is (b_k − max(Y₁, a_k))⁺ · (c_k − Y₂)⁺, whose expectation
//! factorises into (G₁(b_k) − G₁(a_k)) · G₂(c_k) with G(t) = E[(t − Y)⁺], the EI formula.
//!
//! Defaults: 5 random initial evaluations (as every GP method here); one GP per objective
//! (Matérn-5/2 ARD, type-II ML, losses standardised with Δ); the reference point is the worst
//! observed value of each objective plus 10% of its observed range (the task's true maxima,
//! used by the hypervolume-error metric, are not known to an optimizer); EHVI maximised over
//! every remaining candidate. EHVI is invariant to rescaling an objective, so computing it on
//! standardised losses picks the same candidate as on raw ones.

use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::{index_below, MethodRng, Optimizer, SearchState};
use crate::pareto::{non_dominated, strips_2d};
use crate::stats::expected_improvement;
use crate::warping::standardize;

use super::gp::INITIAL_DESIGN;
use super::surrogate_bo::argmax;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// Margin of the reference point beyond the worst observation, as a fraction of the range.
pub const REFERENCE_MARGIN: f64 = 0.1;

/// Exact EHVI of a point with independent Gaussian objectives N(mean[l], sd[l]²) over the strips
/// of a 2-D front.
pub fn ehvi_2d(strips: &[(f64, f64, f64)], mean: [f64; 2], sd: [f64; 2]) -> f64 {
    let g = |t: f64, l: usize| if t == f64::NEG_INFINITY { 0.0 } else { expected_improvement(mean[l], sd[l], t) };
    strips.iter().map(|&(a, b, c)| (g(b, 0) - g(a, 0)) * g(c, 1)).sum()
}

/// EHVI search over a finite candidate set.
#[derive(Debug, Clone, Default)]
pub struct Ehvi {
    settings: GpSettings,
    last_params: [Option<GpParams>; 2],
}

impl Ehvi {
    /// EHVI with its defaults.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Optimizer for Ehvi {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        let err = |m: &str| EngineError::Method { method: "EHVI".into(), message: m.into() };
        let remaining: Vec<usize> = (0..state.candidates.len()).filter(|&i| !state.evaluated[i]).collect();
        if remaining.is_empty() {
            return Err(err("no candidate left"));
        }
        if state.objectives.len() != state.history.len() || state.objectives.first().is_some_and(|o| o.len() != 2) {
            return Err(err("needs exactly two objectives for every observation"));
        }
        if state.history.len() < INITIAL_DESIGN {
            return Ok(remaining[index_below(rng, remaining.len())]);
        }
        let x: Vec<Vec<f64>> = state.history.iter().map(|&(i, _)| state.candidates[i].clone()).collect();
        let mut gps = Vec::with_capacity(2);
        let mut columns = Vec::with_capacity(2);
        for l in 0..2 {
            let z = standardize(&state.objectives.iter().map(|o| o[l]).collect::<Vec<_>>());
            let gp = FittedGp::fit_from(&x, &z, &self.settings, self.last_params[l].as_ref())?;
            self.last_params[l] = Some(gp.params().clone());
            gps.push(gp);
            columns.push(z);
        }
        let points: Vec<Vec<f64>> = (0..x.len()).map(|i| vec![columns[0][i], columns[1][i]]).collect();
        let front: Vec<Vec<f64>> = non_dominated(&points).into_iter().map(|i| points[i].clone()).collect();
        let reference: Vec<f64> = columns
            .iter()
            .map(|c| {
                let (lo, hi) = c.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
                hi + REFERENCE_MARGIN * (hi - lo).max(1e-9)
            })
            .collect();
        let strips = strips_2d(&front, &reference);
        let (first, second) = (gps[0].predict_many(state.candidates, &remaining), gps[1].predict_many(state.candidates, &remaining));
        let pick = argmax(
            remaining
                .iter()
                .zip(first)
                .zip(second)
                .map(|((&i, (m0, v0)), (m1, v1))| (i, ehvi_2d(&strips, [m0, m1], [v0.max(0.0).sqrt(), v1.max(0.0).sqrt()]))),
        );
        Ok(pick.unwrap_or(remaining[0]))
    }
}

/// Registry entry.
pub const EHVI: MethodEntry = MethodEntry {
    name: "EHVI",
    summary: "Expected hypervolume improvement, independent GPs per objective (exact, 2 objectives)",
    paper: "Emmerich et al. 2011; a baseline for Salinas et al. 2020, §5.2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Pareto { max_objectives: 2 },
        transfer: TransferNeed::None,
        build: full_constructor(|_| Ok(Box::new(Ehvi::new()))),
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pareto::hypervolume;
    use crate::stats::normal_quantile;

    #[test]
    fn closed_form_matches_monte_carlo_hypervolume_improvement() {
        let front = vec![vec![0.2, 0.8], vec![0.4, 0.5], vec![0.7, 0.3]];
        let reference = [1.0, 1.0];
        let strips = strips_2d(&front, &reference);
        let base = hypervolume(&front, &reference);
        for (mean, sd) in [([0.5, 0.5], [0.2, 0.3]), ([0.1, 0.9], [0.05, 0.4]), ([0.9, 0.9], [0.1, 0.1])] {
            let exact = ehvi_2d(&strips, mean, sd);
            // Quasi-Monte Carlo on a 400×400 midpoint grid of normal quantiles.
            let n = 400;
            let q: Vec<f64> = (0..n).map(|k| normal_quantile((k as f64 + 0.5) / n as f64)).collect();
            let mut total = 0.0;
            for a in &q {
                for b in &q {
                    let mut pts = front.clone();
                    pts.push(vec![mean[0] + sd[0] * a, mean[1] + sd[1] * b]);
                    total += hypervolume(&pts, &reference) - base;
                }
            }
            let mc = total / (n * n) as f64;
            assert!((exact - mc).abs() < 2e-4 + 0.01 * mc, "mean {mean:?}: exact {exact} vs MC {mc}");
        }
    }

    #[test]
    fn certain_point_gets_its_exact_improvement() {
        let front = vec![vec![0.2, 0.8], vec![0.7, 0.3]];
        let strips = strips_2d(&front, &[1.0, 1.0]);
        // (0.5, 0.5) adds the box [0.5, 0.7) × [0.5, 0.8): 0.2 · 0.3.
        assert!((ehvi_2d(&strips, [0.5, 0.5], [0.0, 0.0]) - 0.06).abs() < 1e-12);
        assert_eq!(ehvi_2d(&strips, [0.9, 0.9], [0.0, 0.0]), 0.0);
    }
}
