//! The wasm half of the linear-algebra measurement (ours against nalgebra in the browser):
//! run by `scripts/bench-linalg.sh`, which reads the printed table (not part of the test
//! command: it prints numbers, it asserts only that the two factors agree).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn linalg_timings_in_wasm() {
    use hpo_playground::engine::gp::linalg_bench::measure;
    let perf = web_sys::window().and_then(|w| w.performance()).expect("a browser");
    let now = move || perf.now() / 1000.0;
    // A warm-up pass, discarded: V8 starts on its baseline compiler and optimises hot code
    // later, which made whichever library ran first look up to 3× slower at n = 100.
    let _ = measure(200, 20, &now);
    for n in [100, 500, 1000] {
        let reps = if n <= 100 {
            51
        } else if n <= 500 {
            15
        } else {
            7
        };
        let (rows, diff) = measure(n, reps, &now);
        assert!(diff < 1e-8, "factors differ by {diff}");
        for t in rows {
            web_sys::console::log_1(
                &format!("LINALG {} {} {:.3} {:.3} {:.3}", t.n, t.library, t.cholesky_ms, t.solve_ms, t.inverse_ms).into(),
            );
        }
    }
    use hpo_playground::engine::fidelity::deep_kernel::Precision;
    use hpo_playground::engine::gp::linalg_bench::{dyhpo_epoch_phases, phase_line};
    for n in [200, 500, 1000] {
        for (precision, name) in [(Precision::F64, "f64"), (Precision::F32, "f32")] {
            let phases = dyhpo_epoch_phases(n, if n <= 500 { 7 } else { 5 }, precision, &now);
            web_sys::console::log_1(&format!("EPOCH {n} {name} {}", phase_line(&phases)).into());
        }
    }
}
