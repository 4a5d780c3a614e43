//! The rules that edit a setup, in one place: switching data, run mode and objectives,
//! picking methods, tasks and objectives, and reconciling a link with the data it opens on.
//! Each is a method on [`ExperimentSpec`] that returns what the user should be told; the
//! page and the CLI call them (as Leptos' todomvc calls its model's methods) and only show
//! the messages.

use super::benchmark::Benchmark;
use super::loaders::table::ColumnRoles;
use super::method_entry::{MethodEntry, MethodObjectives, RunKind, StepGrowth, MAX_OBJECTIVES};
use super::registry;
use super::spec::{default_race_budget, race_budget_for, DataRef, ExperimentSpec, ObjectiveChoice};

/// How much longer a race step takes in the page's workers (Chromium, wasm with simd128) than
/// natively on the same host, for the default race's plan (docs/benchmarks.md, "How long a
/// race takes").
const BROWSER_SLOWDOWN: f64 = 1.5;

/// The workers a default race is planned for: the two cores of the reference host.
const PLANNED_WORKERS: f64 = 2.0;

/// The longest a default race's slowest method may take on [`PLANNED_WORKERS`], so that the
/// whole race ends within two minutes (the other default methods' jobs take seconds, and the
/// plan's browser factor was measured between 1.1 and 2.2): past it, a cheaper method stands in
/// ([`registry::stand_in`]).
const FIRST_RACE_SECONDS: f64 = 90.0;

/// What an edit has to tell the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupMessage {
    /// Something asked for was ignored or replaced.
    Warning(String),
    /// For information: what changed and why.
    Info(String),
}

/// "about 14 min" or "about 50 s", for a plan's seconds.
fn about(seconds: f64) -> String {
    if seconds >= 90.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.0} s", seconds.max(1.0))
    }
}

impl SetupMessage {
    /// The text.
    pub fn text(&self) -> &str {
        match self {
            SetupMessage::Warning(t) | SetupMessage::Info(t) => t,
        }
    }
}

impl MethodObjectives {
    /// Whether a method of this kind runs with one (`multi` false) or several objectives.
    pub fn fits(self, multi: bool) -> bool {
        match self {
            MethodObjectives::Any => true,
            MethodObjectives::Single => !multi,
            MethodObjectives::Scalarized(_) | MethodObjectives::Pareto { .. } => multi,
        }
    }
}

impl ExperimentSpec {
    /// Switches to a race of `budget` units (`Some`) or back to full evaluations (`None`),
    /// keeping the methods that exist in the new mode (the defaults when none does) and
    /// dropping the multi-objective choice (races optimise one objective). Returns a message
    /// for every method dropped.
    pub fn set_race(&mut self, budget: Option<u64>) -> Vec<String> {
        self.race_budget = budget;
        let kind = self.run_kind();
        let known = |m: &str| registry::find(kind, m).is_some();
        let mut dropped = Vec::new();
        self.methods.retain(|m| {
            let ok = known(m);
            if !ok {
                dropped.push(format!("'{m}' does not run in this mode; removed"));
            }
            ok
        });
        let lone_baseline = self.methods.len() == 1 && self.methods[0] == registry::baseline(kind).name;
        if self.methods.is_empty() || (kind == RunKind::Race && lone_baseline) {
            self.methods = registry::defaults(kind).iter().map(|m| m.name.to_string()).collect();
        }
        if budget.is_some() {
            self.objectives.clear();
        }
        dropped
    }

    /// Turns the race on (with a budget of five full trainings) or off, if the data allows:
    /// a race needs learning curves.
    pub fn switch_race(&mut self, bench: &Benchmark, on: bool) -> Vec<SetupMessage> {
        let steps = bench.curve_steps();
        if on && steps.is_none() {
            return vec![SetupMessage::Warning(format!(
                "{} has no learning curves: a race needs a metric per budget step (columns e1..eN, or LCBench)",
                bench.name
            ))];
        }
        let mut messages: Vec<SetupMessage> =
            self.set_race(race_budget_for(bench).filter(|_| on && steps.is_some())).into_iter().map(SetupMessage::Info).collect();
        messages.extend(self.race_that_finishes(bench));
        messages
    }

    /// The wall seconds the race's jobs of `method` take in the page on the reference host's
    /// two workers (each job at most what its task's table holds; never less than its longest
    /// job, which runs on one worker), from the method's step growth; `None` for a method whose
    /// steps do not grow (its jobs take seconds).
    pub fn race_seconds(&self, bench: &Benchmark, method: &MethodEntry) -> Option<f64> {
        let budget = self.race_budget?;
        let growth = method.step_growth();
        if growth == StepGrowth::Flat {
            return None;
        }
        let tasks = bench.tasks.iter().filter(|t| self.tasks.is_empty() || self.tasks.contains(&t.name));
        let jobs: Vec<f64> =
            tasks.filter_map(|t| t.race_units()).map(|units| growth.through(units.min(budget)) * BROWSER_SLOWDOWN).collect();
        let longest = jobs.iter().copied().fold(0.0, f64::max);
        Some((jobs.iter().sum::<f64>() * f64::from(self.seeds) / PLANNED_WORKERS).max(longest))
    }

    /// Makes a fresh race one that finishes soon: a method whose jobs would take longer than
    /// [`FIRST_RACE_SECONDS`] on [`PLANNED_WORKERS`] gives way to its stand-in (the faithful
    /// DyHPO to "DyHPO (fast)"), with a sentence that says so and how to get it back.
    fn race_that_finishes(&mut self, bench: &Benchmark) -> Vec<SetupMessage> {
        let mut messages = Vec::new();
        for i in 0..self.methods.len() {
            let Some(method) = registry::find(RunKind::Race, &self.methods[i]) else { continue };
            let (Some(stand_in), Some(seconds)) = (registry::stand_in(method), self.race_seconds(bench, method)) else { continue };
            let wall = seconds;
            if wall <= FIRST_RACE_SECONDS || self.methods.iter().any(|m| m == stand_in.name) {
                continue;
            }
            let instead = self.race_seconds(bench, stand_in).map(|s| format!(" (about {})", about(s))).unwrap_or_default();
            messages.push(SetupMessage::Info(format!(
                "{} would take about {} on two cores ({} of up to {}, each step refitting its GP on every observation so far): \
                 the race runs {}{instead} instead, which is not the paper's method (docs/methods.md). Tick {} for the paper's.",
                method.name,
                about(wall),
                crate::axis::count(self.jobs_per_method(bench), "run"),
                crate::axis::count(self.longest_race(bench) as usize, "step"),
                stand_in.name,
                method.name,
            )));
            self.methods[i] = stand_in.name.to_string();
        }
        messages
    }

    /// "; its complete trials' curves hold 700 units: a method that trains them all stops
    /// there" when every chosen task's table holds less than `budget` (empty otherwise).
    fn table_note(&self, bench: &Benchmark, budget: u64) -> String {
        let units: Vec<u64> = bench.tasks.iter().filter_map(|t| t.race_units()).collect();
        match units.iter().max() {
            Some(&most) if most < budget => format!(
                "; {} curves hold {most} units in all, where a method that trains every configuration stops",
                if bench.tasks.iter().any(|t| t.history.is_some()) { "the complete trials'" } else { "the table's" }
            ),
            _ => String::new(),
        }
    }

    /// Jobs of each method in this setup: tasks chosen × seeds.
    fn jobs_per_method(&self, bench: &Benchmark) -> usize {
        let tasks = if self.tasks.is_empty() { bench.tasks.len() } else { self.tasks.len() };
        tasks * self.seeds as usize
    }

    /// The most steps a job of this race can take: the budget, or its largest task's table.
    fn longest_race(&self, bench: &Benchmark) -> u64 {
        let budget = self.race_budget.unwrap_or(0);
        bench.tasks.iter().filter_map(|t| t.race_units()).map(|u| u.min(budget)).max().unwrap_or(budget)
    }

    /// True when two or more objectives are chosen.
    pub fn is_multi_objective(&self) -> bool {
        !self.objectives.is_empty()
    }

    /// The methods the page offers for this setup: those of its kind of run that fit its
    /// number of objectives, in registry order.
    pub fn offered_methods(&self) -> impl Iterator<Item = &'static MethodEntry> {
        let multi = self.is_multi_objective();
        registry::of_kind(self.run_kind()).filter(move |m| m.objectives().fits(multi))
    }

    /// Adds or removes a method (the last one stays: a setup runs at least one).
    pub fn toggle_method(&mut self, name: &str) {
        if let Some(i) = self.methods.iter().position(|m| m == name) {
            if self.methods.len() > 1 {
                self.methods.remove(i);
            }
        } else {
            self.methods.push(name.to_string());
        }
    }

    /// Adds or removes a task of `all` (the last one stays); keeps the file's order and
    /// writes "all tasks" as an empty list (shorter links).
    pub fn toggle_task(&mut self, name: &str, all: &[String]) {
        let mut chosen: Vec<String> = if self.tasks.is_empty() { all.to_vec() } else { self.tasks.clone() };
        if let Some(i) = chosen.iter().position(|t| t == name) {
            if chosen.len() > 1 {
                chosen.remove(i);
            }
        } else {
            chosen.push(name.to_string());
        }
        chosen = all.iter().filter(|t| chosen.contains(t)).cloned().collect();
        self.tasks = if chosen.len() == all.len() { Vec::new() } else { chosen };
    }

    /// Switches between one objective and several: turning it on picks the current objective
    /// and a second metric (one named like a latency if there is one); the methods that do not
    /// fit the new number of objectives are dropped.
    pub fn switch_multi_objective(&mut self, bench: &Benchmark, on: bool) -> Vec<SetupMessage> {
        if on && bench.metrics.len() < 2 {
            return vec![SetupMessage::Warning(format!("{} has a single metric: there is nothing to trade off", bench.name))];
        }
        if on {
            let first = self
                .objective
                .clone()
                .filter(|o| bench.metric_index(o).is_some())
                .unwrap_or_else(|| bench.metrics[bench.objective].name.clone());
            let names = bench.metrics.iter().map(|m| m.name.clone());
            let second = names.clone().find(|n| *n != first && n.contains("latency")).or_else(|| names.clone().find(|n| *n != first));
            self.objectives = vec![
                ObjectiveChoice { metric: first, direction: self.direction },
                ObjectiveChoice { metric: second.unwrap_or_default(), direction: None },
            ];
        } else {
            self.objectives.clear();
        }
        self.reconcile_objectives(bench);
        Vec::new()
    }

    /// Adds or removes one of several objectives (at least two, at most [`MAX_OBJECTIVES`]).
    pub fn toggle_objective(&mut self, name: &str) -> Option<SetupMessage> {
        if let Some(i) = self.objectives.iter().position(|o| o.metric == name) {
            if self.objectives.len() > 2 {
                self.objectives.remove(i);
                return None;
            }
            return Some(SetupMessage::Info("a multi-objective setup needs two objectives: untick 'Several objectives' for one".into()));
        }
        if self.objectives.len() < MAX_OBJECTIVES {
            self.objectives.push(ObjectiveChoice { metric: name.to_string(), direction: None });
            return None;
        }
        Some(SetupMessage::Warning(format!("at most {MAX_OBJECTIVES} objectives")))
    }

    /// Points the setup at new data. A fresh choice of data (`keep_setup` false) resets tasks
    /// and objective and picks the mode the data is for (a race on learning curves); opening
    /// a link (`keep_setup` true) keeps what the link says and reconciles it with the data.
    pub fn change_data(&mut self, data: DataRef, bench: &Benchmark, keep_setup: bool, columns: Option<ColumnRoles>) -> Vec<SetupMessage> {
        let mut messages = Vec::new();
        self.data = data;
        self.columns = columns;
        let steps = bench.curve_steps();
        if !keep_setup {
            self.tasks.clear();
            self.objective = None;
            self.direction = None;
            // How a file is read belongs to that file.
            self.missing = Default::default();
            self.log_scale.clear();
            self.linear_scale.clear();
            // Learning curves are what races are for; a copula table cannot race.
            match (steps, self.race_budget) {
                (Some(n), None) => {
                    let budget = race_budget_for(bench).unwrap_or_else(|| default_race_budget(n));
                    self.set_race(Some(budget));
                    // Said when the study's own run, not five trainings, set the budget.
                    let whose = bench
                        .tasks
                        .iter()
                        .filter_map(|t| t.history.as_ref())
                        .find(|h| budget > default_race_budget(n) && h.spent() == budget)
                        .map(|h| format!(" of {budget} budget units, what {} spent,", h.line_name()))
                        .unwrap_or_default();
                    messages.push(SetupMessage::Info(format!(
                        "{} has learning curves: set up a multi-fidelity race{whose} (untick it to run the full-evaluation methods on the final values){}",
                        bench.name,
                        self.table_note(bench, budget)
                    )));
                    messages.extend(self.race_that_finishes(bench));
                }
                (None, Some(_)) => {
                    self.set_race(None);
                }
                _ => {}
            }
            // A study that records several directions is a multi-objective study: set up as one
            // (a race optimises one objective, so not when a race was set up).
            // Its methods: random search and the "+MO" variants that learn from the study
            // alone (the single-objective defaults would leave random search alone).
            if bench.joint_objectives && self.race_budget.is_none() {
                self.switch_multi_objective(bench, true);
                self.methods = registry::multi_objective_defaults().iter().map(|m| m.name.to_string()).collect();
                messages.push(SetupMessage::Info(format!(
                    "{} records {} directions: set up with several objectives and {} (untick 'Several objectives' for one)",
                    bench.name,
                    bench.metrics.len(),
                    self.methods.join(", ")
                )));
            }
            // A run picks among the task's configurations: no more iterations than the
            // smallest task has (a study of 40 trials runs 40, not the default 50).
            if let Some(fewest) = bench
                .tasks
                .iter()
                .map(|t| u32::try_from(t.len()).unwrap_or(u32::MAX))
                .min()
                .filter(|&n| self.race_budget.is_none() && n >= 1)
            {
                if self.iterations > fewest {
                    self.iterations = fewest;
                    messages.push(SetupMessage::Info(format!(
                        "{} has {}{}: {} per run",
                        bench.name,
                        crate::axis::count(fewest as usize, "configuration"),
                        if bench.tasks.len() > 1 { " on its smallest task" } else { "" },
                        crate::axis::count(fewest as usize, "iteration")
                    )));
                }
            }
        } else if steps.is_none() && self.race_budget.is_some() {
            messages.push(SetupMessage::Warning(format!(
                "{} has no learning curves: the link's race cannot run on it; switched to full evaluations",
                bench.name
            )));
            messages.extend(self.set_race(None).into_iter().map(SetupMessage::Warning));
        }
        if let Some(o) = &self.objective {
            if bench.metric_index(o).is_none() {
                messages.push(SetupMessage::Warning(format!(
                    "objective '{o}' is not a metric of {}; using {}",
                    bench.name, bench.metrics[bench.objective].name
                )));
                self.objective = None;
            }
        }
        messages.extend(self.reconcile(bench).into_iter().map(SetupMessage::Warning));
        messages.extend(self.reconcile_objectives(bench).into_iter().map(SetupMessage::Warning));
        messages
    }

    /// Drops the tasks the benchmark does not have and the methods that do not exist in this
    /// kind of run, with a message naming each; falls back to all tasks and random search
    /// when none remain.
    pub fn reconcile(&mut self, bench: &Benchmark) -> Vec<String> {
        let mut warnings = Vec::new();
        let before = self.tasks.len();
        self.tasks.retain(|t| {
            let ok = bench.task_index(t).is_some();
            if !ok {
                warnings.push(format!("task '{t}' is not in this benchmark; ignored"));
            }
            ok
        });
        if before > 0 && self.tasks.is_empty() {
            warnings.push("no valid task left; using all tasks".into());
        }
        let kind = self.run_kind();
        self.methods.retain(|m| {
            let ok = registry::find(kind, m).is_some();
            if !ok {
                warnings.push(format!("method '{m}' is unknown; ignored"));
            }
            ok
        });
        if self.methods.is_empty() {
            self.methods = vec![registry::baseline(kind).name.to_string()];
            warnings.push(format!("no valid method left; using {}", self.methods.join(", ")));
        }
        warnings
    }

    /// Keeps the objectives the benchmark has (a multi-objective setup with fewer than two
    /// left becomes single-objective) and the methods that fit the resulting number of
    /// objectives, with a message for everything dropped.
    pub fn reconcile_objectives(&mut self, bench: &Benchmark) -> Vec<String> {
        let mut warnings = Vec::new();
        self.objectives.retain(|o| {
            let ok = bench.metric_index(&o.metric).is_some();
            if !ok {
                warnings.push(format!("objective '{}' is not a metric of this benchmark; ignored", o.metric));
            }
            ok
        });
        if self.objectives.len() == 1 {
            warnings.push("fewer than two objectives left: single-objective setup".into());
            self.objectives.clear();
        }
        let multi = self.is_multi_objective();
        let kind = self.run_kind();
        self.methods.retain(|m| {
            let ok = registry::find(kind, m).is_none_or(|info| info.objectives().fits(multi));
            if !ok {
                let why = if multi { "optimises a single objective" } else { "needs several objectives" };
                warnings.push(format!("method '{m}' {why}; ignored"));
            }
            ok
        });
        if self.methods.is_empty() {
            self.methods = vec![registry::baseline(kind).name.to_string()];
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::{crossing_curves_family, quadratic_family, tradeoff_family};

    #[test]
    fn switching_race_mode_keeps_the_methods_that_exist_in_it() {
        let mut spec = ExperimentSpec { methods: vec!["RS".into(), "GCP+prior".into()], ..Default::default() };
        let dropped = spec.set_race(Some(200));
        assert_eq!(spec.race_budget, Some(200));
        assert_eq!(dropped.len(), 1);
        // A lone RS is no race: the defaults come in.
        assert_eq!(spec.methods, ["RS", "Hyperband", "ASHA", "BOHB", "DyHPO"]);
        // Methods that race are kept.
        let mut kept = ExperimentSpec { methods: vec!["ASHA".into(), "RS".into()], ..Default::default() };
        assert!(kept.set_race(Some(50)).is_empty());
        assert_eq!(kept.methods, vec!["ASHA", "RS"]);
        spec.methods.push("DyHPO (fast)".into());
        let dropped = spec.set_race(None);
        assert_eq!(spec.methods, vec!["RS"]);
        assert_eq!(dropped.len(), 5);
        assert_eq!(default_race_budget(40), 200);
    }

    #[test]
    fn a_race_against_a_studys_own_run_covers_what_the_study_spent() {
        use crate::benchmark::{RanTrial, StudyHistory};
        let mut bench = crossing_curves_family();
        let steps = bench.curve_steps().unwrap();
        // 80 trials, most pruned early: far more steps than five full trainings.
        let trials: Vec<RanTrial> =
            (0..80).map(|i| RanTrial { steps: if i % 3 == 0 { steps as u32 } else { 3 }, value: None, row: None }).collect();
        let history = StudyHistory { tool: "Optuna".into(), trials };
        let spent = history.spent();
        assert!(spent > default_race_budget(steps), "{spent}");
        bench.tasks[0].history = Some(history);
        let mut spec = ExperimentSpec::default();
        let messages = spec.change_data(DataRef::Bundled("curves".into()), &bench, false, None);
        assert_eq!(spec.race_budget, Some(spent));
        assert!(
            messages.iter().any(|m| m.text().contains(&format!("of {spent} budget units, what Optuna's own run spent"))),
            "{messages:?}"
        );
        // Without a history, five full trainings; ticking the race on again proposes the same.
        bench.tasks[0].history = None;
        assert_eq!(race_budget_for(&bench), Some(default_race_budget(steps)));
        let mut fresh = ExperimentSpec::default();
        fresh.change_data(DataRef::Bundled("curves".into()), &bench, false, None);
        assert_eq!(fresh.race_budget, Some(default_race_budget(steps)));
    }

    /// The study Optuna wrote with `tests/fixtures/studies/make.py`, read as the page reads it.
    fn study(file: &str, bytes: &[u8]) -> Benchmark {
        use crate::loaders::table::LoadOptions;
        use crate::loaders::upload::load_unpacked;
        let unpacked = crate::loaders::Unpacked::of(file, bytes).unwrap();
        load_unpacked(&unpacked, &LoadOptions { detect_scales: true, ..Default::default() }).ok().unwrap().benchmark
    }

    #[test]
    fn a_default_race_too_long_for_the_faithful_dyhpo_runs_its_stand_in_and_says_so() {
        // 80 trials, 35 complete with 20 steps: Optuna spent more than the 700 units the
        // complete trials hold; ten faithful runs of 700 steps take minutes.
        let bench = study("optuna-mlp-journal.log", include_bytes!("../../../tests/fixtures/studies/optuna-mlp-journal.log"));
        assert_eq!(bench.tasks[0].race_units(), Some(700));
        let mut spec = ExperimentSpec::default();
        let messages = spec.change_data(DataRef::Bundled("study".into()), &bench, false, None);
        let text: Vec<&str> = messages.iter().map(SetupMessage::text).collect();
        assert!(spec.race_budget.unwrap() > 700, "{spec:?}");
        assert_eq!(spec.methods, ["RS", "Hyperband", "ASHA", "BOHB", "DyHPO (fast)"]);
        assert!(text.iter().any(|t| t.contains("curves hold 700 units in all")), "{text:?}");
        let said = text.iter().find(|t| t.starts_with("DyHPO would take about")).unwrap_or_else(|| panic!("{text:?}"));
        assert!(said.contains("10 runs of up to 700 steps") && said.contains("runs DyHPO (fast) (about"), "{said}");
        // The plan: minutes for the faithful method, well under one for its stand-in.
        let faithful = spec.race_seconds(&bench, registry::find(RunKind::Race, "DyHPO").unwrap()).unwrap();
        let fast = spec.race_seconds(&bench, registry::find(RunKind::Race, "DyHPO (fast)").unwrap()).unwrap();
        assert!(faithful > 5.0 * FIRST_RACE_SECONDS && fast < FIRST_RACE_SECONDS, "{faithful} {fast}");
        assert_eq!(spec.race_seconds(&bench, registry::find(RunKind::Race, "ASHA").unwrap()), None);
        // Untick the race and tick it again: the same rule.
        spec.switch_race(&bench, false);
        let again = spec.switch_race(&bench, true);
        assert!(spec.methods.contains(&"DyHPO (fast)".to_string()) && !spec.methods.contains(&"DyHPO".to_string()), "{spec:?}");
        assert!(again.iter().any(|m| m.text().starts_with("DyHPO would take")), "{again:?}");
        // The bundled curves' default race (8 tasks × 10 seeds × 200 steps) is minutes of the
        // faithful method too; one task and seed of it is seconds, and keeps the paper's.
        let mut bundled = ExperimentSpec::default();
        bundled.change_data(DataRef::Bundled("curves".into()), &crossing_curves_family(), false, None);
        assert!(bundled.methods.contains(&"DyHPO (fast)".to_string()), "{bundled:?}");
        let mut small = ExperimentSpec { seeds: 1, ..Default::default() };
        small.change_data(DataRef::Bundled("curves".into()), &crossing_curves_family(), false, None);
        small.switch_race(&crossing_curves_family(), false);
        small.tasks = vec!["curves-00".into()];
        small.switch_race(&crossing_curves_family(), true);
        assert!(small.methods.contains(&"DyHPO".to_string()), "{small:?}");
    }

    #[test]
    fn objectives_reconcile_to_the_benchmark_and_methods_to_the_mode() {
        let bench = tradeoff_family();
        let choice = |m: &str| ObjectiveChoice { metric: m.into(), direction: None };
        let mut spec = ExperimentSpec {
            objectives: vec![choice("metric_error"), choice("metric_latency")],
            methods: vec!["RS".into(), "GCP".into(), "EHVI".into()],
            ..Default::default()
        };
        let w = spec.reconcile_objectives(&bench);
        assert_eq!(spec.methods, ["RS", "EHVI"]);
        assert!(w.len() == 1 && w[0].contains("'GCP' optimises a single objective"), "{w:?}");
        let w = spec.reconcile_objectives(&quadratic_family());
        assert!(spec.objectives.is_empty() && spec.methods == ["RS"], "{spec:?}");
        assert_eq!(w.len(), 3, "{w:?}");
    }

    #[test]
    fn reconcile_names_unknowns() {
        let bench = quadratic_family();
        let mut spec =
            ExperimentSpec { tasks: vec!["quadratic-01".into(), "nope".into()], methods: vec!["XX".into()], ..Default::default() };
        let w = spec.reconcile(&bench);
        assert_eq!(spec.tasks, vec!["quadratic-01".to_string()]);
        assert_eq!(spec.methods, vec!["RS".to_string()]);
        assert!(w[0].contains("'nope'") && w[1].contains("'XX'"), "{w:?}");
    }

    #[test]
    fn new_data_picks_its_mode_and_a_link_keeps_its_setup() {
        let curves = crossing_curves_family();
        let mut spec = ExperimentSpec { methods: vec!["GCP".into()], ..Default::default() };
        let m = spec.change_data(DataRef::Bundled("curves".into()), &curves, false, None);
        assert_eq!(spec.run_kind(), RunKind::Race);
        assert!(matches!(&m[0], SetupMessage::Info(t) if t.contains("learning curves")), "{m:?}");
        // A link asking for a race on data without curves runs full evaluations instead.
        let mut link = spec.clone();
        let m = link.change_data(DataRef::Bundled("quadratic".into()), &quadratic_family(), true, None);
        assert_eq!(link.run_kind(), RunKind::Full);
        assert!(m.iter().any(|m| m.text().contains("no learning curves")), "{m:?}");
        assert!(spec.switch_race(&quadratic_family(), true).iter().any(|m| matches!(m, SetupMessage::Warning(_))));
    }

    #[test]
    fn a_study_of_two_directions_opens_with_several_objectives() {
        let bytes = include_bytes!("../../../tests/fixtures/studies/optuna-two-objective.db");
        let bench = crate::loaders::upload::load_file("two.db", bytes, None).unwrap().benchmark;
        assert!(bench.joint_objectives);
        let mut spec = ExperimentSpec::default();
        let m = spec.change_data(DataRef::Bundled("two".into()), &bench, false, None);
        assert!(spec.is_multi_objective(), "{m:?}");
        assert!(m.iter().any(|m| m.text().contains("records 2 directions: set up with several objectives and RS, GP+MO, GCP+MO")), "{m:?}");
        // Its default run: random search and the +MO variants that learn from the study alone,
        // over its 40 trials (not the default 50 iterations), resolves with both objectives.
        assert_eq!(spec.methods, ["RS", "GP+MO", "GCP+MO"]);
        assert_eq!(spec.iterations, 40);
        assert!(m.iter().any(|m| m.text() == "two has 40 configurations: 40 iterations per run"), "{m:?}");
        let resolved = spec.resolve(&bench).unwrap();
        assert_eq!(resolved.objectives.len(), 2);
        assert!(resolved.methods.iter().all(|m| m.objectives().fits(true)));
        // One direction: one objective, as before.
        let mut one = ExperimentSpec::default();
        one.change_data(DataRef::Bundled("q".into()), &quadratic_family(), false, None);
        assert!(!one.is_multi_objective());
    }

    #[test]
    fn method_and_task_toggles_keep_one() {
        let mut spec = ExperimentSpec::default();
        spec.toggle_method("RS");
        assert_eq!(spec.methods, ["RS"]);
        spec.toggle_method("GCP");
        spec.toggle_method("RS");
        assert_eq!(spec.methods, ["GCP"]);
        let all: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        spec.toggle_task("b", &all);
        assert_eq!(spec.tasks, ["a", "c"]);
        spec.toggle_task("b", &all);
        assert!(spec.tasks.is_empty());
        assert!(spec.offered_methods().all(|m| m.run_kind() == RunKind::Full && m.objectives().fits(false)));
    }
}
