//! A pool of Web Workers sized to `navigator.hardwareConcurrency`, fed one job at a time
//! per worker (plus one queued, so a worker never idles waiting for the page).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;

use gloo_worker::{Spawnable, WorkerBridge};

use super::worker::HpoWorker;
use crate::engine::benchmark::Benchmark;
use crate::engine::runner::Trace;
use crate::engine::spec::{Job, ResolvedSpec};
use crate::worker_protocol::{FromWorker, ToWorker};

/// What the pool reports back to the page.
pub trait RunSink {
    /// A job advanced to `done` iterations.
    fn progress(&self, worker: usize, job: &Job, done: u32);
    /// A job finished.
    fn finished(&self, worker: usize, job: &Job, result: Result<Trace, String>);
}

const IN_FLIGHT_PER_WORKER: usize = 2;

struct Pool {
    workers: Vec<WorkerBridge<HpoWorker>>,
    generation: u32,
    jobs: Vec<Job>,
    queue: VecDeque<u32>,
    in_flight: Vec<usize>,
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
        *slot = Some(Pool { workers: bridges, generation, queue: (0..jobs.len() as u32).collect(), jobs, in_flight: vec![0; n] });
        let pool = slot.as_mut().unwrap();
        for w in 0..n {
            for _ in 0..IN_FLIGHT_PER_WORKER {
                dispatch(pool, w);
            }
        }
    });
    n
}

fn dispatch(pool: &mut Pool, w: usize) {
    if let Some(id) = pool.queue.pop_front() {
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
            FromWorker::Progress { generation, id, done } if generation == pool.generation => {
                Some((pool.jobs[id as usize].clone(), Some(done), None))
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
