//! Lesson 1's sentences: what EI picked and saw, what the GP's band says, where EI (or, once
//! EI has collapsed, log-EI) is largest and why; at the last step, when the minimum was found
//! and how many evaluations an evenly spaced grid needs to come as close.

use crate::axis::count;
use crate::lessons::gp_ei::{forrester, frames, GpEiFrame, GpEiSetting, Origin, GRID, MAX_STEPS};
use crate::lessons::over_seeds::{OverSeeds, VERDICT_SEEDS};

use super::{ordinal, tiny, TINY};

/// A value counts as the minimum when it equals f's minimum to two decimals.
pub const FOUND_WITHIN: f64 = 0.005;

/// Forrester's minimum (x, f(x)), to 10⁻⁵ in x.
pub fn forrester_minimum() -> (f64, f64) {
    (0..=100_000).map(|i| i as f64 / 100_000.0).map(|x| (x, forrester(x))).fold((0.0, f64::INFINITY), |b, p| if p.1 < b.1 { p } else { b })
}

/// The first frame whose best observation is the minimum (to [`FOUND_WITHIN`]), if any.
pub fn found_at(frames: &[GpEiFrame]) -> Option<usize> {
    let (_, fmin) = forrester_minimum();
    frames.iter().position(|f| f.best.1 - fmin < FOUND_WITHIN)
}

/// The fewest points of an evenly spaced grid on [0, 1] (ends included) whose best value is
/// at most `y`: what a grid search must spend to do as well.
pub fn grid_points_to_reach(y: f64) -> usize {
    (2..=100_000).find(|&n| (0..n).any(|i| forrester(i as f64 / (n - 1) as f64) <= y)).unwrap_or(usize::MAX)
}

/// The first step from which EI stays collapsed to the end of `frames`, if it is at the end.
pub fn collapsed_since(frames: &[GpEiFrame]) -> Option<usize> {
    let last_open = frames.iter().rposition(|f| !f.ei_collapsed());
    match last_open {
        Some(k) if k + 1 == frames.len() => None,
        Some(k) => Some(k + 1),
        None => Some(0),
    }
}

/// A start's outcomes, as a race between finding the minimum and the budget running out.
pub const OUTCOMES: [&str; 2] = ["found within 30 steps", "missed"];

/// A start's scores: the step at which EI found the minimum (one more than the lesson's steps
/// when it never did), against the budget's end half a step after the last step; the first
/// wins when EI found it.
pub fn scores(frames: &[GpEiFrame]) -> Vec<f64> {
    vec![found_at(frames).unwrap_or(MAX_STEPS + 1) as f64, MAX_STEPS as f64 + 0.5]
}

/// A start in words, for the strip: where EI found the minimum.
pub fn describe(o: &OverSeeds, seed: u64) -> String {
    match o.scores.get(seed as usize).map(|s| s[0] as usize) {
        Some(k) if k <= MAX_STEPS => format!("random start {seed}: EI found the minimum at step {k}"),
        Some(_) => format!("random start {seed}: EI missed the minimum in {MAX_STEPS} steps"),
        None => String::new(),
    }
}

/// The setting over [`VERDICT_SEEDS`] random starts (its seed replaced by 0, 1, …), each run
/// as the lesson runs it.
pub fn over_seeds(setting: &GpEiSetting, seeds: std::ops::Range<u64>) -> crate::error::Result<OverSeeds> {
    OverSeeds::count(&OUTCOMES, 0.5, seeds, |seed| frames(&GpEiSetting { seed, step: 0, ..setting.clone() }, MAX_STEPS).map(|f| scores(&f)))
}

/// The count over starts in words: how often EI found the minimum, the median step and the
/// range; where `seed` stands.
pub fn over_seeds_sentence(o: &OverSeeds, seed: u64) -> String {
    let mut found: Vec<usize> = o.scores.iter().map(|s| s[0] as usize).filter(|&k| k <= MAX_STEPS).collect();
    found.sort_unstable();
    let n = o.scores.len();
    let typical = match (found.first(), found.last()) {
        (Some(lo), Some(hi)) => format!(", at step {} in the median (from {lo} to {hi})", found[(found.len() - 1) / 2]),
        _ => String::new(),
    };
    let this = match o.scores.get(seed as usize) {
        Some(s) if s[0] as usize > MAX_STEPS => format!(" Seed {seed} is one of the {} that missed it.", n - found.len()),
        Some(_) => String::new(),
        None => format!(" (Seed {seed} is not among the {n} counted.)"),
    };
    format!("Over {n} random starts of this setting, EI found the minimum within {MAX_STEPS} steps on {}{typical}.{this}", found.len())
}

/// The sentence of step `step`, whose frame is `frames[step]` (`frames` holds every frame up
/// to it at least; the last step's verdict reads them all) of the start `seed`; the last
/// step's ends with the count over starts once it is computed.
pub fn sentence(frames: &[GpEiFrame], step: usize, seed: u64, over: Option<&OverSeeds>) -> String {
    let f = &frames[step];
    let n = f.observations.len();
    let first = if step == 0 {
        let added = f.observations.iter().filter(|o| o.2 == Origin::Added).count();
        let yours = if added > 0 { format!(", {added} yours") } else { String::new() };
        format!("Step 0: {}, {} random{yours}.", count(n, "observation"), n - added)
    } else {
        let (x, y, _) = f.observations[n - 1];
        let before = frames[step - 1].best.1;
        let news = if y < before { ", a new best".to_string() } else { format!(", no better than the best, f = {before:.2}") };
        format!("Step {step}: EI picked x = {x:.3} and observed f = {y:.2}{news}.")
    };
    let ls = if f.fitted {
        format!("fitted lengthscale ℓ = {:.3}", f.lengthscale)
    } else {
        format!("lengthscale pinned at ℓ = {:.3}", f.lengthscale)
    };
    let model = format!("The GP ({ls}) {}.", f.band_reading());
    if step == MAX_STEPS && frames.len() > MAX_STEPS {
        let count = over.map_or_else(
            || format!("Counting how the same setting goes over {VERDICT_SEEDS} random starts…"),
            |o| over_seeds_sentence(o, seed),
        );
        return format!("{} {count}", verdict(&frames[..=MAX_STEPS]));
    }
    let i = grid_index(f.next.0);
    let acquisition = if f.ei_collapsed() {
        let most = if f.max_ei() < TINY { tiny(f.max_ei()) } else { format!("at most {}", tiny(f.max_ei())) };
        format!(
            "EI is tiny everywhere ({most}): the GP is sure nothing here beats the best, f = {:.2}. Its logarithm, drawn below, still ranks the points: the least hopeless is x = {:.3}, where log₁₀ EI is {:.1}.",
            f.best.1,
            f.next.0,
            f.log10_ei[grid_index(f.next.0)]
        )
    } else if f.mean[i] < f.best.1 {
        format!("EI is largest at x = {:.3}, where the mean itself is below the best so far, f = {:.2}.", f.next.0, f.best.1)
    } else if f.mean[i] - 2.0 * f.sd[i] < f.best.1 {
        format!(
            "EI is largest at x = {:.3}, where the mean is above the best so far, f = {:.2}, but the band is wide enough to reach below it.",
            f.next.0, f.best.1
        )
    } else {
        format!(
            "EI is largest at x = {:.3}: even the band stays above the best so far, f = {:.2}, but the small chance of beating it is the largest anywhere.",
            f.next.0, f.best.1
        )
    };
    format!("{first} {model} {acquisition}")
}

/// The last step: when the minimum was found and by which evaluation, against the grid that
/// comes as close; or how far the best is from the minimum; and since when EI has collapsed.
pub fn verdict(frames: &[GpEiFrame]) -> String {
    let last = &frames[frames.len() - 1];
    let (xmin, fmin) = forrester_minimum();
    let start = frames[0].observations.len();
    let mut out = match found_at(frames) {
        Some(k) => {
            let who = match last.observations.iter().find(|o| o.1 == frames[k].best.1).map(|o| o.2) {
                Some(Origin::Step(_)) | None => format!(
                    "EI found the minimum, f = {:.2} at x = {:.3}, at step {k}: the {} evaluation, counting the {} it started from",
                    frames[k].best.1,
                    frames[k].best.0,
                    ordinal(start + k),
                    count(start, "point")
                ),
                Some(Origin::Initial) => {
                    format!("A random start point already hit the minimum, f = {:.2} at x = {:.3}", frames[k].best.1, frames[k].best.0)
                }
                Some(Origin::Added) => format!("Your point at x = {:.3} hit the minimum, f = {:.2}", frames[k].best.0, frames[k].best.1),
            };
            let grid = grid_points_to_reach(frames[k].best.1);
            let compare = if grid > start + k {
                format!("the smallest evenly spaced grid that comes as close needs {grid} points: EI spends its evaluations where the GP promises improvement, a grid everywhere")
            } else {
                format!("here an evenly spaced grid of {grid} points comes as close: the minimum lies near a round x")
            };
            format!("After {MAX_STEPS} steps: {who}; {compare}.")
        }
        None => format!(
            "After {MAX_STEPS} steps EI's best is f = {:.2} at x = {:.3}, {:.2} above the minimum f = {fmin:.2} at x = {xmin:.3}: {}.",
            last.best.1,
            last.best.0,
            last.best.1 - fmin,
            if last.fitted { "the GP was sure of the wrong valley" } else { "a pinned lengthscale misled the GP" }
        ),
    };
    if let Some(c) = collapsed_since(frames) {
        out.push_str(&format!(" Since step {c}, EI is tiny everywhere: the GP is sure nothing here beats the best."));
    }
    out
}

/// The grid index of `x`, a grid point.
fn grid_index(x: f64) -> usize {
    ((x * (GRID - 1) as f64).round() as usize).min(GRID - 1)
}

#[cfg(test)]
mod tests {
    use super::super::{number_after, CLAIM_SEEDS};
    use super::*;
    use crate::lessons::gp_ei::{frames, GpEiSetting};

    /// Checks every claim of `text`, the sentence of frame `k`, against the frames.
    fn check(frames: &[GpEiFrame], k: usize, text: &str) -> Result<(), String> {
        let f = &frames[k];
        let range = f.observed_range();
        let fail = |what: &str| Err(format!("step {k}: {what} in «{text}»"));
        // No pick falls to a tie: log-EI's largest value is reached once.
        let top = f.log10_ei.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if f.log10_ei.iter().filter(|&&l| l == top).count() != 1 || f.log10_ei[grid_index(f.next.0)] != top {
            return fail("the pick is not log-EI's unique argmax");
        }
        if k > 0 && k < MAX_STEPS {
            let (x, y, origin) = *f.observations.last().unwrap();
            let said = (number_after(text, "EI picked x = "), number_after(text, "observed f = "));
            if said != (Some((x * 1e3).round() / 1e3), Some((y * 100.0).round() / 100.0))
                || origin != Origin::Step(k)
                || x != frames[k - 1].next.0
            {
                return fail("the pick and its value");
            }
            if text.contains("a new best") != (y < frames[k - 1].best.1) {
                return fail("'a new best'");
            }
        }
        // The band: measured at the points and half-way between neighbours.
        let sd_at = |x: f64| f.sd[grid_index(x)];
        let mut xs: Vec<f64> = f.observations.iter().map(|o| o.0).collect();
        xs.sort_by(f64::total_cmp);
        let between: Vec<f64> = xs.windows(2).map(|w| sd_at((w[0] + w[1]) / 2.0)).collect();
        let widest = f.sd.iter().copied().fold(0.0, f64::max);
        if text.contains("narrow between the points too") && between.iter().any(|&s| 4.0 * s > 0.08 * range) {
            return fail("a band called narrow between the points is wider than 8 % of the values' range there");
        }
        if text.contains("sure near the points and unsure between them") {
            let at = xs.iter().map(|&x| sd_at(x)).sum::<f64>() / xs.len() as f64;
            if at > 0.5 * widest || 4.0 * widest < 0.08 * range {
                return fail("the band is not narrow at the points and wide between them");
            }
        }
        let i = grid_index(f.next.0);
        if text.contains("EI is largest at x = ") {
            if number_after(text, "EI is largest at x = ") != Some((f.next.0 * 1e3).round() / 1e3) || f.max_ei() < 1e-3 * range {
                return fail("EI's largest value");
            }
            if text.contains("the mean itself is below the best") != (f.mean[i] < f.best.1) {
                return fail("the mean against the best");
            }
            if text.contains("wide enough to reach below it") != (f.mean[i] >= f.best.1 && f.mean[i] - 2.0 * f.sd[i] < f.best.1) {
                return fail("the band against the best");
            }
            if text.contains("even the band stays above") != (f.mean[i] - 2.0 * f.sd[i] >= f.best.1) {
                return fail("the band staying above the best");
            }
        }
        if text.contains("EI is tiny everywhere (") {
            // "at most 3e-12" bounds the largest EI to the digit shown; "below 1e-300" says it.
            let bound = match number_after(text, "(at most ") {
                Some(said) => said * 1.5,
                None if text.contains("(below 1e-300)") => TINY,
                None => return fail("no bound on EI"),
            };
            if f.max_ei() > 1e-3 * range
                || f.max_ei() >= bound
                || number_after(text, "least hopeless is x = ") != Some((f.next.0 * 1e3).round() / 1e3)
                || number_after(text, "where log₁₀ EI is ") != format!("{:.1}", f.log10_ei[i]).parse().ok()
            {
                return fail("a collapse of EI");
            }
        }
        if text.contains("0e0") {
            return fail("an underflowed value printed as 0e0");
        }
        if !text.contains("EI is largest") && !text.contains("EI is tiny") && !text.contains(&format!("After {MAX_STEPS} steps")) {
            return fail("no word on the acquisition");
        }
        Ok(())
    }

    /// Checks the last step's verdict: the step and evaluation that found the minimum, the grid.
    fn check_verdict(frames: &[GpEiFrame], text: &str) -> Result<(), String> {
        let (_, fmin) = forrester_minimum();
        let fail = |what: &str| Err(format!("verdict: {what} in «{text}»"));
        if let Some(k) = number_after(text, "at step ").map(|k| k as usize) {
            if !(frames[k].best.1 - fmin < FOUND_WITHIN && (k == 0 || frames[k - 1].best.1 - fmin >= FOUND_WITHIN)) {
                return fail("the step that found the minimum");
            }
            let start = frames[0].observations.len();
            if !text.contains(&format!("the {} evaluation", ordinal(start + k))) {
                return fail("the evaluation's number");
            }
            let n = number_after(text, "comes as close needs ").unwrap_or(f64::NAN) as usize;
            let best_of = |n: usize| (0..n).map(|i| forrester(i as f64 / (n - 1) as f64)).fold(f64::INFINITY, f64::min);
            if !(best_of(n) <= frames[k].best.1 && (2..n).all(|m| best_of(m) > frames[k].best.1)) || n <= start + k {
                return fail("the grid that comes as close");
            }
        } else if !text.contains("EI's best is f = ") {
            return fail("neither a found minimum nor the best");
        }
        if let Some(c) = number_after(text, "Since step ").map(|c| c as usize) {
            if !frames[c..].iter().all(GpEiFrame::ei_collapsed) || (c > 0 && frames[c - 1].ei_collapsed()) {
                return fail("the step since which EI is tiny");
            }
        }
        Ok(())
    }

    #[test]
    fn every_steps_sentence_is_true_to_its_frame() {
        // Lesson 1 as a class sees it: every claim seed fitted, a pinned lengthscale and points added.
        let mut settings: Vec<GpEiSetting> = (0..CLAIM_SEEDS).map(|seed| GpEiSetting { seed, ..GpEiSetting::default() }).collect();
        settings.push(GpEiSetting { lengthscale: Some(0.05), ..GpEiSetting::default() });
        settings.push(GpEiSetting { added: vec![0.2, 0.9], ..GpEiSetting::default() });
        let mut collapsed = 0;
        let mut scored = Vec::new();
        for s in &settings {
            let all = frames(s, MAX_STEPS).unwrap();
            scored.push(scores(&all));
            for k in 0..=MAX_STEPS {
                let text = sentence(&all, k, s.seed, None);
                check(&all, k, &text).unwrap_or_else(|e| panic!("{s:?}: {e}"));
                collapsed += usize::from(text.contains("EI is tiny everywhere"));
            }
            let last = sentence(&all, MAX_STEPS, s.seed, None);
            check_verdict(&all, &last).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        }
        // The collapse is part of the lesson: it must be said where it happens.
        assert!(collapsed > 0, "no step says EI collapsed");
        // The default start is the typical one of the default setting's starts.
        assert!(OUTCOMES[0].contains(&format!(" {MAX_STEPS} ")));
        let o = OverSeeds { names: OUTCOMES.map(String::from).to_vec(), tie: 0.5, scores: scored[..VERDICT_SEEDS as usize].to_vec() };
        eprintln!("{:?} typical {}", o.scores, o.typical_seed());
        assert_eq!(o.typical_seed(), GpEiSetting::default().seed);
        let mut steps: Vec<f64> = o.scores.iter().map(|s| s[0]).filter(|&k| k <= MAX_STEPS as f64).collect();
        steps.sort_by(f64::total_cmp);
        let text = over_seeds_sentence(&o, 0);
        assert!(
            text.contains(&format!(
                "on {}, at step {} in the median (from {} to {})",
                steps.len(),
                steps[(steps.len() - 1) / 2],
                steps[0],
                steps[steps.len() - 1]
            )),
            "{text}"
        );
    }

    #[test]
    fn the_default_lesson_ends_on_its_verdict() {
        let all = frames(&GpEiSetting::default(), MAX_STEPS).unwrap();
        let last = sentence(&all, MAX_STEPS, 0, None);
        eprintln!("{last}");
        assert!(last.contains("EI found the minimum") && last.contains("grid"), "{last}");
    }
}
