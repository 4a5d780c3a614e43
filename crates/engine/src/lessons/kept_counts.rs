//! The counts over seeds that every visitor would compute alike, kept in the build: each
//! lesson's count at its opening setting. Lessons 2, 3, 4 and 6 count one fixed race whatever
//! the seed shown or the player's state, and lesson 1 opens on one setting; their counts are the
//! same numbers in every browser, and lesson 4's took 22 s of two workers on a 2-core laptop
//! (twice that on a phone) before its last step could say who wins over 20 seeds. Kept here,
//! the last step says it at once; a setting not kept (lesson 1 after a change) is counted in
//! the workers as before.
//!
//! `kept_counts.json` is written by the native test `tests/lesson_counts.rs` with
//! `HPO_BLESS=1`, which otherwise checks that every kept count is what [`LessonJob::run`]
//! computes now, bit for bit (lessons 3 and 4's in their sentences' tests, which compute every
//! seed's frames anyway); the wasm tests check one seed of each against the browser's own
//! computation (`tests/wasm_engine.rs`).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::over_seeds::OverSeeds;
use super::{Lesson, LessonJob};

/// One kept count, in the order of [`jobs_to_keep`]: the lesson and the seeds it counts (for
/// a reader of the table; the page matches by the order, which the test checks) and the
/// count. Matching by the order keeps a decoder of jobs out of the page's module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptCount {
    /// The lesson's link name.
    pub lesson: String,
    /// The seeds counted, as `first..end`.
    pub seeds: String,
    /// What the job computes.
    pub count: OverSeeds,
}

/// The kept counts as written by `tests/lesson_counts.rs`.
pub const KEPT_JSON: &str = include_str!("kept_counts.json");

/// The jobs whose counts are kept: both parts of every lesson's count at its opening setting,
/// with the lesson each is of.
pub fn jobs_to_keep() -> Vec<(&'static str, LessonJob)> {
    Lesson::all().iter().filter_map(|l| Some(l.over_seeds_jobs()?.map(|j| (l.id(), j)))).flatten().collect()
}

/// Every kept job with its count, read once. A table that does not read or does not have one
/// count a job (only an edit by hand can make one: the test writes and checks it) keeps
/// nothing, so the workers count as before.
pub fn kept() -> &'static [(LessonJob, OverSeeds)] {
    static KEPT: OnceLock<Vec<(LessonJob, OverSeeds)>> = OnceLock::new();
    KEPT.get_or_init(|| {
        let jobs = jobs_to_keep();
        match serde_json::from_str::<Vec<KeptCount>>(KEPT_JSON) {
            Ok(counts) if counts.len() == jobs.len() => jobs.into_iter().zip(counts).map(|((_, job), k)| (job, k.count)).collect(),
            _ => Vec::new(),
        }
    })
}

/// The kept count of `job`, if it is kept.
pub fn counted(job: &LessonJob) -> Option<OverSeeds> {
    kept().iter().find(|(have, _)| have == job).map(|(_, count)| count.clone())
}

/// Lesson `id`'s whole kept count at its opening setting (its parts joined), if kept.
pub fn kept_whole(id: &str) -> Option<OverSeeds> {
    let jobs = Lesson::by_id(id)?.over_seeds_jobs()?;
    OverSeeds::joined(jobs.iter().map(counted).collect::<Option<Vec<_>>>()?)
}
