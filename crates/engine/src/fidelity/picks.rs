//! A race's decisions without the benchmark's values, and their replay.
//!
//! Why: a sweep's traces hold every value the race observed, i.e. a piece of the benchmark
//! table, which may not be redistributed (`../shared/benchmarks/README.md`). What a method
//! *decided* — which configuration it trained to which budget, and how long it thought about
//! it — holds no value of the table. Replayed against the same table, those picks give back
//! the full trace, every row bit for bit; a SHA-256 of the original rows proves it. So a long
//! sweep's finished jobs can be kept (committed, mailed, resumed on another machine) as picks.

use serde::{Deserialize, Serialize};

use crate::content_hash;
use crate::error::{EngineError, Result};
use crate::optimizer::MethodRng;
use crate::race::{run_race, Race, RaceRow};
use crate::race::{MultiFidelityOptimizer, Request};

/// One served request: configuration, budget reached, the optimizer's seconds for it.
pub type Pick = (usize, u32, f64);

/// The decisions of one race, with the hash of the rows they were taken from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RacePicks {
    /// One per served request, in order.
    pub picks: Vec<Pick>,
    /// [`rows_hash`] of the race's rows.
    pub check: String,
}

/// Lower-case hex SHA-256 of the rows' JSON: the identity of a race's full trace.
pub fn rows_hash(rows: &[RaceRow]) -> String {
    content_hash(&serde_json::to_vec(rows).expect("race rows serialise"))
}

/// The picks of a race's rows.
pub fn picks_of(rows: &[RaceRow]) -> RacePicks {
    RacePicks { picks: rows.iter().map(|r| (r.config, r.budget, r.optimizer_seconds)).collect(), check: rows_hash(rows) }
}

/// Asks for the recorded requests in order.
struct Scripted<'a> {
    picks: std::slice::Iter<'a, Pick>,
}

impl MultiFidelityOptimizer for Scripted<'_> {
    fn next(&mut self, _: &Race, _: &[Vec<f64>], _: &mut MethodRng) -> Result<Request> {
        let &(config, budget, _) =
            self.picks.next().ok_or_else(|| EngineError::Spec("the picks end before the race's budget is spent".into()))?;
        Ok(Request { config, budget })
    }
}

/// The rows the picks were taken from: the race re-run on `values` / `cost` (as
/// [`run_race`] takes them) with the recorded requests, the recorded seconds put back, and
/// the result checked against the picks' hash — so replaying on another table, another
/// budget or an edited file is an error, never a silently different trace.
pub fn replay(
    recorded: &RacePicks,
    method: &str,
    values: &[Vec<f64>],
    cost: Option<&[Vec<f64>]>,
    sign: f64,
    total_budget: u64,
) -> Result<Vec<RaceRow>> {
    let mut script = Scripted { picks: recorded.picks.iter() };
    // The scripted optimizer neither reads the candidates nor draws from the generator.
    let candidates = vec![Vec::new(); values.len()];
    let mut rng = <MethodRng as rand::SeedableRng>::seed_from_u64(0);
    let mut rows = run_race(&mut script, method, &candidates, values, cost, sign, total_budget, &mut rng, &|| 0.0, &mut |_| true)?;
    if rows.len() != recorded.picks.len() {
        return Err(EngineError::Spec(format!("{method}: the budget is spent after {} of the {} picks", rows.len(), recorded.picks.len())));
    }
    for (row, &(_, _, seconds)) in rows.iter_mut().zip(&recorded.picks) {
        row.optimizer_seconds = seconds;
    }
    if rows_hash(&rows) != recorded.check {
        return Err(EngineError::Spec(format!(
            "{method}: the picks replayed here give another trace than the one they were taken from (other data or budget?)"
        )));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Varied requests: configurations in turn, 1 to 3 units at a time.
    struct Hopping(u32);
    impl MultiFidelityOptimizer for Hopping {
        fn next(&mut self, race: &Race, _: &[Vec<f64>], _: &mut MethodRng) -> Result<Request> {
            self.0 += 1;
            let n = race.curves.len();
            let i = (0..n).map(|k| (self.0 as usize + k) % n).find(|&i| race.budget_of(i) < race.max_budget).unwrap();
            Ok(Request { config: i, budget: (race.budget_of(i) + 1 + self.0 % 3).min(race.max_budget) })
        }
    }

    fn table() -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let values: Vec<Vec<f64>> = (0..4).map(|i| (0..6).map(|s| 0.9 - 0.1 * s as f64 / (i + 1) as f64).collect()).collect();
        let cost: Vec<Vec<f64>> = (0..4).map(|i| (0..6).map(|s| (s + 1) as f64 * (1.5 + i as f64)).collect()).collect();
        (values, cost)
    }

    fn recorded(budget: u64) -> Vec<RaceRow> {
        let (values, cost) = table();
        let candidates = vec![vec![0.0]; 4];
        let mut rng = MethodRng::seed_from_u64(3);
        let clock = std::cell::Cell::new(0.0);
        // Distinct seconds per request, so putting them back is checked too.
        let now = || {
            clock.set(clock.get() + 0.125);
            clock.get()
        };
        run_race(&mut Hopping(0), "hop", &candidates, &values, Some(&cost), 1.0, budget, &mut rng, &now, &mut |_| true).unwrap()
    }

    #[test]
    fn replay_gives_back_every_row_bit_for_bit() {
        let rows = recorded(17);
        let picks = picks_of(&rows);
        let (values, cost) = table();
        assert_eq!(replay(&picks, "hop", &values, Some(&cost), 1.0, 17).unwrap(), rows);
        // The picks hold no value of the table: only indices, budgets and seconds.
        let json = serde_json::to_string(&picks).unwrap();
        assert!(!json.contains("0.9"), "{json}");
    }

    #[test]
    fn replay_on_other_data_budget_or_edited_picks_is_an_error() {
        let rows = recorded(17);
        let picks = picks_of(&rows);
        let (mut values, cost) = table();
        assert!(replay(&picks, "hop", &values, None, 1.0, 17).is_err(), "without the cost");
        assert!(replay(&picks, "hop", &values, Some(&cost), 1.0, 16).is_err(), "a smaller budget");
        assert!(replay(&picks, "hop", &values, Some(&cost), 1.0, 30).is_err(), "a larger budget");
        let mut slower = picks.clone();
        slower.picks[2].2 += 1.0;
        assert!(replay(&slower, "hop", &values, Some(&cost), 1.0, 17).is_err(), "edited seconds");
        values[rows[0].config][rows[0].budget as usize - 1] += 1e-12;
        assert!(replay(&picks, "hop", &values, Some(&cost), 1.0, 17).is_err(), "one value changed");
    }
}
