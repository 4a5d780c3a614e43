//! A pool of Web Workers sized to `navigator.hardwareConcurrency`, fed one job at a time
//! per worker (plus one queued, so a worker never idles waiting for the page).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;

use gloo_worker::{Spawnable, WorkerBridge};

use super::worker::HpoWorker;
use crate::engine::benchmark::Benchmark;
use crate::engine::runner::{JobProgress, Trace};
use crate::engine::spec::{Job, ResolvedSpec};
use crate::worker_protocol::{FromWorker, ToWorker};

/// What the pool reports back to the page.
pub trait RunSink {
    /// A job advanced.
    fn progress(&self, worker: usize, job: &Job, progress: JobProgress);
    /// A job finished.
    fn finished(&self, worker: usize, job: &Job, result: Result<Trace, String>);
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
    /// Task of the last job sent to each worker: a worker keeps to one task while it can, so
    /// a prior (trained per task, cached per worker) is trained by one worker only.
    last_task: Vec<Option<usize>>,
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
        *slot = Some(Pool { workers: bridges, generation, queue: order.into(), jobs, in_flight: vec![0; n], last_task: vec![None; n] });
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
/// first job of a task no other worker is on, else the first job in the queue.
fn dispatch(pool: &mut Pool, w: usize) {
    let task_of = |pool: &Pool, k: usize| pool.jobs[pool.queue[k] as usize].task;
    let same = pool.last_task[w].and_then(|t| (0..pool.queue.len()).find(|&k| task_of(pool, k) == t));
    let fresh = || (0..pool.queue.len()).find(|&k| !pool.last_task.iter().enumerate().any(|(o, t)| o != w && *t == Some(task_of(pool, k))));
    let pick = same.or_else(fresh).or(if pool.queue.is_empty() { None } else { Some(0) });
    if let Some(id) = pick.and_then(|k| pool.queue.remove(k)) {
        pool.last_task[w] = Some(pool.jobs[id as usize].task);
        pool.in_flight[w] += 1;
        pool.workers[w].send(ToWorker::Run { generation: pool.generation, id, job: pool.jobs[id as usize].clone() });
    }
}

/// Stops the run: pending jobs are dropped and the workers are shut down (a job already
/// running finishes in the background and its result is ignored).
pub fn cancel() {
    POOL.with(|p| *p.borrow_mut() = None);
    SINK.with(|s| *s.borrow_mut() = None);
}

fn on_message(w: usize, msg: FromWorker) {
    let event = POOL.with(|p| {
        let mut slot = p.borrow_mut();
        let pool = slot.as_mut()?;
        match msg {
            FromWorker::Progress { generation, id, progress } if generation == pool.generation => {
                Some((pool.jobs[id as usize].clone(), Some(progress), None))
            }
            FromWorker::Done { generation, id, result } if generation == pool.generation => {
                pool.in_flight[w] -= 1;
                dispatch(pool, w);
                Some((pool.jobs[id as usize].clone(), None, Some(result)))
            }
            _ => None,
        }
    });
    if let Some((job, done, result)) = event {
        SINK.with(|s| {
            if let Some(sink) = s.borrow().as_ref() {
                if let Some(d) = done {
                    sink.progress(w, &job, d);
                }
                if let Some(r) = result {
                    sink.finished(w, &job, r);
                }
            }
        });
    }
}
