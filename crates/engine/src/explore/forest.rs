//! A random forest of regression trees, as scikit-learn's `RandomForestRegressor` grows one
//! with the settings Optuna's fANOVA gives it (`optuna/importance/_fanova/_fanova.py`): each
//! tree on a bootstrap sample of the trials, every feature considered at every split (in an
//! order shuffled per node, which only breaks ties), the split that most reduces the squared
//! error, its threshold halfway between the two values it separates, grown until a node holds
//! fewer than `min_samples_split` samples, is pure, or is `max_depth` deep.
//!
//! No crate offers a forest whose trees' splits and leaves can be read (fANOVA needs both):
//! `smartcore`'s and `linfa-trees`' keep them private. The tree is checked in the tests below
//! against exact fits of step functions, and [`super::fanova`] against a brute-force marginal.

use rand::seq::SliceRandom;

use crate::optimizer::{index_below, MethodRng};

/// The forest's settings: Optuna's `FanovaImportanceEvaluator` defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForestSettings {
    /// Trees (Optuna: `n_trees=64`).
    pub trees: usize,
    /// Deepest split (Optuna: `max_depth=64`).
    pub max_depth: usize,
    /// A node with fewer samples is a leaf (Optuna: `min_samples_split=2`).
    pub min_samples_split: usize,
    /// Each side of a split keeps at least this many samples (Optuna: `min_samples_leaf=1`).
    pub min_samples_leaf: usize,
}

impl Default for ForestSettings {
    fn default() -> Self {
        ForestSettings { trees: 64, max_depth: 64, min_samples_split: 2, min_samples_leaf: 1 }
    }
}

/// One node of a tree: a split (`feature`, `threshold`: samples with `x[feature] <= threshold`
/// go left) or a leaf (its mean target).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Node {
    /// An inner node.
    Split {
        /// The feature split on.
        feature: usize,
        /// The split's threshold.
        threshold: f64,
        /// Index of the left child.
        left: usize,
        /// Index of the right child.
        right: usize,
    },
    /// A leaf and the mean target of the samples in it.
    Leaf(f64),
}

/// A regression tree; node 0 is the root.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// The nodes, parents before children.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The tree's prediction at `x`.
    pub fn predict(&self, x: &[f64]) -> f64 {
        let mut at = 0;
        loop {
            match self.nodes[at] {
                Node::Split { feature, threshold, left, right } => at = if x[feature] <= threshold { left } else { right },
                Node::Leaf(v) => return v,
            }
        }
    }
}

/// Below this, a node's squared error counts as none (scikit-learn's `EPSILON` test of purity).
const PURE: f64 = 1e-14;

/// Grows a forest on `columns[feature][sample]` → `y[sample]`.
pub fn grow(columns: &[Vec<f64>], y: &[f64], settings: &ForestSettings, rng: &mut MethodRng) -> Vec<Tree> {
    let n = y.len();
    (0..settings.trees)
        .map(|_| {
            let mut sample: Vec<usize> = (0..n).map(|_| index_below(rng, n)).collect();
            grow_tree(columns, y, &mut sample, settings, rng)
        })
        .collect()
}

/// Grows one tree (the sample's rows may repeat: a bootstrap draw).
pub fn grow_tree(columns: &[Vec<f64>], y: &[f64], sample: &mut [usize], settings: &ForestSettings, rng: &mut MethodRng) -> Tree {
    // Each feature's positions in `sample`, sorted by its value once; a split partitions
    // every list stably, so each node's lists stay sorted without sorting again.
    let values: Vec<Vec<f64>> = columns.iter().map(|c| sample.iter().map(|&i| c[i]).collect()).collect();
    let sorted: Vec<Vec<u32>> = values
        .iter()
        .map(|v| {
            let mut order: Vec<u32> = (0..sample.len() as u32).collect();
            order.sort_by(|&a, &b| v[a as usize].total_cmp(&v[b as usize]));
            order
        })
        .collect();
    let targets: Vec<f64> = sample.iter().map(|&i| y[i]).collect();
    let mut builder =
        Builder { values, targets, settings, rng, nodes: Vec::new(), sorted, left: vec![false; sample.len()], buffer: Vec::new() };
    builder.grow(0, sample.len(), 0);
    Tree { nodes: builder.nodes }
}

struct Builder<'a> {
    /// `values[feature][position]`: the sample's feature values.
    values: Vec<Vec<f64>>,
    /// The sample's targets.
    targets: Vec<f64>,
    settings: &'a ForestSettings,
    rng: &'a mut MethodRng,
    nodes: Vec<Node>,
    /// Each feature's positions, each node's range sorted by that feature.
    sorted: Vec<Vec<u32>>,
    /// Whether a position goes left at the split being made.
    left: Vec<bool>,
    buffer: Vec<u32>,
}

/// The best split of a node.
struct Split {
    feature: usize,
    threshold: f64,
    proxy: f64,
    /// How many of the node's samples go left.
    left: usize,
}

impl Builder<'_> {
    /// Grows the subtree of the positions `start..end` (of every sorted list) at `depth`;
    /// returns its root's index.
    fn grow(&mut self, start: usize, end: usize, depth: usize) -> usize {
        let at = self.nodes.len();
        let count = end - start;
        let n = count as f64;
        let node = &self.sorted[0][start..end];
        let sum: f64 = node.iter().map(|&p| self.targets[p as usize]).sum();
        let mean = sum / n;
        self.nodes.push(Node::Leaf(mean));
        let sse: f64 = node.iter().map(|&p| (self.targets[p as usize] - mean).powi(2)).sum();
        if count < self.settings.min_samples_split
            || count < 2 * self.settings.min_samples_leaf
            || depth >= self.settings.max_depth
            || sse <= PURE * n
        {
            return at;
        }
        let Some(split) = self.best_split(start, end, sum) else { return at };
        for &p in &self.sorted[split.feature][start..end] {
            self.left[p as usize] = self.values[split.feature][p as usize] <= split.threshold;
        }
        for list in &mut self.sorted {
            let range = &mut list[start..end];
            self.buffer.clear();
            let mut l = 0;
            for k in 0..range.len() {
                let p = range[k];
                if self.left[p as usize] {
                    range[l] = p;
                    l += 1;
                } else {
                    self.buffer.push(p);
                }
            }
            range[l..].copy_from_slice(&self.buffer);
        }
        let middle = start + split.left;
        let left_node = self.grow(start, middle, depth + 1);
        let right_node = self.grow(middle, end, depth + 1);
        self.nodes[at] = Node::Split { feature: split.feature, threshold: split.threshold, left: left_node, right: right_node };
        at
    }

    /// The split with the largest reduction of squared error (scikit-learn's proxy
    /// `sum_l²/n_l + sum_r²/n_r`), features tried in a shuffled order and the first best kept.
    fn best_split(&mut self, start: usize, end: usize, sum: f64) -> Option<Split> {
        let mut features: Vec<usize> = (0..self.values.len()).collect();
        features.shuffle(self.rng);
        let min_leaf = self.settings.min_samples_leaf;
        let n = end - start;
        let mut best: Option<Split> = None;
        for f in features {
            let order = &self.sorted[f][start..end];
            let column = &self.values[f];
            if column[order[0] as usize] >= column[order[n - 1] as usize] {
                continue;
            }
            let mut left_sum = 0.0;
            for k in 0..n - 1 {
                left_sum += self.targets[order[k] as usize];
                let (a, b) = (column[order[k] as usize], column[order[k + 1] as usize]);
                let left_n = k + 1;
                if b <= a || left_n < min_leaf || n - left_n < min_leaf {
                    continue;
                }
                let right_sum = sum - left_sum;
                let proxy = left_sum * left_sum / left_n as f64 + right_sum * right_sum / (n - left_n) as f64;
                if best.as_ref().is_none_or(|s| proxy > s.proxy) {
                    // scikit-learn's threshold: the midpoint, or the lower value when the
                    // midpoint rounds up to the upper one.
                    let mid = a / 2.0 + b / 2.0;
                    let threshold = if mid >= b || !mid.is_finite() { a } else { mid };
                    best = Some(Split { feature: f, threshold, proxy, left: left_n });
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_step_function_is_fitted_exactly_with_its_threshold_halfway() {
        // y = 1 when x0 > 0.5: one split, at the midpoint of the two values it separates.
        let x0: Vec<f64> = (0..10).map(|i| i as f64 / 9.0).collect();
        let x1: Vec<f64> = (0..10).map(|i| ((i * 7) % 10) as f64).collect();
        let y: Vec<f64> = x0.iter().map(|&v| if v > 0.5 { 1.0 } else { 0.0 }).collect();
        let mut sample: Vec<usize> = (0..10).collect();
        let mut rng = MethodRng::seed_from_u64(1);
        let tree = grow_tree(&[x0.clone(), x1], &y, &mut sample, &ForestSettings::default(), &mut rng);
        assert_eq!(tree.nodes.len(), 3, "{tree:?}");
        let Node::Split { feature, threshold, .. } = tree.nodes[0] else { panic!("no split") };
        assert_eq!(feature, 0);
        assert!((threshold - (x0[4] + x0[5]) / 2.0).abs() < 1e-15);
        for (i, &v) in x0.iter().enumerate() {
            assert_eq!(tree.predict(&[v, 0.0]), y[i]);
        }
    }

    #[test]
    fn a_fully_grown_tree_reproduces_distinct_training_points() {
        let mut rng = MethodRng::seed_from_u64(3);
        let xs: Vec<Vec<f64>> = (0..3).map(|_| (0..50).map(|_| index_below(&mut rng, 1000) as f64).collect()).collect();
        let y: Vec<f64> = (0..50).map(|i| xs[0][i] * 0.3 - xs[1][i] + (xs[2][i] / 100.0).sin()).collect();
        let mut sample: Vec<usize> = (0..50).collect();
        let tree = grow_tree(&xs, &y, &mut sample, &ForestSettings::default(), &mut rng);
        for i in 0..50 {
            let x: Vec<f64> = xs.iter().map(|c| c[i]).collect();
            assert!((tree.predict(&x) - y[i]).abs() < 1e-9);
        }
    }

    #[test]
    fn a_constant_target_is_one_leaf_and_depth_is_capped() {
        let x = vec![(0..20).map(f64::from).collect::<Vec<_>>()];
        let mut rng = MethodRng::seed_from_u64(0);
        let mut sample: Vec<usize> = (0..20).collect();
        assert_eq!(grow_tree(&x, &[2.0; 20], &mut sample, &ForestSettings::default(), &mut rng).nodes, vec![Node::Leaf(2.0)]);
        let y: Vec<f64> = (0..20).map(f64::from).collect();
        let shallow = ForestSettings { max_depth: 1, ..ForestSettings::default() };
        assert_eq!(grow_tree(&x, &y, &mut sample, &shallow, &mut rng).nodes.len(), 3);
    }
}
