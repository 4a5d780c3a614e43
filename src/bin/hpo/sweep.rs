//! A sweep past one machine: `hpo plan` writes an experiment's jobs as JSON lines, `hpo job`
//! runs one job or a contiguous shard of them anywhere the data is, and `hpo merge` combines
//! the job traces into exactly what `hpo run` writes. A scheduler (Ray, Slurm, Kubernetes)
//! only has to run `hpo job` on shards; `scripts/ray-sweep.py` does so on Ray.
//!
//! Plan file: a header line `{"plan":1,"link":…,"jobs":N}`, then one line per job in the
//! order `hpo run` uses, `{"job":k,"method":…,"task":t,"task_name":…,"seed":s}`.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::fidelity::picks::{picks_of, RacePicks};
use hpo_playground::engine::permalink::to_query;
use hpo_playground::engine::runner::{replay_job, run_job};
use hpo_playground::engine::spec::{ExperimentSpec, Job};
use hpo_playground::engine::trace::Trace;
use hpo_playground::engine::transfer::PriorCache;
use hpo_playground::engine::EngineError;

use crate::common::CliResult;
use crate::input::{load_data, spec_of_link, Sources};
use crate::run::report;

/// The plan file's first line.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    plan: u32,
    link: String,
    jobs: usize,
}

/// One job of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PlannedJob {
    job: usize,
    method: String,
    task: usize,
    task_name: String,
    seed: u64,
}

/// What `hpo job --stdout` prints per finished job.
#[derive(Debug, Serialize, Deserialize)]
pub struct JobResult {
    job: usize,
    trace: Trace,
}

/// A job kept as its picks (`hpo picks`): the race's decisions without the benchmark's values.
#[derive(Debug, Serialize, Deserialize)]
struct PickedJob {
    job: usize,
    method: String,
    task: String,
    seed: u64,
    #[serde(flatten)]
    picks: RacePicks,
}

/// One line of a traces directory.
enum JobLine {
    Traced(JobResult),
    Picked(PickedJob),
}

/// Every job line of the `.json` / `.jsonl` files in `dir`, with the file it came from.
fn read_job_lines(dir: &Path) -> CliResult<Vec<(PathBuf, JobLine)>> {
    let mut lines = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    paths.sort();
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "json" || e == "jsonl")) {
        for line in std::fs::read_to_string(&path)?.lines().filter(|l| !l.trim().is_empty()) {
            let value: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("{}: not JSON ({e})", path.display()))?;
            let parsed = if value.get("picks").is_some() {
                serde_json::from_value(value).map(JobLine::Picked)
            } else {
                serde_json::from_value(value).map(JobLine::Traced)
            };
            let parsed = parsed.map_err(|e| format!("{}: neither a job result nor a job's picks ({e})", path.display()))?;
            lines.push((path.clone(), parsed));
        }
    }
    Ok(lines)
}

/// Job `k` of this build's reading of the plan's link (`jobs`), when it is the job the plan names.
fn planned_job<'a>(k: usize, p: &PlannedJob, jobs: &'a [Job], bench: &Benchmark) -> Result<&'a Job, EngineError> {
    match jobs.get(k) {
        Some(job)
            if (job.method.as_str(), job.task, job.seed) == (p.method.as_str(), p.task, p.seed)
                && bench.tasks[job.task].name == p.task_name =>
        {
            Ok(job)
        }
        _ => Err(EngineError::Spec(format!("job {k} of the plan is not job {k} of its link here (another data file or build?)"))),
    }
}

/// Where the data of a plan comes from (as for `hpo run`).
pub struct DataArgs<'a> {
    /// The file of an `upload:` link.
    pub data: Option<&'a Path>,
    /// The sources of `shared:` and `url:` data.
    pub sources: Sources<'a>,
}

/// `hpo plan`: the jobs of the link as JSON lines.
pub fn plan(link: &str, data: &DataArgs, out: &Path) -> CliResult<()> {
    let spec = spec_of_link(link)?;
    let bench = load_data(&spec, data.data, &data.sources)?;
    let resolved = spec.resolve(&bench)?;
    let jobs = resolved.jobs();
    let mut text = serde_json::to_string(&Header { plan: 1, link: to_query(&spec), jobs: jobs.len() })? + "\n";
    for (k, j) in jobs.iter().enumerate() {
        let line = PlannedJob { job: k, method: j.method.clone(), task: j.task, task_name: bench.tasks[j.task].name.clone(), seed: j.seed };
        text += &(serde_json::to_string(&line)? + "\n");
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, text)?;
    println!("{} planned in {}: run shards with `hpo job --plan {} --jobs A..B`", jobs.len(), out.display(), out.display());
    Ok(())
}

/// The plan's link and jobs.
fn read_plan(path: &Path) -> CliResult<(ExperimentSpec, Vec<PlannedJob>)> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read the plan {}: {e}", path.display()))?;
    let mut lines = std::io::BufReader::new(file).lines();
    let header: Header = serde_json::from_str(&lines.next().ok_or("the plan is empty")??)
        .map_err(|e| format!("{}: the first line is not a plan header ({e})", path.display()))?;
    let jobs: Vec<PlannedJob> = lines
        .enumerate()
        .map(|(i, l)| -> CliResult<PlannedJob> {
            let job: PlannedJob = serde_json::from_str(&l?).map_err(|e| format!("{}, line {}: {e}", path.display(), i + 2))?;
            if job.job != i {
                return Err(format!("{}, line {}: job {} out of order", path.display(), i + 2, job.job).into());
            }
            Ok(job)
        })
        .collect::<CliResult<_>>()?;
    if jobs.len() != header.jobs {
        return Err(format!("{}: {} job lines, the header says {}", path.display(), jobs.len(), header.jobs).into());
    }
    Ok((spec_of_link(&header.link)?, jobs))
}

/// `A..B` (end exclusive) or a single `K`.
pub fn parse_range(text: &str) -> CliResult<Range<usize>> {
    let bad = || format!("--jobs is A..B or K, not '{text}'");
    match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (a.parse::<usize>().map_err(|_| bad())?, b.parse::<usize>().map_err(|_| bad())?);
            if a >= b {
                return Err(bad().into());
            }
            Ok(a..b)
        }
        None => {
            let k = text.parse::<usize>().map_err(|_| bad())?;
            Ok(k..k + 1)
        }
    }
}

fn job_file(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("job-{k:06}.json"))
}

/// Writes `bytes` to `path` through a temporary name: a job killed while writing never leaves
/// a partial file that a resume would take for finished.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("json.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(tmp, path)
}

/// `hpo job`: runs the plan's jobs in `range` (in parallel on the rayon pool), skipping those
/// whose trace is already in `out`; each trace goes to `out/job-K.json`, or to stdout as a
/// JSON line when `stdout` (for schedulers that collect results rather than share a disk).
pub fn job(plan_path: &Path, range: Range<usize>, data: &DataArgs, out: Option<&Path>, stdout: bool) -> CliResult<()> {
    let (spec, planned) = read_plan(plan_path)?;
    // An array scheduler's last shard may reach past the end: it runs what is there.
    if range.start >= planned.len() {
        return Err(format!("--jobs {}..{} starts beyond the plan's {} jobs", range.start, range.end, planned.len()).into());
    }
    let range = range.start..range.end.min(planned.len());
    let bench = load_data(&spec, data.data, &data.sources)?;
    let resolved = spec.resolve(&bench)?;
    let jobs = resolved.jobs();
    if let Some(dir) = out {
        std::fs::create_dir_all(dir)?;
    }
    let todo: Vec<usize> = range.filter(|&k| out.is_none_or(|dir| !job_file(dir, k).exists())).collect();
    let priors = PriorCache::new();
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    let printed = std::sync::Mutex::new(std::io::stdout());
    // Inside the pool even when there is one job: run from this thread, a lone job's large
    // products would each be handed to the pool and waited for (`blocked::accumulate`).
    crate::common::in_pool(|| {
        todo.par_iter().try_for_each(|&k| -> Result<(), EngineError> {
            let p = &planned[k];
            let job = planned_job(k, p, &jobs, &bench)?;
            let started = Instant::now();
            let trace = run_job(&bench, &resolved, job, &priors, &now, &mut |_| true)?;
            let json = serde_json::to_string(&JobResult { job: k, trace }).map_err(|e| EngineError::Spec(e.to_string()))?;
            match out {
                Some(dir) if !stdout => {
                    write_atomically(&job_file(dir, k), json.as_bytes()).map_err(|e| EngineError::Spec(e.to_string()))?
                }
                _ => {
                    let mut w = printed.lock().expect("stdout lock");
                    writeln!(w, "{json}").map_err(|e| EngineError::Spec(e.to_string()))?;
                }
            }
            eprintln!("job {k}: {} on {} seed {}: {:.1} s", p.method, p.task_name, p.seed, started.elapsed().as_secs_f64());
            Ok(())
        })
    })?;
    Ok(())
}

/// `hpo merge`: every job's trace from `traces` (job files, or JSON-lines files of `hpo job
/// --stdout`), checked against the plan, written as `hpo run` writes them. With `partial`, a
/// sweep still running is merged over the tasks whose every job is finished: what `hpo run`
/// writes for the plan's link restricted to those tasks (`tasks=`, recorded in spec.json).
pub fn merge(plan_path: &Path, traces: &Path, data: &DataArgs, out: &Path, partial: bool) -> CliResult<()> {
    let (spec, planned) = read_plan(plan_path)?;
    let mut found: Vec<Option<Trace>> = vec![None; planned.len()];
    let mut picked: Vec<(usize, RacePicks)> = Vec::new();
    for (path, line) in read_job_lines(traces)? {
        let (k, method, task, seed) = match &line {
            JobLine::Traced(r) => (r.job, r.trace.method.as_str(), r.trace.task.as_str(), r.trace.seed),
            JobLine::Picked(p) => (p.job, p.method.as_str(), p.task.as_str(), p.seed),
        };
        let p = planned.get(k).ok_or_else(|| format!("{}: job {k} is not in the plan", path.display()))?;
        if (method, task, seed) != (p.method.as_str(), p.task_name.as_str(), p.seed) {
            return Err(format!(
                "{}: job {k} is {method} on {task} seed {seed}, the plan says {} on {} seed {}",
                path.display(),
                p.method,
                p.task_name,
                p.seed
            )
            .into());
        }
        match line {
            JobLine::Traced(r) => found[k] = Some(r.trace),
            JobLine::Picked(p) => picked.push((k, p.picks)),
        }
    }
    // Jobs kept as picks become traces again by replay on the plan's data (hash-checked).
    let mut loaded = None;
    if !picked.is_empty() {
        let bench = load_data(&spec, data.data, &data.sources)?;
        let resolved = spec.resolve(&bench)?;
        let jobs = resolved.jobs();
        for (k, picks) in picked {
            let job = planned_job(k, &planned[k], &jobs, &bench)?;
            let trace = replay_job(&bench, &resolved, job, &picks).map_err(|e| format!("job {k}: {e}"))?;
            found[k].get_or_insert(trace);
        }
        loaded = Some((bench, resolved));
    }
    let missing: Vec<usize> = found.iter().enumerate().filter(|(_, t)| t.is_none()).map(|(k, _)| k).collect();
    if missing.is_empty() {
        let (bench, resolved) = match loaded {
            Some(both) => both,
            None => {
                let bench = load_data(&spec, data.data, &data.sources)?;
                let resolved = spec.resolve(&bench)?;
                (bench, resolved)
            }
        };
        let traces: Vec<Trace> = found.into_iter().flatten().collect();
        return report(&bench, &spec, &resolved, &traces, out, None);
    }
    if !partial {
        let shown: Vec<String> = missing.iter().take(10).map(|k| k.to_string()).collect();
        return Err(format!(
            "{} of {} jobs have no trace yet (jobs {}{}): run them, then merge again (or merge the finished tasks with --partial)",
            missing.len(),
            planned.len(),
            shown.join(", "),
            if missing.len() > 10 { ", …" } else { "" }
        )
        .into());
    }
    // The tasks none of whose jobs is missing, in the plan's order.
    let unfinished: HashSet<&str> = missing.iter().map(|&k| planned[k].task_name.as_str()).collect();
    let mut finished_tasks: Vec<String> = Vec::new();
    for p in &planned {
        if !unfinished.contains(p.task_name.as_str()) && !finished_tasks.contains(&p.task_name) {
            finished_tasks.push(p.task_name.clone());
        }
    }
    if finished_tasks.is_empty() {
        return Err(
            format!("no task has all its jobs traced yet ({} of {} jobs missing): nothing to merge", missing.len(), planned.len()).into()
        );
    }
    let all_tasks = finished_tasks.len() + unfinished.len();
    let sub = ExperimentSpec { tasks: finished_tasks, ..spec };
    let bench = load_data(&sub, data.data, &data.sources)?;
    let resolved = sub.resolve(&bench)?;
    // The restricted link's jobs, in its own order, each the plan's trace of the same job.
    let mut by_job: HashMap<(String, String, u64), Trace> =
        found.into_iter().flatten().map(|t| ((t.method.clone(), t.task.clone(), t.seed), t)).collect();
    let traces = resolved
        .jobs()
        .iter()
        .map(|j| {
            let key = (j.method.clone(), bench.tasks[j.task].name.clone(), j.seed);
            by_job.remove(&key).ok_or_else(|| format!("job {} on {} seed {} of the finished tasks has no trace", key.0, key.1, key.2))
        })
        .collect::<Result<Vec<Trace>, String>>()?;
    eprintln!(
        "partial merge: {} of {all_tasks} tasks have every job finished ({} of {} jobs); the rest are left out",
        sub.tasks.len(),
        traces.len(),
        planned.len()
    );
    report(&bench, &sub, &resolved, &traces, out, None)
}

/// `hpo picks`: the picks of every race job in `traces` (full traces, or picks already), or
/// of those in `only`, one JSON line per job in job order, written to `out`.
pub fn picks(traces: &Path, out: &Path, only: Option<Range<usize>>) -> CliResult<()> {
    let mut by_job: std::collections::BTreeMap<usize, PickedJob> = std::collections::BTreeMap::new();
    for (path, line) in read_job_lines(traces)? {
        let k = match &line {
            JobLine::Traced(r) => r.job,
            JobLine::Picked(p) => p.job,
        };
        if only.as_ref().is_some_and(|range| !range.contains(&k)) {
            continue;
        }
        let kept = match line {
            JobLine::Picked(p) => p,
            JobLine::Traced(r) => {
                let rows = r
                    .trace
                    .race()
                    .ok_or_else(|| format!("{}: job {} ran full evaluations; picks keep races only", path.display(), r.job))?;
                PickedJob {
                    job: r.job,
                    method: r.trace.method.clone(),
                    task: r.trace.task.clone(),
                    seed: r.trace.seed,
                    picks: picks_of(rows),
                }
            }
        };
        by_job.insert(kept.job, kept);
    }
    let mut text = String::new();
    for kept in by_job.values() {
        text += &(serde_json::to_string(kept)? + "\n");
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, text)?;
    println!("{} jobs' picks written to {}", by_job.len(), out.display());
    Ok(())
}
