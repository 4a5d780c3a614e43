//! WS-GP: warm-start GP (Feurer et al. 2015) as the copula paper's baseline (App. B): the
//! best configuration of each related task is evaluated first, then GP-EI on standardised
//! objectives. In the tabular setting "evaluate x" means the remaining candidate of the
//! target task nearest to x in the model's input space (identical when tasks share their
//! configurations, as in NAS-Bench-201). Defaults: as [`super::gp`]; the paper's s = 1.

use super::surrogate_bo::{GpEiSearch, OutputWarp};
use crate::gp::GpSettings;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// WS-GP, warm-started with the other tasks' best configurations (encoded).
pub fn ws_gp(other_tasks_best: Vec<Vec<f64>>) -> GpEiSearch {
    GpEiSearch::new(OutputWarp::Standardize, super::gp::INITIAL_DESIGN, GpSettings::default()).with_warm_start(other_tasks_best)
}

/// Registry entry.
pub const WS_GP: MethodEntry = MethodEntry {
    name: "WS-GP",
    summary: "GP warm-started with the best configuration of each other task",
    paper: "Feurer et al. 2015, as Salinas et al. 2020, App. B",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::OtherBest,
        build: full_constructor(|t| Ok(Box::new(ws_gp(t.other_best)))),
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::{job_rng, Optimizer, SearchState};

    #[test]
    fn evaluates_the_nearest_candidates_to_the_other_tasks_best_first() {
        let candidates: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64 / 19.0]).collect();
        let mut ws = ws_gp(vec![vec![0.51], vec![0.02], vec![0.5]]);
        let mut evaluated = vec![false; 20];
        let mut history = Vec::new();
        let mut picks = Vec::new();
        let mut rng = job_rng(0, "t");
        for _ in 0..3 {
            let s = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
            let i = ws.suggest(&s, &mut rng).unwrap();
            evaluated[i] = true;
            history.push((i, 0.0));
            picks.push(i);
        }
        // 0.51 → candidate 10 (0.526); 0.02 → 0; 0.5 → 9 (0.474) since 10 is taken.
        assert_eq!(picks, vec![10, 0, 9]);
    }
}
