//! The setup form (what to run) and the run controls (progress, cancel, link).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::browser::{copy_to_clipboard, hardware_concurrency, link_for, now_ms};
use super::pool::{self, RunSink};
use super::state::{AppState, Level, RunStatus, Topic};
use hpo_engine::axis::count;
use hpo_engine::benchmark::{Benchmark, Direction};
use hpo_engine::eta::{Estimate, TimeLeft};
use hpo_engine::fidelity::targets::RaceTargets;
use hpo_engine::kept::{experiment_id, new_record};
use hpo_engine::method_entry::RunKind;
use hpo_engine::permalink::to_query;
use hpo_engine::runner::{JobProgress, Trace};
use hpo_engine::spec::{Job, RegretScale, ResolvedSpec, TransferMode, MAX_ITERATIONS, MAX_RACE_BUDGET, MAX_SEEDS};
use hpo_engine::transfer::{Learned, LearnedKind};
use hpo_engine::warping::OutputWarp;

fn parse_in<T: std::str::FromStr + PartialOrd>(s: &str, lo: T, hi: T) -> Option<T> {
    s.trim().parse::<T>().ok().filter(|v| *v >= lo && *v <= hi)
}

/// Objective, tasks, methods, seeds, iterations, transfer mode: one child component each.
/// Every edit is a method of the engine's `ExperimentSpec` (`engine/setup.rs`); these
/// components only wire inputs to them and show what they say.
#[component]
pub fn SetupPanel() -> impl IntoView {
    view! {
        <ModeSwitches/>
        <ObjectiveChooser/>
        <TaskChooser/>
        <MethodChooser/>
        <RunLength/>
    }
}

/// Whether the setup is a race, as a memo: views switched on it are rebuilt only when the
/// mode flips, not on every edit of the setup.
fn race_mode(spec: RwSignal<hpo_engine::spec::ExperimentSpec>) -> impl Fn() -> bool + Copy {
    let memo = Memo::new(move |_| spec.with(|s| s.run_kind() == RunKind::Race));
    move || memo.get()
}

/// Race on/off and one/several objectives.
#[component]
fn ModeSwitches() -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = state.spec;
    let multi = move || !spec.with(|s| s.objectives.is_empty());
    let race = race_mode(spec);
    // A race needs learning curves; switching keeps the methods that exist in the new mode.
    let set_race = move |on: bool| {
        let Some(b) = state.data.bench.get_untracked() else { return };
        let mut messages = Vec::new();
        spec.update(|s| messages = s.switch_race(&b, on));
        state.tell(messages);
    };
    // Switching modes keeps the methods that fit the new number of objectives.
    let set_multi = move |on: bool| {
        let Some(b) = state.data.bench.get_untracked() else { return };
        let mut messages = Vec::new();
        spec.update(|s| messages = s.switch_multi_objective(&b, on));
        state.tell(messages);
    };
    view! {
        <label class="check" title="Gray-box HPO on learning curves: train configurations a budget unit at a time (Wistuba et al. 2022)"
            class:disabled=move || state.data.bench.with(|b| b.as_ref().is_none_or(|b| b.curve_steps().is_none()))>
            <input id="race-mode" type="checkbox" prop:checked=race on:change=move |ev| set_race(event_target_checked(&ev))/>
            "Multi-fidelity race (DyHPO, Hyperband family; needs learning curves)"
        </label>
        <label class="check" title="Optimise two or more metrics jointly (Salinas et al. 2020, §5.2)" style:display=move || if race() { "none" } else { "" }>
            <input id="multi-objective" type="checkbox" prop:checked=multi on:change=move |ev| set_multi(event_target_checked(&ev))/>
            "Several objectives (Pareto front, hypervolume error)"
        </label>
    }
}

/// The objective and its direction, or the several objectives with theirs.
#[component]
fn ObjectiveChooser() -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = state.spec;
    let multi = move || !spec.with(|s| s.objectives.is_empty());
    let toggle_objective = move |name: String| {
        let mut message = None;
        spec.update(|s| message = s.toggle_objective(&name));
        state.tell(message);
    };
    view! {
        {move || (!multi()).then(|| view! {
            <div class="row">
                <label>"Objective "
                    <select id="objective" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        spec.update(|s| s.objective = if v.is_empty() { None } else { Some(v) });
                    }>
                        {move || state.data.bench.get().map(|b| {
                            let current = spec.get().objective.unwrap_or_else(|| b.metrics[b.objective].name.clone());
                            b.metrics.iter().map(|m| {
                                let selected = m.name == current;
                                view! { <option value=m.name.clone() selected=selected>{format!("{} ({})", m.name, m.direction.as_str())}</option> }
                            }).collect_view()
                        })}
                    </select>
                </label>
                <label>"Direction "
                    <select id="direction" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        spec.update(|s| s.direction = match v.as_str() { "min" => Some(Direction::Minimize), "max" => Some(Direction::Maximize), _ => None });
                        // Repaired values depend on which way is worse, which flips with the direction.
                        if state.data.repaired.get_untracked() && spec.with_untracked(|s| s.missing.depends_on_direction()) {
                            leptos::task::spawn_local(super::data::reload_current(state));
                        }
                    } prop:value=move || spec.get().direction.map(|d| d.as_str().to_string()).unwrap_or_default()>
                        <option value="">"metric's own"</option>
                        <option value="min">"minimise"</option>
                        <option value="max">"maximise"</option>
                    </select>
                </label>
            </div>
        })}
        {move || multi().then(|| view! {
            <fieldset id="objectives">
                <legend>"Objectives (two or more)"</legend>
                {move || state.data.bench.get().map(|b| {
                    let chosen = spec.get().objectives;
                    b.metrics.iter().map(|m| {
                        let name = m.name.clone();
                        let current = chosen.iter().find(|o| o.metric == name).cloned();
                        let (n1, n2) = (name.clone(), name.clone());
                        let own = m.direction.as_str();
                        view! {
                            <div>
                                <label class="check"><input type="checkbox" class="mo-metric" value=name.clone() prop:checked=current.is_some()
                                    on:change=move |_| toggle_objective(n1.clone())/>{name.clone()}</label>
                                <select class="mo-direction" disabled=current.is_none()
                                    prop:value=current.as_ref().and_then(|o| o.direction).map(|d| d.as_str().to_string()).unwrap_or_default()
                                    on:change=move |ev| {
                                        let v = event_target_value(&ev);
                                        let d = match v.as_str() { "min" => Some(Direction::Minimize), "max" => Some(Direction::Maximize), _ => None };
                                        spec.update(|s| if let Some(o) = s.objectives.iter_mut().find(|o| o.metric == n2) { o.direction = d; });
                                    }>
                                    <option value="">{format!("metric's own ({own})")}</option>
                                    <option value="min">"minimise"</option>
                                    <option value="max">"maximise"</option>
                                </select>
                            </div>
                        }
                    }).collect_view()
                })}
            </fieldset>
        })}
    }
}

/// The target tasks.
#[component]
fn TaskChooser() -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = state.spec;
    let task_names = move || state.data.bench.get().map(|b| b.tasks.iter().map(|t| t.name.clone()).collect::<Vec<_>>()).unwrap_or_default();
    let toggle_task = move |name: String| {
        let all = task_names();
        spec.update(|s| s.toggle_task(&name, &all));
    };
    view! {
        <fieldset id="tasks">
            <legend>"Tasks "
                <button class="small" id="tasks-all" on:click=move |_| spec.update(|s| s.tasks.clear())>"all"</button>
            </legend>
            {move || {
                let chosen = spec.get().tasks;
                task_names().into_iter().map(|t| {
                    let checked = chosen.is_empty() || chosen.contains(&t);
                    let name = t.clone();
                    view! {
                        <label class="check"><input type="checkbox" value=t.clone() prop:checked=checked on:change=move |_| toggle_task(name.clone())/>{t}</label>
                    }
                }).collect_view()
            }}
        </fieldset>
    }
}

/// The methods the registry offers for this mode and number of objectives.
#[component]
fn MethodChooser() -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = state.spec;
    let multi = move || !spec.with(|s| s.objectives.is_empty());
    let race = race_mode(spec);
    let method_box = move |name: &'static str, summary: &'static str| {
        view! {
            <label class="check chip" title=summary>
                <input type="checkbox" value=name prop:checked=move || spec.get().methods.iter().any(|x| x == name)
                    on:change=move |_| spec.update(|s| s.toggle_method(name))/>
                {name}
            </label>
        }
    };
    view! {
        // Every offered method in view at once (names; what each is on hover and in the list
        // under them), so that no checked method hides in a scroll box.
        <fieldset id="methods">
            <legend>"Methods"</legend>
            {move || {
                // Rebuilt when the mode or the number of objectives flips.
                let (_, _) = (race(), multi());
                spec.with_untracked(|s| s.offered_methods().map(|m| method_box(m.name, m.summary)).collect_view())
            }}
            <details id="methods-about">
                <summary>"what each method is"</summary>
                <dl>{move || {
                    let (_, _) = (race(), multi());
                    spec.with_untracked(|s| s.offered_methods().map(|m| view! { <dt>{m.name}</dt><dd>{m.summary}</dd> }).collect_view())
                }}</dl>
            </details>
        </fieldset>
    }
}

/// Seeds, run length (iterations or budget units) and the transfer protocol.
#[component]
fn RunLength() -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = state.spec;
    let race = race_mode(spec);
    let number_input = move |id: &'static str,
                             label: &'static str,
                             get: fn(&hpo_engine::spec::ExperimentSpec) -> String,
                             set: fn(&mut hpo_engine::spec::ExperimentSpec, &str) -> bool,
                             hint: String| {
        let invalid = RwSignal::new(false);
        view! {
            <label>{label}" "
                <input id=id type="number" class:invalid=move || invalid.get() title=hint.clone()
                    prop:value=move || get(&spec.get())
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        let mut ok = false;
                        spec.update(|s| ok = set(s, &v));
                        invalid.set(!ok);
                        if !ok { state.say(Level::Warning, format!("{label}: '{v}' is not valid ({hint}); kept the previous value")); }
                    }/>
            </label>
        }
    };
    view! {
        <div class="row">
            {number_input("seeds", "Seeds", |s| s.seeds.to_string(), |s, v| parse_in(v, 1, MAX_SEEDS).map(|n| s.seeds = n).is_some(), format!("1 to {MAX_SEEDS}"))}
            {number_input("first-seed", "First seed", |s| s.first_seed.to_string(), |s, v| parse_in(v, 0, u64::MAX).map(|n| s.first_seed = n).is_some(), "a non-negative integer".into())}
            {move || if race() {
                number_input("race-budget", "Budget units per run", |s| s.race_budget.map(|b| b.to_string()).unwrap_or_default(),
                    |s, v| parse_in(v, 1, MAX_RACE_BUDGET).map(|n| s.race_budget = Some(n)).is_some(),
                    format!("1 to {MAX_RACE_BUDGET}; one unit trains one configuration one step further")).into_any()
            } else {
                number_input("iters", "Iterations", |s| s.iterations.to_string(), |s, v| parse_in(v, 1, MAX_ITERATIONS).map(|n| s.iterations = n).is_some(), format!("1 to {MAX_ITERATIONS}")).into_any()
            }}
            <label style:display=move || if race() { "none" } else { "" }>"Transfer "
                <select id="transfer" prop:value=move || spec.get().transfer.as_str() on:change=move |ev| {
                    let v = event_target_value(&ev);
                    spec.update(|s| s.transfer = if v == "none" { TransferMode::None } else { TransferMode::LeaveOneTaskOut });
                }>
                    <option value="loto">"leave one task out"</option>
                    <option value="none">"none"</option>
                </select>
            </label>
            <label style:display=move || if race() { "" } else { "none" } title="Normalised: each task's regret divided by the regret of its median configuration (0 best, 1 median), so tasks with different scales weigh alike in the mean and no exploded run sets the scale. Automatic normalises when the tasks' ranges differ by more than 10×.">"Regret "
                <select id="regret-scale" prop:value=move || spec.get().regret.map_or("auto", RegretScale::as_str) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    spec.update(|s| s.regret = RegretScale::parse(&v));
                }>
                    <option value="auto">"automatic"</option>
                    <option value="raw">"metric units"</option>
                    <option value="norm">"normalised per task"</option>
                </select>
            </label>
            <label style:display=move || if race() { "" } else { "none" } title="What the surrogates of DyHPO, GPB and the GP baseline fit: the losses as observed (the papers' choice), or their Gaussian-copula transform ψ (Salinas et al. 2020), under which one exploded value cannot flatten the differences among the others. Rank-based methods (Hyperband, ASHA, BOHB, DEHB, RS) pick the same either way.">"Surrogates fit "
                <select id="race-targets" prop:value=move || spec.get().targets.as_str() on:change=move |ev| {
                    let v = event_target_value(&ev);
                    spec.update(|s| s.targets = RaceTargets::parse(&v).unwrap_or_default());
                }>
                    <option value="raw">"losses as observed"</option>
                    <option value="copula">"copula transform ψ"</option>
                </select>
            </label>
        </div>
    }
}

struct UiSink {
    state: AppState,
    /// The run's data and spec, under which what it learns is kept for later runs.
    bench: std::sync::Arc<Benchmark>,
    resolved: ResolvedSpec,
}

fn job_label(state: &AppState, job: &Job) -> String {
    let task = state.run.setup.with_untracked(|r| r.as_ref().map(|(_, b)| b.tasks[job.task].name.clone())).unwrap_or_default();
    format!("{} · {} · seed {}", job.method, task, job.seed)
}

/// Traces received are shown in batches (every `FLUSH_MS`) rather than once per job: charts
/// recompute over all traces.
const FLUSH_MS: i32 = 250;

fn flush_pending(state: AppState) {
    let batch = state
        .workers
        .pending
        .try_update_value(|p| {
            p.1 = false;
            std::mem::take(&mut p.0)
        })
        .unwrap_or_default();
    if !batch.is_empty() {
        super::kept::keep_traces(state, &batch);
        state.run.traces.update(|t| t.extend(batch));
    }
}

fn schedule_flush(state: AppState) {
    let already = state.workers.pending.try_update_value(|p| std::mem::replace(&mut p.1, true)).unwrap_or(true);
    if !already {
        let cb = wasm_bindgen::closure::Closure::once_into_js(move || flush_pending(state));
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), FLUSH_MS);
        }
    }
}

impl RunSink for UiSink {
    fn progress(&self, worker: usize, job: &Job, progress: JobProgress) {
        let label = job_label(&self.state, job);
        self.state.run.status.update(|r| {
            r.current.insert(worker, (label, progress));
        });
    }

    fn learned(&self, _worker: usize, target: usize, warp: OutputWarp, learned: &Learned) {
        self.state.keep_learned(&self.bench, &self.resolved, target, warp, learned.clone());
        self.state.run.status.update(|r| match learned.kind() {
            LearnedKind::Prior => r.priors_trained += 1,
            LearnedKind::OtherTaskMeans => r.means_computed += 1,
        });
    }

    fn finished(&self, worker: usize, job: &Job, result: Result<Trace, String>, seconds: f64) {
        let label = job_label(&self.state, job);
        match result {
            Ok(trace) => self.state.workers.pending.update_value(|p| p.0.push(trace)),
            Err(e) => {
                self.state.say(Level::Error, format!("{label}: {e}"));
                self.state.run.status.update(|r| {
                    r.failed_jobs += 1;
                    r.failed.push((job.clone(), e));
                });
            }
        }
        let last = self.state.run.status.with_untracked(|r| r.done_jobs + 1 == r.total_jobs);
        if last {
            flush_pending(self.state);
        } else {
            schedule_flush(self.state);
        }
        self.state.run.status.update(|r| {
            r.done_jobs += 1;
            r.time_left.finished(&job.method, seconds);
            if r.current.get(&worker).is_some_and(|c| c.0 == label) {
                r.current.remove(&worker);
            }
            if r.done_jobs == r.total_jobs {
                r.running = false;
                r.current.clear();
                r.ended_ms = Some(now_ms());
            }
        });
    }
}

fn start_run(state: AppState) {
    let Some(bench) = state.data.bench.get_untracked() else {
        state.say(Level::Error, "load a benchmark first");
        return;
    };
    let spec = state.spec.get_untracked();
    let resolved = match spec.resolve(&bench) {
        Ok(r) => r,
        Err(e) => {
            state.say(Level::Error, e.to_string());
            return;
        }
    };
    state.clear(Level::Error);
    super::kept::close_race_summary(state);
    let jobs = resolved.jobs();
    let first_task = bench.tasks[resolved.tasks[0]].name.clone();
    if !resolved.tasks.iter().any(|&t| bench.tasks[t].name == state.run.best_task.get_untracked()) {
        state.run.best_task.set(first_task);
    }
    state.workers.pending.update_value(|p| p.0.clear());
    state.run.traces.set(Vec::with_capacity(jobs.len()));
    super::kept::begin_run(state, new_record(&resolved, &bench, super::kept::epoch_ms()), true);
    run_jobs(state, bench, resolved, jobs, 0);
}

/// Runs the last run's jobs that have no trace — failed, cancelled, or not run before the
/// page was reloaded — keeping every trace it has.
fn run_rest(state: AppState) {
    let Some((resolved, bench)) = state.run.setup.get_untracked() else { return };
    flush_pending(state);
    let (finished, jobs) = resolved.split_finished(&bench, state.run.traces.get_untracked());
    if jobs.is_empty() {
        return;
    }
    state.clear(Level::Error);
    super::kept::close_race_summary(state);
    let record = state.run.record.get_untracked().map(|(r, _)| r).filter(|r| r.id == experiment_id(&resolved.spec));
    let record = record.unwrap_or_else(|| new_record(&resolved, &bench, super::kept::epoch_ms()));
    super::kept::begin_run(state, record, false);
    let done = finished.len();
    state.run.traces.set(finished);
    run_jobs(state, bench, resolved, jobs, done);
}

/// Jobs of the last run without a trace (0 while it runs).
fn missing_jobs(state: AppState) -> usize {
    let r = state.run.status.get();
    if r.running {
        return 0;
    }
    r.total_jobs.saturating_sub(state.run.traces.with(Vec::len))
}

/// Starts `jobs` of the run `resolved` on `bench`; `done_before` of the run's jobs are already
/// finished (and their traces shown), so progress counts from there.
fn run_jobs(state: AppState, bench: std::sync::Arc<Benchmark>, resolved: ResolvedSpec, jobs: Vec<Job>, done_before: usize) {
    let total = done_before + jobs.len();
    let resolved_units = resolved.mode.units();
    state.run.setup.set(Some((resolved.clone(), bench.clone())));
    let known = state.data.learned.with_untracked(|s| s.items(&bench, &resolved));
    let sink = Box::new(UiSink { state, bench: bench.clone(), resolved: resolved.clone() });
    let encoded = match state.data.encoded_for(&bench) {
        Ok(e) => e,
        Err(e) => {
            state.say(Level::Error, format!("the data could not be sent to the workers: {e}"));
            return;
        }
    };
    let time_left = TimeLeft::new(jobs.iter().map(|j| j.method.as_str()));
    // "Restored 45 of 60 jobs" is over once the rest runs: the status line counts from here.
    state.forget(Topic::Run);
    let (workers, reused) = pool::start(state.workers.run, (bench, encoded), resolved, jobs, hardware_concurrency(), known, sink);
    let reused_of = |kind: LearnedKind| reused.iter().filter(|key| key.2 == kind).count();
    state.run.status.set(RunStatus {
        priors_reused: reused_of(LearnedKind::Prior),
        means_reused: reused_of(LearnedKind::OtherTaskMeans),
        running: true,
        total_jobs: total,
        done_jobs: done_before,
        iterations: resolved_units,
        started_ms: now_ms(),
        workers,
        time_left,
        ..RunStatus::default()
    });
}

/// The nonzero counts with their singular or plural noun, joined: "3 priors trained and 1 set
/// of other-task GPs fitted" (empty when every count is 0).
fn counted(items: [(usize, &str, &str); 2]) -> String {
    let parts: Vec<String> =
        items.iter().filter(|(k, ..)| *k > 0).map(|&(k, one, many)| format!("{k} {}", if k == 1 { one } else { many })).collect();
    parts.join(" and ")
}

fn fmt_seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.0} min {:.0} s", (s / 60.0).floor(), s % 60.0)
    }
}

/// Run and cancel buttons, progress with ETA, and the permalink.
#[component]
pub fn RunPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let run = state.run.status;
    let link = Memo::new(move |_| link_for(&to_query(&state.spec.get())));
    let copied = RwSignal::new(false);
    let cancel = move |_| {
        pool::cancel(state.workers.run);
        flush_pending(state);
        run.update(|r| {
            r.running = false;
            r.cancelled = true;
            r.current.clear();
            r.ended_ms = Some(now_ms());
        });
    };
    let priors = move |r: &RunStatus| {
        let trained = counted([
            (r.priors_trained, "prior trained", "priors trained"),
            (r.means_computed, "set of other-task GPs fitted", "sets of other-task GPs fitted"),
        ]);
        let reused = counted([(r.priors_reused, "prior", "priors"), (r.means_reused, "set of other-task GPs", "sets of other-task GPs")]);
        let mut text = String::new();
        if !trained.is_empty() {
            text += &format!(" · {trained}, each shared by every job that needs it");
        }
        if !reused.is_empty() {
            text += &format!(" · {reused} reused from before (same data and objective)");
        }
        text
    };
    let status_text = move || {
        let r = run.get();
        if r.total_jobs == 0 {
            return "Not run yet.".to_string();
        }
        let elapsed = (r.ended_ms.unwrap_or_else(now_ms) - r.started_ms) / 1000.0;
        let f = r.fraction();
        if r.running {
            let left = match r.time_left.estimate(r.workers) {
                Estimate::Seconds(s) => format!("about {} left", fmt_seconds(s)),
                Estimate::NotKnownUntil(method) => format!("time left known once a {method} job has finished"),
                Estimate::Done => "finishing".into(),
            };
            format!(
                "{} of {} jobs done ({:.0}%) on {} · {} elapsed · {left}{}",
                r.done_jobs,
                r.total_jobs,
                f * 100.0,
                count(r.workers, "worker"),
                fmt_seconds(elapsed),
                priors(&r)
            )
        } else if r.cancelled {
            format!("Cancelled after {} of {} jobs ({}).", r.done_jobs, r.total_jobs, fmt_seconds(elapsed))
        } else if r.restored.is_some() {
            format!("Restored {} of {} kept in this browser.", r.done_jobs, count(r.total_jobs, "job"))
        } else {
            let evals = (r.done_jobs - r.failed_jobs) as f64 * r.iterations as f64;
            let unit = if state.run.setup.with_untracked(|s| s.as_ref().is_some_and(|(r, _)| r.mode.kind() == RunKind::Race)) {
                "budget units"
            } else {
                "evaluations"
            };
            format!(
                "Finished {} ({} {unit}) in {} on {}: {:.0} {unit}/s{}{}",
                count(r.total_jobs, "job"),
                evals,
                fmt_seconds(elapsed),
                count(r.workers, "worker"),
                evals / elapsed.max(1e-3),
                if r.failed_jobs > 0 { format!(", {} failed", r.failed_jobs) } else { String::new() },
                priors(&r)
            )
        }
    };
    view! {
        <div class="row">
            <button id="run" class="primary" on:click=move |_| start_run(state)
                disabled=move || run.get().running || state.data.bench.get().is_none() || state.data.loading.get()>"Run"</button>
            <button id="cancel" on:click=cancel disabled=move || !run.get().running>"Cancel"</button>
            // After a cancel or a reload the rest of the run is one click away; after a run whose
            // jobs failed (a crashed worker), those jobs are.
            <Show when=move || missing_jobs(state) != 0>
                {move || if run.with(|r| r.cancelled || r.restored.is_some() || r.failed.is_empty()) {
                    view! { <button id="run-rest" class="primary" on:click=move |_| run_rest(state)>
                        {format!("Run the remaining {}", count(missing_jobs(state), "job"))}
                    </button> }.into_any()
                } else {
                    view! { <button id="retry-failed" class="primary" on:click=move |_| run_rest(state)>
                        {format!("Retry {}", count(missing_jobs(state), "failed job"))}
                    </button> }.into_any()
                }}
            </Show>
            <span id="job-count">{move || {
                let s = state.spec.get();
                let tasks = if s.tasks.is_empty() { state.data.bench.get().map(|b| b.tasks.len()).unwrap_or(0) } else { s.tasks.len() };
                let each = match s.race_budget { Some(b) => format!("{b} budget units"), None => format!("{} iterations", s.iterations) };
                format!(
                    "{} × {} × {} = {} of {each}",
                    count(s.methods.len(), "method"),
                    count(tasks, "task"),
                    count(s.seeds as usize, "seed"),
                    count(s.methods.len() * tasks * s.seeds as usize, "job")
                )
            }}</span>
        </div>
        <progress id="progress" max="1" prop:value=move || run.get().fraction()></progress>
        <p id="run-status" data-running=move || run.get().running.to_string()>{status_text}</p>
        <ul id="current-jobs">
            {move || run.get().current.into_iter().map(|(w, (label, progress))| {
                let text = match progress {
                    JobProgress::Prior { step, total } => format!("training the prior on the other tasks, step {step}/{total}"),
                    JobProgress::Iterations(done) => format!("{done}/{} iterations", run.get_untracked().iterations),
                    JobProgress::Budget { spent, total } => format!("{spent}/{total} budget units"),
                };
                view! { <li>{format!("worker {}: {label} — {text}", w + 1)}</li> }
            }).collect_view()}
        </ul>
        <div class="row link-row">
            <label>"Link to this setup "
                <input id="permalink" readonly=true prop:value=move || link.get() on:focus=move |ev| {
                    let i: web_sys::HtmlInputElement = event_target(&ev);
                    i.select();
                }/>
            </label>
            <button id="copy-link" on:click=move |_| { copy_to_clipboard(&link.get_untracked()); copied.set(true); }>
                {move || if copied.get() { "Copied" } else { "Copy link" }}
            </button>
        </div>
    }
}
