//! The code that runs inside each Web Worker: receives the benchmark once, then jobs.
//! Messages are bincode over `postMessage` (see [`crate::worker_protocol`]); a panic is
//! reported to the page before the worker dies.

use std::cell::RefCell;
use std::collections::BTreeSet;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use hpo_engine::benchmark::Benchmark;
use hpo_engine::gpb_experiments::design_view::design_view;
use hpo_engine::loaders::upload::{load_file_with, review_roles, LoadFailure};
use hpo_engine::runner::run_job;
use hpo_engine::spec::ResolvedSpec;
use hpo_engine::suggest::suggest_files;
use hpo_engine::trace::JobProgress;
use hpo_engine::transfer::{train_target_prior, LearnedKind, PriorCache};
use hpo_engine::warping::OutputWarp;
use hpo_protocol::{FromWorker, InjectedFault, ParsedFile, ToWorker};

const PROGRESS_SECONDS: f64 = 0.1;

/// Worker state: the current generation's benchmark, spec and priors.
pub struct HpoWorker {
    loaded: Option<Loaded>,
}

struct Loaded {
    generation: u32,
    bench: Benchmark,
    /// The spec resolved here against the benchmark, or why it does not resolve.
    resolved: Result<ResolvedSpec, String>,
    priors: PriorCache,
    /// What the page already knows of (learned here and reported, or shared by it).
    known: BTreeSet<(usize, OutputWarp, LearnedKind)>,
}

fn now_seconds() -> f64 {
    js_sys::global()
        .dyn_into::<web_sys::WorkerGlobalScope>()
        .ok()
        .and_then(|g| g.performance())
        .map(|p| p.now() / 1000.0)
        .unwrap_or_else(|| js_sys::Date::now() / 1000.0)
}

/// Sends `msg` to the page.
fn respond(msg: FromWorker) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    match msg.encode() {
        Ok(bytes) => {
            let array = js_sys::Uint8Array::from(bytes.as_slice());
            let transfer = js_sys::Array::of1(&array.buffer());
            if let Err(e) = scope.post_message_with_transfer(&array, &transfer) {
                web_sys::console::error_1(&e);
            }
        }
        Err(e) => web_sys::console::error_1(&e.into()),
    }
}

/// Dies the way `fault` says (see [`InjectedFault`]).
fn simulate(fault: InjectedFault) {
    match fault {
        InjectedFault::Panic => panic!("simulated panic (a test asked for it)"),
        InjectedFault::OutOfMemory => {
            // Reserve 64 MiB blocks until the WebAssembly memory (4 GiB at most) cannot grow:
            // the allocator then aborts, as on a real out-of-memory. (Reserved, not written:
            // the pages need not be touched for `memory.grow` to run out.)
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            for _ in 0..1 << 10 {
                hoard.push(Vec::with_capacity(64 << 20));
            }
            std::hint::black_box(&hoard);
        }
    }
}

impl HpoWorker {
    fn received(&mut self, msg: ToWorker) {
        match msg {
            ToWorker::Load { generation, benchmark, spec } => match benchmark.decode() {
                Ok(bench) => {
                    let resolved = spec.resolve(&bench).map_err(|e| e.to_string());
                    self.loaded = Some(Loaded { generation, bench, resolved, priors: PriorCache::new(), known: BTreeSet::new() })
                }
                // Its jobs then fail, each saying "the worker has no data for this run".
                Err(e) => {
                    web_sys::console::error_1(&e.into());
                    self.loaded = None;
                }
            },
            ToWorker::Reload { generation, spec } => {
                if let Some(l) = self.loaded.take() {
                    let resolved = spec.resolve(&l.bench).map_err(|e| e.to_string());
                    self.loaded = Some(Loaded { generation, bench: l.bench, resolved, priors: PriorCache::new(), known: BTreeSet::new() })
                }
            }
            ToWorker::Share { generation, target, warp, learned } => {
                if let Some(l) = self.loaded.as_mut().filter(|l| l.generation == generation) {
                    l.known.insert((target, warp, learned.kind()));
                    l.priors.insert(target, warp, learned);
                }
            }
            ToWorker::Parse { request, file, bytes, options, review } => {
                let t0 = now_seconds();
                let result = if review {
                    review_roles(&file, &bytes).map_err(LoadFailure::Error).and_then(Err)
                } else {
                    load_file_with(&file, &bytes, &options).and_then(|f| ParsedFile::encode(f).map_err(LoadFailure::Error))
                };
                respond(FromWorker::Parsed { request, result, parse_ms: (now_seconds() - t0) * 1000.0 });
            }
            ToWorker::TrainPrior { request, benchmark, spec, target, warp } => {
                let t0 = now_seconds();
                let mut progress = |step, total| {
                    respond(FromWorker::PriorProgress { request, step, total });
                    true
                };
                let result = benchmark.decode().and_then(|benchmark| {
                    spec.resolve(&benchmark)
                        .and_then(|resolved| train_target_prior(&benchmark, &resolved, target, warp, &mut progress))
                        .map(Box::new)
                        .map_err(|e| e.to_string())
                });
                respond(FromWorker::PriorTrained { request, result, seconds: now_seconds() - t0 });
            }
            ToWorker::Design { request, spec, table } => {
                let t0 = now_seconds();
                let result = design_view(&spec, table.as_deref()).map(Box::new).map_err(|e| e.to_string());
                respond(FromWorker::Designed { request, result, ms: (now_seconds() - t0) * 1000.0 });
            }
            ToWorker::Suggest { request, file, bytes, study, method, n, seed } => {
                let t0 = now_seconds();
                let result = suggest_files(&file, &bytes, study.as_deref(), &method, n, seed).map(Box::new).map_err(|e| e.to_string());
                respond(FromWorker::Suggested { request, result, ms: (now_seconds() - t0) * 1000.0 });
            }
            ToWorker::Explore { request, source, study, contour, seed } => {
                let t0 = now_seconds();
                let contour = contour.as_ref().map(|(a, b)| (a.as_str(), b.as_str()));
                let result = source.explore(study.as_deref(), contour, seed).map(Box::new);
                respond(FromWorker::Explored { request, result, ms: (now_seconds() - t0) * 1000.0 });
            }
            ToWorker::Lesson { request, job } => {
                let t0 = now_seconds();
                let result = job.run().map(Box::new).map_err(|e| e.to_string());
                respond(FromWorker::LessonFrames { request, result, ms: (now_seconds() - t0) * 1000.0 });
            }
            ToWorker::Run { generation, id, job, fault } => {
                let t0 = now_seconds();
                if let Some(fault) = fault {
                    simulate(fault);
                }
                let result = match self.loaded.as_mut() {
                    Some(Loaded { resolved: Err(e), generation: g, .. }) if *g == generation => Err(e.clone()),
                    Some(l) if l.generation == generation => {
                        let Ok(resolved) = &l.resolved else { unreachable!("matched above") };
                        // Progress at most every 100 ms: short jobs finish before saying anything.
                        // What this job learned (a prior, SGPT's means) is reported as soon as the
                        // first iteration runs, so workers waiting for it need not wait for the job.
                        let mut last = now_seconds();
                        let (priors, known) = (&l.priors, &mut l.known);
                        let mut progress = |p: JobProgress| {
                            if !matches!(p, JobProgress::Prior { .. }) {
                                report_new_learned(generation, priors, known);
                            }
                            let now = now_seconds();
                            if now - last >= PROGRESS_SECONDS {
                                last = now;
                                respond(FromWorker::Progress { generation, id, progress: p });
                            }
                            true
                        };
                        let result = run_job(&l.bench, resolved, &job, priors, &now_seconds, &mut progress).map_err(|e| e.to_string());
                        report_new_learned(generation, &l.priors, &mut l.known);
                        result
                    }
                    _ => Err("the worker has no data for this run".to_string()),
                };
                respond(FromWorker::Done { generation, id, result, seconds: now_seconds() - t0 });
            }
        }
    }
}

/// Sends the page every prior and set of SGPT means in `priors` it does not know of yet.
fn report_new_learned(generation: u32, priors: &PriorCache, known: &mut BTreeSet<(usize, OutputWarp, LearnedKind)>) {
    for ((target, warp), learned) in priors.learned() {
        if known.insert((target, warp, learned.kind())) {
            respond(FromWorker::Learned { generation, target, warp, learned });
        }
    }
}

/// Entry point of the worker binary: reports panics to the page, listens, says `Ready`.
pub fn register() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The page says what happened in words; where it happened goes to the console above.
        respond(FromWorker::Crashed { message: info.payload_as_str().unwrap_or("no message").to_string() });
    }));
    let worker = RefCell::new(HpoWorker { loaded: None });
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let bytes = js_sys::Uint8Array::new(&event.data()).to_vec();
        match ToWorker::decode(&bytes) {
            Ok(msg) => worker.borrow_mut().received(msg),
            Err(e) => respond(FromWorker::Crashed { message: format!("the worker {e}") }),
        }
    });
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    respond(FromWorker::Ready);
}
