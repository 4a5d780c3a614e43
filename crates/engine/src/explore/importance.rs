//! Hyperparameter importance of a study: Optuna's fANOVA ([`super::fanova`]) on the trials
//! Optuna's `get_param_importances` reads, encoded as it encodes them
//! (`optuna/importance/_fanova/_evaluator.py`, `_base.py`): the complete trials whose first
//! objective is finite; the parameters every one of them suggested (a conditional parameter is
//! left out, and the view says so), ordered by name; each number on its own scale between its
//! bounds (no log, no step: `transform_log=False, transform_step=False`), a categorical as its
//! one-hot columns; a parameter of one value is 0. Beside each importance its spread over the
//! [`FORESTS`] forests grown with different seeds and how often they put it above the next one
//! (`docs/methods.md`).

use super::fanova::{forest_importances, importances, tree_shares, Importance};
use super::forest::{grow, ForestSettings};
use super::StudyTrials;
use crate::optimizer::job_rng;
use crate::space::ParamKind;
use rand::seq::index::sample;

/// Forests grown (seeds `seed`, `seed + 1`, …), each Optuna's 64 trees: the importance is
/// their mean and its uncertainty their spread.
pub const FORESTS: usize = 8;

/// Fewer complete trials and the importance is not computed: two trials split once, and any
/// parameter that differs between them takes the whole variance.
pub const FEWEST_TRIALS: usize = 3;

/// The forests are grown on at most this many complete trials, drawn at random: growing them
/// costs about trials × log(trials) each, and on 2,000 trials the forests' spread is already
/// smaller than the order needs (100,000 trials took 82 s natively, 2,000 take about 2 s).
pub const MOST_TRIALS: usize = 2_000;

/// One parameter's row of the importance view.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImportanceRow {
    /// The parameter.
    pub parameter: String,
    /// Its importance, the parameters summing to 1.
    pub importance: Importance,
}

/// The importance view.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImportanceReport {
    /// One row a parameter, most important first.
    pub rows: Vec<ImportanceRow>,
    /// The trials the forest was grown on.
    pub trials: usize,
    /// The complete trials with a finite value.
    pub complete: usize,
    /// The seed of the forests (and of the trials drawn, beyond [`MOST_TRIALS`]).
    pub seed: u64,
    /// The parameters left out because some complete trials did not suggest them.
    pub conditional: Vec<String>,
    /// The parameters whose range is a single value (importance 0).
    pub single: Vec<String>,
}

impl ImportanceReport {
    /// Whether there were too few trials to compute it ([`FEWEST_TRIALS`]).
    pub fn too_few(&self) -> bool {
        self.complete < FEWEST_TRIALS
    }

    /// What the importance was computed on, in a sentence for the page and the CLI.
    pub fn in_words(&self) -> String {
        if self.too_few() {
            return format!(
                "importance needs at least {FEWEST_TRIALS} complete trials with a finite value; this study has {}",
                self.complete
            );
        }
        let mut s = if self.trials < self.complete {
            format!(
                "importance by fANOVA over {} of the {} complete trials, drawn at random (seed {})",
                self.trials, self.complete, self.seed
            )
        } else {
            format!("importance by fANOVA over {} trials", self.trials)
        };
        if !self.conditional.is_empty() {
            s += &format!(", leaving out, as Optuna does, what not every complete trial suggested: {}", self.conditional.join(", "));
        }
        if !self.single.is_empty() {
            s += &format!("; a single value only, so importance 0: {}", self.single.join(", "));
        }
        s
    }
}

/// The importance of `study`'s parameters for its first objective, the forest seeded by `seed`.
pub fn importance(study: &StudyTrials, seed: u64) -> ImportanceReport {
    let mut complete: Vec<_> = study.complete().collect();
    let all = complete.len();
    if all > MOST_TRIALS {
        let mut rng = job_rng(seed, "importance trials");
        let mut chosen = sample(&mut rng, all, MOST_TRIALS).into_vec();
        chosen.sort_unstable();
        complete = chosen.into_iter().map(|i| complete[i]).collect();
    }
    let mut params: Vec<usize> = (0..study.space.params.len()).filter(|&p| complete.iter().all(|t| t.params[p].is_some())).collect();
    let conditional = (0..study.space.params.len()).filter(|p| !params.contains(p)).map(|p| study.space.params[p].name.clone()).collect();
    params.sort_by(|&a, &b| study.space.params[a].name.cmp(&study.space.params[b].name));
    let single = |p: usize| {
        let (lo, hi) = study.range(p);
        hi <= lo
    };
    let varying: Vec<usize> = params.iter().copied().filter(|&p| !single(p)).collect();
    // Columns and bounds, each parameter its group of columns.
    let mut columns: Vec<Vec<f64>> = Vec::new();
    let mut bounds = Vec::new();
    let mut groups = Vec::new();
    for &p in &varying {
        let values = complete.iter().map(|t| t.params[p].unwrap_or_default());
        match &study.space.params[p].kind {
            ParamKind::Categorical { levels } => {
                let raw: Vec<f64> = values.collect();
                groups.push((columns.len()..columns.len() + levels.len()).collect());
                for l in 0..levels.len() {
                    columns.push(raw.iter().map(|&v| if v as usize == l { 1.0 } else { 0.0 }).collect());
                    bounds.push((0.0, 1.0));
                }
            }
            _ => {
                groups.push(vec![columns.len()]);
                columns.push(values.collect());
                bounds.push(study.range(p));
            }
        }
    }
    let y: Vec<f64> = complete.iter().map(|t| t.values.as_ref().map_or(0.0, |v| v[0])).collect();
    let found: Vec<Importance> = if all < FEWEST_TRIALS || varying.is_empty() {
        vec![Importance { mean: 0.0, sd: 0.0, ahead_of_next: None }; varying.len()]
    } else {
        let forests: Vec<Vec<f64>> = (0..FORESTS as u64)
            .map(|f| {
                let mut rng = job_rng(seed.wrapping_add(f), "importance");
                let trees = grow(&columns, &y, &ForestSettings::default(), &mut rng);
                forest_importances(&tree_shares(&trees, &bounds, &groups))
            })
            .collect();
        importances(&forests)
    };
    let mut rows: Vec<ImportanceRow> = varying
        .iter()
        .zip(found)
        .map(|(&p, importance)| ImportanceRow { parameter: study.space.params[p].name.clone(), importance })
        .chain(params.iter().filter(|&&p| single(p)).map(|&p| ImportanceRow {
            parameter: study.space.params[p].name.clone(),
            importance: Importance { mean: 0.0, sd: 0.0, ahead_of_next: None },
        }))
        .collect();
    rows.sort_by(|a, b| b.importance.mean.total_cmp(&a.importance.mean));
    if all < FEWEST_TRIALS {
        rows.clear();
    }
    let single = params.iter().filter(|&&p| single(p)).map(|&p| study.space.params[p].name.clone()).collect();
    ImportanceReport { rows, trials: complete.len(), complete: all, seed, conditional, single }
}
