//! The code that runs inside each Web Worker: receives the benchmark once, then jobs.

use gloo_worker::{HandlerId, Registrable, Worker, WorkerScope};
use wasm_bindgen::JsCast;

use crate::engine::benchmark::Benchmark;
use crate::engine::loaders::upload::load_file;
use crate::engine::runner::{run_job, JobProgress};
use crate::engine::spec::ResolvedSpec;
use crate::engine::transfer::{train_target_prior, PriorCache};
use crate::worker_protocol::{FromWorker, ToWorker};

const PROGRESS_SECONDS: f64 = 0.1;

/// Worker state: the current generation's benchmark and spec.
pub struct HpoWorker {
    loaded: Option<(u32, Benchmark, ResolvedSpec, PriorCache)>,
}

fn now_seconds() -> f64 {
    js_sys::global()
        .dyn_into::<web_sys::WorkerGlobalScope>()
        .ok()
        .and_then(|g| g.performance())
        .map(|p| p.now() / 1000.0)
        .unwrap_or_else(|| js_sys::Date::now() / 1000.0)
}

impl Worker for HpoWorker {
    type Message = ();
    type Input = ToWorker;
    type Output = FromWorker;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        HpoWorker { loaded: None }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn received(&mut self, scope: &WorkerScope<Self>, msg: ToWorker, who: HandlerId) {
        match msg {
            ToWorker::Load { generation, benchmark, resolved } => {
                self.loaded = Some((generation, *benchmark, *resolved, PriorCache::new()))
            }
            ToWorker::Parse { request, file, bytes, roles } => {
                let t0 = now_seconds();
                let result = load_file(&file, &bytes, roles.as_ref());
                scope.respond(who, FromWorker::Parsed { request, result, parse_ms: (now_seconds() - t0) * 1000.0 });
            }
            ToWorker::TrainPrior { request, benchmark, resolved, target, warp } => {
                let t0 = now_seconds();
                let mut progress = |step, total| {
                    scope.respond(who, FromWorker::PriorProgress { request, step, total });
                    true
                };
                let result =
                    train_target_prior(&benchmark, &resolved, target, warp, &mut progress).map(Box::new).map_err(|e| e.to_string());
                scope.respond(who, FromWorker::PriorTrained { request, result, seconds: now_seconds() - t0 });
            }
            ToWorker::Run { generation, id, job } => {
                let result = match &self.loaded {
                    Some((g, bench, resolved, priors)) if *g == generation => {
                        // Progress at most every 100 ms: short jobs finish before saying anything.
                        let mut last = now_seconds();
                        let mut progress = |p: JobProgress| {
                            let now = now_seconds();
                            if now - last >= PROGRESS_SECONDS {
                                last = now;
                                scope.respond(who, FromWorker::Progress { generation, id, progress: p });
                            }
                            true
                        };
                        run_job(bench, resolved, &job, priors, &now_seconds, &mut progress).map_err(|e| e.to_string())
                    }
                    _ => Err("the worker has no data for this run".to_string()),
                };
                scope.respond(who, FromWorker::Done { generation, id, result });
            }
        }
    }
}

/// Entry point of the worker binary.
pub fn register() {
    console_error_panic_hook::set_once();
    HpoWorker::registrar().register();
}
