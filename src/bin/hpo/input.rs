//! An experiment's data and setup from the command line: the link, the spec and the file a
//! link names (bundled, shared, uploaded or downloaded by URL and checked by SHA-256).

use std::path::{Path, PathBuf};

use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::bundled::{bundled_csv, BUNDLED};
use hpo_playground::engine::content_hash;
use hpo_playground::engine::loaders::curves::{load_lcbench_members, LCBENCH_ARCHIVE, LCBENCH_FILES};
use hpo_playground::engine::loaders::upload::{load_file_with, LoadFailure};
use hpo_playground::engine::permalink::{from_query, to_query};
use hpo_playground::engine::spec::{DataRef, ExperimentSpec};

use crate::common::{print_notes, read_file, CliResult};

/// Where data that is not a local file comes from.
pub struct Sources<'a> {
    /// The folder of `shared:` tables.
    pub shared_dir: &'a Path,
    /// Where downloaded `url:` files are kept.
    pub cache: PathBuf,
}

/// The benchmark of `spec`: the file of its link (or `--data`, checked against the link's
/// SHA-256), read with the link's load options; the loader's notes go to stderr.
pub fn load_data(spec: &ExperimentSpec, data: Option<&Path>, sources: &Sources) -> CliResult<Benchmark> {
    let shared_dir = sources.shared_dir;
    let load = |path: &Path, bytes: &[u8]| -> CliResult<Benchmark> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let loaded = load_file_with(&name, bytes, &spec.load_options()).map_err(|e| match e {
            LoadFailure::Error(m) => m,
            LoadFailure::NeedsRoles { message, guess, .. } => {
                let mut example = spec.clone();
                example.columns = Some(*guess);
                format!("{message}; add them to the link, e.g. ?{}", to_query(&example))
            }
        })?;
        print_notes(&loaded.notes);
        Ok(loaded.benchmark)
    };
    match (&spec.data, data) {
        (DataRef::Upload { name, sha256 }, Some(path)) => {
            let bytes = read_file(path)?;
            let actual = content_hash(&bytes);
            if &actual != sha256 {
                return Err(format!(
                    "{} does not match the link's file {name}: SHA-256 {actual} instead of {sha256} (add --force to run it anyway; the printed link then names it)",
                    path.display()
                )
                .into());
            }
            load(path, &bytes)
        }
        (DataRef::Upload { name, .. }, None) => Err(format!("the experiment uses the uploaded file '{name}': pass it with --data").into()),
        (other, Some(path)) => Err(format!(
            "the link names {other}, not a file: --data {} would run other data than the link says (add --force to run it; the printed link then names that file)",
            path.display()
        )
        .into()),
        // Read from the shipped CSV with the link's options, as the page reads assets/NAME.csv.
        (DataRef::Bundled(name), None) => {
            let csv = bundled_csv(name).ok_or_else(|| format!("unknown bundled benchmark '{name}'; available: {}", BUNDLED.join(", ")))?;
            load(Path::new(&format!("{name}.csv")), csv.as_bytes())
        }
        // The page's LCBench archive is zipped from the lcbench-surrogate folder at build time;
        // the CLI reads the folder beside the shared directory.
        (DataRef::Shared(file), None) if file == LCBENCH_ARCHIVE && !shared_dir.join(file).exists() => {
            let dir = shared_dir.join("../lcbench-surrogate");
            let members: Vec<(String, Vec<u8>)> =
                LCBENCH_FILES.iter().filter_map(|f| std::fs::read(dir.join(f)).ok().map(|b| (f.to_string(), b))).collect();
            Ok(load_lcbench_members(&dir.display().to_string(), &members)?.benchmark)
        }
        (DataRef::Shared(file), None) => {
            let path = shared_dir.join(file);
            load(&path, &read_file(&path)?)
        }
        (DataRef::Url { url, sha256 }, None) => {
            let path = crate::fetch::fetch_verified(url, sha256, &sources.cache)?;
            load(&path, &read_file(&path)?)
        }
    }
}

/// The spec of a link or query string; any problem in it is an error.
pub fn spec_of_link(link: &str) -> CliResult<ExperimentSpec> {
    let query = link.split_once('?').map(|(_, q)| q).unwrap_or(link);
    let parsed = from_query(query.split('#').next().unwrap_or(query));
    if !parsed.warnings.is_empty() {
        return Err(format!("the link has problems:\n  {}", parsed.warnings.join("\n  ")).into());
    }
    Ok(parsed.spec)
}

/// `data=upload:NAME@SHA256` for the file at `path`.
pub fn upload_ref(path: &Path, bytes: &[u8]) -> DataRef {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    DataRef::Upload { name, sha256: content_hash(bytes) }
}
