//! `hpo run`: every job of an experiment on the thread pool, cached per build, then the
//! outputs and summary that `hpo merge` writes too.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use hpo_playground::engine::axis::{count, significant};
use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::export::{traces_csv, traces_detailed_csv};
use hpo_playground::engine::optimizer::fnv1a;
use hpo_playground::engine::permalink::to_query;
use hpo_playground::engine::results::metrics::{adtm_curves, band, hv_error_curves};
use hpo_playground::engine::results::race_report::race_traces;
use hpo_playground::engine::results::run_summary::{summarize_full_run, RunSummary};
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::spec::{ExperimentSpec, ResolvedSpec};
use hpo_playground::engine::trace::Trace;
use hpo_playground::engine::transfer::PriorCache;
use hpo_playground::engine::EngineError;

use crate::common::{build_fingerprint, in_pool, read_file, set_threads, CliResult};
use crate::input::{load_data, spec_of_link, upload_ref, Sources};

/// `hpo run`: the experiment of `--link` or `--spec` on the data it names (or `--data`).
pub fn run(
    link: Option<String>,
    spec_path: Option<PathBuf>,
    data: Option<PathBuf>,
    force: bool,
    sources: &Sources,
    out: &Path,
    threads: Option<usize>,
) -> CliResult<()> {
    let mut spec = match (link, spec_path) {
        (Some(link), _) => spec_of_link(&link)?,
        (None, Some(path)) => serde_json::from_slice(&read_file(&path)?).map_err(|e| format!("{}: {e}", path.display()))?,
        (None, None) => return Err("give the experiment with --link or --spec".into()),
    };
    // --data runs the file a link names, or — with --force — another one, and then the link
    // printed and written names that file: a printed link never names data that did not run.
    if let (Some(path), true) = (data.as_deref(), force) {
        let file = upload_ref(path, &read_file(path)?);
        if file != spec.data {
            eprintln!("warning: running {} instead of the link's data ({}); the printed link names it", path.display(), spec.data);
            spec.data = file;
        }
    }
    let bench = load_data(&spec, data.as_deref(), sources)?;
    let resolved = spec.resolve(&bench)?;
    let jobs = resolved.jobs();
    set_threads(threads)?;
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    eprintln!("running {} on {}", count(jobs.len(), "job"), count(rayon::current_num_threads(), "thread"));
    let priors = PriorCache::new();
    let started = Instant::now();
    // Each finished job is cached under the build that ran it and everything in the link that
    // a job's trace depends on, so a long replication can be stopped and resumed by running the
    // same command again, while a rebuilt binary (changed code) never reuses another build's
    // traces. A job's trace does not depend on which other methods or seeds run beside it (the
    // file name holds its method, task and seed), so those are left out of the key: asking for
    // 30 seeds after 10, or adding a method, reuses the jobs already done.
    let runs_dir = out.join("runs").join(format!("{:016x}-{:016x}", fnv1a(cache_key(&spec).as_bytes()), build_fingerprint()));
    std::fs::create_dir_all(&runs_dir)?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let traces: Vec<Trace> = in_pool(|| {
        jobs.par_iter()
            .map(|job| {
                let name = format!("{}-{}-{}.json", job.method.replace([' ', '/', '+'], "_"), bench.tasks[job.task].name, job.seed);
                let cached = runs_dir.join(name);
                if let Some(trace) = std::fs::read(&cached).ok().and_then(|b| serde_json::from_slice::<Trace>(&b).ok()) {
                    return Ok(trace);
                }
                let job_started = Instant::now();
                let trace = run_job(&bench, &resolved, job, &priors, &now, &mut |_| true)?;
                if let Ok(json) = serde_json::to_vec(&trace) {
                    let _ = std::fs::write(&cached, json);
                }
                let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                eprintln!(
                    "[{k}/{}] {} on {} seed {}: {:.1} s",
                    jobs.len(),
                    job.method,
                    bench.tasks[job.task].name,
                    job.seed,
                    job_started.elapsed().as_secs_f64()
                );
                Ok(trace)
            })
            .collect::<Result<_, EngineError>>()
    })?;
    let elapsed = started.elapsed().as_secs_f64();
    report(&bench, &spec, &resolved, &traces, out, Some(elapsed))
}

/// Writes a run's outputs (traces.csv, traces-detailed.csv, spec.json, and a race's
/// race-traces.csv and race-summary.json) and prints its summary: what `hpo run` and `hpo
/// merge` both do, so a sweep merged from shards writes what one machine writes.
pub fn report(
    bench: &Benchmark,
    spec: &ExperimentSpec,
    resolved: &ResolvedSpec,
    traces: &[Trace],
    out: &Path,
    elapsed: Option<f64>,
) -> CliResult<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("traces.csv"), traces_csv(traces))?;
    std::fs::write(out.join("traces-detailed.csv"), traces_detailed_csv(traces))?;
    std::fs::write(out.join("spec.json"), serde_json::to_string_pretty(spec)?)?;
    let took = elapsed.map(|s| format!(" in {s:.3} s")).unwrap_or_default();
    println!("{}{took}; wrote {}/traces.csv, traces-detailed.csv and spec.json", count(traces.len(), "job"), out.display());
    println!("link: ?{}", to_query(spec));
    if let Some(total) = resolved.race_budget() {
        let races = race_traces(traces);
        crate::race::summarize_and_write(
            bench,
            &resolved.tasks,
            resolved.direction.sign(),
            &races,
            &spec.methods,
            total,
            spec.regret,
            out,
        )?;
        return Ok(());
    }
    if resolved.is_multi_objective() {
        print_hv_errors(resolved, traces);
        return Ok(());
    }
    if let Some(summary) = summarize_full_run(bench, resolved, traces) {
        print_table2(&summary, resolved.tasks.len());
    }
    for m in &spec.methods {
        let b = band(&adtm_curves(traces, bench, resolved.objective, resolved.direction, m));
        if let (Some(&first), Some(&last)) = (b.mean.first(), b.mean.last()) {
            println!(
                "{m}: ADTM {} at iteration 1 -> {} at iteration {} (95% band ±{}, {})",
                significant(first, 4),
                significant(last, 4),
                b.mean.len(),
                significant(b.upper.last().unwrap() - last, 2),
                count(b.n, "seed")
            );
        }
    }
    Ok(())
}

/// Fig. 7 in numbers: mean normalised hypervolume error (over tasks, then seeds) at a few
/// iterations, with the 95% band half-width, and each method's rank at the last iteration.
fn print_hv_errors(resolved: &ResolvedSpec, traces: &[Trace]) {
    let n = resolved.mode.units() as usize;
    let marks: Vec<usize> = [10, 25, 50, 100, 200].into_iter().filter(|&m| m < n).chain([n]).collect();
    println!("hypervolume error (normalised; mean over tasks and seeds ± 95% band half-width)");
    println!("{:<16}{}", "method", marks.iter().map(|m| format!("{:>18}", format!("iter {m}"))).collect::<String>());
    for m in &resolved.spec.methods {
        let b = band(&hv_error_curves(traces, m));
        let cells: String = marks
            .iter()
            .map(|&k| match b.mean.get(k - 1) {
                Some(&v) => format!("{:>18}", format!("{} ± {}", significant(v, 4), significant(b.upper[k - 1] - v, 2))),
                None => format!("{:>18}", "-"),
            })
            .collect();
        println!("{m:<16}{cells}");
    }
}

/// Table 2 of the copula paper for this run (the engine's summary, the page's table): mean
/// improvement over RS per method over the complete tasks, the average rank, the tasks left
/// out, and Fig. 4 for each method with a prior.
fn print_table2(summary: &RunSummary, tasks: usize) {
    let table = &summary.table2;
    println!("improvement over RS (Table 2), {} of {}:", table.rows.len(), count(tasks, "task"));
    for (k, m) in table.methods.iter().enumerate() {
        println!("  {m:<10} {:>7.3} (average rank {:.2})", table.means[k], table.ranks[k]);
    }
    if !table.incomplete.is_empty() {
        println!("  left out, some job not finished: {}", table.incomplete.join(", "));
    }
    for fig4 in &summary.prior_effects {
        println!("{}: improvement over RS per task, sorted by the prior's RMSE on the task (Fig. 4):", fig4.method);
        for e in &fig4.effects {
            println!("  {:<24} RMSE {:>6.3}  improvement {:>7.3}", e.task, e.rmse, e.improvement);
        }
    }
}

/// The part of a link that a single job's trace depends on: the link without its method list
/// and seed range (a job's own method and seed name its cache file).
fn cache_key(spec: &ExperimentSpec) -> String {
    to_query(&ExperimentSpec { methods: Vec::new(), seeds: 0, first_seed: 0, ..spec.without_view() })
}
