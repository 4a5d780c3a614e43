//! Runs one job — (method, task, seed) — to a trace.
//!
//! The clock is passed in because `std::time::Instant` does not exist on
//! `wasm32-unknown-unknown`: the CLI passes `Instant`, the workers `performance.now()`.
//! Wall time is recorded but never influences a decision, so traces are identical everywhere.

use std::borrow::Cow;

use super::benchmark::{Benchmark, Direction, Task};
use super::error::{EngineError, Result};
use super::fidelity::picks::{replay, RacePicks};
use super::fidelity::runner::{race_curves, run_mf_job_with};
use super::method_entry::{MethodEntry, MethodObjectives};
use super::optimizer::{job_rng, SearchState};
use super::pareto::HypervolumeError;
use super::spec::{Job, ResolvedSpec, RunMode};
use super::trace::{JobProgress, Trace, TraceBody, TraceRow};
use super::transfer::{task_loss_columns, transfer_context, PriorCache};
use super::warping::scalarize_points;

/// The trace of `job` on `bench` with this body.
fn trace_of(bench: &Benchmark, job: &Job, body: TraceBody) -> Result<Trace> {
    let task = task_of(bench, job)?;
    Ok(Trace { method: job.method.clone(), blackbox: bench.name.clone(), task: task.name.clone(), seed: job.seed, body })
}

/// Runs `job`; `priors` holds (or trains) the parametric priors transfer methods need;
/// `now` returns seconds from any fixed origin; `progress` is called after each iteration
/// (and during prior training). Returns early with an error if `progress` returns false.
pub fn run_job(
    bench: &Benchmark,
    resolved: &ResolvedSpec,
    job: &Job,
    priors: &PriorCache,
    now: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(JobProgress) -> bool,
) -> Result<Trace> {
    task_of(bench, job)?;
    let method = resolved.entry(job)?;
    let body = match resolved.mode {
        RunMode::Full { iterations } => full_evaluations(bench, resolved, job, method, iterations, priors, now, progress)?,
        RunMode::Race { budget } => {
            let sign = resolved.direction.sign();
            // Progress counts to what the job can spend: the budget, or the table when it
            // holds less (the race then ends there).
            let total = bench.tasks[job.task].race_units().map_or(budget, |units| units.min(budget));
            let mut on_step = |spent| progress(JobProgress::Budget { spent, total });
            let race = run_mf_job_with(bench, job.task, method, job.seed, budget, sign, resolved.spec.targets, now, &mut on_step)?;
            TraceBody::Race(race.rows)
        }
    };
    trace_of(bench, job, body)
}

/// The loop of a full-evaluation job: at each iteration the optimizer suggests an
/// unevaluated candidate from what it has seen, observes its loss, and the step is recorded.
#[allow(clippy::too_many_arguments)]
fn full_evaluations(
    bench: &Benchmark,
    resolved: &ResolvedSpec,
    job: &Job,
    method: &MethodEntry,
    iterations: u32,
    priors: &PriorCache,
    now: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(JobProgress) -> bool,
) -> Result<TraceBody> {
    let task = task_of(bench, job)?;
    let candidates = bench.encoded_task(job.task);
    let (transfer, prior_rmse) = transfer_context(bench, resolved, job.task, method, priors, &mut |step, total| {
        progress(JobProgress::Prior { step: step as u32, total: total as u32 })
    })?;
    let mut optimizer = method.build_full(transfer)?;
    let mut rng = job_rng(job.seed, &task.name);
    let n = iterations.min(task.len() as u32);
    let mut record = Record::new(bench, resolved, job.task, n as usize);
    for iteration in 0..n {
        let t0 = now();
        let seen = record.seen(method.objectives());
        let state = SearchState { candidates: &candidates, evaluated: &record.evaluated, history: &seen, objectives: &record.loss_vectors };
        let pick = optimizer.suggest(&state, &mut rng).map_err(|e| e.for_method(method.name))?;
        if pick >= task.len() || record.evaluated[pick] {
            return Err(EngineError::Method {
                method: job.method.clone(),
                message: format!("suggested candidate {pick}, which is out of range or already evaluated"),
            });
        }
        optimizer.observe(pick, resolved.loss(task.metrics[resolved.objective][pick]));
        let seconds = now() - t0;
        record.push(iteration, pick, seconds);
        if !progress(JobProgress::Iterations(iteration + 1)) {
            return Err(EngineError::Method { method: job.method.clone(), message: "cancelled".into() });
        }
    }
    Ok(TraceBody::Evaluations { rows: record.rows, prior_rmse })
}

/// What a full-evaluation job has evaluated, as its optimizer sees it (losses) and as its
/// trace records it (values, best so far, and for several objectives each one's value and
/// the hypervolume error).
struct Record<'a> {
    resolved: &'a ResolvedSpec,
    task: &'a Task,
    /// Each objective's losses on every configuration (several objectives only).
    loss_columns: Vec<Vec<f64>>,
    hv_tracker: Option<HypervolumeError>,
    evaluated: Vec<bool>,
    /// (configuration, loss) of each evaluation, in order.
    history: Vec<(usize, f64)>,
    /// Each evaluation's losses, one per objective (several objectives only).
    loss_vectors: Vec<Vec<f64>>,
    rows: Vec<TraceRow>,
    best: f64,
}

impl<'a> Record<'a> {
    fn new(bench: &'a Benchmark, resolved: &'a ResolvedSpec, task: usize, capacity: usize) -> Self {
        let multi = resolved.is_multi_objective();
        let loss_columns: Vec<Vec<f64>> = if multi { task_loss_columns(bench, resolved, task) } else { Vec::new() };
        Record {
            resolved,
            task: &bench.tasks[task],
            hv_tracker: multi.then(|| HypervolumeError::new(&loss_columns)),
            loss_columns,
            evaluated: vec![false; bench.tasks[task].len()],
            history: Vec::with_capacity(capacity),
            loss_vectors: Vec::with_capacity(if multi { capacity } else { 0 }),
            rows: Vec::with_capacity(capacity),
            best: f64::NAN,
        }
    }

    /// The history the method learns from: the losses, or for a "+MO" method the average of
    /// the objectives warped on the observations so far (the warps change with every
    /// observation, so the whole history is recomputed).
    fn seen(&self, objectives: MethodObjectives) -> Cow<'_, [(usize, f64)]> {
        match objectives {
            MethodObjectives::Scalarized(warp) if self.hv_tracker.is_some() => {
                Cow::Owned(self.history.iter().zip(scalarize_points(&self.loss_vectors, warp)).map(|(&(i, _), s)| (i, s)).collect())
            }
            _ => Cow::Borrowed(&self.history),
        }
    }

    /// Records the evaluation of configuration `pick` at `iteration`, which took the
    /// optimizer `seconds`.
    fn push(&mut self, iteration: u32, pick: usize, seconds: f64) {
        let value = self.task.metrics[self.resolved.objective][pick];
        self.evaluated[pick] = true;
        self.history.push((pick, self.resolved.loss(value)));
        let mut objectives = Vec::new();
        let mut hv_error = None;
        if let Some(tracker) = self.hv_tracker.as_mut() {
            let losses: Vec<f64> = self.loss_columns.iter().map(|c| c[pick]).collect();
            hv_error = Some(tracker.observe(&losses));
            objectives = self.resolved.objectives.iter().map(|&(m, _)| self.task.metrics[m][pick]).collect();
            self.loss_vectors.push(losses);
        }
        self.best = if self.best.is_nan() || better(value, self.best, self.resolved.direction) { value } else { self.best };
        self.rows.push(TraceRow { iteration, candidate: pick, value, best: self.best, optimizer_seconds: seconds, objectives, hv_error });
    }
}

fn task_of<'a>(bench: &'a Benchmark, job: &Job) -> Result<&'a Task> {
    bench.tasks.get(job.task).ok_or_else(|| EngineError::Spec(format!("task index {} out of range", job.task)))
}

/// The trace `run_job` gave for the race `job`, rebuilt from its recorded picks on this data
/// (`fidelity::picks`): identical to the original, or an error.
pub fn replay_job(bench: &Benchmark, resolved: &ResolvedSpec, job: &Job, picks: &RacePicks) -> Result<Trace> {
    let RunMode::Race { budget } = resolved.mode else {
        return Err(EngineError::Spec("picks replay races only; this link runs full evaluations".into()));
    };
    let (values, cost) = race_curves(bench, job.task)?;
    let rows = replay(picks, &job.method, &values, cost.as_deref(), resolved.direction.sign(), budget)?;
    trace_of(bench, job, TraceBody::Race(rows))
}

fn better(a: f64, b: f64, direction: Direction) -> bool {
    match direction {
        Direction::Minimize => a < b,
        Direction::Maximize => a > b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::quadratic_family;
    use crate::spec::ExperimentSpec;
    use crate::transfer::PriorCache;

    #[test]
    fn same_seed_same_trace_and_best_is_running_min() {
        let bench = quadratic_family();
        let spec = ExperimentSpec { iterations: 30, seeds: 2, ..Default::default() };
        let r = spec.resolve(&bench).unwrap();
        let job = Job { method: "RS".into(), task: 3, seed: 5 };
        let a = run_job(&bench, &r, &job, &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap();
        let b = run_job(&bench, &r, &job, &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.rows().len(), 30);
        let mut m = f64::INFINITY;
        for row in a.rows() {
            m = m.min(row.value);
            assert_eq!(row.best, m);
            assert_eq!(row.value, bench.tasks[3].metrics[0][row.candidate]);
        }
        let other = run_job(&bench, &r, &Job { seed: 6, ..job }, &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap();
        assert_ne!(a.rows()[0].candidate, other.rows()[0].candidate);
    }

    #[test]
    fn cancellation_stops_the_job() {
        let bench = quadratic_family();
        let r = ExperimentSpec::default().resolve(&bench).unwrap();
        let job = Job { method: "RS".into(), task: 0, seed: 0 };
        let e = run_job(&bench, &r, &job, &PriorCache::new(), &|| 0.0, &mut |p| p != JobProgress::Iterations(3)).unwrap_err();
        assert!(e.to_string().contains("cancelled"));
    }
}
