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
fn permalink_round_trip_in_wasm() {
    use hpo_playground::engine::permalink::{from_query, to_query};
    use hpo_playground::engine::spec::ExperimentSpec;
    let spec = ExperimentSpec { seeds: 20, iterations: 100, ..Default::default() };
    assert_eq!(from_query(&to_query(&spec)).spec, spec);
}
