//! The next trials written back where the study's tool picks them up: a table, an
//! `enqueue.py` that enqueues them through Optuna, and for a journal the journal with them
//! enqueued (the record is the journal module's, beside its reader).

use serde_json::Value;

use super::{suggest_among, Explanation, Liar, PrunedTrials, Suggestions};
use crate::error::{EngineError, Result};
use crate::loaders::file_format::FileFormat;
use crate::loaders::formats::recognise;
use crate::loaders::optuna::journal::{with_trials_enqueued, WrittenJournal};
use crate::loaders::optuna::read_journal;
use crate::loaders::Unpacked;

/// What a user takes away: the suggestions as a table (text cells), and the three files.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SuggestedFiles {
    /// The study's name.
    pub study: String,
    /// The method that proposed them.
    pub method: String,
    /// Parameter names.
    pub names: Vec<String>,
    /// One row per suggestion, each value as text.
    pub rows: Vec<Vec<String>>,
    /// `suggestions.csv`.
    pub csv: String,
    /// `enqueue.py`.
    pub python: String,
    /// `journal.log`: the journal with the trials enqueued (for a journal; a database is
    /// never written here, see [`suggest_files`]).
    pub journal: Option<String>,
    /// The input journal's last line was cut off (a study copied while it ran): left out of
    /// `journal.log`, said by [`SuggestedFiles::journal_note`].
    pub torn_last_line_left_out: bool,
    /// What the method learned from, in words (complete trials, pruned ones, conditional parameters).
    pub used: String,
    /// Why each row is where it is, one a row.
    pub explanations: Vec<Explanation>,
}

/// The files of [`suggest`] for an Optuna journal (plain, .gz or .zip) or SQLite storage of
/// `bytes`: what `hpo suggest` writes and the page offers to download.
/// The file is unpacked once and its format is the format table's (`loaders::formats`), as
/// when it is loaded. A database is never written here: a study may be running on it, and
/// SQLite's locking and Optuna's schema (its version table, trial numbers, system attributes)
/// are Optuna's to keep — a copy written beside it would miss whatever the running study adds
/// meanwhile; `enqueue.py` enqueues through Optuna itself.
pub fn suggest_files(file: &str, bytes: &[u8], study: Option<&str>, method: &str, k: usize, seed: u64) -> Result<SuggestedFiles> {
    let unpacked = Unpacked::of(file, bytes)?;
    let format = recognise(&unpacked).map(|f| f.format).filter(|f| f.takes_next_trials());
    let Some(format) = format else {
        return Err(EngineError::Spec(format!(
            "{file} is neither an Optuna journal (JournalStorage's file, one JSON operation a line; plain, .gz or .zip) nor an Optuna SQLite storage: the next trials are written back for Optuna's storages"
        )));
    };
    if k == 0 {
        return Err(EngineError::Spec("ask for at least one suggestion".into()));
    }
    let journal_text = if format == FileFormat::OptunaJournal { Some(unpacked.text()?) } else { None };
    let studies = match journal_text {
        Some(text) => read_journal(file, text)?.0,
        None => crate::loaders::optuna::storage::read_storage(file, unpacked.bytes())?,
    };
    let s = suggest_among(file, &studies, study, method, k, seed, PrunedTrials::BelowComplete, Liar::DEFAULT)?;
    let (python, written) = match journal_text {
        Some(text) => (s.enqueue_python(&journal_guard("journal.log"), &journal_storage("journal.log")), Some(s.enqueued_journal(text))),
        None => (s.enqueue_python("", &python(&Value::from(format!("sqlite:///{file}")))), None),
    };
    let torn_last_line_left_out = written.as_ref().is_some_and(|w| w.torn_last_line_left_out);
    Ok(SuggestedFiles {
        rows: s.rows.iter().map(|r| r.iter().map(cell).collect()).collect(),
        csv: s.csv(),
        python,
        journal: written.map(|w| w.text),
        torn_last_line_left_out,
        study: s.study,
        method: s.method,
        names: s.names,
        used: s.used,
        explanations: s.explanations,
    })
}

impl SuggestedFiles {
    /// What a user must know about `journal.log` beyond that it holds the trials: its input's
    /// torn last line, left out.
    pub fn journal_note(&self) -> Option<String> {
        self.torn_last_line_left_out.then(|| {
            "the journal's last line was cut off (a study copied while it ran): journal.log leaves it out and keeps every other line as it was".to_string()
        })
    }
}

/// The Python expression of a journal's storage.
pub(super) fn journal_storage(path: &str) -> String {
    format!("optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend({}))", python(&Value::from(path)))
}

/// Python lines that refuse, before anything is written, a journal at `path` that is missing
/// or whose last line is cut off (a study copied while it wrote a record; Optuna's reader skips
/// such a line): the record Optuna appends would be glued onto it, garbling both. The sentence
/// names the file and points to the `journal.log` written beside `enqueue.py`, which leaves the
/// cut line out ([`with_trials_enqueued`]).
pub(super) fn journal_guard(path: &str) -> String {
    let path = python(&Value::from(path));
    format!(
        r#"import json
import os
import sys

path = {path}
if not os.path.exists(path):
    sys.exit(f"no {{path}} here: run enqueue.py beside the study's journal, named {{path}}")
with open(path, "rb") as f:
    lines = f.read().split(b"\n")
try:
    torn = lines != [b""] and (lines[-1] != b"" or not isinstance(json.loads(lines[-2]), dict))
except ValueError:
    torn = True
if torn:
    sys.exit(
        f"{{path}}: its last line is cut off (the study was copied while it wrote a record); Optuna would write the next "
        "record onto it and garble both, so nothing was enqueued. Use the journal.log written beside this enqueue.py "
        "instead (the same journal without the cut line, these trials enqueued), or run enqueue.py once the study has "
        "finished writing that line."
    )

"#
    )
}

/// The columns `suggestions.csv` writes after the parameters: the model's predicted objective
/// value and its sd at the proposal, the log expected improvement there, whether a parameter
/// sits at a bound no trial came near and why.
pub const EXPLANATION_COLUMNS: [&str; 5] = ["predicted_value", "predicted_sd", "log_ei", "on_untried_bound", "untried_bound_reason"];

/// A value as a table's cell: a choice as its text, a parameter not suggested empty.
fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Suggestions {
    /// The configurations as a CSV table, one row each (choices as their text), then why
    /// each is there ([`EXPLANATION_COLUMNS`]; empty cells where the method has no model's
    /// prediction).
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(self.names.iter().map(String::as_str).chain(EXPLANATION_COLUMNS));
        for (k, row) in self.rows.iter().enumerate() {
            let why = self.explanations.get(k).cloned().unwrap_or_default();
            let number = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
            let explained = [
                number(why.predicted.map(|p| p.value)),
                number(why.predicted.map(|p| p.sd)),
                number(why.predicted.map(|p| p.log_ei)),
                if why.untried_bounds.is_empty() { "no" } else { "yes" }.to_string(),
                why.untried_bounds.join("; "),
            ];
            let _ = w.write_record(row.iter().map(cell).chain(explained));
        }
        w.into_inner().ok().and_then(|b| String::from_utf8(b).ok()).unwrap_or_default()
    }

    /// A Python snippet that enqueues them into the study (`guard`: Python lines run first,
    /// which may refuse the storage; `storage`: the Python expression of its storage).
    pub fn enqueue_python(&self, guard: &str, storage: &str) -> String {
        let mut out = format!(
            "# The next {} trials {} proposes for the study '{}' (hpo-playground).\n# Run beside the study's storage (Optuna adds them, also while the study runs), then study.optimize(...) runs them first.\n{guard}import optuna\n\nstorage = {storage}\nstudy = optuna.load_study(study_name={}, storage=storage)\n",
            self.rows.len(),
            self.method,
            self.study,
            python(&Value::from(self.study.as_str()))
        );
        for row in &self.rows {
            let fields: Vec<String> = self
                .names
                .iter()
                .zip(row)
                .filter(|(_, v)| !v.is_null())
                .map(|(n, v)| format!("{}: {}", python(&Value::from(n.as_str())), python(v)))
                .collect();
            out += &format!("study.enqueue_trial({{{}}})\n", fields.join(", "));
        }
        out
    }

    /// The journal `text` with the trials enqueued ([`with_trials_enqueued`]: each row's
    /// suggested parameters fixed, a parameter its branch does not suggest left out).
    pub fn enqueued_journal(&self, text: &str) -> WrittenJournal {
        let fixed: Vec<serde_json::Map<String, Value>> = self
            .rows
            .iter()
            .map(|row| self.names.iter().cloned().zip(row.iter().cloned()).filter(|(_, v)| !v.is_null()).collect())
            .collect();
        with_trials_enqueued(text, self.study_id, &fixed)
    }
}

/// A JSON value as a Python literal.
fn python(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Array(a) => format!("[{}]", a.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter().map(|(k, v)| format!("{}: {}", python(&Value::from(k.as_str())), python(v))).collect::<Vec<_>>().join(", ")
        ),
    }
}
