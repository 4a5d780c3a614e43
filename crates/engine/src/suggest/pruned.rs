//! What the next trials learn from a study's pruned trials, and what a suggestion says it used.
//!
//! A pruned trial has no final value: its last intermediate value is the loss where a pruner
//! judged it worse than its peers at that step. Left out, it teaches nothing, and a model of
//! the complete trials alone proposes again where the pruner stopped trials (measured in
//! docs/benchmarks.md, "Pruned trials in the next trials"). The rule, as Optuna's TPE ranks a
//! pruned trial after every complete one: it enters as an observation no better than the worst
//! complete trial — at its last intermediate value, or at the worst complete value where its
//! own is better (better and worse as the study's direction says: a lower value when
//! minimised, a higher one when maximised) — evidence that the configuration is poor, never a
//! claim that it would have finished well.

use crate::axis::count;
use crate::study::{Study, TrialState};

/// How pruned trials enter the next trials' model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrunedTrials {
    /// Left out: only complete trials are observed.
    LeftOut,
    /// Observed no better than the worst complete trial: at their last intermediate value, or at
    /// the worst complete value where theirs is better.
    BelowComplete,
}

/// The pruned trials `rule` enters, as (configuration, loss); `complete` are the complete
/// trials' (configuration, value) and `sign` turns a value into a loss (−1 when maximised).
/// A pruned trial without a finite intermediate value, or with a complete trial's
/// configuration, is not entered.
pub(crate) fn pruned_observations(study: &Study, complete: &[(Vec<f64>, f64)], sign: f64, rule: PrunedTrials) -> Vec<(Vec<f64>, f64)> {
    if rule == PrunedTrials::LeftOut {
        return Vec::new();
    }
    let worst = complete.iter().map(|c| sign * c.1).fold(f64::NEG_INFINITY, f64::max);
    let mut out: Vec<(Vec<f64>, f64)> = Vec::new();
    for t in study.trials.iter().filter(|t| t.state == TrialState::Pruned && !t.params.is_empty()) {
        let Some(last) = t.intermediate.values().rev().copied().find(|v| v.is_finite()) else { continue };
        let config = study.config(t);
        if complete.iter().any(|c| c.0 == config) || out.iter().any(|o| o.0 == config) {
            continue;
        }
        out.push((config, (sign * last).max(worst)));
    }
    out
}

/// What a suggestion learned from, in words: "33 complete trials observed; 27 pruned trials
/// entered as no better than the worst complete trial (each at its last intermediate value,
/// or at the worst complete value where that is better)" — read the same whatever the
/// direction.
pub(crate) fn used_in_words(complete: usize, pruned_entered: usize, study: &Study, rule: PrunedTrials) -> String {
    let pruned = study.trials.iter().filter(|t| t.state == TrialState::Pruned).count();
    let mut out = format!("{} observed", count(complete, "complete trial"));
    if pruned > 0 {
        out += &match rule {
            PrunedTrials::BelowComplete => format!(
                "; {} entered as no better than the worst complete trial (each at its last intermediate value, or at the worst complete value where that is better){}",
                count(pruned_entered, "pruned trial"),
                if pruned_entered < pruned {
                    format!(" ({} with no intermediate value left out)", pruned - pruned_entered)
                } else {
                    String::new()
                }
            ),
            PrunedTrials::LeftOut => format!("; {} left out", count(pruned, "pruned trial")),
        };
    }
    let conditional = study.conditional();
    if !conditional.is_empty() {
        out += &format!(
            "; {} of a conditional space at their inactive value where a trial did not suggest them ({})",
            if conditional.len() == 1 { "a parameter" } else { "parameters" },
            conditional.iter().map(|&k| format!("'{}'", study.distributions[k].0)).collect::<Vec<_>>().join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmark::Direction;

    /// The rule reads the same whatever the direction: the pruned journal maximising the
    /// negated values enters the same pruned trials at the same losses, each no better than
    /// the worst complete trial.
    #[test]
    fn pruned_trials_enter_no_better_than_the_worst_complete_trial_in_either_direction() {
        let text = include_str!("../../../../tests/fixtures/studies/optuna-mlp-journal.log");
        let (studies, _) = crate::loaders::optuna::read_journal("j.log", text).unwrap();
        let minimised = &studies[0];
        let mut maximised = minimised.clone();
        maximised.directions = vec![Direction::Maximize];
        for t in &mut maximised.trials {
            if let Some(v) = t.values.as_mut() {
                v.iter_mut().for_each(|x| *x = -*x);
            }
            t.intermediate.values_mut().for_each(|x| *x = -*x);
        }
        let entered = |study: &Study, sign: f64| {
            let complete = study.evaluations(study);
            let worst = complete.iter().map(|c| sign * c.1).fold(f64::NEG_INFINITY, f64::max);
            let pruned = pruned_observations(study, &complete, sign, PrunedTrials::BelowComplete);
            assert!(pruned.iter().all(|p| p.1 >= worst), "no pruned trial better than the worst complete one");
            pruned
        };
        let (min, max) = (entered(minimised, 1.0), entered(&maximised, -1.0));
        assert_eq!(min, max);
        assert!(min.len() > 30, "{}", min.len());
        assert!(used_in_words(35, min.len(), &maximised, PrunedTrials::BelowComplete)
            .contains("entered as no better than the worst complete trial"));
    }
}
