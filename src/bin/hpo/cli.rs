//! Argument parsing and commands of the `hpo` CLI.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Parser, Subcommand};
use rayon::prelude::*;

use hpo_playground::engine::axis::{count, significant};
use hpo_playground::engine::benchmark::{Benchmark, Direction};
use hpo_playground::engine::bundled::{bundled_csv, BUNDLED};
use hpo_playground::engine::export::{traces_csv, traces_detailed_csv};
use hpo_playground::engine::fidelity::report::race_traces;
use hpo_playground::engine::fidelity::targets::RaceTargets;
use hpo_playground::engine::gpb::design::Criterion;
use hpo_playground::engine::gpb::model::BudgetKernel;
use hpo_playground::engine::gpb::synthetic::Setting;
use hpo_playground::engine::loaders::clean::MissingPolicy;
use hpo_playground::engine::loaders::curves::{load_lcbench_members, LCBENCH_ARCHIVE, LCBENCH_FILES};
use hpo_playground::engine::loaders::upload::{load_file_with, LoadFailure};
use hpo_playground::engine::method_entry::RunKind;
use hpo_playground::engine::metrics::{
    adtm_curves, average_ranks, band, hv_error_curves, improvement_over_rs, mean_dtm_curve, prior_effects,
};
use hpo_playground::engine::optimizer::fnv1a;
use hpo_playground::engine::permalink::{from_query, to_query};
use hpo_playground::engine::registry::{baseline, markdown_table, of_kind};
use hpo_playground::engine::runner::{run_job, Trace};
use hpo_playground::engine::spec::{DataRef, ExperimentSpec, RegretScale, ResolvedSpec};
use hpo_playground::engine::transfer::PriorCache;
use hpo_playground::engine::{content_hash, EngineError};

#[derive(Parser)]
#[command(name = "hpo", about = "Run hyperparameter-optimization experiments on the hpo-playground engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an experiment over many seeds in parallel and write traces.csv and spec.json.
    Run {
        /// The experiment as a permalink or its query string (everything after '?').
        #[arg(long, conflicts_with = "spec")]
        link: Option<String>,
        /// The experiment as a JSON spec file.
        #[arg(long)]
        spec: Option<PathBuf>,
        /// The file of an `upload:` link (checked against the link's SHA-256).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Run on --data although the link names other data (or another file's hash); the
        /// printed link then names the file that ran.
        #[arg(long, requires = "data")]
        force: bool,
        /// Where `shared:` files are looked up.
        #[arg(long, default_value = "../shared/benchmarks/quantile-transfer")]
        shared_dir: PathBuf,
        /// Where files of `url:` links are kept (default: $HPO_CACHE, else ~/.cache/hpo-playground).
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print a benchmark's tasks, search space and metrics: any file the page reads (copula
    /// format, generic CSV, learning curves; .csv, .csv.gz or .zip).
    Info {
        /// The data file.
        #[arg(long)]
        data: PathBuf,
        /// A link whose column roles (a generic CSV's) apply to the file.
        #[arg(long)]
        link: Option<String>,
    },
    /// Print a ready link for an uploaded file: its name and SHA-256, with the setup of
    /// --link if given (else the page's defaults).
    Link {
        /// The data file.
        #[arg(long)]
        data: PathBuf,
        /// A link or query whose setup (methods, seeds, …) the new link keeps.
        #[arg(long)]
        link: Option<String>,
        /// The page's address the link starts with.
        #[arg(long, default_value = "")]
        base: String,
    },
    /// Write an experiment's jobs (method × task × seed, races too) as JSON lines, for `hpo
    /// job` to run in shards anywhere (a Ray, Slurm or Kubernetes sweep) and `hpo merge`.
    Plan {
        /// The experiment as a permalink or its query string.
        #[arg(long)]
        link: String,
        #[command(flatten)]
        data: DataOpts,
        /// The plan file to write.
        #[arg(long, default_value = "plan.jsonl")]
        out: PathBuf,
    },
    /// Run jobs A..B (end exclusive) of a plan; each trace goes to OUT/job-K.json (a job
    /// already there is skipped: a shard resumes), or to stdout as JSON lines with --stdout.
    Job {
        /// The plan file.
        #[arg(long)]
        plan: PathBuf,
        /// Jobs to run: A..B or K.
        #[arg(long)]
        jobs: String,
        #[command(flatten)]
        data: DataOpts,
        /// Directory of job files.
        #[arg(long, required_unless_present = "stdout")]
        out: Option<PathBuf>,
        /// Print each trace as a JSON line instead of writing a file.
        #[arg(long)]
        stdout: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Combine the job traces of a plan into what `hpo run` writes (traces.csv, spec.json, a
    /// race's summaries) and print the same summary.
    Merge {
        /// The plan file.
        #[arg(long)]
        plan: PathBuf,
        /// Directory of job files (or JSON-lines files of `hpo job --stdout`).
        #[arg(long)]
        traces: PathBuf,
        #[command(flatten)]
        data: DataOpts,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// While a sweep is still running: merge only the tasks whose every job is finished
        /// (the plan's link restricted to them with `tasks=`).
        #[arg(long)]
        partial: bool,
    },
    /// Keep a race sweep's finished jobs without the benchmark's values: each job's picks
    /// (configuration, budget, optimizer seconds per request) and the SHA-256 of its rows, as
    /// JSON lines. `hpo merge` and `ray-sweep.py` take such a file among the traces: merge
    /// replays the picks on the data and checks the hash, the sweep skips those jobs.
    Picks {
        /// Directory of job files (or JSON-lines files of `hpo job --stdout`).
        #[arg(long)]
        traces: PathBuf,
        /// The picks file to write.
        #[arg(long)]
        out: PathBuf,
        /// Only these jobs: A..B or K (default: all found).
        #[arg(long)]
        jobs: Option<String>,
    },
    /// Download the copula paper's public tables (XGBoost, DeepAR, NAS-Bench-201), check each
    /// against the SHA-256 pinned in the code and keep them in the cache; prints a link each.
    Fetch {
        /// Tables to fetch (file names, e.g. XGBoost.csv.zip; default: all).
        names: Vec<String>,
        /// Where to download from (default: $HPO_DATA_BASE, else the paper's repository).
        #[arg(long)]
        base: Option<String>,
        /// Cache directory (default: $HPO_CACHE, else ~/.cache/hpo-playground).
        #[arg(long)]
        cache: Option<PathBuf>,
    },
    /// Cholesky, solves and inverse of a GP kernel matrix at n = 100, 500, 1,000: ours,
    /// nalgebra's and faer's (natively, single-threaded).
    BenchLinalg,
    /// The faithful DyHPO with its fit's arithmetic changed (f32, as the authors' code; or
    /// GPyTorch's CG beyond 800 observations) against the exact f64 path, on LCBench: step
    /// times and picks from the same race at each --steps-at size, then whole runs.
    BenchPrecision {
        /// Where LCBench's surrogate tables are.
        #[arg(long, default_value = "../shared/benchmarks/lcbench-surrogate")]
        lcbench_dir: PathBuf,
        /// Race sizes (observations) at which to time steps and compare picks (0: none).
        #[arg(long, value_delimiter = ',', default_value = "500,1000")]
        steps_at: Vec<usize>,
        /// LCBench tasks (indices) to run whole runs on.
        #[arg(long, value_delimiter = ',')]
        tasks: Vec<usize>,
        /// Seeds per task (0..N).
        #[arg(long, default_value_t = 1)]
        seeds: u64,
        /// Epochs per whole run.
        #[arg(long, default_value_t = 300)]
        epochs: u64,
        /// Arithmetics: f64, f32, f64-gpytorch, f32-gpytorch (the authors' code). The first
        /// two are compared step by step; whole runs use each, and the first two's requests
        /// are compared.
        #[arg(long, value_delimiter = ',', default_value = "f64,f32")]
        precisions: Vec<String>,
    },
    /// Measure the speed of the GP, the prior and a GCP+prior seed on the shared tables.
    Bench {
        /// Where the shared tables are.
        #[arg(long, default_value = "../shared/benchmarks/quantile-transfer")]
        shared_dir: PathBuf,
    },
    /// List every method (the registry): kind of run, name, cost, paper section, summary.
    Methods {
        /// Print the Markdown table of docs/methods.md instead.
        #[arg(long)]
        markdown: bool,
    },
    /// Multi-fidelity runs (`hpo methods` lists those of a race) with the DyHPO paper's
    /// summaries (regret, ranks, CD at 50% and 100%, Fig. 6).
    Race {
        /// `curves` (bundled crossing curves), `exploding` (bundled curves with diverged and
        /// exploded runs), `lcbench` (the shared LCBench tables) or a learning-curve CSV
        /// (columns e1..eN or step_0..step_N; minimised unless --direction max).
        #[arg(long, default_value = "curves")]
        data: String,
        /// What a diverged or missing curve point becomes: untrained (default), worst, drop,
        /// ffill or taskset (docs/methods.md), as the link's `missing=`.
        #[arg(long)]
        missing: Option<String>,
        /// What the surrogate models fit: `raw` (the losses as observed, the papers' choice) or
        /// `copula` (ψ = Φ⁻¹∘F̃ of every observed loss), as the link's `targets=`.
        #[arg(long, default_value = "raw")]
        targets: String,
        /// Where the LCBench tables are.
        #[arg(long, default_value = "../shared/benchmarks/lcbench-surrogate")]
        lcbench_dir: PathBuf,
        /// Comma-separated race methods (default: every race method of `hpo methods`).
        #[arg(long)]
        methods: Option<String>,
        /// Comma-separated task names or indices (default: all).
        #[arg(long)]
        tasks: Option<String>,
        /// Seeds per task and method.
        #[arg(long, default_value_t = 10)]
        seeds: u64,
        /// Budget units (epochs) per run.
        #[arg(long, default_value_t = 1000)]
        budget: u64,
        /// Minimise (`min`) or maximise (`max`) the curves' metric, instead of the data's own
        /// direction (a curve file's is "min": losses; say `max` for accuracies).
        #[arg(long)]
        direction: Option<String>,
        /// Regret in the metric's units (`raw`) or normalised per task (`norm`: 0 at the task's
        /// best configuration, 1 at its median one);
        /// default: normalised when the tasks' ranges differ by more than 10×.
        #[arg(long)]
        regret: Option<String>,
        /// Output directory.
        #[arg(long, default_value = "out/race")]
        out: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// The GPB paper's experiments (Gaussian processes with budgets and optimal designs).
    Gpb {
        #[command(subcommand)]
        experiment: GpbExperiment,
    },
    /// Write a bundled benchmark as CSV (what assets/ ships).
    Generate {
        /// Benchmark name: quadratic, tradeoff or curves (bundled), or messy-curves (a test file
        /// with diverged curves, a step_0 column and hyperparameters spanning decades).
        name: String,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum GpbExperiment {
    /// Tables 1 and 2 (the synthetic functions): Std. of β and integral loss per initial
    /// design, beside the paper's numbers.
    Tables {
        /// Repetitions per cell.
        #[arg(long, default_value_t = 100)]
        reps: u64,
        /// Design criterion: D, A or E.
        #[arg(long, default_value = "D")]
        criterion: String,
        /// Budget correlation: power (max(b, b')^-h, §3.2; the default) or rbf (Eq. 2).
        #[arg(long, default_value = "power")]
        kernel: String,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Speed of the IC and TA designs and of one GPB step (for docs/benchmarks.md).
    Bench,
    /// The analogue of Tables 3–4 on LCBench: GPB with Random/IC/TA designs against the GP
    /// at the full budget, final metric and epochs spent.
    Lcbench {
        /// Where the LCBench tables are.
        #[arg(long, default_value = "../shared/benchmarks/lcbench-surrogate")]
        lcbench_dir: PathBuf,
        /// Comma-separated task names or indices (default: all).
        #[arg(long)]
        tasks: Option<String>,
        /// Seeds per task and arm.
        #[arg(long, default_value_t = 3)]
        seeds: u64,
        /// Also write every run (task, seed, recommended configuration, final metric, budget) as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
}

pub type CliResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Where a plan's data comes from, as for `hpo run`.
#[derive(clap::Args)]
struct DataOpts {
    /// The file of an `upload:` link (checked against the link's SHA-256).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Where `shared:` files are looked up.
    #[arg(long, default_value = "../shared/benchmarks/quantile-transfer")]
    shared_dir: PathBuf,
    /// Where files of `url:` links are kept.
    #[arg(long)]
    cache: Option<PathBuf>,
}

impl DataOpts {
    fn args(&self) -> crate::sweep::DataArgs<'_> {
        crate::sweep::DataArgs {
            data: self.data.as_deref(),
            sources: Sources { shared_dir: &self.shared_dir, cache: crate::fetch::cache_dir(self.cache.as_deref()) },
        }
    }
}

pub fn main() -> CliResult<()> {
    match Cli::parse().command {
        Command::Run { link, spec, data, force, shared_dir, cache, out, threads } => {
            let sources = Sources { shared_dir: &shared_dir, cache: crate::fetch::cache_dir(cache.as_deref()) };
            run(link, spec, data, force, &sources, &out, threads)
        }
        Command::Fetch { names, base, cache } => crate::fetch::run(&names, base.as_deref(), cache.as_deref()),
        Command::Plan { link, data, out } => crate::sweep::plan(&link, &data.args(), &out),
        Command::Job { plan, jobs, data, out, stdout, threads } => {
            set_threads(threads)?;
            crate::sweep::job(&plan, crate::sweep::parse_range(&jobs)?, &data.args(), out.as_deref(), stdout)
        }
        Command::Merge { plan, traces, data, out, partial } => crate::sweep::merge(&plan, &traces, &data.args(), &out, partial),
        Command::Picks { traces, out, jobs } => {
            crate::sweep::picks(&traces, &out, jobs.as_deref().map(crate::sweep::parse_range).transpose()?)
        }
        Command::Info { data, link } => info(&data, link.as_deref()),
        Command::Link { data, link, base } => print_link(&data, link.as_deref(), &base),
        Command::Methods { markdown } => {
            if markdown {
                print!("{}", markdown_table());
            } else {
                list_methods();
            }
            Ok(())
        }
        Command::Generate { name, out } => generate(&name, &out),
        Command::Gpb { experiment } => match experiment {
            GpbExperiment::Tables { reps, criterion, kernel, threads } => {
                set_threads(threads)?;
                let criterion = Criterion::parse(&criterion).ok_or_else(|| format!("unknown criterion '{criterion}' (D, A or E)"))?;
                let kernel = match kernel.to_ascii_lowercase().as_str() {
                    "power" => BudgetKernel::Power,
                    "rbf" => BudgetKernel::Rbf,
                    _ => return Err(format!("unknown budget correlation '{kernel}' (power or rbf)").into()),
                };
                crate::gpb::tables(reps, Setting { criterion, kernel })
            }
            GpbExperiment::Bench => crate::gpb::bench(),
            GpbExperiment::Lcbench { lcbench_dir, tasks, seeds, json, threads } => {
                set_threads(threads)?;
                crate::gpb::lcbench(&lcbench_dir, tasks.as_deref(), seeds, json.as_deref())
            }
        },
        // On a pool thread, as `hpo run` and `hpo job` run their jobs (see `in_pool`).
        Command::Bench { shared_dir } => Ok(in_pool(|| crate::bench::run(&shared_dir).map_err(|e| e.to_string()))?),
        Command::BenchLinalg => Ok(in_pool(|| crate::linalg::run().map_err(|e| e.to_string()))?),
        Command::BenchPrecision { lcbench_dir, steps_at, tasks, seeds, epochs, precisions } => {
            let precisions = precisions.iter().map(|p| crate::precision::Arithmetic::parse(p)).collect::<Result<Vec<_>, _>>()?;
            let plan = crate::precision::Plan { steps_at: &steps_at, tasks: &tasks, seeds, epochs, precisions: &precisions };
            Ok(in_pool(|| crate::precision::run(&lcbench_dir, plan).map_err(|e| e.to_string()))?)
        }
        Command::Race { data, missing, targets, lcbench_dir, methods, tasks, seeds, budget, direction, regret, out, threads } => {
            set_threads(threads)?;
            let direction = match direction.as_deref() {
                None => None,
                Some("min") => Some(Direction::Minimize),
                Some("max") => Some(Direction::Maximize),
                Some(other) => return Err(format!("--direction is 'min' or 'max', not '{other}'").into()),
            };
            let regret = match regret.as_deref() {
                None => None,
                Some(r) => Some(RegretScale::parse(r).ok_or_else(|| format!("--regret is 'raw' or 'norm', not '{r}'"))?),
            };
            let missing = match missing.as_deref() {
                None => MissingPolicy::default(),
                Some(m) => {
                    MissingPolicy::parse(m).ok_or_else(|| format!("--missing is untrained, worst, drop, ffill or taskset, not '{m}'"))?
                }
            };
            let targets = RaceTargets::parse(&targets).ok_or_else(|| format!("--targets is raw or copula, not '{targets}'"))?;
            crate::race::run(crate::race::RaceArgs {
                regret,
                missing,
                targets,
                data: &data,
                lcbench_dir: &lcbench_dir,
                methods: methods.as_deref(),
                tasks: tasks.as_deref(),
                seeds,
                budget,
                out: &out,
                direction,
            })
        }
    }
}

fn set_threads(threads: Option<usize>) -> CliResult<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
    Ok(())
}

/// Runs `work` on a thread of the rayon pool. A parallel iterator over a single item runs on
/// the calling thread, and from there every `rayon::join` inside the engine (the blocked
/// products' split) is sent to the pool and waited for; from a pool thread it is not.
pub fn in_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| work())
}

/// What the loader said of the data, each once on stderr, in the page's words.
pub fn print_notes(notes: &[String]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}

fn read_file(path: &Path) -> CliResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()).into())
}

/// Where data that is not a local file comes from.
pub struct Sources<'a> {
    /// The folder of `shared:` tables.
    pub shared_dir: &'a Path,
    /// Where downloaded `url:` files are kept.
    pub cache: PathBuf,
}

pub fn load_data(spec: &ExperimentSpec, data: Option<&Path>, sources: &Sources) -> CliResult<Benchmark> {
    let shared_dir = sources.shared_dir;
    let load = |path: &Path, bytes: &[u8]| -> CliResult<Benchmark> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let loaded = load_file_with(&name, bytes, &spec.load_options()).map_err(|e| match e {
            LoadFailure::Error(m) => m,
            LoadFailure::NeedsRoles { message, guess, .. } => {
                let mut example = spec.clone();
                example.columns = Some(guess);
                format!("{message}; add them to the link, e.g. ?{}", to_query(&example))
            }
        })?;
        print_notes(&loaded.warnings);
        Ok(loaded.benchmark)
    };
    match (&spec.data, data) {
        (DataRef::Upload { name, sha256 }, Some(path)) => {
            let bytes = read_file(path)?;
            let actual = content_hash(&bytes);
            if &actual != sha256 {
                return Err(format!(
                    "{} does not match the link's file {name}: SHA-256 {actual} instead of {sha256} (add --force to run it anyway; the printed link then names it)",
                    path.display()
                )
                .into());
            }
            load(path, &bytes)
        }
        (DataRef::Upload { name, .. }, None) => Err(format!("the experiment uses the uploaded file '{name}': pass it with --data").into()),
        (other, Some(path)) => Err(format!(
            "the link names {other}, not a file: --data {} would run other data than the link says (add --force to run it; the printed link then names that file)",
            path.display()
        )
        .into()),
        // Read from the shipped CSV with the link's options, as the page reads assets/NAME.csv.
        (DataRef::Bundled(name), None) => {
            let csv = bundled_csv(name).ok_or_else(|| format!("unknown bundled benchmark '{name}'; available: {}", BUNDLED.join(", ")))?;
            load(Path::new(&format!("{name}.csv")), csv.as_bytes())
        }
        // The page's LCBench archive is zipped from the lcbench-surrogate folder at build time;
        // the CLI reads the folder beside the shared directory.
        (DataRef::Shared(file), None) if file == LCBENCH_ARCHIVE && !shared_dir.join(file).exists() => {
            let dir = shared_dir.join("../lcbench-surrogate");
            let members: Vec<(String, Vec<u8>)> =
                LCBENCH_FILES.iter().filter_map(|f| std::fs::read(dir.join(f)).ok().map(|b| (f.to_string(), b))).collect();
            Ok(load_lcbench_members(&dir.display().to_string(), &members)?.benchmark)
        }
        (DataRef::Shared(file), None) => {
            let path = shared_dir.join(file);
            load(&path, &read_file(&path)?)
        }
        (DataRef::Url { url, sha256 }, None) => {
            let path = crate::fetch::fetch_verified(url, sha256, &sources.cache)?;
            load(&path, &read_file(&path)?)
        }
    }
}

/// The spec of a link or query string; any problem in it is an error.
pub fn spec_of_link(link: &str) -> CliResult<ExperimentSpec> {
    let query = link.split_once('?').map(|(_, q)| q).unwrap_or(link);
    let parsed = from_query(query.split('#').next().unwrap_or(query));
    if !parsed.warnings.is_empty() {
        return Err(format!("the link has problems:\n  {}", parsed.warnings.join("\n  ")).into());
    }
    Ok(parsed.spec)
}

/// `data=upload:NAME@SHA256` for the file at `path`.
fn upload_ref(path: &Path, bytes: &[u8]) -> DataRef {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    DataRef::Upload { name, sha256: content_hash(bytes) }
}

fn run(
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
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
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
    if resolved.methods.iter().any(|m| m.is_baseline()) && resolved.methods.len() > 1 {
        print_table2(bench, resolved, traces);
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

fn info(path: &Path, link: Option<&str>) -> CliResult<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let bytes = read_file(path)?;
    // Read as the page reads this file as an upload, with the link's options if given.
    let mut spec = link.map(spec_of_link).transpose()?.unwrap_or_default();
    spec.data = upload_ref(path, &bytes);
    let loaded = load_file_with(&name, &bytes, &spec.load_options()).map_err(|e| match e {
        LoadFailure::Error(m) => m,
        LoadFailure::NeedsRoles { message, guess, .. } => {
            let example = ExperimentSpec { columns: Some(guess), ..ExperimentSpec::default() };
            format!("{message}; give them with --link, e.g. --link '?{}'", to_query(&example))
        }
    })?;
    print_notes(&loaded.warnings);
    let b = &loaded.benchmark;
    println!(
        "{}: {}, {}, {}",
        b.name,
        count(b.tasks.len(), "task"),
        count(b.total_rows(), "row"),
        count(b.space.encoded_dim(), "model input")
    );
    for p in &b.space.params {
        println!("  {}: {:?}", p.name, p.kind);
    }
    for (i, m) in b.metrics.iter().enumerate() {
        println!("  {} ({}){}", m.name, m.direction.as_str(), if i == b.objective { " [objective]" } else { "" });
    }
    for t in &b.tasks {
        let (lo, hi) = t.metric_range(b.objective);
        let curves = t.curves.as_ref().map_or(String::new(), |c| {
            let steps = c.values.iter().map(Vec::len).min().unwrap_or(0);
            format!(", learning curves of {}", count(steps, "step"))
        });
        println!(
            "  task {}: {}, objective in [{}, {}]{curves}",
            t.name,
            count(t.len(), "configuration"),
            significant(lo, 6),
            significant(hi, 6)
        );
    }
    Ok(())
}

/// `hpo link`: the file's upload reference (checked to load) with a setup.
fn print_link(path: &Path, link: Option<&str>, base: &str) -> CliResult<()> {
    let bytes = read_file(path)?;
    // A setup fragment ("?methods=GP&seeds=5") need not carry the version field.
    let with_version = |l: &str| {
        let query = l.split_once('?').map_or(l, |(_, q)| q);
        if query.split('&').any(|p| p.starts_with("v=")) {
            query.to_string()
        } else {
            format!("v=1&{query}")
        }
    };
    let mut spec = link.map(|l| spec_of_link(&with_version(l))).transpose()?.unwrap_or_default();
    spec.data = upload_ref(path, &bytes);
    // The link must open: the file loads and the setup fits it.
    let bench = load_data(&spec, Some(path), &Sources { shared_dir: Path::new("."), cache: crate::fetch::cache_dir(None) })?;
    spec.resolve(&bench)?;
    println!("{base}?{}", to_query(&spec));
    Ok(())
}

fn list_methods() {
    for kind in [RunKind::Full, RunKind::Race] {
        println!(
            "{}",
            if kind == RunKind::Full {
                "full evaluations (methods=… in a link):"
            } else {
                "multi-fidelity race (race=BUDGET in a link):"
            }
        );
        for m in of_kind(kind) {
            println!("  {:<14} {:<8} {}", m.name, format!("{:?}", m.cost).to_lowercase(), m.summary);
            println!("  {:<14} {:<8} {}", "", "", m.paper);
        }
    }
}

fn generate(name: &str, out: &Path) -> CliResult<()> {
    match (name, bundled_csv(name)) {
        (_, Some(csv)) => std::fs::write(out, csv)?,
        ("messy-curves", None) => std::fs::write(out, hpo_playground::engine::fixtures::messy_curves_csv().0)?,
        // The exploding family's reference: the same runs, none exploded.
        ("exploding-clean", None) => std::fs::write(out, hpo_playground::engine::exploding_curves::exploding_csv(false))?,
        _ => {
            return Err(
                format!("unknown bundled benchmark '{name}'; available: {}, messy-curves, exploding-clean", BUNDLED.join(", ")).into()
            )
        }
    }
    println!("wrote {}", out.display());
    Ok(())
}

/// Table 2 of the copula paper for this run: mean improvement over RS per method (averaged
/// over tasks) and the average rank over tasks.
fn print_table2(bench: &Benchmark, resolved: &hpo_playground::engine::spec::ResolvedSpec, traces: &[Trace]) {
    let methods: Vec<&str> = resolved.methods.iter().filter(|m| !m.is_baseline()).map(|m| m.name).collect();
    let rs_name = baseline(RunKind::Full).name;
    let mut scores = Vec::new();
    for &t in &resolved.tasks {
        let task = &bench.tasks[t].name;
        let Some(rs) = mean_dtm_curve(traces, bench, resolved.objective, resolved.direction, rs_name, task) else { continue };
        scores.push(
            methods
                .iter()
                .map(|m| {
                    mean_dtm_curve(traces, bench, resolved.objective, resolved.direction, m, task)
                        .map_or(f64::NAN, |c| improvement_over_rs(&rs, &c))
                })
                .collect::<Vec<f64>>(),
        );
    }
    let ranks = average_ranks(&scores);
    println!("improvement over RS (Table 2), {} tasks:", scores.len());
    for (k, m) in methods.iter().enumerate() {
        let mean = scores.iter().map(|r| r[k]).sum::<f64>() / scores.len().max(1) as f64;
        println!("  {m:<10} {mean:>7.3} (average rank {:.2})", ranks[k]);
    }
    for m in resolved.methods.iter().filter(|m| m.transfer().prior().is_some()).map(|m| m.name) {
        let effects = prior_effects(traces, bench, resolved.objective, resolved.direction, m);
        if effects.is_empty() {
            continue;
        }
        println!("{m}: improvement over RS per task, sorted by the prior's RMSE on the task (Fig. 4):");
        for e in effects {
            println!("  {:<24} RMSE {:>6.3}  improvement {:>7.3}", e.task, e.rmse, e.improvement);
        }
    }
}

/// The part of a link that a single job's trace depends on: the link without its method list
/// and seed range (a job's own method and seed name its cache file).
fn cache_key(spec: &ExperimentSpec) -> String {
    to_query(&ExperimentSpec { methods: Vec::new(), seeds: 0, first_seed: 0, ..spec.clone() })
}

/// FNV-1a of this executable's bytes (0 if it cannot be read): run caches are keyed by it, so
/// a rebuilt binary (changed code) never reuses another build's traces.
pub fn build_fingerprint() -> u64 {
    std::env::current_exe().and_then(std::fs::read).map(|b| fnv1a(&b)).unwrap_or(0)
}
