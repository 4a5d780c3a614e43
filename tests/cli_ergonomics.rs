//! The CLI as a researcher meets it: `hpo info` reads the formats the page reads, `hpo link`
//! prints a link that runs, `--data` never silently runs other data than the printed link
//! names, reports print numbers at any scale and grammatical counts, and `hpo … | head` ends
//! quietly.
#![cfg(not(target_arch = "wasm32"))]

mod cli;
use cli::{hpo, text, Scratch};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn generate(name: &str, dir: &Path) -> PathBuf {
    let file = dir.join(format!("{name}.csv"));
    let o = hpo(&["generate", name, "--out", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    file
}

#[test]
fn info_reads_learning_curves_and_counts_grammatically() {
    let dir = Scratch::new("info");
    let curves = generate("curves", &dir);
    let o = hpo(&["info", "--data", curves.to_str().unwrap()]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("curves: 8 tasks, 2048 rows, 3 model inputs"), "{out}");
    assert!(out.contains("256 configurations") && out.contains("learning curves of 40 steps"), "{out}");
    // One task of one configuration with a huge value: singular nouns, and 1e308 stays short.
    let tiny = dir.join("tiny.csv");
    std::fs::write(&tiny, "task,hp_x,metric_y\nonly,0.5,1e308\n").unwrap();
    let out = text(&hpo(&["info", "--data", tiny.to_str().unwrap()]));
    assert!(out.contains("1 task, 1 row, 1 model input") && out.contains("1 configuration,"), "{out}");
    assert!(out.contains("[1.00000e308, 1.00000e308]"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_printed_link_names_the_file_that_ran() {
    let dir = Scratch::new("link");
    let file = generate("quadratic", &dir);
    let o = hpo(&["link", "--data", file.to_str().unwrap(), "--link", "?methods=RS&seeds=1&iters=4&tasks=quadratic-00"]);
    let link = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert!(o.status.success() && link.starts_with("?v=1&data=upload:quadratic.csv@"), "{}", text(&o));
    let out = dir.join("out");
    let run = |extra: &[&str], data: &Path| {
        let mut args = vec!["run", "--link", &link, "--data", data.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        hpo(&args)
    };
    let o = run(&[], &file);
    assert!(o.status.success() && text(&o).contains(&format!("link: {link}")), "{}", text(&o));
    // Another file: refused, unless forced — and then the printed link names that file.
    let other = dir.join("other.csv");
    // The same table plus a trailing newline: other bytes, other hash.
    std::fs::write(&other, std::fs::read_to_string(&file).unwrap() + "\n").unwrap();
    let o = run(&[], &other);
    assert!(!o.status.success() && text(&o).contains("does not match the link's file quadratic.csv"), "{}", text(&o));
    let o = run(&["--force"], &other);
    let out_text = text(&o);
    assert!(o.status.success(), "{out_text}");
    assert!(out_text.contains("link: ?v=1&data=upload:other.csv@") && !out_text.contains(&format!("link: {link}")), "{out_text}");
    // A link naming bundled data with --data: refused, not silently replaced.
    let o = hpo(&[
        "run",
        "--link",
        "v=1&data=bundled:quadratic&methods=RS&seeds=1&iters=3",
        "--data",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success() && text(&o).contains("the link names bundled:quadratic, not a file"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_one_method_race_prints_no_friedman_test_and_each_budget_mark_once() {
    let dir = Scratch::new("race");
    let o = hpo(&[
        "race",
        "--data",
        "curves",
        "--methods",
        "RS",
        "--tasks",
        "0",
        "--seeds",
        "1",
        "--budget",
        "3",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(!out.contains("Friedman p") && out.contains("one method: no ranks or Friedman test to compare"), "{out}");
    let header = out.lines().find(|l| l.starts_with("method")).unwrap();
    let marks: Vec<&str> = header.split("budget ").skip(1).map(|m| m.split_whitespace().next().unwrap()).collect();
    let mut unique = marks.clone();
    unique.dedup();
    assert_eq!(marks, unique, "{header}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_ends_the_cli_quietly() {
    // The reading end is closed before `hpo` writes anything: its first write meets a closed
    // pipe, as under `hpo methods | head -1` once head has exited.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_hpo")).arg("methods").stdout(writer).stderr(Stdio::piped()).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
}

#[test]
fn a_race_on_a_curve_file_takes_a_direction() {
    let dir = Scratch::new("direction");
    // Two configurations: one curve ends at 0.2, the other at 0.9 — lower is better for a
    // loss, higher for an accuracy. Random search at full budget trains both; the best value
    // the traces report differs with the direction.
    let file = dir.join("acc.csv");
    std::fs::write(&file, "hp_x,e1,e2\n0.1,0.5,0.2\n0.9,0.5,0.9\n").unwrap();
    let run = |direction: &str| {
        let out = dir.join(format!("out-{direction}"));
        let o = hpo(&[
            "race",
            "--data",
            file.to_str().unwrap(),
            "--methods",
            "RS",
            "--seeds",
            "1",
            "--budget",
            "4",
            "--direction",
            direction,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o));
        (text(&o), std::fs::read_to_string(out.join("race-traces.csv")).unwrap())
    };
    let (min_text, min_traces) = run("min");
    let (max_text, max_traces) = run("max");
    assert!(min_text.contains("is minimised") && max_text.contains("is maximised"), "{min_text}\n{max_text}");
    // The `best` column of the last request: the lower final value, or the higher one.
    let last_best = |csv: &str| csv.lines().last().unwrap().split(',').nth(7).unwrap().to_string();
    assert_eq!((last_best(&min_traces), last_best(&max_traces)), ("0.2".to_string(), "0.9".to_string()), "{min_traces}\n{max_traces}");
    let o = hpo(&["race", "--data", file.to_str().unwrap(), "--direction", "up"]);
    assert!(!o.status.success() && text(&o).contains("--direction is 'min' or 'max', not 'up'"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_race_reads_a_study_by_the_format_table_and_says_what_a_file_without_curves_is() {
    let studies = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/studies");
    let dir = Scratch::new("race-formats");
    let race = |file: &str| {
        let out = dir.join(file);
        let data = studies.join(file);
        hpo(&[
            "race",
            "--data",
            data.to_str().unwrap(),
            "--methods",
            "ASHA",
            "--seeds",
            "1",
            "--budget",
            "20",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    // A journal whose trials report intermediate values races on them.
    let o = race("optuna-mlp-journal.log");
    assert!(o.status.success(), "{}", text(&o));
    // Optuna's files without intermediate values: refused, naming what the file is.
    for (file, format) in [("optuna-two-objective.db", "Optuna storage (SQLite)"), ("optuna-mlp-trials.csv", "Optuna trials_dataframe CSV")]
    {
        let o = race(file);
        let said = text(&o);
        assert!(!o.status.success() && said.contains(&format!("{file} is {format}, without learning curves")), "{said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
