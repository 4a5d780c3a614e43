//! What every subcommand shares: the error type, the thread pool, the loader's notes, file
//! reading and the build's fingerprint that keys every run cache.

use std::path::Path;

use hpo_playground::engine::optimizer::fnv1a;

/// Every command's result: any error, printed as `error: …` with exit status 1.
pub type CliResult<T> = Result<T, Box<dyn std::error::Error>>;

/// `--threads N`: the size of the global rayon pool (default: all cores).
pub fn set_threads(threads: Option<usize>) -> CliResult<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
    Ok(())
}

/// Runs `work` on a thread of the rayon pool. A parallel iterator over a single item runs on
/// the calling thread, and from there every `rayon::join` inside the engine (the blocked
/// products' split) is sent to the pool and waited for; from a pool thread it is not.
pub fn in_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| work())
}

/// What the loader said of the data, each once on stderr, in the page's words.
pub fn print_notes(notes: &[impl std::fmt::Display]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}

/// The bytes of a file, or an error naming it.
pub fn read_file(path: &Path) -> CliResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()).into())
}

/// FNV-1a of this executable's bytes (0 if it cannot be read): run caches are keyed by it, so
/// a rebuilt binary (changed code) never reuses another build's traces.
pub fn build_fingerprint() -> u64 {
    std::env::current_exe().and_then(std::fs::read).map(|b| fnv1a(&b)).unwrap_or(0)
}
