//! A pool of Web Workers sized to `navigator.hardwareConcurrency`, fed one job at a time
//! per worker (plus one queued, so a worker never idles waiting for the page).
//!
//! Priors are trained once per run: a worker reports each prior it trains, the pool passes it
//! to the other workers, and while one worker trains a prior no other worker is given a job
//! that needs it (it takes other work, or waits: it would only train the same prior again).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use gloo_worker::{Spawnable, WorkerBridge};

use super::worker::HpoWorker;
use crate::engine::benchmark::Benchmark;
use crate::engine::methods::method_info;
use crate::engine::runner::{JobProgress, Trace};
use crate::engine::spec::{Job, ResolvedSpec};
use crate::engine::warping::OutputWarp;
use crate::worker_protocol::{FromWorker, ToWorker};

/// What the pool reports back to the page.
pub trait RunSink {
    /// A job advanced.
    fn progress(&self, worker: usize, job: &Job, progress: JobProgress);
    /// A job finished.
    fn finished(&self, worker: usize, job: &Job, result: Result<Trace, String>);
    /// A worker trained the prior of held-out task `task` (shared with the others from then on).
    fn prior_trained(&self, worker: usize, task: usize);
}

/// The prior a job needs: (held-out task, warp).
fn prior_of(job: &Job) -> Option<(usize, OutputWarp)> {
    method_info(&job.method).and_then(|m| m.prior).map(|warp| (job.task, warp))
}

/// Jobs queued per worker: two for cheap methods (no idle gap between jobs), one when any
/// method fits a model (a job then takes seconds, and a cancelled run should not leave a
/// second expensive job queued in a worker that cannot be interrupted).
fn in_flight_per_worker(jobs: &[Job]) -> usize {
    if jobs.iter().all(|j| j.method == "RS") {
        2
    } else {
        1
    }
}

struct Pool {
    workers: Vec<WorkerBridge<HpoWorker>>,
    generation: u32,
    jobs: Vec<Job>,
    queue: VecDeque<u32>,
    in_flight: Vec<usize>,
    /// Task of the last job sent to each worker: a worker keeps to one task while it can.
    last_task: Vec<Option<usize>>,
    /// Jobs each worker may hold at once.
    per_worker: usize,
    /// Priors some worker has trained (and every worker has been sent).
    learned: BTreeSet<(usize, OutputWarp)>,
    /// Priors being trained, and by which worker.
    training: BTreeMap<(usize, OutputWarp), usize>,
}

impl Pool {
    /// True if job `k` of the queue needs a prior that a worker other than `w` is training.
    fn waits_for_prior(&self, k: usize, w: usize) -> bool {
        prior_of(&self.jobs[self.queue[k] as usize]).is_some_and(|p| self.training.get(&p).is_some_and(|&o| o != w))
    }

    /// Gives every worker with room a job.
    fn dispatch_all(&mut self) {
        for w in 0..self.workers.len() {
            while self.in_flight[w] < self.per_worker && dispatch(self, w) {}
        }
    }
}

thread_local! {
    static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
    static SINK: RefCell<Option<Box<dyn RunSink>>> = const { RefCell::new(None) };
}

fn spawn_workers(n: usize) -> Vec<WorkerBridge<HpoWorker>> {
    (0..n).map(|w| HpoWorker::spawner().callback(move |msg: FromWorker| on_message(w, msg)).spawn("./worker.js")).collect()
}

/// Starts a run, cancelling any run in progress. Returns the number of workers used.
pub fn start(bench: Arc<Benchmark>, resolved: ResolvedSpec, jobs: Vec<Job>, workers: usize, sink: Box<dyn RunSink>) -> usize {
    let n = workers.clamp(1, 32).min(jobs.len().max(1));
    SINK.with(|s| *s.borrow_mut() = Some(sink));
    POOL.with(|p| {
        let mut slot = p.borrow_mut();
        let generation = slot.as_ref().map(|p| p.generation + 1).unwrap_or(1);
        // Reuse live workers when there are enough; otherwise start afresh.
        let bridges = match slot.take() {
            Some(old) if old.workers.len() == n => old.workers,
            _ => spawn_workers(n),
        };
        for b in &bridges {
            b.send(ToWorker::Load { generation, benchmark: Box::new((*bench).clone()), resolved: Box::new(resolved.clone()) });
        }
        let per_worker = in_flight_per_worker(&jobs);
        // Task-major order: all jobs of a task are adjacent, so workers split tasks between them.
        let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
        order.sort_by_key(|&i| (jobs[i as usize].task, i));
        *slot = Some(Pool {
            workers: bridges,
            generation,
            queue: order.into(),
            jobs,
            in_flight: vec![0; n],
            last_task: vec![None; n],
            per_worker,
            learned: BTreeSet::new(),
            training: BTreeMap::new(),
        });
        let pool = slot.as_mut().unwrap();
        for _ in 0..per_worker {
            for w in 0..n {
                dispatch(pool, w);
            }
        }
    });
    n
}

/// Sends worker `w` its next job: one of the task it worked on last if any is left, else the
/// first job of a task no other worker is on, else the first job in the queue; never one
/// whose prior another worker is training. False if there was none to send.
fn dispatch(pool: &mut Pool, w: usize) -> bool {
    let task_of = |pool: &Pool, k: usize| pool.jobs[pool.queue[k] as usize].task;
    let open = |pool: &Pool, k: usize| !pool.waits_for_prior(k, w);
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
    if let Some(p) = prior_of(&job).filter(|p| !pool.learned.contains(p)) {
        pool.training.insert(p, w);
    }
    pool.last_task[w] = Some(job.task);
    pool.in_flight[w] += 1;
    pool.workers[w].send(ToWorker::Run { generation: pool.generation, id, job });
    true
}

/// Stops the run: pending jobs are dropped and the workers are shut down (a job already
/// running finishes in the background and its result is ignored).
pub fn cancel() {
    POOL.with(|p| *p.borrow_mut() = None);
    SINK.with(|s| *s.borrow_mut() = None);
}

/// What a worker's message means for the page, told to the sink once the pool is released.
enum Event {
    Progress(Job, JobProgress),
    Finished(Job, Result<Trace, String>),
    PriorTrained(usize),
}

fn on_message(w: usize, msg: FromWorker) {
    let event = POOL.with(|p| {
        let mut slot = p.borrow_mut();
        let pool = slot.as_mut()?;
        match msg {
            FromWorker::Progress { generation, id, progress } if generation == pool.generation => {
                Some(Event::Progress(pool.jobs[id as usize].clone(), progress))
            }
            FromWorker::PriorLearned { generation, target, warp, prior } if generation == pool.generation => {
                pool.learned.insert((target, warp));
                pool.training.remove(&(target, warp));
                for (_, bridge) in pool.workers.iter().enumerate().filter(|&(o, _)| o != w) {
                    bridge.send(ToWorker::SharePrior { generation, target, warp, prior: prior.clone() });
                }
                // Workers that waited for this prior can go on.
                pool.dispatch_all();
                Some(Event::PriorTrained(target))
            }
            FromWorker::Done { generation, id, result } if generation == pool.generation => {
                pool.in_flight[w] -= 1;
                // A job that failed before its prior was learned frees that prior for others.
                pool.training.retain(|_, &mut o| o != w);
                pool.dispatch_all();
                Some(Event::Finished(pool.jobs[id as usize].clone(), result))
            }
            _ => None,
        }
    });
    if let Some(event) = event {
        SINK.with(|s| {
            if let Some(sink) = s.borrow().as_ref() {
                match event {
                    Event::Progress(job, progress) => sink.progress(w, &job, progress),
                    Event::Finished(job, result) => sink.finished(w, &job, result),
                    Event::PriorTrained(task) => sink.prior_trained(w, task),
                }
            }
        });
    }
}
