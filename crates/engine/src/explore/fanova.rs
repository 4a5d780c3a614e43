//! Functional ANOVA over a random forest (F. Hutter, H. Hoos, K. Leyton-Brown. *An Efficient
//! Approach for Assessing Hyperparameter Importance.* ICML 2014), as Optuna's
//! `FanovaImportanceEvaluator` computes it: each tree is a piecewise-constant function over
//! the search space's box; a parameter's importance in a tree is the variance of the tree's
//! marginal over that parameter (the others integrated out uniformly over their ranges)
//! divided by the tree's total variance; the forest's is the mean over the trees whose total
//! variance is above zero, the importances then normalised to sum to 1.
//!
//! Optuna evaluates the marginal at each cell between consecutive split values by walking the
//! tree once per cell; here each leaf adds its value to the range of cells it covers (a
//! difference array for a one-column parameter), which gives the same sums in one pass. A
//! categorical parameter is its one-hot columns, marginalised together as Optuna groups them.
//! [`tests`] checks the pass against the cell-by-cell definition.

use super::forest::{Node, Tree};

/// One parameter's importance and how sure it is.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Importance {
    /// The mean over the forests of the forest's importance (its trees' mean share of
    /// variance, normalised so the parameters sum to 1).
    pub mean: f64,
    /// The standard deviation of the forest's importance over the forests.
    pub sd: f64,
    /// The share of the forests in which this parameter is above the next ranked one
    /// (`None` for the last): below 1, another seed of Optuna's evaluator may swap the two.
    pub ahead_of_next: Option<f64>,
}

/// A leaf as a box of the search space and its value.
struct LeafBox {
    lo: Vec<f64>,
    hi: Vec<f64>,
    value: f64,
}

/// The fANOVA of one tree over `bounds` (per column).
pub struct TreeAnova {
    leaves: Vec<LeafBox>,
    /// Each column's sorted split values inside its bounds, the bounds included.
    boundaries: Vec<Vec<f64>>,
    /// The tree's variance over the box.
    pub variance: f64,
    /// The tree's mean over the box.
    mean: f64,
    /// The tree's nodes, for [`pairs`].
    nodes: Vec<Node>,
    bounds: Vec<(f64, f64)>,
}

impl TreeAnova {
    /// Reads `tree`'s leaves as boxes of `bounds`.
    pub fn new(tree: &Tree, bounds: &[(f64, f64)]) -> Self {
        let mut leaves = Vec::new();
        let mut splits: Vec<Vec<f64>> = vec![Vec::new(); bounds.len()];
        let mut stack = vec![(0usize, bounds.iter().map(|b| b.0).collect::<Vec<_>>(), bounds.iter().map(|b| b.1).collect::<Vec<_>>())];
        while let Some((at, lo, hi)) = stack.pop() {
            match tree.nodes[at] {
                Node::Leaf(value) => leaves.push(LeafBox { lo, hi, value }),
                Node::Split { feature, threshold, left, right } => {
                    let t = threshold.clamp(lo[feature], hi[feature]);
                    splits[feature].push(t);
                    let (mut left_hi, mut right_lo) = (hi.clone(), lo.clone());
                    left_hi[feature] = t;
                    right_lo[feature] = t;
                    stack.push((left, lo, left_hi));
                    stack.push((right, right_lo, hi));
                }
            }
        }
        let boundaries = splits
            .into_iter()
            .zip(bounds)
            .map(|(mut s, &(lo, hi))| {
                s.push(lo);
                s.push(hi);
                s.sort_by(f64::total_cmp);
                s.dedup();
                s
            })
            .collect();
        let volume = |l: &LeafBox| l.lo.iter().zip(&l.hi).map(|(a, b)| b - a).product::<f64>();
        let (weight, weighted): (f64, f64) = leaves.iter().fold((0.0, 0.0), |(w, s), l| (w + volume(l), s + volume(l) * l.value));
        let mean = weighted / weight;
        let variance = leaves.iter().map(|l| volume(l) * (l.value - mean).powi(2)).sum::<f64>() / weight;
        TreeAnova { leaves, boundaries, variance, mean, nodes: tree.nodes.clone(), bounds: bounds.to_vec() }
    }

    /// The variance of the tree's marginal over the columns `group` (marginalised together):
    /// on the grid of the group's split values, or, for a group of several columns whose grid
    /// outnumbers the leaves, by pairs of leaves (a categorical of many choices, one-hot, has
    /// a grid of 2^(choices split) cells; Optuna enumerates it, and a 200-choice parameter
    /// would not finish).
    pub fn marginal_variance(&self, group: &[usize]) -> f64 {
        let cells: Vec<usize> = group.iter().map(|&f| self.boundaries[f].len() - 1).collect();
        // A grid no larger than the leaves costs at most leaves × cells; pairs cost leaves².
        let most_cells = self.leaves.len().max(64);
        match cells.iter().try_fold(1usize, |n, &c| n.checked_mul(c)).filter(|&n| group.len() == 1 || n <= most_cells) {
            Some(count) => self.marginal_variance_by_cells(group, &cells, count),
            None => self.marginal_variance_by_pairs(group),
        }
    }

    /// The marginal's variance from its values on the grid of `cells` (`count` of them).
    fn marginal_variance_by_cells(&self, group: &[usize], cells: &[usize], count: usize) -> f64 {
        let (mut sums, mut weights) = (vec![0.0; count + 1], vec![0.0; count + 1]);
        for leaf in &self.leaves {
            let in_group: f64 = group.iter().map(|&f| leaf.hi[f] - leaf.lo[f]).product();
            let outside: f64 = (0..leaf.lo.len()).filter(|f| !group.contains(f)).map(|f| leaf.hi[f] - leaf.lo[f]).product();
            if in_group <= 0.0 {
                continue;
            }
            let ranges: Vec<(usize, usize)> = group.iter().map(|&f| (self.cell_of(f, leaf.lo[f]), self.cell_of(f, leaf.hi[f]))).collect();
            if let [(a, b)] = ranges[..] {
                // One column: a difference array, summed below.
                sums[a] += leaf.value * outside;
                sums[b] -= leaf.value * outside;
                weights[a] += outside;
                weights[b] -= outside;
            } else {
                for_each_cell(&ranges, cells, |cell| {
                    sums[cell] += leaf.value * outside;
                    weights[cell] += outside;
                });
            }
        }
        if group.len() == 1 {
            for k in 1..count {
                sums[k] += sums[k - 1];
                weights[k] += weights[k - 1];
            }
        }
        let sizes = |cell: usize| -> f64 {
            let mut rest = cell;
            group.iter().zip(cells).fold(1.0, |size, (&f, &m)| {
                let k = rest % m;
                rest /= m;
                size * (self.boundaries[f][k + 1] - self.boundaries[f][k])
            })
        };
        let marginal: Vec<(f64, f64)> = (0..count).filter(|&c| weights[c] > 0.0).map(|c| (sums[c] / weights[c], sizes(c))).collect();
        let total: f64 = marginal.iter().map(|m| m.1).sum();
        let mean = marginal.iter().map(|(v, s)| v * s).sum::<f64>() / total;
        (marginal.iter().map(|(v, s)| s * (v - mean).powi(2)).sum::<f64>() / total).max(0.0)
    }

    /// The marginal's variance by pairs of leaves ([`pairs`]).
    fn marginal_variance_by_pairs(&self, group: &[usize]) -> f64 {
        let in_group = (0..self.bounds.len()).map(|f| group.contains(&f)).collect();
        let walk = pairs::PairWalk { nodes: &self.nodes, in_group, mean: self.mean };
        // The marginal's mean less the tree's is 0 but for rounding; kept for exactness.
        let total: f64 = self.leaves.iter().map(|l| self.volume(l, |_| true)).sum();
        let first = self.leaves.iter().map(|l| (l.value - self.mean) * self.volume(l, |_| true)).sum::<f64>() / total;
        (walk.second_moment(&self.bounds) - first * first).max(0.0)
    }

    /// A leaf's volume over the columns `keep` takes.
    fn volume(&self, leaf: &LeafBox, keep: impl Fn(usize) -> bool) -> f64 {
        (0..leaf.lo.len()).filter(|&f| keep(f)).map(|f| leaf.hi[f] - leaf.lo[f]).product()
    }

    /// The first cell whose lower boundary is `x` (or the cell holding it).
    fn cell_of(&self, f: usize, x: f64) -> usize {
        self.boundaries[f].partition_point(|&b| b < x)
    }
}

/// Calls `visit` with the index (first column fastest) of every cell in the product of the
/// half-open `ranges`, each column having `cells[k]` cells.
fn for_each_cell(ranges: &[(usize, usize)], cells: &[usize], mut visit: impl FnMut(usize)) {
    if ranges.iter().any(|(a, b)| a >= b) {
        return;
    }
    let mut at: Vec<usize> = ranges.iter().map(|r| r.0).collect();
    loop {
        let mut index = 0;
        for k in (0..at.len()).rev() {
            index = index * cells[k] + at[k];
        }
        visit(index);
        let mut k = 0;
        loop {
            if k == at.len() {
                return;
            }
            at[k] += 1;
            if at[k] < ranges[k].1 {
                break;
            }
            at[k] = ranges[k].0;
            k += 1;
        }
    }
}

/// Each parameter's share of each tree's variance (`shares[p][t]`, over the trees whose
/// variance is above zero): Optuna's `_Fanova.get_importance` before its mean.
pub fn tree_shares(trees: &[Tree], bounds: &[(f64, f64)], groups: &[Vec<usize>]) -> Vec<Vec<f64>> {
    let anovas: Vec<TreeAnova> = trees.iter().map(|t| TreeAnova::new(t, bounds)).filter(|a| a.variance > 0.0).collect();
    groups.iter().map(|g| anovas.iter().map(|a| a.marginal_variance(g) / a.variance).collect()).collect()
}

/// Each parameter's importance in one forest: its mean share, the parameters normalised to
/// sum to 1 (`optuna.importance.get_param_importances`' `normalize=True`).
pub fn forest_importances(shares: &[Vec<f64>]) -> Vec<f64> {
    let means: Vec<f64> = shares.iter().map(|s| mean(s)).collect();
    let total: f64 = means.iter().sum();
    means.iter().map(|m| if total > 0.0 { m / total } else { 0.0 }).collect()
}

/// Each parameter's importance over several forests grown alike with different seeds
/// (`forests[f][p]`, each from [`forest_importances`]): the mean over the forests, their
/// spread, and the share of forests that keep each parameter above the next in the mean's
/// order — how much a rerun of Optuna's evaluator with another seed would move it.
pub fn importances(forests: &[Vec<f64>]) -> Vec<Importance> {
    let params = forests.first().map_or(0, Vec::len);
    let means: Vec<f64> = (0..params).map(|p| mean(&forests.iter().map(|f| f[p]).collect::<Vec<_>>())).collect();
    let mut out: Vec<Importance> = (0..params)
        .map(|p| Importance { mean: means[p], sd: sd(&forests.iter().map(|f| f[p]).collect::<Vec<_>>(), means[p]), ahead_of_next: None })
        .collect();
    let mut order: Vec<usize> = (0..params).collect();
    order.sort_by(|&a, &b| means[b].total_cmp(&means[a]));
    for pair in order.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let kept = forests.iter().filter(|f| f[a] > f[b]).count();
        out[a].ahead_of_next = (!forests.is_empty()).then(|| kept as f64 / forests.len() as f64);
    }
    out
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The population standard deviation (NumPy's `std`, as Optuna's fANOVA reports it).
fn sd(v: &[f64], mean: f64) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
    }
}

mod pairs;
#[cfg(test)]
mod tests;
