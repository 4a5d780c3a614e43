//! Lesson 4: multi-fidelity optimisation on the bundled crossing-curves family (Wistuba et
//! al. 2022, Fig. 1: fast starters end worse). With the same budget, DyHPO (§3, Alg. 1)
//! advances one configuration by one epoch per step, the one whose next epoch has the
//! largest multi-fidelity expected improvement EI_MF — measured against the best loss seen
//! *at that epoch* (Eq. 7), not the best overall, so that a young curve competes with young
//! curves. Hyperband (Li et al. 2018) instead runs fixed brackets of successive halving:
//! many configurations for a few epochs, the best third three times longer, and so on.
//!
//! Both methods are the registry's, with their defaults; DyHPO is the faithful one (its
//! scores recorded, [`crate::fidelity::dyhpo::DyHpo::recording`]). Frame k shows
//! both after k budget units (epochs) of training.

use serde::{Deserialize, Serialize};

use crate::bundled::crossing_curves_family;
use crate::error::Result;
use crate::fidelity::dyhpo::{incumbents_per_budget, DyHpo, StepScore};
use crate::fidelity::hyperband::{hyperband_schedule, Hyperband, ETA};
use crate::fidelity::runner::race_curves;
use crate::optimizer::job_rng;
use crate::race::{MultiFidelityOptimizer, Race};
use crate::stats::log_expected_improvement;

/// Budget units (epochs) each method spends: Hyperband's first bracket and the start of its
/// second.
pub const BUDGET: usize = 120;
/// The task the lesson opens on: the typical one of [`crate::lessons::over_seeds`]
/// (`sentences::multi_fidelity`'s test checks it).
pub const DEFAULT_SEED: u64 = 14;
/// The scores a frame keeps: the best few by EI_MF.
pub const TOP: usize = 6;

/// One DyHPO step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DyhpoStep {
    /// Configuration advanced and the epoch it reached.
    pub config: usize,
    /// See `config`.
    pub budget: u32,
    /// The one advanced (the largest EI_MF) and the next best [`TOP`] − 1 by log EI_MF
    /// ([`log10_ei`]); empty for the first, random, step.
    pub top: Vec<StepScore>,
    /// The best loss seen at each epoch before this step (`None`: nothing reached it yet).
    pub incumbents: Vec<Option<f64>>,
}

/// One Hyperband request: a configuration trained up to a rung's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HyperbandStep {
    /// Configuration and the epoch it reaches.
    pub config: usize,
    /// See `config`.
    pub budget: u32,
    /// Bracket (index into `schedule`) and rung.
    pub bracket: usize,
    /// See `bracket`.
    pub rung: usize,
    /// How many times the schedule has been run through before (0: the first pass).
    pub pass: usize,
}

/// Everything lesson 4 draws for one seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiFidelityFrames {
    /// The task's name.
    pub task: String,
    /// Every configuration's learning curve (loss after epoch 1, 2, …).
    pub curves: Vec<Vec<f64>>,
    /// DyHPO's steps, one per epoch.
    pub dyhpo: Vec<DyhpoStep>,
    /// Hyperband's requests until [`BUDGET`] epochs are spent (the last may be cut).
    pub hyperband: Vec<HyperbandStep>,
    /// Hyperband's brackets: (configurations, budget) per rung.
    pub schedule: Vec<Vec<(u32, u32)>>,
}

/// Runs both methods on task `seed mod 8` of the crossing-curves family, seeded by `seed`.
pub fn frames(seed: u64) -> Result<MultiFidelityFrames> {
    let bench = crossing_curves_family();
    let t = (seed % bench.tasks.len() as u64) as usize;
    let (curves, _) = race_curves(&bench, t)?;
    let candidates = bench.encoded_task(t);
    let max_budget = curves.iter().map(Vec::len).min().unwrap_or(0) as u32;
    let stream = format!("race/{}", bench.tasks[t].name);

    let mut dyhpo = DyHpo::new().recording();
    let mut rng = job_rng(seed, &stream);
    let mut race = Race::new(curves.len(), max_budget, BUDGET as u64);
    let mut steps = Vec::with_capacity(BUDGET);
    while race.remaining > 0 {
        let incumbents = incumbents_per_budget(&race);
        let r = dyhpo.next(&race, &candidates, &mut rng)?;
        let mut top = dyhpo.last_scores.take().unwrap_or_default();
        // The one advanced first (DyHPO's pick: the largest EI_MF, ties to the lowest number),
        // then the others by log EI_MF, which still ranks them where EI has underflowed to 0.
        top.sort_by(|a, b| log10_ei(b).total_cmp(&log10_ei(a)).then(a.config.cmp(&b.config)));
        if let Some(i) = top.iter().position(|t| t.config == r.config) {
            let advanced = top.remove(i);
            top.insert(0, advanced);
        }
        top.truncate(TOP);
        race.train(r.config, r.budget, &curves, 1.0);
        steps.push(DyhpoStep { config: r.config, budget: r.budget, top, incumbents });
    }

    let mut hyperband = Hyperband::new();
    let mut rng = job_rng(seed, &stream);
    let mut race = Race::new(curves.len(), max_budget, BUDGET as u64);
    let mut served: Vec<HyperbandStep> = Vec::new();
    while race.remaining > 0 {
        let r = hyperband.next(&race, &candidates, &mut rng)?;
        let (bracket, rung) = hyperband.position().unwrap_or((0, 0));
        let pass = match served.last() {
            Some(last) if (bracket, rung) < (last.bracket, last.rung) => last.pass + 1,
            Some(last) => last.pass,
            None => 0,
        };
        let to = r.budget.min(race.budget_of(r.config) + race.remaining as u32);
        race.train(r.config, to, &curves, 1.0);
        served.push(HyperbandStep { config: r.config, budget: to, bracket, rung, pass });
    }
    let schedule = hyperband_schedule(max_budget, ETA).iter().map(|b| b.iter().map(|r| (r.configs, r.budget)).collect()).collect();
    Ok(MultiFidelityFrames { task: bench.tasks[t].name.clone(), curves, dyhpo: steps, hyperband: served, schedule })
}

/// log₁₀ of a score's EI_MF, from the mean, sd and incumbent it was computed from: finite
/// where EI itself has underflowed to 0 (Ament et al. 2023), so that the lesson can say how
/// hopeless a step is and rank the candidates EI cannot.
pub fn log10_ei(s: &StepScore) -> f64 {
    if s.sd > 0.0 {
        log_expected_improvement(s.mean, s.sd, s.incumbent).0 / std::f64::consts::LN_10
    } else {
        s.ei.log10()
    }
}

/// Where a run stood after some epochs: the lowest loss at which one of its curves stands (the
/// loss after the last epoch trained: a curve is compared where it ends, not at an earlier
/// dip), how many configurations it had started, and how many epochs it had trained the one
/// standing lowest (what the last step's verdict says: more configurations tried, or the best
/// trained longer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tally {
    /// The lowest loss a curve stands at (infinite before the first epoch).
    pub best: f64,
    /// Configurations started.
    pub started: usize,
    /// Epochs trained of the configuration standing lowest.
    pub best_epochs: usize,
}

impl MultiFidelityFrames {
    /// DyHPO after `units` epochs.
    pub fn dyhpo_after(&self, units: usize) -> Tally {
        self.tally(trained_after(self.dyhpo.iter().map(|s| (s.config, s.budget)), units))
    }

    /// Hyperband after `units` epochs.
    pub fn hyperband_after(&self, units: usize) -> Tally {
        self.tally(trained_after(self.hyperband.iter().map(|h| (h.config, h.budget)), units))
    }

    fn tally(&self, trained: Vec<(usize, usize)>) -> Tally {
        let mut t = Tally { best: f64::INFINITY, started: trained.len(), best_epochs: 0 };
        for (c, len) in trained {
            let Some(&now) = self.curves[c][..len].last() else { continue };
            if now < t.best {
                t.best = now;
                t.best_epochs = len;
            }
        }
        t
    }
}

/// How far each configuration had trained after `units` epochs of a run that served
/// `requests` (configuration, budget reached) in order: (configuration, epochs) in the order
/// first trained. A request in progress at `units` counts its epochs done so far.
pub fn trained_after(requests: impl IntoIterator<Item = (usize, u32)>, units: usize) -> Vec<(usize, usize)> {
    let mut reached: Vec<(usize, usize)> = Vec::new();
    let mut left = units;
    for (config, budget) in requests {
        if left == 0 {
            break;
        }
        let slot = match reached.iter().position(|r| r.0 == config) {
            Some(i) => i,
            None => {
                reached.push((config, 0));
                reached.len() - 1
            }
        };
        let step = (budget as usize).saturating_sub(reached[slot].1).min(left);
        reached[slot].1 += step;
        left -= step;
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_methods_spend_the_budget_and_dyhpo_advances_its_best_score() {
        let f = frames(3).unwrap();
        assert_eq!(f.dyhpo.len(), BUDGET, "one epoch per DyHPO step");
        assert!(f.dyhpo[0].top.is_empty());
        for (k, s) in f.dyhpo.iter().enumerate().skip(1) {
            let first = s.top[0];
            assert_eq!((first.config, first.budget), (s.config, s.budget), "step {k} advances its best EI_MF");
            assert!(s.top.iter().all(|t| t.ei <= first.ei));
            assert!(s.top[1..].windows(2).all(|w| log10_ei(&w[0]) >= log10_ei(&w[1])));
            // Eq. 7: the incumbent of the budget when something reached it.
            if let Some(best) = s.incumbents[first.budget as usize - 1] {
                assert!((first.incumbent - best).abs() < 1e-12, "step {k}: {} vs {best}", first.incumbent);
            }
        }
        let spent: usize = trained_after(f.hyperband.iter().map(|h| (h.config, h.budget)), usize::MAX).iter().map(|r| r.1).sum();
        assert_eq!(spent, BUDGET);
        // Hyperband's first bracket: 27 configurations at its first rung.
        let (n, b) = f.schedule[0][0];
        assert_eq!(f.hyperband.iter().filter(|h| h.pass == 0 && h.bracket == 0 && h.rung == 0).count(), n as usize);
        assert!(f.hyperband.iter().filter(|h| h.bracket == 0 && h.rung == 0).all(|h| h.budget == b));
        assert_eq!(format!("{:?}", frames(3).unwrap()), format!("{f:?}"), "same seed, same frames");
    }

    #[test]
    fn recording_dyhpo_s_scores_does_not_change_its_picks() {
        let bench = crossing_curves_family();
        let (curves, _) = race_curves(&bench, 1).unwrap();
        let candidates = bench.encoded_task(1);
        let picks = |mut dyhpo: DyHpo| {
            let mut rng = job_rng(7, "race/test");
            let mut race = Race::new(curves.len(), 40, 25);
            let mut out = Vec::new();
            while race.remaining > 0 {
                let r = dyhpo.next(&race, &candidates, &mut rng).unwrap();
                race.train(r.config, r.budget, &curves, 1.0);
                out.push((r.config, r.budget, dyhpo.last_scores.is_some()));
            }
            out
        };
        let (plain, recorded) = (picks(DyHpo::new()), picks(DyHpo::new().recording()));
        let strip = |v: &[(usize, u32, bool)]| v.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>();
        assert_eq!(strip(&plain), strip(&recorded));
        assert!(plain.iter().all(|p| !p.2) && recorded[1..].iter().all(|p| p.2));
    }

    #[test]
    fn a_tally_counts_what_was_trained_and_where_the_lowest_loss_is() {
        let f = MultiFidelityFrames {
            task: "t".into(),
            curves: vec![vec![3.0, 2.0, 1.5], vec![2.5, 1.0, 0.5], vec![4.0, 4.0, 4.0]],
            dyhpo: Vec::new(),
            hyperband: [(0, 1), (1, 1), (2, 1), (1, 2)]
                .map(|(config, budget)| HyperbandStep { config, budget, bracket: 0, rung: 0, pass: 0 })
                .to_vec(),
            schedule: Vec::new(),
        };
        assert_eq!(f.hyperband_after(0), Tally { best: f64::INFINITY, started: 0, best_epochs: 0 });
        assert_eq!(f.hyperband_after(2), Tally { best: 2.5, started: 2, best_epochs: 1 });
        assert_eq!(f.hyperband_after(4), Tally { best: 1.0, started: 3, best_epochs: 2 });
        // A curve counts where it stands, not at an earlier dip: 0.5 then 2.0 stands at 2.0.
        let dip = MultiFidelityFrames {
            curves: vec![vec![0.5, 2.0], vec![1.5, 1.0]],
            hyperband: [(0, 2), (1, 2)].map(|(config, budget)| HyperbandStep { config, budget, bracket: 0, rung: 0, pass: 0 }).to_vec(),
            ..f
        };
        assert_eq!(dip.hyperband_after(4), Tally { best: 1.0, started: 2, best_epochs: 2 });
        let real = frames(3).unwrap();
        let end = real.dyhpo_after(BUDGET);
        assert!(end.best.is_finite() && end.started >= 1 && end.best_epochs >= 1);
    }

    #[test]
    fn trained_after_replays_partial_requests() {
        let requests = [(4, 2), (7, 1), (4, 5)];
        assert_eq!(trained_after(requests, 0), vec![]);
        assert_eq!(trained_after(requests, 1), vec![(4, 1)]);
        assert_eq!(trained_after(requests, 3), vec![(4, 2), (7, 1)]);
        assert_eq!(trained_after(requests, 5), vec![(4, 4), (7, 1)]);
        assert_eq!(trained_after(requests, 99), vec![(4, 5), (7, 1)]);
    }
}
