//! `hpo race` on a study Optuna wrote: the verdict per run (issue #78) — seeds reaching the
//! study's best, the budget to reach it, the area under the regret curve and signed-rank
//! tests against RS and the study's own run — in verdict.csv and in race-summary.json, the
//! same numbers.
#![cfg(not(target_arch = "wasm32"))]

mod cli;
use cli::{ok, Scratch};

use std::path::Path;

use hpo_playground::engine::results::race_summary::RaceSummary;

#[test]
fn a_replayed_study_gets_a_verdict_per_run_in_verdict_csv() {
    let journal = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/studies/optuna-conditional-journal.log");
    let out = Scratch::new("race-verdict");
    // The study spent 473 budget units (33 complete trials of 10 steps, 27 pruned): 480
    // units let RS train every replayed configuration and the study's line end.
    let said = ok(cli::hpo(&[
        "race",
        "--data",
        journal.to_str().unwrap(),
        "--methods",
        "ASHA,RS",
        "--seeds",
        "5",
        "--budget",
        "480",
        "--out",
        out.to_str().unwrap(),
    ]));
    let csv = std::fs::read_to_string(out.join("verdict.csv")).expect("verdict.csv written");
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "name",
            "kind",
            "runs",
            "runs_reaching_best",
            "seeds_reaching_best",
            "budget_to_best_median",
            "budget_to_best_min",
            "budget_to_best_max",
            "regret_area",
            "better_than_baseline",
            "worse_than_baseline",
            "p_vs_baseline",
            "better_than_study",
            "worse_than_study",
            "p_vs_study"
        ]
    );
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0]).collect();
    assert_eq!(names, ["ASHA", "RS", "Optuna's own run"], "{csv}");
    assert_eq!((rows[1][1], rows[2][1], rows[3][1]), ("method", "method", "study"));
    for r in &rows[1..] {
        let runs: usize = r[2].parse().unwrap();
        let reached: usize = r[3].parse().unwrap();
        let seeds: Vec<&str> = r[4].split(' ').filter(|s| !s.is_empty()).collect();
        assert_eq!(seeds.len(), reached, "{r:?}");
        assert!(reached <= runs);
        if reached > 0 {
            let (median, min, max): (f64, f64, f64) = (r[5].parse().unwrap(), r[6].parse().unwrap(), r[7].parse().unwrap());
            assert!(1.0 <= min && min <= median && median <= max && max <= 480.0, "{r:?}");
        }
        for p in [r[11], r[14]].iter().filter(|p| !p.is_empty()) {
            let p: f64 = p.parse().unwrap();
            assert!((0.0..=1.0).contains(&p), "{r:?}");
        }
    }
    // RS trains every one of the 33 replayed configurations to the end within 330 units:
    // each seed reaches the best.
    assert_eq!((rows[2][2], rows[2][3], rows[2][4]), ("5", "5", "0 1 2 3 4"), "{csv}");
    // No test of RS against itself, nor of the study against itself; the study ran once.
    assert_eq!((rows[2][11], rows[3][14], rows[3][2]), ("", "", "1"));
    // The file holds what race-summary.json holds (one summary for the page and the CLI).
    let json = std::fs::read(out.join("race-summary.json")).unwrap();
    let summary = RaceSummary::from_json("race-summary.json", &json).unwrap();
    let verdict = summary.verdict.expect("a verdict");
    assert_eq!(verdict.csv(), csv);
    assert!(said.contains(&verdict.sentence) && verdict.sentence.contains(" won, with the smallest area"), "{said}");
    assert!(said.contains("wrote") && said.contains("verdict.csv"), "{said}");
}
