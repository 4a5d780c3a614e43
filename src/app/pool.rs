//! A pool of Web Workers sized to `navigator.hardwareConcurrency`, fed one job at a time
//! per worker (plus one queued, so a worker never idles waiting for the page).
//!
//! What transfer methods learn from the other tasks (priors, SGPT's means) is learned once
//! per run: a worker reports each item it learns, the pool passes it to the other workers, and
//! while one worker learns an item no other worker is given a job that needs it (it takes
//! other work, or waits: it would only learn the same thing again). Items learned before (an
//! earlier run or the prior view, on the same data and objective) are handed to every worker
//! with the data, so the run learns only what is new.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use gloo_worker::{Spawnable, WorkerBridge};
use leptos::prelude::{SetValue, UpdateValue, WithValue};

use super::worker::HpoWorker;
use super::workers::WorkerService;
use crate::engine::benchmark::Benchmark;
use crate::engine::registry::{CostClass, TransferNeed};
use crate::engine::runner::{JobProgress, Trace};
use crate::engine::spec::{Job, ResolvedSpec};
use crate::engine::transfer::{Learned, LearnedKey, LearnedKind};
use crate::engine::warping::OutputWarp;
use crate::worker_protocol::{FromWorker, ToWorker};

/// What the pool reports back to the page.
pub trait RunSink {
    /// A job advanced.
    fn progress(&self, worker: usize, job: &Job, progress: JobProgress);
    /// A job finished.
    fn finished(&self, worker: usize, job: &Job, result: Result<Trace, String>);
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

/// A run's workers and its queue (held by [`WorkerService`]).
pub struct Pool {
    workers: Vec<WorkerBridge<HpoWorker>>,
    /// The data every worker holds (kept alive, so the pointer comparison is sound).
    bench: Arc<Benchmark>,
    /// The run's spec, checked against the data.
    resolved: ResolvedSpec,
    generation: u32,
    jobs: Vec<Job>,
    queue: VecDeque<u32>,
    in_flight: Vec<usize>,
    /// Task of the last job sent to each worker: a worker keeps to one task while it can.
    last_task: Vec<Option<usize>>,
    /// Jobs each worker may hold at once.
    per_worker: usize,
    /// What some worker has learned (and every worker has been sent).
    learned: BTreeSet<LearnedKey>,
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
            while self.in_flight[w] < self.per_worker && dispatch(self, w) {}
        }
    }
}

fn spawn_workers(service: WorkerService, n: usize) -> Vec<WorkerBridge<HpoWorker>> {
    (0..n).map(|w| HpoWorker::spawner().callback(move |msg: FromWorker| on_message(service, w, msg)).spawn("./worker.js")).collect()
}

/// Starts a run, cancelling any run in progress. `known` is what was learned before on the
/// same data and objective: the items some job needs go to every worker before any job.
/// Returns the number of workers used and the keys of the known items the run uses.
pub fn start(
    service: WorkerService,
    bench: Arc<Benchmark>,
    resolved: ResolvedSpec,
    jobs: Vec<Job>,
    workers: usize,
    known: Vec<(LearnedKey, Learned)>,
    sink: Box<dyn RunSink>,
) -> (usize, Vec<LearnedKey>) {
    let n = workers.clamp(1, 32).min(jobs.len().max(1));
    service.sink.set_value(Some(sink));
    let old = service.pool.try_update_value(Option::take).flatten();
    let (pool, started) = {
        let generation = old.as_ref().map(|p| p.generation + 1).unwrap_or(1);
        // Reuse live workers when there are enough; otherwise start afresh. Workers that hold
        // this very benchmark keep it (a Reload), so a re-run does not send the data again.
        let (bridges, same_data) = match old {
            Some(old) if old.workers.len() == n => {
                let same = Arc::ptr_eq(&old.bench, &bench);
                (old.workers, same)
            }
            _ => (spawn_workers(service, n), false),
        };
        let needed: BTreeSet<LearnedKey> = jobs.iter().filter_map(|j| needs(&resolved, j)).collect();
        let reused: Vec<(LearnedKey, Learned)> = known.into_iter().filter(|(key, _)| needed.contains(key)).collect();
        for b in &bridges {
            if same_data {
                b.send(ToWorker::Reload { generation, spec: Box::new(resolved.spec.clone()) });
            } else {
                b.send(ToWorker::Load { generation, benchmark: Box::new((*bench).clone()), spec: Box::new(resolved.spec.clone()) });
            }
            for ((target, warp, _), learned) in &reused {
                b.send(ToWorker::Share { generation, target: *target, warp: *warp, learned: learned.clone() });
            }
        }
        let per_worker = in_flight_per_worker(&resolved);
        // Task-major order: all jobs of a task are adjacent, so workers split tasks between them.
        let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
        order.sort_by_key(|&i| (jobs[i as usize].task, i));
        let mut pool = Pool {
            workers: bridges,
            bench,
            resolved,
            generation,
            queue: order.into(),
            jobs,
            in_flight: vec![0; n],
            last_task: vec![None; n],
            per_worker,
            learned: reused.iter().map(|(key, _)| *key).collect(),
            learning: BTreeMap::new(),
        };
        for _ in 0..per_worker {
            for w in 0..n {
                dispatch(&mut pool, w);
            }
        }
        (pool, (n, reused.into_iter().map(|(key, _)| key).collect()))
    };
    service.pool.set_value(Some(pool));
    started
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
    if let Some(key) = needs(&pool.resolved, &job).filter(|key| !pool.learned.contains(key)) {
        pool.learning.insert(key, w);
    }
    pool.last_task[w] = Some(job.task);
    pool.in_flight[w] += 1;
    pool.workers[w].send(ToWorker::Run { generation: pool.generation, id, job });
    true
}

/// Stops the run: pending jobs are dropped and the workers are shut down (a job already
/// running finishes in the background and its result is ignored).
pub fn cancel(service: WorkerService) {
    service.pool.set_value(None);
    service.sink.set_value(None);
}

/// What a worker's message means for the page, told to the sink once the pool is released.
enum Event {
    Progress(Job, JobProgress),
    Finished(Job, Result<Trace, String>),
    Learned(usize, OutputWarp, Learned),
}

fn on_message(service: WorkerService, w: usize, msg: FromWorker) {
    let event = service.pool.try_update_value(|slot| {
        let pool = slot.as_mut()?;
        match msg {
            FromWorker::Progress { generation, id, progress } if generation == pool.generation => {
                Some(Event::Progress(pool.jobs[id as usize].clone(), progress))
            }
            FromWorker::Learned { generation, target, warp, learned } if generation == pool.generation => {
                let kind = learned.kind();
                pool.learned.insert((target, warp, kind));
                pool.learning.remove(&(target, warp, kind));
                for (_, bridge) in pool.workers.iter().enumerate().filter(|&(o, _)| o != w) {
                    bridge.send(ToWorker::Share { generation, target, warp, learned: learned.clone() });
                }
                // Workers that waited for it can go on.
                pool.dispatch_all();
                Some(Event::Learned(target, warp, learned))
            }
            FromWorker::Done { generation, id, result } if generation == pool.generation => {
                pool.in_flight[w] -= 1;
                // A job that failed before it learned what it needed leaves that to others.
                pool.learning.retain(|_, &mut o| o != w);
                pool.dispatch_all();
                Some(Event::Finished(pool.jobs[id as usize].clone(), result))
            }
            _ => None,
        }
    });
    if let Some(event) = event.flatten() {
        service.sink.with_value(|s| {
            if let Some(sink) = s.as_ref() {
                match event {
                    Event::Progress(job, progress) => sink.progress(w, &job, progress),
                    Event::Finished(job, result) => sink.finished(w, &job, result),
                    Event::Learned(target, warp, learned) => sink.learned(w, target, warp, &learned),
                }
            }
        });
    }
}
