//! Experiment specifications: what to run, on what, how often. Serde for files and the
//! worker protocol; [`crate::permalink`] for links.

use serde::{Deserialize, Serialize};

use super::benchmark::{Benchmark, Direction, StudyHistory};
pub use super::data_ref::{url_file_name, DataRef};
use super::error::{EngineError, Result};
use super::fidelity::targets::RaceTargets;
use super::loaders::clean::MissingPolicy;
use super::loaders::table::{ColumnRoles, LoadOptions};
use super::method_entry::{MethodEntry, MethodObjectives, RunKind, MAX_OBJECTIVES};
use super::registry;

/// Current spec and link version.
pub const SPEC_VERSION: u32 = 1;

/// How the other tasks' evaluations may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TransferMode {
    /// No transfer: each task is optimised on its own.
    None,
    /// Leave-one-task-out: transfer methods learn from every task but the target (the papers' protocol).
    LeaveOneTaskOut,
}

impl TransferMode {
    /// Short form used in links.
    pub fn as_str(self) -> &'static str {
        match self {
            TransferMode::None => "none",
            TransferMode::LeaveOneTaskOut => "loto",
        }
    }
}

/// How a race's regret is scaled before it is averaged over tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegretScale {
    /// In the metric's units.
    Raw,
    /// Per task, divided by the regret of the task's median configuration: 0 is the task's
    /// best configuration, 1 its median one, so that every task weighs alike in the mean and
    /// no exploded or diverged run sets the scale.
    Normalized,
}

impl RegretScale {
    /// Short form used in links and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            RegretScale::Raw => "raw",
            RegretScale::Normalized => "norm",
        }
    }

    /// From its short form.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "raw" => Some(RegretScale::Raw),
            "norm" => Some(RegretScale::Normalized),
            _ => None,
        }
    }

    /// The automatic choice for tasks whose regret ranges (best to worst configuration) are
    /// `ranges`: normalised when the largest is more than 10× the smallest.
    pub fn auto(ranges: &[f64]) -> Self {
        let positive: Vec<f64> = ranges.iter().copied().filter(|r| *r > 0.0 && r.is_finite()).collect();
        let (lo, hi) = positive.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        if positive.len() >= 2 && hi > 10.0 * lo {
            RegretScale::Normalized
        } else {
            RegretScale::Raw
        }
    }
}

/// One objective of a multi-objective run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectiveChoice {
    /// Metric name.
    pub metric: String,
    /// Direction override; `None` means the metric's own.
    pub direction: Option<Direction>,
}

/// A complete experiment setup. Together with the data it determines every trace exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentSpec {
    /// Format version ([`SPEC_VERSION`]).
    pub version: u32,
    /// The benchmark.
    pub data: DataRef,
    /// Objective metric; `None` means the benchmark's default.
    pub objective: Option<String>,
    /// Direction override; `None` means the metric's own.
    pub direction: Option<Direction>,
    /// Target tasks; empty means all.
    pub tasks: Vec<String>,
    /// Method names (see [`crate::registry::METHODS`]).
    pub methods: Vec<String>,
    /// Seeds `first_seed .. first_seed + seeds`.
    pub seeds: u32,
    /// First seed.
    pub first_seed: u64,
    /// Evaluations per run.
    pub iterations: u32,
    /// Transfer protocol.
    pub transfer: TransferMode,
    /// Column roles of a generic (non-copula) CSV upload; `None` for the copula format.
    #[serde(default)]
    pub columns: Option<ColumnRoles>,
    /// Two or more metrics optimised jointly (paper §5.2); empty for a single-objective run,
    /// which optimises `objective`. (Never `skip_serializing_if`: the workers' bincode codec
    /// is not self-describing, so every field must always be written.)
    #[serde(default)]
    pub objectives: Vec<ObjectiveChoice>,
    /// A multi-fidelity race (DyHPO and the Hyperband family) with this many budget units per
    /// run instead of `iterations` full evaluations; the data needs learning curves.
    #[serde(default)]
    pub race_budget: Option<u64>,
    /// The GPB design view's setting (paper 003 §3), when the link opens it.
    #[serde(default)]
    pub design_view: Option<crate::fidelity::gpb::view_setting::DesignViewSpec>,
    /// The result charts' y axes on a log scale (how the results are shown, kept in the link).
    #[serde(default)]
    pub log_y: bool,
    /// The view of the study the link opens (the study panel's view, study and parameters).
    #[serde(default)]
    pub explore: Option<crate::explore::link::StudyViewSpec>,
    /// How a race's regret is scaled; `None` chooses per run ([`RegretScale::auto`]).
    #[serde(default)]
    pub regret: Option<RegretScale>,
    /// What a race's surrogate models fit: the losses as observed, or their copula transform.
    #[serde(default)]
    pub targets: RaceTargets,
    /// What happens to missing or non-finite metric values and curve points.
    #[serde(default)]
    pub missing: MissingPolicy,
    /// Hyperparameters put on a log scale whatever their values.
    #[serde(default)]
    pub log_scale: Vec<String>,
    /// Hyperparameters kept linear whatever their values.
    #[serde(default)]
    pub linear_scale: Vec<String>,
}

impl Default for ExperimentSpec {
    fn default() -> Self {
        ExperimentSpec {
            version: SPEC_VERSION,
            data: DataRef::Bundled("quadratic".into()),
            objective: None,
            direction: None,
            tasks: Vec::new(),
            methods: vec![registry::baseline(RunKind::Full).name.into()],
            seeds: 10,
            first_seed: 0,
            iterations: 50,
            transfer: TransferMode::LeaveOneTaskOut,
            columns: None,
            objectives: Vec::new(),
            race_budget: None,
            design_view: None,
            explore: None,
            log_y: false,
            regret: None,
            missing: MissingPolicy::default(),
            targets: RaceTargets::default(),
            log_scale: Vec::new(),
            linear_scale: Vec::new(),
        }
    }
}

impl ExperimentSpec {
    /// The same experiment without how it is shown (the design view, log axes, the study's view): what its
    /// results depend on, so what keys them (kept traces, the CLI's run cache).
    pub fn without_view(&self) -> ExperimentSpec {
        ExperimentSpec { design_view: None, log_y: false, explore: None, ..self.clone() }
    }

    /// How the data is read for this spec: its column roles, missing-value policy and scales.
    /// Uploads and unpinned downloads get automatic log scales; the bundled and published
    /// tables keep their documented scales.
    pub fn load_options(&self) -> LoadOptions {
        let detect_scales = match &self.data {
            DataRef::Upload { .. } => true,
            DataRef::Url { sha256, .. } => super::public_data::pinned(sha256).is_none(),
            DataRef::Bundled(name) => super::bundled::read_as_upload(name),
            DataRef::Shared(_) => false,
        };
        LoadOptions {
            roles: self.columns.clone(),
            missing: self.missing,
            log: self.log_scale.clone(),
            linear: self.linear_scale.clone(),
            detect_scales,
            direction: self.direction,
            objective: self.objective.clone(),
        }
    }
}

/// Upper bounds that keep a tab responsive and a link from asking for the impossible.
pub const MAX_SEEDS: u32 = 1000;
/// Most iterations per run.
pub const MAX_ITERATIONS: u32 = 100_000;
/// Most budget units of a multi-fidelity run.
pub const MAX_RACE_BUDGET: u64 = 100_000;

/// How each run of an experiment spends its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// `iterations` full evaluations per run.
    Full {
        /// Evaluations per run.
        iterations: u32,
    },
    /// A multi-fidelity race of `budget` units per run.
    Race {
        /// Budget units per run.
        budget: u64,
    },
}

impl RunMode {
    /// The kind of run, which says which methods exist.
    pub fn kind(self) -> RunKind {
        match self {
            RunMode::Full { .. } => RunKind::Full,
            RunMode::Race { .. } => RunKind::Race,
        }
    }

    /// Units of progress of one run: iterations, or budget units.
    pub fn units(self) -> u64 {
        match self {
            RunMode::Full { iterations } => iterations as u64,
            RunMode::Race { budget } => budget,
        }
    }

    /// "20 iterations" or "200 budget units".
    pub fn describe(self) -> String {
        match self {
            RunMode::Full { iterations } => format!("{iterations} iteration{}", if iterations == 1 { "" } else { "s" }),
            RunMode::Race { budget } => format!("{budget} budget unit{}", if budget == 1 { "" } else { "s" }),
        }
    }
}

/// A spec checked against its benchmark (the linfa pattern: parameters → checked
/// parameters): names resolved to indices and registry entries, the run mode made explicit.
/// Built only by [`ExperimentSpec::resolve`]; the workers resolve the spec they are sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedSpec {
    /// The spec as given.
    pub spec: ExperimentSpec,
    /// Full evaluations or a race, with its length.
    pub mode: RunMode,
    /// The methods, in the spec's order.
    pub methods: Vec<&'static MethodEntry>,
    /// Objective metric index.
    pub objective: usize,
    /// Effective direction of the objective.
    pub direction: Direction,
    /// Target task indices.
    pub tasks: Vec<usize>,
    /// Every objective with its effective direction: one entry for single-objective runs
    /// (`objective`, `direction`), two or more for multi-objective runs.
    pub objectives: Vec<(usize, Direction)>,
}

/// One unit of work: a method on a task with a seed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Method name.
    pub method: String,
    /// Task index in the benchmark.
    pub task: usize,
    /// Seed.
    pub seed: u64,
}

/// Race budget proposed for curves of `steps` budget steps: five full trainings — enough for
/// the methods to separate, small enough for a first race in the browser to take about a
/// minute. (The paper's LCBench protocol, 1,000 epochs ≈ 19 full trainings, is one edit away.)
pub fn default_race_budget(steps: usize) -> u64 {
    (5 * steps.max(1) as u64).min(MAX_RACE_BUDGET)
}

/// The race budget a setup on `bench` proposes (`None` without learning curves): five full
/// trainings, or the most any of its studies spent when that is more, so that a race against
/// a study's own run covers the whole run (a pruned study spends far more than five trainings
/// in steps that never finish one).
pub fn race_budget_for(bench: &Benchmark) -> Option<u64> {
    let steps = bench.curve_steps()?;
    let spent = bench.tasks.iter().filter_map(|t| t.history.as_ref()).map(StudyHistory::spent).max().unwrap_or(0);
    Some(default_race_budget(steps).max(spent.min(MAX_RACE_BUDGET)))
}

impl ExperimentSpec {
    /// Full evaluations or a race, as the spec says.
    pub fn run_kind(&self) -> RunKind {
        if self.race_budget.is_some() {
            RunKind::Race
        } else {
            RunKind::Full
        }
    }

    /// Checks the spec against a benchmark.
    pub fn resolve(&self, bench: &Benchmark) -> Result<ResolvedSpec> {
        if self.version != SPEC_VERSION {
            return Err(EngineError::Spec(format!("version {} is not supported (this build reads version {SPEC_VERSION})", self.version)));
        }
        if self.methods.is_empty() {
            return Err(EngineError::Spec("choose at least one method".into()));
        }
        let objectives = self.resolve_objectives(bench)?;
        if let Some(budget) = self.race_budget {
            return self.resolve_race(bench, budget, objectives);
        }
        let multi = objectives.len() > 1;
        let methods = self.resolve_methods(RunKind::Full)?;
        for info in &methods {
            let m = info.name;
            if info.transfer().learns_from_other_tasks() && self.transfer != TransferMode::LeaveOneTaskOut {
                return Err(EngineError::Spec(format!("{m} learns from the other tasks: choose transfer 'leave one task out'")));
            }
            match info.objectives() {
                MethodObjectives::Any => {}
                MethodObjectives::Single if multi => {
                    return Err(EngineError::Spec(format!(
                        "{m} optimises one objective: with several objectives use a +MO variant, ParEGO or EHVI"
                    )))
                }
                MethodObjectives::Scalarized(_) | MethodObjectives::Pareto { .. } if !multi => {
                    return Err(EngineError::Spec(format!("{m} optimises several objectives: choose two or more objectives")))
                }
                MethodObjectives::Pareto { max_objectives } if objectives.len() > max_objectives => {
                    return Err(EngineError::Spec(format!(
                        "{m} handles at most {max_objectives} objectives, {} were chosen",
                        objectives.len()
                    )))
                }
                _ => {}
            }
        }
        if self.seeds == 0 || self.seeds > MAX_SEEDS {
            return Err(EngineError::Spec(format!("seeds must be between 1 and {MAX_SEEDS}, got {}", self.seeds)));
        }
        if self.iterations == 0 || self.iterations > MAX_ITERATIONS {
            return Err(EngineError::Spec(format!("iterations must be between 1 and {MAX_ITERATIONS}, got {}", self.iterations)));
        }
        let (objective, direction) = objectives[0];
        let tasks = self.resolve_tasks(bench)?;
        for &t in &tasks {
            let n = bench.tasks[t].len();
            if (self.iterations as usize) > n {
                return Err(EngineError::Spec(format!(
                    "task '{}' has only {n} configurations, fewer than the {} iterations asked for",
                    bench.tasks[t].name, self.iterations
                )));
            }
        }
        let mode = RunMode::Full { iterations: self.iterations };
        Ok(ResolvedSpec { spec: self.clone(), mode, methods, objective, direction, tasks, objectives })
    }

    fn resolve_methods(&self, kind: RunKind) -> Result<Vec<&'static MethodEntry>> {
        self.methods.iter().map(|m| registry::lookup(kind, m)).collect()
    }

    fn resolve_tasks(&self, bench: &Benchmark) -> Result<Vec<usize>> {
        if self.tasks.is_empty() {
            return Ok((0..bench.tasks.len()).collect());
        }
        self.tasks
            .iter()
            .map(|t| bench.task_index(t).ok_or_else(|| EngineError::Spec(format!("task '{t}' is not in {}", bench.name))))
            .collect()
    }

    /// A multi-fidelity race: multi-fidelity methods, one objective, curves on every task.
    fn resolve_race(&self, bench: &Benchmark, budget: u64, objectives: Vec<(usize, Direction)>) -> Result<ResolvedSpec> {
        if objectives.len() > 1 {
            return Err(EngineError::Spec("a multi-fidelity race optimises one objective".into()));
        }
        let methods = self.resolve_methods(RunKind::Race)?;
        if self.seeds == 0 || self.seeds > MAX_SEEDS {
            return Err(EngineError::Spec(format!("seeds must be between 1 and {MAX_SEEDS}, got {}", self.seeds)));
        }
        if budget == 0 || budget > MAX_RACE_BUDGET {
            return Err(EngineError::Spec(format!("the race budget must be between 1 and {MAX_RACE_BUDGET} units, got {budget}")));
        }
        let tasks = self.resolve_tasks(bench)?;
        for &t in &tasks {
            if bench.tasks[t].curves.is_none() {
                return Err(EngineError::Spec(format!(
                    "task '{}' has no learning curves: a race needs a metric per budget step (columns e1..eN)",
                    bench.tasks[t].name
                )));
            }
        }
        let (objective, direction) = objectives[0];
        let mode = RunMode::Race { budget };
        Ok(ResolvedSpec { spec: self.clone(), mode, methods, objective, direction, tasks, objectives })
    }

    /// The objectives with their effective directions: `objective` alone, or `objectives`.
    fn resolve_objectives(&self, bench: &Benchmark) -> Result<Vec<(usize, Direction)>> {
        let metric = |name: &str| {
            bench.metric_index(name).ok_or_else(|| EngineError::Spec(format!("objective '{name}' is not a metric of {}", bench.name)))
        };
        if self.objectives.is_empty() {
            let objective = match &self.objective {
                None => bench.objective,
                Some(name) => metric(name)?,
            };
            return Ok(vec![(objective, self.direction.unwrap_or(bench.metrics[objective].direction))]);
        }
        if self.objectives.len() < 2 || self.objectives.len() > MAX_OBJECTIVES {
            return Err(EngineError::Spec(format!(
                "a multi-objective run needs between 2 and {MAX_OBJECTIVES} objectives, got {}",
                self.objectives.len()
            )));
        }
        let mut out: Vec<(usize, Direction)> = Vec::new();
        for o in &self.objectives {
            let m = metric(&o.metric)?;
            if out.iter().any(|&(k, _)| k == m) {
                return Err(EngineError::Spec(format!("objective '{}' is listed twice", o.metric)));
            }
            out.push((m, o.direction.unwrap_or(bench.metrics[m].direction)));
        }
        Ok(out)
    }
}

impl ResolvedSpec {
    /// True when two or more objectives are optimised jointly.
    pub fn is_multi_objective(&self) -> bool {
        self.objectives.len() > 1
    }

    /// The registry entry of a job's method (jobs carry the name: it is what links, files and
    /// the workers' messages hold).
    pub fn entry(&self, job: &Job) -> Result<&'static MethodEntry> {
        self.methods
            .iter()
            .copied()
            .find(|m| m.name == job.method)
            .ok_or_else(|| EngineError::Spec(format!("method '{}' is not part of this experiment", job.method)))
    }

    /// The race budget, if this is a race.
    pub fn race_budget(&self) -> Option<u64> {
        match self.mode {
            RunMode::Race { budget } => Some(budget),
            RunMode::Full { .. } => None,
        }
    }

    /// The loss (smaller is better) of a value of the objective: sign × value.
    pub fn loss(&self, value: f64) -> f64 {
        self.direction.loss(value)
    }

    /// Every (method, task, seed) job, in a fixed order.
    pub fn jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::new();
        for m in &self.spec.methods {
            for &task in &self.tasks {
                for s in 0..self.spec.seeds as u64 {
                    jobs.push(Job { method: m.clone(), task, seed: self.spec.first_seed + s });
                }
            }
        }
        jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method_entry::TransferNeed;

    #[test]
    fn data_refs_round_trip_and_reject_tampering() {
        let h = "a".repeat(64);
        for s in [
            "bundled:quadratic",
            "shared:XGBoost.csv.zip",
            &format!("upload:my file.csv@{h}"),
            &format!("url:https://user@host.org/a/b%20c.csv.zip?x=1@{h}"),
            &format!("url:http://127.0.0.1:8080/XGBoost.csv.zip@{h}"),
        ] {
            assert_eq!(s.parse::<DataRef>().unwrap().to_string(), s);
        }
        for s in [
            "quadratic",
            "bundled:",
            "upload:x.csv@abc",
            "ftp:x",
            &format!("upload:@{h}"),
            &format!("url:ftp://host/f.csv@{h}"),
            &format!("url:https://host@{h}"),
            &format!("url:https://host/@{h}"),
            &format!("url:https:///f.csv@{h}"),
            &format!("url:https://host/a b.csv@{h}"),
            "url:https://host/f.csv@abc",
        ] {
            assert!(s.parse::<DataRef>().is_err(), "{s}");
        }
        let url: DataRef = format!("url:https://host.org/a/b%20c.csv.zip?x=1@{h}").parse().unwrap();
        assert_eq!(url.file_name(), "b c.csv.zip");
    }

    #[test]
    fn every_transfer_method_needs_leave_one_task_out_and_runs_with_it() {
        use crate::bundled::{quadratic_family, tradeoff_family};
        let transfer: Vec<_> = registry::of_kind(RunKind::Full).filter(|m| m.transfer().learns_from_other_tasks()).collect();
        assert_eq!(
            transfer.len(),
            14,
            "CTS, TS, GCP+prior, GP+prior, WS-GP, AutoGP, ABLR (2), SGPT (2) and the four +MO variants with a prior"
        );
        for m in transfer {
            let (bench, objectives) = match m.objectives() {
                MethodObjectives::Single => (quadratic_family(), Vec::new()),
                _ => (
                    tradeoff_family(),
                    ["metric_error", "metric_latency"].iter().map(|n| ObjectiveChoice { metric: n.to_string(), direction: None }).collect(),
                ),
            };
            let spec = ExperimentSpec { methods: vec![m.name.into()], transfer: TransferMode::None, objectives, ..Default::default() };
            let e = spec.resolve(&bench).unwrap_err().to_string();
            assert!(e.contains(&format!("{} learns from the other tasks", m.name)), "{e}");
            assert!(ExperimentSpec { transfer: TransferMode::LeaveOneTaskOut, ..spec }.resolve(&bench).is_ok(), "{}", m.name);
        }
        let bench = quadratic_family();
        let none =
            registry::of_kind(RunKind::Full).filter(|m| m.transfer() == TransferNeed::None && m.objectives() == MethodObjectives::Single);
        for m in none {
            let spec = ExperimentSpec { methods: vec![m.name.into()], transfer: TransferMode::None, ..Default::default() };
            assert!(spec.resolve(&bench).is_ok(), "{}", m.name);
        }
    }

    #[test]
    fn json_round_trip() {
        let spec = ExperimentSpec::default();
        let json = serde_json::to_string(&spec).unwrap();
        assert!(json.contains("\"bundled:quadratic\""), "{json}");
        assert_eq!(serde_json::from_str::<ExperimentSpec>(&json).unwrap(), spec);
    }
}
