//! The views of a study that need no model: the optimization history with its best so far,
//! the empirical distribution function (EDF) of the values, the trials' intermediate values,
//! parallel coordinates, and the Pareto front of several objectives — and [`Exploration`],
//! every view of one study, which the page draws and `hpo explore` writes.

use super::importance::{importance, ImportanceReport};
use super::surrogate::{Prediction, Surrogate};
use super::StudyTrials;
use crate::pareto::dominates;
use crate::space::{ParamKind, SearchSpace};
use crate::study::TrialState;

/// A point of the optimization history.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistoryPoint {
    /// The trial's number.
    pub number: usize,
    /// Its state.
    pub state: TrialState,
    /// Its first objective's value, when complete.
    pub value: Option<f64>,
    /// The best complete value up to and including it.
    pub best: Option<f64>,
}

/// Each trial in order with the best complete value so far.
pub fn history(study: &StudyTrials) -> Vec<HistoryPoint> {
    let mut best: Option<f64> = None;
    study
        .trials
        .iter()
        .map(|t| {
            let value = (t.state == TrialState::Complete)
                .then(|| t.values.as_ref().and_then(|v| v.first().copied()))
                .flatten()
                .filter(|v| v.is_finite());
            if let Some(v) = value {
                if best.is_none_or(|b| study.loss(v) < study.loss(b)) {
                    best = Some(v);
                }
            }
            HistoryPoint { number: t.number, state: t.state, value, best }
        })
        .collect()
}

/// The EDF of the complete trials' values: each distinct value and the share of trials whose
/// value is at most it (at least it, for a maximised objective: the share as good or worse).
pub fn edf(study: &StudyTrials) -> Vec<(f64, f64)> {
    let mut values: Vec<f64> = study.complete().map(|t| t.values.as_ref().unwrap()[0]).collect();
    values.sort_by(f64::total_cmp);
    let n = values.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        match out.last_mut() {
            Some(last) if last.0 == v => last.1 = (i + 1) as f64 / n,
            _ => out.push((v, (i + 1) as f64 / n)),
        }
    }
    out
}

/// Every intermediate value: (trial number, its state, step, value), trials in order.
pub fn intermediate(study: &StudyTrials) -> Vec<(usize, TrialState, i64, f64)> {
    study.trials.iter().flat_map(|t| t.intermediate.iter().map(move |&(s, v)| (t.number, t.state, s, v))).collect()
}

/// A parameter's raw value as its parallel-coordinates axis places it, in [0, 1] (on a log
/// axis for a log scale; a choice at its index over the choices).
pub fn axis_position(space: &SearchSpace, p: usize, raw: f64) -> f64 {
    let (v, lo, hi) = match &space.params[p].kind {
        // libm, not std: the page (wasm) and the CLI must agree to the bit.
        ParamKind::Continuous { lower, upper, log: true } => (libm::log(raw), libm::log(*lower), libm::log(*upper)),
        ParamKind::Continuous { lower, upper, .. } => (raw, *lower, *upper),
        ParamKind::Integer { lower, upper } => (raw, *lower as f64, *upper as f64),
        ParamKind::Categorical { levels } => (raw, 0.0, levels.len().saturating_sub(1) as f64),
    };
    if hi > lo {
        (v - lo) / (hi - lo)
    } else {
        0.5
    }
}

/// Parallel coordinates: each complete trial's number, value and axis positions (`None` for a
/// parameter it did not suggest).
pub fn parallel(study: &StudyTrials) -> Vec<(usize, f64, Vec<Option<f64>>)> {
    study
        .complete()
        .map(|t| {
            let positions = t.params.iter().enumerate().map(|(p, v)| v.map(|v| axis_position(&study.space, p, v))).collect();
            (t.number, t.values.as_ref().unwrap()[0], positions)
        })
        .collect()
}

/// For several objectives: each complete trial with every value finite, and whether it is on
/// the Pareto front (no other trial at least as good in every objective and better in one).
pub fn pareto(study: &StudyTrials) -> Vec<(usize, Vec<f64>, bool)> {
    if study.objectives.len() < 2 {
        return Vec::new();
    }
    let trials: Vec<(usize, Vec<f64>)> = study
        .trials
        .iter()
        .filter(|t| t.state == TrialState::Complete)
        .filter_map(|t| {
            Some((t.number, t.values.clone().filter(|v| v.len() == study.objectives.len() && v.iter().all(|x| x.is_finite()))?))
        })
        .collect();
    let losses: Vec<Vec<f64>> =
        trials.iter().map(|(_, v)| v.iter().zip(&study.objectives).map(|(x, (_, d))| d.loss(*x)).collect()).collect();
    // Every trial no other dominates, ties all kept (Optuna's `best_trials`), where
    // `pareto::non_dominated` keeps the first of equal points.
    trials.into_iter().enumerate().map(|(i, (n, v))| (n, v, !losses.iter().any(|o| dominates(o, &losses[i])))).collect()
}

/// A proposed configuration (a next trial: `names` and its `cells`, as `suggestions.csv` writes
/// them) as raw values of `space`'s parameters: a choice by its index, `None` for a parameter
/// the proposal leaves out (a conditional branch not taken) or that it does not name.
pub fn proposal_raw(space: &SearchSpace, names: &[String], cells: &[String]) -> Vec<Option<f64>> {
    space
        .params
        .iter()
        .map(|p| {
            let cell = names.iter().position(|n| *n == p.name).and_then(|k| cells.get(k)).filter(|c| !c.is_empty())?;
            match &p.kind {
                ParamKind::Categorical { levels } => levels.iter().position(|l| l == cell).map(|l| l as f64),
                _ => cell.parse::<f64>().ok(),
            }
        })
        .collect()
}

/// Every view of one study.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Exploration {
    /// The study.
    pub study: StudyTrials,
    /// The optimization history.
    pub history: Vec<HistoryPoint>,
    /// The EDF.
    pub edf: Vec<(f64, f64)>,
    /// The importance.
    pub importance: ImportanceReport,
    /// Each modelled parameter's slice (name and points), empty without a surrogate.
    pub slices: Vec<(String, Vec<Prediction>)>,
    /// The contour's two parameters and its grid, when there are two to show.
    pub contour: Option<(String, String, Vec<Prediction>)>,
    /// What the surrogate was fitted on, or why there is none.
    pub surrogate_note: String,
}

impl Exploration {
    /// What the views were computed on, in a sentence for the page and the CLI.
    pub fn summary(&self) -> String {
        let complete = self.study.complete().count();
        format!(
            "'{}' ({}): {} trials, {complete} complete with a finite value; {}; slices and contour: {}.",
            self.study.name,
            self.study.source,
            self.study.trials.len(),
            self.importance.in_words(),
            self.surrogate_note
        )
    }
}

/// Every view of `study`: the contour over the parameters `contour` names (the two most
/// important by default), the forest and the surrogate's subsample seeded by `seed`.
pub fn explore(study: StudyTrials, contour: Option<(&str, &str)>, seed: u64) -> Exploration {
    let importance = importance(&study, seed);
    let (slices, contour_view, surrogate_note) = match Surrogate::fit(&study, seed) {
        Ok(s) => {
            let name = |k: usize| study.space.params[s.params[k]].name.clone();
            let slices = (0..s.params.len()).map(|k| (name(k), s.slice(k))).collect();
            let position = |n: &str| (0..s.params.len()).find(|&k| name(k) == n);
            let pair = match contour {
                Some((a, b)) => position(a).zip(position(b)),
                None => {
                    let ranked: Vec<usize> = importance.rows.iter().filter_map(|r| position(&r.parameter)).collect();
                    (ranked.len() >= 2).then(|| (ranked[0], ranked[1]))
                }
            };
            let contour_view = pair.filter(|(a, b)| a != b).map(|(a, b)| (name(a), name(b), s.contour(a, b)));
            let (used, of) = s.fitted_on;
            let note = if used < of {
                format!("a GP fitted on {used} of the {of} complete trials, drawn at random (seed {seed}): its fit costs the cube of its trials")
            } else {
                format!("a GP fitted on the {of} complete trials")
            };
            (slices, contour_view, note)
        }
        Err(e) => (Vec::new(), None, e.to_string()),
    };
    Exploration { history: history(&study), edf: edf(&study), importance, slices, contour: contour_view, surrogate_note, study }
}
