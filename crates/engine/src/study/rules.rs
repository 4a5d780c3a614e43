//! What a study's trials are as evaluations, written once for the loaders (a study as a
//! benchmark), for the next trials (`crate::suggest`) and for Python: which studies share a
//! space, which trials are evaluations, and where a parameter a trial did not suggest stands.
//!
//! A conditional space (Optuna's tutorial: `momentum` only when `optimizer` is sgd, `beta2`
//! only when it is adam) gives trials of different parameters. Every trial is kept: a
//! parameter a trial did not suggest stands at its *inactive value* (a numeric one at its lower
//! bound, a categorical one at its first choice), so that every trial is a point of one space
//! and the methods model all parameters jointly. The absence is told to the model by the
//! parameter that decides it (the `optimizer` choice, which every trial has): two trials that
//! differ in the branch differ there. See docs/methods.md, "Conditional search spaces".

use super::{Distribution, Study, Trial, TrialState};

/// When a conditional parameter is suggested: when the parameter `parent` (one every trial
/// has) takes one of `levels` (choice indices). Read from the trials.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The index of the deciding parameter in the study's distributions.
    pub parent: usize,
    /// The choices of the parent under which the parameter is suggested.
    pub levels: Vec<usize>,
}

impl Study {
    /// Whether `other` is a task of this study's space: the same parameters with the same
    /// distributions (in any order) and the same directions.
    pub fn same_space(&self, other: &Study) -> bool {
        fn sorted(s: &Study) -> Vec<&(String, Distribution)> {
            let mut d: Vec<&(String, Distribution)> = s.distributions.iter().collect();
            d.sort_by(|a, b| a.0.cmp(&b.0));
            d
        }
        self.directions == other.directions && sorted(self) == sorted(other)
    }

    /// The trials that are evaluations: complete, with a finite value for every objective.
    pub fn complete_trials(&self) -> impl Iterator<Item = &Trial> {
        let objectives = self.directions.len();
        self.trials.iter().filter(move |t| {
            t.state == TrialState::Complete && t.values.as_ref().is_some_and(|v| v.len() == objectives && v.iter().all(|x| x.is_finite()))
        })
    }

    /// What the next trials read of a trial's system attribute: its constraints (Optuna 5's
    /// `constraints:NAME`, or the `constraints` list of a sampler's `constraints_func`, named
    /// by position) and an enqueued trial's `fixed_params` ([`Study::fix_waiting_params`]).
    pub fn set_trial_system_attr(&mut self, t: usize, key: &str, value: &serde_json::Value) {
        if key == "fixed_params" {
            if let Some(fixed) = value.as_object() {
                self.fix_waiting_params(t, fixed);
            }
        } else if key == "constraints" {
            for (i, c) in value.as_array().into_iter().flatten().enumerate() {
                self.trials[t].constraints.insert(i.to_string(), c.as_f64().unwrap_or(f64::NAN));
            }
        } else if let Some(name) = key.strip_prefix("constraints:") {
            self.trials[t].constraints.insert(name.to_string(), value.as_f64().unwrap_or(f64::NAN));
        }
    }

    /// Sets the parameters of the WAITING trial `t` (no parameter yet) to those
    /// `study.enqueue_trial` fixed (its `fixed_params` system attribute, external values), so
    /// that the next trials count it as pending: only when each is a value of the study's
    /// distribution of that name and together they cover every parameter all the started
    /// trials have — a partial template (some parameters fixed, the rest left to the sampler)
    /// is not yet a configuration, and would make the others look conditional.
    pub fn fix_waiting_params(&mut self, t: usize, fixed: &serde_json::Map<String, serde_json::Value>) {
        if self.trials[t].state != TrialState::Waiting || !self.trials[t].params.is_empty() || fixed.is_empty() {
            return;
        }
        let mut params = std::collections::BTreeMap::new();
        for (name, v) in fixed {
            let Some(x) = self.distributions.iter().find(|(n, _)| n == name).and_then(|(_, d)| d.internal(v)) else { return };
            params.insert(name.clone(), x);
        }
        let started = || self.trials.iter().filter(|t| !t.params.is_empty());
        let shared_missing = self.distributions.iter().any(|(n, _)| started().all(|t| t.params.contains_key(n)) && !params.contains_key(n));
        if started().next().is_some() && shared_missing {
            return;
        }
        self.trials[t].params = params;
    }

    /// This study with every complete trial's infinite objective values clipped to that
    /// objective's finite values' range among the complete trials (to 0 when it has none), as
    /// Optuna's GPSampler clips them before its fit; and how many values were clipped. A
    /// NaN stays: Optuna fails such a trial rather than completing it.
    pub fn infinite_values_clipped(&self) -> (Study, usize) {
        let mut out = self.clone();
        let mut clipped = 0;
        for m in 0..self.directions.len() {
            let finite = || {
                self.trials
                    .iter()
                    .filter(|t| t.state == TrialState::Complete)
                    .filter_map(|t| t.values.as_ref()?.get(m).copied())
                    .filter(|v| v.is_finite())
            };
            for t in out.trials.iter_mut().filter(|t| t.state == TrialState::Complete) {
                if let Some(v) = t.values.as_mut().and_then(|v| v.get_mut(m)).filter(|v| v.is_infinite()) {
                    *v = clip_infinite(*v, finite());
                    clipped += 1;
                }
            }
        }
        (out, clipped)
    }

    /// Each complete trial as an evaluation: its configuration over `space`'s distributions
    /// (this study's, or another's of the same space) and its first objective's value.
    pub fn evaluations(&self, space: &Study) -> Vec<(Vec<f64>, f64)> {
        self.complete_trials().filter_map(|t| Some((space.config(t), t.values.as_ref()?.first().copied()?))).collect()
    }

    /// A trial's configuration over this study's distributions (internal values; a parameter
    /// it did not suggest at its [`Distribution::inactive_value`]).
    pub fn config(&self, t: &Trial) -> Vec<f64> {
        self.distributions.iter().map(|(n, d)| t.params.get(n).copied().unwrap_or_else(|| d.inactive_value())).collect()
    }

    /// The configuration `c` with each conditional parameter its branch does not suggest (by
    /// `conditions`, [`Study::conditions`]) at its inactive value, so that a proposal compares
    /// with the trials and is modelled as they are.
    pub fn canonical(&self, conditions: &[Option<Condition>], mut c: Vec<f64>) -> Vec<f64> {
        for (k, condition) in conditions.iter().enumerate() {
            if let Some(cond) = condition {
                if !cond.levels.contains(&(c[cond.parent] as usize)) {
                    c[k] = self.distributions[k].1.inactive_value();
                }
            }
        }
        c
    }

    /// The parameters some of the trials that suggested any parameter left out: the conditional ones.
    pub fn conditional(&self) -> Vec<usize> {
        let started: Vec<&Trial> = self.trials.iter().filter(|t| !t.params.is_empty()).collect();
        (0..self.distributions.len()).filter(|&k| started.iter().any(|t| !t.params.contains_key(&self.distributions[k].0))).collect()
    }

    /// When the complete trials share no parameter (the one thing a model of the study can
    /// stand on), the sentence that says so, with the way out.
    pub fn shares_nothing(&self) -> Option<String> {
        let complete: Vec<&Trial> = self.complete_trials().collect();
        if complete.is_empty() || self.distributions.iter().any(|(n, _)| complete.iter().all(|t| t.params.contains_key(n))) {
            return None;
        }
        Some(format!(
            "the complete trials of '{}' share no parameter ({} each suggested by some trials only): there is no space in common to model. Suggest in every trial the choice that decides which parameters follow (as `optimizer` decides `momentum` or `beta2` in Optuna's tutorial), or keep each branch in a study of its own",
            self.name,
            self.distributions.iter().map(|(n, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ")
        ))
    }

    /// When each parameter is suggested: `None` for one every trial suggests (or whose
    /// condition the trials do not show), else the categorical parameter every trial has and
    /// the choices under which it is suggested — the choices of the trials that have it, when
    /// no trial without it made one of them.
    pub fn conditions(&self) -> Vec<Option<Condition>> {
        let started: Vec<&Trial> = self.trials.iter().filter(|t| !t.params.is_empty()).collect();
        let conditional = self.conditional();
        let parents: Vec<usize> = (0..self.distributions.len())
            .filter(|&p| matches!(self.distributions[p].1, Distribution::Categorical { .. }) && !conditional.contains(&p))
            .collect();
        (0..self.distributions.len())
            .map(|k| {
                if !conditional.contains(&k) {
                    return None;
                }
                let name = &self.distributions[k].0;
                parents.iter().find_map(|&p| {
                    let parent = &self.distributions[p].0;
                    let levels_where = |has: bool| -> Vec<usize> {
                        let mut l: Vec<usize> = started
                            .iter()
                            .filter(|t| t.params.contains_key(name) == has)
                            .filter_map(|t| t.params.get(parent).map(|&v| v as usize))
                            .collect();
                        l.sort_unstable();
                        l.dedup();
                        l
                    };
                    let (with, without) = (levels_where(true), levels_where(false));
                    (!with.is_empty() && with.iter().all(|l| !without.contains(l))).then_some(Condition { parent: p, levels: with })
                })
            })
            .collect()
    }
}

/// An infinite value clipped to the range of the `finite` values beside it (to 0 when there
/// are none), as Optuna's GPSampler clips them before its fit: the one rule for a study's
/// infinite objective values and a multi-fidelity session's infinite curve values. A finite
/// value is returned as it is.
pub fn clip_infinite(value: f64, finite: impl Iterator<Item = f64>) -> f64 {
    if !value.is_infinite() {
        return value;
    }
    let (low, high) = finite.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    if low <= high {
        value.clamp(low, high)
    } else {
        0.0
    }
}
