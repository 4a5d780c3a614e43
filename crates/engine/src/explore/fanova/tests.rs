use rand::{Rng, SeedableRng};

use super::super::forest::{grow, grow_tree, ForestSettings, Node, Tree};
use super::*;
use crate::optimizer::MethodRng;

/// The marginal's variance cell by cell, as Optuna computes it: at each cell's midpoint, the
/// tree walked with the group's columns fixed there and both branches of every other split
/// taken, each leaf weighted by its volume outside the group.
fn marginal_variance_by_walking(tree: &Tree, bounds: &[(f64, f64)], group: &[usize], boundaries: &[Vec<f64>]) -> f64 {
    fn walk(tree: &Tree, at: usize, fixed: &[(usize, f64)], lo: &mut Vec<f64>, hi: &mut Vec<f64>, group: &[usize], acc: &mut (f64, f64)) {
        match tree.nodes[at] {
            Node::Leaf(v) => {
                let w: f64 = (0..lo.len()).filter(|f| !group.contains(f)).map(|f| hi[f] - lo[f]).product();
                acc.0 += v * w;
                acc.1 += w;
            }
            Node::Split { feature, threshold, left, right } => {
                if let Some(&(_, x)) = fixed.iter().find(|(f, _)| *f == feature) {
                    walk(tree, if x <= threshold { left } else { right }, fixed, lo, hi, group, acc);
                } else {
                    let (l, h) = (lo[feature], hi[feature]);
                    hi[feature] = threshold.clamp(l, h);
                    walk(tree, left, fixed, lo, hi, group, acc);
                    hi[feature] = h;
                    lo[feature] = threshold.clamp(l, h);
                    walk(tree, right, fixed, lo, hi, group, acc);
                    lo[feature] = l;
                }
            }
        }
    }
    let mut cells: Vec<(f64, f64)> = vec![(0.0, 1.0)];
    let mut points: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    for &f in group {
        let b = &boundaries[f];
        let mut next_cells = Vec::new();
        let mut next_points = Vec::new();
        for (c, p) in cells.iter().zip(&points) {
            for k in 0..b.len() - 1 {
                next_cells.push((0.0, c.1 * (b[k + 1] - b[k])));
                let mut q = p.clone();
                q.push((f, 0.5 * (b[k] + b[k + 1])));
                next_points.push(q);
            }
        }
        cells = next_cells;
        points = next_points;
    }
    let values: Vec<(f64, f64)> = points
        .iter()
        .zip(&cells)
        .map(|(p, c)| {
            let mut acc = (0.0, 0.0);
            let (mut lo, mut hi): (Vec<f64>, Vec<f64>) = bounds.iter().copied().unzip();
            walk(tree, 0, p, &mut lo, &mut hi, group, &mut acc);
            (acc.0 / acc.1, c.1)
        })
        .collect();
    let total: f64 = values.iter().map(|v| v.1).sum();
    let mean = values.iter().map(|(v, s)| v * s).sum::<f64>() / total;
    values.iter().map(|(v, s)| s * (v - mean).powi(2)).sum::<f64>() / total
}

#[test]
fn one_pass_marginals_equal_the_cell_by_cell_walk_on_random_trees() {
    let mut rng = MethodRng::seed_from_u64(78);
    for case in 0..20 {
        let n = 30 + 10 * case;
        // Columns 0–1 numeric (different bounds), 2–4 a one-hot categorical of 3 choices.
        let bounds = [(0.0, 1.0), (-3.0, 5.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)];
        let mut columns: Vec<Vec<f64>> = vec![Vec::new(); 5];
        let mut y = Vec::new();
        for _ in 0..n {
            let a: f64 = rng.random();
            let b: f64 = rng.random_range(-3.0..5.0);
            let choice = rng.random_range(0..3usize);
            columns[0].push(a);
            columns[1].push(b);
            for k in 0..3 {
                columns[2 + k].push(if k == choice { 1.0 } else { 0.0 });
            }
            y.push((6.0 * a).sin() + 0.3 * b * choice as f64 + rng.random::<f64>() * 0.1);
        }
        let mut sample: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
        let tree = grow_tree(&columns, &y, &mut sample, &ForestSettings::default(), &mut rng);
        let anova = TreeAnova::new(&tree, &bounds);
        for group in [vec![0], vec![1], vec![2, 3, 4]] {
            let fast = anova.marginal_variance(&group);
            let walked = marginal_variance_by_walking(&tree, &bounds, &group, &anova.boundaries);
            assert!((fast - walked).abs() <= 1e-9 * walked.abs().max(1e-12), "case {case} group {group:?}: {fast} vs {walked}");
            let by_pairs = anova.marginal_variance_by_pairs(&group);
            assert!(
                (by_pairs - walked).abs() <= 1e-9 * walked.abs().max(1e-12),
                "case {case} group {group:?}: pairs {by_pairs} vs {walked}"
            );
        }
    }
}

#[test]
fn two_steps_split_the_variance_as_their_squares() {
    // f = step(x0 > 0.5) + 2·step(x1 > 0.5) on the unit square: Var = 1/4 + 1 = 5/4, of which
    // x0's marginal holds 1/4 and x1's 1.
    let leaf = Node::Leaf;
    let tree = Tree {
        nodes: vec![
            Node::Split { feature: 0, threshold: 0.5, left: 1, right: 4 },
            Node::Split { feature: 1, threshold: 0.5, left: 2, right: 3 },
            leaf(0.0),
            leaf(2.0),
            Node::Split { feature: 1, threshold: 0.5, left: 5, right: 6 },
            leaf(1.0),
            leaf(3.0),
        ],
    };
    let anova = TreeAnova::new(&tree, &[(0.0, 1.0), (0.0, 1.0)]);
    assert!((anova.variance - 1.25).abs() < 1e-15);
    assert!((anova.marginal_variance(&[0]) - 0.25).abs() < 1e-15);
    assert!((anova.marginal_variance(&[1]) - 1.0).abs() < 1e-15);
    let imp = importances(&[forest_importances(&tree_shares(&[tree], &[(0.0, 1.0), (0.0, 1.0)], &[vec![0], vec![1]]))]);
    assert!((imp[0].mean - 0.2).abs() < 1e-12 && (imp[1].mean - 0.8).abs() < 1e-12, "{imp:?}");
    assert_eq!(imp[1].ahead_of_next, Some(1.0));
    assert_eq!(imp[0].ahead_of_next, None);
}

#[test]
fn a_linear_function_ranks_its_coefficients_and_shares_their_squares() {
    // f = 4·x0 + 2·x1 + x2 + 0·x3 on uniform inputs: each term's variance is its coefficient
    // squared over 12, so the shares are 16/21, 4/21, 1/21 and 0. Trees grown on 400 points
    // are steps, whose cells mix the terms a little (variance no main effect holds): the
    // normalised shares land within 0.05 of the true ones.
    let mut rng = MethodRng::seed_from_u64(7);
    let n = 400;
    let columns: Vec<Vec<f64>> = (0..4).map(|_| (0..n).map(|_| rng.random::<f64>()).collect()).collect();
    let y: Vec<f64> = (0..n).map(|i| 4.0 * columns[0][i] + 2.0 * columns[1][i] + columns[2][i]).collect();
    let forests: Vec<Vec<f64>> = (0..3)
        .map(|_| {
            forest_importances(&tree_shares(
                &grow(&columns, &y, &ForestSettings::default(), &mut rng),
                &[(0.0, 1.0); 4],
                &[vec![0], vec![1], vec![2], vec![3]],
            ))
        })
        .collect();
    let imp = importances(&forests);
    let expected = [16.0 / 21.0, 4.0 / 21.0, 1.0 / 21.0, 0.0];
    for (i, e) in imp.iter().zip(expected) {
        assert!((i.mean - e).abs() < 0.05, "{imp:?}");
    }
    assert!(imp[..3].iter().all(|i| i.ahead_of_next == Some(1.0)), "{imp:?}");
    assert!((imp.iter().map(|i| i.mean).sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn a_categorical_of_200_choices_is_marginalised_by_pairs_of_leaves() {
    // One-hot, 200 columns: the trees split on dozens of them, a grid of 2^dozens cells.
    let mut rng = MethodRng::seed_from_u64(200);
    let (n, levels) = (400, 200);
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); levels + 1];
    let mut y = Vec::new();
    for _ in 0..n {
        let choice = rng.random_range(0..levels);
        let x: f64 = rng.random();
        for (k, c) in columns[..levels].iter_mut().enumerate() {
            c.push(if k == choice { 1.0 } else { 0.0 });
        }
        columns[levels].push(x);
        y.push((choice % 7) as f64 + 0.1 * x);
    }
    let bounds = vec![(0.0, 1.0); levels + 1];
    let groups = vec![(0..levels).collect::<Vec<_>>(), vec![levels]];
    let trees = grow(&columns, &y, &ForestSettings { trees: 4, ..ForestSettings::default() }, &mut rng);
    let split: usize =
        trees.iter().map(|t| TreeAnova::new(t, &bounds).boundaries[..levels].iter().filter(|b| b.len() > 2).count()).max().unwrap();
    assert!(split > 64, "the test needs a grid past usize: {split} columns split");
    let shares = tree_shares(&trees, &bounds, &groups);
    for (p, s) in shares.iter().enumerate() {
        assert!(s.iter().all(|v| v.is_finite() && (0.0..=1.0 + 1e-9).contains(v)), "group {p}: {s:?}");
    }
    let imp = forest_importances(&shares);
    assert!(imp[0] > imp[1], "the choice explains the value, not x: {imp:?}");
}
