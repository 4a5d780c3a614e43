//! The variance of a tree's marginal over a group of columns without the group's grid, for a
//! categorical of many choices (one-hot, its grid is 2^(choices split) cells).
//!
//! With `c_l` a leaf's value less the tree's mean, times its share of the volume outside the
//! group, the marginal less the mean is `m(x) = Σ_l c_l·[x in leaf l's box]` (the leaves
//! partition the box), so `E[m²] = Σ_l Σ_l' c_l·c_l'·|box_l ∩ box_l'| / |group's box|`. The
//! sum runs over pairs of the tree's nodes, both walked down from the root together: each
//! step narrows one side's box and the shared share of the group's box by a factor, and a
//! pair whose boxes no longer meet in the group is dropped with everything below it.

use super::super::forest::Node;

/// One side of the walk: its box and its share of the volume outside the group.
struct Side {
    lo: Vec<f64>,
    hi: Vec<f64>,
    outside: f64,
}

/// The walk over pairs of `nodes`' leaves.
pub(super) struct PairWalk<'t> {
    pub nodes: &'t [Node],
    pub in_group: Vec<bool>,
    pub mean: f64,
}

impl PairWalk<'_> {
    /// `E[m²]` for the tree over `bounds`.
    pub fn second_moment(&self, bounds: &[(f64, f64)]) -> f64 {
        let side = || Side { lo: bounds.iter().map(|b| b.0).collect(), hi: bounds.iter().map(|b| b.1).collect(), outside: 1.0 };
        self.walk(0, 0, &mut side(), &mut side(), 1.0)
    }

    /// The sum over the pairs of leaves below `a` and `b`, their boxes meeting in `shared` of
    /// the group's box.
    fn walk(&self, a: usize, b: usize, side_a: &mut Side, side_b: &mut Side, shared: f64) -> f64 {
        match (self.nodes[a], self.nodes[b]) {
            (Node::Leaf(va), Node::Leaf(vb)) => (va - self.mean) * side_a.outside * (vb - self.mean) * side_b.outside * shared,
            (Node::Split { feature, threshold, left, right }, _) => {
                self.split(feature, threshold, side_a, side_b, shared, |walk, x, y, s, lower| {
                    walk.walk(if lower { left } else { right }, b, x, y, s)
                })
            }
            (Node::Leaf(_), Node::Split { feature, threshold, left, right }) => {
                self.split(feature, threshold, side_b, side_a, shared, |walk, y, x, s, lower| {
                    walk.walk(a, if lower { left } else { right }, x, y, s)
                })
            }
        }
    }

    /// Narrows `side`'s box to each side of the split in turn and goes on with `next`.
    fn split(
        &self,
        feature: usize,
        threshold: f64,
        side: &mut Side,
        other: &mut Side,
        shared: f64,
        next: impl Fn(&Self, &mut Side, &mut Side, f64, bool) -> f64,
    ) -> f64 {
        let (lo, hi) = (side.lo[feature], side.hi[feature]);
        let t = threshold.clamp(lo, hi);
        let (other_lo, other_hi) = (other.lo[feature], other.hi[feature]);
        let meet = |l: f64, h: f64| h.min(other_hi) - l.max(other_lo);
        let mut sum = 0.0;
        for (lower, (l, h)) in [(true, (lo, t)), (false, (t, hi))] {
            if h <= l {
                continue;
            }
            let (outside, shared) = if self.in_group[feature] {
                let met = meet(l, h);
                if met <= 0.0 {
                    continue;
                }
                (side.outside, shared * met / meet(lo, hi))
            } else {
                (side.outside * (h - l) / (hi - lo), shared)
            };
            let kept = side.outside;
            (side.lo[feature], side.hi[feature], side.outside) = (l, h, outside);
            sum += next(self, side, other, shared, lower);
            (side.lo[feature], side.hi[feature], side.outside) = (lo, hi, kept);
        }
        sum
    }
}
