//! Lesson 4's sentences: which configuration DyHPO advances next, its predicted loss, the
//! incumbent at that epoch and the expected improvement; at the last step which method ends
//! lower and why, from what each spent its epochs on.

use crate::axis::count;
use crate::lessons::multi_fidelity::{MultiFidelityFrames, Tally, BUDGET};

/// Losses closer than this count as a tie (three decimals, as shown).
pub const TIE: f64 = 5e-4;

/// The sentence after `step` epochs.
pub fn sentence(f: &MultiFidelityFrames, step: usize) -> String {
    match f.dyhpo.get(step).and_then(|s| s.top.first().copied()) {
        None if step == 0 => "DyHPO starts with one random configuration for one epoch: EI needs an observation.".to_string(),
        None => verdict(f),
        Some(t) => {
            let versus = if t.budget == 1 {
                "a new configuration, compared with the best first epoch seen".to_string()
            } else {
                format!("configuration {} from epoch {} to {}", t.config, t.budget - 1, t.budget)
            };
            format!(
                "After {step} epochs, DyHPO's next step advances {versus}. Its model predicts a loss of {:.3} ± {:.3} there; the best loss any configuration reached at epoch {} is {:.3}, so the expected improvement is {:.4} — the largest of all candidates.",
                t.mean,
                2.0 * t.sd,
                t.budget,
                t.incumbent,
                t.ei
            )
        }
    }
}

/// The last step in words: which method ends with the lower loss, and why, from what each
/// spent its epochs on (configurations started, epochs given to its best one).
pub fn verdict(f: &MultiFidelityFrames) -> String {
    let (d, h) = (f.dyhpo_after(BUDGET), f.hyperband_after(BUDGET));
    let how = |name: &str, t: Tally| {
        format!("{name} started {} and trained its best for {}", count(t.started, "configuration"), count(t.best_epochs, "epoch"))
    };
    if (d.best - h.best).abs() < TIE {
        return format!("All {BUDGET} epochs spent, and a tie: both end at {:.3}. {}; {}.", d.best, how("DyHPO", d), how("Hyperband", h));
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
        "All {BUDGET} epochs spent: {winner} ends lower, {:.3} against {:.3} for {loser}. {}; {}: {why}.",
        w.best,
        l.best,
        how(winner, w),
        how(loser, l)
    )
}

/// Whether a task shows the lesson's point: DyHPO ends lower than Hyperband on the same
/// epochs, by more than a tie.
pub fn shows_the_contrast(f: &MultiFidelityFrames) -> bool {
    let (d, h) = (f.dyhpo_after(BUDGET), f.hyperband_after(BUDGET));
    d.best < h.best - TIE
}

#[cfg(test)]
mod tests {
    use super::super::number_after;
    use super::*;
    use crate::lessons::multi_fidelity::{frames, trained_after, DEFAULT_SEED};

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
            let said = (number_after(text, "predicts a loss of "), number_after(text, "so the expected improvement is "));
            if said != (Some((t.mean * 1e3).round() / 1e3), Some((t.ei * 1e4).round() / 1e4)) {
                return fail("the prediction and EI");
            }
            if let Some(best) = s.incumbents[t.budget as usize - 1] {
                if number_after(text, &format!("at epoch {} is ", t.budget)) != Some((best * 1e3).round() / 1e3) {
                    return fail("the incumbent at that epoch");
                }
            }
        } else if k == BUDGET {
            let (d, h) = (f.dyhpo_after(BUDGET), f.hyperband_after(BUDGET));
            let winner = if text.contains("DyHPO ends lower") {
                Some(true)
            } else if text.contains("Hyperband ends lower") {
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
    fn every_steps_sentence_is_true_to_its_frame() {
        for seed in [DEFAULT_SEED, 3] {
            let f = frames(seed).unwrap();
            for k in 0..=BUDGET {
                check(&f, k, &sentence(&f, k)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            }
        }
    }

    #[test]
    fn the_default_seed_is_the_first_that_shows_the_contrast() {
        let first = (0..16).find(|&s| {
            let f = frames(s).unwrap();
            eprintln!("seed {s}: {:?} {:?}", f.dyhpo_after(BUDGET), f.hyperband_after(BUDGET));
            shows_the_contrast(&f)
        });
        assert_eq!(first, Some(DEFAULT_SEED));
    }
}
