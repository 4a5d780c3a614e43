//! Optuna's files as its users write them, read with no column roles typed:
//! `study.trials_dataframe().to_csv(...)` ([`is_trials_dataframe`]) and the JournalStorage
//! file, one JSON operation per line ([`is_journal`], [`read_journal`]).
//!
//! What becomes an evaluation: a COMPLETE trial's final value. A pruned trial's value is the
//! loss where it was stopped and a failed one has none: both are counted and said, never
//! compared with final values. From the journal the search space is Optuna's own (bounds, log
//! scales, integer steps, choices) and the intermediate values are learning curves; a race
//! replays the complete trials, whose curves are whole (a tabular race cannot train a pruned
//! trial further than it went). Several studies of one journal with the same space are tasks.

use super::clean::{repair_curves, Repaired};
use super::file_format::FileFormat;
use super::notes::Note;
use super::table::LoadOptions;
use super::table::LoadedFile;
use crate::axis::count;
use crate::benchmark::{Benchmark, Curves, Direction, Metric, RanTrial, StudyHistory, Task};
use crate::error::{EngineError, Result};
use crate::space::{Hyperparameter, ParamKind, SearchSpace};
use crate::study::{choice_name, Distribution, Study, Trial, TrialState};

/// How many trials of a study are in each state, in words: "80 trials (35 complete, 41
/// pruned, 4 failed)".
fn states_in_words(states: &[TrialState]) -> String {
    let n = |s: TrialState| states.iter().filter(|&&x| x == s).count();
    let parts: Vec<String> = [
        (TrialState::Complete, "complete"),
        (TrialState::Pruned, "pruned"),
        (TrialState::Fail, "failed"),
        (TrialState::Running, "running"),
        (TrialState::Waiting, "waiting"),
    ]
    .iter()
    .filter(|(s, _)| n(*s) > 0)
    .map(|&(s, word)| format!("{} {word}", n(s)))
    .collect();
    format!("{} ({})", count(states.len(), "trial"), parts.join(", "))
}

/// A journal's studies as a benchmark: the studies whose search space is the first
/// complete one's are its tasks (so the transfer methods learn across them); others are
/// listed in the notes. Each task's evaluations are its complete trials; when all of them
/// report the same number of intermediate steps (at least two), those are its curves.
pub fn journal_benchmark(file: &str, text: &str, options: &LoadOptions) -> Result<LoadedFile> {
    let (studies, notes) = read_journal(file, text)?;
    studies_benchmark(file, FileFormat::OptunaJournal, &studies, &notes, options)
}

/// An Optuna SQLite storage's studies as a benchmark, as [`journal_benchmark`] makes one.
pub fn storage_benchmark(file: &str, bytes: &[u8], options: &LoadOptions) -> Result<LoadedFile> {
    let studies = storage::read_storage(file, bytes)?;
    studies_benchmark(file, FileFormat::OptunaStorage, &studies, &JournalNotes::default(), options)
}

/// Studies as a benchmark (see [`journal_benchmark`]) of a file in `format`, as the link's
/// options say: `direction=` for the first objective, `lin=`/`log=` for the scales, the
/// missing-value policy for the intermediate values' non-finite points.
fn studies_benchmark(file: &str, format: FileFormat, studies: &[Study], notes: &JournalNotes, options: &LoadOptions) -> Result<LoadedFile> {
    let what = format.name();
    let usable: Vec<&Study> = studies.iter().filter(|s| s.trials.iter().any(|t| t.state == TrialState::Complete)).collect();
    let Some(first) = usable.first() else {
        let said: Vec<String> = studies
            .iter()
            .map(|s| format!("'{}': {}", s.name, states_in_words(&s.trials.iter().map(|t| t.state).collect::<Vec<_>>())))
            .collect();
        return Err(EngineError::parse(
            file,
            if said.is_empty() {
                format!("an {what} with no study in it")
            } else {
                format!("no study in this {what} has a complete trial yet ({})", said.join("; "))
            },
        ));
    };
    let (tasks_of, others): (Vec<&Study>, Vec<&Study>) = usable.iter().copied().partition(|s| first.same_space(s));
    let mut warnings = Vec::new();
    let space = SearchSpace {
        params: first
            .distributions
            .iter()
            .map(|(n, d)| Hyperparameter { name: n.clone(), kind: scaled(file, n, d.kind(), options, &mut warnings) })
            .collect(),
    };
    let mut metrics: Vec<Metric> = first
        .directions
        .iter()
        .enumerate()
        .map(|(k, &direction)| Metric { name: if first.directions.len() == 1 { "value".into() } else { format!("values_{k}") }, direction })
        .collect();
    if let Some(direction) = options.direction.filter(|&d| d != metrics[0].direction) {
        metrics[0].direction = direction;
        warnings.push(Note::said(
            file,
            format!(
                "'{}' is {} as the link says (the study {} it)",
                metrics[0].name,
                if direction == Direction::Minimize { "minimised" } else { "maximised" },
                if direction == Direction::Minimize { "maximises" } else { "minimises" }
            ),
        ));
    }
    let sign = if metrics[0].direction == Direction::Minimize { 1.0 } else { -1.0 };
    let mut repaired = Repaired::default();
    let mut tasks = Vec::new();
    let mut lines = Vec::new();
    for study in &tasks_of {
        // Every complete trial, a parameter it did not suggest at its inactive value
        // (`crate::study::rules`): a conditional space is one space.
        if let Some(sentence) = study.shares_nothing() {
            return Err(EngineError::parse(file, sentence));
        }
        let complete: Vec<&Trial> = study.complete_trials().collect();
        if complete.is_empty() {
            continue;
        }
        let steps = complete.first().map_or(0, |t| t.intermediate.len());
        let whole = steps >= 2 && complete.iter().all(|t| t.intermediate.len() == steps);
        // Curves with a non-finite intermediate value are repaired by the missing-value policy
        // as a curve file's are (its first-step bound included); a curve it drops takes its
        // trial out of the task. All finite, they are taken as Optuna recorded them.
        let finite = complete.iter().all(|t| t.intermediate.values().all(|v| v.is_finite()));
        let (complete, curves) = if whole && finite {
            let values = complete.iter().map(|t| t.intermediate.values().copied().collect()).collect();
            (complete, Some(Curves { values, cost: None }))
        } else if whole {
            let raw = complete.iter().map(|t| t.intermediate.values().map(|v| v.is_finite().then_some(*v)).collect()).collect();
            let (fixed, r) = repair_curves(raw, &[], sign, options.missing);
            repaired.add(r);
            let kept: Vec<&Trial> = complete.iter().zip(&fixed).filter(|(_, c)| c.is_some()).map(|(t, _)| *t).collect();
            (kept, Some(Curves { values: fixed.into_iter().flatten().collect(), cost: None }))
        } else {
            (complete, None)
        };
        if complete.is_empty() {
            continue;
        }
        let configs: Vec<Vec<f64>> = complete.iter().map(|t| first.config(t)).collect();
        let metric_values: Vec<Vec<f64>> =
            (0..metrics.len()).map(|m| complete.iter().map(|t| t.values.as_ref().map_or(f64::NAN, |v| v[m])).collect()).collect();
        let longest = study.trials.iter().map(|t| t.intermediate.len()).max().unwrap_or(0);
        // A complete trial with an infinite value (Optuna stores one; a NaN makes it FAIL) is
        // no evaluation: no front or best value holds it.
        let infinite = study.trials.iter().filter(|t| t.state == TrialState::Complete).count() - study.complete_trials().count();
        lines.push(format!(
            "'{}': {}{}{}",
            study.name,
            states_in_words(&study.trials.iter().map(|t| t.state).collect::<Vec<_>>()),
            if infinite > 0 {
                format!(", {} with a value that is not finite left out", count(infinite, "complete trial"))
            } else {
                String::new()
            },
            if longest >= 2 {
                format!(
                    ", curves of up to {longest} steps from intermediate values{}",
                    if whole { "" } else { " (uneven among complete trials: not raced)" }
                )
            } else {
                String::new()
            }
        ));
        // The study as it ran: every trial in creation order, with the steps it reported and,
        // for one kept as an evaluation, its row.
        // The kept trials are a subsequence of the study's, in its order: one walk pairs them.
        let mut kept = complete.iter().enumerate().peekable();
        let history = StudyHistory {
            tool: "Optuna".into(),
            trials: study
                .trials
                .iter()
                .map(|t| RanTrial {
                    steps: t.intermediate.len().max(1) as u32,
                    value: (t.state == TrialState::Complete).then(|| t.values.as_ref().and_then(|v| v.first().copied())).flatten(),
                    row: kept.next_if(|(_, &k)| std::ptr::eq(k, t)).map(|(r, _)| r as u32),
                })
                .collect(),
        };
        tasks.push(Task { name: study.name.clone(), configs, metrics: metric_values, curves, history: Some(history) });
    }
    if tasks.is_empty() {
        return Err(EngineError::parse(file, format!("no complete trial of '{}' has a finite value for every objective", first.name)));
    }
    let benchmark = Benchmark {
        name: super::copula::file_stem(file).trim_end_matches(".log").trim_end_matches(".db").to_string(),
        space,
        metrics,
        objective: 0,
        tasks,
        joint_objectives: first.directions.len() > 1,
    };
    warnings.insert(0, Note::said(file, format!(
        "{what}, {} with one search space ({} from its distributions: {}): {}; the complete trials are the evaluations (a race replays them), pruned and failed ones are counted, not compared",
        count(tasks_of.len(), "study"),
        count(first.distributions.len(), "hyperparameter"),
        first.distributions.iter().map(|(n, d)| format!("{n} {}", d.in_words())).collect::<Vec<_>>().join(", "),
        lines.join("; ")
    )));
    warnings.extend(Note::repaired(repaired, file, "curve points", options.missing, None));
    let conditional = first.conditional();
    if !conditional.is_empty() {
        let conditions = first.conditions();
        warnings.push(Note::said(file, format!(
            "a conditional search space: {}; in a trial that did not suggest it, a parameter stands at its inactive value (a number at its lower bound, a choice at its first), so every trial is a point of one space",
            conditional
                .iter()
                .map(|&k| {
                    let (name, _) = &first.distributions[k];
                    match &conditions[k] {
                        Some(c) => {
                            let (parent, d) = &first.distributions[c.parent];
                            let choices: Vec<String> = match d {
                                Distribution::Categorical { choices } => c.levels.iter().filter_map(|&l| choices.get(l).map(choice_name)).collect(),
                                _ => Vec::new(),
                            };
                            format!("'{name}' only when '{parent}' is {}", choices.join(" or "))
                        }
                        None => format!("'{name}' in some trials only"),
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if !others.is_empty() {
        warnings.push(Note::said(
            file,
            format!(
                "{} with another search space left out: {}",
                count(others.len(), "study"),
                others.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if notes.torn_last_line {
        let studies =
            studies.iter().map(|s| (s.name.clone(), states_in_words(&s.trials.iter().map(|t| t.state).collect::<Vec<_>>()))).collect();
        warnings.push(Note::CutOff { file: file.to_string(), studies });
    }
    Ok(LoadedFile { benchmark, notes: warnings, format })
}

/// A parameter's kind on the scale the link asks for: `lin=` keeps a log-scaled one linear,
/// `log=` puts a positive one on a log scale (said in `notes`); otherwise the study's own.
fn scaled(file: &str, name: &str, kind: ParamKind, options: &LoadOptions, notes: &mut Vec<Note>) -> ParamKind {
    let ParamKind::Continuous { lower, upper, log } = kind else { return kind };
    let wanted = if options.linear.iter().any(|n| n == name) {
        false
    } else if options.log.iter().any(|n| n == name) && lower > 0.0 {
        true
    } else {
        log
    };
    if wanted != log {
        notes.push(Note::said(
            file,
            format!(
                "'{name}' is modelled on a {} scale as the link says (the study samples it on a {} one)",
                if wanted { "log" } else { "linear" },
                if log { "log" } else { "linear" }
            ),
        ));
    }
    ParamKind::Continuous { lower, upper, log: wanted }
}

pub mod journal;
pub mod storage;
pub mod trials_csv;

pub use journal::{is_journal, read_journal, JournalNotes, JournalOp};
pub use trials_csv::{from_trials_dataframe, is_trials_dataframe};

#[cfg(test)]
mod tests;
