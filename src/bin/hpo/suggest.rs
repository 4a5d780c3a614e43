//! `hpo suggest`: the next trials of a study, written back where its tool picks them up
//! (`engine::suggest`).

use std::path::Path;

use hpo_playground::engine::suggest::suggest_files;

use crate::common::{read_file, CliResult};

/// Writes `suggestions.csv`, `enqueue.py` and, for a journal, the journal with the trials
/// enqueued (`journal.log`) into `out`.
pub fn run(data: &Path, study: Option<&str>, method: &str, n: usize, seed: u64, out: &Path) -> CliResult<()> {
    let name = data.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let bytes = read_file(data)?;
    let s = suggest_files(&name, &bytes, study, method, n, seed)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let write = |file: &str, contents: &str| -> CliResult<()> {
        let path = out.join(file);
        std::fs::write(&path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
    };
    write("suggestions.csv", &s.csv)?;
    write("enqueue.py", &s.python)?;
    if let Some(journal) = &s.journal {
        write("journal.log", journal)?;
    }
    print!("{}", s.csv);
    eprintln!("learned from: {}", s.used);
    if let Some(note) = s.journal_note() {
        eprintln!("note: {note}");
    }
    eprintln!(
        "{} for '{}' by {}: {}/suggestions.csv, enqueue.py (run it beside the study's {}){}",
        hpo_playground::engine::axis::count(s.rows.len(), "suggestion"),
        s.study,
        s.method,
        out.display(),
        if s.journal.is_some() { "journal" } else { "database: Optuna adds the trials, also while the study runs" },
        if s.journal.is_some() { " and journal.log (the journal with them enqueued: Optuna runs them first)" } else { "" }
    );
    Ok(())
}
