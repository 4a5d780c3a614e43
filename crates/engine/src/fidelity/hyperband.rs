//! Random search at full budget, Hyperband and ASHA in the race simulator — the baselines of
//! DyHPO (Wistuba et al. 2022, §4.3).
//!
//! **Hyperband** (Li et al. 2018, Alg. 1) with η = 3 and budgets 1..R: brackets
//! s = s_max, …, 0 with s_max = ⌊log_η R⌋, each a successive-halving run of
//! n = ⌈(s_max + 1)/(s + 1)·η^s⌉ fresh random configurations at budget R·η^{−s}, keeping the
//! best ⌊n_i/η⌋ at every rung and training them η times longer; brackets repeat until the
//! budget is spent. Budgets are rounded to the nearest integer (R = 81 gives the paper's
//! integers exactly). Promoted configurations resume where they paused.
//!
//! **ASHA** (Li et al. 2020, Alg. 2) with η = 3 and the rungs of Hyperband's most aggressive
//! bracket: whenever a decision is due, the highest rung with a configuration in its top 1/η
//! that has not been promoted yet promotes it one rung up; otherwise a fresh random
//! configuration starts at the lowest rung. Simulated with one worker (the race is sequential).
//!
//! References: Li, Jamieson, DeSalvo, Rostamizadeh, Talwalkar. *Hyperband: a novel
//! bandit-based approach to hyperparameter optimization*. JMLR 18, 2018. Li, Jamieson,
//! Rostamizadeh, Gonina, Ben-Tzur, Hardt, Recht, Talwalkar. *A system for massively parallel
//! hyperparameter tuning*. MLSys 2020.

use std::collections::VecDeque;

use crate::error::{EngineError, Result};
use crate::method_entry::{race_constructor, CostClass, MethodEntry, MethodKind, StepGrowth};
use crate::optimizer::{index_below, MethodRng};
use crate::race::{MultiFidelityOptimizer, Race, Request};

/// The halving rate of the papers.
pub const ETA: u32 = 3;

/// One rung of a bracket: how many configurations, at which budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rung {
    /// Configurations trained at this rung.
    pub configs: u32,
    /// Budget they reach.
    pub budget: u32,
}

/// s_max = ⌊log_η R⌋, computed exactly on integers.
pub fn s_max(max_budget: u32, eta: u32) -> u32 {
    let mut s = 0;
    let mut p = eta as u64;
    while p <= max_budget as u64 {
        s += 1;
        p *= eta as u64;
    }
    s
}

/// Budget of rung `i` of bracket `s`: R·η^{i−s}, rounded, at least 1.
pub fn rung_budget(max_budget: u32, eta: u32, s: u32, i: u32) -> u32 {
    let b = max_budget as f64 / (eta as f64).powi((s - i) as i32);
    (b.round() as u32).clamp(1, max_budget)
}

/// Hyperband's brackets, from the most aggressive (s = s_max) to plain random search (s = 0).
pub fn hyperband_schedule(max_budget: u32, eta: u32) -> Vec<Vec<Rung>> {
    let top = s_max(max_budget, eta);
    (0..=top)
        .rev()
        .map(|s| {
            let n = (((top + 1) as f64 / (s + 1) as f64) * (eta as f64).powi(s as i32)).ceil() as u32;
            (0..=s).map(|i| Rung { configs: n / eta.pow(i), budget: rung_budget(max_budget, eta, s, i) }).collect()
        })
        .collect()
}

fn fresh_config(race: &Race, rng: &mut MethodRng, method: &str) -> Result<usize> {
    let untouched: Vec<usize> = race.untouched().collect();
    if untouched.is_empty() {
        return Err(EngineError::Exhausted { method: method.into(), message: "every configuration has been started".into() });
    }
    Ok(untouched[index_below(rng, untouched.len())])
}

/// Loss of configuration `i` at budget `b` (which it must have reached).
fn loss_at(race: &Race, i: usize, b: u32) -> f64 {
    race.curves[i][b as usize - 1]
}

/// Random search: a fresh random configuration trained to the full budget each time.
#[derive(Debug, Clone, Default)]
pub struct FullBudgetRandomSearch;

impl MultiFidelityOptimizer for FullBudgetRandomSearch {
    fn next(&mut self, race: &Race, _: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request> {
        Ok(Request { config: fresh_config(race, rng, "RS")?, budget: race.max_budget })
    }
}

/// Chooses the configurations that start a Hyperband bracket: at random (Hyperband), from a
/// model (BOHB) or by evolution (DEHB).
pub trait ConfigSampler {
    /// A configuration never trained in `race` for a bracket whose first rung trains to
    /// `budget`; `None` when none is left.
    fn sample(&mut self, race: &Race, candidates: &[Vec<f64>], budget: u32, rng: &mut MethodRng) -> Option<usize>;
}

/// Uniformly among the configurations never trained.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomSampler;

impl ConfigSampler for RandomSampler {
    fn sample(&mut self, race: &Race, _: &[Vec<f64>], _: u32, rng: &mut MethodRng) -> Option<usize> {
        fresh_config(race, rng, "").ok()
    }
}

/// One bracket in progress: its index in the schedule, the rung it trains and that rung's
/// members, and the members' requests not handed out yet.
struct Bracket {
    index: usize,
    rung: usize,
    members: Vec<usize>,
    queue: VecDeque<Request>,
}

/// Hyperband (see the module docs), with random or model-based bracket starts.
///
/// With parallel workers (an ask/tell session; a simulated race trains one request at a time
/// and never gets here) a rung whose members are still in training cannot be decided; instead
/// of waiting, the next bracket of the schedule opens and hands out its first rung, as Syne
/// Tune's synchronous Hyperband does (`SynchronousHyperbandBracketManager.next_job`, Syne Tune
/// ≤ 0.13: the primary bracket first, then the other active ones, else a new bracket). Requests
/// come from the oldest active bracket that has one; each rung is still decided when all its
/// members are told. With one worker there is only ever one active bracket and the requests
/// are the paper's sequence.
pub struct Hyperband {
    name: &'static str,
    sampler: Box<dyn ConfigSampler>,
    /// Active brackets, oldest first.
    brackets: Vec<Bracket>,
    /// Schedule index of the next bracket to open.
    next_bracket: usize,
    /// (bracket, rung) of the request served last.
    last: Option<(usize, usize)>,
    schedule: Vec<Vec<Rung>>,
}

impl Default for Hyperband {
    fn default() -> Self {
        Self::new()
    }
}

impl Hyperband {
    /// Hyperband with η = 3.
    pub fn new() -> Self {
        Self::with_sampler(HYPERBAND.name, Box::new(RandomSampler))
    }

    /// Hyperband's schedule with another way of starting brackets (BOHB, DEHB).
    pub fn with_sampler(name: &'static str, sampler: Box<dyn ConfigSampler>) -> Self {
        Hyperband { name, sampler, brackets: Vec::new(), next_bracket: 0, last: None, schedule: Vec::new() }
    }

    /// Successive halving in bracket `k` whose queue is empty: keeps the best ⌊n/η⌋ of its
    /// rung and queues them at the next rung. False when the rung waits for members
    /// still in training, or when the bracket has no rung left (then it is complete).
    fn decide_rung(&mut self, k: usize, race: &Race) -> bool {
        let bracket = &mut self.brackets[k];
        let rungs = &self.schedule[bracket.index];
        if bracket.rung + 1 >= rungs.len() {
            return false;
        }
        // The rung is decided when all its members are told (synchronous, as in the paper);
        // a member whose training failed has no value at the rung and drops out of it.
        if bracket.members.iter().any(|&c| race.training[c]) {
            return false;
        }
        let budget = rungs[bracket.rung].budget;
        let mut ranked: Vec<usize> = bracket.members.iter().copied().filter(|&c| !race.failed[c]).collect();
        ranked.sort_by(|&a, &b| loss_at(race, a, budget).total_cmp(&loss_at(race, b, budget)).then(a.cmp(&b)));
        bracket.rung += 1;
        let next = rungs[bracket.rung];
        ranked.truncate((next.configs as usize).max(1));
        bracket.members = ranked;
        bracket.queue = bracket
            .members
            .iter()
            .filter(|&&c| race.budget_of(c) < next.budget)
            .map(|&c| Request { config: c, budget: next.budget })
            .collect();
        true
    }

    /// Opens the next bracket of the schedule with fresh configurations at its first rung.
    fn open_bracket(&mut self, race: &Race, candidates: &[Vec<f64>], rng: &mut MethodRng) -> Result<()> {
        let index = self.next_bracket;
        self.next_bracket = (index + 1) % self.schedule.len();
        let first = self.schedule[index][0];
        let mut members = Vec::with_capacity(first.configs as usize);
        // Configurations chosen for this bracket are marked as started (with a placeholder
        // curve only the sampler's "never trained" test looks at).
        let mut scratch = race.clone();
        for _ in 0..first.configs {
            let Some(c) = self.sampler.sample(&scratch, candidates, first.budget, rng) else { break };
            scratch.curves[c].push(f64::NAN);
            members.push(c);
        }
        if members.is_empty() {
            return Err(EngineError::Exhausted { method: self.name.into(), message: "every configuration has been started".into() });
        }
        let queue = members.iter().map(|&c| Request { config: c, budget: first.budget }).collect();
        self.brackets.push(Bracket { index, rung: 0, members, queue });
        Ok(())
    }
}

impl Hyperband {
    /// The bracket (index into [`hyperband_schedule`]) and rung of the request served last.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.last
    }
}

impl MultiFidelityOptimizer for Hyperband {
    fn next(&mut self, race: &Race, candidates: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request> {
        if self.schedule.is_empty() {
            self.schedule = hyperband_schedule(race.max_budget, ETA);
        }
        loop {
            // The oldest bracket with a request to hand out or a rung to decide serves.
            let mut k = 0;
            while k < self.brackets.len() {
                if let Some(r) = self.brackets[k].queue.pop_front() {
                    self.last = Some((self.brackets[k].index, self.brackets[k].rung));
                    return Ok(r);
                }
                if self.decide_rung(k, race) {
                    continue;
                }
                let b = &self.brackets[k];
                if b.rung + 1 >= self.schedule[b.index].len() {
                    // Its last rung is handed out: the bracket is complete.
                    self.brackets.remove(k);
                } else {
                    k += 1; // its rung waits for members in training
                }
            }
            self.open_bracket(race, candidates, rng)?;
        }
    }
}

/// ASHA (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Asha {
    rungs: Vec<u32>,
}

impl Asha {
    /// ASHA with η = 3.
    pub fn new() -> Self {
        Self::default()
    }
}

impl MultiFidelityOptimizer for Asha {
    fn next(&mut self, race: &Race, _: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request> {
        if self.rungs.is_empty() {
            let s = s_max(race.max_budget, ETA);
            self.rungs = (0..=s).map(|i| rung_budget(race.max_budget, ETA, s, i)).collect();
            self.rungs.dedup();
        }
        for k in (0..self.rungs.len().saturating_sub(1)).rev() {
            let (here, up) = (self.rungs[k], self.rungs[k + 1]);
            let mut reached: Vec<usize> = (0..race.curves.len()).filter(|&i| race.budget_of(i) >= here).collect();
            reached.sort_by(|&a, &b| loss_at(race, a, here).total_cmp(&loss_at(race, b, here)).then(a.cmp(&b)));
            let top = reached.len() / ETA as usize;
            // A configuration whose training failed keeps its place in the rungs it reached,
            // as one already promoted does, and is never promoted.
            if let Some(&c) = reached[..top].iter().find(|&&i| race.budget_of(i) < up && race.can_advance(i)) {
                return Ok(Request { config: c, budget: up });
            }
        }
        Ok(Request { config: fresh_config(race, rng, ASHA.name)?, budget: self.rungs[0] })
    }
}

/// Registry entry: random search in a race.
pub const RS_FULL_BUDGET: MethodEntry = MethodEntry {
    name: "RS",
    summary: "Random search: fresh random configurations, each trained to the full budget",
    paper: "Wistuba, Kadra & Grabocka 2022, §4.3 (baseline)",
    cost: CostClass::Instant,
    kind: MethodKind::Race { build: race_constructor(|_| Box::new(FullBudgetRandomSearch)), step: StepGrowth::Flat },
};

/// Registry entry.
pub const HYPERBAND: MethodEntry = MethodEntry {
    name: "Hyperband",
    summary: "Hyperband, η = 3 (Li et al. 2018)",
    paper: "Li et al. 2018, Alg. 1; a baseline of Wistuba et al. 2022, §4.3",
    cost: CostClass::Instant,
    kind: MethodKind::Race {
        build: race_constructor(|name| Box::new(Hyperband::with_sampler(name, Box::new(RandomSampler)))),
        step: StepGrowth::Flat,
    },
};

/// Registry entry.
pub const ASHA: MethodEntry = MethodEntry {
    name: "ASHA",
    summary: "Asynchronous successive halving, η = 3 (Li et al. 2020)",
    paper: "Li et al. 2020, Alg. 2; a baseline of Wistuba et al. 2022, §4.3",
    cost: CostClass::Instant,
    kind: MethodKind::Race { build: race_constructor(|_| Box::new(Asha::new())), step: StepGrowth::Flat },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fidelity::run_race;
    use rand::SeedableRng;

    #[test]
    fn schedule_for_r81_eta3_is_the_published_table() {
        // Li et al. (2018), Table 1: (n_i, r_i) per bracket for R = 81, η = 3.
        let expected: Vec<Vec<(u32, u32)>> = vec![
            vec![(81, 1), (27, 3), (9, 9), (3, 27), (1, 81)],
            vec![(34, 3), (11, 9), (3, 27), (1, 81)],
            vec![(15, 9), (5, 27), (1, 81)],
            vec![(8, 27), (2, 81)],
            vec![(5, 81)],
        ];
        let got: Vec<Vec<(u32, u32)>> =
            hyperband_schedule(81, 3).into_iter().map(|b| b.into_iter().map(|r| (r.configs, r.budget)).collect()).collect();
        assert_eq!(got, expected);
        assert_eq!(s_max(51, 3), 3);
        assert_eq!(hyperband_schedule(51, 3)[0].iter().map(|r| r.budget).collect::<Vec<_>>(), vec![2, 6, 17, 51]);
    }

    /// Curves whose final value is the configuration's index: the best configurations are
    /// known, and early values are noisy enough to make halving pick wrongly sometimes.
    fn toy(n: usize, steps: usize) -> Vec<Vec<f64>> {
        (0..n).map(|i| (1..=steps).map(|s| i as f64 + 50.0 * ((i * 7919 + s * 104_729) % 13) as f64 / s as f64).collect()).collect()
    }

    #[test]
    fn hyperband_first_bracket_follows_successive_halving() {
        let values = toy(200, 81);
        let candidates = vec![vec![0.0]; 200];
        let mut rng = MethodRng::seed_from_u64(3);
        // With pause/resume the first bracket costs 81·1 + 27·2 + 9·6 + 3·18 + 1·54 = 297 units.
        let total = 297;
        let rows =
            run_race(&mut Hyperband::new(), "Hyperband", &candidates, &values, None, 1.0, total, &mut rng, &|| 0.0, &mut |_| true).unwrap();
        let per_budget = |b: u32| rows.iter().filter(|r| r.budget == b).count();
        assert_eq!([1, 3, 9, 27, 81].map(per_budget), [81, 27, 9, 3, 1]);
        assert_eq!(rows.last().unwrap().spent, total);
        // Every promotion is among the best of the rung below.
        let at = |c: usize, b: u32| values[c][b as usize - 1];
        for (lower, upper) in [(1u32, 3u32), (3, 9), (9, 27), (27, 81)] {
            let below: Vec<usize> = rows.iter().filter(|r| r.budget == lower).map(|r| r.config).collect();
            let promoted: Vec<usize> = rows.iter().filter(|r| r.budget == upper).map(|r| r.config).collect();
            let worst_promoted = promoted.iter().map(|&c| at(c, lower)).fold(f64::NEG_INFINITY, f64::max);
            let better_left_behind = below.iter().filter(|c| !promoted.contains(c)).filter(|&&c| at(c, lower) < worst_promoted).count();
            assert_eq!(better_left_behind, 0, "rung {lower} → {upper}");
        }
    }

    #[test]
    fn asha_promotes_only_from_the_top_third_and_respects_the_budget() {
        let values = toy(300, 27);
        let candidates = vec![vec![0.0]; 300];
        let mut rng = MethodRng::seed_from_u64(5);
        let rows = run_race(&mut Asha::new(), "ASHA", &candidates, &values, None, 1.0, 600, &mut rng, &|| 0.0, &mut |_| true).unwrap();
        assert_eq!(rows.last().unwrap().spent, 600);
        assert!(rows.iter().any(|r| r.budget == 27), "something reached the top rung");
        // Replay: at each promotion, the promoted configuration was in the top 1/3 of its rung.
        let mut reached: Vec<u32> = vec![0; 300];
        for r in &rows {
            let from = reached[r.config];
            if from > 0 {
                let rung: Vec<usize> = (0..300).filter(|&i| reached[i] >= from).collect();
                let mine = values[r.config][from as usize - 1];
                let better = rung.iter().filter(|&&i| values[i][from as usize - 1] < mine).count();
                assert!(better < rung.len() / 3, "promoted from rank {better} of {}", rung.len());
            }
            reached[r.config] = r.budget;
        }
    }

    #[test]
    fn random_search_trains_fresh_configurations_to_the_end() {
        let values = toy(50, 10);
        let mut rng = MethodRng::seed_from_u64(1);
        let rows =
            run_race(&mut FullBudgetRandomSearch, "RS", &vec![vec![0.0]; 50], &values, None, 1.0, 95, &mut rng, &|| 0.0, &mut |_| true)
                .unwrap();
        assert_eq!(rows.len(), 10);
        assert!(rows[..9].iter().all(|r| r.budget == 10) && rows[9].budget == 5, "the last run is cut to the 5 units left");
        let mut seen: Vec<usize> = rows.iter().map(|r| r.config).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 10);
    }
}
