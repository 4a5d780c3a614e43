//! Nothing lost: the page keeps uploads and each finished job's trace in the browser
//! ([`crate::app::platform::store`]) and reads an experiment back when its link is opened again
//! (after a reload or a crashed tab; [`super::install`] shows it and what is missing). An opened race summary is kept
//! with the files and shown again after a reload. The panel that lists all this is
//! [`crate::app::sections::kept_panel`].

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::platform::store::{self, KeptFile};
use crate::app::state::{AppState, Kept, Level, Messages, RunState};
use hpo_engine::content_hash;
use hpo_engine::kept::ExperimentRecord;
use hpo_engine::results::race_summary::RaceSummary;
use hpo_engine::trace::Trace;

/// Milliseconds since 1970.
pub fn epoch_ms() -> f64 {
    js_sys::Date::now()
}

/// Reads the list of what is kept into the page's state.
pub async fn refresh(kept: RwSignal<Kept>) {
    let files = store::list_files().await;
    let experiments = store::list_experiments().await;
    let usage = store::usage().await;
    let error = files.as_ref().err().or(experiments.as_ref().err()).map(|e| e.to_string());
    kept.update(|k| {
        k.files = files.unwrap_or_default();
        k.experiments = experiments.unwrap_or_default();
        k.usage = usage;
        k.error = error;
    });
}

/// Keeps an uploaded (or downloaded) file under its hash; a failure is said in words, the
/// file stays loaded.
pub async fn keep_file(kept: RwSignal<Kept>, messages: Messages, name: String, sha256: String, url: Option<String>, bytes: &[u8]) {
    let file = KeptFile { name: name.clone(), sha256, size: bytes.len() as u64, url, saved_ms: epoch_ms() };
    if let Err(e) = store::put_file(&file, bytes).await {
        messages.say(Level::Warning, format!("{name} is used, but could not be kept in this browser for next time: {e}"));
    }
    refresh(kept).await;
}

/// Forgets a kept file (one kept while it was parsed that then failed to load).
pub async fn forget_file(kept: RwSignal<Kept>, sha256: &str) {
    let _ = store::delete_file(sha256).await;
    refresh(kept).await;
}

/// Starts keeping a run's traces under `record` (a fresh run first forgets what an earlier run
/// of the same setup kept; a resumed run goes on with the kept record).
pub fn begin_run(state: AppState, record: ExperimentRecord, fresh: bool) {
    state.run.record.set(Some((record.clone(), false)));
    if fresh {
        spawn_local(async move {
            let _ = store::delete_experiment(&record.id).await;
        });
    }
}

/// Traces shown but not yet written, under the record they belong to.
type Unwritten = Vec<(ExperimentRecord, Vec<Trace>)>;

thread_local! {
    /// What is waiting to be written, and whether a writer is draining it: batches that arrive
    /// while a transaction is open go into the next one, so a slow disk delays the writes by
    /// one transaction rather than queueing one transaction (and one list refresh) per batch,
    /// and a reload loses as little as possible.
    static UNWRITTEN: std::cell::RefCell<(Unwritten, bool)> = const { std::cell::RefCell::new((Vec::new(), false)) };
}

/// Keeps a batch of finished traces of the current run (called as they are shown).
pub fn keep_traces(state: AppState, batch: &[Trace]) {
    let Some((mut record, failed_before)) = state.run.record.get_untracked() else { return };
    record.done_jobs += batch.len();
    record.bytes += batch.iter().map(store::kept_size).sum::<u64>();
    record.saved_ms = epoch_ms();
    state.run.record.set(Some((record.clone(), failed_before)));
    let start_writer = UNWRITTEN.with_borrow_mut(|(pending, writing)| {
        match pending.last_mut() {
            // The record as it is now counts the traces written so far plus all pending ones.
            Some((r, traces)) if r.id == record.id => {
                *r = record;
                traces.extend_from_slice(batch);
            }
            _ => pending.push((record, batch.to_vec())),
        }
        !std::mem::replace(writing, true)
    });
    if start_writer {
        spawn_local(write_unwritten(state));
    }
}

/// Writes what is waiting; the run's status counts a batch once its transaction has
/// committed, so that the count never runs ahead of what is kept. The batch being written is
/// named in the tab's session first: a reload between the commit and the status showing the
/// new count takes it back (see [`take_back_unconfirmed`]). A batch that could not be kept is counted too (it
/// is shown), and the user told once. The kept panel is re-read after each.
async fn write_unwritten(state: AppState) {
    loop {
        let pending = UNWRITTEN.with_borrow_mut(|(pending, writing)| {
            *writing = !pending.is_empty();
            std::mem::take(pending)
        });
        if pending.is_empty() {
            break;
        }
        for (record, traces) in pending {
            let unconfirmed = Unconfirmed { id: record.id.clone(), jobs: traces.iter().map(JobKey::of).collect() };
            remember(UNCONFIRMED_KEY, serde_json::to_string(&unconfirmed).ok().as_deref());
            let written = store::put_traces(&record, &traces).await;
            let current = state.run.record.with_untracked(|r| r.as_ref().is_some_and(|(r, _)| r.id == record.id));
            if current {
                state.run.status.update(|r| r.kept_jobs += traces.len());
            }
            if let Err(e) = written {
                let first = state
                    .run
                    .record
                    .try_update(|r| r.as_mut().filter(|(r, _)| r.id == record.id).map(|(_, failed)| !std::mem::replace(failed, true)))
                    .flatten();
                if first == Some(true) {
                    state.messages.say(Level::Warning, format!("Finished jobs of this run could not be kept in this browser: {e}"));
                }
            }
            refresh(state.kept).await;
        }
    }
}

/// The experiment kept under `id`, if any: its record and its finished jobs' traces.
pub async fn read_experiment(id: &str) -> Result<Option<(ExperimentRecord, Vec<Trace>)>, store::StoreError> {
    store::get_experiment(id).await
}

/// The kept traces of experiment `id` without a batch written as the page went away, before
/// the status showed it counted: taken back (forgotten in the store), so that what is
/// restored is what the status last said (those jobs run again). Only when this page is not
/// writing itself (then the batch named is its own), and only when that batch is the whole
/// difference.
pub async fn take_back_unconfirmed(
    kept: RwSignal<Kept>,
    id: &str,
    mut record: ExperimentRecord,
    traces: Vec<Trace>,
) -> (ExperimentRecord, Vec<Trace>) {
    let unconfirmed: Option<Unconfirmed> = session_storage()
        .and_then(|s| s.get_item(UNCONFIRMED_KEY).ok().flatten())
        .and_then(|j| serde_json::from_str(&j).ok())
        .filter(|u: &Unconfirmed| u.id == id && !UNWRITTEN.with_borrow(|(_, writing)| *writing));
    let shown = session_storage()
        .and_then(|s| s.get_item(SHOWN_KEY).ok().flatten())
        .and_then(|v| v.split_once(' ').filter(|(_, of)| *of == id).and_then(|(n, _)| n.parse::<usize>().ok()));
    let (Some(u), Some(shown)) = (unconfirmed, shown.filter(|&n| traces.len() > n)) else { return (record, traces) };
    let (uncounted, counted): (Vec<Trace>, Vec<Trace>) = traces.into_iter().partition(|t| u.jobs.contains(&JobKey::of(t)));
    if counted.len() != shown {
        return (record, counted.into_iter().chain(uncounted).collect());
    }
    record.done_jobs = record.done_jobs.saturating_sub(uncounted.len());
    record.bytes = record.bytes.saturating_sub(uncounted.iter().map(store::kept_size).sum());
    let _ = store::forget_traces(&record, &uncounted).await;
    refresh(kept).await;
    (record, counted)
}

/// Which race summary this tab shows (its SHA-256), so that a reload shows it again. In
/// sessionStorage because, like the link in the address bar, it belongs to the tab: another
/// tab opened on a link shows that link's results.
const OPENED_RACE_KEY: &str = "hpo-playground.opened-race";

/// The batch of traces written last ([`Unconfirmed`]).
const UNCONFIRMED_KEY: &str = "hpo-playground.unconfirmed-traces";

/// The jobs the run's status line shows as done, and the experiment's id: "57 <id>".
const SHOWN_KEY: &str = "hpo-playground.shown-jobs";

/// Called as the status line is drawn, with the jobs it says are done: what a reload must
/// restore (written in the same turn as the line, so the two never disagree).
pub fn status_shown(run: RunState, done: usize) {
    thread_local! {
        static LAST: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let Some(id) = run.record.with_untracked(|r| r.as_ref().map(|(r, _)| r.id.clone())) else { return };
    let value = format!("{done} {id}");
    if LAST.with_borrow(|l| *l != value) {
        remember(SHOWN_KEY, Some(&value));
        LAST.set(value);
    }
}

/// The batch of an experiment's traces written last (named before its write begins), which
/// the status may not have shown counted yet. Kept in the tab's session, which a reload keeps,
/// and written synchronously.
#[derive(serde::Serialize, serde::Deserialize)]
struct Unconfirmed {
    id: String,
    jobs: Vec<JobKey>,
}

/// A job of an experiment: method, task, seed.
#[derive(serde::Serialize, serde::Deserialize, PartialEq)]
struct JobKey(String, String, u64);

impl JobKey {
    fn of(t: &Trace) -> Self {
        JobKey(t.method.clone(), t.task.clone(), t.seed)
    }
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// Sets (or, with `None`, removes) `key` in the tab's session. Without sessionStorage (some
/// private modes) nothing is remembered across a reload.
fn remember(key: &str, value: Option<&str>) {
    if let Some(s) = session_storage() {
        let _ = match value {
            Some(v) => s.set_item(key, v),
            None => s.remove_item(key),
        };
    }
}

/// Records which summary this tab shows (`None`: none): the summary is shown all the same
/// without sessionStorage, only not again after a reload.
fn remember_shown(sha256: Option<&str>) {
    remember(OPENED_RACE_KEY, sha256);
}

/// Shows a race summary (read from `bytes`) in place of the run's results, keeps the file in
/// the browser under its hash and remembers that this tab shows it.
pub fn show_race_summary(run: RunState, kept: RwSignal<Kept>, messages: Messages, name: String, bytes: Vec<u8>, summary: RaceSummary) {
    let sha256 = content_hash(&bytes);
    remember_shown(Some(&sha256));
    run.opened_race.set(Some((name.clone(), Arc::new(summary))));
    spawn_local(async move { keep_file(kept, messages, name, sha256, None, &bytes).await });
}

/// Back to the run's results; a reload no longer shows the summary (its file stays kept).
pub fn close_race_summary(run: RunState) {
    remember_shown(None);
    run.opened_race.set(None);
}

/// Opens a race summary kept in this browser under `sha256`. `Err` says why it cannot.
pub async fn open_kept_race_summary(run: RunState, sha256: &str) -> Result<(), String> {
    let (file, bytes) = match store::get_file(sha256).await {
        Ok(Some(kept)) => kept,
        Ok(None) => return Err("the file is no longer kept in this browser".into()),
        Err(e) => return Err(e.to_string()),
    };
    let summary = RaceSummary::from_json(&file.name, &bytes).map_err(|e| e.to_string())?;
    remember_shown(Some(sha256));
    run.opened_race.set(Some((file.name, Arc::new(summary))));
    Ok(())
}

/// At start: shows again the race summary this tab showed before a reload, if it did.
pub async fn reopen_race_summary(run: RunState, messages: Messages) {
    let Some(sha256) = session_storage().and_then(|s| s.get_item(OPENED_RACE_KEY).ok().flatten()) else { return };
    if let Err(e) = open_kept_race_summary(run, &sha256).await {
        close_race_summary(run);
        messages.say(Level::Warning, format!("The race results shown before the reload cannot be shown again: {e}"));
    }
}
