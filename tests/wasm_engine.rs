//! The engine in the browser: the golden traces are byte-identical to the native ones.
#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn wasm_run_matches_golden_file() {
    assert_eq!(common::golden_run(), common::GOLDEN);
}

#[wasm_bindgen_test]
fn wasm_cts_run_matches_golden_file() {
    // Prior training (3,000 Adam steps) and Thompson sampling must agree with native to the bit.
    assert_eq!(common::golden_cts_run(), common::GOLDEN_CTS);
}

#[wasm_bindgen_test]
fn wasm_model_runs_match_golden_file() {
    // The GP's fit and pruned EI argmax, the batched exp and ABLR's network must agree with
    // native to the bit.
    assert_eq!(common::golden_models_run(), common::GOLDEN_MODELS);
}

#[wasm_bindgen_test]
fn wasm_wide_gpb_model_matches_golden_file() {
    // GPB on 7 inputs: its 9 × 9 GLS products, Cholesky factors, inverses and eigenvalues
    // must agree with native to the bit (each number is compared by its bits).
    assert_eq!(common::golden_wide_model_run(), common::GOLDEN_WIDE_MODEL);
}

#[wasm_bindgen_test]
fn wasm_wide_races_match_golden_file() {
    // GPB (IC), GP (max budget) and DyHPO race on the 7-input table as natively.
    assert_eq!(common::golden_wide_races_run(), common::GOLDEN_WIDE_RACES);
}

#[wasm_bindgen_test]
fn wasm_study_suggestions_match_golden_file() {
    assert_eq!(common::golden_suggestions_run(), common::GOLDEN_SUGGESTIONS);
}

#[wasm_bindgen_test]
fn permalink_round_trip_in_wasm() {
    use hpo_playground::engine::permalink::{from_query, to_query};
    use hpo_playground::engine::spec::ExperimentSpec;
    let spec = ExperimentSpec { seeds: 20, iterations: 100, ..Default::default() };
    assert_eq!(from_query(&to_query(&spec)).spec, spec);
}

#[wasm_bindgen_test]
fn worker_messages_survive_the_workers_codec() {
    // bincode is not self-describing: a field skipped when empty breaks decoding (it once made
    // every single-objective job fail with "the worker has no data").
    use hpo_playground::engine::bundled::load_bundled;
    use hpo_playground::engine::runner::run_job;
    use hpo_playground::engine::spec::{ExperimentSpec, Job};
    use hpo_playground::engine::transfer::PriorCache;
    use hpo_playground::worker_protocol::{EncodedBenchmark, FromWorker, ParsedFile, ToWorker};
    let bench = load_bundled("quadratic").unwrap();
    let resolved = ExperimentSpec { iterations: 3, ..Default::default() }.resolve(&bench).unwrap();
    // The parser's bytes reach a run's worker unchanged, inside its Load message.
    let parsed = ParsedFile::encode(hpo_playground::engine::loaders::upload::LoadedFile {
        benchmark: bench.clone(),
        notes: vec![],
        format: hpo_playground::engine::loaders::file_format::FileFormat::Copula,
    })
    .unwrap();
    let (page_copy, bytes) = parsed.decode().unwrap();
    assert!(page_copy.benchmark == bench && bytes == EncodedBenchmark::encode(&bench).unwrap());
    let load = ToWorker::Load { generation: 1, benchmark: bytes, spec: Box::new(resolved.spec.clone()) };
    match ToWorker::decode(&load.encode().unwrap()).unwrap() {
        // The worker resolves what it was sent to the same checked spec.
        ToWorker::Load { spec, benchmark, .. } => {
            let b = benchmark.decode().unwrap();
            assert!(spec.resolve(&b).unwrap() == resolved && b == bench)
        }
        _ => panic!("wrong variant"),
    }
    let trace =
        run_job(&bench, &resolved, &Job { method: "RS".into(), task: 0, seed: 0 }, &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap();
    match FromWorker::decode(&FromWorker::Done { generation: 1, id: 0, result: Ok(trace.clone()), seconds: 0.5 }.encode().unwrap()).unwrap()
    {
        FromWorker::Done { result: Ok(t), .. } => assert_eq!(t, trace),
        _ => panic!("wrong variant"),
    }
}

#[wasm_bindgen_test]
fn the_blocked_algebra_gives_the_native_bits() {
    // The faithful DyHPO's n × n routines: 4 × 4 tiles on simd128 here, 4 × 16 with AVX-512
    // natively; the same bits, or page and CLI would race differently. In f32 (4 × 8 here,
    // 4 × 32 natively) likewise.
    use hpo_playground::engine::linalg_bench::{
        blocked_fingerprint, blocked_fingerprint_f32, BLOCKED_FINGERPRINT, BLOCKED_FINGERPRINT_F32,
    };
    assert_eq!(blocked_fingerprint(), BLOCKED_FINGERPRINT);
    assert_eq!(blocked_fingerprint_f32(), BLOCKED_FINGERPRINT_F32);
}

#[wasm_bindgen_test]
fn wasm_lesson_counts_match_the_kept_ones() {
    use hpo_playground::engine::lessons::kept_counts::kept;
    use hpo_playground::engine::lessons::{LessonFrames, LessonJob};
    // The counts over seeds the page shows from the build were computed natively
    // (tests/lesson_counts.rs): the browser's own count of each one's first seed is the same
    // to the bit (one seed a lesson: lesson 4's 20 DyHPO runs would take 40 s here).
    let bits = |scores: &[f64]| scores.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
    let mut checked = 0;
    for (job, count) in kept() {
        let LessonJob::OverSeeds(of, seeds) = job else { panic!("{job:?} is not a count") };
        if seeds.start != 0 {
            continue;
        }
        let Ok(LessonFrames::OverSeeds(first)) = LessonJob::OverSeeds(of.clone(), 0..1).run() else { panic!("{of:?} does not count") };
        assert_eq!((&first.names, first.tie.to_bits()), (&count.names, count.tie.to_bits()), "{of:?}");
        assert_eq!(bits(&first.scores[0]), bits(&count.scores[0]), "{of:?}: seed 0");
        checked += 1;
    }
    // Lessons 1, 2, 3, 4 and 6.
    assert_eq!(checked, 5);
}
