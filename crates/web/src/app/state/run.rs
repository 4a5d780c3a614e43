//! The current or last run: its progress, its traces and how its results are shown.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;

use hpo_engine::benchmark::Benchmark;
use hpo_engine::eta::{Estimate, Running, TimeLeft};
use hpo_engine::kept::ExperimentRecord;
use hpo_engine::results::race_summary::RaceSummary;
use hpo_engine::spec::ResolvedSpec;
use hpo_engine::trace::{JobProgress, Trace};

/// Progress of the current or last run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStatus {
    /// A run is in progress.
    pub running: bool,
    /// Jobs in the run.
    pub total_jobs: usize,
    /// Jobs finished (successfully or not).
    pub done_jobs: usize,
    /// Finished jobs whose traces are kept in this browser (written and committed), or shown
    /// without being kept when keeping failed: what the status counts, so that a reload
    /// restores exactly the jobs it last said were done.
    pub kept_jobs: usize,
    /// Jobs that failed.
    pub failed_jobs: usize,
    /// The jobs that failed, with why: "retry failed" runs them again.
    pub failed: Vec<(hpo_engine::spec::Job, String)>,
    /// Priors trained by the workers (each is then shared with the others).
    pub priors_trained: usize,
    /// Sets of SGPT's other-task GP means computed by the workers (shared likewise).
    pub means_computed: usize,
    /// Priors the run took from an earlier run or the prior view instead of training them.
    pub priors_reused: usize,
    /// Sets of SGPT's means the run took from an earlier run.
    pub means_reused: usize,
    /// Iterations per job (budget units for a race).
    pub iterations: u64,
    /// Per worker: the job it is running.
    pub current: BTreeMap<usize, RunningJob>,
    /// Start time (ms since page load).
    pub started_ms: f64,
    /// End time, once finished or cancelled.
    pub ended_ms: Option<f64>,
    /// Workers used.
    pub workers: usize,
    /// The run was cancelled.
    pub cancelled: bool,
    /// The time left, from the wall time of each method's finished jobs.
    pub time_left: TimeLeft,
    /// The finished jobs were restored from this browser (kept when they finished, at this
    /// time in ms since 1970), not run in this visit.
    pub restored: Option<f64>,
}

/// A job a worker is running.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningJob {
    /// "method · task · seed".
    pub label: String,
    /// Its method.
    pub method: String,
    /// How far it is.
    pub progress: JobProgress,
    /// When it started (ms since page load).
    pub started_ms: f64,
    /// When it last reported its progress (ms since page load).
    pub reported_ms: f64,
}

impl RunStatus {
    /// Steps done of the steps in all that `progress` stands for (0 of 0 while training a
    /// prior); a race's job counts to what it can spend ([`JobProgress::Budget`]'s total),
    /// other jobs to the run's iterations.
    pub fn job_steps(&self, progress: JobProgress) -> (u64, u64) {
        match progress {
            JobProgress::Iterations(n) => (u64::from(n), self.iterations),
            JobProgress::Budget { spent, total } => (spent, total),
            JobProgress::Prior { .. } => (0, 0),
        }
    }

    /// The fraction of one job's steps `progress` stands for, in [0, 1] (0 while training a prior).
    pub fn job_fraction(&self, progress: JobProgress) -> f64 {
        match self.job_steps(progress) {
            (_, 0) => 0.0,
            (done, total) => (done as f64 / total as f64).clamp(0.0, 1.0),
        }
    }

    /// The jobs running now as the time left reads them, at `now_ms`.
    pub fn running_jobs(&self, now_ms: f64) -> Vec<Running<'_>> {
        self.current
            .values()
            .map(|c| {
                let (done, total) = self.job_steps(c.progress);
                Running {
                    method: &c.method,
                    seconds: (now_ms - c.started_ms) / 1000.0,
                    done,
                    reported: (c.reported_ms - c.started_ms) / 1000.0,
                    total,
                }
            })
            .collect()
    }

    /// The time left at `now_ms`.
    pub fn estimate(&self, now_ms: f64) -> Estimate {
        self.time_left.estimate_running(self.workers, &self.running_jobs(now_ms))
    }

    /// The share of the run done at `now_ms`: of its time when the time left is known (what a
    /// progress bar should show: a race's last units take longest), else of its jobs' steps.
    pub fn share_done(&self, now_ms: f64) -> f64 {
        let elapsed = (now_ms - self.started_ms) / 1000.0;
        match self.estimate(now_ms) {
            Estimate::Seconds(left) if elapsed + left > 0.0 => elapsed / (elapsed + left),
            Estimate::Done => 1.0,
            _ => self.fraction(),
        }
    }

    /// Whether the run's workers are done but some finished traces are still being kept.
    pub fn keeping(&self) -> bool {
        !self.running && self.restored.is_none() && self.kept_jobs + self.failed_jobs < self.done_jobs
    }

    /// Fraction of all iterations done, in [0, 1].
    pub fn fraction(&self) -> f64 {
        if self.total_jobs == 0 || self.iterations == 0 {
            return 0.0;
        }
        let partial: f64 = self.current.values().map(|c| self.job_fraction(c.progress)).sum();
        ((self.done_jobs as f64 + partial) / self.total_jobs as f64).min(1.0)
    }
}

/// The current or last run and how its results are shown.
#[derive(Clone, Copy)]
pub struct RunState {
    /// Progress.
    pub status: RwSignal<RunStatus>,
    /// Traces.
    pub traces: RwSignal<Vec<Trace>>,
    /// Spec and data of the run (charts use these, not the edited setup).
    pub setup: RwSignal<Option<(ResolvedSpec, Arc<Benchmark>)>>,
    /// Task shown in the best-so-far chart.
    pub best_task: RwSignal<String>,
    /// The record under which the run's traces are kept, and whether keeping them failed
    /// already in this run (said once).
    pub record: RwSignal<Option<(ExperimentRecord, bool)>>,
    /// A race summary opened from a file (its name), shown instead of the last run's results
    /// until it is closed or a run starts.
    pub opened_race: RwSignal<Option<(String, Arc<RaceSummary>)>>,
}

impl RunState {
    pub(super) fn new() -> Self {
        RunState {
            status: RwSignal::new(RunStatus::default()),
            traces: RwSignal::new(Vec::new()),
            setup: RwSignal::new(None),
            best_task: RwSignal::new(String::new()),
            record: RwSignal::new(None),
            opened_race: RwSignal::new(None),
        }
    }

    /// Per method of the last run whose jobs are not all in, how many are: "3 of 10 runs so far"
    /// while it runs, "3 of 10 runs" after a cancel or a failure. The charts' legends say it, so
    /// that a line drawn before its method has finished is not read as its result.
    pub fn runs_so_far(self) -> Memo<BTreeMap<String, String>> {
        Memo::new(move |_| {
            let Some((resolved, _)) = self.setup.get() else { return BTreeMap::new() };
            let running = self.status.with(|r| r.running);
            let per_method = resolved.jobs().len() / resolved.spec.methods.len().max(1);
            self.traces.with(|traces| {
                resolved
                    .spec
                    .methods
                    .iter()
                    .filter_map(|m| {
                        let done = traces.iter().filter(|t| &t.method == m).count();
                        (done < per_method).then(|| {
                            let text = match (done, running) {
                                (0, true) => "running, no run finished yet".to_string(),
                                (_, true) => format!("{done} of {per_method} runs so far"),
                                (_, false) => format!("{done} of {per_method} runs"),
                            };
                            (m.clone(), text)
                        })
                    })
                    .collect()
            })
        })
    }
}
