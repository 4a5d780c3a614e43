//! A lesson's verdict counted over seeds: one seed's race can go either way, so the last step
//! of a lesson that races methods says both what happened on the seed shown and how the same
//! race ends over [`VERDICT_SEEDS`] seeds, each run by the code that draws the lesson.
//!
//! Each contender gets a score per seed, lower better (a final loss, the evaluations it needed
//! to reach the minimum). On one seed the lowest score wins when it is lower than every other
//! by more than the lesson's tie (what its numbers show); over the seeds, the two contenders
//! with the lowest mean scores are compared by their paired differences, and a mean difference
//! inside two standard errors of those differences (the seeds' spread) is called a tie. The
//! typical seed, the one a lesson opens on, is the seed whose difference is the median: never
//! the one seed on which the underdog wins.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Seeds 0, 1, … over which a lesson's verdict is counted.
pub const VERDICT_SEEDS: u64 = 20;

/// Every contender's score on every seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverSeeds {
    /// The contenders, in the lesson's order.
    pub names: Vec<String>,
    /// Scores closer than this are a tie on a seed.
    pub tie: f64,
    /// Seed `s`'s scores (seeds 0, 1, …), one per contender, lower better.
    pub scores: Vec<Vec<f64>>,
}

/// Where the two leading contenders stand over the seeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// The contender with the lowest mean score.
    pub leader: usize,
    /// The one with the next lowest.
    pub runner_up: usize,
    /// The mean of the runner-up's score minus the leader's, over the seeds (≥ 0).
    pub mean: f64,
    /// Two standard errors of that mean: the seeds' spread.
    pub spread: f64,
}

impl Gap {
    /// Whether the leader's lead is inside the seeds' spread.
    pub fn is_tie(&self) -> bool {
        self.mean <= self.spread
    }
}

impl OverSeeds {
    /// Scores the seeds `seeds` (a part of 0 .. [`VERDICT_SEEDS`], so that workers can share
    /// the count) with `score`, the lesson's own.
    pub fn count(names: &[&str], tie: f64, seeds: Range<u64>, score: impl Fn(u64) -> Result<Vec<f64>>) -> Result<OverSeeds> {
        let scores = seeds.map(score).collect::<Result<Vec<_>>>()?;
        Ok(OverSeeds { names: names.iter().map(|n| n.to_string()).collect(), tie, scores })
    }

    /// The count of consecutive parts, in order: seeds 0, 1, … again.
    pub fn joined(parts: impl IntoIterator<Item = OverSeeds>) -> Option<OverSeeds> {
        let mut parts = parts.into_iter();
        let mut all = parts.next()?;
        for p in parts {
            all.scores.extend(p.scores);
        }
        Some(all)
    }

    /// Seed `seed`'s winner, `None` for a tie (or a seed not counted).
    pub fn winner(&self, seed: u64) -> Option<usize> {
        winner(self.scores.get(seed as usize)?, self.tie)
    }

    /// Each contender's wins.
    pub fn wins(&self) -> Vec<usize> {
        let mut wins = vec![0; self.names.len()];
        for s in 0..self.scores.len() as u64 {
            if let Some(w) = self.winner(s) {
                wins[w] += 1;
            }
        }
        wins
    }

    /// Seeds that are a tie.
    pub fn ties(&self) -> usize {
        self.scores.len() - self.wins().iter().sum::<usize>()
    }

    /// The two lowest mean scores, and how far apart against the seeds' spread.
    pub fn gap(&self) -> Gap {
        let n = self.scores.len() as f64;
        let mean = |c: usize| self.scores.iter().map(|s| s[c]).sum::<f64>() / n;
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| mean(a).total_cmp(&mean(b)).then(a.cmp(&b)));
        let (leader, runner_up) = (order[0], *order.get(1).unwrap_or(&order[0]));
        let d: Vec<f64> = self.scores.iter().map(|s| s[runner_up] - s[leader]).collect();
        let m = d.iter().sum::<f64>() / n;
        let var = if n > 1.0 { d.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        Gap { leader, runner_up, mean: m, spread: 2.0 * (var / n).sqrt() }
    }

    /// The seed whose difference between the two leaders (or, with one contender, whose
    /// score) is the median, the lower of the middle two; the smallest such seed: the typical
    /// case.
    pub fn typical_seed(&self) -> u64 {
        if self.names.len() == 1 {
            return self.median_seed(|s| s[0]);
        }
        let g = self.gap();
        self.typical_seed_of(g.leader, g.runner_up)
    }

    /// The typical seed of the contest between `a` and `b` (a lesson's own contrast): the one
    /// whose difference of their scores is the median.
    pub fn typical_seed_of(&self, a: usize, b: usize) -> u64 {
        self.median_seed(|s| s[b] - s[a])
    }

    fn median_seed(&self, margin: impl Fn(&[f64]) -> f64) -> u64 {
        let mut margins: Vec<f64> = self.scores.iter().map(|s| margin(s)).collect();
        margins.sort_by(f64::total_cmp);
        let median = margins[(margins.len() - 1) / 2];
        self.scores.iter().position(|s| margin(s) == median).unwrap_or(0) as u64
    }

    /// On how many seeds `a` beat `b` (by the tie or more), and `b` beat `a`.
    pub fn pairwise(&self, a: usize, b: usize) -> (usize, usize) {
        let beat = |x: usize, y: usize| self.scores.iter().filter(|s| s[y] - s[x] >= self.tie).count();
        (beat(a, b), beat(b, a))
    }

    /// The count in words: "Over 20 seeds, Hyperband ends lower on 14, DyHPO on 4, and 2 are
    /// ties; on average Hyperband's best curve ends 0.031 lower than DyHPO's, beyond the seeds'
    /// spread (±0.012)." `verb` says what a win is, `lead` says the leader's mean lead
    /// (leader, runner-up, the difference written) and `show` writes a difference of scores.
    pub fn sentence(&self, verb: &str, lead: impl Fn(&str, &str, &str) -> String, show: impl Fn(f64) -> String) -> String {
        let wins = self.wins();
        let mut order: Vec<usize> = (0..self.names.len()).filter(|&c| wins[c] > 0).collect();
        order.sort_by(|&a, &b| wins[b].cmp(&wins[a]).then(a.cmp(&b)));
        let mut parts: Vec<String> = order
            .iter()
            .enumerate()
            .map(|(i, &c)| format!("{}{} on {}", self.names[c], if i == 0 { format!(" {verb}") } else { String::new() }, wins[c]))
            .collect();
        match self.ties() {
            0 => {}
            1 => parts.push("1 is a tie".into()),
            t => parts.push(format!("{t} are ties")),
        }
        let listed = match parts.len() {
            0 => String::new(),
            1 => parts[0].clone(),
            k => format!("{}, and {}", parts[..k - 1].join(", "), parts[k - 1]),
        };
        let g = self.gap();
        let said = lead(&self.names[g.leader], &self.names[g.runner_up], &show(g.mean));
        let against = if g.is_tie() {
            format!("inside the seeds' spread (±{}): over seeds, a tie", show(g.spread))
        } else {
            format!("beyond the seeds' spread (±{})", show(g.spread))
        };
        format!("Over {} seeds, {listed}; {said}, {against}.", self.scores.len())
    }

    /// Where the seed shown stands among the counted ones, in words ("" when it is not one of
    /// them, or when it went the way most seeds went).
    pub fn shown_seed(&self, seed: u64) -> String {
        if seed as usize >= self.scores.len() {
            return format!(" (Seed {seed} is not among the {} counted.)", self.scores.len());
        }
        let g = self.gap();
        match self.winner(seed) {
            Some(w) if !g.is_tie() && w != g.leader => {
                let (name, like) = (&self.names[w], self.wins()[w]);
                if like == 1 {
                    format!(" Seed {seed} is the only one on which {name} wins.")
                } else {
                    format!(" Seed {seed} is one of the {like} on which {name} wins.")
                }
            }
            _ => String::new(),
        }
    }
}

/// What a lesson's last step says while its count over seeds is being computed (`what`: what
/// the seeds draw, "seeds" or "families of tasks").
pub fn counting(what: &str) -> String {
    format!("Counting how the same race ends over {VERDICT_SEEDS} {what}…")
}

/// The winner among `scores` (the lowest, by more than `tie` below every other), if any.
pub fn winner(scores: &[f64], tie: f64) -> Option<usize> {
    let best = (0..scores.len()).min_by(|&a, &b| scores[a].total_cmp(&scores[b]))?;
    scores.iter().enumerate().all(|(c, &s)| c == best || s - scores[best] >= tie).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(scores: Vec<Vec<f64>>) -> OverSeeds {
        OverSeeds { names: vec!["A".into(), "B".into(), "C".into()], tie: 0.5, scores }
    }

    #[test]
    fn seeds_are_won_by_more_than_the_tie_and_counted() {
        assert_eq!(winner(&[1.0, 2.0, 3.0], 0.5), Some(0));
        assert_eq!(winner(&[1.0, 1.4, 3.0], 0.5), None, "inside the tie");
        assert_eq!(winner(&[3.0, 1.0, 1.5], 0.5), Some(1), "a difference of exactly the tie counts");
        let o = made(vec![vec![1.0, 2.0, 9.0], vec![2.0, 1.0, 9.0], vec![1.0, 1.2, 9.0], vec![1.0, 3.0, 9.0]]);
        assert_eq!(o.wins(), vec![2, 1, 0]);
        assert_eq!(o.ties(), 1);
        assert_eq!(o.winner(9), None);
    }

    #[test]
    fn the_gap_is_the_paired_mean_against_two_standard_errors() {
        // B − A per seed: 1, −1, 0.2, 2 → mean 0.55, sd √(4.83 / 3) = 1.2689, two standard errors 1.2689.
        let o = made(vec![vec![1.0, 2.0, 9.0], vec![2.0, 1.0, 9.0], vec![1.0, 1.2, 9.0], vec![1.0, 3.0, 9.0]]);
        let g = o.gap();
        assert_eq!((g.leader, g.runner_up), (0, 1));
        assert!((g.mean - 0.55).abs() < 1e-12);
        let sd = ((0.45f64.powi(2) + 1.55f64.powi(2) + 0.35f64.powi(2) + 1.45f64.powi(2)) / 3.0).sqrt();
        assert!((g.spread - 2.0 * sd / 2.0).abs() < 1e-12, "{}", g.spread);
        assert!(g.is_tie(), "0.55 is inside ±1.27");
        // The same lead on every seed has no spread: a clear win.
        let clear = made(vec![vec![1.0, 2.0, 9.0]; 5]);
        assert!(!clear.gap().is_tie() && clear.gap().spread == 0.0);
        let lead = |l: &str, r: &str, d: &str| format!("on average {l}'s score is {d} better than {r}'s");
        let text = clear.sentence("ends lower", lead, |v| format!("{v:.1}"));
        assert_eq!(text, "Over 5 seeds, A ends lower on 5; on average A's score is 1.0 better than B's, beyond the seeds' spread (±0.0).");
        let text = o.sentence("ends lower", lead, |v| format!("{v:.2}"));
        assert_eq!(
            text,
            "Over 4 seeds, A ends lower on 2, B on 1, and 1 is a tie; on average A's score is 0.55 better than B's, inside the seeds' spread (±1.27): over seeds, a tie."
        );
    }

    #[test]
    fn parts_counted_apart_join_into_the_whole_count() {
        let score = |s: u64| Ok(vec![s as f64, 10.0 - s as f64]);
        let whole = OverSeeds::count(&["A", "B"], 0.5, 0..VERDICT_SEEDS, score).unwrap();
        let half = VERDICT_SEEDS / 2;
        let parts = [0..half, half..VERDICT_SEEDS].map(|r| OverSeeds::count(&["A", "B"], 0.5, r, score).unwrap());
        assert_eq!(OverSeeds::joined(parts), Some(whole));
        assert_eq!(OverSeeds::joined(Vec::new()), None);
    }

    #[test]
    fn the_typical_seed_has_the_median_difference() {
        // B − A: 1, −1, 0.2, 2, 0.2 → sorted −1, 0.2, 0.2, 1, 2: the median 0.2, first on seed 2.
        let o = made(vec![vec![1.0, 2.0, 9.0], vec![2.0, 1.0, 9.0], vec![1.0, 1.2, 9.0], vec![1.0, 3.0, 9.0], vec![1.0, 1.2, 9.0]]);
        assert_eq!(o.typical_seed(), 2);
        // Of an even count, the lower middle one.
        let even = made(vec![vec![0.0, 4.0, 9.0], vec![0.0, 1.0, 9.0], vec![0.0, 3.0, 9.0], vec![0.0, 2.0, 9.0]]);
        assert_eq!(even.typical_seed(), 3);
        // The seed shown is placed among the counted ones when it went against the count.
        // B − A: 2 on every seed but seed 2's −2: mean 1.5, two standard errors 1.0.
        let mut lopsided = made(vec![vec![1.0, 3.0, 9.0]; 8]);
        lopsided.scores[2] = vec![3.0, 1.0, 9.0];
        assert!(!lopsided.gap().is_tie());
        assert_eq!(lopsided.shown_seed(2), " Seed 2 is the only one on which B wins.");
        assert_eq!(lopsided.shown_seed(0), "");
        assert_eq!(lopsided.shown_seed(40), " (Seed 40 is not among the 8 counted.)");
        assert_eq!(lopsided.pairwise(0, 1), (7, 1));
        assert_eq!(lopsided.pairwise(2, 0), (0, 8));
        // A lesson's own contrast: A against C, whose differences are 8 but seed 2's 6.
        assert_eq!(lopsided.typical_seed_of(0, 2), 0);
        // B against A: 2 but seed 2's −2, and the other way round (medians 2 and −2, seed 0).
        assert_eq!(lopsided.typical_seed_of(0, 1), 0);
        assert_eq!(lopsided.typical_seed_of(1, 0), 0);
    }
}
