//! `hpo race`: multi-fidelity runs (DyHPO and the Hyperband family) over many tasks and seeds,
//! with the DyHPO paper's regret, rank and critical-difference summaries.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use hpo_playground::engine::axis::{count, significant};
use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::benchmark::Direction;
use hpo_playground::engine::bundled::{bundled_csv, crossing_curves_family, read_as_upload, BUNDLED};
use hpo_playground::engine::content_hash;
use hpo_playground::engine::export::race_traces_csv;
use hpo_playground::engine::fidelity::runner::run_mf_job_with;
use hpo_playground::engine::fidelity::targets::RaceTargets;
use hpo_playground::engine::fidelity::RaceTrace;
use hpo_playground::engine::loaders::clean::MissingPolicy;
use hpo_playground::engine::loaders::curves::{curves_from_table, load_lcbench_members, LCBENCH_FILES};
use hpo_playground::engine::loaders::file_format::FileFormat;
use hpo_playground::engine::loaders::formats::recognise;
use hpo_playground::engine::loaders::table::LoadOptions;
use hpo_playground::engine::loaders::upload::{load_file_with, LoadFailure};
use hpo_playground::engine::loaders::Unpacked;
use hpo_playground::engine::method_entry::{MethodEntry, RunKind};
use hpo_playground::engine::registry::{lookup, of_kind};
use hpo_playground::engine::results::cd_layout::CdLayout;
use hpo_playground::engine::results::race_report::task_curves;
use hpo_playground::engine::results::race_summary::{summarize, CdSummary, RaceSummary};
use hpo_playground::engine::results::verdict::PairedTest;
use hpo_playground::engine::spec::RegretScale;
use hpo_playground::engine::EngineError;

use crate::common::{print_notes, CliResult};

/// Arguments of `hpo race`.
pub struct RaceArgs<'a> {
    pub data: &'a str,
    pub lcbench_dir: &'a Path,
    pub methods: Option<&'a str>,
    pub tasks: Option<&'a str>,
    pub seeds: u64,
    pub budget: u64,
    pub out: &'a Path,
    /// The metric's direction when the data's own is not wanted (`min` or `max`).
    pub direction: Option<Direction>,
    /// Raw or normalised regret; `None` chooses by the tasks' ranges.
    pub regret: Option<RegretScale>,
    /// What diverged or missing curve points become.
    pub missing: MissingPolicy,
    /// What the surrogate models fit.
    pub targets: RaceTargets,
}

/// Loads `curves` (bundled), another bundled race benchmark (its shipped CSV, read as the
/// page reads it), `lcbench` (the shared tables) or a learning-curve CSV (read as the page
/// reads an upload: diverged points by `missing` in `direction`, log scales detected, each
/// said on stderr).
pub fn load(data: &str, lcbench_dir: &Path, direction: Option<Direction>, missing: MissingPolicy) -> CliResult<Benchmark> {
    match data {
        "curves" => Ok(crossing_curves_family()),
        name if BUNDLED.contains(&name) => {
            let csv = bundled_csv(name).ok_or("no such bundled benchmark")?;
            let options = LoadOptions { direction, missing, detect_scales: read_as_upload(name), ..LoadOptions::default() };
            let loaded = load_file_with(&format!("{name}.csv"), csv.as_bytes(), &options).map_err(|e| match e {
                LoadFailure::Error(m) => m,
                LoadFailure::NeedsRoles { message, .. } => message,
            })?;
            print_notes(&loaded.notes);
            Ok(loaded.benchmark)
        }
        "lcbench" => {
            let members = LCBENCH_FILES
                .iter()
                .filter_map(|f| std::fs::read(lcbench_dir.join(f)).ok().map(|b| (f.to_string(), b)))
                .collect::<Vec<_>>();
            // The loader drops the first logged epoch, as DyHPO did.
            Ok(load_lcbench_members(&lcbench_dir.display().to_string(), &members)?.benchmark)
        }
        path => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            let name = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let options = LoadOptions { detect_scales: true, direction, missing, ..LoadOptions::default() };
            // The format table says what the file is. A study as its tool wrote it (Optuna's
            // journal or storage, a Ray Tune experiment, Syne Tune's results) or LCBench's
            // folder is read as the page reads it; a learning-curve table, or a table of no
            // known format, as curves whose objective is the last step ("metric").
            let unpacked = Unpacked::of(&name, &bytes)?;
            if let Some(entry) = recognise(&unpacked).filter(|f| f.format != FileFormat::LearningCurves) {
                let loaded = (entry.load)(&unpacked, &options)?;
                if !loaded.benchmark.tasks.iter().any(|t| t.curves.is_some()) {
                    return Err(format!(
                        "{name} is {}, without learning curves: a race needs each trial's value at every step (an Optuna trial's intermediate values, a Ray Tune trial's progress.csv)",
                        entry.format.name()
                    )
                    .into());
                }
                print_notes(&loaded.notes);
                return Ok(loaded.benchmark);
            }
            let table = unpacked.table()?.clone();
            let loaded = curves_from_table(&name, table, "metric", direction.unwrap_or(Direction::Minimize), &options)?;
            print_notes(&loaded.notes);
            Ok(loaded.benchmark)
        }
    }
}

pub fn select_tasks(bench: &Benchmark, tasks: Option<&str>) -> CliResult<Vec<usize>> {
    let Some(list) = tasks else { return Ok((0..bench.tasks.len()).collect()) };
    list.split(',')
        .map(|s| {
            let s = s.trim();
            bench
                .tasks
                .iter()
                .position(|t| t.name == s)
                .or_else(|| s.parse::<usize>().ok().filter(|&i| i < bench.tasks.len()))
                .ok_or_else(|| format!("no task '{s}' (give names or indices 0..{})", bench.tasks.len()).into())
        })
        .collect()
}

pub fn run(args: RaceArgs) -> CliResult<()> {
    let mut bench = load(args.data, args.lcbench_dir, args.direction, args.missing)?;
    if let Some(d) = args.direction {
        let objective = bench.objective;
        bench.metrics[objective].direction = d;
    }
    let objective = &bench.metrics[bench.objective];
    let verb = if objective.direction == Direction::Minimize { "minimised" } else { "maximised" };
    eprintln!("{} is {verb} (--direction min|max to change it)", objective.name);
    let methods: Vec<&'static MethodEntry> = match args.methods {
        Some(list) => list.split(',').map(|m| lookup(RunKind::Race, m.trim())).collect::<Result<_, _>>()?,
        None => of_kind(RunKind::Race).collect(),
    };
    let tasks = select_tasks(&bench, args.tasks)?;
    let budget = args.budget;
    let mut jobs = Vec::new();
    for &t in &tasks {
        for &m in &methods {
            for seed in 0..args.seeds {
                jobs.push((t, m, seed));
            }
        }
    }
    // Costly methods first, so the pool stays busy to the end; results are put back in
    // (task, method, seed) order below, so the output does not depend on the schedule.
    let mut schedule: Vec<usize> = (0..jobs.len()).collect();
    schedule.sort_by_key(|&k| std::cmp::Reverse(jobs[k].1.cost));
    eprintln!(
        "{} ({} × {} × {}) on {}",
        count(jobs.len(), "run"),
        count(tasks.len(), "task"),
        count(methods.len(), "method"),
        count(args.seeds as usize, "seed"),
        count(rayon::current_num_threads(), "thread")
    );
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64();
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Cached per build and per reading of the data: a rebuilt binary, or the same tasks read
    // with another policy or direction or raced on other targets, never reuses a run.
    let setting = format!("{}|{}|{}|{:?}", args.data, args.missing.as_str(), args.targets.as_str(), args.direction);
    let runs_dir =
        args.out.join("runs").join(format!("{:016x}", crate::common::build_fingerprint())).join(&content_hash(setting.as_bytes())[..16]);
    std::fs::create_dir_all(&runs_dir)?;
    let scheduled: Vec<(usize, RaceTrace)> = schedule
        .par_iter()
        .map(|&k| {
            let (t, m, seed) = jobs[k];
            let started = Instant::now();
            // Each run is cached, so a long replication can be stopped and resumed.
            let cached = runs_dir.join(format!("{}-{}-{seed}-{budget}.json", m.name.replace([' ', '/'], "_"), bench.tasks[t].name));
            if let Some(trace) = std::fs::read(&cached).ok().and_then(|b| serde_json::from_slice::<RaceTrace>(&b).ok()) {
                return Ok((k, trace));
            }
            let sign = bench.metrics[bench.objective].direction.sign();
            let trace = run_mf_job_with(&bench, t, m, seed, budget, sign, args.targets, &now, &mut |_| true)?;
            if let Ok(json) = serde_json::to_vec(&trace) {
                let _ = std::fs::write(&cached, json);
            }
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            eprintln!("[{n}/{}] {} on {} seed {seed}: {:.1} s", jobs.len(), m.name, bench.tasks[t].name, started.elapsed().as_secs_f64());
            Ok((k, trace))
        })
        .collect::<Result<_, EngineError>>()?;
    let mut traces: Vec<Option<RaceTrace>> = vec![None; jobs.len()];
    for (k, trace) in scheduled {
        traces[k] = Some(trace);
    }
    let traces: Vec<RaceTrace> = traces.into_iter().flatten().collect();
    let methods: Vec<String> = methods.iter().map(|m| m.name.to_string()).collect();
    let sign = bench.metrics[bench.objective].direction.sign();
    summarize_and_write(&bench, &tasks, sign, &traces, &methods, args.budget, args.regret, args.out)?;
    println!("finished in {:.1} s", origin.elapsed().as_secs_f64());
    Ok(())
}

/// Summarises races over `tasks`, prints the summary and writes race-traces.csv and
/// race-summary.json to `out`.
#[allow(clippy::too_many_arguments)]
pub fn summarize_and_write(
    bench: &Benchmark,
    tasks: &[usize],
    sign: f64,
    traces: &[RaceTrace],
    methods: &[String],
    budget: u64,
    regret: Option<RegretScale>,
    out: &Path,
) -> CliResult<()> {
    let (curves, scale) = task_curves(bench, tasks, sign, regret)?;
    let summary = summarize(traces, methods, &curves, budget, scale);
    std::fs::create_dir_all(out)?;
    write_traces(&out.join("race-traces.csv"), traces)?;
    std::fs::write(out.join("race-summary.json"), serde_json::to_string(&summary)?)?;
    let diagrams = write_cd_diagrams(&summary, out)?;
    std::fs::write(out.join("race-report.md"), summary_markdown(&summary))?;
    let verdict = match &summary.verdict {
        Some(v) => {
            std::fs::write(out.join("verdict.csv"), v.csv())?;
            ", verdict.csv"
        }
        None => "",
    };
    print_summary(&summary);
    print_verdict(&summary);
    println!("wrote {}/race-traces.csv, race-summary.json, race-report.md{verdict}{diagrams}", out.display());
    Ok(())
}

/// Writes the CD diagrams as the page draws them (cd-50.svg, cd-100.svg), when there are at
/// least two tasks to rank over; returns ", cd-50.svg, cd-100.svg" (or "") for the message.
fn write_cd_diagrams(summary: &RaceSummary, out: &Path) -> CliResult<String> {
    let mut names = String::new();
    if summary.tasks.len() < 2 {
        return Ok(names);
    }
    for cd in &summary.cd {
        let name = format!("cd-{:.0}.svg", cd.fraction * 100.0);
        std::fs::write(out.join(&name), CdLayout::new(cd, &summary.methods, summary.tasks.len()).to_svg())?;
        names += &format!(", {name}");
    }
    Ok(names)
}

fn write_traces(path: &Path, traces: &[RaceTrace]) -> CliResult<()> {
    std::fs::write(path, race_traces_csv(traces))?;
    Ok(())
}

/// The budget units the summaries report regret at: 10, 25, 50, 75 and 100 % of the budget.
fn report_marks(s: &RaceSummary) -> Vec<u64> {
    let mut marks: Vec<u64> = [0.1, 0.25, 0.5, 0.75, 1.0].iter().map(|f| ((s.total as f64 * f).round() as u64).max(1)).collect();
    // A small budget rounds several fractions to the same unit: show each once.
    marks.dedup();
    marks
}

fn scale_words(s: &RaceSummary) -> &'static str {
    match s.regret_scale {
        RegretScale::Raw => "in the metric's units",
        RegretScale::Normalized => "normalised per task: 0 at its best configuration, 1 at its median one",
    }
}

/// "mean ± half-width" of a method's regret after `unit` budget units.
fn regret_cell(s: &RaceSummary, method: usize, unit: u64) -> String {
    let (b, i) = (&s.regret[method], unit as usize - 1);
    format!("{} ± {}", significant(b.mean[i], 4), significant(b.upper[i] - b.mean[i], 2))
}

/// The methods not significantly different from method `k` in `cd`.
fn peers<'a>(s: &'a RaceSummary, cd: &CdSummary, k: usize) -> Vec<&'a str> {
    cd.not_different
        .iter()
        .filter_map(|&(i, j)| {
            if i == k {
                Some(j)
            } else if j == k {
                Some(i)
            } else {
                None
            }
        })
        .map(|j| s.methods[j].as_str())
        .collect()
}

/// Fig. 3 and 4 as Markdown tables (race-report.md): what a replication report pastes in. The
/// best mean regret of each column and the best average rank are in bold.
pub fn summary_markdown(s: &RaceSummary) -> String {
    let marks = report_marks(s);
    let mut md = format!(
        "Mean regret over {}, {} (± 95 % band half-width over tasks):\n\n| method |{} optimizer s/run |\n|---|{}---|\n",
        count(s.tasks.len(), "task"),
        scale_words(s),
        marks.iter().map(|m| format!(" budget {m} |")).collect::<String>(),
        "---|".repeat(marks.len())
    );
    // Ties are all bold.
    let best = |unit: u64| s.regret.iter().map(|b| b.mean[unit as usize - 1]).fold(f64::INFINITY, f64::min);
    for (k, m) in s.methods.iter().enumerate() {
        let cells: String = marks
            .iter()
            .map(|&u| {
                let cell = regret_cell(s, k, u);
                if s.regret[k].mean[u as usize - 1] == best(u) {
                    format!(" **{cell}** |")
                } else {
                    format!(" {cell} |")
                }
            })
            .collect();
        md += &format!("| {m} |{cells} {:.1} |\n", s.optimizer_seconds[k]);
    }
    if let Some(study) = &s.study {
        // The study as it ran, budget spent as it spent it; not ranked: the methods replay its trials.
        let cells: String = marks
            .iter()
            .map(|&u| {
                let i = u as usize - 1;
                format!(" {} ± {} |", significant(study.regret.mean[i], 4), significant(study.regret.upper[i] - study.regret.mean[i], 2))
            })
            .collect();
        md += &format!("| *{}* |{cells} – |\n", study.label);
    }
    if s.methods.len() < 2 || s.cd.is_empty() {
        return md;
    }
    md += "\nAverage ranks (1 = best) and the methods each is not significantly different from (Friedman, then \
           Wilcoxon signed-rank with Holm's correction, α = 0.05):\n\n| method |";
    for cd in &s.cd {
        md += &format!(" rank at {p:.0} % | not different at {p:.0} % |", p = cd.fraction * 100.0);
    }
    md += &format!("\n|---|{}\n", "---|---|".repeat(s.cd.len()));
    let last = &s.cd[s.cd.len() - 1];
    for k in last.order() {
        md += &format!("| {} |", s.methods[k]);
        for cd in &s.cd {
            let rank = format!("{:.2}", cd.ranks[k]);
            let best = cd.ranks.iter().copied().fold(f64::INFINITY, f64::min);
            let rank = if cd.ranks[k] == best { format!("**{rank}**") } else { rank };
            let peers = peers(s, cd, k);
            md += &format!(" {rank} | {} |", if peers.is_empty() { "–".into() } else { peers.join(", ") });
        }
        md += "\n";
    }
    md += &format!("| Friedman p |{}\n", s.cd.iter().map(|cd| format!(" {:.2e} | |", cd.friedman_p)).collect::<String>());
    md
}

/// The verdict's table and sentence, as `verdict.csv` holds them.
fn print_verdict(s: &RaceSummary) {
    let Some(v) = &s.verdict else { return };
    let base = v.baseline.as_deref().unwrap_or("the baseline");
    println!("per run (tasks × seeds): reaching the best, budget to reach it, area under the regret curve, Wilcoxon signed-rank p");
    println!("{:<22}{:>10}{:>30}{:>12}{:>14}{:>14}", "", "reached", "budget: median (range)", "area", format!("p vs {base}"), "p vs study");
    let p = |t: &Option<PairedTest>| t.map_or("-".to_string(), |t| significant(t.test.p, 2));
    for r in &v.rows {
        let budget =
            if r.reached.is_empty() { "-".to_string() } else { format!("{} ({}–{})", r.to_best_median, r.to_best_min, r.to_best_max) };
        println!(
            "{:<22}{:>10}{:>30}{:>12}{:>14}{:>14}",
            r.name,
            format!("{}/{}", r.reached.len(), r.runs),
            budget,
            significant(r.area, 3),
            p(&r.vs_baseline),
            p(&r.vs_study)
        );
    }
    println!("{}", v.sentence);
}

/// Fig. 3 and 4 in numbers.
pub fn print_summary(s: &RaceSummary) {
    let marks = report_marks(s);
    println!("mean regret over {}, {} (± 95% band half-width over tasks)", count(s.tasks.len(), "task"), scale_words(s));
    println!("{:<16}{}{:>12}", "method", marks.iter().map(|m| format!("{:>20}", format!("budget {m}"))).collect::<String>(), "opt. s/run");
    for (k, m) in s.methods.iter().enumerate() {
        let cells: String = marks.iter().map(|&u| format!("{:>20}", regret_cell(s, k, u))).collect();
        println!("{m:<16}{cells}{:>12.1}", s.optimizer_seconds[k]);
    }
    if s.methods.len() < 2 {
        println!("one method: no ranks or Friedman test to compare");
        return;
    }
    for cd in &s.cd {
        println!("at {:.0}% of the budget: Friedman p = {:.2e}; average ranks:", cd.fraction * 100.0, cd.friedman_p);
        for k in cd.order() {
            let peers = peers(s, cd, k);
            println!(
                "  {:<16} {:.2}   not significantly different from: {}",
                s.methods[k],
                cd.ranks[k],
                if peers.is_empty() { "-".into() } else { peers.join(", ") }
            );
        }
    }
}
