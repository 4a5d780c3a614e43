//! The page's Web Workers and what is in flight with them, as one service held in the page's
//! context (inside [`super::state::AppState`]): the worker that parses files and the parses
//! waiting for it, the prior view's trainer, the run's pool with its sink and the traces not
//! yet shown — and one request counter for all of them.
//!
//! Each part is its own local [`StoredValue`] (the workers' bridges are not `Send`), so the
//! parts are borrowed independently: a run's sink may add pending traces while the pool is
//! not borrowed, exactly as when they were separate thread-locals.

use std::collections::BTreeMap;

use futures_channel::oneshot;
use gloo_worker::WorkerBridge;
use leptos::prelude::*;

use super::pool::{Pool, RunSink};
use super::worker::HpoWorker;
use crate::engine::loaders::upload::{LoadFailure, LoadedFile};
use crate::engine::runner::Trace;
use crate::engine::spec::DataRef;

/// What the loader worker answers: the parsed file or why not, and the parse's milliseconds.
pub type ParseReply = (Result<LoadedFile, LoadFailure>, f64);

/// The worker that parses files, and what waits for it.
#[derive(Default)]
pub struct Loader {
    /// Spawned on the first parse.
    pub bridge: Option<WorkerBridge<HpoWorker>>,
    /// Parses sent and not answered, by request id.
    pub waiting: BTreeMap<u32, oneshot::Sender<ParseReply>>,
    /// The last file that needed column roles: (reference, name, bytes).
    pub awaiting_roles: Option<(DataRef, String, Vec<u8>)>,
}

/// Every worker of the page (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct WorkerService {
    next_request: StoredValue<u32, LocalStorage>,
    /// Parsing files.
    pub loader: StoredValue<Loader, LocalStorage>,
    /// The prior view's training worker (dropped, and so stopped, by cancel).
    pub trainer: StoredValue<Option<WorkerBridge<HpoWorker>>, LocalStorage>,
    /// The design view's worker, and whether it is computing (a new request then goes to a
    /// fresh worker instead of queueing behind a stale one).
    pub designer: StoredValue<Option<(WorkerBridge<HpoWorker>, bool)>, LocalStorage>,
    /// The current run's worker pool.
    pub pool: StoredValue<Option<Pool>, LocalStorage>,
    /// Where the current run reports.
    pub sink: StoredValue<Option<Box<dyn RunSink>>, LocalStorage>,
    /// Traces received but not shown yet, and whether a refresh is scheduled.
    pub pending: StoredValue<(Vec<Trace>, bool), LocalStorage>,
}

impl WorkerService {
    /// No worker yet: each is spawned when first needed.
    pub fn new() -> Self {
        WorkerService {
            next_request: StoredValue::new_local(0),
            loader: StoredValue::new_local(Loader::default()),
            trainer: StoredValue::new_local(None),
            designer: StoredValue::new_local(None),
            pool: StoredValue::new_local(None),
            sink: StoredValue::new_local(None),
            pending: StoredValue::new_local((Vec::new(), false)),
        }
    }

    /// A request id never used before in this page.
    pub fn next_request(&self) -> u32 {
        self.next_request
            .try_update_value(|n| {
                *n += 1;
                *n
            })
            .unwrap_or_default()
    }
}

impl Default for WorkerService {
    fn default() -> Self {
        Self::new()
    }
}
