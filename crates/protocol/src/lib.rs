//! Messages between the page and its Web Workers, in bincode (`app::worker_host` on the page,
//! `app::worker` in the worker). A crate of its own, built for speed like the engine: the page
//! decodes tens of megabytes here (a parsed LCBench), and serde's code for a message is
//! compiled where it is called, so here and not in the page's size-optimised crate.
//!
//! A worker says `Ready` once its handler is set, then receives the benchmark once and any
//! number of jobs. It answers each job with progress messages and one final trace (or error),
//! tagged with the job's id. A worker whose Rust code panics says `Crashed` before it dies.

#![warn(missing_docs)]

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use hpo_engine::benchmark::Benchmark;
use hpo_engine::gpb::view::{DesignTable, DesignViewData, DesignViewSpec};
use hpo_engine::lessons::{LessonFrames, LessonJob};
use hpo_engine::loaders::table::LoadOptions;
use hpo_engine::loaders::upload::{LoadFailure, LoadedFile};
use hpo_engine::prior::TrainedPrior;
use hpo_engine::runner::{JobProgress, Trace};
use hpo_engine::spec::{ExperimentSpec, Job};
use hpo_engine::transfer::Learned;
use hpo_engine::warping::OutputWarp;

/// Page → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ToWorker {
    /// Replace the worker's benchmark and spec (the worker resolves the spec against the
    /// benchmark itself: only plain data crosses the boundary).
    Load {
        /// Generation counter: replies to older generations are ignored by the page.
        generation: u32,
        /// The benchmark.
        benchmark: Box<Benchmark>,
        /// The spec.
        spec: Box<ExperimentSpec>,
    },
    /// Keep the benchmark of the last `Load` (the page knows it is the same data) and start a
    /// new generation with this spec: re-running on large data does not send it again.
    Reload {
        /// Generation counter.
        generation: u32,
        /// The spec.
        spec: Box<ExperimentSpec>,
    },
    /// Parse a file (so that big files never freeze the page).
    Parse {
        /// Request id.
        request: u32,
        /// File name.
        file: String,
        /// File content.
        bytes: Vec<u8>,
        /// Column roles, missing values, scales (from the link).
        options: Box<LoadOptions>,
        /// Answer with the column editor's starting point instead of loading.
        review: bool,
    },
    /// Train the parametric prior of one task (leave-one-task-out) for the page's prior view.
    TrainPrior {
        /// Request id.
        request: u32,
        /// The benchmark.
        benchmark: Box<Benchmark>,
        /// Objective(s) and direction.
        spec: Box<ExperimentSpec>,
        /// Held-out task.
        target: usize,
        /// ψ (GCP+prior) or Δ (GP+prior).
        warp: OutputWarp,
    },
    /// What another worker learned for this generation's run: use it instead of learning it.
    Share {
        /// Generation.
        generation: u32,
        /// Held-out task.
        target: usize,
        /// ψ or Δ.
        warp: OutputWarp,
        /// The prior or SGPT's means.
        learned: Learned,
    },
    /// Build the design view's design (paper 003 §3) off the page's thread.
    Design {
        /// Request id.
        request: u32,
        /// The view's setting.
        spec: DesignViewSpec,
        /// The loaded data's problem, or `None` for the unit square.
        table: Option<Box<DesignTable>>,
    },
    /// Compute a lesson's frames (the GP and GPB code stay out of the page's bundle).
    Lesson {
        /// Request id.
        request: u32,
        /// What to compute.
        job: LessonJob,
    },
    /// Run one job.
    Run {
        /// Generation the job belongs to.
        generation: u32,
        /// Job id, unique within a generation.
        id: u32,
        /// The job.
        job: Job,
        /// A failure to simulate instead of running the job (set only by tests; see
        /// [`InjectedFault`]).
        fault: Option<InjectedFault>,
    },
}

/// A way for a worker to die, simulated on purpose so that end-to-end tests can check what
/// the page does when a worker crashes. Nothing in the page's interface sets it: a test sets
/// `window.hpoInjectFault = 'panic'` (or `'oom'`) and the next job dispatched carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InjectedFault {
    /// A Rust panic inside the job.
    Panic,
    /// Allocating until the WebAssembly memory cannot grow (a real out-of-memory abort).
    OutOfMemory,
}

/// Worker → page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker's wasm has started and listens: messages sent earlier were held by the page.
    Ready,
    /// The worker's Rust code panicked (the panic's message); the worker is about to die.
    Crashed {
        /// The panic message with its location.
        message: String,
    },
    /// How far a job has got.
    Progress {
        /// Generation.
        generation: u32,
        /// Job id.
        id: u32,
        /// Prior training or iterations done.
        progress: JobProgress,
    },
    /// A parsed file.
    Parsed {
        /// Request id.
        request: u32,
        /// The benchmark or why not.
        result: Result<LoadedFile, LoadFailure>,
        /// Milliseconds spent parsing in the worker.
        parse_ms: f64,
    },
    /// Prior training steps done (every 100 steps).
    PriorProgress {
        /// Request id.
        request: u32,
        /// Adam steps done.
        step: usize,
        /// Adam steps in all.
        total: usize,
    },
    /// A trained prior, or why not.
    PriorTrained {
        /// Request id.
        request: u32,
        /// The prior.
        result: Result<Box<TrainedPrior>, String>,
        /// Training time in the worker.
        seconds: f64,
    },
    /// A prior or SGPT's means this worker learned during a job (sent at the job's first
    /// iteration), for the page to share with the other workers.
    Learned {
        /// Generation.
        generation: u32,
        /// Held-out task.
        target: usize,
        /// ψ or Δ.
        warp: OutputWarp,
        /// What was learned.
        learned: Learned,
    },
    /// The design view, or why not.
    Designed {
        /// Request id.
        request: u32,
        /// What the view draws.
        result: Result<Box<DesignViewData>, String>,
        /// Milliseconds spent in the worker.
        ms: f64,
    },
    /// A lesson's frames, or why not.
    LessonFrames {
        /// Request id.
        request: u32,
        /// The frames.
        result: Result<Box<LessonFrames>, String>,
        /// Milliseconds spent in the worker.
        ms: f64,
    },
    /// A finished job.
    Done {
        /// Generation.
        generation: u32,
        /// Job id.
        id: u32,
        /// The trace, or the error message.
        result: Result<Trace, String>,
    },
}

/// A message as it crosses the boundary: bincode (compact and fast; not self-describing, so
/// every field is always written — see `ExperimentSpec`).
fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, String> {
    bincode::serialize(message).map_err(|e| format!("cannot encode a message ({e})"))
}

/// A message from its bytes, or why not.
fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    bincode::deserialize(bytes).map_err(|e| format!("cannot read a message ({e})"))
}

impl ToWorker {
    /// The message's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        encode(self)
    }

    /// A message from its bytes, or why not.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode(bytes)
    }
}

impl FromWorker {
    /// The message's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        encode(self)
    }

    /// A message from its bytes, or why not.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode(bytes)
    }
}
