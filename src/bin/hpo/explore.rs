//! `hpo explore`: the views of a study (`engine::explore`) written as one CSV each, the same
//! files the page's views download.

use std::path::Path;

use hpo_playground::engine::bundled::{bundled_csv, BUNDLED};
use hpo_playground::engine::explore::read_trials;
use hpo_playground::engine::explore::views::explore;
use hpo_playground::engine::loaders::table::LoadOptions;

use crate::common::{read_file, CliResult};

/// Writes every view of the study (or task) in `data` into `out` and prints its importance.
pub fn run(data: &Path, study: Option<&str>, contour: Option<&str>, seed: u64, out: &Path) -> CliResult<()> {
    let name = data.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // A bundled benchmark by its name, as links name it; anything else is a file.
    let (name, bytes) = match bundled_csv(&name).filter(|_| !data.exists()) {
        Some(csv) => (format!("{name}.csv"), csv.as_bytes().to_vec()),
        None if !data.exists() => {
            return Err(format!("{} is neither a file nor a bundled benchmark ({})", data.display(), BUNDLED.join(", ")).into())
        }
        None => (name, read_file(data)?),
    };
    let pair = contour.map(|c| c.split_once(',').ok_or_else(|| format!("--contour takes two parameters as A,B, not '{c}'"))).transpose()?;
    let trials = read_trials(&name, &bytes, study, &LoadOptions::default())?;
    if let Some((a, b)) = pair {
        for p in [a, b] {
            if !trials.space.params.iter().any(|q| q.name == p) {
                let names: Vec<&str> = trials.space.params.iter().map(|q| q.name.as_str()).collect();
                return Err(format!("--contour: '{}' has no parameter '{p}'; it has {}", trials.name, names.join(", ")).into());
            }
        }
    }
    let e = explore(trials, pair, seed);
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for (file, csv) in e.files() {
        let path = out.join(file);
        std::fs::write(&path, csv).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    print!("{}", e.importance_csv());
    eprintln!("{}", e.summary());
    eprintln!("wrote {} into {}", e.files().iter().map(|f| f.0).collect::<Vec<_>>().join(", "), out.display());
    Ok(())
}
