//! The counts over seeds kept in the build (`engine::lessons::kept_counts`) are what the
//! engine computes now, bit for bit: the page shows them in place of computing them, so a
//! change to a lesson's race that left them stale would show a count the lesson no longer
//! makes. `HPO_BLESS=1` writes them (`crates/engine/src/lessons/kept_counts.json`). Lessons 3
//! and 4's (20 runs of CTS, GCP and GCP+prior; of DyHPO and Hyperband) are checked by their
//! sentences' tests, which compute every seed's frames anyway (`lessons/sentences/`).

#![cfg(not(target_arch = "wasm32"))]

use rayon::prelude::*;

use hpo_playground::engine::lessons::kept_counts::{counted, jobs_to_keep, kept, KeptCount, KEPT_JSON};
use hpo_playground::engine::lessons::{LessonFrames, LessonJob};

/// The lessons whose counts their sentences' tests check.
const CHECKED_BY_SENTENCES: [&str; 2] = ["transfer", "multi-fidelity"];

#[test]
fn kept_counts_are_what_the_lessons_compute() {
    let jobs = jobs_to_keep();
    // Lessons 1, 2, 3, 4 and 6, two parts each.
    assert_eq!(jobs.len(), 10);
    let bless = std::env::var_os("HPO_BLESS").is_some();
    let computed: Vec<KeptCount> = jobs
        .par_iter()
        .filter(|(lesson, _)| bless || !CHECKED_BY_SENTENCES.contains(lesson))
        .map(|(lesson, job)| match job.run() {
            Ok(LessonFrames::OverSeeds(count)) => {
                let LessonJob::OverSeeds(_, seeds) = job else { unreachable!() };
                KeptCount { lesson: lesson.to_string(), seeds: format!("{seeds:?}"), count }
            }
            other => panic!("{job:?} computes {other:?}"),
        })
        .collect();
    if bless {
        let json = serde_json::to_string_pretty(&computed).unwrap() + "\n";
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/crates/engine/src/lessons/kept_counts.json"), json).unwrap();
        return;
    }
    // The table reads back to exactly these numbers (JSON keeps an f64's shortest exact form),
    // one a job in the jobs' order, each said to be of its lesson and seeds.
    let table: Vec<KeptCount> = serde_json::from_str(KEPT_JSON).unwrap();
    assert_eq!(table.len(), jobs.len());
    let table: Vec<KeptCount> = table.into_iter().filter(|k| !CHECKED_BY_SENTENCES.contains(&k.lesson.as_str())).collect();
    assert_eq!(table, computed, "the kept counts are not what the lessons compute now (set HPO_BLESS=1 if the change is intended)");
    assert_eq!(kept().len(), jobs.len());
    for (_, job) in &jobs {
        assert!(counted(job).is_some(), "{job:?} is not kept");
    }
}
