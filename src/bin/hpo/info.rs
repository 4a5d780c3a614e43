//! The commands that describe rather than run: `hpo info`, `hpo link`, `hpo methods` and
//! `hpo generate`.

use std::path::Path;

use hpo_playground::engine::axis::{count, significant};
use hpo_playground::engine::bundled::{bundled_csv, BUNDLED};
use hpo_playground::engine::loaders::upload::{load_file_with, LoadFailure};
use hpo_playground::engine::method_entry::RunKind;
use hpo_playground::engine::permalink::to_query;
use hpo_playground::engine::registry::of_kind;
use hpo_playground::engine::spec::ExperimentSpec;

use crate::common::{print_notes, read_file, CliResult};
use crate::input::{load_data, spec_of_link, upload_ref, Sources};

/// `hpo info`: a file read as the page reads it as an upload — tasks, space, metrics.
pub fn info(path: &Path, link: Option<&str>) -> CliResult<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let bytes = read_file(path)?;
    // Read as the page reads this file as an upload, with the link's options if given.
    let mut spec = link.map(spec_of_link).transpose()?.unwrap_or_default();
    spec.data = upload_ref(path, &bytes);
    let loaded = load_file_with(&name, &bytes, &spec.load_options()).map_err(|e| match e {
        LoadFailure::Error(m) => m,
        LoadFailure::NeedsRoles { message, guess, .. } => {
            let example = ExperimentSpec { columns: Some(*guess), ..ExperimentSpec::default() };
            format!("{message}; give them with --link, e.g. --link '?{}'", to_query(&example))
        }
    })?;
    print_notes(&loaded.notes);
    let b = &loaded.benchmark;
    println!(
        "{}: {}, {}, {}",
        b.name,
        count(b.tasks.len(), "task"),
        count(b.total_rows(), "row"),
        count(b.space.encoded_dim(), "model input")
    );
    for p in &b.space.params {
        println!("  {}: {:?}", p.name, p.kind);
    }
    for (i, m) in b.metrics.iter().enumerate() {
        println!("  {} ({}){}", m.name, m.direction.as_str(), if i == b.objective { " [objective]" } else { "" });
    }
    for t in &b.tasks {
        let (lo, hi) = t.metric_range(b.objective);
        let curves = t.curves.as_ref().map_or(String::new(), |c| {
            let steps = c.values.iter().map(Vec::len).min().unwrap_or(0);
            format!(", learning curves of {}", count(steps, "step"))
        });
        println!(
            "  task {}: {}, objective in [{}, {}]{curves}",
            t.name,
            count(t.len(), "configuration"),
            significant(lo, 6),
            significant(hi, 6)
        );
    }
    Ok(())
}

/// `hpo link`: the file's upload reference (checked to load) with a setup.
pub fn print_link(path: &Path, link: Option<&str>, base: &str) -> CliResult<()> {
    let bytes = read_file(path)?;
    // A setup fragment ("?methods=GP&seeds=5") need not carry the version field.
    let with_version = |l: &str| {
        let query = l.split_once('?').map_or(l, |(_, q)| q);
        if query.split('&').any(|p| p.starts_with("v=")) {
            query.to_string()
        } else {
            format!("v=1&{query}")
        }
    };
    let mut spec = link.map(|l| spec_of_link(&with_version(l))).transpose()?.unwrap_or_default();
    spec.data = upload_ref(path, &bytes);
    // The link must open: the file loads and the setup fits it.
    let bench = load_data(&spec, Some(path), &Sources { shared_dir: Path::new("."), cache: crate::fetch::cache_dir(None) })?;
    spec.resolve(&bench)?;
    println!("{base}?{}", to_query(&spec));
    Ok(())
}

/// `hpo methods`: the registry, each kind of run with its methods.
pub fn list_methods() {
    for kind in [RunKind::Full, RunKind::Race] {
        println!(
            "{}",
            if kind == RunKind::Full {
                "full evaluations (methods=… in a link):"
            } else {
                "multi-fidelity race (race=BUDGET in a link):"
            }
        );
        for m in of_kind(kind) {
            println!("  {:<14} {:<8} {}", m.name, format!("{:?}", m.cost).to_lowercase(), m.summary);
            println!("  {:<14} {:<8} {}", "", "", m.paper);
        }
    }
}

/// `hpo generate NAME`: a bundled benchmark (or a test fixture) as the CSV `assets/` ships.
pub fn generate(name: &str, out: &Path) -> CliResult<()> {
    match (name, bundled_csv(name)) {
        (_, Some(csv)) => std::fs::write(out, csv)?,
        ("messy-curves", None) => std::fs::write(out, hpo_playground::engine::fixtures::messy_curves_csv().0)?,
        ("wide-curves", None) => std::fs::write(out, hpo_playground::engine::fixtures::wide_curves_csv())?,
        // The exploding family's reference: the same runs, none exploded.
        ("exploding-clean", None) => std::fs::write(out, hpo_playground::engine::exploding_curves::exploding_csv(false))?,
        _ => {
            return Err(format!(
                "unknown bundled benchmark '{name}'; available: {}, messy-curves, wide-curves, exploding-clean",
                BUNDLED.join(", ")
            )
            .into())
        }
    }
    println!("wrote {}", out.display());
    Ok(())
}
