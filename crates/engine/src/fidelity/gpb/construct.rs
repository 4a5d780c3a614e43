//! Constructions of exact designs (paper 003, §3.4): Random and Latin hypercube baselines,
//! Iterated Construction (Alg. 1) and Threshold Acceptance over Latin hypercubes (Alg. 2).
//!
//! - **LHD** (McKay et al. 1979, as §3.4): column j is a random permutation a·j of 1..N, and
//!   d_ij = (a_ij − u_ij)/N with u_ij ~ U[0, 1]. The budget is one more column, read as the
//!   budget level ⌊d·L⌋ of L levels, so budgets are balanced like every input.
//! - **IC** (Alg. 1): from an LHD, repeatedly find x = argmax d(x, X) (over the problem's
//!   grid × budgets); stop when max d ≤ 0; otherwise exchange x for the design point whose
//!   removal leaves the best criterion (line 7). Our addition: stop also when that exchange
//!   does not improve the criterion, which the finite search cannot exclude and which would
//!   otherwise cycle; so the criterion never decreases along IC.
//! - **TA** (Alg. 2): from an LHD, propose the exchange of two rows in one random column (an
//!   LHD again) and accept it when max d(current) − max d(proposal) > −1/s (line 10: a
//!   threshold that shrinks with the iteration s); stop when max d ≤ 0. The walk continues
//!   from the accepted design (Alg. 2's X*); we return the best design it visited (smallest
//!   max d), since a late acceptance may be worse than an earlier one.
//!
//! Defaults (the paper gives none): at most 100 IC and 300 TA iterations, tolerance 1e-9.
//! On tabular data every point snaps to the nearest table configuration not yet in the
//! design, so a snapped LHD is Latin only up to the table's granularity.

use rand::seq::SliceRandom;
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::design::{Design, DesignProblem};
use crate::optimizer::{index_below, MethodRng};

/// Default maximum iterations of IC.
pub const IC_ITERATIONS: usize = 100;
/// Default maximum iterations of TA.
pub const TA_ITERATIONS: usize = 300;
/// "max d ≤ 0" is tested as max d ≤ this.
pub const TOLERANCE: f64 = 1e-9;

/// How an initial design is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DesignMethod {
    /// Uniform points and budgets.
    Random,
    /// A Latin hypercube over inputs and budget.
    Lhd,
    /// Iterated Construction (Alg. 1).
    Ic,
    /// Threshold Acceptance over Latin hypercubes (Alg. 2).
    Ta,
}

impl DesignMethod {
    /// Every method, in display order.
    pub const ALL: [DesignMethod; 4] = [DesignMethod::Random, DesignMethod::Lhd, DesignMethod::Ic, DesignMethod::Ta];

    /// Display name (as the paper's tables).
    pub fn name(self) -> &'static str {
        match self {
            DesignMethod::Random => "Random",
            DesignMethod::Lhd => "LHD",
            DesignMethod::Ic => "IC",
            DesignMethod::Ta => "TA",
        }
    }

    /// Parses a name, case-insensitively.
    pub fn parse(s: &str) -> Option<DesignMethod> {
        DesignMethod::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(s))
    }
}

/// One iterate of a construction: the criterion and max d of its design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Iterate {
    /// The design at this iterate.
    pub design: Design,
    /// Its criterion value.
    pub value: f64,
    /// Its max d(x, ξ) over the problem's points.
    pub max_d: f64,
}

/// A construction's result: the design, and every iterate on the way (the first is the start).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Construction {
    /// The output design.
    pub design: Design,
    /// The iterates, starting design first (for TA: the accepted designs).
    pub path: Vec<Iterate>,
}

/// A Latin hypercube in `columns` columns of `n` runs, in (0, 1].
pub fn latin_hypercube(n: usize, columns: usize, rng: &mut MethodRng) -> Vec<Vec<f64>> {
    let mut out = vec![vec![0.0; columns]; n];
    for j in 0..columns {
        let mut perm: Vec<usize> = (1..=n).collect();
        perm.shuffle(rng);
        for (row, a) in out.iter_mut().zip(perm) {
            row[j] = (a as f64 - rng.random_range(0.0..1.0)) / n as f64;
        }
    }
    out
}

/// True when every column of `m` has exactly one entry in each of the n intervals ((i−1)/n, i/n].
pub fn is_latin(m: &[Vec<f64>]) -> bool {
    let n = m.len();
    let cols = m.first().map_or(0, Vec::len);
    (0..cols).all(|j| {
        let mut seen = vec![false; n];
        m.iter().all(|row| {
            let cell = ((row[j] * n as f64).ceil() as usize).clamp(1, n) - 1;
            !std::mem::replace(&mut seen[cell], true)
        })
    })
}

impl DesignProblem {
    /// Turns unit-cube rows (inputs, then the budget column) into a design: the budget level
    /// ⌊v·L⌋, and on tabular problems each input snapped to the nearest unused grid point.
    pub fn design_from_unit_rows(&self, rows: &[Vec<f64>]) -> Design {
        let p = self.dim();
        let levels = self.budgets.len();
        let mut used = vec![false; self.grid.len()];
        let x = rows
            .iter()
            .map(|row| {
                let point = &row[..p];
                if !self.tabular {
                    return point.to_vec();
                }
                let g = (0..self.grid.len())
                    .filter(|&g| !used[g])
                    .min_by(|&a, &b| dist2(&self.grid[a], point).total_cmp(&dist2(&self.grid[b], point)))
                    .expect("a tabular design needs at least as many configurations as points");
                used[g] = true;
                self.grid[g].clone()
            })
            .collect();
        let budget = rows.iter().map(|row| ((row[p] * levels as f64) as usize).min(levels - 1)).collect();
        Design { x, budget }
    }

    fn iterate(&self, design: Design) -> Iterate {
        let value = self.value(&design);
        let max_d = self.max_sensitivity(&design).map_or(f64::INFINITY, |(d, _)| d);
        Iterate { design, value, max_d }
    }

    /// Builds an n-point design with `method`.
    pub fn construct(&self, method: DesignMethod, n: usize, rng: &mut MethodRng) -> Construction {
        match method {
            DesignMethod::Random => {
                let rows: Vec<Vec<f64>> = (0..n).map(|_| (0..=self.dim()).map(|_| rng.random_range(0.0..1.0)).collect()).collect();
                self.single(self.design_from_unit_rows(&rows))
            }
            DesignMethod::Lhd => self.single(self.design_from_unit_rows(&latin_hypercube(n, self.dim() + 1, rng))),
            DesignMethod::Ic => {
                self.iterated_construction(self.design_from_unit_rows(&latin_hypercube(n, self.dim() + 1, rng)), IC_ITERATIONS)
            }
            DesignMethod::Ta => self.threshold_acceptance(latin_hypercube(n, self.dim() + 1, rng), TA_ITERATIONS, rng),
        }
    }

    /// [`DesignProblem::construct`] from given unit-cube rows (inputs, then the budget column)
    /// instead of a random start: Random and LHD keep them as they are, IC and TA improve them.
    pub fn construct_from(&self, method: DesignMethod, rows: Vec<Vec<f64>>, rng: &mut MethodRng) -> Construction {
        match method {
            DesignMethod::Random | DesignMethod::Lhd => self.single(self.design_from_unit_rows(&rows)),
            DesignMethod::Ic => self.iterated_construction(self.design_from_unit_rows(&rows), IC_ITERATIONS),
            DesignMethod::Ta => self.threshold_acceptance(rows, TA_ITERATIONS, rng),
        }
    }

    fn single(&self, design: Design) -> Construction {
        let it = self.iterate(design);
        Construction { design: it.design.clone(), path: vec![it] }
    }

    /// Algorithm 1 from `start`, at most `iterations` exchanges.
    pub fn iterated_construction(&self, start: Design, iterations: usize) -> Construction {
        let mut current = self.iterate(start);
        let mut path = vec![current.clone()];
        for _ in 0..iterations {
            let Some((max_d, (g, b))) = self.max_sensitivity(&current.design) else { break };
            if max_d <= TOLERANCE {
                break;
            }
            // Line 7: replace the point whose removal, with x added, leaves the best criterion.
            let best = (0..current.design.len())
                .map(|i| {
                    let mut next = current.design.clone();
                    next.x[i] = self.grid[g].clone();
                    next.budget[i] = b;
                    (self.value(&next), next)
                })
                .fold(None, |best: Option<(f64, Design)>, (v, d)| match best {
                    Some((bv, _)) if bv >= v => best,
                    _ => Some((v, d)),
                });
            match best {
                Some((v, next)) if v > current.value => {
                    current = self.iterate(next);
                    path.push(current.clone());
                }
                _ => break,
            }
        }
        Construction { design: current.design.clone(), path }
    }

    /// Algorithm 2 from the Latin hypercube `start` (unit rows, budget column last), at most
    /// `iterations` proposals.
    pub fn threshold_acceptance(&self, start: Vec<Vec<f64>>, iterations: usize, rng: &mut MethodRng) -> Construction {
        let n = start.len();
        let mut rows = start;
        let mut current = self.iterate(self.design_from_unit_rows(&rows));
        let mut best = current.clone();
        let mut path = vec![current.clone()];
        for s in 1..=iterations {
            if current.max_d <= TOLERANCE || n < 2 {
                break;
            }
            let mut proposal = rows.clone();
            let column = index_below(rng, self.dim() + 1);
            let i = index_below(rng, n);
            let j = (i + 1 + index_below(rng, n - 1)) % n;
            let (a, b) = (proposal[i][column], proposal[j][column]);
            proposal[i][column] = b;
            proposal[j][column] = a;
            let candidate = self.iterate(self.design_from_unit_rows(&proposal));
            if current.max_d - candidate.max_d > -1.0 / s as f64 {
                rows = proposal;
                current = candidate;
                if current.max_d < best.max_d {
                    best = current.clone();
                }
                path.push(current.clone());
            }
        }
        Construction { design: best.design.clone(), path }
    }
}

fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| (u - v) * (u - v)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fidelity::gpb::design::{Criterion, DesignModel};
    use crate::fidelity::gpb::model::{BudgetKernel, CovParams, GpbSettings};
    use rand::SeedableRng;

    fn problem(dim: usize, per_dim: usize, tabular: bool) -> DesignProblem {
        let settings = GpbSettings::default();
        let grid = (0..per_dim.pow(dim as u32))
            .map(|mut i| {
                (0..dim)
                    .map(|_| {
                        let v = (i % per_dim) as f64 / (per_dim - 1) as f64;
                        i /= per_dim;
                        v
                    })
                    .collect()
            })
            .collect();
        DesignProblem {
            model: DesignModel::Gpb { kernel: BudgetKernel::Power, params: CovParams::nominal(dim, &settings) },
            criterion: Criterion::D,
            budgets: vec![0.5, 2.0 / 3.0, 1.0],
            grid,
            tabular,
        }
    }

    #[test]
    fn every_ta_iterate_is_a_latin_hypercube() {
        let p = problem(2, 11, false);
        let mut rng = MethodRng::seed_from_u64(3);
        let start = latin_hypercube(10, 3, &mut rng);
        assert!(is_latin(&start));
        // Every accepted design's input columns stay Latin, and its budget column balanced.
        let c = p.threshold_acceptance(start, 60, &mut rng);
        assert!(c.path.len() > 1, "TA accepted nothing");
        for it in &c.path {
            let levels = p.budgets.len();
            let rows: Vec<Vec<f64>> = it.design.x.clone();
            assert!(is_latin(&rows), "inputs not Latin: {rows:?}");
            // The budget column is balanced like an LHD column: ⌈N/L⌉ at most per level.
            for l in 0..levels {
                assert!(it.design.budget.iter().filter(|&&b| b == l).count() <= 10usize.div_ceil(levels));
            }
        }
    }

    #[test]
    fn ic_reaches_the_known_optimum_of_the_linear_model() {
        // Independent errors: D-optimal for f = (1, x) on [0, 1] puts half the points at each
        // end; IC from an LHD must end there with max d ≤ tolerance.
        let mut p = problem(1, 101, false);
        p.model = DesignModel::IndependentLinear { dim: 1 };
        p.budgets = vec![1.0];
        let c = p.construct(DesignMethod::Ic, 4, &mut MethodRng::seed_from_u64(1));
        let last = c.path.last().unwrap();
        assert!(last.max_d <= 1e-6, "max d = {} for {:?}", last.max_d, c.design);
        for x in &c.design.x {
            assert!(x[0] == 0.0 || x[0] == 1.0, "{:?}", c.design);
        }
    }

    #[test]
    fn the_criterion_never_decreases_along_ic() {
        for dim in [1, 2] {
            let p = problem(dim, if dim == 1 { 41 } else { 9 }, false);
            let c = p.construct(DesignMethod::Ic, 6, &mut MethodRng::seed_from_u64(dim as u64));
            assert!(c.path.len() > 1);
            for w in c.path.windows(2) {
                assert!(w[1].value >= w[0].value, "{} then {}", w[0].value, w[1].value);
            }
        }
    }

    #[test]
    fn constructions_are_deterministic_per_seed_and_beat_random() {
        let p = problem(2, 9, false);
        for method in DesignMethod::ALL {
            let a = p.construct(method, 8, &mut MethodRng::seed_from_u64(11));
            let b = p.construct(method, 8, &mut MethodRng::seed_from_u64(11));
            assert_eq!(a, b, "{method:?}");
        }
        let mean = |m| (0..10).map(|s| p.value(&p.construct(m, 8, &mut MethodRng::seed_from_u64(s)).design)).sum::<f64>() / 10.0;
        assert!(mean(DesignMethod::Ic) > mean(DesignMethod::Random));
        assert!(mean(DesignMethod::Ta) > mean(DesignMethod::Random));
    }

    #[test]
    fn tabular_designs_use_distinct_table_configurations() {
        let p = problem(2, 5, true);
        for method in DesignMethod::ALL {
            let c = p.construct(method, 10, &mut MethodRng::seed_from_u64(2));
            for (i, x) in c.design.x.iter().enumerate() {
                assert!(p.grid.contains(x));
                assert!(!c.design.x[..i].contains(x), "{method:?} repeats {x:?}");
            }
        }
    }
}
