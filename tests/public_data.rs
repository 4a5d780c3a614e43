//! Real data for everyone: `hpo fetch` and `data=url:…@SHA256` links download a file, accept
//! it only with the SHA-256 the link or the pinned list names, and keep it in a cache — tested
//! against a local HTTP server (this machine reaches no public repository): the generated
//! tables always, the copula paper's real tables when `../shared` is present.
#![cfg(not(target_arch = "wasm32"))]

mod cli;
use cli::{hpo, text, Scratch};

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hpo_playground::engine::content_hash;
use hpo_playground::engine::public_data::PUBLIC_TABLES;

/// A loopback HTTP/1.1 server answering GET with the bytes stored under the path, 404
/// otherwise; it counts the requests it answered. Runs until the test process ends.
struct Server {
    base: String,
    hits: Arc<std::sync::atomic::AtomicUsize>,
}

fn serve(files: BTreeMap<String, Vec<u8>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let hits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // Headers until the blank line.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let path = line.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut out = stream;
            match files.get(&path) {
                Some(body) => {
                    let _ = write!(out, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                    let _ = out.write_all(body);
                }
                None => {
                    let _ = write!(out, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
                }
            }
        }
    });
    Server { base, hits }
}

fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/benchmarks/quantile-transfer");
    dir.join("XGBoost.csv.zip").exists().then_some(dir)
}

fn generated_table() -> Vec<u8> {
    let mut csv = String::from("hp_x,hp_y,metric_loss,task\n");
    for i in 0..120 {
        let (x, y) = ((i % 12) as f64 / 11.0, (i / 12) as f64 / 9.0);
        csv += &format!("{x},{y},{},t{}\n", (x - 0.3).powi(2) + (y - 0.6).powi(2) + (i % 3) as f64 * 0.01, i % 3);
    }
    csv.into_bytes()
}

fn traces(out: &Path) -> String {
    std::fs::read_to_string(out.join("traces.csv")).unwrap()
}

#[test]
fn a_url_link_runs_the_file_with_its_hash_from_the_cache_afterwards_and_refuses_any_other() {
    let table = generated_table();
    let sha = content_hash(&table);
    let mut tampered = table.clone();
    tampered.extend_from_slice(b"0.5,0.5,0,t0\n");
    let tampered_sha = content_hash(&tampered);
    let server = serve(BTreeMap::from([("runs.csv".to_string(), table.clone()), ("tampered/runs.csv".to_string(), tampered)]));
    let dir = Scratch::new("url");
    let cache = dir.join("cache");
    let (cache_s, out_s) = (cache.to_str().unwrap(), dir.join("out").to_str().unwrap().to_string());
    let link = format!("v=1&data=url:{}runs.csv@{sha}&methods=RS,GP&seeds=2&iters=8&transfer=none", server.base);
    let o = hpo(&["run", "--link", &link, "--cache", cache_s, "--out", &out_s]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(&format!("downloading {}runs.csv", server.base)), "{}", text(&o));
    assert_eq!(std::fs::read(cache.join(&sha).join("runs.csv")).unwrap(), table, "kept under its hash");
    // The same run from a local copy of the file gives the same traces.
    let local = dir.join("runs.csv");
    std::fs::write(&local, &table).unwrap();
    let upload = format!("v=1&data=upload:runs.csv@{sha}&methods=RS,GP&seeds=2&iters=8&transfer=none");
    let out2 = dir.join("out2");
    let o = hpo(&["run", "--link", &upload, "--data", local.to_str().unwrap(), "--out", out2.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(traces(Path::new(&out_s)), traces(&out2));
    // A second run reads the cache: no request reaches the server.
    let before = server.hits.load(std::sync::atomic::Ordering::SeqCst);
    let o = hpo(&["run", "--link", &link, "--cache", cache_s, "--out", dir.join("out3").to_str().unwrap()]);
    assert!(o.status.success() && !text(&o).contains("downloading"), "{}", text(&o));
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), before);
    // Other bytes under the same hash are refused, named, and not kept.
    let wrong = format!("v=1&data=url:{}tampered/runs.csv@{sha}&methods=RS&seeds=1&iters=8&transfer=none", server.base);
    let fresh = dir.join("cache2");
    let o = hpo(&["run", "--link", &wrong, "--cache", fresh.to_str().unwrap(), "--out", dir.join("out4").to_str().unwrap()]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(&format!("has SHA-256 {tampered_sha}, not the {sha} the link names")), "{}", text(&o));
    assert!(text(&o).contains("not the file the link was made with"), "{}", text(&o));
    assert!(!fresh.join(&sha).join("runs.csv").exists());
    // A missing file says so with the status.
    let missing = format!("v=1&data=url:{}gone.csv@{sha}&methods=RS&seeds=1&iters=8&transfer=none", server.base);
    let o = hpo(&["run", "--link", &missing, "--cache", fresh.to_str().unwrap(), "--out", dir.join("out5").to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains(&format!("GET {}gone.csv answered HTTP 404", server.base)), "{}", text(&o));
    // A damaged cached copy is replaced by a fresh download.
    std::fs::write(cache.join(&sha).join("runs.csv"), b"garbage").unwrap();
    let o = hpo(&["run", "--link", &link, "--cache", cache_s, "--out", dir.join("out6").to_str().unwrap()]);
    assert!(o.status.success() && text(&o).contains("damaged"), "{}", text(&o));
    assert_eq!(std::fs::read(cache.join(&sha).join("runs.csv")).unwrap(), table);
}

#[test]
fn hpo_fetch_downloads_and_checks_the_pinned_public_tables() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: ../shared/benchmarks is absent");
        return;
    };
    // A local mirror of the paper's folder: the real files, one of them damaged in a second copy.
    let mut files = BTreeMap::new();
    for t in PUBLIC_TABLES {
        let bytes = std::fs::read(shared.join(t.file)).unwrap();
        assert_eq!(content_hash(&bytes), t.sha256, "{} is the published file", t.file);
        assert_eq!(bytes.len() as u64, t.bytes);
        let mut damaged = bytes.clone();
        damaged[1000] ^= 1;
        files.insert(format!("bad/{}", t.file), damaged);
        files.insert(t.file.to_string(), bytes);
    }
    let server = serve(files);
    let dir = Scratch::new("fetch");
    let cache = dir.join("cache");
    let o = hpo(&["fetch", "--base", &server.base, "--cache", cache.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    for t in PUBLIC_TABLES {
        assert!(cache.join(t.sha256).join(t.file).exists(), "{}", t.file);
        assert!(text(&o).contains(&format!("link: ?v=1&data=url:{}{}@{}", server.base, t.file, t.sha256)), "{}", text(&o));
    }
    // The printed link runs from the cache and equals a run on the shared copy.
    let query =
        format!("v=1&data=url:{}XGBoost.csv.zip@{}&tasks=heart&methods=RS,GCP&seeds=2&iters=10", server.base, PUBLIC_TABLES[1].sha256);
    let out = dir.join("url");
    let o = hpo(&["run", "--link", &query, "--cache", cache.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success() && !text(&o).contains("downloading"), "{}", text(&o));
    let shared_out = dir.join("shared");
    let o = hpo(&[
        "run",
        "--link",
        "v=1&data=shared:XGBoost.csv.zip&tasks=heart&methods=RS,GCP&seeds=2&iters=10",
        "--shared-dir",
        shared.to_str().unwrap(),
        "--out",
        shared_out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(traces(&out), traces(&shared_out));
    // A mirror serving damaged copies: every table refused by its hash, nothing kept.
    let bad_cache = dir.join("bad-cache");
    let o = hpo(&["fetch", "--base", &format!("{}bad", server.base), "--cache", bad_cache.to_str().unwrap()]);
    assert!(!o.status.success());
    assert_eq!(text(&o).matches("not the file the link was made with").count(), 3, "{}", text(&o));
    assert!(!bad_cache.exists() || std::fs::read_dir(&bad_cache).unwrap().count() == 0);
    // An unknown name and a 404 are said in words.
    let o = hpo(&["fetch", "FCNET.csv.zip", "--base", &server.base, "--cache", bad_cache.to_str().unwrap()]);
    assert!(!o.status.success() && text(&o).contains("'FCNET.csv.zip' is not a pinned public table"), "{}", text(&o));
    let o = hpo(&["fetch", "DeepAR.csv.zip", "--base", &format!("{}nowhere/", server.base), "--cache", bad_cache.to_str().unwrap()]);
    assert!(!o.status.success() && text(&o).contains("answered HTTP 404"), "{}", text(&o));
}
