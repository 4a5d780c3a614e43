//! What each fuzz target checks on one input, shared by the fuzz targets (`fuzz/`, which
//! include this file by path) and `tests/fuzz_regressions.rs`, which replays every input a
//! fuzzer ever crashed on: never a panic, and what is accepted is consistent.
#![allow(dead_code)]

use std::sync::OnceLock;

use hpo_engine::benchmark::{Benchmark, Direction};
use hpo_engine::bundled::load_bundled;
use hpo_engine::lessons::LessonLink;
use hpo_engine::loaders::curves::load_curve_table;
use hpo_engine::loaders::upload::{load_file, LoadFailure};
use hpo_engine::permalink::{from_query, to_query};
use hpo_engine::spec::ExperimentSpec;

/// What a target checks on one input (panics when a check fails).
pub type Case = fn(&[u8]);

/// The targets, by name (the directory names under `tests/fuzz_regressions/`).
pub const TARGETS: [(&str, Case); 5] = [
    ("load_file", load_file_case),
    ("curve_table", curve_table_case),
    ("permalink", permalink_case),
    ("spec_json", spec_json_case),
    ("lesson_link", lesson_link_case),
];

/// Any bytes as an uploaded file (plain, .gz or .zip by magic number; copula, learning-curve
/// or LCBench-zip layout), then with the page's role guess if it asks for roles.
pub fn load_file_case(data: &[u8]) {
    match load_file("upload.csv", data, None) {
        Ok(loaded) => check_benchmark(&loaded.benchmark),
        Err(LoadFailure::NeedsRoles { guess, .. }) => {
            if let Ok(loaded) = load_file("upload.csv", data, Some(&guess)) {
                check_benchmark(&loaded.benchmark);
            }
        }
        Err(LoadFailure::Error(message)) => assert!(!message.is_empty()),
    }
}

/// Any bytes as a single-file learning-curve table.
pub fn curve_table_case(data: &[u8]) {
    if let Ok(loaded) = load_curve_table("curves.csv", data, "final_value", Direction::Minimize) {
        check_benchmark(&loaded.benchmark);
    }
}

/// Any text as a link: the setup it opens writes a link that opens the same setup, warning-free.
pub fn permalink_case(data: &[u8]) {
    let Ok(query) = std::str::from_utf8(data) else { return };
    let parsed = from_query(query);
    let again = from_query(&to_query(&parsed.spec));
    assert!(again.warnings.is_empty(), "{query:?} → {:?}", again.warnings);
    assert_eq!(again.spec, parsed.spec, "{query:?}");
}

/// Any text as a lesson link: a lesson link writes itself back unchanged.
pub fn lesson_link_case(data: &[u8]) {
    let Ok(query) = std::str::from_utf8(data) else { return };
    if let Some(Ok((link, _))) = LessonLink::from_query(query) {
        let (again, warnings) =
            LessonLink::from_query(&link.to_query()).expect("a lesson link stays one").expect("of a lesson that exists");
        assert!(warnings.is_empty(), "{query:?} → {warnings:?}");
        assert_eq!(again, link, "{query:?}");
    }
}

fn curves() -> &'static Benchmark {
    static BENCH: OnceLock<Benchmark> = OnceLock::new();
    BENCH.get_or_init(|| load_bundled("curves").expect("bundled"))
}

/// Any bytes as a spec file: a spec that resolves against the bundled curves has its jobs.
pub fn spec_json_case(data: &[u8]) {
    let Ok(spec) = serde_json::from_slice::<ExperimentSpec>(data) else { return };
    if let Ok(resolved) = spec.resolve(curves()) {
        let expected = resolved.methods.len() * resolved.tasks.len() * spec.seeds as usize;
        if expected <= 100_000 {
            assert_eq!(resolved.jobs().len(), expected);
        }
    }
}

/// What every loaded benchmark must satisfy, whatever bytes it came from.
pub fn check_benchmark(b: &Benchmark) {
    assert!(!b.tasks.is_empty());
    assert!(b.objective < b.metrics.len());
    let width = b.space.params.len();
    for t in &b.tasks {
        assert!(!t.configs.is_empty());
        assert_eq!(t.metrics.len(), b.metrics.len());
        for column in &t.metrics {
            assert_eq!(column.len(), t.configs.len());
            assert!(column.iter().all(|v| v.is_finite()), "metric values are finite");
        }
        for c in &t.configs {
            assert_eq!(c.len(), width);
            let encoded = b.space.encode(c);
            assert_eq!(encoded.len(), b.space.encoded_dim());
            assert!(encoded.iter().all(|v| v.is_finite()), "model inputs are finite: {c:?} → {encoded:?}");
        }
        if let Some(curves) = &t.curves {
            assert_eq!(curves.values.len(), t.configs.len());
            assert!(curves.values.iter().flatten().all(|v| v.is_finite()));
        }
    }
}
