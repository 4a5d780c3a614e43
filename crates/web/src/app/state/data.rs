//! The loaded data and what was read or learned from it.

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;

use hpo_engine::benchmark::Benchmark;
use hpo_engine::loaders::file_format::FileFormat;
use hpo_engine::spec::DataRef;
use hpo_engine::spec::ResolvedSpec;
use hpo_engine::suggest::SuggestedFiles;
use hpo_engine::transfer::{Learned, LearnedStore};
use hpo_engine::warping::OutputWarp;
use hpo_protocol::EncodedBenchmark;

/// A CSV waiting for the user to say what its columns are.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleEditor {
    /// File name.
    pub file: String,
    /// Why roles are needed.
    pub message: String,
    /// Column names.
    pub headers: Vec<String>,
    /// First rows.
    pub preview: Vec<Vec<String>>,
    /// Role per column: ignore, hp, cat, min, max, task, step, run, runstep.
    pub roles: Vec<String>,
    /// Why the last "Load with these roles" failed, shown beside its button.
    pub error: Option<String>,
}

/// The loaded data and what was read or learned from it.
#[derive(Clone, Copy)]
pub struct DataState {
    /// The loaded benchmark.
    pub bench: RwSignal<Option<Arc<Benchmark>>>,
    /// One line describing the loaded data.
    pub info: RwSignal<String>,
    /// Data is being loaded.
    pub loading: RwSignal<bool>,
    /// Files from ../shared/benchmarks served beside the app.
    pub shared_files: RwSignal<Vec<String>>,
    /// The link names an uploaded file that has not been provided yet: (name, sha256).
    pub pending_upload: RwSignal<Option<(String, String)>>,
    /// The column-role editor, when a generic CSV is being loaded.
    pub role_editor: RwSignal<Option<RoleEditor>>,
    /// Priors and SGPT's means learned so far on the loaded data (by runs and the prior view).
    pub learned: RwSignal<LearnedStore>,
    /// The loaded data had missing or non-finite values repaired (as the task's worst value,
    /// which depends on the direction).
    pub repaired: RwSignal<bool>,
    /// The loaded benchmark's bytes as the parser encoded them, with the benchmark they are.
    pub encoded: StoredValue<Option<(Arc<Benchmark>, EncodedBenchmark)>>,
    /// The user's files as read, to read again with other options.
    pub files: StoredValue<UserFiles, LocalStorage>,
    /// The latest next trials proposed for the loaded study (the Next trials panel's), which
    /// the study's slice and contour views draw.
    pub suggested: RwSignal<Option<Arc<SuggestedFiles>>>,
}

/// A user's file (an upload or a download) as read once: its bytes are shared, not copied, by
/// whatever keeps, parses or reads it again.
#[derive(Clone)]
pub struct UserFile {
    /// What the link calls it.
    pub data: DataRef,
    /// Its name.
    pub name: String,
    /// Its content (`Rc<Vec>`: made from the read's own buffer, without a copy).
    pub bytes: Rc<Vec<u8>>,
}

/// What the page remembers of the user's files it read.
#[derive(Default)]
pub struct UserFiles {
    /// The last file that needed column roles.
    pub awaiting_roles: Option<UserFile>,
    /// The last user file loaded, so that it can be read again with other options (missing
    /// values, scales, column roles).
    pub last: Option<UserFile>,
    /// The format the parser found `last` in (the next trials are offered by it).
    pub last_format: Option<FileFormat>,
}

impl DataState {
    pub(super) fn new() -> Self {
        DataState {
            bench: RwSignal::new(None),
            info: RwSignal::new(String::new()),
            loading: RwSignal::new(false),
            shared_files: RwSignal::new(Vec::new()),
            pending_upload: RwSignal::new(None),
            role_editor: RwSignal::new(None),
            learned: RwSignal::new(LearnedStore::default()),
            repaired: RwSignal::new(false),
            encoded: StoredValue::new(None),
            files: StoredValue::new_local(UserFiles::default()),
            suggested: RwSignal::new(None),
        }
    }

    /// What a run's workers receive for `bench`: the parser's bytes when `bench` is the data
    /// they were parsed into, else `bench` encoded here, once for the whole run.
    pub fn encoded_for(&self, bench: &Arc<Benchmark>) -> Result<EncodedBenchmark, String> {
        let parsed = self.encoded.with_value(|e| e.as_ref().filter(|(b, _)| Arc::ptr_eq(b, bench)).map(|(_, e)| e.clone()));
        parsed.map_or_else(|| EncodedBenchmark::encode(bench), Ok)
    }

    /// Keeps what a run or the prior view learned on `bench`, if `bench` is still the loaded
    /// data: a result that arrives after other data was loaded would only evict what was
    /// learned on the new data.
    pub fn keep_learned(&self, bench: &Arc<Benchmark>, resolved: &ResolvedSpec, target: usize, warp: OutputWarp, learned: Learned) {
        if self.bench.with_untracked(|b| b.as_ref().is_some_and(|b| Arc::ptr_eq(b, bench))) {
            self.learned.update(|s| s.insert(bench, resolved, target, warp, learned));
        }
    }
}
