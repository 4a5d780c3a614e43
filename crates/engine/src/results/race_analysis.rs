//! The DyHPO paper's analyses of multi-fidelity runs (Wistuba et al. 2022, §5): regret over
//! budget, and Fig. 6 — precision of the top-1% configurations, mean regret of the selected
//! configurations, and the share of "good" configurations at a budget that were "bad" at a
//! lower one. All values are raw metric values; `sign` (+1 minimise, −1 maximise) orients them.
//!
//! *Our definitions where the paper is brief*: the optimum of a task is the best value at any
//! budget of any configuration, and a configuration's ground truth is the best value on its
//! curve — the same quantity the incumbent tracks, so regret is never negative.

use crate::race::RaceRow;

/// A task's ground truth: each configuration's best value on its curve, and the best of all.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundTruth {
    /// Best value on each configuration's curve.
    pub per_config: Vec<f64>,
    /// Best value of the task.
    pub optimum: f64,
    /// Worst of the per-configuration values (regret before any observation).
    pub worst: f64,
    /// +1 when smaller is better, −1 otherwise.
    pub sign: f64,
    /// What a regret is divided by: 1 (the metric's units), or the regret of the task's
    /// median configuration ([`Self::median_regret`]).
    pub scale: f64,
}

impl GroundTruth {
    /// From the raced curves.
    pub fn new(values: &[Vec<f64>], sign: f64) -> Self {
        let per_config: Vec<f64> =
            values.iter().map(|c| c.iter().copied().fold(f64::NAN, |b, v| if b.is_nan() || sign * v < sign * b { v } else { b })).collect();
        let optimum = per_config.iter().copied().fold(f64::NAN, |b, v| if b.is_nan() || sign * v < sign * b { v } else { b });
        let worst = per_config.iter().copied().fold(f64::NAN, |b, v| if b.is_nan() || sign * v > sign * b { v } else { b });
        GroundTruth { per_config, optimum, worst, sign, scale: 1.0 }
    }

    /// The distance from the optimum to the worst configuration, in the metric's units.
    pub fn range(&self) -> f64 {
        (self.sign * (self.worst - self.optimum)).max(0.0)
    }

    /// The regret of the task's median configuration (by its best value; the lower median
    /// for an even count), in the metric's units: a scale that no single exploded or
    /// diverged run can set, unlike [`Self::range`].
    pub fn median_regret(&self) -> f64 {
        let mut losses: Vec<f64> = self.per_config.iter().map(|v| self.sign * v).filter(|v| v.is_finite()).collect();
        if losses.is_empty() {
            return 0.0;
        }
        losses.sort_by(f64::total_cmp);
        (losses[(losses.len() - 1) / 2] - self.sign * self.optimum).max(0.0)
    }

    /// The same truth with regrets divided by [`Self::median_regret`] (1 when that is 0): 0 is
    /// the task's best configuration, 1 its median one.
    pub fn normalized(mut self) -> Self {
        let r = self.median_regret();
        self.scale = if r > 0.0 && r.is_finite() { r } else { 1.0 };
        self
    }

    /// Regret of a value: how much worse than the optimum (≥ 0), over [`Self::scale`].
    pub fn regret(&self, value: f64) -> f64 {
        (self.sign * (value - self.optimum)).max(0.0) / self.scale
    }
}

/// Regret of the incumbent after each budget unit 1..=total.
pub fn regret_curve(rows: &[RaceRow], truth: &GroundTruth, total: u64) -> Vec<f64> {
    let mut out = Vec::with_capacity(total as usize);
    let mut current = truth.regret(truth.worst);
    let mut next = 0;
    for u in 1..=total {
        while next < rows.len() && rows[next].spent <= u {
            current = truth.regret(rows[next].best);
            next += 1;
        }
        out.push(current);
    }
    out
}

/// Budget reached by each configuration at the end of a run (0 = never trained).
pub fn reached(rows: &[RaceRow], configs: usize) -> Vec<u32> {
    let mut r = vec![0; configs];
    for row in rows {
        r[row.config] = r[row.config].max(row.budget);
    }
    r
}

/// Fig. 6 (left and middle) for one run: per budget b = 1..=max, among the configurations
/// trained for at least b steps, the fraction in the task's top 1% and their mean regret
/// (NaN where none reached b).
pub fn precision_and_mean_regret(rows: &[RaceRow], truth: &GroundTruth, max_budget: u32) -> (Vec<f64>, Vec<f64>) {
    let n = truth.per_config.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| (truth.sign * truth.per_config[a]).total_cmp(&(truth.sign * truth.per_config[b])));
    let top = (n as f64 * 0.01).ceil().max(1.0) as usize;
    let mut is_top = vec![false; n];
    for &i in &order[..top] {
        is_top[i] = true;
    }
    let reached = reached(rows, n);
    let mut precision = Vec::with_capacity(max_budget as usize);
    let mut mean_regret = Vec::with_capacity(max_budget as usize);
    for b in 1..=max_budget {
        let trained: Vec<usize> = (0..n).filter(|&i| reached[i] >= b).collect();
        if trained.is_empty() {
            precision.push(f64::NAN);
            mean_regret.push(f64::NAN);
            continue;
        }
        precision.push(trained.iter().filter(|&&i| is_top[i]).count() as f64 / trained.len() as f64);
        mean_regret.push(trained.iter().map(|&i| truth.regret(truth.per_config[i])).sum::<f64>() / trained.len() as f64);
    }
    (precision, mean_regret)
}

/// Fig. 6 (right): per budget b = 1..=max, the share of configurations "good" at b (top third
/// of those trained to b, by their value at b) that were "bad" at some lower budget (outside
/// the top third of those trained to that budget). `reached[i]` is how far configuration i
/// was trained; pass every configuration at the maximum budget for the ground-truth
/// "Baseline" line. NaN where nothing is good at b or b = 1.
pub fn good_after_bad(values: &[Vec<f64>], reached: &[u32], sign: f64, max_budget: u32) -> Vec<f64> {
    let n = values.len();
    // good[b−1][i]: configuration i is in the top third at budget b (None: not trained to b).
    let mut good: Vec<Vec<Option<bool>>> = Vec::with_capacity(max_budget as usize);
    for b in 1..=max_budget {
        let mut trained: Vec<usize> = (0..n).filter(|&i| reached[i] >= b).collect();
        trained.sort_by(|&x, &y| (sign * values[x][b as usize - 1]).total_cmp(&(sign * values[y][b as usize - 1])));
        let cut = trained.len().div_ceil(3);
        let mut row = vec![None; n];
        for (rank, &i) in trained.iter().enumerate() {
            row[i] = Some(rank < cut);
        }
        good.push(row);
    }
    (1..=max_budget as usize)
        .map(|b| {
            let now_good: Vec<usize> = (0..n).filter(|&i| good[b - 1][i] == Some(true)).collect();
            if b == 1 || now_good.is_empty() {
                return f64::NAN;
            }
            let was_bad = now_good.iter().filter(|&&i| (0..b - 1).any(|lower| good[lower][i] == Some(false))).count();
            was_bad as f64 / now_good.len() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(config: usize, budget: u32, value: f64, best: f64, spent: u64) -> RaceRow {
        RaceRow { config, budget, value, best, spent, cost: spent as f64, optimizer_seconds: 0.0 }
    }

    #[test]
    fn regret_is_a_step_function_of_spent_budget() {
        // Maximise: optimum 0.9; worst ground truth 0.5.
        let values = vec![vec![0.3, 0.5], vec![0.6, 0.9], vec![0.7, 0.8]];
        let truth = GroundTruth::new(&values, -1.0);
        assert_eq!((truth.optimum, truth.worst), (0.9, 0.5));
        let rows = vec![row(0, 2, 0.5, 0.5, 2), row(2, 1, 0.7, 0.7, 3), row(1, 2, 0.9, 0.9, 5)];
        let r = regret_curve(&rows, &truth, 6);
        let expected = [0.4, 0.4, 0.2, 0.2, 0.0, 0.0];
        assert!(r.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-12), "{r:?}");
    }

    #[test]
    fn precision_and_mean_regret_by_hand() {
        // 100 configurations (minimise), ground truth = index: top 1% is configuration 0.
        let values: Vec<Vec<f64>> = (0..100).map(|i| vec![i as f64 + 5.0, i as f64]).collect();
        let truth = GroundTruth::new(&values, 1.0);
        let rows = vec![row(0, 2, 0.0, 0.0, 2), row(10, 1, 15.0, 0.0, 3), row(30, 2, 30.0, 0.0, 5)];
        let (p, m) = precision_and_mean_regret(&rows, &truth, 2);
        assert_eq!(p, vec![1.0 / 3.0, 0.5]);
        assert_eq!(m, vec![40.0 / 3.0, 15.0]);
    }

    #[test]
    fn good_after_bad_counts_promotions_of_poor_early_performers() {
        // Minimise. Budget 1 ranks 0 < 1 < 2; budget 2 ranks 2 < 1 < 0: config 2 is good at 2
        // after being bad at 1.
        let values = vec![vec![1.0, 9.0], vec![2.0, 5.0], vec![3.0, 1.0]];
        let share = good_after_bad(&values, &[2, 2, 2], 1.0, 2);
        assert!(share[0].is_nan());
        assert_eq!(share[1], 1.0);
        // Had config 2 been stopped at budget 1, config 1 (bad at 1) becomes good at 2.
        let share = good_after_bad(&values, &[2, 2, 1], 1.0, 2);
        assert_eq!(share[1], 1.0);
        let share = good_after_bad(&values, &[2, 1, 1], 1.0, 2);
        assert_eq!(share[1], 0.0, "only config 0 reached budget 2 and it was good at 1");
    }
}
