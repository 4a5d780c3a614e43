//! Bad input never panics: the bundled tables, their gzip and zip forms and a link, each
//! corrupted thousands of ways (seeded, so a failure reproduces), go through what the page does
//! with a dropped file or an opened link — load, role guess, link reconciliation, spec
//! resolution and a few short jobs — and every outcome is a result, never a panic. Rejections
//! must name the file, as the page shows them verbatim.
// Native only: catching a panic needs unwinding, and the wasm target aborts instead.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

use hpo_playground::engine::bundled::{bundled_csv, load_bundled};
use hpo_playground::engine::loaders::upload::{load_file, LoadFailure};
use hpo_playground::engine::optimizer::{job_rng, MethodRng};
use hpo_playground::engine::permalink::from_query;
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::transfer::PriorCache;
use rand::Rng;

/// Fragments that break parsers: non-numbers, separators, quotes, line ends, invalid UTF-8.
const FRAGMENTS: [&[u8]; 17] = [
    b"NaN",
    b"nan",
    b"inf",
    b"-inf",
    b"1e308",
    b"-1e400",
    b"\"",
    b",",
    b"\n",
    b"\r\n",
    b"",
    b"  ",
    b"\xff\xfe",
    b"\0",
    b"0",
    b"e1",
    b"hp_x",
];

/// One to five edits of `base`: a cut, a deleted run, an inserted fragment, a random byte, a
/// field replaced by a fragment or a duplicated line. `gentle` keeps to the last two, which
/// mostly leave a loadable table, so the deeper paths run too.
fn corrupt(rng: &mut MethodRng, base: &[u8], gentle: bool) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..rng.random_range(1..6) {
        if v.is_empty() {
            break;
        }
        let at = rng.random_range(0..v.len());
        let edit = if gentle { rng.random_range(4..6) } else { rng.random_range(0..6) };
        match edit {
            0 => v.truncate(at),
            1 => {
                let end = (at + rng.random_range(1..40)).min(v.len());
                v.drain(at..end);
            }
            2 => {
                let fragment = FRAGMENTS[rng.random_range(0..FRAGMENTS.len())];
                v.splice(at..at, fragment.iter().copied());
            }
            3 => v[at] = rng.random(),
            4 => {
                let end = v[at..].iter().position(|&b| b == b',' || b == b'\n').map_or(v.len(), |p| at + p);
                let fragment = FRAGMENTS[rng.random_range(0..FRAGMENTS.len())];
                v.splice(at..end, fragment.iter().copied());
            }
            _ => {
                let start = v[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                let end = v[at..].iter().position(|&b| b == b'\n').map_or(v.len(), |p| at + p + 1);
                let line = v[start..end].to_vec();
                v.splice(end..end, line);
            }
        }
    }
    v
}

/// What the page does with a dropped file: load it (with the guessed roles if it asks for
/// them), then resolve a link's setup on it and run its first jobs for a few iterations.
/// `Ok(true)` if it loaded, `Ok(false)` if it was rejected, `Err` with the panic message.
fn drop_file(name: &str, bytes: &[u8]) -> Result<bool, String> {
    // Inside: `Err(Some(message))` for a rejection, `Err(None)` when roles are still wanted.
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<(), Option<String>> {
        let message = |failure: LoadFailure| match failure {
            LoadFailure::Error(message) => Some(message),
            LoadFailure::NeedsRoles { .. } => None,
        };
        let loaded = match load_file(name, bytes, None) {
            Ok(loaded) => loaded,
            Err(LoadFailure::NeedsRoles { guess, .. }) => load_file(name, bytes, Some(&guess)).map_err(message)?,
            Err(failure) => return Err(message(failure)),
        };
        let bench = loaded.benchmark;
        let mut link = from_query(
            "v=1&data=upload:x.csv@0000000000000000000000000000000000000000000000000000000000000000&methods=RS,GCP,CTS&seeds=1&iters=6",
        );
        link.spec.reconcile(&bench);
        if let Ok(resolved) = link.spec.resolve(&bench) {
            let priors = PriorCache::new();
            for job in resolved.jobs().into_iter().take(3) {
                let _ = run_job(&bench, &resolved, &job, &priors, &|| 0.0, &mut |_| true);
            }
        }
        Ok(())
    }));
    match outcome {
        Ok(Ok(())) => Ok(true),
        Ok(Err(Some(message))) => {
            assert!(message.starts_with(name), "the message does not name the file: {message}");
            Ok(false)
        }
        Ok(Err(None)) => Ok(false),
        Err(panic) => {
            Err(panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default())
        }
    }
}

/// A bundled table cut to its header and first `rows` rows, so the jobs stay short.
fn bundled_head(name: &str, rows: usize) -> Vec<u8> {
    let csv = bundled_csv(name).expect("bundled table");
    csv.lines().take(rows + 1).map(|l| format!("{l}\n")).collect::<String>().into_bytes()
}

#[test]
fn corrupted_tables_are_rejected_or_loaded_never_a_panic() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = job_rng(11, "corrupt");
    let mut panics = Vec::new();
    for name in ["quadratic", "curves", "tradeoff"] {
        let base = bundled_head(name, 300);
        let mut loaded = 0;
        for i in 0..1200 {
            let bytes = corrupt(&mut rng, &base, i % 2 == 0);
            match drop_file(&format!("{name}.csv"), &bytes) {
                Ok(true) => loaded += 1,
                Ok(false) => {}
                Err(message) => panics.push(format!("{name} #{i}: {message}")),
            }
        }
        // Gentle edits leave many tables loadable, so the jobs ran on corrupted data too.
        assert!(loaded > 100, "{name}: only {loaded} of 1,200 corrupted tables loaded");
    }
    let _ = std::panic::take_hook();
    assert!(panics.is_empty(), "{} panics, first: {:?}", panics.len(), &panics[..panics.len().min(3)]);
}

#[test]
fn corrupted_gzip_and_zip_files_are_rejected_never_a_panic() {
    let csv = bundled_head("quadratic", 200);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&csv).unwrap();
    let gz = gz.finish().unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("quadratic.csv", zip::write::SimpleFileOptions::default()).unwrap();
    zip.write_all(&csv).unwrap();
    let zip = zip.finish().unwrap().into_inner();
    assert_eq!(drop_file("q.csv.gz", &gz), Ok(true));
    assert_eq!(drop_file("q.zip", &zip), Ok(true));
    let mut rng = job_rng(12, "corrupt");
    for (name, base) in [("q.csv.gz", &gz), ("q.zip", &zip)] {
        for i in 0..1500 {
            let mut bytes = base.clone();
            for _ in 0..rng.random_range(1..4) {
                let at = rng.random_range(0..bytes.len());
                match rng.random_range(0..3) {
                    0 => bytes.truncate(at.max(1)),
                    1 => bytes[at] = rng.random(),
                    _ => bytes[at] ^= 1 << rng.random_range(0..8),
                }
            }
            assert!(drop_file(name, &bytes).is_ok(), "{name} #{i} panicked");
        }
    }
}

#[test]
fn corrupted_links_restore_a_setup_or_say_why_never_a_panic() {
    let bench = load_bundled("quadratic").unwrap();
    let base = "v=1&data=bundled:quadratic&objective=metric_value&direction=min&tasks=quadratic-00,quadratic-01&methods=RS,GCP%2Bprior,CTS&seeds=2&seed0=3&iters=5&transfer=loto";
    let mut rng = job_rng(13, "corrupt");
    let (mut resolved, mut warned) = (0, 0);
    for i in 0..6000 {
        let query = String::from_utf8_lossy(&corrupt(&mut rng, base.as_bytes(), false)).into_owned();
        let outcome = catch_unwind(|| {
            let mut link = from_query(&query);
            let mut notes = link.spec.reconcile_objectives(&bench);
            notes.extend(link.spec.reconcile(&bench));
            let ok = link.spec.resolve(&bench).map(|r| r.jobs().len()).is_ok();
            (ok, !link.warnings.is_empty() || !notes.is_empty())
        });
        let (ok, warnings) = outcome.unwrap_or_else(|_| panic!("link #{i} panicked: {query:?}"));
        resolved += ok as usize;
        warned += warnings as usize;
    }
    // Most corruptions touch one field: the rest of the setup is restored, with a note.
    assert!(resolved > 3000 && warned > 1000, "{resolved} resolved, {warned} with notes");
}
