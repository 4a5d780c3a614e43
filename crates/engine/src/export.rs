//! Trace export in the copula paper repository's format:
//! `seed,iteration,value,blackbox,task,optimizer`, where `value` is the objective evaluated at
//! that iteration (not the best so far) and `iteration` counts from 0. Rows are sorted by
//! optimizer, task, seed and iteration, so the file does not depend on which worker finished
//! first. Numbers use Rust's shortest round-trip formatting, identical natively and in wasm.

use super::fidelity::RaceTrace;
use super::trace::{Trace, TraceRow};

/// Columns of the paper's format.
const PAPER_COLUMNS: [&str; 6] = ["seed", "iteration", "value", "blackbox", "task", "optimizer"];

/// Writes one CSV row per iteration, traces sorted by optimizer, task and seed; each row is
/// the paper's six columns followed by `extra(row)`.
fn write_csv<'a>(traces: impl IntoIterator<Item = &'a Trace>, extra_columns: &[&str], extra: impl Fn(&TraceRow) -> Vec<String>) -> String {
    let mut sorted: Vec<&Trace> = traces.into_iter().collect();
    sorted.sort_by(|a, b| (&a.method, &a.task, a.seed).cmp(&(&b.method, &b.task, b.seed)));
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(PAPER_COLUMNS.iter().chain(extra_columns)).expect("writing to memory");
    for t in sorted {
        for r in t.rows() {
            let mut record = vec![
                t.seed.to_string(),
                r.iteration.to_string(),
                format!("{}", r.value),
                t.blackbox.clone(),
                t.task.clone(),
                t.method.clone(),
            ];
            record.extend(extra(r));
            w.write_record(&record).expect("writing to memory");
        }
    }
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("csv writes UTF-8")
}

/// Multi-fidelity runs as CSV, one row per served request (`step` counts from 0), runs sorted
/// by method, task and seed: `method,task,seed,step,config,budget,value,best,spent,cost,
/// optimizer_seconds`. `config` is the configuration's row index within its task.
pub fn race_traces_csv<'a>(traces: impl IntoIterator<Item = &'a RaceTrace>) -> String {
    let mut sorted: Vec<&RaceTrace> = traces.into_iter().collect();
    sorted.sort_by(|a, b| (&a.method, &a.task, a.seed).cmp(&(&b.method, &b.task, b.seed)));
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["method", "task", "seed", "step", "config", "budget", "value", "best", "spent", "cost", "optimizer_seconds"])
        .expect("writing to memory");
    for t in sorted {
        for (k, r) in t.rows.iter().enumerate() {
            w.write_record([
                t.method.clone(),
                t.task.clone(),
                t.seed.to_string(),
                k.to_string(),
                r.config.to_string(),
                r.budget.to_string(),
                format!("{}", r.value),
                format!("{}", r.best),
                r.spent.to_string(),
                format!("{}", r.cost),
                format!("{}", r.optimizer_seconds),
            ])
            .expect("writing to memory");
        }
    }
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("csv writes UTF-8")
}

/// The traces as CSV text in the paper's format (with header).
pub fn traces_csv<'a>(traces: impl IntoIterator<Item = &'a Trace>) -> String {
    write_csv(traces, &[], |_| Vec::new())
}

/// Everything a trace records, one row per iteration: the paper's columns plus the index of
/// the chosen configuration in its task, the best value so far and the optimizer's own
/// seconds (wall time, so it differs between runs and platforms).
/// Multi-objective traces add the normalised hypervolume error and the raw value of each
/// objective (`objective_1` … in the order of the spec; `value` is then `objective_1`).
pub fn traces_detailed_csv<'a>(traces: impl IntoIterator<Item = &'a Trace>) -> String {
    let traces: Vec<&Trace> = traces.into_iter().collect();
    let objectives = traces.iter().flat_map(|t| t.rows().first()).map(|r| r.objectives.len()).max().unwrap_or(0);
    let mut columns: Vec<String> = ["configuration", "best", "optimizer_seconds"].map(String::from).to_vec();
    if objectives > 0 {
        columns.push("hv_error".into());
        columns.extend((1..=objectives).map(|l| format!("objective_{l}")));
    }
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    write_csv(traces, &names, |r| {
        let mut v = vec![r.candidate.to_string(), format!("{}", r.best), format!("{:.9}", r.optimizer_seconds)];
        if objectives > 0 {
            v.push(r.hv_error.map(|e| format!("{e}")).unwrap_or_default());
            v.extend((0..objectives).map(|l| r.objectives.get(l).map(|x| format!("{x}")).unwrap_or_default()));
        }
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fidelity::RaceRow;
    use crate::trace::TraceBody;

    #[test]
    fn race_csv_sorted_one_row_per_request() {
        let row =
            |config, budget, value| RaceRow { config, budget, value, best: value, spent: budget as u64, cost: 1.5, optimizer_seconds: 0.0 };
        let t = |method: &str, seed| RaceTrace {
            method: method.into(),
            task: "t, 1".into(),
            seed,
            rows: vec![row(3, 1, 0.5), row(3, 2, 0.25)],
        };
        let csv = race_traces_csv(&[t("RS", 1), t("DyHPO", 0)]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "method,task,seed,step,config,budget,value,best,spent,cost,optimizer_seconds");
        assert_eq!(lines[1], "DyHPO,\"t, 1\",0,0,3,1,0.5,0.5,1,1.5,0");
        assert_eq!(lines[4], "RS,\"t, 1\",1,1,3,2,0.25,0.25,2,1.5,0");
        assert_eq!(lines.len(), 5);
    }

    /// A number as the files write it, read back: the same bits (any NaN as a NaN).
    fn same_number(written: &str, value: f64) -> bool {
        let read: f64 = written.parse().unwrap_or_else(|_| panic!("'{written}' is no number"));
        read.to_bits() == value.to_bits() || (read.is_nan() && value.is_nan())
    }

    #[test]
    fn every_trace_file_reads_back_as_its_traces() {
        use rand::{Rng, SeedableRng};
        // Generated traces (fixed seed): non-finite, subnormal, huge and negative-zero values;
        // names with commas, quotes, line breaks and unicode. Each file read back by a CSV reader
        // gives every row's text and every number to the bit.
        let mut rng = crate::optimizer::MethodRng::seed_from_u64(77);
        let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 5e-324, f64::MAX, 1.0 / 3.0, -1e-300];
        let number = |rng: &mut crate::optimizer::MethodRng| {
            if rng.random_bool(0.3) {
                specials[rng.random_range(0..specials.len())]
            } else {
                rng.random_range(-1e3..1e3)
            }
        };
        let names = ["plain", "a,b", "say \"hi\"", "two\nlines", "größe λ", "日本語"];
        for case in 0..50 {
            let pick = |rng: &mut crate::optimizer::MethodRng| names[rng.random_range(0..names.len())].to_string();
            let rows: Vec<TraceRow> = (0..rng.random_range(1..6))
                .map(|i| TraceRow {
                    iteration: i,
                    candidate: rng.random_range(0..1000),
                    value: number(&mut rng),
                    best: number(&mut rng),
                    optimizer_seconds: 0.0,
                    objectives: vec![number(&mut rng), number(&mut rng)],
                    hv_error: Some(number(&mut rng)),
                })
                .collect();
            let trace = Trace {
                method: pick(&mut rng),
                blackbox: pick(&mut rng),
                task: pick(&mut rng),
                seed: rng.random_range(0..u64::MAX),
                body: TraceBody::Evaluations { rows: rows.clone(), prior_rmse: None },
            };
            let detailed = traces_detailed_csv([&trace]);
            let mut reader = csv::Reader::from_reader(detailed.as_bytes());
            let read: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
            assert_eq!(read.len(), rows.len(), "case {case}");
            for (record, row) in read.iter().zip(&rows) {
                assert_eq!(record[0].parse::<u64>().unwrap(), trace.seed);
                assert_eq!(record[1].parse::<u32>().unwrap(), row.iteration);
                assert!(same_number(&record[2], row.value), "case {case}: {} for {}", &record[2], row.value);
                assert_eq!((&record[3], &record[4], &record[5]), (trace.blackbox.as_str(), trace.task.as_str(), trace.method.as_str()));
                assert_eq!(record[6].parse::<usize>().unwrap(), row.candidate);
                assert!(same_number(&record[7], row.best));
                assert!(same_number(&record[9], row.hv_error.unwrap()));
                assert!(same_number(&record[10], row.objectives[0]) && same_number(&record[11], row.objectives[1]));
            }
            let paper = traces_csv([&trace]);
            assert_eq!(csv::Reader::from_reader(paper.as_bytes()).records().count(), rows.len());
            let race = RaceTrace {
                method: trace.method.clone(),
                task: trace.task.clone(),
                seed: trace.seed,
                rows: rows
                    .iter()
                    .map(|r| RaceRow {
                        config: r.candidate,
                        budget: r.iteration + 1,
                        value: r.value,
                        best: r.best,
                        spent: r.candidate as u64,
                        cost: r.objectives[0],
                        optimizer_seconds: r.objectives[1],
                    })
                    .collect(),
            };
            let written = race_traces_csv([&race]);
            let read: Vec<csv::StringRecord> = csv::Reader::from_reader(written.as_bytes()).records().map(|r| r.unwrap()).collect();
            assert_eq!(read.len(), race.rows.len(), "case {case}");
            for (record, row) in read.iter().zip(&race.rows) {
                assert_eq!((&record[0], &record[1]), (race.method.as_str(), race.task.as_str()));
                assert_eq!((record[4].parse::<usize>().unwrap(), record[5].parse::<u32>().unwrap()), (row.config, row.budget));
                for (k, v) in [(6, row.value), (7, row.best), (9, row.cost), (10, row.optimizer_seconds)] {
                    assert!(same_number(&record[k], v), "case {case}: column {k} '{}' for {v}", &record[k]);
                }
            }
        }
    }

    #[test]
    fn paper_format_sorted_and_quoted() {
        let row =
            |i, v| TraceRow { iteration: i, candidate: 0, value: v, best: v, optimizer_seconds: 0.1, objectives: vec![], hv_error: None };
        let t = |seed, task: &str| Trace {
            method: "RS".into(),
            blackbox: "XGBoost".into(),
            task: task.into(),
            seed,
            body: TraceBody::Evaluations { rows: vec![row(0, 0.5), row(1, 0.25)], prior_rmse: None },
        };
        let csv = traces_csv(&[t(1, "heart"), t(0, "a,b")]);
        assert_eq!(
            csv,
            "seed,iteration,value,blackbox,task,optimizer\n0,0,0.5,XGBoost,\"a,b\",RS\n0,1,0.25,XGBoost,\"a,b\",RS\n1,0,0.5,XGBoost,heart,RS\n1,1,0.25,XGBoost,heart,RS\n"
        );
        let detailed = traces_detailed_csv(&[t(1, "heart")]);
        assert_eq!(detailed.lines().nth(1), Some("1,0,0.5,XGBoost,heart,RS,0,0.5,0.100000000"));
    }
}
