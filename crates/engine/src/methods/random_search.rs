//! Random search without replacement (RS), the reference every paper normalises against.
//!
//! Each step draws uniformly among the candidates not yet evaluated, so `n` steps visit `n`
//! distinct configurations. Defaults: none. Reference: Bergstra & Bengio (2012); used as
//! the baseline "RS" of Salinas et al. (2020, Table 2) and Wistuba et al. (DyHPO, §5).

use crate::error::{EngineError, Result};
use crate::method_entry::{full_constructor, CostClass, MethodEntry, MethodKind, MethodObjectives, TransferNeed};
use crate::optimizer::{index_below, MethodRng, Optimizer, SearchState};

/// Random search over a lazily shuffled permutation of the candidates.
#[derive(Debug, Default, Clone)]
pub struct RandomSearch {
    order: Vec<usize>,
    next: usize,
}

impl RandomSearch {
    /// A fresh random search.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Optimizer for RandomSearch {
    fn suggest(&mut self, state: &SearchState, rng: &mut MethodRng) -> Result<usize> {
        let n = state.candidates.len();
        if self.order.len() != n {
            self.order = (0..n).collect();
            self.next = 0;
        }
        // One Fisher-Yates step at a time; skip candidates evaluated by someone else.
        while self.next < n {
            let j = self.next + index_below(rng, n - self.next);
            self.order.swap(self.next, j);
            let pick = self.order[self.next];
            self.next += 1;
            if !state.evaluated[pick] {
                return Ok(pick);
            }
        }
        Err(EngineError::Method { method: "RS".into(), message: "every candidate has been evaluated".into() })
    }
}

/// Registry entry.
pub const RS: MethodEntry = MethodEntry {
    name: "RS",
    summary: "Random search without replacement",
    paper: "Bergstra & Bengio 2012; the baseline of Salinas et al. 2020, Table 2",
    cost: CostClass::Instant,
    kind: MethodKind::Full {
        objectives: MethodObjectives::Any,
        transfer: TransferNeed::None,
        build: full_constructor(|_| Ok(Box::new(RandomSearch::new()))),
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::job_rng;

    #[test]
    fn visits_every_candidate_once_and_is_deterministic() {
        let candidates = vec![vec![0.0]; 50];
        let run = |seed| {
            let mut rs = RandomSearch::new();
            let mut rng = job_rng(seed, "t");
            let mut evaluated = vec![false; 50];
            let mut history = Vec::new();
            for _ in 0..50 {
                let s = SearchState { candidates: &candidates, evaluated: &evaluated, history: &history, objectives: &[] };
                let i = rs.suggest(&s, &mut rng).unwrap();
                assert!(!evaluated[i]);
                evaluated[i] = true;
                history.push((i, 0.0));
            }
            history.iter().map(|h| h.0).collect::<Vec<_>>()
        };
        let a = run(1);
        assert_eq!(a, run(1));
        assert_ne!(a, run(2));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn first_picks_are_uniform() {
        // Chi-square check of the first pick over 10 candidates and 5,000 seeds.
        let candidates = vec![vec![0.0]; 10];
        let evaluated = vec![false; 10];
        let mut counts = [0usize; 10];
        for seed in 0..5000 {
            let s = SearchState { candidates: &candidates, evaluated: &evaluated, history: &[], objectives: &[] };
            counts[RandomSearch::new().suggest(&s, &mut job_rng(seed, "t")).unwrap()] += 1;
        }
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - 500.0).powi(2) / 500.0).sum();
        assert!(chi2 < 27.9, "chi2 = {chi2} (99.9% quantile with 9 dof is 27.9), counts {counts:?}");
    }
}
