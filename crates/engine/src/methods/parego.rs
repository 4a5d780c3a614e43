//! ParEGO (Knowles, *ParEGO: a hybrid algorithm with on-line landscape approximation for
//! expensive multiobjective optimization problems*, IEEE TEC 10(1), 2006): each step draws a
//! weight vector λ, scalarizes the observed losses with the augmented Chebyshev function
//! f_λ(y) = max_j λ_j·y_j + ρ·Σ_j λ_j·y_j on objectives normalised to [0, 1] by their observed
//! range, and runs one step of GP-EI on f_λ. A baseline for the copula paper's §5.2, where the
//! GPareto criteria played that role.
//!
//! Defaults: ρ = 0.05 and λ uniform over the simplex lattice {λ_j = l/s, Σλ = 1} with s = 10
//! for two objectives (11 vectors) and s = 4 for three (15), as in Knowles; s = 3 beyond.
//! Deviations from the paper, for a like-for-like comparison with the other GP methods: our
//! GP (Matérn-5/2 ARD, type-II ML) instead of DACE, 5 random initial evaluations instead of a
//! Latin hypercube of 11d − 1, every observation used (Knowles caps the model at 80), and EI
//! maximised over every remaining candidate instead of by an evolutionary algorithm.

use crate::error::{EngineError, Result};
use crate::gp::GpSettings;
use crate::optimizer::{index_below, MethodRng, Optimizer, SearchState};

use super::gp::INITIAL_DESIGN;
use super::surrogate_bo::{GpEiSearch, OutputWarp};
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed, MAX_OBJECTIVES};

/// Weight of the linear term of the augmented Chebyshev function.
pub const RHO: f64 = 0.05;

/// Lattice resolution s for `k` objectives.
pub fn lattice_resolution(k: usize) -> usize {
    match k {
        0..=2 => 10,
        3 => 4,
        _ => 3,
    }
}

/// Every weight vector with coordinates in {0, 1/s, …, 1} summing to one.
pub fn weight_lattice(k: usize, s: usize) -> Vec<Vec<f64>> {
    fn rec(k: usize, left: usize, s: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<f64>>) {
        if prefix.len() + 1 == k {
            prefix.push(left);
            out.push(prefix.iter().map(|&l| l as f64 / s as f64).collect());
            prefix.pop();
            return;
        }
        for l in 0..=left {
            prefix.push(l);
            rec(k, left - l, s, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    if k > 0 {
        rec(k, s, s, &mut Vec::new(), &mut out);
    }
    out
}

/// f_λ of every point (`points[i][j]`), objectives normalised by their observed range.
pub fn augmented_chebyshev(points: &[Vec<f64>], weights: &[f64]) -> Vec<f64> {
    let k = weights.len();
    let (lo, hi): (Vec<f64>, Vec<f64>) =
        (0..k).map(|j| points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p[j]), b.max(p[j])))).unzip();
    points
        .iter()
        .map(|p| {
            let normalised = (0..k).map(|j| if hi[j] > lo[j] { (p[j] - lo[j]) / (hi[j] - lo[j]) } else { 0.0 });
            let weighted: Vec<f64> = normalised.zip(weights).map(|(y, w)| y * w).collect();
            weighted.iter().copied().fold(f64::NEG_INFINITY, f64::max) + RHO * weighted.iter().sum::<f64>()
        })
        .collect()
}

/// ParEGO over a finite candidate set.
#[derive(Debug, Clone)]
pub struct ParEgo {
    inner: GpEiSearch,
}

impl ParEgo {
    /// ParEGO with its defaults.
    pub fn new() -> Self {
        ParEgo { inner: GpEiSearch::new(OutputWarp::Standardize, INITIAL_DESIGN, GpSettings::default()) }
    }
}

impl Default for ParEgo {
    fn default() -> Self {
        Self::new()
    }
}

impl Optimizer for ParEgo {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        if state.objectives.len() != state.history.len() {
            return Err(EngineError::Method { method: "ParEGO".into(), message: "needs the loss vector of every observation".into() });
        }
        if state.history.len() < INITIAL_DESIGN {
            return self.inner.suggest(state, rng);
        }
        let k = state.objectives[0].len();
        let lattice = weight_lattice(k, lattice_resolution(k));
        let weights = &lattice[index_below(rng, lattice.len())];
        let scalar = augmented_chebyshev(state.objectives, weights);
        let history: Vec<(usize, f64)> = state.history.iter().zip(scalar).map(|(&(i, _), f)| (i, f)).collect();
        self.inner.suggest(&SearchState { history: &history, ..*state }, rng)
    }
}

/// Registry entry.
pub const PAREGO: MethodEntry = MethodEntry {
    name: "ParEGO",
    summary: "Random augmented Chebyshev scalarization each step, GP-EI on it (Knowles 2006)",
    paper: "Knowles 2006; a baseline for Salinas et al. 2020, §5.2",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Pareto { max_objectives: MAX_OBJECTIVES },
        transfer: TransferNeed::None,
        build: full_constructor(|_| Ok(Box::new(ParEgo::new()))),
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_sizes_match_knowles() {
        assert_eq!(weight_lattice(2, 10).len(), 11);
        assert_eq!(weight_lattice(3, 4).len(), 15);
        for w in weight_lattice(3, 4) {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn chebyshev_by_hand() {
        // Normalised: (0, 1), (1, 0), (0.5, 0.5); λ = (0.3, 0.7).
        let pts = vec![vec![1.0, 10.0], vec![3.0, 0.0], vec![2.0, 5.0]];
        let f = augmented_chebyshev(&pts, &[0.3, 0.7]);
        let expected = [0.7 + RHO * 0.7, 0.3 + RHO * 0.3, 0.35 + RHO * 0.5];
        for (a, b) in f.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}
