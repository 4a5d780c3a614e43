//! `hpo fetch` and `data=url:` links: download a file, accept it only with the SHA-256 the
//! link (or the pinned list) names, and keep it in a cache directory under that hash, so a
//! second run reads it from disk and works offline.

use std::io::Read;
use std::path::{Path, PathBuf};

use hpo_playground::engine::content_hash;
use hpo_playground::engine::loaders::MAX_DECOMPRESSED_BYTES;
use hpo_playground::engine::permalink::to_query;
use hpo_playground::engine::public_data::{normalize_base, public_table, verify, DEFAULT_BASE, PUBLIC_TABLES};
use hpo_playground::engine::spec::{url_file_name, DataRef, ExperimentSpec};

use crate::common::CliResult;

/// The cache directory: `--cache`, else `$HPO_CACHE`, else `$XDG_CACHE_HOME/hpo-playground`,
/// else `~/.cache/hpo-playground`.
pub fn cache_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os("HPO_CACHE") {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("hpo-playground")
}

/// The base URL of the public tables: `--base`, else `$HPO_DATA_BASE`, else the paper's
/// repository.
pub fn data_base(explicit: Option<&str>) -> String {
    let base = explicit.map(str::to_string).or_else(|| std::env::var("HPO_DATA_BASE").ok()).unwrap_or_else(|| DEFAULT_BASE.into());
    normalize_base(&base)
}

/// Where a file with this hash and name is kept in the cache.
fn cached_path(cache: &Path, sha256: &str, name: &str) -> PathBuf {
    let name = if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') { "data" } else { name };
    cache.join(sha256).join(name)
}

/// The file at `url` with this SHA-256, from the cache or downloaded (then kept). The path
/// keeps the URL's file name, which loaders use for messages and the benchmark's name.
pub fn fetch_verified(url: &str, sha256: &str, cache: &Path) -> CliResult<PathBuf> {
    let path = cached_path(cache, sha256, &url_file_name(url));
    if let Ok(bytes) = std::fs::read(&path) {
        if content_hash(&bytes) == sha256 {
            return Ok(path);
        }
        eprintln!("warning: the cached {} is damaged; downloading it again", path.display());
    }
    eprintln!("downloading {url}");
    let bytes = download(url)?;
    verify(url, sha256, &bytes)?;
    let dir = path.parent().expect("cache paths have a parent");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the cache {}: {e}", dir.display()))?;
    // Written beside and renamed: a download cut short never leaves a partial file behind.
    let partial = dir.join(".partial");
    std::fs::write(&partial, &bytes).map_err(|e| format!("cannot write to the cache {}: {e}", dir.display()))?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// The body of a GET, or why not in words (an HTTP status, a network failure, too large).
fn download(url: &str) -> CliResult<Vec<u8>> {
    let response = ureq::get(url).call().map_err(|e| match e {
        ureq::Error::StatusCode(code) => format!("GET {url} answered HTTP {code}: no such file there"),
        other => format!("could not download {url}: {other}"),
    })?;
    let mut bytes = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("the download of {url} broke off: {e}"))?;
    if bytes.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(format!("{url} is larger than the {} MiB the playground accepts", MAX_DECOMPRESSED_BYTES >> 20).into());
    }
    Ok(bytes)
}

/// `hpo fetch`: downloads the pinned public tables named (all when none), checks each hash,
/// keeps them in the cache and prints where they are with a link for each.
pub fn run(names: &[String], base: Option<&str>, cache: Option<&Path>) -> CliResult<()> {
    let base = data_base(base);
    let cache = cache_dir(cache);
    let tables: Vec<_> = if names.is_empty() {
        PUBLIC_TABLES.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                public_table(n)
                    .ok_or_else(|| format!("'{n}' is not a pinned public table; they are: {}", PUBLIC_TABLES.map(|t| t.file).join(", ")))
            })
            .collect::<Result<_, _>>()?
    };
    let mut failed = Vec::new();
    for t in tables {
        let data = t.data_ref(&base);
        let DataRef::Url { url, .. } = &data else { unreachable!("data_ref gives a URL") };
        match fetch_verified(url, t.sha256, &cache) {
            Ok(path) => {
                let link = to_query(&ExperimentSpec { data: data.clone(), ..ExperimentSpec::default() });
                println!("{} ({} bytes, SHA-256 {}): {}\n  link: ?{link}", t.file, t.bytes, t.sha256, path.display());
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed.push(t.file);
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("could not fetch {}", failed.join(", ")).into())
    }
}
