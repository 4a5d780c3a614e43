//! The `hpo` command line: its arguments (clap) and which module each command runs; the
//! commands themselves live beside it, one module a command or family.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use hpo_playground::engine::benchmark::Direction;
use hpo_playground::engine::fidelity::gpb::design::Criterion;
use hpo_playground::engine::fidelity::gpb::model::BudgetKernel;
use hpo_playground::engine::fidelity::targets::RaceTargets;
use hpo_playground::engine::gpb_experiments::synthetic::Setting;
use hpo_playground::engine::loaders::clean::MissingPolicy;
use hpo_playground::engine::registry::markdown_table;
use hpo_playground::engine::spec::RegretScale;

use crate::common::{in_pool, set_threads, CliResult};
use crate::info::{generate, info, list_methods, print_link};
use crate::input::Sources;
use crate::run::run;

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
    /// The faithful DyHPO's step (warm-started fit + EI_MF over the open configurations) at
    /// each --observations size: the cold fit, then --next-steps more, on LCBench's task 0
    /// (the bundled curves without it). One `DYHPO-STEP` line per size.
    BenchDyhpoStep {
        /// Where LCBench's surrogate tables are.
        #[arg(long, default_value = "../shared/benchmarks/lcbench-surrogate")]
        lcbench_dir: PathBuf,
        /// Race sizes (observations) at which to time the steps (default 250,500,1000,2000).
        #[arg(long, value_delimiter = ',')]
        observations: Vec<usize>,
        /// Steps timed after the cold one at each size (default 10).
        #[arg(long)]
        next_steps: Option<usize>,
    },
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
    /// How long a worker waits on DyHPO's decision in an ask/tell session (each decision's
    /// fitting bounded) against the faithful DyHPO's steps, on the DyHPO protocol's LCBench
    /// jobs (the race's side read from the committed picks): decision times and regret.
    BenchDecisions {
        /// Where LCBench's surrogate tables are.
        #[arg(long, default_value = "../shared/benchmarks/lcbench-surrogate")]
        lcbench_dir: PathBuf,
        /// The protocol's committed DyHPO picks.
        #[arg(long, default_value = "results/lcbench-protocol/dyhpo.jsonl")]
        picks: PathBuf,
        /// LCBench tasks (indices).
        #[arg(long, value_delimiter = ',', default_value = "0")]
        tasks: Vec<usize>,
        /// Seeds (the protocol ran 0, 1, 2).
        #[arg(long, value_delimiter = ',', default_value = "0")]
        seeds: Vec<u64>,
        /// Epochs per run (the protocol's 1,000).
        #[arg(long, default_value_t = 1000)]
        epochs: u64,
    },
    /// Measure the speed of the GP, the prior and a GCP+prior seed on the shared tables.
    Bench {
        /// Where the shared tables are.
        #[arg(long, default_value = "../shared/benchmarks/quantile-transfer")]
        shared_dir: PathBuf,
    },
    /// The next trials of a study: a full-evaluation method's proposals over the study's own
    /// search space, written as suggestions.csv, enqueue.py and, for an Optuna JournalStorage
    /// file, the journal with them enqueued (journal.log); for an Optuna SQLite storage,
    /// enqueue.py adds them through Optuna (the database is never written here).
    Suggest {
        /// The study's file (an Optuna journal, plain, .gz or .zip, or SQLite storage).
        #[arg(long)]
        data: PathBuf,
        /// The study, when the file holds several.
        #[arg(long)]
        study: Option<String>,
        /// A full-evaluation method that learns from the study alone (GP, GCP, RS, …).
        #[arg(long, default_value = "GP")]
        method: String,
        /// How many configurations.
        #[arg(long, default_value_t = 5)]
        n: usize,
        /// The method's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
    },
    /// The views of a study a researcher opens first, one CSV each: trials.csv, history.csv,
    /// intermediate.csv, importance.csv (fANOVA, as Optuna's get_param_importances, with its
    /// spread over 8 forests and how often each order holds), slice.csv and contour.csv (a GP's mean ± 2 sd),
    /// parallel.csv, edf.csv and, for several objectives, pareto.csv.
    Explore {
        /// The file of trials (an Optuna journal or SQLite storage, a trials CSV, Ray Tune's or
        /// Syne Tune's results, any table of evaluations) or a bundled benchmark's name.
        #[arg(long)]
        data: PathBuf,
        /// The study (or the table's task), when the file holds several.
        #[arg(long)]
        study: Option<String>,
        /// The contour's two parameters, as A,B (default: the two most important).
        #[arg(long)]
        contour: Option<String>,
        /// The seed of the forest and of the surrogate's subsample.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
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
        /// with diverged curves, a step_0 column and hyperparameters spanning decades), or
        /// wide-curves (learning curves over 7 hyperparameters, as many as LCBench's).
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
        Command::Suggest { data, study, method, n, seed, out } => crate::suggest::run(&data, study.as_deref(), &method, n, seed, &out),
        Command::Explore { data, study, contour, seed, out } => {
            crate::explore::run(&data, study.as_deref(), contour.as_deref(), seed, &out)
        }
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
        Command::BenchDyhpoStep { lcbench_dir, observations, next_steps } => {
            Ok(in_pool(|| crate::dyhpo_step::run(&lcbench_dir, &observations, next_steps).map_err(|e| e.to_string()))?)
        }
        Command::BenchDecisions { lcbench_dir, picks, tasks, seeds, epochs } => {
            Ok(in_pool(|| crate::decisions::run(&lcbench_dir, &picks, &tasks, &seeds, epochs).map_err(|e| e.to_string()))?)
        }
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
