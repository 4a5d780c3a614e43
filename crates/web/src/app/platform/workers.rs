//! The page's Web Workers and what is in flight with them, as one service held in the page's
//! context (inside [`crate::app::state::AppState`]): the worker that parses files and the parses
//! waiting for it, the prior view's trainer, the run's pool with its sink and the traces not
//! yet shown — and one request counter for all of them.
//!
//! Each part is its own local [`StoredValue`] (the workers' bridges are not `Send`), so the
//! parts are borrowed independently: a run's sink may add pending traces while the pool is
//! not borrowed, exactly as when they were separate thread-locals.

use std::collections::BTreeMap;

use futures_channel::oneshot;
use leptos::prelude::*;

use super::pool::RunWorkers;
use super::worker_host::{RequestIds, WorkerHandle};
use hpo_engine::gpb_experiments::design_view::DesignViewData;
use hpo_engine::lessons::LessonFrames;
use hpo_engine::loaders::upload::{LoadFailure, LoadedFile};
use hpo_engine::suggest::SuggestedFiles;
use hpo_engine::trace::Trace;
use hpo_protocol::{EncodedBenchmark, ExploredStudy, FromWorker, ToWorker};

/// What the loader worker answers: the parsed file with its benchmark's bytes as the parser
/// encoded them (what a run's workers receive), or why not; and the parse's milliseconds.
pub type ParseReply = (Result<(LoadedFile, EncodedBenchmark), LoadFailure>, f64);

/// Every worker of the page (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct WorkerService {
    ids: RequestIds,
    /// Parsing files.
    pub parser: ParserService,
    /// The prior view's training.
    pub trainer: TrainerService,
    /// The design view's worker (one for the page, so that a view opened again reuses it).
    pub designer: LatestWorker<Box<DesignViewData>>,
    /// The study's next trials.
    pub suggester: LatestWorker<Box<SuggestedFiles>>,
    /// The study's views.
    pub explorer: LatestWorker<Box<ExploredStudy>>,
    /// The run's pool, its spares and its sink.
    pub run: RunWorkers,
    /// Traces received but not shown yet, and whether a refresh is scheduled.
    pub pending: StoredValue<(Vec<Trace>, bool), LocalStorage>,
}

impl WorkerService {
    /// No worker yet: each is spawned when first needed.
    pub fn new() -> Self {
        let ids = RequestIds::new();
        WorkerService {
            ids,
            parser: ParserService::new(),
            trainer: TrainerService::new(),
            designer: LatestWorker::new(design_reply),
            suggester: LatestWorker::new(suggest_reply),
            explorer: LatestWorker::new(explore_reply),
            run: RunWorkers::new(ids),
            pending: StoredValue::new_local((Vec::new(), false)),
        }
    }

    /// A request id never used before in this page.
    pub fn next_request(&self) -> u32 {
        self.ids.next()
    }
}

impl Default for WorkerService {
    fn default() -> Self {
        Self::new()
    }
}

/// A reply a [`LatestWorker`] takes from a worker's message: the request it answers, its
/// result or why not, and the worker's milliseconds.
pub type Reply<R> = (u32, Result<R, String>, f64);

/// What a [`LatestWorker`] calls with the answer to the latest request.
type ReplyHandler<R> = std::rc::Rc<dyn Fn(Result<R, String>, f64)>;

/// A worker for one kind of request where only the latest matters (a lesson's frames, the
/// design view): an idle worker is reused, and a request made while another is in flight
/// terminates the busy worker and goes to a fresh one. `R` is what its replies carry; a crash
/// is answered as an error of the latest request.
pub struct LatestWorker<R: 'static> {
    bridge: StoredValue<Option<(WorkerHandle, bool)>, LocalStorage>,
    latest: StoredValue<u32, LocalStorage>,
    handler: StoredValue<Option<ReplyHandler<R>>, LocalStorage>,
    reply: fn(FromWorker) -> Option<Reply<R>>,
}

impl<R: 'static> Clone for LatestWorker<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: 'static> Copy for LatestWorker<R> {}

impl<R: 'static> LatestWorker<R> {
    /// No worker yet: it is spawned by the first request. `reply` picks this kind's replies
    /// out of the worker's messages.
    pub fn new(reply: fn(FromWorker) -> Option<Reply<R>>) -> Self {
        LatestWorker {
            bridge: StoredValue::new_local(None),
            latest: StoredValue::new_local(0),
            handler: StoredValue::new_local(None),
            reply,
        }
    }

    /// Sends `message` (carrying `request`); `on_reply` gets the answer if no later request
    /// was made.
    pub fn ask(&self, request: u32, message: ToWorker, on_reply: impl Fn(Result<R, String>, f64) + 'static) {
        self.latest.set_value(request);
        self.handler.set_value(Some(std::rc::Rc::new(on_reply)));
        let busy = self.bridge.with_value(|b| b.as_ref().is_none_or(|(_, busy)| *busy));
        if busy {
            let this = *self;
            let callback = move |msg: FromWorker| {
                let Some((id, result, ms)) = (this.reply)(msg) else { return };
                if this.latest.get_value() != id {
                    return;
                }
                this.bridge.update_value(|b| {
                    if let Some((_, busy)) = b {
                        *busy = false;
                    }
                });
                if let Some(handler) = this.handler.get_value() {
                    handler(result, ms);
                }
            };
            let on_crash = move |reason: String| {
                this.bridge.set_value(None);
                if let Some(handler) = this.handler.get_value() {
                    handler(Err(reason), 0.0);
                }
            };
            // The busy worker, if any, is dropped here and so terminated.
            self.bridge.set_value(WorkerHandle::spawn(callback, on_crash).ok().map(|w| (w, false)));
        }
        self.bridge.update_value(|b| {
            if let Some((worker, busy)) = b {
                worker.send(&message);
                *busy = true;
            }
        });
    }
}

impl<R: 'static> LatestWorker<R> {
    /// Nothing asked so far matters any more: what the caller wants is already shown (it asked
    /// for B, then went back to A, whose answer it holds). An answer still to come is dropped
    /// — else B's would replace A's for good, and the view would wait for A forever — and the
    /// worker computing it is stopped, so that the core is free.
    pub fn forget(&self) {
        // Request ids start at 1 (`RequestIds`): no answer carries 0.
        self.latest.set_value(0);
        self.handler.set_value(None);
        if self.bridge.with_value(|b| b.as_ref().is_some_and(|(_, busy)| *busy)) {
            self.bridge.set_value(None);
        }
    }
}

/// A lesson's frames, for a [`LatestWorker`].
pub fn lesson_reply(msg: FromWorker) -> Option<Reply<LessonFrames>> {
    match msg {
        FromWorker::LessonFrames { request, result, ms } => Some((request, result.map(|f| *f), ms)),
        _ => None,
    }
}

/// The design view's data, for a [`LatestWorker`].
pub fn design_reply(msg: FromWorker) -> Option<Reply<Box<DesignViewData>>> {
    match msg {
        FromWorker::Designed { request, result, ms } => Some((request, result, ms)),
        _ => None,
    }
}

/// A study's next trials, for a [`LatestWorker`].
pub fn suggest_reply(msg: FromWorker) -> Option<Reply<Box<SuggestedFiles>>> {
    match msg {
        FromWorker::Suggested { request, result, ms } => Some((request, result, ms)),
        _ => None,
    }
}

/// A study's views, for a [`LatestWorker`].
pub fn explore_reply(msg: FromWorker) -> Option<Reply<Box<ExploredStudy>>> {
    match msg {
        FromWorker::Explored { request, result, ms } => Some((request, result, ms)),
        _ => None,
    }
}

/// The file parser: one long-lived worker that answers every parse asked of it, each by its
/// request id (parses do not supersede each other: a link's file and an upload may both be
/// waiting). A parser that dies (a file too large for the tab's memory) fails every parse
/// waiting for it, in words; the next parse gets a fresh worker.
#[derive(Clone, Copy)]
pub struct ParserService {
    state: StoredValue<ParserState, LocalStorage>,
}

#[derive(Default)]
struct ParserState {
    worker: Option<WorkerHandle>,
    waiting: BTreeMap<u32, oneshot::Sender<ParseReply>>,
}

impl ParserService {
    fn new() -> Self {
        ParserService { state: StoredValue::new_local(ParserState::default()) }
    }

    /// Sends `message` (a `ToWorker::Parse` with id `request`) and waits for its answer.
    pub async fn ask(&self, request: u32, message: ToWorker) -> ParseReply {
        let state = self.state;
        let on_reply = move |msg: FromWorker| {
            if let FromWorker::Parsed { request, result, parse_ms } = msg {
                if let Some(tx) = state.try_update_value(|s| s.waiting.remove(&request)).flatten() {
                    let _ = tx.send((result.and_then(|parsed| parsed.decode().map_err(LoadFailure::Error)), parse_ms));
                }
            }
        };
        let on_crash = move |reason: String| {
            let waiting = state
                .try_update_value(|s| {
                    s.worker = None;
                    std::mem::take(&mut s.waiting)
                })
                .unwrap_or_default();
            for tx in waiting.into_values() {
                let _ = tx.send((Err(LoadFailure::Error(format!("the file could not be parsed: {reason}"))), 0.0));
            }
        };
        let (tx, rx) = oneshot::channel();
        state.update_value(|s| {
            s.waiting.insert(request, tx);
            if s.worker.is_none() {
                s.worker = WorkerHandle::spawn(on_reply, on_crash).ok();
            }
            match &s.worker {
                Some(worker) => worker.send(&message),
                None => drop(s.waiting.remove(&request)),
            }
        });
        rx.await.unwrap_or_else(|_| (Err(LoadFailure::Error("the file could not be parsed: no worker could be started".into())), 0.0))
    }
}

/// The prior view's trainer: a fresh worker per training, which reports its progress as it
/// goes; a new training or a cancel drops (and so terminates) the one before, so a training
/// never queues behind an abandoned one.
#[derive(Clone, Copy)]
pub struct TrainerService {
    worker: StoredValue<Option<WorkerHandle>, LocalStorage>,
}

impl TrainerService {
    fn new() -> Self {
        TrainerService { worker: StoredValue::new_local(None) }
    }

    /// Starts `message` on a fresh worker, whose messages go to `on_message` and whose death
    /// to `on_crash`; `Err` when no worker could be started.
    pub fn start(
        &self,
        message: &ToWorker,
        on_message: impl Fn(FromWorker) + 'static,
        on_crash: impl Fn(String) + 'static,
    ) -> Result<(), String> {
        let worker = WorkerHandle::spawn(on_message, on_crash).map_err(|_| "no worker could be started".to_string())?;
        worker.send(message);
        self.worker.set_value(Some(worker));
        Ok(())
    }

    /// Stops the training in progress, if any.
    pub fn cancel(&self) {
        self.worker.set_value(None);
    }
}
