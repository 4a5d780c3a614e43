//! Pareto fronts and hypervolumes for multi-objective runs (Salinas et al. 2020, §5.2 and
//! App. B: "hypervolume error" = HV of the task's true front − HV of the front found so far,
//! with the reference point at the maximum of each objective over the task).
//!
//! Every function works on losses (smaller is better in every coordinate). The hypervolume is
//! exact: a sweep in 2-D, and "hypervolume by slicing objectives" (HSO: cut along the last
//! objective, recurse on the slices) in three or more dimensions.
//!
//! References: While, Hingston, Barone, Huband. *A faster algorithm for calculating
//! hypervolume*. IEEE TEC 10(1), 2006 (HSO); Emmerich, Deutz, Klinkenberg. *Hypervolume-based
//! expected improvement: monotonicity properties and exact computation*. CEC 2011 (the box
//! decomposition used by [`crate::methods::ehvi`]).

/// True when `a` dominates `b`: no worse in every objective and better in at least one.
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut strictly = false;
    for (x, y) in a.iter().zip(b) {
        if x > y {
            return false;
        }
        strictly |= x < y;
    }
    strictly
}

/// Indices of the non-dominated points (duplicates keep their first occurrence), in input order.
pub fn non_dominated(points: &[Vec<f64>]) -> Vec<usize> {
    if points.first().is_some_and(|p| p.len() == 2) {
        return non_dominated_2d(points);
    }
    let mut keep: Vec<usize> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if keep.iter().any(|&k| dominates(&points[k], p) || points[k] == *p) {
            continue;
        }
        keep.retain(|&k| !dominates(p, &points[k]));
        keep.push(i);
    }
    keep.sort_unstable();
    keep
}

/// O(n log n) filter for two objectives: sort by the first, keep strict improvements of the second.
fn non_dominated_2d(points: &[Vec<f64>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a][0].total_cmp(&points[b][0]).then(points[a][1].total_cmp(&points[b][1])).then(a.cmp(&b)));
    let mut keep = Vec::new();
    let mut best_second = f64::INFINITY;
    for i in order {
        if points[i][1] < best_second {
            best_second = points[i][1];
            keep.push(i);
        }
    }
    keep.sort_unstable();
    keep
}

/// Hypervolume dominated by `points` and bounded above by `reference`. Points not strictly
/// better than the reference in every objective contribute nothing.
pub fn hypervolume(points: &[Vec<f64>], reference: &[f64]) -> f64 {
    let inside: Vec<Vec<f64>> = points.iter().filter(|p| p.iter().zip(reference).all(|(x, r)| x < r)).cloned().collect();
    if inside.is_empty() {
        return 0.0;
    }
    let front: Vec<Vec<f64>> = non_dominated(&inside).into_iter().map(|i| inside[i].clone()).collect();
    hv_recursive(front, reference)
}

fn hv_recursive(mut front: Vec<Vec<f64>>, reference: &[f64]) -> f64 {
    let d = reference.len();
    match d {
        0 => 1.0,
        1 => reference[0] - front.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min),
        2 => hv_2d(&mut front, reference),
        _ => {
            // Slice along the last objective: between consecutive values, the (d−1)-volume is
            // that of every point at or below the slice.
            front.sort_by(|a, b| a[d - 1].total_cmp(&b[d - 1]));
            let mut total = 0.0;
            for k in 0..front.len() {
                let top = if k + 1 < front.len() { front[k + 1][d - 1] } else { reference[d - 1] };
                let depth = top - front[k][d - 1];
                if depth <= 0.0 {
                    continue;
                }
                let slice: Vec<Vec<f64>> = front[..=k].iter().map(|p| p[..d - 1].to_vec()).collect();
                let slice_front: Vec<Vec<f64>> = non_dominated(&slice).into_iter().map(|i| slice[i].clone()).collect();
                total += depth * hv_recursive(slice_front, &reference[..d - 1]);
            }
            total
        }
    }
}

fn hv_2d(front: &mut [Vec<f64>], reference: &[f64]) -> f64 {
    front.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut total = 0.0;
    let mut ceiling = reference[1];
    for p in front.iter() {
        if p[1] < ceiling {
            total += (reference[0] - p[0]) * (ceiling - p[1]);
            ceiling = p[1];
        }
    }
    total
}

/// The 2-D non-dominated region below `reference`, as disjoint vertical strips
/// `[lower, upper) × (−∞, ceiling)` (lower = −∞ for the first). `front` must be non-dominated.
pub fn strips_2d(front: &[Vec<f64>], reference: &[f64]) -> Vec<(f64, f64, f64)> {
    let mut pts: Vec<&Vec<f64>> = front.iter().filter(|p| p[0] < reference[0] && p[1] < reference[1]).collect();
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut strips = Vec::with_capacity(pts.len() + 1);
    let mut lower = f64::NEG_INFINITY;
    let mut ceiling = reference[1];
    for p in pts {
        if p[1] >= ceiling {
            continue;
        }
        strips.push((lower, p[0], ceiling));
        lower = p[0];
        ceiling = p[1];
    }
    strips.push((lower, reference[0], ceiling));
    strips
}

/// Normalises losses per objective to [0, 1] with the task's own range, so that the reference
/// point of App. B (the maximum of each objective) becomes (1, …, 1).
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectiveScale {
    /// Minimum loss of each objective over the task.
    pub min: Vec<f64>,
    /// Maximum loss of each objective over the task (the reference point).
    pub max: Vec<f64>,
}

impl ObjectiveScale {
    /// The range of every objective over all of a task's evaluations (`losses[l][i]`).
    pub fn of_task(losses: &[Vec<f64>]) -> Self {
        let (min, max) =
            losses.iter().map(|col| col.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))).unzip();
        ObjectiveScale { min, max }
    }

    /// One point in normalised coordinates (a constant objective maps to 0).
    pub fn normalise(&self, point: &[f64]) -> Vec<f64> {
        point
            .iter()
            .enumerate()
            .map(|(l, &v)| if self.max[l] > self.min[l] { (v - self.min[l]) / (self.max[l] - self.min[l]) } else { 0.0 })
            .collect()
    }

    /// Volume of the box between the ideal and the reference point: raw HV = normalised HV × this.
    pub fn box_volume(&self) -> f64 {
        self.min.iter().zip(&self.max).map(|(lo, hi)| (hi - lo).max(0.0)).filter(|w| *w > 0.0).product()
    }
}

/// Tracks the hypervolume error of a run as points arrive.
#[derive(Debug, Clone)]
pub struct HypervolumeError {
    scale: ObjectiveScale,
    true_hv: f64,
    front: Vec<Vec<f64>>,
}

impl HypervolumeError {
    /// From every evaluation of the task (`losses[l][i]`: objective `l`, configuration `i`).
    pub fn new(losses: &[Vec<f64>]) -> Self {
        let scale = ObjectiveScale::of_task(losses);
        let n = losses.first().map_or(0, Vec::len);
        let points: Vec<Vec<f64>> = (0..n).map(|i| scale.normalise(&losses.iter().map(|c| c[i]).collect::<Vec<_>>())).collect();
        let reference = vec![1.0; losses.len()];
        let true_hv = hypervolume(&points, &reference);
        HypervolumeError { scale, true_hv, front: Vec::new() }
    }

    /// The task's objective ranges.
    pub fn scale(&self) -> &ObjectiveScale {
        &self.scale
    }

    /// Normalised hypervolume of the task's true front (a fraction of the unit box).
    pub fn true_hypervolume(&self) -> f64 {
        self.true_hv
    }

    /// Adds an observed loss vector; returns the normalised hypervolume error after it.
    pub fn observe(&mut self, losses: &[f64]) -> f64 {
        let p = self.scale.normalise(losses);
        if !self.front.iter().any(|q| dominates(q, &p) || *q == p) {
            self.front.retain(|q| !dominates(&p, q));
            self.front.push(p);
        }
        let reference = vec![1.0; self.scale.min.len()];
        (self.true_hv - hypervolume(&self.front, &reference)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::MethodRng;
    use rand::{Rng, SeedableRng};

    /// Inclusion–exclusion over all subsets: exact and independent of the sweep and slicing.
    fn brute_force_hv(points: &[Vec<f64>], reference: &[f64]) -> f64 {
        let n = points.len();
        let mut total = 0.0;
        for mask in 1u32..(1 << n) {
            let mut corner = vec![f64::NEG_INFINITY; reference.len()];
            for (i, p) in points.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    for d in 0..reference.len() {
                        corner[d] = corner[d].max(p[d]);
                    }
                }
            }
            let vol: f64 = corner.iter().zip(reference).map(|(c, r)| (r - c).max(0.0)).product();
            total += if mask.count_ones() % 2 == 1 { vol } else { -vol };
        }
        total
    }

    fn random_points(rng: &mut MethodRng, n: usize, d: usize) -> Vec<Vec<f64>> {
        (0..n).map(|_| (0..d).map(|_| rng.random::<f64>()).collect()).collect()
    }

    #[test]
    fn hypervolume_matches_inclusion_exclusion_in_2_3_and_4_dimensions() {
        let mut rng = MethodRng::seed_from_u64(1);
        for d in 2..=4 {
            for n in 1..=10 {
                let pts = random_points(&mut rng, n, d);
                let reference = vec![1.0; d];
                let exact = brute_force_hv(&pts, &reference);
                let hv = hypervolume(&pts, &reference);
                assert!((hv - exact).abs() < 1e-12, "d={d} n={n}: {hv} vs {exact}");
            }
        }
    }

    #[test]
    fn closed_form_cases() {
        assert_eq!(hypervolume(&[vec![0.5, 0.5]], &[1.0, 1.0]), 0.25);
        assert_eq!(hypervolume(&[vec![0.0, 0.5], vec![0.5, 0.0]], &[1.0, 1.0]), 0.75);
        assert_eq!(hypervolume(&[vec![0.5, 0.5, 0.5]], &[1.0, 1.0, 1.0]), 0.125);
        // Points on or beyond the reference add nothing; dominated points add nothing.
        assert_eq!(hypervolume(&[vec![1.0, 0.0], vec![0.5, 0.5], vec![0.6, 0.6]], &[1.0, 1.0]), 0.25);
        assert_eq!(hypervolume(&[], &[1.0, 1.0]), 0.0);
    }

    #[test]
    fn non_dominated_filter_agrees_with_the_definition() {
        let mut rng = MethodRng::seed_from_u64(2);
        for d in 2..=3 {
            let mut pts = random_points(&mut rng, 60, d);
            pts.push(pts[3].clone());
            let kept = non_dominated(&pts);
            for i in 0..pts.len() {
                let dominated = pts.iter().any(|q| dominates(q, &pts[i]));
                let duplicate_of_earlier = (0..i).any(|j| pts[j] == pts[i]);
                assert_eq!(kept.contains(&i), !dominated && !duplicate_of_earlier, "d={d} i={i}");
            }
        }
    }

    #[test]
    fn strips_partition_the_non_dominated_region() {
        let front = vec![vec![0.2, 0.7], vec![0.5, 0.4], vec![0.8, 0.1]];
        let strips = strips_2d(&front, &[1.0, 1.0]);
        assert_eq!(strips, vec![(f64::NEG_INFINITY, 0.2, 1.0), (0.2, 0.5, 0.7), (0.5, 0.8, 0.4), (0.8, 1.0, 0.1)]);
    }

    #[test]
    fn hypervolume_error_falls_to_zero_when_the_true_front_is_found() {
        let losses = vec![vec![0.0, 1.0, 2.0, 3.0, 2.5], vec![3.0, 1.0, 0.5, 0.0, 2.5]];
        let mut tracker = HypervolumeError::new(&losses);
        let e0 = tracker.observe(&[2.5, 2.5]);
        let e1 = tracker.observe(&[1.0, 1.0]);
        assert!(e0 > e1 && e1 > 0.0);
        // The extremes lie on the reference point's faces and add no volume: two points suffice.
        let last = tracker.observe(&[2.0, 0.5]);
        assert!(last.abs() < 1e-15, "{last}");
        assert!((tracker.true_hypervolume() - (2.0 / 3.0 * 2.0 / 3.0 + 1.0 / 3.0 * 1.0 / 6.0)).abs() < 1e-15);
    }
}
