//! The wasm half of the linear-algebra measurement (ours against nalgebra in the browser):
//! run by `scripts/bench-linalg.sh`, which reads the printed table (not part of the test
//! command: it prints numbers, it asserts only that the two factors agree).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Gives the page's event loop a turn: the test runner polls the page over WebDriver, and a
/// main thread busy for more than its 20 s timeout fails the run (it did on a loaded host once
/// the f32 epochs doubled the measurement).
async fn breathe() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let window = web_sys::window().expect("a browser");
        window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.expect("a timer");
}

#[wasm_bindgen_test]
async fn linalg_timings_in_wasm() {
    use hpo_playground::engine::linalg_bench::measure;
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
        breathe().await;
        let (rows, diff) = measure(n, reps, &now);
        assert!(diff < 1e-8, "factors differ by {diff}");
        for t in rows {
            web_sys::console::log_1(
                &format!("LINALG {} {} {:.3} {:.3} {:.3}", t.n, t.library, t.cholesky_ms, t.solve_ms, t.inverse_ms).into(),
            );
        }
    }
    use hpo_playground::engine::fidelity::dyhpo::deep_kernel::Precision;
    use hpo_playground::engine::linalg_bench::{dyhpo_epoch_phases, phase_line};
    for n in [200, 500, 1000] {
        for (precision, name) in [(Precision::F64, "f64"), (Precision::F32, "f32")] {
            breathe().await;
            let phases = dyhpo_epoch_phases(n, if n <= 500 { 7 } else { 5 }, precision, &now);
            web_sys::console::log_1(&format!("EPOCH {n} {name} {}", phase_line(&phases)).into());
        }
    }
}
