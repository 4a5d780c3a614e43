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
use hpo_engine::explore::views::Exploration;
use hpo_engine::fidelity::gpb::view_setting::DesignViewSpec;
use hpo_engine::gpb_experiments::design_view::{DesignTable, DesignViewData};
use hpo_engine::lessons::{LessonFrames, LessonJob};
use hpo_engine::loaders::file_format::FileFormat;
use hpo_engine::loaders::notes::Note;
use hpo_engine::loaders::table::LoadOptions;
use hpo_engine::loaders::upload::{LoadFailure, LoadedFile};
use hpo_engine::prior::TrainedPrior;
use hpo_engine::spec::{ExperimentSpec, Job};
use hpo_engine::suggest::SuggestedFiles;
use hpo_engine::trace::{JobProgress, Trace};
use hpo_engine::transfer::Learned;
use hpo_engine::warping::OutputWarp;
use std::sync::Arc;

/// Page → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ToWorker {
    /// Replace the worker's benchmark and spec (the worker resolves the spec against the
    /// benchmark itself: only plain data crosses the boundary).
    Load {
        /// Generation counter: replies to older generations are ignored by the page.
        generation: u32,
        /// The benchmark, as the parser encoded it.
        benchmark: EncodedBenchmark,
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
        /// The benchmark, as the parser encoded it (never encoded again on the page).
        benchmark: EncodedBenchmark,
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
    /// Propose a study's next trials (the GP code stays out of the page's bundle).
    Suggest {
        /// Request id.
        request: u32,
        /// File name.
        file: String,
        /// The journal's bytes.
        bytes: Vec<u8>,
        /// The study, when the journal holds several.
        study: Option<String>,
        /// The method.
        method: String,
        /// How many.
        n: usize,
        /// Seed.
        seed: u64,
    },
    /// Compute the views of a study (the forest and the GP stay out of the page's bundle).
    Explore {
        /// Request id.
        request: u32,
        /// Its trials.
        source: ExploreSource,
        /// The study (or task), when the file holds several.
        study: Option<String>,
        /// The contour's two parameters (default: the two most important).
        contour: Option<(String, String)>,
        /// The seed of the forests and of the surrogate's subsample.
        seed: u64,
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

/// Where a study's trials come from, for the study's views.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ExploreSource {
    /// One of Optuna's storages, read again in the worker: every trial, pruned and failed
    /// ones with their intermediate values (the table the page loaded keeps complete ones).
    OptunaFile {
        /// File name.
        file: String,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// The loaded table's task.
    Table {
        /// The benchmark, as the parser encoded it.
        benchmark: EncodedBenchmark,
        /// The task.
        task: usize,
        /// What the file is, in words.
        source: String,
    },
}

/// A study's views and their CSV files, both made in the worker: the page links no CSV writer
/// (its main wasm stays within its size budget, tests/e2e/loading.test.mjs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExploredStudy {
    /// Every view's numbers.
    pub views: Exploration,
    /// Every view's file (`Exploration::files`, what `hpo explore` writes).
    pub files: Vec<(String, String)>,
}

impl ExploreSource {
    /// Every view of the study this source holds (`hpo explore`'s numbers and files).
    pub fn explore(&self, study: Option<&str>, contour: Option<(&str, &str)>, seed: u64) -> Result<ExploredStudy, String> {
        use hpo_engine::explore::{read_trials, views::explore, StudyTrials};
        let trials = match self {
            ExploreSource::OptunaFile { file, bytes } => read_trials(file, bytes, study, &Default::default()).map_err(|e| e.to_string())?,
            ExploreSource::Table { benchmark, task, source } => {
                let benchmark = benchmark.decode()?;
                if *task >= benchmark.tasks.len() {
                    return Err(format!("the data has {} tasks, not {}", benchmark.tasks.len(), task + 1));
                }
                StudyTrials::of_task(&benchmark, *task, source)
            }
        };
        let views = explore(trials, contour, seed);
        let files = views.files().into_iter().map(|(name, csv)| (name.to_string(), csv)).collect();
        Ok(ExploredStudy { views, files })
    }
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
        result: Result<ParsedFile, LoadFailure>,
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
    /// A study's next trials, or why not.
    Suggested {
        /// Request id.
        request: u32,
        /// The table and files.
        result: Result<Box<SuggestedFiles>, String>,
        /// Milliseconds spent in the worker.
        ms: f64,
    },
    /// A study's views, or why not.
    Explored {
        /// Request id.
        request: u32,
        /// Every view and its files.
        result: Result<Box<ExploredStudy>, String>,
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
        /// Wall seconds the job took in the worker (what the time left is estimated from).
        seconds: f64,
    },
}

/// A benchmark as bincode bytes. The parser worker encodes a file's benchmark once; the page
/// decodes its own copy and hands the same bytes to each of a run's workers, so no one encodes
/// the table again on the page's thread (sharing the bytes, a message copies them once).
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedBenchmark(Arc<Vec<u8>>);

impl EncodedBenchmark {
    /// The bytes of `benchmark`.
    pub fn encode(benchmark: &Benchmark) -> Result<Self, String> {
        encode(benchmark).map(|b| EncodedBenchmark(Arc::new(b)))
    }

    /// The benchmark back, or why not.
    pub fn decode(&self) -> Result<Benchmark, String> {
        decode(&self.0)
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for no bytes at all (never a valid benchmark).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

// As bytes (one copy), not as a sequence of u8s (one call per byte).
impl Serialize for EncodedBenchmark {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for EncodedBenchmark {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a benchmark's bytes")
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
        }
        deserializer.deserialize_byte_buf(Bytes).map(|b| EncodedBenchmark(Arc::new(b)))
    }
}

/// A parsed file as it crosses to the page: its benchmark's bytes and the loader's notes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedFile {
    /// The benchmark.
    pub benchmark: EncodedBenchmark,
    /// The loader's notes.
    pub notes: Vec<Note>,
    /// What the file was recognised as.
    pub format: FileFormat,
}

impl ParsedFile {
    /// A loaded file, its benchmark encoded.
    pub fn encode(file: LoadedFile) -> Result<Self, String> {
        Ok(ParsedFile { benchmark: EncodedBenchmark::encode(&file.benchmark)?, notes: file.notes, format: file.format })
    }

    /// The loaded file back, and its benchmark's bytes.
    pub fn decode(self) -> Result<(LoadedFile, EncodedBenchmark), String> {
        Ok((LoadedFile { benchmark: self.benchmark.decode()?, notes: self.notes, format: self.format }, self.benchmark))
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use hpo_engine::bundled::load_bundled;

    #[test]
    fn a_parsed_benchmark_crosses_as_its_bytes_and_comes_back_equal() {
        let bench = load_bundled("curves").unwrap();
        let parsed = ParsedFile::encode(LoadedFile {
            benchmark: bench.clone(),
            notes: vec![Note::said("f.csv", "a note")],
            format: FileFormat::Copula,
        })
        .unwrap();
        let bytes = parsed.benchmark.len();
        let message = FromWorker::Parsed { request: 7, result: Ok(parsed), parse_ms: 1.0 }.encode().unwrap();
        // The bytes are written once, as bytes: the message is them plus a few dozen (the
        // note, its file, the format, the request).
        assert!(message.len() >= bytes && message.len() < bytes + 96, "{} for {bytes}", message.len());
        let FromWorker::Parsed { result: Ok(parsed), .. } = FromWorker::decode(&message).unwrap() else { panic!("a parsed file") };
        let (file, encoded) = parsed.decode().unwrap();
        assert!(file.benchmark == bench && file.notes == [Note::said("f.csv", "a note")] && file.format == FileFormat::Copula);
        // What a run's worker receives is the same bytes, and reads the same benchmark.
        let load = ToWorker::Load { generation: 1, benchmark: encoded.clone(), spec: Box::default() }.encode().unwrap();
        let ToWorker::Load { benchmark, .. } = ToWorker::decode(&load).unwrap() else { panic!("a load") };
        assert!(benchmark == encoded && benchmark.decode().unwrap() == bench);
        assert!(EncodedBenchmark(Arc::new(vec![1, 2, 3])).decode().is_err(), "bad bytes are an error, not a panic");
    }

    #[test]
    fn a_study_with_its_history_and_roles_of_runs_cross_too() {
        let bytes = include_bytes!("../../../tests/fixtures/studies/raytune-mlp-experiment.zip");
        let loaded = hpo_engine::loaders::upload::load_file("raytune-mlp-experiment.zip", bytes, None).unwrap();
        assert!(loaded.benchmark.tasks[0].history.is_some());
        let bench = loaded.benchmark.clone();
        let (back, _) = ParsedFile::encode(loaded).unwrap().decode().unwrap();
        assert_eq!(back.benchmark, bench);
    }
}
