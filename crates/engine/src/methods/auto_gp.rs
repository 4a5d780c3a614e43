//! AutoGP: GP-based BO in a search space learned from other tasks (Perrone et al. 2019), as
//! the copula paper's baseline (App. B): the coordinatewise bounding box of the other tasks'
//! best configurations (in the model's input space), then GP-EI on standardised objectives
//! over the target task's candidates inside the box (all of them if the box holds none).
//! "This method comes with no hyperparameters"; the GP and its 5 random initial points (drawn
//! inside the box) are as in [`super::gp`].

use super::surrogate_bo::{GpEiSearch, OutputWarp, SearchBox};
use crate::gp::GpSettings;
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};

/// AutoGP for the other tasks' best configurations (encoded).
pub fn auto_gp(other_tasks_best: &[Vec<f64>]) -> GpEiSearch {
    let search = GpEiSearch::new(OutputWarp::Standardize, super::gp::INITIAL_DESIGN, GpSettings::default());
    match SearchBox::bounding(other_tasks_best) {
        Some(region) => search.within(region),
        None => search,
    }
}

/// Registry entry.
pub const AUTO_GP: MethodEntry = MethodEntry {
    name: "AutoGP",
    summary: "GP inside the bounding box of the other tasks' best configurations",
    paper: "Perrone et al. 2019, as Salinas et al. 2020, App. B",
    cost: CostClass::Model,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Single,
        transfer: TransferNeed::OtherBest,
        build: full_constructor(|t| Ok(Box::new(auto_gp(&t.other_best)))),
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::{job_rng, Optimizer, SearchState};

    #[test]
    fn searches_inside_the_box_of_the_other_tasks_best() {
        let candidates: Vec<Vec<f64>> = (0..50).map(|i| vec![(i % 10) as f64 / 9.0, (i / 10) as f64 / 4.0]).collect();
        let mut search = auto_gp(&[vec![0.3, 0.2], vec![0.6, 0.6]]);
        let mut evaluated = vec![false; 50];
        let mut history = Vec::new();
        let mut rng = job_rng(1, "t");
        // The box holds x ∈ {3/9, 4/9, 5/9} × y ∈ {0.25, 0.5}: 6 candidates, then the search
        // falls back to the whole set.
        for step in 0..7 {
            let s = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
            let i = search.suggest(&s, &mut rng).unwrap();
            let c = &candidates[i];
            let inside = (0.3..=0.6).contains(&c[0]) && (0.2..=0.6).contains(&c[1]);
            assert_eq!(inside, step < 6, "step {step}: {c:?}");
            evaluated[i] = true;
            history.push((i, (c[0] - 0.4).powi(2) + c[1]));
        }
    }
}
