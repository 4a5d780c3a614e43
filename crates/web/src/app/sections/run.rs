//! The Run section (3. on the page): the Run panel (jobs, progress, time left, Cancel, Retry failed) and the run
//! controller behind it, which starts a run's jobs on the worker pool, buffers what arrives and
//! hands it to `RunState` and the kept store.

use crate::app::platform::browser::{copy_to_clipboard, hardware_concurrency, link_for, now_ms};
use crate::app::platform::pool::{self, RunSink};
use crate::app::state::{AppState, Level, RunStatus, RunningJob, Topic};
use hpo_engine::axis::count;
use hpo_engine::benchmark::Benchmark;
use hpo_engine::eta::{Estimate, TimeLeft};
use hpo_engine::kept::{experiment_id, new_record};
use hpo_engine::method_entry::{RunKind, StepGrowth};
use hpo_engine::permalink::to_query;
use hpo_engine::spec::{Job, ResolvedSpec};
use hpo_engine::trace::{JobProgress, Trace};
use hpo_engine::transfer::{Learned, LearnedKind};
use hpo_engine::warping::OutputWarp;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

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
        crate::app::data::kept::keep_traces(state, &batch);
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
            // The same job goes on: it keeps its start.
            let now = now_ms();
            let started_ms = r.current.get(&worker).filter(|c| c.label == label).map_or(now, |c| c.started_ms);
            r.current.insert(worker, RunningJob { label, method: job.method.clone(), progress, started_ms, reported_ms: now });
        });
    }

    fn learned(&self, _worker: usize, target: usize, warp: OutputWarp, learned: &Learned) {
        self.state.data.keep_learned(&self.bench, &self.resolved, target, warp, learned.clone());
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
                self.state.messages.say(Level::Error, format!("{label}: {e}"));
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
            if r.current.get(&worker).is_some_and(|c| c.label == label) {
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
        state.messages.say(Level::Error, "load a benchmark first");
        return;
    };
    let spec = state.spec.get_untracked();
    let resolved = match spec.resolve(&bench) {
        Ok(r) => r,
        Err(e) => {
            state.messages.say(Level::Error, e.to_string());
            return;
        }
    };
    state.messages.clear(Level::Error);
    crate::app::data::kept::close_race_summary(state.run);
    let jobs = resolved.jobs();
    let first_task = bench.tasks[resolved.tasks[0]].name.clone();
    if !resolved.tasks.iter().any(|&t| bench.tasks[t].name == state.run.best_task.get_untracked()) {
        state.run.best_task.set(first_task);
    }
    state.workers.pending.update_value(|p| p.0.clear());
    state.run.traces.set(Vec::with_capacity(jobs.len()));
    crate::app::data::kept::begin_run(state, new_record(&resolved, &bench, crate::app::data::kept::epoch_ms()), true);
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
    state.messages.clear(Level::Error);
    crate::app::data::kept::close_race_summary(state.run);
    let record = state.run.record.get_untracked().map(|(r, _)| r).filter(|r| r.id == experiment_id(&resolved.spec));
    let record = record.unwrap_or_else(|| new_record(&resolved, &bench, crate::app::data::kept::epoch_ms()));
    crate::app::data::kept::begin_run(state, record, false);
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
            state.messages.say(Level::Error, format!("the data could not be sent to the workers: {e}"));
            return;
        }
    };
    let time_left =
        TimeLeft::new(jobs.iter().map(|j| (j.method.as_str(), resolved.entry(j).map_or(StepGrowth::Flat, |m| m.step_growth()))));
    // "Restored 45 of 60 jobs" is over once the rest runs: the status line counts from here.
    state.messages.forget(Topic::Run);
    let (workers, reused) = pool::start(state.workers.run, (bench, encoded), resolved, jobs, hardware_concurrency(), known, sink);
    let reused_of = |kind: LearnedKind| reused.iter().filter(|key| key.2 == kind).count();
    state.run.status.set(RunStatus {
        priors_reused: reused_of(LearnedKind::Prior),
        means_reused: reused_of(LearnedKind::OtherTaskMeans),
        running: true,
        total_jobs: total,
        done_jobs: done_before,
        kept_jobs: done_before,
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
pub fn RunPanel(
    /// The page's state: this panel starts loads and runs, which write all of it.
    state: AppState,
) -> impl IntoView {
    let run = state.run.status;
    let link = Memo::new(move |_| link_for(&to_query(&state.spec.get())));
    let copied = RwSignal::new(false);
    // Ticks every second while a run is on, so that the elapsed time and the time left move
    // between the workers' reports (a long iteration reports nothing for seconds).
    let clock = RwSignal::new(());
    let ticker = StoredValue::new_local(None::<IntervalHandle>);
    let stop_ticker = move || {
        if let Some(h) = ticker.get_value() {
            h.clear();
        }
        ticker.set_value(None);
    };
    let running = Memo::new(move |_| run.with(|r| r.running));
    Effect::new(move |_| {
        stop_ticker();
        if running.get() {
            if let Ok(h) = set_interval_with_handle(move || clock.set(()), std::time::Duration::from_secs(1)) {
                ticker.set_value(Some(h));
            }
        }
    });
    on_cleanup(stop_ticker);
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
        crate::app::data::kept::status_shown(state.run, r.kept_jobs);
        // Tracked so that the figures move every second between the workers' reports.
        clock.track();
        let now = now_ms();
        let elapsed = (r.ended_ms.unwrap_or(now) - r.started_ms) / 1000.0;
        if r.running || r.keeping() {
            let left = match r.estimate(now) {
                _ if !r.running => "keeping the last results in this browser".into(),
                Estimate::Seconds(s) => format!("about {} left ({:.0}% of the time done)", fmt_seconds(s), r.share_done(now) * 100.0),
                Estimate::NotKnownUntil(method) => format!("time left known after a few steps of {method}"),
                Estimate::Done => "finishing".into(),
            };
            // Counted once kept in this browser (a reload restores every job it counted).
            format!(
                "{} of {} jobs done on {} · {} elapsed · {left}{}",
                r.kept_jobs,
                r.total_jobs,
                count(r.workers, "worker"),
                fmt_seconds(elapsed),
                priors(&r)
            )
        } else if r.cancelled {
            format!("Cancelled after {} of {} jobs ({}).", r.kept_jobs, r.total_jobs, fmt_seconds(elapsed))
        } else if r.restored.is_some() {
            format!("Restored {} of {} kept in this browser.", r.kept_jobs, count(r.total_jobs, "job"))
        } else {
            // What the jobs spent, from their traces (a race ends early on a used-up table).
            let spent: u64 = state.run.traces.with(|t| t.iter().map(Trace::units_spent).sum());
            let unit = if state.run.setup.with_untracked(|s| s.as_ref().is_some_and(|(r, _)| r.mode.kind() == RunKind::Race)) {
                "budget unit"
            } else {
                "evaluation"
            };
            format!(
                "Finished {} ({}) in {} on {}: {:.0} {unit}s/s{}{}",
                count(r.total_jobs, "job"),
                count(spent as usize, unit),
                fmt_seconds(elapsed),
                count(r.workers, "worker"),
                spent as f64 / elapsed.max(1e-3),
                if r.failed_jobs > 0 { format!(", {} failed", r.failed_jobs) } else { String::new() },
                priors(&r)
            )
        }
    };
    view! {
        <div class="row">
            <button id="run" class="primary" on:click=move |_| start_run(state)
                disabled=move || run.get().running || run_blocked(state).is_some()>"Run"</button>
            {move || run_blocked(state).map(|why| view! { <span id="run-reason" class="hint">{why}</span> })}
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
            <span id="job-count" style:display=move || if run_blocked(state).is_some() { "none" } else { "" }>{move || {
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
        <progress id="progress" max="1" prop:value=move || {
            clock.track();
            run.with(|r| if r.running { r.share_done(now_ms()) } else { r.fraction() })
        }></progress>
        <p id="run-status" data-running=move || run.get().running.to_string()>{status_text}</p>
        <ul id="current-jobs">
            {move || run.get().current.into_iter().map(|(w, RunningJob { label, progress, .. })| {
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

/// Why Run cannot start now, in words beside the button; `None` when it can (a running run
/// disables it without a reason: Cancel is beside it).
fn run_blocked(state: AppState) -> Option<String> {
    if state.data.loading.get() {
        return Some("Run waits for the data to load.".into());
    }
    if let Some(editor) = state.data.role_editor.with(|e| e.as_ref().map(|e| e.file.clone())) {
        return Some(format!("Run waits for the column roles of {editor} (under 1. Data)."));
    }
    if let Some((name, _)) = state.data.pending_upload.get() {
        return Some(format!("Run waits for your file {name} (under 1. Data)."));
    }
    if state.data.bench.with(Option::is_none) {
        return Some("No data is loaded: choose data under 1. Data.".into());
    }
    state.no_tasks.get().then(|| "No task is chosen: tick one or more under Tasks (2. Setup).".to_string())
}
