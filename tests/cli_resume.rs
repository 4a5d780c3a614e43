//! `hpo run` caches finished jobs: a re-run of the same link reads them back (and gives the
//! same traces byte for byte), so an interrupted replication resumes.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

fn run(link: &str, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_hpo")).args(["run", "--link", link, "--out"]).arg(out).output().expect("hpo runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
}

#[test]
fn a_rerun_reads_finished_jobs_from_the_cache() {
    let out = std::env::temp_dir().join(format!("hpo-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let link = "v=1&data=bundled:quadratic&methods=RS,GP&seeds=2&iters=12";
    run(link, &out);
    let fresh = std::fs::read_to_string(out.join("traces.csv")).unwrap();
    // Same traces from the cache, byte for byte (floats round-trip exactly).
    run(link, &out);
    assert_eq!(std::fs::read_to_string(out.join("traces.csv")).unwrap(), fresh);
    // And the cache is what is read: an altered cached job shows up in the traces.
    let cache = std::fs::read_dir(out.join("runs")).unwrap().next().unwrap().unwrap().path();
    let job = cache.join("RS-quadratic-00-0.json");
    let text = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, text.replacen("\"task\":\"quadratic-00\"", "\"task\":\"from-the-cache\"", 1)).unwrap();
    run(link, &out);
    assert!(std::fs::read_to_string(out.join("traces.csv")).unwrap().contains("from-the-cache"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn more_seeds_or_methods_reuse_the_jobs_already_done() {
    let out = std::env::temp_dir().join(format!("hpo-extend-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    run("v=1&data=bundled:quadratic&methods=RS&seeds=1&iters=12", &out);
    let cache = std::fs::read_dir(out.join("runs")).unwrap().next().unwrap().unwrap().path();
    let job = cache.join("RS-quadratic-00-0.json");
    let text = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, text.replacen("\"task\":\"quadratic-00\"", "\"task\":\"from-the-cache\"", 1)).unwrap();
    // Two seeds and one more method: seed 0 of RS comes from the cache, the rest is run.
    run("v=1&data=bundled:quadratic&methods=RS,GP&seeds=2&iters=12", &out);
    let traces = std::fs::read_to_string(out.join("traces.csv")).unwrap();
    assert!(traces.contains("from-the-cache"));
    assert!(traces.lines().any(|l| l.starts_with("1,") && l.ends_with(",GP")), "seed 1 of GP is run");
    // A change that does alter a job (the number of iterations) keys a different cache.
    run("v=1&data=bundled:quadratic&methods=RS&seeds=1&iters=11", &out);
    assert!(!std::fs::read_to_string(out.join("traces.csv")).unwrap().contains("from-the-cache"));
    assert_eq!(std::fs::read_dir(out.join("runs")).unwrap().count(), 2);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_rerun_race_reads_its_runs_from_this_builds_cache() {
    let out = std::env::temp_dir().join(format!("hpo-race-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let race = || {
        let status = Command::new(env!("CARGO_BIN_EXE_hpo"))
            .args(["race", "--data", "curves", "--methods", "RS,Hyperband", "--tasks", "0", "--seeds", "2", "--budget", "40", "--out"])
            .arg(&out)
            .output()
            .expect("hpo runs");
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
        std::fs::read_to_string(out.join("race-traces.csv")).unwrap()
    };
    let fresh = race();
    // The traces hold each request's measured optimizer time, so only a cache read gives the
    // same bytes again.
    assert_eq!(race(), fresh);
    // The cache sits under this build's fingerprint (16 hex digits), not directly in runs/.
    let dirs: Vec<_> = std::fs::read_dir(out.join("runs")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1);
    let name = dirs[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(dirs[0].is_dir() && name.len() == 16 && name.chars().all(|c| c.is_ascii_hexdigit()), "{name}");
    let _ = std::fs::remove_dir_all(&out);
}
