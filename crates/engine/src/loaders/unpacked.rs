//! A file unpacked once: its container (plain, gzip or zip) opened here and nowhere else,
//! and what the format table ([`super::formats`]) and every loader after it read — the
//! unpacked bytes, the text, the zip's members, the parsed CSV table — taken from this one
//! value. A zip is opened once whichever format it turns out to be.

use std::cell::OnceCell;
use std::io::Read;

use super::table::{read_table, CsvTable};
use super::{base_name, detect_container, Container, MAX_DECOMPRESSED_BYTES};
use crate::error::{EngineError, Result};

/// Where the content of an [`Unpacked`] file is.
enum Content<'a> {
    /// The bytes as given (a plain file).
    Given(&'a [u8]),
    /// Decompressed bytes (a gzip stream, or a container inside a zip's member).
    Decompressed(Vec<u8>),
    /// The zip member of this index.
    Member(usize),
}

/// A file's bytes with their container opened.
pub struct Unpacked<'a> {
    /// The file's name, for messages.
    file: String,
    /// A zip's files (path, contents) in the archive's order; empty for any other container.
    members: Vec<(String, Vec<u8>)>,
    content: Content<'a>,
    /// The content read as a CSV table, once asked for.
    table: OnceCell<Result<CsvTable>>,
}

#[cfg(test)]
thread_local! {
    /// How many zip archives this thread opened (the test that a file is unpacked once).
    pub(crate) static ZIPS_OPENED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl<'a> Unpacked<'a> {
    /// Opens `bytes`' container: a gzip stream is decompressed, a zip's files are all read
    /// (its content is its first file, unpacked once more when that is itself a gzip or zip),
    /// anything else is taken as it is. Refuses a corrupted archive and more than
    /// [`MAX_DECOMPRESSED_BYTES`] unpacked.
    pub fn of(file: &str, bytes: &'a [u8]) -> Result<Unpacked<'a>> {
        let (members, content) = match detect_container(bytes) {
            Container::Plain => (Vec::new(), Content::Given(bytes)),
            Container::Gzip => (Vec::new(), Content::Decompressed(read_limited(file, flate2::read::GzDecoder::new(bytes), "gzip")?)),
            Container::Zip => {
                let members = zip_members(file, bytes)?;
                let (name, first) = members.first().ok_or_else(|| EngineError::parse(file, "the zip archive contains no file"))?;
                // A zip holding a gzip (or another zip) is unpacked once more.
                let content = if detect_container(first) != Container::Plain {
                    let inner = Unpacked::of(&format!("{file}/{name}"), first)?;
                    Content::Decompressed(inner.bytes().to_vec())
                } else {
                    Content::Member(0)
                };
                (members, content)
            }
        };
        Ok(Unpacked { file: file.to_string(), members, content, table: OnceCell::new() })
    }

    /// The file's name.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The unpacked content: the plain file, the gzip's stream, the zip's first file.
    pub fn bytes(&self) -> &[u8] {
        match &self.content {
            Content::Given(b) => b,
            Content::Decompressed(b) => b,
            Content::Member(i) => &self.members[*i].1,
        }
    }

    /// A zip's files (path, contents), in the archive's order; empty when it is no zip.
    pub fn members(&self) -> &[(String, Vec<u8>)] {
        &self.members
    }

    /// The paths of a zip's files.
    pub fn member_paths(&self) -> Vec<String> {
        self.members.iter().map(|(p, _)| p.clone()).collect()
    }

    /// The last part of each zip file's path.
    pub fn member_names(&self) -> Vec<String> {
        self.members.iter().map(|(p, _)| base_name(p)).collect()
    }

    /// The content as text: refused when it is binary or not UTF-8.
    pub fn text(&self) -> Result<&str> {
        let raw = self.bytes();
        if let Some(pos) = raw.iter().take(1 << 20).position(|&b| b == 0) {
            return Err(EngineError::parse(
                &self.file,
                format!(
                    "this is a binary file, not a CSV (NUL byte at offset {pos}); expected comma-separated text, optionally .gz or .zip"
                ),
            ));
        }
        std::str::from_utf8(raw).map_err(|e| {
            EngineError::parse(
                &self.file,
                format!("not UTF-8 text (invalid byte at offset {}); expected a CSV file, optionally .gz or .zip", e.valid_up_to()),
            )
        })
    }

    /// The content read as a CSV table (read once, however often asked).
    pub fn table(&self) -> Result<&CsvTable> {
        self.table.get_or_init(|| read_table(&self.file, self.text()?)).as_ref().map_err(Clone::clone)
    }
}

/// Paths and contents of every file in a zip archive, within the decompressed-size limit in
/// total.
fn zip_members(file: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    #[cfg(test)]
    ZIPS_OPENED.with(|n| n.set(n.get() + 1));
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| EngineError::parse(file, format!("not a readable zip archive ({e})")))?;
    let mut members = Vec::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let member = archive.by_index(i).map_err(|e| EngineError::parse(file, format!("cannot open the zip member ({e})")))?;
        if member.is_dir() {
            continue;
        }
        let name = member.name().map(|n| n.to_string()).unwrap_or_else(|_| "member".into());
        let data = read_limited(file, member, "zip")?;
        total += data.len() as u64;
        if total > MAX_DECOMPRESSED_BYTES {
            return Err(too_large(file));
        }
        members.push((name, data));
    }
    Ok(members)
}

fn too_large(file: &str) -> EngineError {
    EngineError::parse(file, format!("decompresses to more than {} MiB, the most the playground accepts", MAX_DECOMPRESSED_BYTES >> 20))
}

fn read_limited(file: &str, reader: impl Read, what: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    reader
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| EngineError::parse(file, format!("the {what} data is corrupted ({e})")))?;
    if out.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(too_large(file));
    }
    Ok(out)
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
        assert_eq!(Unpacked::of("p.csv", text.as_bytes()).unwrap().text().unwrap(), text);
        assert_eq!(Unpacked::of("p.csv.gz", &gz).unwrap().text().unwrap(), text);
        let zipped = Unpacked::of("p.zip", zbuf.get_ref()).unwrap();
        assert_eq!(zipped.text().unwrap(), text);
        assert_eq!(zipped.member_paths(), ["some/dir/misnamed.csv.zip"]);
        assert_eq!(zipped.member_names(), ["misnamed.csv.zip"]);
    }

    #[test]
    fn corrupted_zip_and_binary_are_refused_with_a_message() {
        let err = Unpacked::of("bad.zip", b"PK\x03\x04garbage").err().unwrap().to_string();
        assert!(err.contains("bad.zip") && err.contains("zip"), "{err}");
        let png = [0x89, b'P', b'N', b'G', 0, 0, 1];
        let err = Unpacked::of("img.csv", &png).unwrap().text().unwrap_err().to_string();
        assert!(err.contains("binary"), "{err}");
        let err = Unpacked::of("latin.csv", &[b'a', 0xff, b'b']).unwrap().text().unwrap_err().to_string();
        assert!(err.contains("UTF-8"), "{err}");
    }
}
