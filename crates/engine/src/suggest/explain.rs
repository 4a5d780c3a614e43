//! Why a next trial is where it is: the model's prediction there (in the objective's units)
//! and the acquisition it maximised, and a flag on a proposal at a bound of a parameter where
//! no trial went — a corner the model only extrapolates to (issue #78: three of GP's four
//! proposals at alpha's upper bound on the 80-trial study, with nothing to say why).

use serde::{Deserialize, Serialize};

use crate::axis::significant;
use crate::optimizer::Prediction;
use crate::study::{Distribution, Study};

/// How near a trial must have come to a bound, in the parameter's range (log scale on a log
/// parameter), for a proposal at that bound not to be flagged: within 5 % the model has data
/// beside it, farther it extrapolates.
pub const TRIED_NEAR: f64 = 0.05;

/// What one proposal's table row says about it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The model's prediction there: `None` for a pick among candidates (a method without a
    /// searched model, a random start) or a repeated trial.
    pub predicted: Option<Predicted>,
    /// Each parameter at a bound no trial came near, in words; empty when none.
    pub untried_bounds: Vec<String>,
}

/// A prediction in the objective's units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Predicted {
    /// The predicted objective value (the mean, or the median under a copula warp).
    pub value: f64,
    /// Its sd (or half its central 68 % interval under a copula warp).
    pub sd: f64,
    /// log expected improvement there, in the model's warped units.
    pub log_ei: f64,
}

impl Predicted {
    /// A loss prediction (smaller is better) in the objective's units, `sign` −1 when the
    /// objective is maximised.
    pub fn of(p: Prediction, sign: f64) -> Self {
        Predicted { value: sign * p.loss, sd: p.sd, log_ei: p.log_ei }
    }
}

/// Where `v` lies in a numeric distribution's range, 0 at its low bound and 1 at its high one
/// (on the log scale of a log distribution); `None` for a choice or an empty range.
fn unit(d: &Distribution, v: f64) -> Option<f64> {
    let (low, high, log) = match *d {
        Distribution::Float { low, high, log, .. } => (low, high, log),
        Distribution::Int { low, high, log, .. } => (low as f64, high as f64, log),
        Distribution::Categorical { .. } => return None,
    };
    let f = |x: f64| if log { libm::log(x) } else { x };
    (high > low).then(|| (f(v) - f(low)) / (f(high) - f(low)))
}

/// The parameters of `config` (the study's internal values, `active[k]` whether its branch
/// suggests parameter k) that sit at a bound of their range where no trial of `study` came
/// within [`TRIED_NEAR`], each in words.
pub fn untried_bounds(study: &Study, config: &[f64], active: impl Fn(usize) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for (k, ((name, d), &v)) in study.distributions.iter().zip(config).enumerate() {
        let Some(u) = unit(d, v).filter(|_| active(k)) else { continue };
        let side = if u <= 1e-9 {
            "lower"
        } else if u >= 1.0 - 1e-9 {
            "upper"
        } else {
            continue;
        };
        let tried: Vec<f64> = study.trials.iter().filter_map(|t| t.params.get(name).copied()).collect();
        let nearest = tried.iter().copied().filter_map(|w| unit(d, w).map(|uw| ((uw - u).abs(), w))).min_by(|a, b| a.0.total_cmp(&b.0));
        if nearest.is_some_and(|(gap, _)| gap < TRIED_NEAR) {
            continue;
        }
        let nearest = match nearest {
            Some((gap, w)) => format!("the nearest trial has {} ({:.0} % of the range away)", significant(w, 3), gap * 100.0),
            None => "no trial has it".to_string(),
        };
        out.push(format!(
            "{name} = {} is its {side} bound, where no trial went ({nearest}): the model extrapolates there",
            significant(v, 3)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_is_flagged_only_when_no_trial_came_near_it() {
        // One parameter, lr in [1e-5, 0.1] on a log scale, tried at 0.00157 and 0.00726: at
        // 55 % and 72 % of the range (by hand: ln(lr/1e-5) / ln(1e4)).
        let journal = include_str!("../../../../tests/fixtures/studies/optuna-one-complete-journal.log");
        let mut study = crate::loaders::optuna::read_journal("one.log", journal).unwrap().0.remove(0);
        assert_eq!(
            untried_bounds(&study, &[0.1], |_| true),
            vec!["lr = 0.100 is its upper bound, where no trial went (the nearest trial has 0.00726 (28 % of the range away)): the model extrapolates there"]
        );
        assert_eq!(
            untried_bounds(&study, &[1e-5], |_| true),
            vec!["lr = 1.00e-5 is its lower bound, where no trial went (the nearest trial has 0.00157 (55 % of the range away)): the model extrapolates there"]
        );
        // Inside the range, or a parameter its branch does not suggest: never.
        assert!(untried_bounds(&study, &[0.05], |_| true).is_empty());
        assert!(untried_bounds(&study, &[0.1], |_| false).is_empty());
        // A trial at 0.09 (99 % of the range: within 5 % of the upper bound) tried near it.
        study.trials[1].params.insert("lr".into(), 0.09);
        assert!(untried_bounds(&study, &[0.1], |_| true).is_empty());
        assert_eq!(untried_bounds(&study, &[1e-5], |_| true).len(), 1);
    }

    #[test]
    fn unit_is_the_log_scale_on_a_log_parameter() {
        let d = Distribution::Float { low: 1e-5, high: 1e-1, log: true, step: None };
        assert!((unit(&d, 1e-3).unwrap() - 0.5).abs() < 1e-12);
        let d = Distribution::Int { low: 16, high: 48, log: false, step: 1 };
        assert_eq!(unit(&d, 24.0), Some(0.25));
    }
}
