//! The page's reactive state. Components read and write these signals; everything they
//! compute goes through the engine.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;

use hpo_protocol::EncodedBenchmark;

use crate::app::platform::store::KeptFile;
use crate::app::platform::workers::WorkerService;
use hpo_engine::benchmark::Benchmark;
use hpo_engine::eta::{Estimate, Running, TimeLeft};
use hpo_engine::kept::ExperimentRecord;
use hpo_engine::loaders::notes::Note;
use hpo_engine::results::race_summary::RaceSummary;
use hpo_engine::setup::SetupMessage;
use hpo_engine::spec::{ExperimentSpec, ResolvedSpec};
use hpo_engine::trace::{JobProgress, Trace};
use hpo_engine::transfer::{Learned, LearnedStore};
use hpo_engine::warping::OutputWarp;

/// Severity of a message shown at the top of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Something failed; the user must act.
    Error,
    /// Something was ignored or replaced by a default.
    Warning,
    /// For information.
    Info,
}

/// What a message is about, so that it goes when that thing is replaced or ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// Stays until dismissed.
    General,
    /// The loaded data: goes when other data is loaded.
    Data,
    /// A run's state ("restored 45 of 60 jobs"): goes when a run starts or finishes.
    Run,
}

/// A message shown in the page: one line, and the details behind it on demand.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Unique id (for dismissing).
    pub id: u32,
    /// Severity.
    pub level: Level,
    /// Text.
    pub text: String,
    /// Notes shown in full in the banner, below its line (those a reader must not miss).
    pub shown: Vec<String>,
    /// Each note the line sums up (shown when the reader opens it).
    pub details: Vec<String>,
    /// What it is about.
    pub topic: Topic,
}

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

/// A CSV waiting for the user to say what its columns are.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleEditor {
    /// File name.
    pub file: String,
    /// Why roles are needed.
    pub message: String,
    /// Column names.
    pub headers: Vec<String>,
    /// First rows.
    pub preview: Vec<Vec<String>>,
    /// Role per column: ignore, hp, cat, min, max, task, step, run, runstep.
    pub roles: Vec<String>,
    /// Why the last "Load with these roles" failed, shown beside its button.
    pub error: Option<String>,
}

/// The loaded data and what was read or learned from it.
#[derive(Clone, Copy)]
pub struct DataState {
    /// The loaded benchmark.
    pub bench: RwSignal<Option<Arc<Benchmark>>>,
    /// One line describing the loaded data.
    pub info: RwSignal<String>,
    /// Data is being loaded.
    pub loading: RwSignal<bool>,
    /// Files from ../shared/benchmarks served beside the app.
    pub shared_files: RwSignal<Vec<String>>,
    /// The link names an uploaded file that has not been provided yet: (name, sha256).
    pub pending_upload: RwSignal<Option<(String, String)>>,
    /// The column-role editor, when a generic CSV is being loaded.
    pub role_editor: RwSignal<Option<RoleEditor>>,
    /// Priors and SGPT's means learned so far on the loaded data (by runs and the prior view).
    pub learned: RwSignal<LearnedStore>,
    /// The loaded data had missing or non-finite values repaired (as the task's worst value,
    /// which depends on the direction).
    pub repaired: RwSignal<bool>,
    /// The loaded benchmark's bytes as the parser encoded them, with the benchmark they are.
    pub encoded: StoredValue<Option<(Arc<Benchmark>, EncodedBenchmark)>>,
}

impl DataState {
    fn new() -> Self {
        DataState {
            bench: RwSignal::new(None),
            info: RwSignal::new(String::new()),
            loading: RwSignal::new(false),
            shared_files: RwSignal::new(Vec::new()),
            pending_upload: RwSignal::new(None),
            role_editor: RwSignal::new(None),
            learned: RwSignal::new(LearnedStore::default()),
            repaired: RwSignal::new(false),
            encoded: StoredValue::new(None),
        }
    }

    /// What a run's workers receive for `bench`: the parser's bytes when `bench` is the data
    /// they were parsed into, else `bench` encoded here, once for the whole run.
    pub fn encoded_for(&self, bench: &Arc<Benchmark>) -> Result<EncodedBenchmark, String> {
        let parsed = self.encoded.with_value(|e| e.as_ref().filter(|(b, _)| Arc::ptr_eq(b, bench)).map(|(_, e)| e.clone()));
        parsed.map_or_else(|| EncodedBenchmark::encode(bench), Ok)
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
    fn new() -> Self {
        RunState {
            status: RwSignal::new(RunStatus::default()),
            traces: RwSignal::new(Vec::new()),
            setup: RwSignal::new(None),
            best_task: RwSignal::new(String::new()),
            record: RwSignal::new(None),
            opened_race: RwSignal::new(None),
        }
    }
}

/// The page's state, shared through context: the setup, the messages, and the data, run, kept
/// and worker parts (each a `Copy` handle of its own, provided as a context too, so that a
/// component can take only the part it uses).
#[derive(Clone, Copy)]
pub struct AppState {
    /// The setup (mirrored in the URL).
    pub spec: RwSignal<ExperimentSpec>,
    /// Messages shown at the top.
    pub messages: RwSignal<Vec<Message>>,
    /// Counter for message ids.
    pub next_message: RwSignal<u32>,
    /// The loaded data.
    pub data: DataState,
    /// The current or last run.
    pub run: RunState,
    /// What this browser keeps: files and past experiments (refreshed after each change).
    pub kept: RwSignal<Kept>,
    /// The page's Web Workers and what is in flight with them.
    pub workers: WorkerService,
    /// "none" was pressed under Tasks and no task has been chosen since: every box is
    /// unchecked and Run waits. (The setup itself cannot hold no task: none there means all.)
    pub no_tasks: RwSignal<bool>,
}

/// What the browser keeps for the page (see [`crate::app::platform::store`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    /// Files, newest first.
    pub files: Vec<KeptFile>,
    /// Experiments, most recently saved first.
    pub experiments: Vec<ExperimentRecord>,
    /// Bytes used and available to the page, as the browser estimates them.
    pub usage: Option<(f64, f64)>,
    /// Why the list could not be read, if it could not.
    pub error: Option<String>,
}

impl AppState {
    /// Fresh state for `spec`.
    pub fn new(spec: ExperimentSpec) -> Self {
        AppState {
            spec: RwSignal::new(spec),
            messages: RwSignal::new(Vec::new()),
            next_message: RwSignal::new(0),
            data: DataState::new(),
            run: RunState::new(),
            kept: RwSignal::new(Kept::default()),
            workers: WorkerService::new(),
            no_tasks: RwSignal::new(false),
        }
    }

    /// Provides the state and each of its parts as contexts.
    pub fn provide(self) {
        provide_context(self);
        provide_context(self.data);
        provide_context(self.run);
        provide_context(self.workers);
    }

    /// Shows a message.
    pub fn say(&self, level: Level, text: impl Into<String>) {
        self.say_about(Topic::General, level, text, Vec::new());
    }

    /// Shows a message about `topic` with `details` behind it.
    pub fn say_about(&self, topic: Topic, level: Level, text: impl Into<String>, details: Vec<String>) {
        let id = self.next_message.get_untracked();
        self.next_message.set(id + 1);
        let text = text.into();
        self.messages.update(|m| m.push(Message { id, level, text, shown: Vec::new(), details, topic }));
    }

    /// Removes the messages about `topic` (its thing was replaced or has ended).
    pub fn forget(&self, topic: Topic) {
        self.messages.update(|m| m.retain(|x| x.topic != topic));
    }

    /// What the loader noted about `file` (log scales chosen, points repaired, …) as one
    /// warning that sums the notes up, each note behind it; the notes of the data it replaces
    /// go. The notes that change what the data means stand in the banner itself: the
    /// direction taken for a study whose file does not say it, and a journal cut off mid-line
    /// with the trials read up to the cut.
    pub fn say_data_notes(&self, notes: Vec<Note>) {
        self.forget(Topic::Data);
        let Some(line) = hpo_engine::loaders::notes::summary(&notes) else { return };
        let must_read = |n: &&Note| matches!(n, Note::DirectionAssumed { .. } | Note::CutOff { .. });
        let (shown, details) = match notes.len() {
            // A single note is the line itself.
            1 => (Vec::new(), Vec::new()),
            _ => (notes.iter().filter(must_read).map(ToString::to_string).collect(), notes.iter().map(ToString::to_string).collect()),
        };
        let id = self.next_message.get_untracked();
        self.next_message.set(id + 1);
        self.messages.update(|m| m.push(Message { id, level: Level::Warning, text: line, shown, details, topic: Topic::Data }));
    }

    /// Shows what a setup edit had to say: warnings first, then information.
    pub fn tell(&self, messages: impl IntoIterator<Item = SetupMessage>) {
        self.tell_about(Topic::General, messages);
    }

    /// [`Self::tell`] on `topic`: what setting up on new data said goes with that data
    /// (`Topic::Data`), as its loader's notes do.
    pub fn tell_about(&self, topic: Topic, messages: impl IntoIterator<Item = SetupMessage>) {
        let (warnings, infos): (Vec<_>, Vec<_>) = messages.into_iter().partition(|m| matches!(m, SetupMessage::Warning(_)));
        for m in warnings.into_iter().chain(infos) {
            let level = if matches!(m, SetupMessage::Warning(_)) { Level::Warning } else { Level::Info };
            self.say_about(topic, level, m.text().to_string(), Vec::new());
        }
    }

    /// Keeps what a run or the prior view learned on `bench`, if `bench` is still the loaded
    /// data: a result that arrives after other data was loaded would only evict what was
    /// learned on the new data.
    pub fn keep_learned(&self, bench: &Arc<Benchmark>, resolved: &ResolvedSpec, target: usize, warp: OutputWarp, learned: Learned) {
        if self.data.bench.with_untracked(|b| b.as_ref().is_some_and(|b| Arc::ptr_eq(b, bench))) {
            self.data.learned.update(|s| s.insert(bench, resolved, target, warp, learned));
        }
    }

    /// Removes the messages of one level (e.g. errors solved by a new action).
    pub fn clear(&self, level: Level) {
        self.messages.update(|m| m.retain(|x| x.level != level));
    }
}
