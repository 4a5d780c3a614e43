//! `hpo bench-linalg`: Cholesky, solve and inverse of a GP kernel matrix at n = 100, 500,
//! 1,000 — ours, nalgebra's and faer's — natively (the wasm figures come from
//! `tests/wasm_linalg_bench.rs`; `scripts/bench-linalg.sh` writes both to docs/benchmarks.md),
//! and where one epoch of the faithful DyHPO's fit spends its time.

use std::time::Instant;

use faer::linalg::solvers::{DenseSolveCore, Solve};
use hpo_playground::engine::fidelity::dyhpo::deep_kernel::Precision;
use hpo_playground::engine::linalg_bench::{dyhpo_epoch_phases, kernel_matrix, measure, phase_line, time, Timing};

use crate::common::CliResult;

/// faer's LLᵀ at size `n`, single-threaded (a GP step runs inside one worker).
fn faer_timing(n: usize, reps: usize) -> Timing {
    let k = kernel_matrix(n, n as u64);
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| k[i * n + j]);
    let y = faer::Mat::<f64>::from_fn(n, 1, |i, _| (i as f64 * 0.37).sin());
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    let mut llt = None;
    let cholesky_ms = time(reps, &now, || llt = Some(m.llt(faer::Side::Lower).expect("positive definite")));
    let llt = llt.expect("timed at least once");
    let solve_ms = time(reps, &now, || {
        std::hint::black_box(llt.solve(&y));
    });
    let inverse_ms = time(reps, &now, || {
        std::hint::black_box(llt.inverse());
    });
    Timing { n, library: "faer-0.24", cholesky_ms, solve_ms, inverse_ms }
}

pub fn run() -> CliResult<()> {
    faer::set_global_parallelism(faer::Par::Seq);
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    println!("{:<6}{:<16}{:>14}{:>12}{:>14}", "n", "library", "cholesky ms", "solve ms", "inverse ms");
    for n in [100, 500, 1000] {
        let reps = if n <= 100 {
            51
        } else if n <= 500 {
            15
        } else {
            7
        };
        let (mut rows, diff) = measure(n, reps, &now);
        rows.push(faer_timing(n, reps));
        for t in rows {
            println!("{:<6}{:<16}{:>14.3}{:>12.3}{:>14.3}", t.n, t.library, t.cholesky_ms, t.solve_ms, t.inverse_ms);
        }
        println!("      (our two factors and nalgebra's differ by at most {diff:.1e})");
    }
    println!("one faithful DyHPO epoch (likelihood and gradient), ms by phase:");
    for n in [200, 500, 1000] {
        for (precision, name) in [(Precision::F64, "f64"), (Precision::F32, "f32")] {
            let phases = dyhpo_epoch_phases(n, if n <= 500 { 7 } else { 5 }, precision, &now);
            println!("EPOCH {n} {name} {}", phase_line(&phases));
        }
    }
    Ok(())
}
