//! Trace export in the copula paper repository's format:
//! `seed,iteration,value,blackbox,task,optimizer`, where `value` is the objective evaluated at
//! that iteration (not the best so far) and `iteration` counts from 0. Rows are sorted by
//! optimizer, task, seed and iteration, so the file does not depend on which worker finished
//! first. Numbers use Rust's shortest round-trip formatting, identical natively and in wasm.

use super::runner::{Trace, TraceRow};

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
        for r in &t.rows {
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

/// The traces as CSV text in the paper's format (with header).
pub fn traces_csv<'a>(traces: impl IntoIterator<Item = &'a Trace>) -> String {
    write_csv(traces, &[], |_| Vec::new())
}

/// Everything a trace records, one row per iteration: the paper's columns plus the index of
/// the chosen configuration in its task, the best value so far and the optimizer's own
/// seconds (wall time, so it differs between runs and platforms).
pub fn traces_detailed_csv<'a>(traces: impl IntoIterator<Item = &'a Trace>) -> String {
    write_csv(traces, &["configuration", "best", "optimizer_seconds"], |r| {
        vec![r.candidate.to_string(), format!("{}", r.best), format!("{:.9}", r.optimizer_seconds)]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_format_sorted_and_quoted() {
        let row = |i, v| TraceRow { iteration: i, candidate: 0, value: v, best: v, optimizer_seconds: 0.1 };
        let t = |seed, task: &str| Trace {
            method: "RS".into(),
            blackbox: "XGBoost".into(),
            task: task.into(),
            seed,
            rows: vec![row(0, 0.5), row(1, 0.25)],
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
