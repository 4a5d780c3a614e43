//! Reading benchmarks from bytes: `.csv`, `.csv.gz` and `.zip`, unpacked once ([`Unpacked`])
//! and recognised by the ordered table of formats ([`formats::FORMATS`]).
//!
//! Every loader works on bytes so that the CLI (files), the page (uploads, fetches) and the
//! tests share one code path. Errors name the file, line, column and what was expected.

pub mod clean;
pub mod copula;
pub mod curves;
pub mod file_format;
pub mod formats;
pub mod notes;
pub mod optuna;
pub mod ray_tune;
pub mod roles;
pub mod runs;
pub mod sqlite;
pub mod syne_tune;
pub mod table;
pub mod unpacked;
pub mod upload;

use super::error::Result;
pub use unpacked::Unpacked;

/// Largest decompressed size accepted (bytes). Anything larger is refused with a message
/// rather than exhausting the tab's memory.
pub const MAX_DECOMPRESSED_BYTES: u64 = 512 * 1024 * 1024;

/// What kind of container the bytes are, judged by their magic number (not the file name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A zip archive.
    Zip,
    /// A gzip stream.
    Gzip,
    /// Anything else: treated as plain text.
    Plain,
}

/// Detects the container from the first bytes.
pub fn detect_container(bytes: &[u8]) -> Container {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        Container::Zip
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        Container::Gzip
    } else {
        Container::Plain
    }
}

/// The text of a CSV in `bytes` (plain, .gz or .zip: [`Unpacked`]).
pub fn unpack_text(file: &str, bytes: &[u8]) -> Result<String> {
    Ok(Unpacked::of(file, bytes)?.text()?.to_string())
}

/// The last part of a path.
pub fn base_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or_default().to_string()
}
