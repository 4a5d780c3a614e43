//! `hpo`: the native command line on the same engine as the app.
//!
//! ```text
//! hpo run --link 'v=1&data=shared:XGBoost.csv.zip&tasks=heart&methods=RS&seeds=20&iters=100' --out out/
//! hpo run --spec spec.json --out out/          # spec as written by the app or by a previous run
//! hpo explore --data study.log --out out/explore   # the study's views, one CSV each
//! hpo info --data ../shared/benchmarks/quantile-transfer/XGBoost.csv.zip
//! hpo link --data my-runs.csv --link '?methods=GP,GCP&seeds=5'   # a ready upload link
//! hpo fetch                                      # the copula paper's public tables, checked by SHA-256
//! hpo plan --link '…' --out plan.jsonl; hpo job --plan plan.jsonl --jobs 0..8 --out traces/; hpo merge --plan plan.jsonl --traces traces/ --out out/
//! hpo generate quadratic --out assets/quadratic.csv
//! hpo race --data lcbench --seeds 10 --budget 1000 --out out/race   # DyHPO vs Hyperband family
//! hpo gpb tables --reps 100                     # the GPB paper's Tables 1–2
//! hpo gpb lcbench --seeds 3                     # its Tables 3–4 analogue on LCBench
//! ```

// The command's modules are native only: clap, rayon and the HTTP client do not build for wasm.
#[cfg(not(target_arch = "wasm32"))]
#[path = "."]
mod native {
    pub mod bench;
    pub mod cli;
    pub mod common;
    pub mod decisions;
    pub mod dyhpo_step;
    pub mod explore;
    pub mod fetch;
    pub mod gpb;
    pub mod info;
    pub mod input;
    pub mod linalg;
    pub mod precision;
    pub mod race;
    pub mod run;
    pub mod suggest;
    pub mod sweep;
}
#[cfg(not(target_arch = "wasm32"))]
use native::*;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // `hpo … | head` closes the pipe early: end quietly like other command-line tools, instead
    // of panicking in println! (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    if let Err(e) = cli::main() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
