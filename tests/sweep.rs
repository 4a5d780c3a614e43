//! `hpo plan`, `hpo job` (in shards, to files or stdout, resuming) and `hpo merge` write what
//! a single `hpo run` writes, and refuse what does not fit (a missing job, another data file).
#![cfg(not(target_arch = "wasm32"))]

mod cli;
use cli::{hpo, ok, text, Scratch};

use hpo_playground::engine::results::race_summary::RaceSummary;
use std::path::{Path, PathBuf};

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn shards_merge_into_what_one_run_writes() {
    for (name, link) in [
        ("full", "v=1&data=bundled:quadratic&methods=RS,GCP&tasks=quadratic-00,quadratic-03&seeds=3&iters=12&transfer=loto"),
        ("race", "v=1&data=bundled:curves&methods=RS,ASHA&tasks=curves-00,curves-01&seeds=3&race=60"),
    ] {
        let dir = Scratch::new(name);
        let s = |p: &str| dir.join(p).to_str().unwrap().to_string();
        ok(hpo(&["run", "--link", link, "--out", &s("one")]));
        ok(hpo(&["plan", "--link", link, "--out", &s("plan.jsonl")]));
        let lines = read(&dir.join("plan.jsonl")).lines().count();
        let jobs = lines - 1;
        assert_eq!(jobs, 12, "{name}");
        std::fs::create_dir_all(dir.join("empty")).unwrap();
        let o = hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("empty"), "--out", &s("none"), "--partial"]);
        assert!(!o.status.success() && text(&o).contains("no task has all its jobs traced yet (12 of 12 jobs missing)"), "{}", text(&o));
        // Two shards to files (the second reaching past the end), one to stdout.
        ok(hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "0..5", "--out", &s("traces"), "--threads", "1"]));
        let printed = ok(hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "5..9", "--stdout"]));
        std::fs::write(dir.join("traces/printed.jsonl"), printed.lines().filter(|l| l.starts_with('{')).collect::<Vec<_>>().join("\n"))
            .unwrap();
        // Merging with jobs missing says which.
        let o = hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("traces"), "--out", &s("merged")]);
        assert!(!o.status.success() && text(&o).contains("3 of 12 jobs have no trace yet (jobs 9, 10, 11)"), "{}", text(&o));
        // Jobs 9–11 are the second method on the second task: --partial merges the first task
        // alone, as a run of the link restricted to it writes.
        let (both, first) = if name == "full" {
            ("tasks=quadratic-00,quadratic-03", "tasks=quadratic-00")
        } else {
            ("tasks=curves-00,curves-01", "tasks=curves-00")
        };
        ok(hpo(&["run", "--link", &link.replace(both, first), "--out", &s("one-task")]));
        let o = ok(hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("traces"), "--out", &s("partial"), "--partial"]));
        assert!(o.contains("partial merge: 1 of 2 tasks have every job finished (6 of 12 jobs)"), "{o}");
        for f in ["traces.csv", "spec.json"] {
            assert_eq!(read(&dir.join("one-task").join(f)), read(&dir.join("partial").join(f)), "{name}: partial {f}");
        }
        ok(hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "8..100", "--out", &s("traces")]));
        // A shard run again resumes: nothing left to do in it.
        let again = ok(hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "0..5", "--out", &s("traces")]));
        assert!(!again.contains("job 0:"), "{again}");
        ok(hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("traces"), "--out", &s("merged")]));
        for f in ["traces.csv", "spec.json"] {
            assert_eq!(read(&dir.join("one").join(f)), read(&dir.join("merged").join(f)), "{name}: {f}");
        }
        if name == "race" {
            // Every column but the optimizer's own seconds (wall time).
            let cut = |p: PathBuf| read(&p).lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect::<Vec<_>>();
            assert_eq!(cut(dir.join("one/race-traces.csv")), cut(dir.join("merged/race-traces.csv")));
        }
    }
}

#[test]
fn a_plan_refuses_other_data_and_bad_ranges() {
    let dir = Scratch::new("refuse");
    let s = |p: &str| dir.join(p).to_str().unwrap().to_string();
    ok(hpo(&["generate", "quadratic", "--out", &s("q.csv")]));
    let sha = hpo_playground::engine::content_hash(&std::fs::read(dir.join("q.csv")).unwrap());
    let link = format!("v=1&data=upload:q.csv@{sha}&methods=RS&tasks=quadratic-00&seeds=2&iters=5");
    ok(hpo(&["plan", "--link", &link, "--data", &s("q.csv"), "--out", &s("plan.jsonl")]));
    let o = hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "0..2", "--out", &s("t")]);
    assert!(!o.status.success() && text(&o).contains("pass it with --data"), "{}", text(&o));
    let o = hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "2..1", "--data", &s("q.csv"), "--out", &s("t")]);
    assert!(!o.status.success() && text(&o).contains("--jobs is A..B or K"), "{}", text(&o));
    let o = hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "5..9", "--data", &s("q.csv"), "--out", &s("t")]);
    assert!(!o.status.success() && text(&o).contains("starts beyond the plan's 2 jobs"), "{}", text(&o));
    // Another file under the link's name is refused by its hash.
    std::fs::write(dir.join("q.csv"), "hp_x,metric_y,task\n1,2,quadratic-00\n").unwrap();
    let o = hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "0..2", "--data", &s("q.csv"), "--out", &s("t")]);
    assert!(!o.status.success() && text(&o).contains("does not match the link's file"), "{}", text(&o));
}

#[test]
fn jobs_kept_as_picks_merge_into_the_same_outputs_and_tampering_is_refused() {
    let dir = Scratch::new("picks");
    let s = |p: &str| dir.join(p).to_str().unwrap().to_string();
    let link = "v=1&data=bundled:curves&methods=RS,ASHA,DyHPO (fast)&tasks=curves-00,curves-01&seeds=2&race=60";
    ok(hpo(&["plan", "--link", link, "--out", &s("plan.jsonl")]));
    ok(hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "0..12", "--out", &s("traces"), "--threads", "1"]));
    ok(hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("traces"), "--out", &s("from-traces")]));
    let o = ok(hpo(&["picks", "--traces", &s("traces"), "--out", &s("kept/picks.jsonl")]));
    assert!(o.contains("12 jobs' picks written"), "{o}");
    let kept = read(&dir.join("kept/picks.jsonl"));
    assert_eq!(kept.lines().count(), 12);
    let o = ok(hpo(&["picks", "--traces", &s("traces"), "--jobs", "3..5", "--out", &s("two.jsonl")]));
    assert!(o.contains("2 jobs' picks written"), "{o}");
    assert_eq!(read(&dir.join("two.jsonl")), kept.lines().skip(3).take(2).map(|l| format!("{l}\n")).collect::<String>());
    assert!(!kept.contains("\"value\"") && !kept.contains("\"best\"") && !kept.contains("\"cost\""), "picks hold no benchmark value");
    // From picks alone, and from picks beside a part of the traces: the same files, every byte
    // (the optimizer's recorded seconds included).
    ok(hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("kept"), "--out", &s("from-picks")]));
    std::fs::create_dir_all(dir.join("mixed")).unwrap();
    for k in 0..5 {
        let name = format!("job-{k:06}.json");
        std::fs::copy(dir.join("traces").join(&name), dir.join("mixed").join(&name)).unwrap();
    }
    let later: Vec<&str> = kept.lines().skip(5).collect();
    std::fs::write(dir.join("mixed/picks.jsonl"), later.join("\n")).unwrap();
    ok(hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("mixed"), "--out", &s("from-mixed")]));
    for f in ["traces.csv", "spec.json", "race-traces.csv", "race-summary.json", "race-report.md", "cd-50.svg", "cd-100.svg"] {
        let want = read(&dir.join("from-traces").join(f));
        assert_eq!(want, read(&dir.join("from-picks").join(f)), "{f}");
        assert_eq!(want, read(&dir.join("from-mixed").join(f)), "{f}");
    }
    // The summary reads back as written (the page opens it: "Open race results").
    let written = read(&dir.join("from-traces/race-summary.json"));
    let summary = RaceSummary::from_json("race-summary.json", written.as_bytes()).unwrap();
    assert_eq!(serde_json::to_string(&summary).unwrap(), written);
    assert_eq!(summary.methods, ["RS", "ASHA", "DyHPO (fast)"]);
    // The CD diagrams, as the page draws them: every method labelled with its average rank.
    let cd = read(&dir.join("from-traces/cd-100.svg"));
    assert!(cd.contains("over 2 tasks") && ["RS (", "ASHA (", "DyHPO (fast) ("].iter().all(|m| cd.contains(m)), "{cd}");
    // The report's tables: a row per method, a rank column and a peers column per CD analysis.
    let md = read(&dir.join("from-traces/race-report.md"));
    assert!(
        md.starts_with("Mean regret over 2 tasks")
            && md.contains("| method | budget 6 | budget 15 | budget 30 | budget 45 | budget 60 | optimizer s/run |"),
        "{md}"
    );
    assert_eq!(md.lines().filter(|l| l.starts_with("| ASHA |")).count(), 2, "{md}");
    assert!(md.contains("| method | rank at 50 % | not different at 50 % | rank at 100 % | not different at 100 % |"), "{md}");
    let bold = md.lines().map(|l| l.split(" | ").filter(|c| c.starts_with("**") && c.ends_with("**")).count()).sum::<usize>();
    assert!(
        bold >= 5 + 2 && md.matches("**").count() == 2 * bold,
        "a bold best (or tied best) per regret column and per rank column: {md}"
    );
    // One budget moved in one job: the replay's hash differs and merge names the job.
    let mut tampered: serde_json::Value = serde_json::from_str(kept.lines().nth(7).unwrap()).unwrap();
    let budget = tampered["picks"][0][1].as_u64().unwrap();
    tampered["picks"][0][1] = serde_json::json!(budget + 1);
    std::fs::create_dir_all(dir.join("tampered")).unwrap();
    let lines: Vec<String> = kept.lines().enumerate().map(|(i, l)| if i == 7 { tampered.to_string() } else { l.to_string() }).collect();
    std::fs::write(dir.join("tampered/picks.jsonl"), lines.join("\n")).unwrap();
    let o = hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("tampered"), "--out", &s("none")]);
    assert!(!o.status.success() && text(&o).contains("job 7:"), "{}", text(&o));
    // Full-evaluation runs have no picks.
    let full = "v=1&data=bundled:quadratic&methods=RS&tasks=quadratic-00&seeds=1&iters=4";
    ok(hpo(&["plan", "--link", full, "--out", &s("full.jsonl")]));
    ok(hpo(&["job", "--plan", &s("full.jsonl"), "--jobs", "0", "--out", &s("full")]));
    let o = hpo(&["picks", "--traces", &s("full"), "--out", &s("none.jsonl")]);
    assert!(!o.status.success() && text(&o).contains("picks keep races only"), "{}", text(&o));
}

/// The page summarises whatever jobs have finished with `summarize_full_run` on the whole
/// link; `hpo merge --partial` runs the link restricted to its finished tasks. The two must
/// print the same Table 2: the finished task alone, the other named as left out by the page.
#[test]
fn a_partial_experiment_has_one_table_2_in_the_page_and_the_cli() {
    use hpo_playground::engine::bundled::load_bundled;
    use hpo_playground::engine::permalink::from_query;
    use hpo_playground::engine::results::run_summary::summarize_full_run;
    use hpo_playground::engine::runner::run_job;
    use hpo_playground::engine::transfer::PriorCache;

    let link = "v=1&data=bundled:quadratic&methods=RS,GP,GCP&tasks=quadratic-00,quadratic-03&seeds=2&iters=10&transfer=loto";
    let dir = Scratch::new("partial-table2");
    let s = |p: &str| dir.join(p).to_str().unwrap().to_string();
    ok(hpo(&["plan", "--link", link, "--out", &s("plan.jsonl")]));
    // Jobs are method, then task, then seed: 0..10 leaves GCP's two jobs on quadratic-03.
    ok(hpo(&["job", "--plan", &s("plan.jsonl"), "--jobs", "0..10", "--out", &s("traces"), "--threads", "1"]));
    let printed = ok(hpo(&["merge", "--plan", &s("plan.jsonl"), "--traces", &s("traces"), "--out", &s("partial"), "--partial"]));
    let cli: Vec<(String, String, String)> = printed
        .lines()
        .skip_while(|l| !l.starts_with("improvement over RS (Table 2)"))
        .skip(1)
        .take_while(|l| l.starts_with("  ") && l.contains("average rank"))
        .map(|l| {
            let (name, rest) = l.trim().split_once(char::is_whitespace).unwrap();
            let (mean, rank) = rest.trim().split_once(" (average rank ").unwrap();
            (name.to_string(), mean.to_string(), rank.trim_end_matches(')').to_string())
        })
        .collect();
    assert!(printed.contains("improvement over RS (Table 2), 1 of 1 task:"), "{printed}");

    // The bundled table as the page and the CLI read it (the generator's values, rounded in the CSV).
    let bench = load_bundled("quadratic").unwrap();
    let resolved = from_query(link).spec.resolve(&bench).unwrap();
    let priors = PriorCache::new();
    let traces: Vec<_> =
        resolved.jobs()[..10].iter().map(|j| run_job(&bench, &resolved, j, &priors, &|| 0.0, &mut |_| true).unwrap()).collect();
    let page = summarize_full_run(&bench, &resolved, &traces).unwrap().table2;
    assert_eq!(page.incomplete, vec!["quadratic-03".to_string()]);
    assert_eq!(page.rows.len(), 1);
    let shown: Vec<(String, String, String)> = page
        .methods
        .iter()
        .enumerate()
        .map(|(k, m)| (m.clone(), format!("{:.3}", page.means[k]), format!("{:.2}", page.ranks[k])))
        .collect();
    assert_eq!(shown, cli, "the page's Table 2 and the CLI's");
}
