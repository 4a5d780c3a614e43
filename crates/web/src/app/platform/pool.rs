//! A pool of Web Workers sized to `navigator.hardwareConcurrency`, fed one job at a time
//! per worker (plus one queued, so a worker never idles waiting for the page).
//!
//! Cancel terminates every worker at once (a job in the middle of a multi-second step stops
//! there) and starts fresh spares for the next run. A worker that dies on its own (a panic,
//! out of memory) fails the job it was running with the reason; the jobs queued behind it go
//! back to the queue, a fresh worker takes its place, and the run goes on.
//!
//! What transfer methods learn from the other tasks (priors, SGPT's means) is learned once
//! per run: a worker reports each item it learns, the pool passes it to the other workers, and
//! while one worker learns an item no other worker is given a job that needs it (it takes
//! other work, or waits: it would only learn the same thing again). Items learned before (an
//! earlier run or the prior view, on the same data and objective) are handed to every worker
//! with the data, so the run learns only what is new.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use leptos::prelude::{LocalStorage, SetValue, StoredValue, UpdateValue, WithValue};

use super::worker_host::{RequestIds, WorkerHandle};
use hpo_engine::benchmark::Benchmark;
use hpo_engine::method_entry::{CostClass, TransferNeed};
use hpo_engine::spec::{Job, ResolvedSpec};
use hpo_engine::trace::{JobProgress, Trace};
use hpo_engine::transfer::{Learned, LearnedKey, LearnedKind};
use hpo_engine::warping::OutputWarp;
use hpo_protocol::{EncodedBenchmark, FromWorker, InjectedFault, ToWorker};

/// What the pool reports back to the page.
pub trait RunSink {
    /// A job advanced.
    fn progress(&self, worker: usize, job: &Job, progress: JobProgress);
    /// A job finished, after `seconds` of wall time in its worker.
    fn finished(&self, worker: usize, job: &Job, result: Result<Trace, String>, seconds: f64);
    /// A worker learned a prior or SGPT's means for held-out task `target` and `warp` (shared
    /// with the others from then on).
    fn learned(&self, worker: usize, target: usize, warp: OutputWarp, learned: &Learned);
}

/// What a job learns from the other tasks and could share.
fn needs(resolved: &ResolvedSpec, job: &Job) -> Option<LearnedKey> {
    match resolved.entry(job).ok()?.transfer() {
        TransferNeed::Prior(warp) => Some((job.task, warp, LearnedKind::Prior)),
        TransferNeed::OtherTaskGps(warp) => Some((job.task, warp, LearnedKind::OtherTaskMeans)),
        _ => None,
    }
}

/// Jobs queued per worker: two for cheap methods (no idle gap between jobs), one when any
/// method fits a model (a job then takes seconds, and a cancelled run should not leave a
/// second expensive job queued in a worker that cannot be interrupted).
fn in_flight_per_worker(resolved: &ResolvedSpec) -> usize {
    if resolved.methods.iter().all(|m| m.cost == CostClass::Instant) {
        2
    } else {
        1
    }
}

/// A worker of the pool: its handle and the serial number its messages are tagged with (so a
/// message or crash of a worker that was replaced never counts for its successor).
pub struct PoolWorker {
    handle: WorkerHandle,
    serial: u32,
}

/// A run's workers and its queue (held by [`RunWorkers`]).
pub struct Pool {
    workers: Vec<PoolWorker>,
    /// The data every worker holds (kept alive, so the pointer comparison is sound).
    bench: Arc<Benchmark>,
    /// Its bytes, as each worker receives them (encoded once: by the parser, or at the start).
    encoded: EncodedBenchmark,
    /// The run's spec, checked against the data.
    resolved: ResolvedSpec,
    generation: u32,
    jobs: Vec<Job>,
    queue: VecDeque<u32>,
    /// Per worker, the ids of the jobs sent to it and not finished, in the order sent (the
    /// first is the one it is running).
    in_flight: Vec<VecDeque<u32>>,
    /// Task of the last job sent to each worker: a worker keeps to one task while it can.
    last_task: Vec<Option<usize>>,
    /// Jobs each worker may hold at once.
    per_worker: usize,
    /// What some worker has learned (and every worker has been sent), kept to hand to a
    /// worker that replaces a crashed one.
    learned: BTreeMap<LearnedKey, Learned>,
    /// What is being learned, and by which worker.
    learning: BTreeMap<LearnedKey, usize>,
}

impl Pool {
    /// True if job `k` of the queue needs what a worker other than `w` is learning.
    fn waits_for_another(&self, k: usize, w: usize) -> bool {
        needs(&self.resolved, &self.jobs[self.queue[k] as usize]).is_some_and(|key| self.learning.get(&key).is_some_and(|&o| o != w))
    }

    /// Gives every worker with room a job.
    fn dispatch_all(&mut self) {
        for w in 0..self.workers.len() {
            while self.in_flight[w].len() < self.per_worker && dispatch(self, w) {}
        }
    }

    /// The slot of the worker with this serial number, if it is still in the pool.
    fn slot(&self, serial: u32) -> Option<usize> {
        self.workers.iter().position(|w| w.serial == serial)
    }

    /// Sends a worker the run's data and everything learned so far.
    fn equip(&self, worker: &WorkerHandle, same_data: bool) {
        let generation = self.generation;
        if same_data {
            worker.send(&ToWorker::Reload { generation, spec: Box::new(self.resolved.spec.clone()) });
        } else {
            worker.send(&ToWorker::Load { generation, benchmark: self.encoded.clone(), spec: Box::new(self.resolved.spec.clone()) });
        }
        for ((target, warp, _), learned) in &self.learned {
            worker.send(&ToWorker::Share { generation, target: *target, warp: *warp, learned: learned.clone() });
        }
    }
}

/// The run's part of the page's workers (a `Copy` handle, held by `WorkerService`): the pool
/// of the current run, the spares started ahead of the next one, and where the run reports.
#[derive(Clone, Copy)]
pub struct RunWorkers {
    ids: RequestIds,
    /// The current run's worker pool.
    pub pool: StoredValue<Option<Pool>, LocalStorage>,
    /// Workers started ahead of the next run (after a cancel), their wasm already loading.
    pub spares: StoredValue<Vec<PoolWorker>, LocalStorage>,
    /// Where the current run reports.
    pub sink: StoredValue<Option<Box<dyn RunSink>>, LocalStorage>,
}

impl RunWorkers {
    /// No run yet; requests take their ids from `ids`.
    pub fn new(ids: RequestIds) -> Self {
        RunWorkers {
            ids,
            pool: StoredValue::new_local(None),
            spares: StoredValue::new_local(Vec::new()),
            sink: StoredValue::new_local(None),
        }
    }
}

/// Starts a worker whose messages and crash go to the current pool under `serial`.
fn spawn_worker(service: RunWorkers) -> Option<PoolWorker> {
    let serial = service.ids.next();
    let handle = WorkerHandle::spawn(move |msg| on_message(service, serial, msg), move |reason| on_crash(service, serial, reason)).ok()?;
    Some(PoolWorker { handle, serial })
}

/// Starts `n` workers for the next run now, so that their wasm is compiled and ready when it
/// starts (after a cancel, the page is ready again as soon as they are).
pub fn prepare_spares(service: RunWorkers, n: usize) {
    let have = service.spares.with_value(Vec::len);
    let fresh: Vec<PoolWorker> = (have..n).filter_map(|_| spawn_worker(service)).collect();
    service.spares.update_value(|s| s.extend(fresh));
}

/// The fault a test asked the next job to simulate (`window.hpoInjectFault`), consumed once.
fn injected_fault() -> Option<InjectedFault> {
    let window = web_sys::window()?;
    let key = wasm_bindgen::JsValue::from_str("hpoInjectFault");
    let value = js_sys::Reflect::get(&window, &key).ok()?.as_string()?;
    let _ = js_sys::Reflect::delete_property(&window, &key);
    match value.as_str() {
        "panic" => Some(InjectedFault::Panic),
        "oom" => Some(InjectedFault::OutOfMemory),
        _ => None,
    }
}

/// Starts a run, cancelling any run in progress. `known` is what was learned before on the
/// same data and objective: the items some job needs go to every worker before any job.
/// Returns the number of workers used and the keys of the known items the run uses.
pub fn start(
    service: RunWorkers,
    (bench, encoded): (Arc<Benchmark>, EncodedBenchmark),
    resolved: ResolvedSpec,
    jobs: Vec<Job>,
    workers: usize,
    known: Vec<(LearnedKey, Learned)>,
    sink: Box<dyn RunSink>,
) -> (usize, Vec<LearnedKey>) {
    let n = workers.clamp(1, 32).min(jobs.len().max(1));
    service.sink.set_value(Some(sink));
    let old = service.pool.try_update_value(Option::take).flatten();
    let generation = service.ids.next();
    // Reuse the last run's workers when there are enough (workers that hold this very
    // benchmark keep it, so a re-run does not send the data again); then spares; then new ones.
    let (mut pool_workers, same_data) = match old {
        Some(old) if old.workers.len() >= n && old.in_flight.iter().all(VecDeque::is_empty) => {
            let same = Arc::ptr_eq(&old.bench, &bench);
            (old.workers.into_iter().take(n).collect::<Vec<_>>(), same)
        }
        _ => (Vec::new(), false),
    };
    if pool_workers.len() < n {
        let spares: Vec<PoolWorker> = service.spares.try_update_value(std::mem::take).unwrap_or_default();
        pool_workers.extend(spares);
        pool_workers.truncate(n);
        while pool_workers.len() < n {
            match spawn_worker(service) {
                Some(w) => pool_workers.push(w),
                None => break,
            }
        }
    }
    let n = pool_workers.len().max(1);
    let needed: BTreeSet<LearnedKey> = jobs.iter().filter_map(|j| needs(&resolved, j)).collect();
    let reused: BTreeMap<LearnedKey, Learned> = known.into_iter().filter(|(key, _)| needed.contains(key)).collect();
    let reused_keys: Vec<LearnedKey> = reused.keys().copied().collect();
    let per_worker = in_flight_per_worker(&resolved);
    // Task-major order: all jobs of a task are adjacent, so workers split tasks between them.
    let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
    order.sort_by_key(|&i| (jobs[i as usize].task, i));
    let mut pool = Pool {
        workers: pool_workers,
        bench,
        encoded,
        resolved,
        generation,
        queue: order.into(),
        jobs,
        in_flight: vec![VecDeque::new(); n],
        last_task: vec![None; n],
        per_worker,
        learned: reused,
        learning: BTreeMap::new(),
    };
    for w in &pool.workers {
        pool.equip(&w.handle, same_data);
    }
    for _ in 0..per_worker {
        for w in 0..pool.workers.len() {
            dispatch(&mut pool, w);
        }
    }
    let used = pool.workers.len();
    service.pool.set_value(Some(pool));
    (used, reused_keys)
}

/// Sends worker `w` its next job: one of the task it worked on last if any is left, else the
/// first job of a task no other worker is on, else the first job in the queue; never one
/// that needs what another worker is learning. False if there was none to send.
fn dispatch(pool: &mut Pool, w: usize) -> bool {
    let task_of = |pool: &Pool, k: usize| pool.jobs[pool.queue[k] as usize].task;
    let open = |pool: &Pool, k: usize| !pool.waits_for_another(k, w);
    let same = pool.last_task[w].and_then(|t| (0..pool.queue.len()).find(|&k| task_of(pool, k) == t && open(pool, k)));
    let fresh = || {
        (0..pool.queue.len())
            .find(|&k| open(pool, k) && !pool.last_task.iter().enumerate().any(|(o, t)| o != w && *t == Some(task_of(pool, k))))
    };
    let any = || (0..pool.queue.len()).find(|&k| open(pool, k));
    let Some(id) = same.or_else(fresh).or_else(any).and_then(|k| pool.queue.remove(k)) else {
        return false;
    };
    let job = pool.jobs[id as usize].clone();
    if let Some(key) = needs(&pool.resolved, &job).filter(|key| !pool.learned.contains_key(key)) {
        pool.learning.insert(key, w);
    }
    pool.last_task[w] = Some(job.task);
    pool.in_flight[w].push_back(id);
    pool.workers[w].handle.send(&ToWorker::Run { generation: pool.generation, id, job, fault: injected_fault() });
    true
}

/// Stops the run now: every worker is terminated in the middle of what it computes (nothing
/// it would have sent arrives), pending jobs are dropped, and fresh workers are started for
/// the next run. Jobs already finished stay with the page.
pub fn cancel(service: RunWorkers) {
    let old = service.pool.try_update_value(Option::take).flatten();
    service.sink.set_value(None);
    let n = old.as_ref().map_or(0, |p| p.workers.len());
    if let Some(old) = old {
        for w in &old.workers {
            w.handle.terminate();
        }
    }
    prepare_spares(service, n);
}

/// A worker of the pool died on its own: the job it was running fails with `reason`, the
/// jobs queued behind it go back to the queue, and a fresh worker takes its place.
fn on_crash(service: RunWorkers, serial: u32, reason: String) {
    // Told after the pool is released (the sink may read the page's state).
    let failed = service.pool.try_update_value(|slot| {
        let pool = slot.as_mut()?;
        let w = pool.slot(serial)?;
        let mut sent = std::mem::take(&mut pool.in_flight[w]);
        let running = sent.pop_front();
        for id in sent.into_iter().rev() {
            pool.queue.push_front(id);
        }
        pool.learning.retain(|_, &mut o| o != w);
        pool.last_task[w] = None;
        if let Some(fresh) = spawn_worker(service) {
            pool.equip(&fresh.handle, false);
            pool.workers[w] = fresh;
        }
        pool.dispatch_all();
        running.map(|id| (w, pool.jobs[id as usize].clone()))
    });
    if let Some((w, job)) = failed.flatten() {
        service.sink.with_value(|s| {
            if let Some(sink) = s.as_ref() {
                sink.finished(w, &job, Err(reason), f64::NAN);
            }
        });
    }
}

/// What a worker's message means for the page, told to the sink once the pool is released.
enum Event {
    Progress(Job, JobProgress),
    Finished(Job, Result<Trace, String>, f64),
    Learned(usize, OutputWarp, Learned),
}

fn on_message(service: RunWorkers, serial: u32, msg: FromWorker) {
    let mut worker = usize::MAX;
    let event = service.pool.try_update_value(|slot| {
        let pool = slot.as_mut()?;
        let w = pool.slot(serial)?;
        worker = w;
        match msg {
            FromWorker::Progress { generation, id, progress } if generation == pool.generation => {
                Some(Event::Progress(pool.jobs[id as usize].clone(), progress))
            }
            FromWorker::Learned { generation, target, warp, learned } if generation == pool.generation => {
                let kind = learned.kind();
                pool.learned.insert((target, warp, kind), learned.clone());
                pool.learning.remove(&(target, warp, kind));
                for (_, other) in pool.workers.iter().enumerate().filter(|&(o, _)| o != w) {
                    other.handle.send(&ToWorker::Share { generation, target, warp, learned: learned.clone() });
                }
                // Workers that waited for it can go on.
                pool.dispatch_all();
                Some(Event::Learned(target, warp, learned))
            }
            FromWorker::Done { generation, id, result, seconds } if generation == pool.generation => {
                pool.in_flight[w].retain(|&j| j != id);
                // A job that failed before it learned what it needed leaves that to others.
                pool.learning.retain(|_, &mut o| o != w);
                pool.dispatch_all();
                Some(Event::Finished(pool.jobs[id as usize].clone(), result, seconds))
            }
            _ => None,
        }
    });
    if let Some(event) = event.flatten() {
        let w = worker;
        service.sink.with_value(|s| {
            if let Some(sink) = s.as_ref() {
                match event {
                    Event::Progress(job, progress) => sink.progress(w, &job, progress),
                    Event::Finished(job, result, seconds) => sink.finished(w, &job, result, seconds),
                    Event::Learned(target, warp, learned) => sink.learned(w, target, warp, &learned),
                }
            }
        });
    }
}
