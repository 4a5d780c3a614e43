//! Learning-curve tables: one row per (task, configuration), one column per budget step.
//!
//! Two layouts are read:
//! * LCBench as shipped in `lcbench-surrogate`: a configuration table (`config_id` + one column
//!   per hyperparameter) and curve tables `task_id, config_id, e1..eN`, one per metric, plus an
//!   optional cumulative-cost table of the same shape;
//! * a single CSV with hyperparameter columns, an optional `task` column and step columns
//!   `e1..eN` (or `step_1..step_N`, `epoch_1..epoch_N`; or any columns the link's `steps=`
//!   names), for user uploads. A step 0 column (`e0`, `step_0`, `epoch_0`: the untrained
//!   value) is left out of the curves and of the hyperparameters.
//!
//! Diverged or missing points (empty, `nan`, `inf`) are repaired per task by the link's
//! policy ([`super::clean::MissingPolicy`]).
//!
//! The metric of a configuration (what non-multi-fidelity methods optimise) is its curve's
//! value at the last step.

use std::collections::BTreeMap;

use super::clean::{parse_cell, repair_curves, MissingPolicy, Repaired};
use super::copula::Loaded;
use super::file_format::FileFormat;
use super::notes::Note;
use super::table::{build_benchmark, guess_direction, read_table, ColumnRoles, CsvTable, LoadOptions};
use super::unpack_text;
use crate::benchmark::{Benchmark, Curves, Direction, Metric};
use crate::error::{EngineError, Result};
use crate::space::ParamKind;

/// LCBench hyperparameters that DyHPO log-scales before min-max scaling.
const LCBENCH_LOG_PARAMS: &[&str] = &["batch_size", "learning_rate", "weight_decay"];

/// The number of a step column named `e<k>`, `step_<k>` or `epoch_<k>` (0 is the untrained value).
fn step_number(header: &str) -> Option<usize> {
    let k = header.strip_prefix("step_").or_else(|| header.strip_prefix("epoch_")).or_else(|| header.strip_prefix('e'))?;
    (!k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())).then(|| k.parse::<usize>().ok()).flatten()
}

/// Step columns `(step number, column index)` sorted by step; names `e<k>`, `step_<k>` or
/// `epoch_<k>` with k ≥ 1.
pub fn step_columns(table: &CsvTable) -> Vec<(usize, usize)> {
    let mut steps: Vec<(usize, usize)> =
        table.headers.iter().enumerate().filter_map(|(c, h)| step_number(h).filter(|&k| k > 0).map(|k| (k, c))).collect();
    steps.sort();
    steps
}

/// Columns holding the untrained value (`e0`, `step_0`, `epoch_0`).
fn step_zero_columns(table: &CsvTable) -> Vec<usize> {
    table.headers.iter().enumerate().filter(|(_, h)| step_number(h) == Some(0)).map(|(c, _)| c).collect()
}

/// Whether a header matches a `steps=` pattern: the name itself, or a prefix ending in `*`.
pub fn matches_step_pattern(header: &str, pattern: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => header.starts_with(prefix) && header.len() > prefix.len(),
        None => header == pattern,
    }
}

/// A curve's cells, `None` where missing or not finite; text that is no number is an error.
fn parse_curve(
    file: &str,
    line: usize,
    table: &CsvTable,
    record: &csv::StringRecord,
    steps: &[(usize, usize)],
) -> Result<Vec<Option<f64>>> {
    steps
        .iter()
        .map(|&(_, c)| {
            parse_cell(&record[c]).map_err(|_| EngineError::Parse {
                file: file.into(),
                row: Some(line),
                column: Some(table.headers[c].clone()),
                message: format!("expected a number on the learning curve, found '{}'", &record[c]),
            })
        })
        .collect()
}

/// Parses every curve and repairs each task's by `policy` (`task_col` groups the rows; `sign`
/// is +1 when smaller is better; `untrained_col` holds each run's step 0 value, if the file
/// has one): the repaired curve per row, `None` for a dropped row.
fn read_curves(
    file: &str,
    table: &CsvTable,
    steps: &[(usize, usize)],
    task_col: Option<usize>,
    untrained_col: Option<usize>,
    sign: f64,
    policy: MissingPolicy,
) -> Result<(Vec<Option<Vec<f64>>>, Repaired)> {
    let mut by_task: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut parsed = Vec::with_capacity(table.rows.len());
    let mut untrained = Vec::with_capacity(table.rows.len());
    for (r, record) in table.rows.iter().enumerate() {
        parsed.push(parse_curve(file, r + 2, table, record, steps)?);
        if let Some(c) = untrained_col {
            untrained.push(parse_curve(file, r + 2, table, record, &[(0, c)])?[0]);
        }
        by_task.entry(task_col.map_or("", |c| &record[c])).or_default().push(r);
    }
    let mut out: Vec<Option<Vec<f64>>> = vec![None; table.rows.len()];
    let mut repaired = Repaired::default();
    for rows in by_task.values() {
        let curves: Vec<Vec<Option<f64>>> = rows.iter().map(|&r| std::mem::take(&mut parsed[r])).collect();
        let step_zero: Vec<Option<f64>> = if untrained.is_empty() { Vec::new() } else { rows.iter().map(|&r| untrained[r]).collect() };
        let (fixed, counts) = repair_curves(curves, &step_zero, sign, policy);
        repaired.add(counts);
        for (&r, curve) in rows.iter().zip(fixed) {
            out[r] = curve;
        }
    }
    Ok((out, repaired))
}

/// Loads a single-file learning-curve CSV (see the module docs) with the default options.
pub fn load_curve_table(file: &str, bytes: &[u8], metric_name: &str, direction: Direction) -> Result<Loaded> {
    load_curve_file(file, bytes, metric_name, direction, &LoadOptions::default())
}

/// Loads a single-file learning-curve CSV: its columns by `options.roles` (steps named by
/// `steps=`) or by their names, missing points and scales by `options`.
pub fn load_curve_file(file: &str, bytes: &[u8], metric_name: &str, direction: Direction, options: &LoadOptions) -> Result<Loaded> {
    let text = unpack_text(file, bytes)?;
    curves_from_table(file, read_table(file, &text)?, metric_name, direction, options)
}

/// A learning-curve benchmark from a parsed table (see [`load_curve_file`]).
pub fn curves_from_table(
    file: &str,
    mut table: CsvTable,
    metric_name: &str,
    direction: Direction,
    options: &LoadOptions,
) -> Result<Loaded> {
    let mut warnings = Vec::new();
    let explicit = options.roles.as_ref().filter(|r| !r.steps.is_empty());
    let (steps, hps, task, categorical, untrained_col) = match explicit {
        Some(roles) => {
            // A prefix pattern never takes a step 0 column (the untrained value).
            let steps: Vec<(usize, usize)> = table
                .headers
                .iter()
                .enumerate()
                .filter(|(_, h)| {
                    roles.steps.iter().any(|p| {
                        let zero = p.strip_suffix('*').is_some_and(|prefix| h.strip_prefix(prefix) == Some("0"));
                        h.as_str() == p || (matches_step_pattern(h, p) && !zero)
                    })
                })
                .enumerate()
                .map(|(k, (c, _))| (k + 1, c))
                .collect();
            if steps.is_empty() {
                return Err(EngineError::parse(
                    file,
                    format!(
                        "no column matches the link's steps ({}); the header has: {}",
                        roles.steps.join(", "),
                        table.headers.join(", ")
                    ),
                ));
            }
            // The step 0 column of a prefix pattern (`loss_*` → `loss_0`) is the untrained value.
            let zero = table
                .headers
                .iter()
                .position(|h| roles.steps.iter().any(|p| p.strip_suffix('*').is_some_and(|prefix| h.strip_prefix(prefix) == Some("0"))));
            (steps, roles.hyperparameters.clone(), roles.task.clone(), roles.categorical.clone(), zero)
        }
        None => {
            let steps = step_columns(&table);
            if steps.is_empty() {
                return Err(EngineError::parse(
                    file,
                    "no learning-curve columns: expected columns e1..eN, step_1..step_N or epoch_1..epoch_N",
                ));
            }
            let zero = step_zero_columns(&table);
            for &c in &zero {
                warnings.push(Note::said(
                    file,
                    format!(
                        "'{}' is the untrained value (step 0): not a hyperparameter nor a budget step; it bounds what counts as diverged",
                        table.headers[c]
                    ),
                ));
            }
            let step_cols: Vec<usize> = steps.iter().map(|s| s.1).collect();
            let task = table.column("task").map(|_| "task".to_string());
            let hps: Vec<String> = table
                .headers
                .iter()
                .enumerate()
                .filter(|(c, h)| {
                    !step_cols.contains(c) && !zero.contains(c) && Some(h.as_str()) != task.as_deref() && h.as_str() != "config_id"
                })
                .map(|(_, h)| h.clone())
                .collect();
            (steps, hps, task, Vec::new(), zero.first().copied())
        }
    };
    let task_col = match &task {
        Some(t) => Some(table.column(t).ok_or_else(|| EngineError::parse(file, format!("no task column '{t}' in the header")))?),
        None => None,
    };
    let (curves, repaired) = read_curves(file, &table, &steps, task_col, untrained_col, direction.sign(), options.missing)?;
    warnings.extend(Note::repaired(repaired, file, "curve points", options.missing, untrained_col.map(|c| table.headers[c].as_str())));
    // Dropped curves leave the table; the final value becomes an ordinary metric column so
    // every method can use the table (written with Rust's round-trip formatting).
    let kept: Vec<(csv::StringRecord, Vec<f64>)> =
        table.rows.drain(..).zip(curves).filter_map(|(record, curve)| curve.map(|c| (record, c))).collect();
    if kept.is_empty() {
        return Err(EngineError::parse(
            file,
            format!("every learning curve was dropped (missing={}); nothing to optimise", options.missing.as_str()),
        ));
    }
    let final_col = unique_name(&table, metric_name);
    table.headers.push(final_col.clone());
    let mut curves = Vec::with_capacity(kept.len());
    for (mut record, curve) in kept {
        record.push_field(&format!("{}", curve.last().copied().unwrap_or(f64::NAN)));
        table.rows.push(record);
        curves.push(curve);
    }
    let roles = ColumnRoles {
        hyperparameters: hps,
        categorical,
        metrics: vec![Metric { name: final_col.clone(), direction }],
        objective: final_col,
        task,
        steps: Vec::new(),
        run: None,
        step: None,
    };
    let (mut benchmark, more) = build_benchmark(file, &super::copula::file_stem(file), &table, &roles, options)?;
    warnings.extend(more);
    attach_curves_in_row_order(&mut benchmark, &table, roles.task.as_deref(), curves, None);
    Ok(Loaded { benchmark, notes: warnings, format: FileFormat::LearningCurves })
}

fn unique_name(table: &CsvTable, base: &str) -> String {
    let mut name = base.to_string();
    while table.column(&name).is_some() {
        name.push('_');
    }
    name
}

/// Rows were grouped by task in first-appearance order by `build_benchmark`; replay that
/// grouping to hand each task its curves. (No rows are dropped: curves are finite.)
fn attach_curves_in_row_order(
    benchmark: &mut Benchmark,
    table: &CsvTable,
    task_col: Option<&str>,
    curves: Vec<Vec<f64>>,
    cost: Option<Vec<Vec<f64>>>,
) {
    let tc = task_col.and_then(|c| table.column(c));
    // Per task: its configurations' curves and their costs.
    type CurvesAndCosts = (Vec<Vec<f64>>, Vec<Vec<f64>>);
    let mut per_task: BTreeMap<usize, CurvesAndCosts> = BTreeMap::new();
    let mut cost_iter = cost.map(|c| c.into_iter());
    for (record, curve) in table.rows.iter().zip(curves) {
        let t = tc.and_then(|c| benchmark.task_index(&record[c])).unwrap_or(0);
        let entry = per_task.entry(t).or_default();
        entry.0.push(curve);
        if let Some(it) = cost_iter.as_mut() {
            entry.1.push(it.next().unwrap_or_default());
        }
    }
    let has_cost = cost_iter.is_some();
    for (t, (values, cost)) in per_task {
        benchmark.tasks[t].curves = Some(Curves { values, cost: has_cost.then_some(cost) });
    }
}

/// One named input file: its name (for messages) and bytes.
pub struct NamedBytes<'a> {
    /// File name.
    pub name: &'a str,
    /// Content (plain, gzip or zip).
    pub bytes: &'a [u8],
}

/// Loads the LCBench layout: configurations, one metric's curves, optional cumulative cost
/// and optional task names (`task_id,dataset_name`).
pub fn load_lcbench(
    configs: NamedBytes,
    metric: NamedBytes,
    metric_name: &str,
    cost: Option<NamedBytes>,
    task_names: Option<NamedBytes>,
) -> Result<Loaded> {
    let ctable = read_table(configs.name, &unpack_text(configs.name, configs.bytes)?)?;
    let id_col = ctable.column("config_id").ok_or_else(|| EngineError::parse(configs.name, "expected a config_id column"))?;
    let names = match task_names {
        Some(nb) => {
            let t = read_table(nb.name, &unpack_text(nb.name, nb.bytes)?)?;
            let (i, n) = (t.column("task_id"), t.column("dataset_name"));
            match (i, n) {
                (Some(i), Some(n)) => t.rows.iter().map(|r| (r[i].to_string(), r[n].to_string())).collect(),
                _ => return Err(EngineError::parse(nb.name, "expected columns task_id,dataset_name")),
            }
        }
        None => BTreeMap::new(),
    };
    let config_rows: BTreeMap<String, usize> = ctable.rows.iter().enumerate().map(|(r, rec)| (rec[id_col].to_string(), r)).collect();
    let read_curves = |nb: &NamedBytes| -> Result<(CsvTable, Vec<Vec<f64>>)> {
        let t = read_table(nb.name, &unpack_text(nb.name, nb.bytes)?)?;
        let steps = step_columns(&t);
        if steps.is_empty() || t.column("task_id").is_none() || t.column("config_id").is_none() {
            return Err(EngineError::parse(nb.name, "expected columns task_id, config_id, e1..eN"));
        }
        // The published tables are complete: a missing point here means a damaged file.
        let curves = t
            .rows
            .iter()
            .enumerate()
            .map(|(r, rec)| {
                parse_curve(nb.name, r + 2, &t, rec, &steps)?.into_iter().collect::<Option<Vec<f64>>>().ok_or_else(|| EngineError::Parse {
                    file: nb.name.into(),
                    row: Some(r + 2),
                    column: None,
                    message: "a point of this learning curve is missing or not finite (LCBench's tables are complete)".into(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((t, curves))
    };
    let (mtable, mcurves) = read_curves(&metric)?;
    let cost_curves = match &cost {
        Some(nb) => {
            let (ct, cc) = read_curves(nb)?;
            if ct.rows.len() != mtable.rows.len() {
                return Err(EngineError::parse(
                    nb.name,
                    format!("has {} rows but {} has {}", ct.rows.len(), metric.name, mtable.rows.len()),
                ));
            }
            Some(cc)
        }
        None => None,
    };
    // Join: one combined table with hyperparameters, task name and final metric.
    let (ti, ci) = (mtable.column("task_id").unwrap(), mtable.column("config_id").unwrap());
    let hp_names: Vec<String> = ctable.headers.iter().filter(|h| *h != "config_id").cloned().collect();
    let mut headers = hp_names.clone();
    headers.push("task".into());
    headers.push(metric_name.into());
    let mut rows = Vec::with_capacity(mtable.rows.len());
    for (r, rec) in mtable.rows.iter().enumerate() {
        let cr = *config_rows.get(&rec[ci]).ok_or_else(|| EngineError::Parse {
            file: metric.name.into(),
            row: Some(r + 2),
            column: Some("config_id".into()),
            message: format!("config_id {} is not in {}", &rec[ci], configs.name),
        })?;
        let mut out = csv::StringRecord::new();
        for (c, h) in ctable.headers.iter().enumerate() {
            if h != "config_id" {
                out.push_field(&ctable.rows[cr][c]);
            }
        }
        out.push_field(names.get(&rec[ti]).map(String::as_str).unwrap_or(&rec[ti]));
        out.push_field(&format!("{}", mcurves[r].last().copied().unwrap_or(f64::NAN)));
        rows.push(out);
    }
    let table = CsvTable { headers, rows };
    let roles = ColumnRoles {
        hyperparameters: hp_names,
        categorical: Vec::new(),
        metrics: vec![Metric { name: metric_name.into(), direction: guess_direction(metric_name) }],
        objective: metric_name.into(),
        task: Some("task".into()),
        steps: Vec::new(),
        run: None,
        step: None,
    };
    let (mut benchmark, warnings) = build_benchmark(metric.name, "LCBench", &table, &roles, &LoadOptions::default())?;
    for p in &mut benchmark.space.params {
        if LCBENCH_LOG_PARAMS.contains(&p.name.as_str()) {
            if let ParamKind::Integer { lower, upper } = p.kind {
                p.kind = ParamKind::Continuous { lower: lower as f64, upper: upper as f64, log: true };
            }
            if let ParamKind::Continuous { ref mut log, lower, .. } = p.kind {
                *log = lower > 0.0;
            }
        }
    }
    attach_curves_in_row_order(&mut benchmark, &table, Some("task"), mcurves, cost_curves);
    Ok(Loaded { benchmark, notes: warnings, format: FileFormat::LcbenchFolder })
}

/// The files of the LCBench layout as shipped in `lcbench-surrogate`: configurations, the
/// metric DyHPO optimises (validation balanced accuracy), cumulative time, task names.
pub const LCBENCH_FILES: [&str; 4] =
    ["lcbench_configs.csv", "lcbench_surrogate_val_balanced_accuracy.csv.gz", "lcbench_surrogate_time.csv.gz", "lcbench_task_names.csv"];

/// The name under which the build stages LCBench's folder as one zip (`shared:` links).
pub const LCBENCH_ARCHIVE: &str = "lcbench-surrogate.zip";

/// True when `names` (file names) hold the LCBench layout's configurations and metric.
pub fn is_lcbench_layout(names: &[String]) -> bool {
    LCBENCH_FILES[..2].iter().all(|f| names.iter().any(|n| n == f))
}

/// LCBench from its files (e.g. a zip of the `lcbench-surrogate` folder), as DyHPO used it:
/// validation balanced accuracy, maximised, with time as the cost, and the first logged
/// epoch dropped (DyHPO's budget b is LCBench's epoch b + 1), so that every race on it —
/// page, links and CLI — is the paper's.
pub fn load_lcbench_members(file: &str, members: &[(String, Vec<u8>)]) -> Result<Loaded> {
    let find = |f: &str| members.iter().find(|(n, _)| n == f).map(|(n, b)| NamedBytes { name: n, bytes: b });
    let need = |f: &str| find(f).ok_or_else(|| EngineError::parse(file, format!("the LCBench layout needs {f}")));
    let mut loaded = load_lcbench(
        need(LCBENCH_FILES[0])?,
        need(LCBENCH_FILES[1])?,
        "val_balanced_accuracy",
        find(LCBENCH_FILES[2]),
        find(LCBENCH_FILES[3]),
    )?;
    for task in &mut loaded.benchmark.tasks {
        if let Some(curves) = &mut task.curves {
            if curves.values.iter().any(|c| c.len() < 2) {
                return Err(EngineError::parse(file, format!("task {} has curves shorter than 2 epochs", task.name)));
            }
            curves.values.iter_mut().for_each(|c| {
                c.remove(0);
            });
            if let Some(cost) = &mut curves.cost {
                cost.iter_mut().for_each(|c| {
                    c.remove(0);
                });
            }
        }
    }
    loaded.benchmark.name = "LCBench".into();
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_file_curves_attach_to_their_tasks() {
        let text = "lr,task,e1,e2,e3\n0.1,a,0.5,0.6,0.7\n0.2,b,0.1,0.2,0.3\n0.3,a,0.4,0.45,0.9\n";
        let l = load_curve_table("c.csv", text.as_bytes(), "val_acc", Direction::Maximize).unwrap();
        let b = &l.benchmark;
        assert_eq!(b.tasks[0].name, "a");
        let c = b.tasks[0].curves.as_ref().unwrap();
        assert_eq!(c.values, vec![vec![0.5, 0.6, 0.7], vec![0.4, 0.45, 0.9]]);
        assert_eq!(b.tasks[0].metrics[0], vec![0.7, 0.9]);
        assert_eq!(b.metrics[0].direction, Direction::Maximize);
    }

    #[test]
    fn lcbench_layout_joins_configs_names_and_cost() {
        let configs = "config_id,batch_size,learning_rate\n0,16,0.001\n1,512,0.1\n";
        let acc = "task_id,config_id,e1,e2\n7,0,0.5,0.6\n7,1,0.7,0.8\n";
        let time = "task_id,config_id,e1,e2\n7,0,1,2\n7,1,3,6\n";
        let names = "task_id,dataset_name\n7,covertype\n";
        let l = load_lcbench(
            NamedBytes { name: "configs.csv", bytes: configs.as_bytes() },
            NamedBytes { name: "acc.csv", bytes: acc.as_bytes() },
            "val_balanced_accuracy",
            Some(NamedBytes { name: "time.csv", bytes: time.as_bytes() }),
            Some(NamedBytes { name: "names.csv", bytes: names.as_bytes() }),
        )
        .unwrap();
        let t = &l.benchmark.tasks[0];
        assert_eq!(t.name, "covertype");
        assert_eq!(t.metrics[0], vec![0.6, 0.8]);
        assert_eq!(t.curves.as_ref().unwrap().cost.as_ref().unwrap()[1], vec![3.0, 6.0]);
        assert!(matches!(l.benchmark.space.params[0].kind, ParamKind::Continuous { log: true, .. }));
        let e = l.benchmark.space.encode(&[16.0, 0.001]);
        assert_eq!(e, vec![0.0, 0.0]);
    }

    #[test]
    fn a_zip_of_the_lcbench_folder_loads_as_dyhpo_used_it() {
        use std::io::Write;
        let files = [
            ("lcbench/lcbench_configs.csv", "config_id,batch_size,learning_rate\n0,16,0.001\n1,512,0.1\n"),
            ("lcbench/lcbench_surrogate_val_balanced_accuracy.csv.gz", "task_id,config_id,e1,e2,e3\n7,0,0.5,0.6,0.65\n7,1,0.7,0.8,0.75\n"),
            ("lcbench/lcbench_surrogate_time.csv.gz", "task_id,config_id,e1,e2,e3\n7,0,1,2,3\n7,1,3,6,9\n"),
            ("lcbench/lcbench_task_names.csv", "task_id,dataset_name\n7,covertype\n"),
        ];
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            for (name, text) in files {
                w.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
                w.write_all(text.as_bytes()).unwrap();
            }
            w.finish().unwrap();
        }
        let loaded = crate::loaders::upload::load_file("lcbench.zip", buf.get_ref(), None).ok().unwrap();
        let b = &loaded.benchmark;
        assert_eq!(b.name, "LCBench");
        let t = &b.tasks[0];
        assert_eq!(t.name, "covertype");
        // The first logged epoch is dropped; the objective stays the last epoch's value.
        assert_eq!(t.curves.as_ref().unwrap().values, vec![vec![0.6, 0.65], vec![0.8, 0.75]]);
        assert_eq!(t.curves.as_ref().unwrap().cost.as_ref().unwrap()[1], vec![6.0, 9.0]);
        assert_eq!(t.metrics[0], vec![0.65, 0.75]);
        assert_eq!(b.metrics[0].direction, Direction::Maximize);
        // Without the metric file it is not the layout; a zip missing the configurations says so.
        let e = load_lcbench_members("x.zip", &[(LCBENCH_FILES[1].into(), Vec::new())]).unwrap_err().to_string();
        assert!(e.contains("needs lcbench_configs.csv"), "{e}");
    }

    #[test]
    fn bad_curve_value_is_located() {
        let text = "lr,e1,e2\n0.1,0.5,oops\n";
        let e = load_curve_table("c.csv", text.as_bytes(), "m", Direction::Minimize).unwrap_err().to_string();
        assert_eq!(e, "c.csv, line 2, column 'e2': expected a number on the learning curve, found 'oops'");
    }

    #[test]
    fn diverged_points_step_zero_and_explicit_steps() {
        // A nan, an inf and an empty cell: under missing=worst each curve becomes the task's
        // worst from there on.
        let text = "lr,task,step_0,step_1,step_2,step_3
0.1,a,9,0.5,nan,0.1
0.2,a,9,0.8,0.7,0.6
0.3,b,9,,0.2,0.1
0.4,b,9,0.4,0.3,inf
";
        let worst = LoadOptions { missing: MissingPolicy::Worst, ..LoadOptions::default() };
        let l = load_curve_file("c.csv", text.as_bytes(), "m", Direction::Minimize, &worst).unwrap();
        assert_eq!(l.benchmark.space.params.len(), 1, "step_0 is not a hyperparameter");
        let a = l.benchmark.tasks[0].curves.as_ref().unwrap();
        assert_eq!(a.values, vec![vec![0.5, 0.8, 0.8], vec![0.8, 0.7, 0.6]]);
        let b = l.benchmark.tasks[1].curves.as_ref().unwrap();
        assert_eq!(b.values, vec![vec![0.4, 0.4, 0.4], vec![0.4, 0.3, 0.4]]);
        assert_eq!(l.benchmark.tasks[0].metrics[0], vec![0.8, 0.6], "the objective is the repaired last step");
        let notes = l.notes.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert!(notes.contains("c.csv: 3 missing or non-finite curve points in 3 rows, counted as the task's worst value"), "{notes}");
        assert!(notes.contains("'step_0' is the untrained value"), "{notes}");
        // By default (missing=untrained) they take the run's step 0 value, 9, from there on.
        let l = load_curve_table("c.csv", text.as_bytes(), "m", Direction::Minimize).unwrap();
        assert_eq!(l.benchmark.tasks[0].curves.as_ref().unwrap().values[0], vec![0.5, 9.0, 9.0]);
        assert_eq!(l.benchmark.tasks[1].curves.as_ref().unwrap().values, vec![vec![9.0; 3], vec![0.4, 0.3, 9.0]]);
        // The link may name the steps itself (a prefix ending in *; step 0 is never taken).
        let text = "lr,ds,loss_0,loss_1,loss_2
0.1,a,9,0.5,0.4
0.2,a,9,0.8,0.7
";
        let roles = ColumnRoles {
            hyperparameters: vec!["lr".into()],
            task: Some("ds".into()),
            steps: vec!["loss_*".into()],
            ..ColumnRoles::default()
        };
        let options = LoadOptions { roles: Some(roles), ..LoadOptions::default() };
        let l = load_curve_file("c.csv", text.as_bytes(), "m", Direction::Minimize, &options).unwrap();
        assert_eq!(l.benchmark.tasks[0].curves.as_ref().unwrap().values, vec![vec![0.5, 0.4], vec![0.8, 0.7]]);
        // Its step 0 column (loss_0) is each run's untrained value: 1e9 is worse than 9.
        let text = text.replace("0.7\n", "1e9\n");
        let l = load_curve_file("c.csv", text.as_bytes(), "m", Direction::Minimize, &options).unwrap();
        assert_eq!(l.benchmark.tasks[0].curves.as_ref().unwrap().values, vec![vec![0.5, 0.4], vec![0.8, 9.0]]);
        assert_eq!(l.benchmark.tasks[0].name, "a");
    }
}
