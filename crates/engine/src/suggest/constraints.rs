//! What the next trials learn from a constrained study: trials with constraint values (Optuna
//! 5's `trial.set_constraint(name, value)`, or the list a sampler's `constraints_func` stores),
//! feasible when every value is ≤ 0.
//!
//! The rule, for every method of the registry (each models one loss, not the constraints): an
//! infeasible complete trial enters below every feasible one, ordered by its total violation
//! Σ max(c, 0) — the order Optuna's TPESampler gives constrained trials (feasible ones by value,
//! then infeasible ones by violation). Its loss becomes the worst feasible loss plus the span of
//! the feasible losses times 1 + its violation over the largest violation, so that a GP fitted
//! to it learns that the region is poor, more so the further it is from feasible; with no
//! feasible trial yet, the losses are the violations themselves, and the methods minimise
//! those until a feasible trial appears. Optuna's GPSampler instead multiplies EI by each
//! constraint's GP probability of feasibility (Gardner et al. 2014): a model per constraint,
//! which the methods here do not have. Measured in docs/benchmarks.md ("Constraints").

use crate::benchmark::Direction;
use crate::error::{EngineError, Result};
use crate::study::{Study, TrialState};

/// `study` with its infeasible complete trials' values replaced by the rule above, and how many
/// there are; the study itself when no complete trial has a constraint.
pub(crate) fn ranked_by_feasibility(study: &Study) -> Result<(Study, usize)> {
    let complete = |t: &&crate::study::Trial| t.state == TrialState::Complete && t.values.is_some();
    if !study.trials.iter().filter(complete).any(|t| !t.constraints.is_empty()) {
        return Ok((study.clone(), 0));
    }
    if study.directions.len() > 1 {
        return Err(EngineError::Spec(format!(
            "'{}' has constraints (trial.set_constraint) and {} objectives: the methods here rank constrained trials for one objective only; leave the constraints out, or optimise one objective",
            study.name,
            study.directions.len()
        )));
    }
    let sign = if study.directions[0] == Direction::Maximize { -1.0 } else { 1.0 };
    // A trial without a constraint value (or with NaN) counts as infeasible, as far as the worst.
    let violation = |t: &crate::study::Trial| -> Option<f64> {
        let v: f64 = t.constraints.values().map(|c| if c.is_nan() { f64::INFINITY } else { c.max(0.0) }).sum();
        (t.constraints.is_empty() || v > 0.0).then_some(v)
    };
    let feasible: Vec<f64> = study
        .trials
        .iter()
        .filter(complete)
        .filter(|t| violation(t).is_none())
        .filter_map(|t| Some(sign * t.values.as_ref()?[0]))
        .filter(|l| l.is_finite())
        .collect();
    let finite_violations = study.trials.iter().filter(complete).filter_map(violation).filter(|v| v.is_finite());
    let largest = finite_violations.fold(0.0, f64::max);
    let (low, high) = feasible.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &l| (a.min(l), b.max(l)));
    let span = if high > low { high - low } else { high.abs().max(1.0) };
    let mut out = study.clone();
    let mut infeasible = 0;
    for t in out.trials.iter_mut().filter(|t| t.state == TrialState::Complete && t.values.is_some()) {
        let Some(v) = violation(t) else { continue };
        // Unknown or infinite violations rank with the largest finite one.
        let relative = if largest > 0.0 { v.min(largest) / largest } else { 1.0 };
        let loss = if feasible.is_empty() { v.min(largest.max(1.0)) } else { high + span * (1.0 + relative) };
        if let Some(values) = t.values.as_mut() {
            values[0] = sign * loss;
        }
        infeasible += 1;
    }
    Ok((out, infeasible))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::study::{Distribution, Trial};

    fn trial(value: f64, constraints: &[f64]) -> Trial {
        Trial {
            state: TrialState::Complete,
            params: BTreeMap::from([("x".to_string(), value)]),
            values: Some(vec![value]),
            intermediate: BTreeMap::new(),
            constraints: constraints.iter().enumerate().map(|(i, &c)| (i.to_string(), c)).collect(),
        }
    }

    fn study(direction: Direction, trials: Vec<Trial>) -> Study {
        Study {
            id: 0,
            name: "c".into(),
            directions: vec![direction],
            distributions: vec![("x".into(), Distribution::Float { low: -10.0, high: 10.0, log: false, step: None })],
            trials,
        }
    }

    #[test]
    fn infeasible_trials_rank_below_every_feasible_one_by_violation() {
        for direction in [Direction::Minimize, Direction::Maximize] {
            let sign = if direction == Direction::Maximize { -1.0 } else { 1.0 };
            // Values as losses 1, 2, 3 (feasible) and 0.5, 0.1 (infeasible by 2 and by 0.5).
            let trials = vec![
                trial(sign * 1.0, &[-1.0]),
                trial(sign * 2.0, &[0.0]),
                trial(sign * 3.0, &[-0.2, -5.0]),
                trial(sign * 0.5, &[2.0]),
                trial(sign * 0.1, &[0.5, -1.0]),
            ];
            let (ranked, infeasible) = ranked_by_feasibility(&study(direction, trials)).unwrap();
            assert_eq!(infeasible, 2);
            let losses: Vec<f64> = ranked.trials.iter().map(|t| sign * t.values.as_ref().unwrap()[0]).collect();
            assert_eq!(&losses[..3], &[1.0, 2.0, 3.0], "feasible trials keep their values");
            assert!(losses[3] > losses[4] && losses[4] > 3.0, "{direction:?}: {losses:?}");
            // Span 2 above the worst feasible 3: 3 + 2 × (1 + 2/2) and 3 + 2 × (1 + 0.5/2).
            assert_eq!((losses[3], losses[4]), (7.0, 5.5));
        }
    }

    #[test]
    fn without_a_feasible_trial_the_violation_is_minimised_and_several_objectives_are_refused() {
        let (ranked, n) = ranked_by_feasibility(&study(Direction::Minimize, vec![trial(-4.0, &[3.0]), trial(9.0, &[0.5])])).unwrap();
        assert_eq!(n, 2);
        assert_eq!(ranked.trials.iter().map(|t| t.values.as_ref().unwrap()[0]).collect::<Vec<_>>(), [3.0, 0.5]);
        let unconstrained = study(Direction::Minimize, vec![trial(-4.0, &[]), trial(9.0, &[])]);
        assert_eq!(ranked_by_feasibility(&unconstrained).unwrap(), (unconstrained.clone(), 0));
        let mut two = study(Direction::Minimize, vec![trial(1.0, &[1.0])]);
        two.directions.push(Direction::Minimize);
        assert!(ranked_by_feasibility(&two).unwrap_err().to_string().contains("one objective only"));
    }
}
