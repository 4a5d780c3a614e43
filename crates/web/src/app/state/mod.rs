//! The page's reactive state. Components read and write these signals; everything they
//! compute goes through the engine.

mod data;
mod run;

pub use data::{DataState, RoleEditor, UserFile, UserFiles};
pub use run::{RunState, RunStatus, RunningJob};

use leptos::prelude::*;

use crate::app::platform::store::KeptFile;
use crate::app::platform::workers::WorkerService;
use hpo_engine::kept::ExperimentRecord;
use hpo_engine::loaders::notes::Note;
use hpo_engine::setup::SetupMessage;
use hpo_engine::spec::ExperimentSpec;

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

/// The page's state: the setup, the messages, and the data, run, kept and worker parts, each a
/// `Copy` handle of its own. Only what starts a page-wide flow (a load, a run) holds it all; a
/// component is given the parts it reads.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The setup (mirrored in the URL).
    pub spec: RwSignal<ExperimentSpec>,
    /// Messages shown at the top.
    pub messages: Messages,
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
            messages: Messages::new(),
            data: DataState::new(),
            run: RunState::new(),
            kept: RwSignal::new(Kept::default()),
            workers: WorkerService::new(),
            no_tasks: RwSignal::new(false),
        }
    }

    /// Provides the parts a component deep in the page reads without its parent passing them:
    /// the messages (any chart's copy or download can fail) and the workers (a lesson's).
    pub fn provide(self) {
        provide_context(self.messages);
        provide_context(self.workers);
    }
}

/// The messages shown at the top of the page (a `Copy` handle: anything that can fail says so
/// through it).
#[derive(Clone, Copy)]
pub struct Messages {
    /// The messages shown (the list is all a dismissal edits).
    pub list: RwSignal<Vec<Message>>,
    /// Counter for message ids.
    next_id: RwSignal<u32>,
}

impl Messages {
    fn new() -> Self {
        Messages { list: RwSignal::new(Vec::new()), next_id: RwSignal::new(0) }
    }

    fn push(&self, level: Level, text: String, shown: Vec<String>, details: Vec<String>, topic: Topic) {
        let id = self.next_id.get_untracked();
        self.next_id.set(id + 1);
        self.list.update(|m| m.push(Message { id, level, text, shown, details, topic }));
    }

    /// Shows a message.
    pub fn say(&self, level: Level, text: impl Into<String>) {
        self.say_about(Topic::General, level, text, Vec::new());
    }

    /// Shows a message about `topic` with `details` behind it.
    pub fn say_about(&self, topic: Topic, level: Level, text: impl Into<String>, details: Vec<String>) {
        self.push(level, text.into(), Vec::new(), details, topic);
    }

    /// Removes the messages about `topic` (its thing was replaced or has ended).
    pub fn forget(&self, topic: Topic) {
        self.list.update(|m| m.retain(|x| x.topic != topic));
    }

    /// What the loader noted about `file` (log scales chosen, points repaired, …) as one
    /// warning that sums the notes up, each note behind it; the notes of the data it replaces
    /// go. The notes that change what the data means stand in the banner itself: the
    /// direction taken for a study whose file does not say it, and a journal cut off mid-line
    /// with the trials read up to the cut.
    pub fn say_data_notes(&self, notes: &[Note]) {
        self.forget(Topic::Data);
        let Some(line) = hpo_engine::loaders::notes::summary(notes) else { return };
        let must_read = |n: &&Note| matches!(n, Note::DirectionAssumed { .. } | Note::CutOff { .. });
        let (shown, details) = match notes.len() {
            // A single note is the line itself.
            1 => (Vec::new(), Vec::new()),
            _ => (notes.iter().filter(must_read).map(ToString::to_string).collect(), notes.iter().map(ToString::to_string).collect()),
        };
        self.push(Level::Warning, line, shown, details, Topic::Data);
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

    /// Removes the messages of one level (e.g. errors solved by a new action).
    pub fn clear(&self, level: Level) {
        self.list.update(|m| m.retain(|x| x.level != level));
    }
}
