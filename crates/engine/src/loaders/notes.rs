//! What a loader notes about a file, as typed notes: each variant carries its data and one
//! `Display` writes its sentence, so that the page picks the notes a banner shows by their
//! variant and [`summary`] sums them up in one line ("taskset.csv: 8 hyperparameters on a log
//! scale, 11,978 diverged or missing curve points repaired, curves of 50 steps") without
//! reading sentences back.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::clean::{MissingPolicy, Repaired};
use crate::axis::count;
use crate::benchmark::Direction;

/// One note about a loaded file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Note {
    /// A hyperparameter put on a log scale because its values span two decades or more.
    LogScale {
        /// The file.
        file: String,
        /// The hyperparameter.
        name: String,
        /// Its smallest value.
        lower: f64,
        /// Its largest value.
        upper: f64,
    },
    /// Missing, non-finite or diverged values repaired or dropped by the missing-value policy.
    Repaired {
        /// The file.
        file: String,
        /// What the values are ("curve points", "metric values").
        what: String,
        /// How many were touched.
        counts: Repaired,
        /// The policy applied.
        policy: MissingPolicy,
        /// The step-0 column that held each run's untrained value, if the file has one.
        untrained: Option<String>,
    },
    /// Learning curves whose objective is the value at the last step, in a direction the file
    /// does not say.
    CurveSteps {
        /// The file.
        file: String,
        /// Steps of each curve.
        steps: usize,
        /// The direction taken.
        direction: Direction,
    },
    /// A study whose file does not hold the objective's direction (Optuna's trials CSV): the
    /// direction taken.
    DirectionAssumed {
        /// The file.
        file: String,
        /// The objective.
        objective: String,
        /// The direction taken.
        direction: Direction,
    },
    /// A journal whose last line is cut off (a study still running when it was copied): read
    /// up to the line before.
    CutOff {
        /// The file.
        file: String,
        /// Each study as read: its name and its trials in words ("80 trials (32 complete, 48 pruned)").
        studies: Vec<(String, String)>,
    },
    /// Anything else a loader says about the file, in words.
    Said {
        /// The file.
        file: String,
        /// The sentence after the file's name.
        text: String,
    },
}

impl Note {
    /// What a repair touched, as a note for the user ([`Note::Repaired`]), or `None` when
    /// nothing was touched. `untrained` names the step 0 column that held each run's untrained
    /// value, if the file has one.
    pub fn repaired(counts: Repaired, file: &str, what: &str, policy: MissingPolicy, untrained: Option<&str>) -> Option<Note> {
        (counts.cells > 0 || counts.rows > 0).then(|| Note::Repaired {
            file: file.to_string(),
            what: what.to_string(),
            counts,
            policy,
            untrained: untrained.map(str::to_string),
        })
    }

    /// A note in words about `file`.
    pub fn said(file: &str, text: impl Into<String>) -> Note {
        Note::Said { file: file.to_string(), text: text.into() }
    }

    /// The file the note is about.
    pub fn file(&self) -> &str {
        match self {
            Note::LogScale { file, .. }
            | Note::Repaired { file, .. }
            | Note::CurveSteps { file, .. }
            | Note::DirectionAssumed { file, .. }
            | Note::CutOff { file, .. }
            | Note::Said { file, .. } => file,
        }
    }
}

fn minimised(direction: Direction) -> &'static str {
    if direction == Direction::Minimize {
        "minimised"
    } else {
        "maximised"
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file())?;
        match self {
            Note::LogScale { name, lower, upper, .. } => write!(
                f,
                "'{name}' spans {} to {} ({:.1} decades): modelled on a log scale (lin={} in the link keeps it linear)",
                crate::axis::significant(*lower, 3),
                crate::axis::significant(*upper, 3),
                (upper / lower).log10(),
                crate::percent::encode_component(name)
            ),
            Note::Repaired { what, counts, policy, untrained, .. } => f.write_str(&counts.sentence(what, *policy, untrained.as_deref())),
            Note::CurveSteps { steps, direction, .. } => write!(
                f,
                "learning curves with {steps} steps; the objective is the value at the last step, {} (switch the direction in Setup if {} is better)",
                minimised(*direction),
                if *direction == Direction::Minimize { "larger" } else { "smaller" }
            ),
            Note::DirectionAssumed { objective, direction, .. } => write!(
                f,
                "the objective '{objective}' is taken as {}: the file does not say its direction (switch it in Setup, or export the study's journal, which says it)",
                minimised(*direction)
            ),
            Note::CutOff { studies, .. } => write!(
                f,
                "its last line is cut off (a study still running when it was copied?): read up to the line before — {}",
                studies.iter().map(|(name, trials)| format!("'{name}': {trials}")).collect::<Vec<_>>().join("; ")
            ),
            Note::Said { text, .. } => f.write_str(text),
        }
    }
}

/// Sums up `notes` in one line, or `None` when there are none. A single note is its own summary.
pub fn summary(notes: &[Note]) -> Option<String> {
    match notes {
        [] => return None,
        [one] => return Some(one.to_string()),
        _ => {}
    }
    let mut parts = Vec::new();
    let log_scaled = notes.iter().filter(|n| matches!(n, Note::LogScale { .. })).count();
    if log_scaled > 0 {
        parts.push(format!("{} on a log scale", count(log_scaled, "hyperparameter")));
    }
    let mut other = 0;
    for n in notes {
        match n {
            Note::LogScale { .. } => {}
            Note::Repaired { what, counts, policy, .. } => {
                let dropped = matches!(policy, MissingPolicy::Drop | MissingPolicy::TaskSet)
                    || (*policy == MissingPolicy::Untrained && counts.rows > 0 && counts.dropped == counts.rows);
                let verb = if dropped { "dropped" } else { "repaired" };
                parts.push(format!("{} diverged or missing {what} {verb}", thousands(counts.cells as u64)));
            }
            Note::CurveSteps { steps, .. } => parts.push(format!("curves of {steps} steps")),
            _ => other += 1,
        }
    }
    if other > 0 {
        parts.push(format!("{other} more note{}", if other == 1 { "" } else { "s" }));
    }
    Some(format!("{}: {}", notes[0].file(), parts.join(", ")))
}

/// 11978 → "11,978".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_curve_file_s_notes_become_one_line() {
        let file = "raw.csv".to_string();
        let log = |name: &str| Note::LogScale { file: file.clone(), name: name.into(), lower: 1e-6, upper: 0.9 };
        let repaired = Repaired { cells: 11978, rows: 214, dropped: 0, bounds: Some((2.313, 2.380)) };
        let notes = vec![
            Note::said(
                &file,
                "'step_0' is the untrained value (step 0): not a hyperparameter nor a budget step; it bounds what counts as diverged",
            ),
            Note::Repaired {
                file: file.clone(),
                what: "curve points".into(),
                counts: repaired,
                policy: MissingPolicy::Untrained,
                untrained: Some("step_0".into()),
            },
            log("hp_a"),
            log("hp_b"),
            Note::CurveSteps { file: file.clone(), steps: 50, direction: Direction::Minimize },
        ];
        assert_eq!(
            summary(&notes).unwrap(),
            "raw.csv: 2 hyperparameters on a log scale, 11,978 diverged or missing curve points repaired, curves of 50 steps, 1 more note"
        );
        assert_eq!(summary(&notes[..1]).unwrap(), notes[0].to_string());
        assert_eq!(summary(&[]), None);
        assert_eq!(
            notes[2].to_string(),
            "raw.csv: 'hp_a' spans 1.00e-6 to 0.900 (6.0 decades): modelled on a log scale (lin=hp_a in the link keeps it linear)"
        );
        let dropped = Note::Repaired {
            file: "t.csv".into(),
            what: "values".into(),
            counts: Repaired { cells: 40, rows: 7, dropped: 7, bounds: None },
            policy: MissingPolicy::Drop,
            untrained: None,
        };
        assert_eq!(
            summary(&[dropped.clone(), dropped]).unwrap(),
            "t.csv: 40 diverged or missing values dropped, 40 diverged or missing values dropped"
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn messages_count_what_was_touched() {
        let r = Repaired { cells: 917, rows: 120, dropped: 0, bounds: None };
        let m = Note::repaired(r, "lc.csv", "curve points", MissingPolicy::Worst, None).unwrap().to_string();
        assert_eq!(m, "lc.csv: 917 missing or non-finite curve points in 120 rows, counted as the task's worst value (missing=worst)");
        assert!(Note::repaired(Repaired::default(), "f", "values", MissingPolicy::Drop, None).is_none());
        let r = Repaired { cells: 2, rows: 2, dropped: 0, bounds: None };
        assert!(Note::repaired(r, "f", "metric values", MissingPolicy::Untrained, None)
            .unwrap()
            .to_string()
            .contains("a single value has no untrained value"));
        let r = Repaired { cells: 8, rows: 2, dropped: 2, bounds: None };
        assert!(Note::repaired(r, "f", "curve points", MissingPolicy::Untrained, None)
            .unwrap()
            .to_string()
            .contains("their task has no finite value"));
        let r = Repaired { cells: 11978, rows: 262, dropped: 0, bounds: Some((std::f64::consts::LN_10, 2.35)) };
        let m = Note::repaired(r, "raw.csv", "curve points", MissingPolicy::Untrained, Some("step_0")).unwrap().to_string();
        assert_eq!(
            m,
            "raw.csv: 11978 curve points in 262 rows missing or non-finite or worse than untrained, set to the untrained value from the first \
             diverged point on (missing=untrained) (untrained value: each run's 'step_0'; 2.303 to 2.350)"
        );
        let r = Repaired { cells: 40, rows: 3, dropped: 3, bounds: None };
        let m = Note::repaired(r, "t.csv", "curve points", MissingPolicy::TaskSet, None).unwrap().to_string();
        assert!(m.contains("40 curve points missing or non-finite or above the 95 % quantile; 3 curves dropped"), "{m}");
    }
}
