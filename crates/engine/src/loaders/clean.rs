//! Data as researchers bring it: missing or diverged values (empty, `nan`, `inf`) repaired by a
//! policy the user picks, and hyperparameters spanning decades put on a log scale. One place,
//! used alike by the copula, generic and learning-curve loaders — so the page, the CLI and
//! every format treat a file the same way.

use serde::{Deserialize, Serialize};

use crate::axis::significant;

/// What happens to a missing, non-finite or diverged value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MissingPolicy {
    /// "As bad as not training": a curve point is diverged when it is not finite or worse
    /// than the run's untrained value — its step 0 where the file has one, else the task's
    /// [`first_step_bound`] — and it and the rest of its curve take that value. A single value
    /// (no curve) has no untrained value: a missing one counts as the task's worst, as
    /// [`MissingPolicy::Worst`].
    #[default]
    Untrained,
    /// The value — on a learning curve, the first diverged point and every point after it —
    /// counts as the worst finite value seen on its task (in the metric's direction).
    Worst,
    /// The row (configuration, or curve) is dropped.
    Drop,
    /// A curve's diverged point takes the last finite value before it (a curve with none
    /// before it is dropped); a single value (no curve) has nothing before it and is dropped.
    ForwardFill,
    /// The DyHPO authors' filter for TaskSet: a curve that is ever above its task's 95 %
    /// quantile of points (in the loss's direction), or ever not finite, is dropped; a missing
    /// single value drops its row.
    TaskSet,
}

impl MissingPolicy {
    /// Every policy, in the order the page offers them.
    pub const ALL: [MissingPolicy; 5] =
        [MissingPolicy::Untrained, MissingPolicy::Worst, MissingPolicy::Drop, MissingPolicy::ForwardFill, MissingPolicy::TaskSet];

    /// Short form used in links.
    pub fn as_str(self) -> &'static str {
        match self {
            MissingPolicy::Untrained => "untrained",
            MissingPolicy::Worst => "worst",
            MissingPolicy::Drop => "drop",
            MissingPolicy::ForwardFill => "ffill",
            MissingPolicy::TaskSet => "taskset",
        }
    }

    /// From its short form.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Its name in the page's select.
    pub fn label(self) -> &'static str {
        match self {
            MissingPolicy::Untrained => "as bad as not training (untrained value)",
            MissingPolicy::Worst => "the task's worst value",
            MissingPolicy::Drop => "drop the configuration",
            MissingPolicy::ForwardFill => "carry the last value forward",
            MissingPolicy::TaskSet => "drop curves ever above the 95 % quantile (TaskSet)",
        }
    }

    /// True when what it does depends on the metric's direction (the data is read again
    /// when the direction changes).
    pub fn depends_on_direction(self) -> bool {
        matches!(self, MissingPolicy::Untrained | MissingPolicy::Worst | MissingPolicy::TaskSet)
    }

    /// What it does, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            MissingPolicy::Untrained => "set to the untrained value from the first diverged point on (missing=untrained)",
            MissingPolicy::Worst => "counted as the task's worst value (missing=worst)",
            MissingPolicy::Drop => "dropped with their rows (missing=drop)",
            MissingPolicy::ForwardFill => "filled with the curve's last finite value, or dropped where there is none (missing=ffill)",
            MissingPolicy::TaskSet => "dropped with every curve ever above its task's 95 % quantile (missing=taskset)",
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

/// What a repair touched.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Repaired {
    /// Cells that were missing or not finite, or (under [`MissingPolicy::Untrained`]) that
    /// took the untrained value: a diverged point and the rest of its curve.
    pub cells: usize,
    /// Rows (configurations or curves) with at least one such cell.
    pub rows: usize,
    /// Of those rows, how many were dropped.
    pub dropped: usize,
    /// Under [`MissingPolicy::Untrained`]: the smallest and largest untrained value used.
    pub bounds: Option<(f64, f64)>,
}

impl Repaired {
    /// Adds another repair's counts.
    pub fn add(&mut self, other: Repaired) {
        self.cells += other.cells;
        self.rows += other.rows;
        self.dropped += other.dropped;
        self.bounds = match (self.bounds, other.bounds) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
    }

    /// What was repaired, in words (after the file's name).
    pub fn sentence(&self, what: &str, policy: MissingPolicy, untrained: Option<&str>) -> String {
        let rows = format!("{} {}", self.rows, if self.rows == 1 { "row" } else { "rows" });
        match (policy, self.bounds) {
            (MissingPolicy::Untrained, Some((lo, hi))) => {
                let source = match untrained {
                    Some(col) => format!("each run's '{col}'"),
                    None => {
                        "per task, diverged beyond Q3 + 3·IQR of the first step's values, set to the largest of them inside".to_string()
                    }
                };
                let range = if lo == hi { significant(lo, 4) } else { format!("{} to {}", significant(lo, 4), significant(hi, 4)) };
                format!(
                    "{} {what} in {rows} missing or non-finite or worse than untrained, {} (untrained value: {source}; {range})",
                    self.cells,
                    policy.describe()
                )
            }
            (MissingPolicy::TaskSet, _) => format!(
                "{} {what} missing or non-finite or above the 95 % quantile; {} curves {}",
                self.cells,
                self.dropped,
                policy.describe()
            ),
            _ => {
                let dropped = if self.dropped > 0 && policy != MissingPolicy::Drop {
                    format!(" ({} dropped: nothing finite before the first)", self.dropped)
                } else {
                    String::new()
                };
                let describe = match policy {
                    // A task with nothing finite has no value to fall back to.
                    MissingPolicy::Untrained if self.dropped == self.rows => "dropped: their task has no finite value (missing=untrained)",
                    // Single values: nothing before training to fall back to.
                    MissingPolicy::Untrained => {
                        "counted as the task's worst value (missing=untrained: a single value has no untrained value)"
                    }
                    other => other.describe(),
                };
                format!("{} missing or non-finite {what} in {rows}, {describe}{dropped}", self.cells)
            }
        }
    }
}

/// The worst finite value among `values` in the direction `sign` (+1: smaller is better).
fn worst_of<'a>(values: impl Iterator<Item = &'a f64>, sign: f64) -> Option<f64> {
    values.copied().filter(|v| v.is_finite()).fold(None, |w: Option<f64>, v| Some(w.map_or(v, |w| if sign * v > sign * w { v } else { w })))
}

/// The `q`-quantile of sorted values (linear interpolation between order statistics).
fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos - pos.floor());
    if i + 1 < sorted.len() {
        sorted[i] + frac * (sorted[i + 1] - sorted[i])
    } else {
        sorted[i]
    }
}

/// A task's untrained bound where a run has no step 0 value of its own, from the first step's
/// values (or the other runs' step 0 values), as losses (`sign` · value): a point is diverged
/// beyond Tukey's far-out fence Q3 + 3·IQR of them, and then takes the largest of them inside
/// the fence — a value a run really had after one step, which no run exploding at its first
/// step can set. `None` when none is finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FirstStepBound {
    /// Worse than this (in the metric's units) is diverged.
    pub fence: f64,
    /// What a diverged point becomes.
    pub value: f64,
}

/// See [`FirstStepBound`].
pub fn first_step_bound(first: &[Option<f64>], sign: f64) -> Option<FirstStepBound> {
    let mut losses: Vec<f64> = first.iter().flatten().filter(|v| v.is_finite()).map(|v| sign * v).collect();
    if losses.is_empty() {
        return None;
    }
    losses.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile_sorted(&losses, 0.25), quantile_sorted(&losses, 0.75));
    let fence = q3 + 3.0 * (q3 - q1);
    let value = losses.iter().rev().find(|&&l| l <= fence).copied()?;
    Some(FirstStepBound { fence: sign * fence, value: sign * value })
}

/// Repairs the learning curves of one task by `policy`; `sign` is +1 when smaller is better.
/// `untrained` holds each curve's step 0 value (`None` where missing), or is empty when the
/// file has no step 0. `None` marks a curve that is dropped.
pub fn repair_curves(
    curves: Vec<Vec<Option<f64>>>,
    untrained: &[Option<f64>],
    sign: f64,
    policy: MissingPolicy,
) -> (Vec<Option<Vec<f64>>>, Repaired) {
    match policy {
        MissingPolicy::Untrained => repair_untrained(curves, untrained, sign),
        MissingPolicy::TaskSet => filter_taskset(curves, sign),
        _ => repair_non_finite(curves, sign, policy),
    }
}

/// [`MissingPolicy::Untrained`].
fn repair_untrained(curves: Vec<Vec<Option<f64>>>, untrained: &[Option<f64>], sign: f64) -> (Vec<Option<Vec<f64>>>, Repaired) {
    // A run without its own step 0 value takes the task's: the bound of the step 0 values
    // where the file has them, else of the first step's.
    let task_bound = if untrained.iter().any(Option::is_some) {
        first_step_bound(untrained, sign)
    } else {
        first_step_bound(&curves.iter().map(|c| c.first().copied().flatten()).collect::<Vec<_>>(), sign)
    }
    .or_else(|| worst_of(curves.iter().flatten().flatten(), sign).map(|w| FirstStepBound { fence: w, value: w }));
    let mut counts = Repaired::default();
    let repaired = curves
        .into_iter()
        .enumerate()
        .map(|(i, curve)| {
            let own = untrained.get(i).copied().flatten().filter(|v| v.is_finite()).map(|v| FirstStepBound { fence: v, value: v });
            let Some(FirstStepBound { fence, value: bound }) = own.or(task_bound) else {
                // Nothing finite anywhere in the task.
                counts.rows += 1;
                counts.dropped += 1;
                counts.cells += curve.len();
                return None;
            };
            let first = curve.iter().position(|v| v.is_none_or(|v| sign * v > sign * fence));
            let Some(first) = first else { return Some(curve.into_iter().flatten().collect()) };
            counts.cells += curve.len() - first;
            counts.rows += 1;
            counts.bounds = Some(counts.bounds.map_or((bound, bound), |(lo, hi)| (lo.min(bound), hi.max(bound))));
            Some(curve[..first].iter().flatten().copied().chain(std::iter::repeat_n(bound, curve.len() - first)).collect())
        })
        .collect();
    (repaired, counts)
}

/// [`MissingPolicy::TaskSet`].
fn filter_taskset(curves: Vec<Vec<Option<f64>>>, sign: f64) -> (Vec<Option<Vec<f64>>>, Repaired) {
    let mut losses: Vec<f64> = curves.iter().flatten().flatten().map(|v| sign * v).collect();
    losses.sort_by(f64::total_cmp);
    let q95 = (!losses.is_empty()).then(|| quantile_sorted(&losses, 0.95));
    let mut counts = Repaired::default();
    let kept = curves
        .into_iter()
        .map(|curve| {
            let bad = curve.iter().filter(|v| v.is_none_or(|v| q95.is_none_or(|q| sign * v > q))).count();
            if bad == 0 {
                return Some(curve.into_iter().flatten().collect());
            }
            counts.cells += bad;
            counts.rows += 1;
            counts.dropped += 1;
            None
        })
        .collect();
    (kept, counts)
}

/// [`MissingPolicy::Worst`], [`MissingPolicy::Drop`] and [`MissingPolicy::ForwardFill`]: only
/// points that are not finite are touched.
fn repair_non_finite(curves: Vec<Vec<Option<f64>>>, sign: f64, policy: MissingPolicy) -> (Vec<Option<Vec<f64>>>, Repaired) {
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
                _ => None,
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
/// finite value of the task under [`MissingPolicy::Worst`] and [`MissingPolicy::Untrained`], else `None` (the row is dropped).
pub fn repair_values(values: &[Option<f64>], sign: f64, policy: MissingPolicy) -> (Vec<Option<f64>>, Repaired) {
    // A single value has no untrained value to fall back to (docs/methods.md): under
    // `untrained` a missing one counts as the task's worst, as under `worst`.
    let worst =
        if matches!(policy, MissingPolicy::Worst | MissingPolicy::Untrained) { worst_of(values.iter().flatten(), sign) } else { None };
    let bad = values.iter().filter(|v| v.is_none()).count();
    let fixed: Vec<Option<f64>> = values.iter().map(|v| v.or(worst)).collect();
    let dropped = fixed.iter().filter(|v| v.is_none()).count();
    (fixed, Repaired { cells: bad, rows: bad, dropped, bounds: None })
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
        let (fixed, r) = repair_curves(curves.clone(), &[], 1.0, MissingPolicy::Worst);
        assert_eq!(fixed[0], Some(vec![1.0, 0.5, 2.0, 2.0]), "a point after the divergence is not trusted either");
        assert_eq!(fixed[1], Some(vec![2.0, 1.5, 1.0, 0.9]));
        assert_eq!(fixed[2], Some(vec![2.0; 4]));
        assert_eq!(r, Repaired { cells: 5, rows: 2, dropped: 0, bounds: None });
        // Accuracies (larger is better): the worst is the smallest.
        let (fixed, _) = repair_curves(curves.clone(), &[], -1.0, MissingPolicy::Worst);
        assert_eq!(fixed[0], Some(vec![1.0, 0.5, 0.1, 0.1]));
        // Drop and forward-fill.
        let (fixed, r) = repair_curves(curves.clone(), &[], 1.0, MissingPolicy::Drop);
        assert_eq!((fixed[0].is_none(), fixed[1].is_some(), fixed[2].is_none()), (true, true, true));
        assert_eq!(r, Repaired { cells: 5, rows: 2, dropped: 2, bounds: None });
        let (fixed, r) = repair_curves(curves, &[], 1.0, MissingPolicy::ForwardFill);
        assert_eq!(fixed[0], Some(vec![1.0, 0.5, 0.5, 0.1]));
        assert_eq!(fixed[2], None, "nothing finite to carry forward");
        assert_eq!(r.dropped, 1);
    }

    #[test]
    fn untrained_policy_uses_each_runs_step_zero() {
        // Losses; step 0 values 2.3 and 2.4. Run 0 explodes at its third point, run 1 goes nan,
        // run 2 rises above its own untrained value, run 3 is healthy, run 4 lacks step 0.
        let curves = vec![
            vec![Some(1.0), Some(0.8), Some(1e17), Some(0.5)],
            vec![Some(2.0), None, Some(1.0), Some(0.9)],
            vec![Some(2.0), Some(2.35), Some(2.2), Some(2.1)],
            vec![Some(1.5), Some(1.2), Some(1.1), Some(1.0)],
            vec![Some(9.0), Some(1.2), Some(1.1), Some(1.0)],
        ];
        let untrained = [Some(2.3), Some(2.3), Some(2.3), Some(2.3), None];
        let (fixed, r) = repair_curves(curves.clone(), &untrained, 1.0, MissingPolicy::Untrained);
        assert_eq!(fixed[0], Some(vec![1.0, 0.8, 2.3, 2.3]), "the explosion and the rest of the curve: as bad as not training");
        assert_eq!(fixed[1], Some(vec![2.0, 2.3, 2.3, 2.3]));
        assert_eq!(fixed[2], Some(vec![2.0, 2.3, 2.3, 2.3]), "worse than its own untrained value: diverged");
        assert_eq!(fixed[3], Some(vec![1.5, 1.2, 1.1, 1.0]));
        // Without its own step 0, a run takes the task's bound from the step 0 values (all 2.3).
        assert_eq!(fixed[4], Some(vec![2.3; 4]));
        assert_eq!((r.cells, r.rows, r.dropped, r.bounds), (2 + 3 + 3 + 4, 4, 0, Some((2.3, 2.3))));
        // Accuracies (larger is better): below the untrained value is diverged.
        let acc = vec![vec![Some(0.5), Some(0.05), Some(0.9)], vec![Some(0.2), Some(0.6), Some(0.7)]];
        let (fixed, _) = repair_curves(acc, &[Some(0.1), Some(0.1)], -1.0, MissingPolicy::Untrained);
        assert_eq!(fixed, vec![Some(vec![0.5, 0.1, 0.1]), Some(vec![0.2, 0.6, 0.7])]);
    }

    #[test]
    fn without_step_zero_the_bound_is_a_first_step_value_no_explosion_can_set() {
        // First steps: 1.0..1.9 in tenths, and two runs that exploded at once (1e12, nan).
        let mut firsts: Vec<Option<f64>> = (0..10).map(|i| Some(1.0 + 0.1 * i as f64)).collect();
        firsts.extend([Some(1e12), None]);
        let bound = first_step_bound(&firsts, 1.0).unwrap();
        // By hand: of the 11 finite values 1.0..1.9 and 1e12, Q1 = 1.25 and Q3 = 1.75, so the
        // fence is 1.75 + 3 · 0.5 = 3.25: 1e12 is outside, 1.9 the largest inside.
        assert!((bound.fence - 3.25).abs() < 1e-12 && (bound.value - 1.9).abs() < 1e-12, "{bound:?}");
        let bound = bound.value;
        let curves: Vec<Vec<Option<f64>>> = firsts.iter().map(|&f| vec![f, f.map(|v| v * 0.5)]).collect();
        let (fixed, r) = repair_curves(curves, &[], 1.0, MissingPolicy::Untrained);
        assert_eq!(fixed[10], Some(vec![bound, bound]));
        assert_eq!(fixed[11], Some(vec![bound, bound]));
        assert_eq!(fixed[0], Some(vec![1.0, 0.5]));
        assert_eq!(r.rows, 2);
        assert_eq!(first_step_bound(&[None, None], 1.0), None);
        // A loss that rises past the worst first step but stays inside the fence is kept (a
        // validation loss that overfits has not diverged).
        let curves = vec![vec![Some(0.5), Some(0.6), Some(0.7)], vec![Some(0.1), Some(0.2), Some(0.3)]];
        assert_eq!(repair_curves(curves, &[], 1.0, MissingPolicy::Untrained).1, Repaired::default());
    }

    #[test]
    fn taskset_filter_drops_curves_ever_above_the_95_percent_quantile() {
        // 20 curves of 5 points, values 0..100 in order; the 95 % quantile of the 100 points is
        // 94.05: curve 18 (90..94) stays, curve 19 (95..99) is dropped, as is a nan curve.
        let mut curves: Vec<Vec<Option<f64>>> = (0..20).map(|c| (0..5).map(|k| Some((5 * c + k) as f64)).collect()).collect();
        curves.push(vec![None; 5]);
        let (fixed, r) = repair_curves(curves, &[], 1.0, MissingPolicy::TaskSet);
        assert!(fixed[18].is_some() && fixed[19].is_none() && fixed[20].is_none());
        assert_eq!((r.rows, r.dropped), (2, 2));
    }

    #[test]
    fn a_missing_single_value_is_the_worst_or_dropped() {
        let values = [Some(0.2), None, Some(0.9)];
        assert_eq!(repair_values(&values, 1.0, MissingPolicy::Worst).0, vec![Some(0.2), Some(0.9), Some(0.9)]);
        assert_eq!(repair_values(&values, -1.0, MissingPolicy::Worst).0, vec![Some(0.2), Some(0.2), Some(0.9)]);
        assert_eq!(repair_values(&values, 1.0, MissingPolicy::Untrained).0, vec![Some(0.2), Some(0.9), Some(0.9)], "no untrained value");
        for p in [MissingPolicy::Drop, MissingPolicy::ForwardFill, MissingPolicy::TaskSet] {
            let (fixed, r) = repair_values(&values, 1.0, p);
            assert_eq!(fixed[1], None);
            assert_eq!(r, Repaired { cells: 1, rows: 1, dropped: 1, bounds: None });
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
}
