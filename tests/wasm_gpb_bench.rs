//! The wasm half of GPB's speed (`hpo gpb bench` is the native half): one GPB step in 7-D and
//! IC and TA designs in 8-D, the sizes whose products are larger than 5 × 5, timed in the
//! browser. Not part of the test command: it prints numbers for `docs/benchmarks.md` and
//! asserts nothing. Run with
//! `cargo test --release --target wasm32-unknown-unknown --test wasm_gpb_bench -- --nocapture`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn gpb_timings_in_wasm() {
    use hpo_playground::engine::fidelity::gpb::construct::DesignMethod;
    use hpo_playground::engine::gpb_experiments::speed::{design_seconds, gpb_step};
    let perf = web_sys::window().and_then(|w| w.performance()).expect("a browser");
    let now = move || perf.now() / 1000.0;
    // A warm-up step, discarded: V8 optimises hot code only after it has run a while.
    let _ = gpb_step(30, 7, 200, &now);
    for n in [50, 200] {
        let t = gpb_step(n, 7, 2000, &now).expect("fits");
        web_sys::console::log_1(&format!("GPB-STEP {n} {:.3} {:.3} {:.2e}", t.total, t.fit, t.best_ei).into());
    }
    for method in [DesignMethod::Ic, DesignMethod::Ta] {
        for n in [10, 20] {
            let (seconds, iterates) = design_seconds(8, method, n, &now);
            web_sys::console::log_1(&format!("GPB-DESIGN 8 {} {n} {seconds:.3} {iterates}", method.name()).into());
        }
    }
}
