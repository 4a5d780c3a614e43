//! Reading benchmarks from bytes: `.csv`, `.csv.gz` and `.zip` (first file member).
//!
//! Every loader works on bytes so that the CLI (files), the page (uploads, fetches) and the
//! tests share one code path. Errors name the file, line, column and what was expected.

pub mod clean;
pub mod copula;
pub mod curves;
pub mod notes;
pub mod optuna;
pub mod ray_tune;
pub mod roles;
pub mod runs;
pub mod sqlite;
pub mod syne_tune;
pub mod table;
pub mod upload;

use std::io::Read;

use super::error::{EngineError, Result};

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

/// Unpacks `bytes` to the text of a CSV: plain text as is, gzip decompressed, zip by its
/// first file member (whatever its name or path). Refuses binary content.
pub fn unpack_text(file: &str, bytes: &[u8]) -> Result<String> {
    let raw = match detect_container(bytes) {
        Container::Plain => bytes.to_vec(),
        Container::Gzip => {
            let decoder = flate2::read::GzDecoder::new(bytes);
            read_limited(file, decoder, "gzip")?
        }
        Container::Zip => {
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
                .map_err(|e| EngineError::parse(file, format!("not a readable zip archive ({e})")))?;
            let index = (0..archive.len())
                .find(|&i| archive.by_index(i).map(|f| f.is_file()).unwrap_or(false))
                .ok_or_else(|| EngineError::parse(file, "the zip archive contains no file"))?;
            let member = archive.by_index(index).map_err(|e| EngineError::parse(file, format!("cannot open the zip member ({e})")))?;
            let member_name = member.name().map(|n| n.to_string()).unwrap_or_else(|_| "member".into());
            let data = read_limited(file, member, "zip")?;
            // A zip holding a gzip (or another zip) is unpacked once more.
            if detect_container(&data) != Container::Plain {
                return unpack_text(&format!("{file}/{member_name}"), &data);
            }
            data
        }
    };
    to_text(file, raw)
}

/// Paths and contents of every file in a zip archive, within the decompressed-size limit in
/// total.
pub fn zip_members(file: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| EngineError::parse(file, format!("not a readable zip archive ({e})")))?;
    let mut members = Vec::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let member = archive.by_index(i).map_err(|e| EngineError::parse(file, format!("cannot open the zip member ({e})")))?;
        if member.is_dir() {
            continue;
        }
        let name = member.name().map(|n| n.to_string()).unwrap_or_default();
        let data = read_limited(file, member, "zip")?;
        total += data.len() as u64;
        if total > MAX_DECOMPRESSED_BYTES {
            return Err(EngineError::parse(
                file,
                format!("decompresses to more than {} MiB, the most the playground accepts", MAX_DECOMPRESSED_BYTES >> 20),
            ));
        }
        members.push((name, data));
    }
    Ok(members)
}

/// Names of the files in a zip archive (without directories); empty if it is not one.
pub fn zip_member_names(bytes: &[u8]) -> Vec<String> {
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map(|a| a.file_names().filter_map(|n| n.ok()).filter(|n| !n.ends_with('/')).map(|n| base_name(&n)).collect())
        .unwrap_or_default()
}

/// Paths of the files in a zip archive; empty if it is not one.
pub fn zip_member_paths(bytes: &[u8]) -> Vec<String> {
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map(|a| a.file_names().filter_map(|n| n.ok()).filter(|n| !n.ends_with('/')).map(|n| n.to_string()).collect())
        .unwrap_or_default()
}

/// The last part of a path.
pub fn base_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or_default().to_string()
}

fn read_limited(file: &str, reader: impl Read, what: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    reader
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| EngineError::parse(file, format!("the {what} data is corrupted ({e})")))?;
    if out.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(EngineError::parse(
            file,
            format!("decompresses to more than {} MiB, the most the playground accepts", MAX_DECOMPRESSED_BYTES >> 20),
        ));
    }
    Ok(out)
}

fn to_text(file: &str, raw: Vec<u8>) -> Result<String> {
    if let Some(pos) = raw.iter().take(1 << 20).position(|&b| b == 0) {
        return Err(EngineError::parse(
            file,
            format!("this is a binary file, not a CSV (NUL byte at offset {pos}); expected comma-separated text, optionally .gz or .zip"),
        ));
    }
    String::from_utf8(raw).map_err(|e| {
        EngineError::parse(
            file,
            format!(
                "not UTF-8 text (invalid byte at offset {}); expected a CSV file, optionally .gz or .zip",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn plain_gzip_and_zip_give_the_same_text() {
        let text = "a,b\n1,2\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        let mut zbuf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut zbuf);
            w.add_directory("some/dir/", zip::write::SimpleFileOptions::default()).unwrap();
            w.start_file("some/dir/misnamed.csv.zip", zip::write::SimpleFileOptions::default()).unwrap();
            w.write_all(text.as_bytes()).unwrap();
            w.finish().unwrap();
        }
        assert_eq!(unpack_text("p.csv", text.as_bytes()).unwrap(), text);
        assert_eq!(unpack_text("p.csv.gz", &gz).unwrap(), text);
        assert_eq!(unpack_text("p.zip", zbuf.get_ref()).unwrap(), text);
    }

    #[test]
    fn corrupted_zip_and_binary_are_refused_with_a_message() {
        let err = unpack_text("bad.zip", b"PK\x03\x04garbage").unwrap_err().to_string();
        assert!(err.contains("bad.zip") && err.contains("zip"), "{err}");
        let err = unpack_text("img.csv", &[0x89, b'P', b'N', b'G', 0, 0, 1]).unwrap_err().to_string();
        assert!(err.contains("binary"), "{err}");
        let err = unpack_text("latin.csv", &[b'a', 0xff, b'b']).unwrap_err().to_string();
        assert!(err.contains("UTF-8"), "{err}");
    }
}
