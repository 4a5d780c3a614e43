//! Lesson 1's sentences: what the acquisition picked and saw, what the GP's band says, why the
//! acquisition chose that point (EI and PI by their logarithm once they are tiny everywhere,
//! UCB's bound, Thompson sampling's draw), the student's guess against the pick; at the last
//! step, when the minimum was found and how many evaluations an evenly spaced grid needs to
//! come as close, and how the same setting goes over random starts.

use crate::axis::count;
use crate::lessons::gp_ei::{frames, grid, Acquisition, GpEiFrame, GpEiSetting, Objective, Origin, GRID, MAX_STEPS};
use crate::lessons::over_seeds::{OverSeeds, VERDICT_SEEDS};

use super::{ordinal, tiny, TINY};

/// On Forrester's function a value counts as the minimum when it equals f's minimum to two
/// decimals; on another function, within the same share of its range.
pub const FOUND_WITHIN: f64 = 0.005;

/// A guess counts as right within this distance of the pick.
pub const GUESS_WITHIN: f64 = 0.05;

/// How close to `objective`'s minimum a value must be to count as finding it:
/// [`FOUND_WITHIN`] scaled by the function's range against Forrester's, and never closer than
/// the grid's best point comes (the picks are grid points; a narrow well's bottom may fall
/// between two).
pub fn found_within(objective: &Objective) -> f64 {
    let xs = grid();
    let scaled = FOUND_WITHIN * objective.range_on(&xs) / Objective::Forrester.range_on(&xs);
    let grid_best = xs.iter().map(|&x| objective.value(x)).fold(f64::INFINITY, f64::min);
    scaled.max(grid_best - objective.minimum().1 + 1e-12)
}

/// The first frame by which some evaluated point's true value is the minimum (to
/// [`found_within`]), if any; with noise an observation may look better than it is, so the
/// truth at the point decides.
pub fn found_at(objective: &Objective, frames: &[GpEiFrame]) -> Option<usize> {
    let (_, fmin) = objective.minimum();
    let within = found_within(objective);
    frames.iter().position(|f| f.observations.iter().any(|o| objective.value(o.0) - fmin < within))
}

/// The fewest points of an evenly spaced grid on [0, 1] (ends included) whose best value is
/// at most `y`: what a grid search must spend to do as well.
pub fn grid_points_to_reach(objective: &Objective, y: f64) -> usize {
    (2..=100_000).find(|&n| (0..n).any(|i| objective.value(i as f64 / (n - 1) as f64) <= y)).unwrap_or(usize::MAX)
}

/// The first step from which EI or PI stays tiny everywhere to the end of `frames`, if it is
/// at the end.
pub fn collapsed_since(frames: &[GpEiFrame]) -> Option<usize> {
    let last_open = frames.iter().rposition(|f| !f.collapsed());
    match last_open {
        Some(k) if k + 1 == frames.len() => None,
        Some(k) => Some(k + 1),
        None => Some(0),
    }
}

/// A start's outcomes, as a race between finding the minimum and the budget running out.
pub const OUTCOMES: [&str; 2] = ["found within 30 steps", "missed"];

/// A start's scores: the step at which the minimum was found (one more than the lesson's
/// steps when it never was), against the budget's end half a step after the last step; the
/// first wins when the minimum was found.
pub fn scores(objective: &Objective, frames: &[GpEiFrame]) -> Vec<f64> {
    vec![found_at(objective, frames).unwrap_or(MAX_STEPS + 1) as f64, MAX_STEPS as f64 + 0.5]
}

/// A start in words, for the strip: where the minimum was found.
pub fn describe(o: &OverSeeds, seed: u64) -> String {
    match o.scores.get(seed as usize).map(|s| s[0] as usize) {
        Some(k) if k <= MAX_STEPS => format!("random start {seed}: the minimum found at step {k}"),
        Some(_) => format!("random start {seed}: the minimum missed in {MAX_STEPS} steps"),
        None => String::new(),
    }
}

/// The setting over [`VERDICT_SEEDS`] random starts (its seed replaced by 0, 1, …), each run
/// as the lesson runs it.
pub fn over_seeds(setting: &GpEiSetting, seeds: std::ops::Range<u64>) -> crate::error::Result<OverSeeds> {
    OverSeeds::count(&OUTCOMES, 0.5, seeds, |seed| {
        frames(&GpEiSetting { seed, step: 0, ..setting.clone() }, MAX_STEPS).map(|f| scores(&setting.objective, &f))
    })
}

/// The count over starts in words: how often `who` found the minimum, the median step and
/// the range; where `seed` stands.
pub fn over_seeds_sentence(o: &OverSeeds, who: &str, seed: u64) -> String {
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
    format!("Over {n} random starts of this setting, {who} found the minimum within {MAX_STEPS} steps on {}{typical}.{this}", found.len())
}

/// The sentence of step `step` of `setting`, whose frame is `frames[step]` (`frames` holds
/// every frame up to it at least; the last step's verdict reads them all); the last step's
/// ends with the count over starts once it is computed.
pub fn sentence(setting: &GpEiSetting, frames: &[GpEiFrame], step: usize, over: Option<&OverSeeds>) -> String {
    let f = &frames[step];
    let who = f.acquisition.short();
    let n = f.observations.len();
    let first = if step == 0 {
        let added = f.observations.iter().filter(|o| o.2 == Origin::Added).count();
        let yours = if added > 0 { format!(", {added} yours") } else { String::new() };
        format!("Step 0: {}, {} random{yours}.", count(n, "observation"), n - added)
    } else {
        let (x, y, _) = f.observations[n - 1];
        let before = frames[step - 1].best.1;
        let seen = if setting.noise > 0.0 {
            format!("observed y = {y:.2} (f there is {:.2}; the rest is noise)", setting.objective.value(x))
        } else {
            format!("observed f = {y:.2}")
        };
        let news = if y < before { ", a new best".to_string() } else { format!(", no better than the best, {before:.2}") };
        format!("Step {step}: {who} picked x = {x:.3} and {seen}{news}.{}", guess_said(setting, frames, step))
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
            |o| over_seeds_sentence(o, who, setting.seed),
        );
        return format!("{} {count}", verdict(setting, &frames[..=MAX_STEPS]));
    }
    format!("{first} {model} {}", why(f))
}

/// Why the acquisition picks the next point, read off the frame.
fn why(f: &GpEiFrame) -> String {
    let i = grid_index(f.next.0);
    let (x, best) = (f.next.0, f.best.1);
    match f.acquisition {
        Acquisition::Ei | Acquisition::Pi if f.collapsed() => {
            let name = f.acquisition.short();
            let most = if f.best_acq() < TINY { tiny(f.best_acq()) } else { format!("at most {}", tiny(f.best_acq())) };
            format!(
                "{name} is tiny everywhere ({most}): the GP is sure nothing here beats the best, {best:.2}. Its logarithm, drawn below, still ranks the points: the least hopeless is x = {x:.3}, where log₁₀ {name} is {:.1}.",
                f.log10_acq[i]
            )
        }
        Acquisition::Ei => {
            if f.mean[i] < best {
                format!("EI is largest at x = {x:.3}, where the mean itself is below the best so far, {best:.2}.")
            } else if f.mean[i] - 2.0 * f.sd[i] < best {
                format!("EI is largest at x = {x:.3}, where the mean is above the best so far, {best:.2}, but the band is wide enough to reach below it.")
            } else {
                format!("EI is largest at x = {x:.3}: even the band stays above the best so far, {best:.2}, but the small chance of beating it is the largest anywhere.")
            }
        }
        Acquisition::Pi => format!(
            "PI is largest at x = {x:.3}: the GP gives a {} chance that f there is below the best so far, {best:.2}. PI counts the chance, not the size of the gain.",
            percent(f.acq[i])
        ),
        Acquisition::Ucb(k) => {
            let lowest_mean = unevaluated(f).map(|j| f.mean[j]).fold(f64::INFINITY, f64::min);
            let reason = if f.mean[i] == lowest_mean {
                format!("where the mean itself is lowest: with κ = {k} the bound exploits what the GP believes")
            } else {
                format!("not where the mean is lowest ({lowest_mean:.2}) but where the band is wide (sd {:.2}): with κ = {k} the bound explores", f.sd[i])
            };
            format!("The bound μ − κ·sd, drawn below, is lowest at x = {x:.3}, at {:.2}, {reason}.", f.acq[i])
        }
        Acquisition::Thompson => {
            let lowest_mean = unevaluated(f).map(|j| f.mean[j]).fold(f64::INFINITY, f64::min);
            let reason = if f.mean[i] - lowest_mean <= f.sd[i] {
                "near where the mean is lowest: this draw agrees with the GP's best guess"
            } else {
                "away from where the mean is lowest: a draw dips wherever the band is wide enough, and each step draws anew"
            };
            format!("One function drawn from the GP's belief, drawn below, is lowest at x = {x:.3}, {reason}.")
        }
    }
}

/// The grid points not yet evaluated.
fn unevaluated(f: &GpEiFrame) -> impl Iterator<Item = usize> + '_ {
    (0..GRID).filter(|&j| !f.observations.iter().any(|o| o.0 == f.x[j]))
}

/// A probability as a class reads it: "over 99 %", "37 %", "0.4 %", "below 0.1 %".
fn percent(p: f64) -> String {
    if p >= 0.995 {
        "over 99 %".to_string()
    } else if p >= 0.1 {
        format!("{:.0} %", 100.0 * p)
    } else if p >= 0.001 {
        format!("{:.1} %", 100.0 * p)
    } else {
        "below 0.1 %".to_string()
    }
}

/// In the guessing mode, the student's guess for step `step` against the pick.
fn guess_said(setting: &GpEiSetting, frames: &[GpEiFrame], step: usize) -> String {
    if !setting.guessing {
        return String::new();
    }
    let pick = frames[step - 1].next.0;
    match setting.guesses.get(step - 1).copied().flatten() {
        Some(g) if (g - pick).abs() <= GUESS_WITHIN => format!(" You guessed x = {g:.3}: right, {:.3} away.", (g - pick).abs()),
        Some(g) => format!(" You guessed x = {g:.3}, {:.3} away.", (g - pick).abs()),
        None => " You did not guess this one.".to_string(),
    }
}

/// The student's guesses so far in words: how many of them fell within [`GUESS_WITHIN`] of
/// the pick, up to step `upto`.
pub fn guesses_tally(setting: &GpEiSetting, frames: &[GpEiFrame], upto: usize) -> Option<String> {
    let guessed: Vec<(f64, f64)> =
        setting.guesses.iter().zip(frames.iter().take(upto)).filter_map(|(g, f)| Some(((*g)?, f.next.0))).collect();
    if !setting.guessing || guessed.is_empty() {
        return None;
    }
    let right = guessed.iter().filter(|(g, p)| (g - p).abs() <= GUESS_WITHIN).count();
    Some(format!("Your guesses: {right} of {} within {GUESS_WITHIN} of the pick.", guessed.len()))
}

/// The last step: when the minimum was found and by which evaluation, against the grid that
/// comes as close; or how far the best is from the minimum; and since when EI or PI has
/// collapsed.
pub fn verdict(setting: &GpEiSetting, frames: &[GpEiFrame]) -> String {
    let objective = &setting.objective;
    let last = &frames[frames.len() - 1];
    let who = last.acquisition.short();
    let (xmin, fmin) = objective.minimum();
    let start = frames[0].observations.len();
    let true_best = |f: &GpEiFrame| {
        f.observations.iter().map(|o| (o.0, objective.value(o.0), o.2)).fold((f64::NAN, f64::INFINITY, Origin::Initial), |b, o| {
            if o.1 < b.1 {
                o
            } else {
                b
            }
        })
    };
    let mut out = match found_at(objective, frames) {
        Some(k) => {
            let (x, y, origin) = true_best(&frames[k]);
            let who = match origin {
                Origin::Step(_) => format!(
                    "{who} found the minimum, f = {y:.2} at x = {x:.3}, at step {k}: the {} evaluation, counting the {} it started from",
                    ordinal(start + k),
                    count(start, "point")
                ),
                Origin::Initial => format!("A random start point already hit the minimum, f = {y:.2} at x = {x:.3}"),
                Origin::Added => format!("Your point at x = {x:.3} hit the minimum, f = {y:.2}"),
            };
            let grid = grid_points_to_reach(objective, y);
            let compare = if grid > start + k {
                format!("the smallest evenly spaced grid that comes as close needs {grid} points: {who_short} spends its evaluations where the GP promises improvement, a grid everywhere", who_short = last.acquisition.short())
            } else {
                format!("here an evenly spaced grid of {grid} points comes as close: the minimum lies near a round x")
            };
            format!("After {MAX_STEPS} steps: {who}; {compare}.")
        }
        None => {
            let (x, y, _) = true_best(last);
            format!(
                "After {MAX_STEPS} steps {who}'s best is f = {y:.2} at x = {x:.3}, {:.2} above the minimum f = {fmin:.2} at x = {xmin:.3}: {}.",
                y - fmin,
                if !last.fitted {
                    "a pinned lengthscale misled the GP"
                } else if *objective == Objective::NarrowWell {
                    "the well is too narrow for the GP to suspect it"
                } else {
                    "the GP was sure of the wrong valley"
                }
            )
        }
    };
    if let Some(c) = collapsed_since(frames) {
        out.push_str(&format!(" Since step {c}, {who} is tiny everywhere: the GP is sure nothing here beats the best."));
    }
    if let Some(t) = guesses_tally(setting, frames, MAX_STEPS) {
        out.push(' ');
        out.push_str(&t);
    }
    out
}

/// The grid index of `x`, a grid point.
fn grid_index(x: f64) -> usize {
    ((x * (GRID - 1) as f64).round() as usize).min(GRID - 1)
}

#[cfg(test)]
mod tests;
