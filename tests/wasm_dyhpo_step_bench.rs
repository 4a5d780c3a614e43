//! The browser's half of the faithful DyHPO step benchmark (`hpo bench-dyhpo-step` is the
//! native half): the same steps timed in a dedicated worker, as the page runs DyHPO. Not part
//! of the test command: it prints numbers for docs/benchmarks.md and asserts nothing; run by
//! `node scripts/bench-dyhpo-step.mjs`, which serves LCBench's tables to it.
//!
//! The data: LCBench's task 0 fetched from `HPO_BENCH_LCBENCH_URL` (a folder URL, read when
//! this test is compiled) when set, else the bundled curves.
#![cfg(target_arch = "wasm32")]

use hpo_playground::engine::fidelity::dyhpo::step_bench::{time_steps, StepData, NEXT_STEPS, OBSERVATIONS};
use hpo_playground::engine::fidelity::dyhpo::DyHpo;
use hpo_playground::engine::loaders::curves::LCBENCH_FILES;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

// A worker, as the page's DyHPO runs: its steps then never hold the page the test runner
// polls (a 2,000-observation cold fit takes minutes).
wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_url(url: &str) -> js_sys::Promise;
    type FetchResponse;
    #[wasm_bindgen(method, getter)]
    fn ok(this: &FetchResponse) -> bool;
    #[wasm_bindgen(method, js_name = arrayBuffer)]
    fn array_buffer(this: &FetchResponse) -> js_sys::Promise;
}

async fn fetch_bytes(url: &str) -> Vec<u8> {
    let response: FetchResponse = wasm_bindgen_futures::JsFuture::from(fetch_url(url)).await.expect("fetch").unchecked_into();
    assert!(response.ok(), "{url}: not found");
    let buffer = wasm_bindgen_futures::JsFuture::from(response.array_buffer()).await.expect("body");
    js_sys::Uint8Array::new(&buffer).to_vec()
}

#[wasm_bindgen_test]
async fn dyhpo_step_timings_in_wasm() {
    let data = match option_env!("HPO_BENCH_LCBENCH_URL") {
        Some(folder) => {
            let mut members = Vec::new();
            for file in &LCBENCH_FILES[..2] {
                members.push((file.to_string(), fetch_bytes(&format!("{}/{file}", folder.trim_end_matches('/'))).await));
            }
            StepData::lcbench(&members).expect("LCBench")
        }
        None => StepData::bundled().expect("the bundled curves"),
    };
    web_sys::console::log_1(&format!("DATA {}", data.what).into());
    let now = || performance_now() / 1000.0;
    // A warm-up, discarded: V8 optimises hot code only after it has run a while.
    let _ = time_steps(&mut DyHpo::new(), &data, 50, 2, &now);
    // At 2,000 observations the cold fit takes about 7 minutes on a 2-core host and each next
    // step about 12 s: all ten steps still fit in a quarter of an hour.
    for observations in OBSERVATIONS {
        let times = time_steps(&mut DyHpo::new(), &data, observations, NEXT_STEPS, &now).expect("steps");
        web_sys::console::log_1(&times.line().into());
    }
}
