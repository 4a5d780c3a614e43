//! The posterior at new points, and the acquisition's argmax over many candidates.
//!
//! Points are predicted in blocks: each block's kernel values sit interleaved (value i of
//! point c at i·B + c) and one pass over the Cholesky factor L solves L·v = k for all of
//! them. Every point is its own lane with the same operations in the same order, so a result
//! never depends on its block-mates.
//!
//! The argmax ([`FittedGp::argmax_score`]) skips most candidates' O(n²) variances. Solving
//! only the first rows of L·v = k conditions the variance on the first observations: the
//! sum of squares Σ v_i² has only its first terms, all of them the bits the full sum starts
//! with, and the rest are nonnegative, so that variance bounds the full one from above, in
//! floating point too. A score that does not decrease as the variance grows (EI) is then
//! bounded too, and a candidate whose bound is below the best exact score cannot be the pick.
//! Candidates are finished in order of decreasing bound until the next bound falls below the
//! best; the pick is the one scoring every [`FittedGp::predict_many`] output would give.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::kernel::Query;
use super::FittedGp;

/// Points per block.
const BLOCK: usize = 8;

/// Share of the observations the bounding pass conditions on: its triangular solve costs
/// this share squared of the full one. Measured along GCP+prior seeds on XGBoost (5,000
/// candidates), a quarter leaves 8–56 candidates for the full pass (½: 8–24, none: 16–80)
/// and was the fastest; on NAS-Bench-201's flatter EI it leaves about a third at n ≈ 70.
pub(crate) const BOUND_ROWS_SHARE: f64 = 0.25;

/// A bound must fall below the best exact score by this relative margin to prune, so that
/// rounding in the score (monotone in the variance only up to a few ulps; EI's closed form
/// loses at most about 1,500 ulps to cancellation before φ underflows) cannot drop the pick.
const PRUNE_MARGIN: f64 = 1e-9;

/// Below this best score nothing is pruned: near underflow the scores' relative rounding is
/// no longer small against [`PRUNE_MARGIN`].
const PRUNE_FLOOR: f64 = 1e-290;

/// Kernel values the argmax keeps from its bounding pass for the candidates it finishes
/// (16 MB); candidates beyond it have theirs computed again.
const KEPT_KERNEL_VALUES: usize = 1 << 21;

/// A candidate's position in `which` and its score's bound, ordered for the argmax's queue:
/// higher bound first, then lower position.
struct Bounded {
    bound: f64,
    position: usize,
}

impl Ord for Bounded {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bound.total_cmp(&other.bound).then(other.position.cmp(&self.position))
    }
}

impl PartialOrd for Bounded {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Bounded {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Bounded {}

/// The loop of the pruned argmaxes (this module's and the deep kernel's posterior's): each
/// position's score bound, from `bounds`, orders a queue — higher bound first, ties by lower
/// position, a non-finite bound first so that it is never pruned on its strength — and
/// `finish(positions)` gives the exact scores of up to `group` positions at a time, until the
/// next bound falls below the best exact score (by [`PRUNE_MARGIN`], above [`PRUNE_FLOOR`]).
/// Returns the first position with the highest exact score that `admits` accepts, and how
/// many positions were finished. A heap rather than a sort: only the positions finished
/// before the pruning stops are ever taken out of it.
pub(crate) fn argmax_by_bounds(
    bounds: impl Iterator<Item = f64>,
    group: usize,
    admits: impl Fn(f64) -> bool,
    mut finish: impl FnMut(&[usize]) -> Vec<f64>,
) -> (Option<usize>, usize) {
    let mut queue: BinaryHeap<Bounded> = bounds
        .enumerate()
        .map(|(p, bound)| Bounded { bound: if bound.is_finite() { bound } else { f64::INFINITY }, position: p })
        .collect();
    let mut best: Option<(usize, f64)> = None;
    let mut positions = Vec::with_capacity(group);
    let mut finished = 0;
    while let Some(first) = queue.pop() {
        if let Some((_, b)) = best {
            if b > PRUNE_FLOOR && first.bound < b - b * PRUNE_MARGIN {
                break;
            }
        }
        positions.clear();
        positions.push(first.position);
        while positions.len() < group {
            match queue.pop() {
                Some(next) => positions.push(next.position),
                None => break,
            }
        }
        finished += positions.len();
        for (&p, s) in positions.iter().zip(finish(&positions)) {
            if admits(s) && best.is_none_or(|(bp, b)| s > b || (s == b && p < bp)) {
                best = Some((p, s));
            }
        }
    }
    (best.map(|(p, _)| p), finished)
}

/// Scratch for one block of up to `B` points.
struct Block<const B: usize> {
    queries: [Query; B],
    /// Kernel values, value i of point c at i·B + c; overwritten by L⁻¹·k.
    kt: Vec<f64>,
    /// Squared distances to the observations, distances and kernel values of one point.
    r2: Vec<f64>,
    r: Vec<f64>,
    k: Vec<f64>,
}

impl<const B: usize> Block<B> {
    fn new(n: usize) -> Self {
        Block {
            queries: std::array::from_fn(|_| Query::default()),
            kt: vec![0.0; n * B],
            r2: vec![0.0; n],
            r: vec![0.0; n],
            k: vec![0.0; n],
        }
    }
}

impl FittedGp {
    /// Posterior mean only: O(n) per point instead of O(n²) with the variance.
    pub fn predict_mean(&self, x: &[f64]) -> f64 {
        let q = self.kernel.query(x);
        let n = self.alpha.len();
        let (mut r2, mut r, mut k) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        self.points.r2_all(&q, &mut r2);
        self.kernel.values(&r2, &mut r, &mut k);
        let mut mean = 0.0;
        for (k, a) in k.iter().zip(&self.alpha) {
            mean += k * a;
        }
        self.params.mean() + mean
    }

    /// Posterior mean and variance of the latent function at `x` (without observation noise).
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let n = self.alpha.len();
        let mut block = Block::<1>::new(n);
        let mut out = Vec::with_capacity(1);
        self.kernel_block(&[x], &mut block);
        self.finish_block::<1>(&mut block.kt, 1, n, &mut out);
        out[0]
    }

    /// [`FittedGp::predict`] at `candidates[i]` for every `i` in `which`, bit for bit the
    /// same numbers, about three times faster (blocks of points share each pass over L).
    pub fn predict_many(&self, candidates: &[Vec<f64>], which: &[usize]) -> Vec<(f64, f64)> {
        self.predict_rows(candidates, which, self.alpha.len(), &mut |_, _| {})
    }

    /// The element of `which` with the largest finite `score(i, mean, variance)` (the first
    /// in `which` on ties), where mean and variance are [`FittedGp::predict_many`]'s for
    /// candidate `i`; `None` if no score is finite. `score` must not decrease when the
    /// variance grows (as EI of any transform of mean and standard deviation that is
    /// increasing in the standard deviation).
    pub fn argmax_score(&self, candidates: &[Vec<f64>], which: &[usize], score: impl Fn(usize, f64, f64) -> f64) -> Option<usize> {
        self.argmax_keeping(candidates, which, &score, KEPT_KERNEL_VALUES).0
    }

    /// [`FittedGp::argmax_score`] keeping at most `keep` kernel values; also returns how
    /// many candidates were finished (for the tests).
    fn argmax_keeping(
        &self,
        candidates: &[Vec<f64>],
        which: &[usize],
        score: &dyn Fn(usize, f64, f64) -> f64,
        keep: usize,
    ) -> (Option<usize>, usize) {
        let n = self.alpha.len();
        let rows = ((n as f64 * BOUND_ROWS_SHARE) as usize).min(n);
        let kept = which.len().min(keep / n.max(1));
        let mut kernel_values = vec![0.0; kept * n];
        let bounds = self.predict_rows(candidates, which, rows, &mut |p, kt| {
            for c in (0..BLOCK).take_while(|c| p + c < kept) {
                for (i, v) in kernel_values[(p + c) * n..(p + c + 1) * n].iter_mut().enumerate() {
                    *v = kt[i * BLOCK + c];
                }
            }
        });
        let bounds = which.iter().zip(&bounds).map(|(&i, &(m, v))| score(i, m, v));
        let mut block = Block::<BLOCK>::new(n);
        let mut exact = Vec::with_capacity(BLOCK);
        let (best, finished) = argmax_by_bounds(bounds, BLOCK, f64::is_finite, |group| {
            if group.iter().all(|&p| p < kept) {
                block.kt.fill(0.0);
                for (c, &p) in group.iter().enumerate() {
                    for (i, &v) in kernel_values[p * n..(p + 1) * n].iter().enumerate() {
                        block.kt[i * BLOCK + c] = v;
                    }
                }
            } else {
                let points: Vec<&[f64]> = group.iter().map(|&p| candidates[which[p]].as_slice()).collect();
                self.kernel_block(&points, &mut block);
            }
            exact.clear();
            self.finish_block::<BLOCK>(&mut block.kt, group.len(), n, &mut exact);
            group.iter().zip(&exact).map(|(&p, &(m, v))| score(which[p], m, v)).collect()
        });
        (best.map(|p| which[p]), finished)
    }

    /// Means, and variances conditioned on the first `rows` observations, of `which` in
    /// blocks; `kernel_values(position of the block's first point, kt)` sees each block's
    /// kernel values before they are solved.
    fn predict_rows(
        &self,
        candidates: &[Vec<f64>],
        which: &[usize],
        rows: usize,
        kernel_values: &mut dyn FnMut(usize, &[f64]),
    ) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(which.len());
        let mut block = Block::<BLOCK>::new(self.alpha.len());
        for (b, group) in which.chunks(BLOCK).enumerate() {
            let points: Vec<&[f64]> = group.iter().map(|&i| candidates[i].as_slice()).collect();
            self.kernel_block(&points, &mut block);
            kernel_values(b * BLOCK, &block.kt);
            self.finish_block::<BLOCK>(&mut block.kt, points.len(), rows, &mut out);
        }
        out
    }

    /// Fills `block.kt` with the kernel values of up to `B` points (zeros in unused lanes).
    fn kernel_block<const B: usize>(&self, points: &[&[f64]], block: &mut Block<B>) {
        block.kt.fill(0.0);
        for (q, point) in block.queries.iter_mut().zip(points) {
            self.kernel.fill_query(point, q);
        }
        for (c, q) in block.queries.iter().enumerate().take(points.len()) {
            self.points.r2_all(q, &mut block.r2);
            self.kernel.values(&block.r2, &mut block.r, &mut block.k);
            for (i, &k) in block.k.iter().enumerate() {
                block.kt[i * B + c] = k;
            }
        }
    }

    /// Mean and variance of the first `count` lanes of `kt` (kernel values, solved in place),
    /// the variance conditioned on the first `rows` observations (all n for the posterior).
    fn finish_block<const B: usize>(&self, kt: &mut [f64], count: usize, rows: usize, out: &mut Vec<(f64, f64)>) {
        let n = self.alpha.len();
        // Zipped rows of exactly B lanes, not kt[i·B + c]: no bounds check per lane on wasm.
        let mut mean = [0.0f64; B];
        for (row, a) in kt.chunks_exact(B).zip(&self.alpha) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v * a;
            }
        }
        for i in 0..rows {
            let mut acc = [0.0f64; B];
            let (solved, rest) = kt.split_at_mut(i * B);
            for (row, &lik) in solved.chunks_exact(B).zip(&self.chol[i * n..i * n + i]) {
                for (a, v) in acc.iter_mut().zip(row) {
                    *a += lik * v;
                }
            }
            let lii = self.chol[i * n + i];
            for (v, a) in rest[..B].iter_mut().zip(&acc) {
                *v = (*v - a) / lii;
            }
        }
        let mut explained = [0.0f64; B];
        for row in kt.chunks_exact(B).take(rows) {
            for (e, v) in explained.iter_mut().zip(row) {
                *e += v * v;
            }
        }
        for c in 0..count {
            out.push((self.params.mean() + mean[c], (self.params.signal_variance() - explained[c]).max(1e-12)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gp::GpParams;
    use crate::optimizer::job_rng;
    use crate::stats::expected_improvement;
    use rand::Rng;

    /// A GP on `n` noisy observations of a bumpy function in `dim` inputs (every other one
    /// one-hot-like sparse), and `m` candidates.
    fn setup(seed: u64, n: usize, m: usize, dim: usize) -> (FittedGp, Vec<Vec<f64>>, f64) {
        let mut rng = job_rng(seed, "argmax");
        let point = |rng: &mut crate::optimizer::MethodRng| -> Vec<f64> {
            (0..dim).map(|d| if d % 2 == 1 && rng.random::<f64>() < 0.7 { 0.0 } else { rng.random::<f64>() }).collect()
        };
        let x: Vec<Vec<f64>> = (0..n).map(|_| point(&mut rng)).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|p| p.iter().enumerate().map(|(d, v)| (3.0 * v + d as f64).sin()).sum::<f64>() + 0.05 * rng.random::<f64>())
            .collect();
        let best = y.iter().copied().fold(f64::INFINITY, f64::min);
        let mut params = vec![-1.0; dim];
        params.extend([0.0, libm::log(1e-3), 0.0]);
        let gp = FittedGp::with_params(&x, &y, GpParams(params)).unwrap();
        (gp, (0..m).map(|_| point(&mut rng)).collect(), best)
    }

    /// The full pass's pick: every candidate's score, the first maximum.
    fn full_argmax(gp: &FittedGp, candidates: &[Vec<f64>], which: &[usize], score: &dyn Fn(usize, f64, f64) -> f64) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (&i, (m, v)) in which.iter().zip(gp.predict_many(candidates, which)) {
            let s = score(i, m, v);
            if s.is_finite() && best.is_none_or(|(_, b)| s > b) {
                best = Some((i, s));
            }
        }
        best.map(|b| b.0)
    }

    #[test]
    fn the_pruned_argmax_picks_what_the_full_pass_picks() {
        let mut pruned_somewhere = false;
        for seed in 0..12 {
            let (gp, candidates, best) = setup(seed, 10 + 7 * seed as usize, 600, 6);
            let which: Vec<usize> = (0..candidates.len()).filter(|i| i % 7 != 3).collect();
            let ei = |_: usize, m: f64, v: f64| expected_improvement(m, v.sqrt(), best);
            let want = full_argmax(&gp, &candidates, &which, &ei);
            // Kernel values kept for all, some or none of the candidates.
            for keep in [usize::MAX, 300 * gp.alpha.len(), 0] {
                let (got, finished) = gp.argmax_keeping(&candidates, &which, &ei, keep);
                assert_eq!(got, want, "seed {seed}, keep {keep}");
                pruned_somewhere |= finished < which.len() / 2;
            }
        }
        assert!(pruned_somewhere, "the bound never pruned, so the pruning went untested");
    }

    #[test]
    fn ties_go_to_the_first_candidate_and_non_finite_scores_never_win() {
        let (gp, candidates, _) = setup(3, 30, 200, 4);
        let which: Vec<usize> = (0..candidates.len()).rev().collect();
        // A score blind to the variance ties everywhere: the first of `which` wins.
        let (got, _) = gp.argmax_keeping(&candidates, &which, &|_, _, _| 1.0, usize::MAX);
        assert_eq!(got, Some(which[0]));
        // Every exact score ties at 1 while the bounds score higher the later a candidate
        // comes in `which`, so candidates are finished in the reverse order of `which`; the
        // first in `which` must still win. (Scoring 1 needs the finished variance to be the
        // full one bit for bit.)
        let mut full_variance = vec![0.0; candidates.len()];
        for (&i, p) in which.iter().zip(gp.predict_many(&candidates, &which)) {
            full_variance[i] = p.1;
        }
        let rank: Vec<f64> = {
            let mut r = vec![0.0; candidates.len()];
            for (p, &i) in which.iter().enumerate() {
                r[i] = p as f64 + 1.0;
            }
            r
        };
        let tied = |i: usize, _: f64, v: f64| if v >= full_variance[i] { 1.0 + (v - full_variance[i]) * rank[i] } else { 0.0 };
        let (got, finished) = gp.argmax_keeping(&candidates, &which, &tied, usize::MAX);
        assert_eq!((got, finished), (Some(which[0]), which.len()));
        let nan_first = |i: usize, _: f64, v: f64| if i == which[0] { f64::NAN } else { v };
        assert_eq!(gp.argmax_score(&candidates, &which, nan_first), full_argmax(&gp, &candidates, &which, &nan_first));
        assert_eq!(gp.argmax_score(&candidates, &which, |_, _, _| f64::NAN), None);
        assert_eq!(gp.argmax_score(&candidates, &[], |_, _, v| v), None);
    }

    #[test]
    fn a_bound_is_bit_for_bit_the_start_of_the_full_variance() {
        let (gp, candidates, _) = setup(5, 40, 50, 6);
        let which: Vec<usize> = (0..candidates.len()).collect();
        let full = gp.predict_many(&candidates, &which);
        for rows in [0, 1, 10, 39, 40] {
            let partial = gp.predict_rows(&candidates, &which, rows, &mut |_, _| {});
            for ((m, v), (pm, pv)) in full.iter().zip(&partial) {
                assert_eq!(m.to_bits(), pm.to_bits());
                assert!(pv >= v);
                if rows == 40 {
                    assert_eq!(v.to_bits(), pv.to_bits());
                }
            }
        }
    }
}
