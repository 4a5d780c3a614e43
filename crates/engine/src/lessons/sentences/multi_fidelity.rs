//! Lesson 4's sentences: which configuration DyHPO advances next, its predicted loss, the
//! incumbent at that epoch and the expected improvement; at the last step which method ends
//! lower and why, from what each spent its epochs on, and how the race ends over seeds.

use crate::axis::count;
use crate::fidelity::dyhpo::StepScore;
use crate::lessons::multi_fidelity::{frames, log10_ei, MultiFidelityFrames, Tally, BUDGET};
use crate::lessons::over_seeds::{counting, OverSeeds};

use super::{tiny, TINY};

/// Losses closer than this count as a tie (three decimals, as shown).
pub const TIE: f64 = 5e-4;

/// The contenders, in the order of their scores.
pub const CONTENDERS: [&str; 2] = ["DyHPO", "Hyperband"];

/// A seed's scores: where each method's best curve stands once the budget is spent.
pub fn scores(f: &MultiFidelityFrames) -> Vec<f64> {
    vec![f.dyhpo_after(BUDGET).best, f.hyperband_after(BUDGET).best]
}

/// The race over [`VERDICT_SEEDS`] seeds, each run as the lesson runs it.
pub fn over_seeds(seeds: std::ops::Range<u64>) -> crate::error::Result<OverSeeds> {
    OverSeeds::count(&CONTENDERS, TIE, seeds, |seed| frames(seed).map(|f| scores(&f)))
}

/// The count over seeds in words, with where `seed` stands among them.
pub fn over_seeds_sentence(o: &OverSeeds, seed: u64) -> String {
    let lead = |l: &str, r: &str, d: &str| format!("on average {l}'s best curve ends {d} lower than {r}'s");
    format!("{}{}", o.sentence("ends lower", lead, |v| format!("{v:.3}")), o.shown_seed(seed))
}

/// The sentence after `step` epochs of seed `seed`; the last step's ends with the count over
/// seeds once it is computed.
pub fn sentence(f: &MultiFidelityFrames, step: usize, seed: u64, over: Option<&OverSeeds>) -> String {
    let Some(s) = f.dyhpo.get(step).filter(|s| !s.top.is_empty()) else {
        return if step == 0 {
            "DyHPO starts with one random configuration for one epoch: EI needs an observation.".to_string()
        } else {
            format!("{} {}", verdict(f), over.map_or_else(|| counting("seeds"), |o| over_seeds_sentence(o, seed)))
        };
    };
    let t = s.top[0];
    let versus = if t.budget == 1 {
        "a new configuration, compared with the best first epoch seen".to_string()
    } else {
        format!("configuration {} from epoch {} to {}", t.config, t.budget - 1, t.budget)
    };
    // Eq. 7: the incumbent at that epoch, or the best at any epoch when none has reached it.
    // Written from the frame's losses, not from `t.incumbent`, which went through the model's
    // standardisation and back and can round to the other side of a third decimal.
    let against = match s.incumbents[t.budget as usize - 1] {
        Some(best) => format!("the best loss any configuration reached at epoch {} is {best:.3}", t.budget),
        None => format!(
            "no configuration has reached epoch {} yet, so it is compared with the best loss at any epoch, {:.3}",
            t.budget,
            s.incumbents.iter().flatten().copied().fold(f64::INFINITY, f64::min)
        ),
    };
    let improvement = if t.ei == 0.0 {
        // Every EI_MF is 0 (this one is the largest): DyHPO's tie rule decides.
        let rival = s.top.get(1).filter(|o| log10_ei(o) > log10_ei(&t)).map_or(String::new(), |o| {
            format!("; by log EI the least hopeless is configuration {} at epoch {} (log₁₀ EI {:.0})", o.config, o.budget, log10_ei(o))
        });
        format!(
            "so its expected improvement is {}, as is every candidate's: the model is sure no next epoch beats its incumbent. EI cannot rank them, so DyHPO takes the lowest-numbered configuration it can advance{rival}.",
            ei_shown(&t)
        )
    } else if t.ei < SHOWN_TO {
        format!("so the expected improvement is only {}, yet the largest of all candidates.", ei_shown(&t))
    } else {
        format!("so the expected improvement is {} — the largest of all candidates.", ei_shown(&t))
    };
    format!("After {step} epochs, DyHPO's next step advances {versus}. Its model predicts a loss of {:.3} ± {:.3} there; {against}, {improvement}", t.mean, 2.0 * t.sd)
}

/// The smallest EI_MF four decimals show.
pub const SHOWN_TO: f64 = 5e-5;

/// EI_MF as the lesson writes it (sentence, table, numbers): four decimals while they show
/// it, then its order of magnitude, and once it has underflowed its log₁₀ (how hopeless).
pub fn ei_shown(t: &StepScore) -> String {
    if t.ei >= SHOWN_TO {
        format!("{:.4}", t.ei)
    } else if t.ei >= TINY {
        tiny(t.ei)
    } else {
        format!("{} (log₁₀ EI {:.0})", tiny(t.ei), log10_ei(t))
    }
}

/// The last step in words: which method's best curve ends lower (each curve where it stands
/// after its last epoch), and why, from what each spent its epochs on (configurations
/// started, epochs given to its best one).
pub fn verdict(f: &MultiFidelityFrames) -> String {
    let (d, h) = (f.dyhpo_after(BUDGET), f.hyperband_after(BUDGET));
    let how = |name: &str, t: Tally| {
        format!("{name} started {} and trained its best for {}", count(t.started, "configuration"), count(t.best_epochs, "epoch"))
    };
    if (d.best - h.best).abs() < TIE {
        return format!(
            "All {BUDGET} epochs spent, and on this task a tie: both best curves end at {:.3}. {}; {}.",
            d.best,
            how("DyHPO", d),
            how("Hyperband", h)
        );
    }
    let ((winner, w), (loser, l)) = if d.best < h.best { (("DyHPO", d), ("Hyperband", h)) } else { (("Hyperband", h), ("DyHPO", d)) };
    let why = match (w.started > l.started, w.best_epochs > l.best_epochs) {
        (true, true) => format!("{winner} both tried more configurations and trained its best one longer"),
        (true, false) => "here trying more configurations found a better one than training fewer for longer".to_string(),
        (false, true) => "here training the promising configurations longer paid more than trying more of them".to_string(),
        (false, false) if winner == "DyHPO" => {
            "DyHPO started fewer configurations, chosen by its model's predictions, and one of them ends lower".to_string()
        }
        (false, false) => "Hyperband started no more configurations, yet drew a better one: on this task chance decided".to_string(),
    };
    format!(
        "All {BUDGET} epochs spent: on this task {winner} ends lower, its best curve at {:.3} against {:.3} for {loser}'s. {}; {}: {why}.",
        w.best,
        l.best,
        how(winner, w),
        how(loser, l)
    )
}

#[cfg(test)]
mod tests {
    use super::super::{number_after, CLAIM_SEEDS};
    use super::*;
    use crate::lessons::multi_fidelity::{trained_after, DEFAULT_SEED};
    use crate::lessons::over_seeds::VERDICT_SEEDS;

    fn check(f: &MultiFidelityFrames, k: usize, text: &str) -> Result<(), String> {
        let fail = |what: &str| Err(format!("step {k}: {what} in «{text}»"));
        if let Some(s) = f.dyhpo.get(k).filter(|s| !s.top.is_empty()) {
            let t = s.top[0];
            // The one advanced is the largest EI_MF of the step, and the numbers are its own.
            if (t.config, t.budget) != (s.config, s.budget) || s.top.iter().any(|o| o.ei > t.ei) {
                return fail("the step does not advance its largest EI_MF");
            }
            let from = trained_after(f.dyhpo.iter().map(|d| (d.config, d.budget)), k).iter().find(|r| r.0 == t.config).map_or(0, |r| r.1);
            if from + 1 != t.budget as usize || text.contains("a new configuration") != (from == 0) {
                return fail("the epoch it advances from");
            }
            if number_after(text, "predicts a loss of ") != format!("{:.3}", t.mean).parse().ok() {
                return fail("the prediction");
            }
            // EI_MF: its digits while they show, never "0.0000 — the largest", never "0e0".
            if t.ei >= SHOWN_TO && number_after(text, "so the expected improvement is ") != format!("{:.4}", t.ei).parse().ok() {
                return fail("the expected improvement");
            }
            if text.contains("0.0000") || text.contains("0e0") {
                return fail("an expected improvement that reads as nothing");
            }
            if text.contains("EI cannot rank them") != (t.ei == 0.0) {
                return fail("a tie of every EI at 0");
            }
            if t.ei == 0.0 {
                // The tie goes to the lowest-numbered configuration that can still advance.
                let trained = trained_after(f.dyhpo.iter().map(|d| (d.config, d.budget)), k);
                let epochs = |c: usize| trained.iter().find(|r| r.0 == c).map_or(0, |r| r.1);
                let max = f.curves[0].len();
                if (0..t.config).any(|c| epochs(c) < max) || number_after(text, "(log₁₀ EI ") != format!("{:.0}", log10_ei(&t)).parse().ok()
                {
                    return fail("the tie rule");
                }
                if let Some(c) = number_after(text, "least hopeless is configuration ") {
                    let o = s.top[1];
                    if c != o.config as f64 || s.top.iter().any(|x| log10_ei(x) > log10_ei(&o)) || log10_ei(&o) <= log10_ei(&t) {
                        return fail("the least hopeless by log EI");
                    }
                }
            }
            let b = t.budget as usize;
            let overall = s.incumbents.iter().flatten().copied().fold(f64::INFINITY, f64::min);
            match s.incumbents[b - 1] {
                Some(best) => {
                    if (t.incumbent - best).abs() > 1e-9 {
                        return fail("DyHPO's incumbent is the best loss at that epoch");
                    }
                    if number_after(text, &format!("at epoch {b} is ")) != format!("{best:.3}").parse().ok() {
                        return fail("the incumbent at that epoch");
                    }
                }
                None => {
                    if !text.contains(&format!("no configuration has reached epoch {b} yet"))
                        || (t.incumbent - overall).abs() > 1e-9
                        || number_after(text, "best loss at any epoch, ") != format!("{overall:.3}").parse().ok()
                    {
                        return fail("the incumbent when no configuration has reached that epoch");
                    }
                }
            }
        } else if k == BUDGET {
            let (d, h) = (f.dyhpo_after(BUDGET), f.hyperband_after(BUDGET));
            let winner = if text.contains("on this task DyHPO ends lower") {
                Some(true)
            } else if text.contains("on this task Hyperband ends lower") {
                Some(false)
            } else {
                None
            };
            match winner {
                Some(dy) if dy != (d.best < h.best) || (d.best - h.best).abs() < TIE => return fail("the winner"),
                None if (d.best - h.best).abs() >= TIE => return fail("a tie"),
                _ => {}
            }
            for (name, t) in [("DyHPO", d), ("Hyperband", h)] {
                let said = text.split(&format!("{name} started ")).nth(1).ok_or("a method's tally")?;
                if number_after(said, "") != Some(t.started as f64)
                    || number_after(said, "trained its best for ") != Some(t.best_epochs as f64)
                {
                    return fail(&format!("{name}'s tally"));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn every_steps_sentence_is_true_to_its_frame_and_the_default_seed_is_typical() {
        let mut scored = Vec::new();
        for seed in 0..CLAIM_SEEDS {
            let f = frames(seed).unwrap();
            for k in 0..=BUDGET {
                check(&f, k, &sentence(&f, k, seed, None)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            }
            // The seed's verdict and the count agree on who won it.
            let s = scores(&f);
            let said = CONTENDERS.iter().position(|n| verdict(&f).contains(&format!("on this task {n} ends lower")));
            assert_eq!(said, crate::lessons::over_seeds::winner(&s, TIE), "seed {seed}: {}", verdict(&f));
            scored.push(s);
        }
        // The count as `over_seeds` makes it, from the same scores.
        let o = OverSeeds { names: CONTENDERS.map(String::from).to_vec(), tie: TIE, scores: scored[..VERDICT_SEEDS as usize].to_vec() };
        // The count the page shows from the build is this one (tests/lesson_counts.rs writes it).
        assert!(
            crate::lessons::kept_counts::kept_whole("multi-fidelity").as_ref() == Some(&o),
            "kept_counts.json is not what the lesson counts now (HPO_BLESS=1 cargo test --test lesson_counts writes it)"
        );
        let g = o.gap();
        eprintln!("{o:?}\n{g:?} typical {}", o.typical_seed());
        assert_eq!(o.typical_seed(), DEFAULT_SEED, "the lesson opens on the typical seed");
        if !g.is_tie() {
            assert_eq!(o.winner(DEFAULT_SEED), Some(g.leader), "the default seed goes the way most seeds go");
        }
        let f = frames(DEFAULT_SEED).unwrap();
        let last = sentence(&f, BUDGET, DEFAULT_SEED, Some(&o));
        let wins = o.wins();
        let most = (0..2).max_by_key(|&c| (wins[c], std::cmp::Reverse(c))).unwrap();
        for c in (0..2).filter(|&c| wins[c] > 0) {
            let said = if c == most {
                format!("{} ends lower on {}", CONTENDERS[c], wins[c])
            } else {
                format!("{} on {}", CONTENDERS[c], wins[c])
            };
            assert!(last.contains(&said), "{said} in «{last}»");
        }
        assert!(last.contains(&format!("(±{:.3})", g.spread)) && last.contains(&format!("{:.3} lower than", g.mean)), "«{last}»");
        assert_eq!(last.contains("over seeds, a tie"), g.is_tie(), "«{last}»");
    }
}
