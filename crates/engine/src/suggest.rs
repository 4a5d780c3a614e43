//! The next trials of a study, written back where its tool picks them up: for a study of an
//! Optuna journal, `k` configurations a full-evaluation method proposes over the study's own
//! search space, as a table, as `study.enqueue_trial(...)` calls, and as the journal with the
//! trials enqueued.
//!
//! A method with a continuous search ([`crate::optimizer::Optimizer::propose`]: the GP-EI
//! methods GP and GCP, WS-GP after its warm start, GCP+prior and GP+prior after theirs) proposes anywhere in the study's own
//! space: log-EI searched from quasi-random points and the best trial by L-BFGS on its
//! continuous parameters and exhaustive passes over its discrete ones
//! ([`crate::continuous`]), as Optuna's GPSampler searches; the best proposal no trial has is
//! taken. The other methods pick among candidates (the papers' tabular setting): the study's
//! complete trials (observed) and [`POOL`] fresh draws from its distributions —
//! log-uniform where the distribution is on a log scale, on its integer or float steps, one of
//! its choices — never a configuration any trial of the study already has. Configurations
//! handed out and not yet told — the study's RUNNING and WAITING trials, and the earlier picks
//! of a batch of `k`, which is picked one at a time — are observed at a lie, the constant liar
//! of Ginsbourger et al. 2010 ([`Liar`]), so that the next pick goes elsewhere. Methods that learn
//! from other tasks learn from the file's other studies of the same space (the chosen study is
//! the held-out task of a leave-one-task-out run).
//!
//! This file is the batch loop (`suggest_among`); the study, its draws and its encoding are
//! [`crate::study`]'s. Beside it: `files.rs` writes the suggestions out, `method_choice.rs`
//! says which methods propose for a study, `liar.rs` holds the lie, `related.rs` what a
//! transfer method learns from, `pruned.rs` and `constraints.rs` how pruned and infeasible
//! trials enter.

use serde_json::Value;

use crate::axis::count;
use crate::benchmark::Direction;
use crate::error::{EngineError, Result};
use crate::loaders::optuna::read_journal;
use crate::method_entry::{MethodObjectives, RunKind};
use crate::method_entry::{TransferContext, TransferNeed};
use crate::optimizer::{job_rng, SearchState};
use crate::registry;
use crate::study::encoding::{decode, draw, search_space, searched_space};
use crate::study::{Study, TrialState};
use crate::warping::scalarize_points;

mod constraints;
pub mod explain;
mod files;
mod liar;
mod method_choice;
pub mod multi_fidelity;
mod pruned;
mod related;
pub use explain::Explanation;
use explain::{untried_bounds, Predicted};
pub use files::{suggest_files, SuggestedFiles, EXPLANATION_COLUMNS};
pub use liar::Liar;
use method_choice::check_objectives;
pub use method_choice::{default_method, methods, methods_for, transfer_methods};
pub use pruned::PrunedTrials;
use pruned::{pruned_observations, used_in_words};
use related::related_context;

/// Fresh candidates drawn from the study's distributions.
pub const POOL: usize = 2048;

/// A proposal (or a fresh candidate) within this distance of a pending configuration in every
/// coordinate of the models' encoding (each parameter in [0, 1], log scales on the log; a
/// different choice is 1 apart) is taken for it and passed over: the kriging believer collapses
/// the variance at a pending point only, and log-EI's maximum can sit right beside it (0.8 % of
/// a range apart on the pruned journal without this radius; docs/benchmarks.md).
pub const PENDING_RADIUS: f64 = 0.05;

/// What [`suggest`] proposes for one study.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestions {
    /// The study's name.
    pub study: String,
    /// Its id in the journal.
    pub study_id: usize,
    /// The method that proposed them.
    pub method: String,
    /// Parameter names, in the study's order.
    pub names: Vec<String>,
    /// Each configuration, as Optuna's external values (numbers, choices as written); `null`
    /// for a parameter of a conditional space the configuration does not suggest.
    pub rows: Vec<Vec<Value>>,
    /// What the method learned from, in words.
    pub used: String,
    /// Why each row is where it is (the model's prediction, a bound no trial tried), one a row.
    pub explanations: Vec<Explanation>,
}

/// Proposes `k` new configurations for a study of the journal `text` (the one named `study`,
/// or the only one) with the full-evaluation method `method`; pruned trials enter as
/// [`PrunedTrials::BelowComplete`].
pub fn suggest(file: &str, text: &str, study: Option<&str>, method: &str, k: usize, seed: u64) -> Result<Suggestions> {
    suggest_with(file, text, study, method, k, seed, PrunedTrials::BelowComplete)
}

/// [`suggest`] with pruned trials entered as `pruned` says (measured both ways in
/// docs/benchmarks.md, "Pruned trials in the next trials").
pub fn suggest_with(
    file: &str,
    text: &str,
    study: Option<&str>,
    method: &str,
    k: usize,
    seed: u64,
    pruned: PrunedTrials,
) -> Result<Suggestions> {
    suggest_among(file, &read_journal(file, text)?.0, study, method, k, seed, pruned, Liar::DEFAULT)
}

/// Proposes `k` new configurations for the study named `chosen` among `studies` (held in
/// memory: the Python package's path), as [`suggest`] does for a journal's, its pending trials
/// observed at `liar`'s lie; transfer methods learn from the other studies.
pub fn suggest_for_study(studies: &[Study], chosen: &str, method: &str, k: usize, seed: u64, liar: Liar) -> Result<Suggestions> {
    suggest_among("the studies given", studies, Some(chosen), method, k, seed, PrunedTrials::BelowComplete, liar)
}

/// [`suggest_with`] for the studies of `file`, read from either storage.
#[allow(clippy::too_many_arguments)]
fn suggest_among(
    file: &str,
    studies: &[Study],
    study: Option<&str>,
    method: &str,
    k: usize,
    seed: u64,
    pruned: PrunedTrials,
    liar: Liar,
) -> Result<Suggestions> {
    let chosen: &Study = match study {
        Some(name) => studies.iter().find(|s| s.name == name).ok_or_else(|| {
            EngineError::Spec(format!(
                "{file} has no study '{name}'; it has: {}",
                studies.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
            ))
        })?,
        None if studies.len() == 1 => &studies[0],
        None => {
            return Err(EngineError::Spec(format!(
                "{file} holds {} studies: name one with --study ({})",
                studies.len(),
                studies.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
            )))
        }
    };
    let entry = registry::lookup(RunKind::Full, method)?;
    // An infinite objective value is clipped to the finite ones' range, as Optuna's GPSampler
    // clips it before its fit: one diverged trial must not stop every later proposal.
    let (clipped_study, clipped) = chosen.infinite_values_clipped();
    let (ranked_study, infeasible) = constraints::ranked_by_feasibility(&clipped_study)?;
    let chosen = &ranked_study;
    let multi = chosen.directions.len() > 1;
    check_objectives(chosen, entry)?;
    // Several objectives: pruned trials report one series of intermediate values, not a value
    // of each objective, so they stay out.
    let pruned = if multi { PrunedTrials::LeftOut } else { pruned };
    if let Some(sentence) = chosen.shares_nothing() {
        return Err(EngineError::Spec(sentence));
    }
    let dists = &chosen.distributions;
    let conditions = chosen.conditions();
    let complete = chosen.evaluations(chosen);
    if complete.is_empty() {
        return Err(EngineError::Spec(format!(
            "'{}' has no complete trial with a finite value yet ({}): nothing to learn from; run a few trials first (or load another study)",
            chosen.name,
            crate::axis::count(chosen.trials.len(), "trial")
        )));
    }
    let sign = if chosen.directions[0] == Direction::Maximize { -1.0 } else { 1.0 };
    // Every configuration a trial has (complete, pruned, failed, running or waiting).
    let tried: Vec<Vec<f64>> = chosen.trials.iter().filter(|t| !t.params.is_empty()).map(|t| chosen.config(t)).collect();
    let pruned_seen = pruned_observations(chosen, &complete, sign, pruned);
    let space = search_space(dists);
    let mut rng = job_rng(seed, seed_name(&chosen.name));
    // The observations: the complete trials (by their values) and the pruned ones the rule enters.
    let mut raw: Vec<Vec<f64>> = complete.iter().map(|c| c.0.clone()).chain(pruned_seen.iter().map(|p| p.0.clone())).collect();
    let losses: Vec<f64> = complete.iter().map(|c| sign * c.1).chain(pruned_seen.iter().map(|p| p.1)).collect();
    // Several objectives: each complete trial's losses (value × each direction's sign).
    let signs: Vec<f64> = chosen.directions.iter().map(|&d| if d == Direction::Maximize { -1.0 } else { 1.0 }).collect();
    let mut loss_vectors: Vec<Vec<f64>> = if multi {
        chosen.complete_trials().filter_map(|t| Some(t.values.as_ref()?.iter().zip(&signs).map(|(v, s)| s * v).collect())).collect()
    } else {
        Vec::new()
    };
    // Configurations handed out and not told yet — RUNNING and WAITING trials with parameters
    // — observed at the lie, as the batch's own picks are below. One outside the study's
    // distributions (a trial of another space) is not a point of this space's model.
    let mut pending = 0;
    let mut foreign = 0;
    let lie = liar.of(complete.iter().map(|c| sign * c.1));
    let lie_vector: Vec<f64> = (0..signs.len()).map(|m| liar.of(loss_vectors.iter().map(|v| v[m]))).collect();
    let mut history_pending = Vec::new();
    let pending_from = raw.len();
    for t in chosen.trials.iter().filter(|t| matches!(t.state, TrialState::Running | TrialState::Waiting) && !t.params.is_empty()) {
        if !chosen.distributions.iter().all(|(n, d)| t.params.get(n).is_none_or(|&v| d.holds(v))) {
            foreign += 1;
            continue;
        }
        let c = chosen.canonical(&conditions, chosen.config(t));
        if raw.contains(&c) {
            continue;
        }
        raw.push(c);
        history_pending.push((raw.len() - 1, lie));
        if multi {
            loss_vectors.push(lie_vector.clone());
        }
        pending += 1;
    }
    let observed = raw.len();
    let pending_encoded: Vec<Vec<f64>> = raw[pending_from..].iter().map(|c| space.encode(c)).collect();
    let mut attempts = 0;
    while raw.len() < observed + POOL && attempts < 20 * POOL {
        attempts += 1;
        let c = chosen.canonical(&conditions, draw(dists, &mut rng));
        if !tried.contains(&c) && !raw[observed..].contains(&c) && !within_radius(&pending_encoded, &space.encode(&c)) {
            raw.push(c);
        }
    }
    let fresh = raw.len() - observed;
    let candidates: Vec<Vec<f64>> = raw.iter().map(|c| space.encode(c)).collect();
    let mut history: Vec<(usize, f64)> = losses.into_iter().enumerate().chain(history_pending).collect();
    let mut evaluated = vec![false; raw.len()];
    let context = if entry.transfer() == TransferNeed::None {
        TransferContext::default()
    } else {
        related_context(studies, chosen, entry, &space, &raw, &complete)?
    };
    let mut optimizer = entry.build_full(context)?;
    // The observations after the complete and pruned trials are lies: pending trials now, the
    // batch's picks below.
    optimizer.lies_from(complete.len() + pruned_seen.len(), liar == Liar::Believer);
    for &(i, loss) in &history {
        evaluated[i] = true;
        optimizer.observe(i, loss);
    }
    let searched = searched_space(dists, &space);
    let mut candidates = candidates;
    let mut picks = Vec::with_capacity(k);
    let mut predictions: Vec<Option<Predicted>> = Vec::with_capacity(k);
    // A space with fewer untried configurations than asked for (a few discrete parameters:
    // the shared part of a conditional space, as in Optuna's classifier → parameters pattern)
    // repeats its best complete trials once the untried ones are picked, best first, as
    // Optuna's samplers repeat a configuration rather than fail.
    let new_picks = k.min(fresh);
    for _ in 0..new_picks {
        let seen = seen(&history, &loss_vectors, entry);
        let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &seen, objectives: &loss_vectors };
        let proposed = optimizer.propose(&state, &searched, &mut rng).transpose().map_err(|e| e.for_method(entry.name))?;
        // The best proposal no trial has, not within PENDING_RADIUS of a pending configuration
        // or an earlier pick of this batch, as a new candidate.
        let pending_at: Vec<Vec<f64>> =
            candidates[pending_from..observed].iter().chain(picks.iter().map(|&p| &candidates[p])).cloned().collect();
        let untried = proposed
            .into_iter()
            .flatten()
            .map(|x| chosen.canonical(&conditions, decode(dists, &x)))
            .find(|c| !tried.contains(c) && !within_radius(&pending_at, &space.encode(c)));
        let pick = match untried {
            Some(config) => {
                candidates.push(space.encode(&config));
                raw.push(config);
                evaluated.push(false);
                // What the model that proposed it predicts there, before the lie is told.
                predictions.push(optimizer.predict_at(&candidates[candidates.len() - 1]).map(|p| Predicted::of(p, sign)));
                raw.len() - 1
            }
            None => {
                let state = SearchState { candidates: &candidates, evaluated: &evaluated, history: &seen, objectives: &loss_vectors };
                predictions.push(None);
                optimizer.suggest(&state, &mut rng).map_err(|e| e.for_method(entry.name))?
            }
        };
        if pick < observed || evaluated[pick] {
            return Err(EngineError::Method {
                method: entry.name.into(),
                message: format!("suggested candidate {pick}, already observed"),
            });
        }
        // The constant liar: the pick is observed at the lie (of each objective, with several).
        if multi {
            loss_vectors.push(lie_vector.clone());
        }
        evaluated[pick] = true;
        history.push((pick, lie));
        optimizer.observe(pick, lie);
        picks.push(pick);
    }
    // The repeats of a used-up space: the best complete trials' configurations, best first.
    let mut best_first: Vec<usize> = (0..complete.len()).collect();
    best_first.sort_by(|&a, &b| (sign * complete[a].1).total_cmp(&(sign * complete[b].1)));
    let mut seen_configs: Vec<&Vec<f64>> = Vec::new();
    best_first.retain(|&i| {
        let new = !seen_configs.contains(&&raw[i]);
        seen_configs.push(&raw[i]);
        new
    });
    let repeats = k - picks.len();
    picks.extend(best_first.iter().cycle().take(repeats));
    predictions.resize(k, None);
    let active = |p: usize, k: usize| conditions[k].as_ref().is_none_or(|c| c.levels.contains(&(raw[p][c.parent] as usize)));
    let explanations = picks
        .iter()
        .zip(&predictions)
        .map(|(&p, &predicted)| Explanation { predicted, untried_bounds: untried_bounds(chosen, &raw[p], |k| active(p, k)) })
        .collect();
    Ok(Suggestions {
        study: chosen.name.clone(),
        study_id: chosen.id,
        method: entry.name.to_string(),
        names: dists.iter().map(|(n, _)| n.clone()).collect(),
        rows: picks
            .iter()
            .map(|&p| {
                dists
                    .iter()
                    .zip(&raw[p])
                    .enumerate()
                    .map(|(k, ((_, d), &v))| if active(p, k) { d.external(v) } else { Value::Null })
                    .collect()
            })
            .collect(),
        used: if multi {
            format!(
                "{}{}; {} ({})",
                used_in_words(complete.len(), pruned_seen.len(), chosen, pruned),
                also_used(pending, foreign, clipped, infeasible, repeats, liar),
                count(signs.len(), "objective"),
                chosen
                    .directions
                    .iter()
                    .map(|&d| if d == Direction::Maximize { "maximised" } else { "minimised" })
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            used_in_words(complete.len(), pruned_seen.len(), chosen, pruned)
                + &also_used(pending, foreign, clipped, infeasible, repeats, liar)
        },
        explanations,
    })
}

/// Whether `at` lies within [`PENDING_RADIUS`] of one of `pending` in every coordinate.
fn within_radius(pending: &[Vec<f64>], at: &[f64]) -> bool {
    pending.iter().any(|p| p.iter().zip(at).all(|(a, b)| (a - b).abs() < PENDING_RADIUS))
}

/// The Optuna study name of a study created without one is `no-name-` and a random UUID: the
/// engine's seed takes the name without it, so that a seed repeats on such a study too.
fn seed_name(name: &str) -> &str {
    match name.strip_prefix("no-name-") {
        Some(uuid) if uuid.len() == 36 && uuid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') => "no-name",
        _ => name,
    }
}

/// The rest of what a suggestion used, in words: pending trials and their lie, trials of
/// another space left out, infinite values clipped, infeasible trials ranked, picks that
/// repeat a trial.
fn also_used(pending: usize, foreign: usize, clipped: usize, infeasible: usize, repeats: usize, liar: Liar) -> String {
    let mut out = String::new();
    if pending > 0 {
        let lie = match liar {
            Liar::Min => "as good as the best trial",
            Liar::Mean => "at the mean value",
            Liar::Max => "as bad as the worst complete trial",
            Liar::Believer => "at the model's mean there (kriging believer)",
        };
        out += &format!("; {} (running or waiting) observed {lie} until they report", count(pending, "pending trial"));
    }
    if foreign > 0 {
        out += &format!("; {} with a value outside the study's distributions left out", count(foreign, "pending trial"));
    }
    if clipped > 0 {
        out += &format!("; {} clipped to the finite values' range", count(clipped, "infinite value"));
    }
    if infeasible > 0 {
        out += &format!("; {} ranked below every feasible one, by total violation", count(infeasible, "infeasible trial"));
    }
    if repeats > 0 {
        let (n, verb) = if repeats == 1 { ("1 suggestion".to_string(), "repeats") } else { (format!("{repeats} suggestions"), "repeat") };
        out += &format!("; every configuration of the space has been tried, so {n} {verb} the best trials");
    }
    out
}

/// The history a method reads (as the runner gives it): the losses, or for a "+MO" method of a
/// study of several objectives the average of the objectives warped on the observations so far.
fn seen(history: &[(usize, f64)], loss_vectors: &[Vec<f64>], entry: &crate::method_entry::MethodEntry) -> Vec<(usize, f64)> {
    match entry.objectives() {
        MethodObjectives::Scalarized(warp) if !loss_vectors.is_empty() => {
            history.iter().zip(scalarize_points(loss_vectors, warp)).map(|(&(i, _), s)| (i, s)).collect()
        }
        _ => history.to_vec(),
    }
}

#[cfg(test)]
mod tests;
