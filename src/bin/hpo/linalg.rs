//! `hpo bench-linalg`: Cholesky, solve and inverse of a GP kernel matrix at n = 100, 500,
//! 1,000 — ours, nalgebra's and faer's — natively (the wasm figures come from
//! `tests/wasm_linalg_bench.rs`; `scripts/bench-linalg.sh` writes both to docs/benchmarks.md),
//! and where one epoch of the faithful DyHPO's fit spends its time.

use std::time::Instant;

use faer::linalg::solvers::{DenseSolveCore, Solve};
use hpo_playground::engine::gp::linalg_bench::{dyhpo_epoch_phases, kernel_matrix, measure, Timing};

use crate::cli::CliResult;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// faer's LLᵀ at size `n`, single-threaded (a GP step runs inside one worker).
fn faer_timing(n: usize, reps: usize) -> Timing {
    let k = kernel_matrix(n, n as u64);
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| k[i * n + j]);
    let y = faer::Mat::<f64>::from_fn(n, 1, |i, _| (i as f64 * 0.37).sin());
    let time = |f: &mut dyn FnMut()| {
        median(
            (0..reps)
                .map(|_| {
                    let t0 = Instant::now();
                    f();
                    t0.elapsed().as_secs_f64() * 1000.0
                })
                .collect(),
        )
    };
    let mut llt = None;
    let cholesky_ms = time(&mut || llt = Some(m.llt(faer::Side::Lower).expect("positive definite")));
    let llt = llt.expect("timed at least once");
    let solve_ms = time(&mut || {
        std::hint::black_box(llt.solve(&y));
    });
    let inverse_ms = time(&mut || {
        std::hint::black_box(llt.inverse());
    });
    Timing { n, library: "faer-0.24", cholesky_ms, solve_ms, inverse_ms }
}

/// "name ms …" pairs and the total, one line (the form scripts/bench-linalg.sh reads).
pub fn phase_row(phases: &[(hpo_playground::engine::fidelity::deep_kernel::Phase, f64)]) -> String {
    let total: f64 = phases.iter().map(|p| p.1).sum();
    let parts: Vec<String> = phases.iter().map(|(p, ms)| format!("{p:?}={ms:.2}")).collect();
    format!("{} total={total:.2}", parts.join(" "))
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
        println!("      (ours and nalgebra's factors differ by at most {diff:.1e})");
    }
    println!("one faithful DyHPO epoch (likelihood and gradient), ms by phase:");
    for n in [200, 500, 1000] {
        let phases = dyhpo_epoch_phases(n, if n <= 500 { 7 } else { 5 }, &now);
        println!("EPOCH {n} {}", phase_row(&phases));
    }
    Ok(())
}
