//! Data as researchers bring it: missing or diverged values (empty, `nan`, `inf`) repaired by a
//! policy the user picks, and hyperparameters spanning decades put on a log scale. One place,
//! used alike by the copula, generic and learning-curve loaders — so the page, the CLI and
//! every format treat a file the same way.

use serde::{Deserialize, Serialize};

/// What happens to a missing or non-finite value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MissingPolicy {
    /// The value — on a learning curve, the first diverged point and every point after it —
    /// counts as the worst value seen on its task (in the metric's direction): a run that
    /// diverged is as bad as the worst run, not absent from the data.
    #[default]
    Worst,
    /// The row (configuration, or curve) is dropped.
    Drop,
    /// A curve's diverged point takes the last finite value before it (a curve with none
    /// before it is dropped); a single value (no curve) has nothing before it and is dropped.
    ForwardFill,
}

impl MissingPolicy {
    /// Short form used in links.
    pub fn as_str(self) -> &'static str {
        match self {
            MissingPolicy::Worst => "worst",
            MissingPolicy::Drop => "drop",
            MissingPolicy::ForwardFill => "ffill",
        }
    }

    /// From its short form.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "worst" => Some(MissingPolicy::Worst),
            "drop" => Some(MissingPolicy::Drop),
            "ffill" => Some(MissingPolicy::ForwardFill),
            _ => None,
        }
    }

    /// What it does, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            MissingPolicy::Worst => "counted as the task's worst value (missing=worst)",
            MissingPolicy::Drop => "dropped with their rows (missing=drop)",
            MissingPolicy::ForwardFill => "filled with the curve's last finite value, or dropped where there is none (missing=ffill)",
        }
    }
}

/// A cell that is text, not a number (the caller names file, line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotANumber;

/// A cell of a metric or a curve: `Ok(None)` when missing or not finite (empty, `nan`, `inf`,
/// `NA`, `null`), `Err` when it is text that is no number at all.
pub fn parse_cell(text: &str) -> Result<Option<f64>, NotANumber> {
    if text.is_empty() || text.eq_ignore_ascii_case("na") || text.eq_ignore_ascii_case("null") || text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        Ok(_) => Ok(None),
        Err(_) => Err(NotANumber),
    }
}

/// Words every repair message contains (the page re-reads a repaired file when the
/// direction, and so the worst value, changes).
pub const REPAIR_NOTE: &str = "missing or non-finite";

/// What a repair touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Repaired {
    /// Cells that were missing or not finite.
    pub cells: usize,
    /// Rows (configurations or curves) with at least one such cell.
    pub rows: usize,
    /// Of those rows, how many were dropped.
    pub dropped: usize,
}

impl Repaired {
    /// Adds another repair's counts.
    pub fn add(&mut self, other: Repaired) {
        self.cells += other.cells;
        self.rows += other.rows;
        self.dropped += other.dropped;
    }

    /// The message for the user, or `None` when nothing was touched.
    pub fn message(&self, file: &str, what: &str, policy: MissingPolicy) -> Option<String> {
        (self.cells > 0).then(|| {
            let dropped = if self.dropped > 0 && policy != MissingPolicy::Drop {
                format!(" ({} dropped: nothing finite before the first)", self.dropped)
            } else {
                String::new()
            };
            format!(
                "{file}: {} {REPAIR_NOTE} {what} in {} {}, {}{dropped}",
                self.cells,
                self.rows,
                if self.rows == 1 { "row" } else { "rows" },
                policy.describe()
            )
        })
    }
}

/// The worst finite value among `values` in the direction `sign` (+1: smaller is better).
fn worst_of<'a>(values: impl Iterator<Item = &'a f64>, sign: f64) -> Option<f64> {
    values.copied().filter(|v| v.is_finite()).fold(None, |w: Option<f64>, v| Some(w.map_or(v, |w| if sign * v > sign * w { v } else { w })))
}

/// Repairs the learning curves of one task by `policy`; `sign` is +1 when smaller is better.
/// `None` marks a curve that is dropped.
pub fn repair_curves(curves: Vec<Vec<Option<f64>>>, sign: f64, policy: MissingPolicy) -> (Vec<Option<Vec<f64>>>, Repaired) {
    let worst = worst_of(curves.iter().flatten().flatten(), sign);
    let mut counts = Repaired::default();
    let repaired = curves
        .into_iter()
        .map(|curve| {
            let bad = curve.iter().filter(|v| v.is_none()).count();
            if bad == 0 {
                return Some(curve.into_iter().flatten().collect());
            }
            counts.cells += bad;
            counts.rows += 1;
            let fixed = match policy {
                MissingPolicy::Drop => None,
                MissingPolicy::Worst => {
                    // From the first diverged point on, the curve is the task's worst.
                    let first = curve.iter().position(Option::is_none).unwrap_or(curve.len());
                    worst
                        .map(|w| curve[..first].iter().map(|v| v.unwrap_or(w)).chain(std::iter::repeat_n(w, curve.len() - first)).collect())
                }
                MissingPolicy::ForwardFill => {
                    let mut last = None;
                    curve
                        .iter()
                        .map(|v| {
                            last = v.or(last);
                            last
                        })
                        .collect::<Option<Vec<f64>>>()
                }
            };
            if fixed.is_none() {
                counts.dropped += 1;
            }
            fixed
        })
        .collect();
    (repaired, counts)
}

/// Repairs one metric column of one task (a value per configuration) by `policy`: the worst
/// finite value of the task under [`MissingPolicy::Worst`], else `None` (the row is dropped).
pub fn repair_values(values: &[Option<f64>], sign: f64, policy: MissingPolicy) -> (Vec<Option<f64>>, Repaired) {
    let worst = if policy == MissingPolicy::Worst { worst_of(values.iter().flatten(), sign) } else { None };
    let bad = values.iter().filter(|v| v.is_none()).count();
    let fixed: Vec<Option<f64>> = values.iter().map(|v| v.or(worst)).collect();
    let dropped = fixed.iter().filter(|v| v.is_none()).count();
    (fixed, Repaired { cells: bad, rows: bad, dropped })
}

/// Whether a numeric hyperparameter's values call for a log scale: all positive and finite,
/// spanning two decades or more (largest ≥ 100 × smallest).
pub fn spans_decades(values: &[f64]) -> bool {
    let (lo, hi) = values.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    !values.is_empty() && values.iter().all(|v| v.is_finite() && *v > 0.0) && hi >= 100.0 * lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_missing_nan_inf_and_text() {
        assert_eq!(parse_cell("0.5"), Ok(Some(0.5)));
        for missing in ["", "nan", "NaN", "inf", "-inf", "NA", "null", "None"] {
            assert_eq!(parse_cell(missing), Ok(None), "{missing}");
        }
        assert_eq!(parse_cell("oops"), Err(NotANumber));
    }

    #[test]
    fn a_diverged_curve_becomes_the_tasks_worst_from_its_first_bad_point() {
        // Losses (smaller is better): the worst finite value of the task is 2.0.
        let curves = vec![
            vec![Some(1.0), Some(0.5), None, Some(0.1)],
            vec![Some(2.0), Some(1.5), Some(1.0), Some(0.9)],
            vec![None, None, None, None],
        ];
        let (fixed, r) = repair_curves(curves.clone(), 1.0, MissingPolicy::Worst);
        assert_eq!(fixed[0], Some(vec![1.0, 0.5, 2.0, 2.0]), "a point after the divergence is not trusted either");
        assert_eq!(fixed[1], Some(vec![2.0, 1.5, 1.0, 0.9]));
        assert_eq!(fixed[2], Some(vec![2.0; 4]));
        assert_eq!(r, Repaired { cells: 5, rows: 2, dropped: 0 });
        // Accuracies (larger is better): the worst is the smallest.
        let (fixed, _) = repair_curves(curves.clone(), -1.0, MissingPolicy::Worst);
        assert_eq!(fixed[0], Some(vec![1.0, 0.5, 0.1, 0.1]));
        // Drop and forward-fill.
        let (fixed, r) = repair_curves(curves.clone(), 1.0, MissingPolicy::Drop);
        assert_eq!((fixed[0].is_none(), fixed[1].is_some(), fixed[2].is_none()), (true, true, true));
        assert_eq!(r, Repaired { cells: 5, rows: 2, dropped: 2 });
        let (fixed, r) = repair_curves(curves, 1.0, MissingPolicy::ForwardFill);
        assert_eq!(fixed[0], Some(vec![1.0, 0.5, 0.5, 0.1]));
        assert_eq!(fixed[2], None, "nothing finite to carry forward");
        assert_eq!(r.dropped, 1);
    }

    #[test]
    fn a_missing_single_value_is_the_worst_or_dropped() {
        let values = [Some(0.2), None, Some(0.9)];
        assert_eq!(repair_values(&values, 1.0, MissingPolicy::Worst).0, vec![Some(0.2), Some(0.9), Some(0.9)]);
        assert_eq!(repair_values(&values, -1.0, MissingPolicy::Worst).0, vec![Some(0.2), Some(0.2), Some(0.9)]);
        for p in [MissingPolicy::Drop, MissingPolicy::ForwardFill] {
            let (fixed, r) = repair_values(&values, 1.0, p);
            assert_eq!(fixed[1], None);
            assert_eq!(r, Repaired { cells: 1, rows: 1, dropped: 1 });
        }
        // A task with nothing finite has no worst value: its rows are dropped.
        assert_eq!(repair_values(&[None, None], 1.0, MissingPolicy::Worst).0, vec![None, None]);
    }

    #[test]
    fn log_scale_edge_cases() {
        assert!(spans_decades(&[1e-8, 1e-3, 10.0]));
        assert!(spans_decades(&[0.01, 1.0]), "exactly two decades");
        assert!(!spans_decades(&[0.011, 1.0]), "just under two decades");
        assert!(!spans_decades(&[0.0, 1e-3, 10.0]), "a zero has no logarithm");
        assert!(!spans_decades(&[-1.0, 1e-3, 10.0]), "negatives neither");
        assert!(!spans_decades(&[5.0, 5.0, 5.0]), "a constant spans nothing");
        assert!(!spans_decades(&[]));
        assert!(spans_decades(&[16.0, 512.0, 4096.0]), "integers too");
    }

    #[test]
    fn messages_count_what_was_touched() {
        let r = Repaired { cells: 917, rows: 120, dropped: 0 };
        let m = r.message("lc.csv", "curve points", MissingPolicy::Worst).unwrap();
        assert_eq!(m, "lc.csv: 917 missing or non-finite curve points in 120 rows, counted as the task's worst value (missing=worst)");
        assert!(Repaired::default().message("f", "values", MissingPolicy::Drop).is_none());
    }
}
