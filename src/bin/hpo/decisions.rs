//! `hpo bench-decisions`: how long a worker waits on DyHPO's decision in an ask/tell session
//! (the Python package's Optuna loop, Syne Tune scheduler and Ray Tune scheduler run one),
//! where the faithful DyHPO bounds each decision's fitting
//! (`DyHpo::bounding_decisions`), against the race's faithful DyHPO, whose every step fits
//! to the end. Both run the DyHPO protocol's jobs on LCBench (1,000 epochs, the protocol's
//! generator for the task and seed): the session here, one worker telling every epoch's value
//! from the table, each `ask` timed; the race from the protocol's committed picks
//! (`results/lcbench-protocol/dyhpo.jsonl`: its requests and each step's optimizer seconds), so
//! the faithful runs' 15 hours are not run again. docs/benchmarks.md keeps the figures.

use std::path::Path;
use std::time::Instant;

use hpo_playground::engine::fidelity::runner::race_curves;
use hpo_playground::engine::loaders::clean::MissingPolicy;
use hpo_playground::engine::method_entry::RunKind;
use hpo_playground::engine::optimizer::job_rng;
use hpo_playground::engine::registry;
use hpo_playground::engine::suggest::multi_fidelity::{Asked, MultiFidelitySession};

use crate::common::CliResult;

/// One protocol job's requests (configuration, budget) and each step's optimizer seconds.
struct Picks {
    requests: Vec<(usize, u32)>,
    seconds: Vec<f64>,
}

/// The protocol's committed DyHPO picks of `task` with `seed`.
fn committed_picks(picks_file: &Path, task: &str, seed: u64) -> CliResult<Option<Picks>> {
    let text = std::fs::read_to_string(picks_file).map_err(|e| format!("{}: {e}", picks_file.display()))?;
    for line in text.lines() {
        let job: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("{}: {e}", picks_file.display()))?;
        if job["task"] != task || job["seed"] != seed || job["method"] != "DyHPO" {
            continue;
        }
        let rows = job["picks"].as_array().ok_or("a job without picks")?;
        let mut picks = Picks { requests: Vec::new(), seconds: Vec::new() };
        for row in rows {
            let (Some(c), Some(b), Some(s)) = (row[0].as_u64(), row[1].as_u64(), row[2].as_f64()) else {
                return Err(format!("{}: a pick is not [config, budget, seconds]", picks_file.display()).into());
            };
            picks.requests.push((c as usize, b as u32));
            picks.seconds.push(s);
        }
        return Ok(Some(picks));
    }
    Ok(None)
}

/// Nanoseconds this thread has run on a CPU (Linux's schedstat), so that a decision's cost can
/// be told apart from the time it waited for a core on a shared host; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

/// The `q`-quantile (0..=1) of `values`, by the nearest rank.
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Regret (raw) after each budget unit of a run that trained `requests`, one unit each.
fn regrets(requests: &[(usize, u32)], values: &[Vec<f64>], sign: f64, optimum: f64) -> Vec<f64> {
    let mut best = f64::INFINITY;
    requests
        .iter()
        .map(|&(c, b)| {
            best = best.min(sign * values[c][b as usize - 1]);
            best - optimum
        })
        .collect()
}

pub fn run(lcbench_dir: &Path, picks_file: &Path, tasks: &[usize], seeds: &[u64], epochs: u64) -> CliResult<()> {
    let bench = crate::race::load("lcbench", lcbench_dir, None, MissingPolicy::default())?;
    let sign = bench.metrics[bench.objective].direction.sign();
    let entry = registry::lookup(RunKind::Race, "DyHPO").map_err(|e| e.to_string())?;
    println!("| task | seed | decisions | session: median / p99 / max ask, ms | of which on a CPU: median / p99 / max, ms | race (committed): median / p99 / max step, ms | same requests until | regret at 50 %: session / race | at 100 %: session / race |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for &t in tasks {
        let task = bench.tasks.get(t).ok_or_else(|| format!("task {t}: LCBench has {} tasks", bench.tasks.len()))?;
        let (values, _) = race_curves(&bench, t).map_err(|e| e.to_string())?;
        let candidates = bench.encoded_task(t);
        let max_budget = values.iter().map(Vec::len).min().unwrap_or(0) as u32;
        let optimum = values.iter().filter_map(|c| c.last()).map(|v| sign * v).fold(f64::INFINITY, f64::min);
        for &seed in seeds {
            let rng = job_rng(seed, &format!("race/{}", task.name));
            let mut session =
                MultiFidelitySession::over(entry, candidates.clone(), max_budget, Some(epochs), sign, rng).map_err(|e| e.to_string())?;
            let (mut requests, mut ms, mut cpu_ms) = (Vec::new(), Vec::new(), Vec::new());
            loop {
                let (start, cpu_start) = (Instant::now(), thread_cpu_ns());
                let asked = session.ask().map_err(|e| e.to_string())?;
                ms.push(start.elapsed().as_secs_f64() * 1000.0);
                cpu_ms.push(match (cpu_start, thread_cpu_ns()) {
                    (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e6,
                    _ => f64::NAN,
                });
                let Asked::Train(a) = asked else { break };
                for step in a.from + 1..=a.budget {
                    session.tell(a.config, step, values[a.config][step as usize - 1]).map_err(|e| e.to_string())?;
                    requests.push((a.config, step));
                }
                if requests.len() % 100 == 0 {
                    eprintln!("task {t} seed {seed}: {} decisions, last {:.0} ms", requests.len(), ms.last().copied().unwrap_or(0.0));
                }
            }
            // The `Done` at the end decided nothing.
            ms.pop();
            cpu_ms.pop();
            let ours = regrets(&requests, &values, sign, optimum);
            let at = |r: &[f64], share: f64| r.get(((epochs as f64 * share) as usize).saturating_sub(1)).copied().unwrap_or(f64::NAN);
            let (race, same) = match committed_picks(picks_file, &task.name, seed)? {
                Some(p) => {
                    let race_ms: Vec<f64> = p.seconds.iter().map(|s| s * 1000.0).collect();
                    let same = requests.iter().zip(&p.requests).take_while(|(a, b)| a == b).count();
                    let r = regrets(&p.requests, &values, sign, optimum);
                    let times =
                        format!("{:.0} / {:.0} / {:.0}", quantile(&race_ms, 0.5), quantile(&race_ms, 0.99), quantile(&race_ms, 1.0));
                    ((times, at(&r, 0.5), at(&r, 1.0)), same.to_string())
                }
                None => (("no committed job".to_string(), f64::NAN, f64::NAN), "–".to_string()),
            };
            println!(
                "| {} | {seed} | {} | {:.0} / {:.0} / {:.0} | {:.0} / {:.0} / {:.0} | {} | {same} | {:.4} / {:.4} | {:.4} / {:.4} |",
                task.name,
                ms.len(),
                quantile(&ms, 0.5),
                quantile(&ms, 0.99),
                quantile(&ms, 1.0),
                quantile(&cpu_ms, 0.5),
                quantile(&cpu_ms, 0.99),
                quantile(&cpu_ms, 1.0),
                race.0,
                at(&ours, 0.5),
                race.1,
                at(&ours, 1.0),
                race.2
            );
        }
    }
    Ok(())
}
