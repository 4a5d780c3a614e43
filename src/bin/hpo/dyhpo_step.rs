//! `hpo bench-dyhpo-step`: the faithful DyHPO's step (warm-started fit + EI_MF over the open
//! configurations) at given numbers of observations, natively; the browser's half is
//! tests/wasm_dyhpo_step_bench.rs, and scripts/bench-dyhpo-step.mjs writes both into
//! docs/benchmarks.md.

use std::path::Path;
use std::time::Instant;

use hpo_playground::engine::fidelity::dyhpo::step_bench::{time_steps, StepData, NEXT_STEPS, OBSERVATIONS};
use hpo_playground::engine::fidelity::dyhpo::DyHpo;
use hpo_playground::engine::loaders::curves::LCBENCH_FILES;

use crate::common::CliResult;

/// LCBench's task 0 when its tables are in `lcbench_dir`, else the bundled curves (said on
/// stderr).
pub fn step_data(lcbench_dir: &Path) -> CliResult<StepData> {
    let members: Vec<(String, Vec<u8>)> =
        LCBENCH_FILES.iter().filter_map(|f| std::fs::read(lcbench_dir.join(f)).ok().map(|b| (f.to_string(), b))).collect();
    if LCBENCH_FILES[..2].iter().all(|f| members.iter().any(|(n, _)| n == f)) {
        return Ok(StepData::lcbench(&members)?);
    }
    eprintln!("{} has no LCBench tables: timing the bundled curves", lcbench_dir.display());
    Ok(StepData::bundled()?)
}

/// Prints what the steps ran on (`DATA …`), then one `DYHPO-STEP` line per size
/// ([`hpo_playground::engine::fidelity::dyhpo::step_bench::StepTimes::line`]) as it finishes;
/// no sizes or no count: the benchmark's own.
pub fn run(lcbench_dir: &Path, observations: &[usize], next_steps: Option<usize>) -> CliResult<()> {
    let observations = if observations.is_empty() { &OBSERVATIONS[..] } else { observations };
    let next_steps = next_steps.unwrap_or(NEXT_STEPS);
    let data = step_data(lcbench_dir)?;
    println!("DATA {}", data.what);
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    for &n in observations {
        let times = time_steps(&mut DyHpo::new(), &data, n, next_steps, &now)?;
        println!("{}", times.line());
    }
    Ok(())
}
