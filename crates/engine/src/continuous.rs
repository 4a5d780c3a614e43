//! A study's own search space as a model sees it (each parameter's coordinates in [0, 1]),
//! and the search of an acquisition over it: the way Optuna's GPSampler searches log-EI
//! (`optuna/_gp/optim_mixed.py`) and BoTorch's `optimize_acqf` searches EI, for proposals
//! that are not limited to a list of candidates.
//!
//! The search: [`PRELIMINARY`] quasi-random points (a Halton sequence, shifted by the seed's
//! draw) are scored; the best of them and the given starts (the best observed points) each
//! start a local search that alternates box-constrained L-BFGS over the continuous
//! coordinates ([`crate::lbfgsb`], the others held) with an exhaustive pass over each
//! discrete one (every level of a categorical, every value of a stepped or integer parameter,
//! or the nearest [`GRID_NEIGHBOURS`] of a long one), until a round improves by less than
//! [`TOLERANCE`]. Optuna starts 10 local searches, from the best observed point and 9
//! preliminary points drawn in proportion to their score; here the 9 best, so that a search
//! is a function of its seed and data alone.

use rand::Rng;

use crate::lbfgsb;

/// One parameter's coordinates in the model's encoding.
#[derive(Debug, Clone, PartialEq)]
pub enum Coordinate {
    /// A real parameter: coordinate `at`, anywhere in [0, 1].
    Free {
        /// Its index in the encoding.
        at: usize,
    },
    /// An integer or stepped parameter: coordinate `at`, one of `values` (increasing).
    Grid {
        /// Its index in the encoding.
        at: usize,
        /// The encodings of its allowed values.
        values: Vec<f64>,
    },
    /// A categorical parameter, one-hot over `width` coordinates from `at`.
    OneHot {
        /// Its first index in the encoding.
        at: usize,
        /// Its number of levels.
        width: usize,
    },
}

/// A function to maximise: its value and gradient at a point of the encoding.
pub type Scored<'a> = dyn Fn(&[f64]) -> (f64, Vec<f64>) + 'a;

/// The coordinates of every parameter, in the encoding's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContinuousSpace {
    /// One per parameter.
    pub coordinates: Vec<Coordinate>,
}

/// Quasi-random points scored before the local searches (Optuna's `n_preliminary_samples`).
pub const PRELIMINARY: usize = 2048;
/// Local searches (Optuna's `n_local_search`).
pub const LOCAL_SEARCHES: usize = 10;
/// A round of a local search that gains less than this (in log-EI) ends it (Optuna's `tol`).
pub const TOLERANCE: f64 = 1e-4;
/// Most rounds of a local search.
const MAX_ROUNDS: usize = 10;
/// Values of a long grid tried around the current one, on each side.
pub const GRID_NEIGHBOURS: usize = 8;
/// Grids up to this long are tried whole.
const WHOLE_GRID: usize = 2 * GRID_NEIGHBOURS + 1;

/// The first primes: the Halton sequence's bases.
const PRIMES: [u32; 64] = [
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137,
    139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 257, 263, 269, 271, 277, 281,
    283, 293, 307, 311,
];

/// The radical inverse of `i` in base `b`: the Halton sequence's coordinate.
fn radical_inverse(mut i: u64, b: u32) -> f64 {
    let (mut value, mut scale) = (0.0, 1.0 / b as f64);
    while i > 0 {
        value += (i % b as u64) as f64 * scale;
        i /= b as u64;
        scale /= b as f64;
    }
    value
}

impl ContinuousSpace {
    /// Number of encoded coordinates.
    pub fn dim(&self) -> usize {
        self.coordinates
            .iter()
            .map(|c| match c {
                Coordinate::Free { at } | Coordinate::Grid { at, .. } => at + 1,
                Coordinate::OneHot { at, width } => at + width,
            })
            .max()
            .unwrap_or(0)
    }

    /// Moves `x` onto the space: free coordinates into [0, 1], grids to their nearest value,
    /// one-hots to their largest coordinate's level (the first on ties).
    pub fn snap(&self, x: &mut [f64]) {
        for c in &self.coordinates {
            match c {
                Coordinate::Free { at } => x[*at] = x[*at].clamp(0.0, 1.0),
                Coordinate::Grid { at, values } => x[*at] = values[nearest(values, x[*at])],
                Coordinate::OneHot { at, width } => {
                    let level = (0..*width).fold(0, |b, l| if x[at + l] > x[at + b] { l } else { b });
                    set_level(x, *at, *width, level);
                }
            }
        }
    }

    /// `n` points of the Halton sequence (one base per parameter), shifted modulo 1 by one
    /// uniform draw per parameter (Cranley–Patterson), each read as the parameter's value.
    pub fn sample(&self, n: usize, rng: &mut impl Rng) -> Vec<Vec<f64>> {
        let shift: Vec<f64> = self.coordinates.iter().map(|_| rng.random::<f64>()).collect();
        let dim = self.dim();
        (1..=n as u64)
            .map(|i| {
                let mut x = vec![0.0; dim];
                for (k, c) in self.coordinates.iter().enumerate() {
                    let u = (radical_inverse(i, PRIMES[k % PRIMES.len()]) + shift[k]).fract();
                    match c {
                        Coordinate::Free { at } => x[*at] = u,
                        Coordinate::Grid { at, values } => x[*at] = values[((u * values.len() as f64) as usize).min(values.len() - 1)],
                        Coordinate::OneHot { at, width } => set_level(&mut x, *at, *width, ((u * *width as f64) as usize).min(width - 1)),
                    }
                }
                x
            })
            .collect()
    }

    /// Local maxima of `f` (value and gradient) from each of `starts` (snapped first), best
    /// first; a start where f is not finite is skipped.
    pub fn maximise(&self, f: &Scored<'_>, starts: &[Vec<f64>]) -> Vec<(Vec<f64>, f64)> {
        let mut found: Vec<(Vec<f64>, f64)> = starts.iter().filter_map(|s| self.local_search(f, s.clone())).collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1));
        found
    }

    fn local_search(&self, f: &Scored<'_>, mut x: Vec<f64>) -> Option<(Vec<f64>, f64)> {
        self.snap(&mut x);
        let mut value = f(&x).0;
        if !value.is_finite() {
            return None;
        }
        let free: Vec<usize> =
            self.coordinates.iter().filter_map(|c| if let Coordinate::Free { at } = c { Some(*at) } else { None }).collect();
        let settings = lbfgsb::Settings { pgtol: TOLERANCE.sqrt(), ..lbfgsb::Settings::default() };
        for _ in 0..MAX_ROUNDS {
            let before = value;
            if !free.is_empty() {
                let start: Vec<f64> = free.iter().map(|&at| x[at]).collect();
                let base = x.clone();
                let negative = |u: &[f64], grad: &mut [f64]| {
                    let mut point = base.clone();
                    for (&at, &v) in free.iter().zip(u) {
                        point[at] = v;
                    }
                    let (v, g) = f(&point);
                    for (out, &at) in grad.iter_mut().zip(&free) {
                        *out = -g[at];
                    }
                    Some(-v).filter(|v| v.is_finite())
                };
                if let Some(m) = lbfgsb::minimise(negative, &start, &vec![(0.0, 1.0); free.len()], &settings) {
                    if -m.value > value {
                        for (&at, &v) in free.iter().zip(&m.x) {
                            x[at] = v;
                        }
                        value = -m.value;
                    }
                }
            }
            for c in &self.coordinates {
                let trials: Vec<Vec<f64>> = match c {
                    Coordinate::Free { .. } => continue,
                    Coordinate::Grid { at, values } => {
                        let here = nearest(values, x[*at]);
                        let range = if values.len() <= WHOLE_GRID {
                            0..values.len()
                        } else {
                            here.saturating_sub(GRID_NEIGHBOURS)..(here + GRID_NEIGHBOURS + 1).min(values.len())
                        };
                        range.filter(|&k| k != here).map(|k| with(&x, |p| p[*at] = values[k])).collect()
                    }
                    Coordinate::OneHot { at, width } => {
                        let here = (0..*width).find(|&l| x[at + l] == 1.0).unwrap_or(0);
                        (0..*width).filter(|&l| l != here).map(|l| with(&x, |p| set_level(p, *at, *width, l))).collect()
                    }
                };
                for t in trials {
                    let v = f(&t).0;
                    if v > value {
                        value = v;
                        x = t;
                    }
                }
            }
            if value - before < TOLERANCE {
                break;
            }
        }
        Some((x, value))
    }
}

fn with(x: &[f64], change: impl FnOnce(&mut [f64])) -> Vec<f64> {
    let mut p = x.to_vec();
    change(&mut p);
    p
}

fn set_level(x: &mut [f64], at: usize, width: usize, level: usize) {
    for l in 0..width {
        x[at + l] = if l == level { 1.0 } else { 0.0 };
    }
}

/// The index of the value nearest `v` (the lower on ties).
fn nearest(values: &[f64], v: f64) -> usize {
    (0..values.len()).fold(0, |b, k| if (values[k] - v).abs() < (values[b] - v).abs() { k } else { b })
}

/// The positions of the finite `scores`, highest first (the earlier on ties).
pub fn best_first(scores: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| scores[i].is_finite()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order
}

/// The starts of a search: the `given` points (e.g. the best observed), then the best of
/// `preliminary` by `score` up to [`LOCAL_SEARCHES`] in all; ties keep the earlier point.
pub fn starts(given: Vec<Vec<f64>>, preliminary: &[Vec<f64>], scores: &[f64]) -> Vec<Vec<f64>> {
    let order = best_first(scores);
    let room = LOCAL_SEARCHES.saturating_sub(given.len());
    given.into_iter().chain(order.into_iter().take(room).map(|i| preliminary[i].clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn space() -> ContinuousSpace {
        ContinuousSpace {
            coordinates: vec![
                Coordinate::Free { at: 0 },
                Coordinate::Grid { at: 1, values: (0..=10).map(|k| k as f64 / 10.0).collect() },
                Coordinate::OneHot { at: 2, width: 3 },
                Coordinate::Grid { at: 5, values: (0..=100).map(|k| k as f64 / 100.0).collect() },
            ],
        }
    }

    /// A smooth function with a known maximum on the space: x₀ = 0.3, x₁ = 0.7, level 2,
    /// x₅ = 0.83; the level adds 0, 0.5 or 1.
    fn f(x: &[f64]) -> (f64, Vec<f64>) {
        let v = -(x[0] - 0.3).powi(2) - (x[1] - 0.7).powi(2) - (x[5] - 0.83).powi(2) + 0.5 * x[3] + x[4];
        let mut g = vec![0.0; 6];
        g[0] = -2.0 * (x[0] - 0.3);
        g[1] = -2.0 * (x[1] - 0.7);
        g[5] = -2.0 * (x[5] - 0.83);
        (v, g)
    }

    #[test]
    fn samples_lie_on_the_space_and_fill_it() {
        let s = space();
        let points = s.sample(512, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
        for p in &points {
            let mut snapped = p.clone();
            s.snap(&mut snapped);
            assert_eq!(&snapped, p);
        }
        // Every level and every tenth of the free coordinate is drawn.
        for level in 0..3 {
            assert!(points.iter().any(|p| p[2 + level] == 1.0));
        }
        for k in 0..10 {
            let lo = k as f64 / 10.0;
            assert!(points.iter().any(|p| p[0] >= lo && p[0] < lo + 0.1), "no point in [{lo}, {})", lo + 0.1);
        }
    }

    #[test]
    fn a_local_search_finds_the_maximum_across_kinds_of_coordinate() {
        let s = space();
        let found = s.maximise(&f, &[vec![0.9, 0.1, 1.0, 0.0, 0.0, 0.1], vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.99]]);
        let (x, v) = &found[0];
        assert!((x[0] - 0.3).abs() < 1e-3, "{x:?}");
        assert_eq!((x[1], &x[2..5], x[5]), (0.7, &[0.0, 0.0, 1.0][..], 0.83), "{x:?}");
        assert!((v - 1.0).abs() < 1e-6);
        assert!(found[0].1 >= found[1].1);
    }

    #[test]
    fn starts_are_the_given_then_the_best_scored() {
        let pre: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64]).collect();
        let scores: Vec<f64> = (0..20).map(|i| if i == 7 { f64::NAN } else { (i % 5) as f64 }).collect();
        let s = starts(vec![vec![-1.0]], &pre, &scores);
        assert_eq!(s.len(), LOCAL_SEARCHES);
        assert_eq!(s[0], vec![-1.0]);
        assert_eq!(s[1..5].to_vec(), vec![vec![4.0], vec![9.0], vec![14.0], vec![19.0]]);
    }
}
