//! The prior view (Salinas et al. 2020, §3): train the parametric prior of one task on all the
//! others in a Web Worker, with progress and cancel, then draw its predictive mean ± sd along
//! any hyperparameter next to the task's own warped values. The sweep is computed in the page
//! from the trained network (a few hundred forward passes), so switching hyperparameters is
//! instant; only training needs the worker. Priors live in the page's [`LearnedStore`]: one
//! trained here is reused by the next run, and one a run trained is shown here without
//! training again.

use std::sync::Arc;

use leptos::prelude::*;

use crate::app::charts::scatter::{Scatter, ScatterCanvas};
use crate::app::platform::workers::WorkerService;
use crate::app::state::{DataState, RunState};
use hpo_engine::benchmark::Benchmark;
use hpo_engine::prior::TrainedPrior;
use hpo_engine::prior_slice::prior_slice;
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::spec::{ResolvedSpec, TransferMode};
use hpo_engine::transfer::{prior_rmse_on_target, Learned, LearnedKind, LearnedStore};
use hpo_engine::warping::OutputWarp;
use hpo_protocol::{FromWorker, ToWorker};

/// Points of a continuous sweep.
const SWEEP_POINTS: usize = 101;

/// What the prior was trained for: a different benchmark, objective, task or warp makes it stale.
#[derive(Debug, Clone, PartialEq)]
struct PriorKey {
    bench: usize,
    objectives: Vec<usize>,
    task: usize,
    warp: OutputWarp,
}

#[derive(Debug, Clone, PartialEq)]
enum PriorStatus {
    Idle,
    Training {
        request: u32,
        key: PriorKey,
        step: usize,
        total: usize,
    },
    /// Trained here (the prior itself is in the page's store).
    Ready {
        key: PriorKey,
        seconds: f64,
    },
    Failed(String),
    Cancelled,
}

/// The spec the prior is trained under: the setup's objective(s) and direction, every task,
/// leave-one-task-out (whatever methods or race mode the setup has).
fn prior_spec(spec: RwSignal<ExperimentSpec>, bench: &Benchmark) -> Result<ResolvedSpec, String> {
    let mut spec = spec.get();
    spec.transfer = TransferMode::LeaveOneTaskOut;
    spec.race_budget = None;
    spec.tasks.clear();
    // Any method with a prior that fits the objectives: the spec must resolve, and the prior
    // depends on the objectives and the warp only.
    let with_prior = spec.offered_methods().find(|m| m.transfer().prior().is_some());
    spec.methods = with_prior.map(|m| m.name.to_string()).into_iter().collect();
    if bench.tasks.len() < 2 {
        return Err(format!("{} has a single task: a prior needs other tasks to learn from", bench.name));
    }
    spec.resolve(bench).map_err(|e| e.to_string())
}

fn key_of(bench: &Arc<Benchmark>, resolved: &ResolvedSpec, task: usize, warp: OutputWarp) -> PriorKey {
    PriorKey { bench: Arc::as_ptr(bench) as usize, objectives: resolved.objectives.iter().map(|o| o.0).collect(), task, warp }
}

fn train(
    data: DataState,
    workers: WorkerService,
    status: RwSignal<PriorStatus>,
    bench: Arc<Benchmark>,
    resolved: ResolvedSpec,
    key: PriorKey,
) {
    let request = workers.next_request();
    let spec = resolved.spec.clone();
    let (for_store, resolved_for_store) = (bench.clone(), resolved);
    let callback = move |msg: FromWorker| {
        let current = matches!(status.get_untracked(), PriorStatus::Training { request: r, .. } if r == request);
        if !current {
            return;
        }
        match msg {
            FromWorker::PriorProgress { step, total, .. } => status.update(|s| {
                if let PriorStatus::Training { step: st, total: t, .. } = s {
                    (*st, *t) = (step, total);
                }
            }),
            FromWorker::PriorTrained { result, seconds, .. } => {
                let key = match status.get_untracked() {
                    PriorStatus::Training { key, .. } => key,
                    _ => return,
                };
                status.set(match result {
                    Ok(prior) => {
                        let (task, warp) = (key.task, key.warp);
                        let learned = Learned::Prior(Arc::new(*prior));
                        data.keep_learned(&for_store, &resolved_for_store, task, warp, learned);
                        PriorStatus::Ready { key, seconds }
                    }
                    Err(e) => PriorStatus::Failed(e),
                });
            }
            _ => {}
        }
    };
    status.set(PriorStatus::Training { request, key: key.clone(), step: 0, total: 0 });
    // A fresh worker per training: cancelling drops it, so a new training never queues
    // behind an abandoned one.
    let on_crash = move |reason: String| {
        if matches!(status.get_untracked(), PriorStatus::Training { request: r, .. } if r == request) {
            status.set(PriorStatus::Failed(reason));
        }
    };
    // The parser's bytes of this benchmark (encoded here only for data that never went through
    // the parser, e.g. a bundled family generated on the page).
    let benchmark = match data.encoded_for(&bench) {
        Ok(bytes) => bytes,
        Err(e) => return status.set(PriorStatus::Failed(e)),
    };
    let message = ToWorker::TrainPrior { request, benchmark, spec: Box::new(spec), target: key.task, warp: key.warp };
    if let Err(e) = workers.trainer.start(&message, callback, on_crash) {
        status.set(PriorStatus::Failed(e));
    }
}

/// The prior in `store` for `task` and `warp` on this data and objective.
fn stored_prior(
    store: &LearnedStore,
    bench: &Arc<Benchmark>,
    resolved: &ResolvedSpec,
    task: usize,
    warp: OutputWarp,
) -> Option<Arc<TrainedPrior>> {
    match store.get(bench, resolved, (task, warp, LearnedKind::Prior))? {
        Learned::Prior(prior) => Some(prior),
        Learned::OtherTaskMeans(_) => None,
    }
}

fn cancel(workers: WorkerService, status: RwSignal<PriorStatus>) {
    workers.trainer.cancel();
    status.set(PriorStatus::Cancelled);
}

/// The collapsible prior panel.
#[component]
pub fn PriorView(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The current or last run.
    run: RunState,
    /// The page's workers.
    workers: WorkerService,
) -> impl IntoView {
    let status = RwSignal::new(PriorStatus::Idle);
    let copula = RwSignal::new(true);
    let param = RwSignal::new(0usize);
    let task_name = RwSignal::new(String::new());
    // Benchmark, resolved spec, task index and warp the controls currently describe.
    let inputs = Memo::new(move |_| {
        let bench = data.bench.get()?;
        let resolved = prior_spec(spec, &bench);
        let wanted = task_name.get();
        let fallback = run.best_task.get();
        let task = bench.task_index(&wanted).or_else(|| bench.task_index(&fallback)).unwrap_or(0);
        let warp = if copula.get() { OutputWarp::Copula } else { OutputWarp::Standardize };
        Some((bench, resolved, task, warp))
    });
    let problem = move || inputs.with(|i| i.as_ref().and_then(|(_, r, _, _)| r.as_ref().err().cloned()));
    let on_train = move |_| {
        if let Some((bench, Ok(resolved), task, warp)) = inputs.get_untracked() {
            let key = key_of(&bench, &resolved, task, warp);
            train(data, workers, status, bench, resolved, key);
        }
    };
    // The prior for the controls' task and warp, if one was trained (here or by a run) on this
    // data and objective; with its training time when it was trained here.
    let ready = Memo::new(move |_| {
        let (bench, resolved, task, warp) = inputs.get()?;
        let resolved = resolved.ok()?;
        let prior = data.learned.with(|s| stored_prior(s, &bench, &resolved, task, warp))?;
        let seconds = match status.get() {
            PriorStatus::Ready { key, seconds } if key == key_of(&bench, &resolved, task, warp) => Some(seconds),
            _ => None,
        };
        Some((bench, resolved, task, warp, prior, seconds))
    });
    let summary = move || {
        let (bench, resolved, task, warp, prior, seconds) = ready.get()?;
        let rmse = prior_rmse_on_target(&bench, &resolved, task, warp, &prior);
        let others: usize = bench.tasks.iter().enumerate().filter(|&(t, _)| t != task).map(|(_, t)| t.len()).sum();
        // Without a time it came from the store: trained by a run, or earlier in this view for
        // another task or warp than the last training here.
        let when = match seconds {
            Some(s) => format!("in {s:.1} s"),
            None => "earlier on this data (reused, not trained again)".into(),
        };
        Some(format!(
            "Prior for {} trained on {others} evaluations of {} other tasks {when} (final loss {:.3}). RMSE of μθ on {}'s own warped values: {rmse:.3} ({}).",
            bench.tasks[task].name,
            bench.tasks.len() - 1,
            prior.final_loss,
            bench.tasks[task].name,
            if rmse < 1.0 { "below 1: the prior predicts this task better than a constant, transfer should help" } else { "not below 1: the prior predicts this task no better than a constant" }
        ))
    };
    let chart = Memo::new(move |_| {
        let Some((bench, resolved, task, warp, prior, _)) = ready.get() else { return Scatter::default() };
        let p = param.get().min(bench.space.params.len().saturating_sub(1));
        let Ok(slice) = prior_slice(&bench, &resolved, task, warp, &prior, p, SWEEP_POINTS) else { return Scatter::default() };
        let name = bench.space.params[p].name.clone();
        let x = |v: f64| if slice.log_scale { libm::log10(v) } else { v };
        let line = |f: &dyn Fn(usize) -> f64| slice.grid.iter().enumerate().map(|(i, &g)| (x(g), f(i))).collect::<Vec<_>>();
        let joined = !matches!(bench.space.params[p].kind, hpo_engine::space::ParamKind::Categorical { .. });
        let z_name = if warp == OutputWarp::Copula { "ψ(loss)" } else { "Δ(loss)" };
        Scatter {
            title: format!("Prior on {} along {name} (others at its best evaluation)", bench.tasks[task].name),
            x_label: if slice.log_scale { format!("{name} (log scale)") } else { name },
            y_label: z_name.into(),
            points: slice.observed.iter().map(|&(v, z)| (x(v), z)).collect(),
            colors: Vec::new(),
            overlays: vec![
                (line(&|i| slice.mean[i] + slice.sd[i]), "#56B4E9", "μθ + σθ".into(), joined),
                (line(&|i| slice.mean[i]), "#0072B2", "μθ".into(), joined),
                (line(&|i| slice.mean[i] - slice.sd[i]), "#56B4E9", "μθ − σθ".into(), joined),
            ],
            log_x: slice.log_scale,
        }
    });
    let anchor = move || {
        let (bench, resolved, task, warp, prior, _) = ready.get()?;
        let p = param.get().min(bench.space.params.len().saturating_sub(1));
        let slice = prior_slice(&bench, &resolved, task, warp, &prior, p, 2).ok()?;
        let list: Vec<String> = slice.anchor.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        Some(format!(
            "Held at {}'s best evaluation: {}.",
            bench.tasks[task].name,
            if list.is_empty() { "(no other hyperparameters)".into() } else { list.join(", ") }
        ))
    };
    let status_line = move || match status.get() {
        PriorStatus::Training { step, total, .. } if total > 0 => format!("Training: {step} of {total} Adam steps"),
        PriorStatus::Training { .. } => "Training: starting a worker".into(),
        _ if ready.with(Option::is_some) => "Trained.".into(),
        PriorStatus::Idle => String::new(),
        // The data changed to something a prior cannot use: the problem line says why.
        PriorStatus::Ready { .. } if problem().is_some() => String::new(),
        PriorStatus::Ready { .. } => "The trained prior is for another task, warp or objective: train again.".into(),
        PriorStatus::Failed(e) => format!("Training failed: {e}"),
        PriorStatus::Cancelled => "Cancelled.".into(),
    };
    let training = move || matches!(status.get(), PriorStatus::Training { .. });
    view! {
        <details id="prior-view">
            <summary>"What the prior has learnt (Salinas et al. 2020, §3)"</summary>
            <p class="hint">"The parametric prior of GCP+prior (ψ) and GP+prior (Δ): a 3×50 MLP trained on every other task (leave-one-task-out), with the paper's settings and the same seed as in runs. It predicts the held-out task's warped loss before any of its evaluations; the grey points are that task's actual values."</p>
            <div class="row">
                <label>"Task "
                    <select id="prior-task" on:change=move |ev| task_name.set(event_target_value(&ev))>
                        {move || inputs.get().map(|(bench, _, task, _)| bench.tasks.iter().enumerate().map(|(k, t)| {
                            view! { <option value=t.name.clone() selected=k == task>{t.name.clone()}</option> }
                        }).collect_view())}
                    </select>
                </label>
                " "
                <label>"Warp "
                    <select id="prior-warp" on:change=move |ev| copula.set(event_target_value(&ev) == "copula")>
                        <option value="copula" selected=true>"ψ (GCP+prior)"</option>
                        <option value="standardize">"Δ (GP+prior)"</option>
                    </select>
                </label>
                " "
                <button id="prior-train" class="primary" disabled=move || training() || ready.with(Option::is_some) || problem().is_some() || inputs.with(Option::is_none) on:click=on_train>"Train prior"</button>
                <button id="prior-cancel" disabled=move || !training() on:click=move |_| cancel(workers, status)>"Cancel"</button>
                " "
                <label>"Along "
                    <select id="prior-param" on:change=move |ev| param.set(event_target_value(&ev).parse().unwrap_or(0))>
                        {move || data.bench.get().map(|b| b.space.params.iter().enumerate().map(|(k, p)| {
                            view! { <option value=k.to_string() selected=k == param.get_untracked()>{p.name.clone()}</option> }
                        }).collect_view())}
                    </select>
                </label>
            </div>
            <p id="prior-problem" class="hint">{problem}</p>
            <p id="prior-status">{status_line}</p>
            <p id="prior-summary">{summary}</p>
            <p id="prior-anchor" class="hint">{anchor}</p>
            <div class="charts" style:display=move || if ready.with(Option::is_some) { "" } else { "none" }>
                <ScatterCanvas id="prior-slice" data=Signal::derive(move || chart.get())/>
            </div>
        </details>
    }
}
