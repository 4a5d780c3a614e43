//! Same seed ⇒ same trace: the native run must reproduce the committed golden file, which the
//! wasm test (`tests/wasm_engine.rs`) checks in headless Chromium too.

mod common;

#[test]
fn native_run_matches_golden_file() {
    let run = common::golden_run();
    if std::env::var_os("HPO_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/quadratic_rs.csv"), &run).unwrap();
    }
    assert_eq!(run.lines().count(), 1 + 2 * 3 * 20);
    assert!(run == common::GOLDEN, "traces differ from tests/golden/quadratic_rs.csv (set HPO_BLESS=1 only if the change is intended)");
}

#[test]
fn native_cts_run_matches_golden_file() {
    let run = common::golden_cts_run();
    if std::env::var_os("HPO_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/quadratic_cts.csv"), &run).unwrap();
    }
    assert!(run == common::GOLDEN_CTS, "CTS traces differ from tests/golden/quadratic_cts.csv");
}

#[test]
fn native_model_runs_match_golden_file() {
    let run = common::golden_models_run();
    if std::env::var_os("HPO_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/quadratic_models.csv"), &run).unwrap();
    }
    assert_eq!(run.lines().count(), 1 + 2 * 10);
    assert!(run == common::GOLDEN_MODELS, "GCP+prior / ABLR traces differ from tests/golden/quadratic_models.csv");
}

#[test]
fn native_wide_gpb_model_matches_golden_file() {
    let run = common::golden_wide_model_run();
    if std::env::var_os("HPO_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/wide_gpb_model.csv"), &run).unwrap();
    }
    assert!(run == common::GOLDEN_WIDE_MODEL, "GPB's 7-input model differs from tests/golden/wide_gpb_model.csv:\n{run}");
}

#[test]
fn native_wide_races_match_golden_file() {
    let run = common::golden_wide_races_run();
    if std::env::var_os("HPO_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/wide_races.csv"), &run).unwrap();
    }
    assert!(run.lines().skip(1).all(|l| l.ends_with(",0")), "optimizer seconds from a clock that stands still");
    assert!(run == common::GOLDEN_WIDE_RACES, "races on the 7-input table differ from tests/golden/wide_races.csv");
}

#[test]
fn native_study_suggestions_match_golden_file() {
    let run = common::golden_suggestions_run();
    if std::env::var_os("HPO_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/study_suggestions.csv"), &run).unwrap();
    }
    assert_eq!(run.lines().count(), 1 + 4 * 3 * 4, "{run}");
    assert!(run == common::GOLDEN_SUGGESTIONS, "suggestions differ from tests/golden/study_suggestions.csv:\n{run}");
}
