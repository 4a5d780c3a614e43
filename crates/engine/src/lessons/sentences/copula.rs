//! Lesson 2's sentences: the value that arrived, its F̃, ψ and standardised value; the GP
//! against GCP line of each step; at the last step the verdict: how many evaluations each
//! needed to reach the minimum, and why ψ helped (or did not), read from what the two models
//! saw after their random start.

use crate::lessons::copula::{versus, CopulaFrame, Versus, MAX_STEPS};
use crate::lessons::over_seeds::{counting, OverSeeds};
use crate::lessons::steps::{best_so_far, Pick};
use crate::stats::normal_quantile;

/// Random evaluations both methods start with (the registry's default).
pub const RANDOM_START: usize = 5;

/// The first sentence of a step: the value that arrived and where ψ and Δ put it.
pub fn values_sentence(f: &CopulaFrame, step: usize) -> String {
    let n = f.ys.len();
    let cap = normal_quantile(1.0 - f.delta);
    let newest = if step > 0 {
        let i = n - f.added - 1;
        format!(
            "Step {step}: y = {} arrived; F̃(y) = {:.3}, so ψ(y) = {:.2}, while standardised it is {:.2}. ",
            f.ys[i],
            f.ecdf.iter().find(|e| e.0 == f.ys[i]).map_or(f64::NAN, |e| e.1),
            f.psi[i],
            f.standardized[i]
        )
    } else {
        format!("Step 0: {n} values. ")
    };
    format!("{newest}With N = {n}, δ_N = {:.3}: ψ never goes beyond ±{cap:.2}, however extreme a value is.", f.delta)
}

/// The sentence of a step: the values', and at the last step the verdict on GP against GCP
/// once their runs are computed, then the count over seeds once it is.
pub fn sentence(f: &CopulaFrame, step: usize, versus: Option<&Versus>, seed: u64, over: Option<&OverSeeds>) -> String {
    match versus {
        Some(v) if step >= MAX_STEPS => {
            format!("{} {}", verdict(v), over.map_or_else(|| counting("seeds"), |o| over_seeds_sentence(o, seed)))
        }
        _ => values_sentence(f, step),
    }
}

/// The contenders, in the order of their scores.
pub const CONTENDERS: [&str; 2] = ["GP", "GCP"];

/// A seed's scores: the evaluation at which each method reached the minimum, one more than
/// the lesson's evaluations when it never did.
pub fn scores(v: &Versus) -> Vec<f64> {
    let at = |p: &[Pick]| evaluations_to_minimum(v, p).unwrap_or(MAX_STEPS + 1) as f64;
    vec![at(&v.gp), at(&v.gcp)]
}

/// GP against GCP over [`VERDICT_SEEDS`] seeds, each run as the lesson runs it.
pub fn over_seeds(seeds: std::ops::Range<u64>) -> crate::error::Result<OverSeeds> {
    OverSeeds::count(&CONTENDERS, 0.5, seeds, |seed| versus(seed).map(|v| scores(&v)))
}

/// The count over seeds in words, with where `seed` stands among them.
pub fn over_seeds_sentence(o: &OverSeeds, seed: u64) -> String {
    let lead = |l: &str, r: &str, d: &str| {
        format!("on average {l} reaches it {d} evaluations sooner than {r} (never counts as {})", MAX_STEPS + 1)
    };
    format!("{}{}", o.sentence("reaches the minimum first", lead, |v| format!("{v:.1}")), o.shown_seed(seed))
}

/// A best value counts as the minimum when it shows the same to three decimals.
pub const SHOWN_AS_MINIMUM: f64 = 5e-4;

/// The evaluation at which `picks` first reached the grid's minimum as shown (to
/// [`SHOWN_AS_MINIMUM`]), if ever.
pub fn evaluations_to_minimum(v: &Versus, picks: &[Pick]) -> Option<usize> {
    let optimum = v.y.iter().copied().fold(f64::INFINITY, f64::min);
    best_so_far(picks, &v.y).iter().position(|&b| b - optimum < SHOWN_AS_MINIMUM)
}

/// The line under the two models at `step`: each method's best so far against the minimum.
pub fn versus_line(v: &Versus, step: usize) -> String {
    let k = step.min(v.gp.len() - 1);
    let best = |picks: &[Pick]| best_so_far(&picks[..=k], &v.y)[k];
    let show = |b: f64| if b.is_finite() { format!("{b:.3}") } else { "—".into() };
    let optimum = v.y.iter().copied().fold(f64::INFINITY, f64::min);
    format!(
        "after {k} evaluations: best found by GP {}, by GCP {} (the function's minimum {optimum:.3})",
        show(best(&v.gp)),
        show(best(&v.gcp))
    )
}

/// How the two models saw the random start's values: the spread of all but the largest,
/// standardised (GP) and under ψ (GCP), and the largest value.
pub fn start_spreads(v: &Versus) -> (f64, f64, f64) {
    let spread_but_largest = |z: &[f64]| {
        let mut s = z.to_vec();
        s.sort_by(f64::total_cmp);
        s[s.len() - 2] - s[0]
    };
    let (g, c) = (v.gp[RANDOM_START].belief.as_ref(), v.gcp[RANDOM_START].belief.as_ref());
    let largest = v.gp[RANDOM_START].evaluated.iter().map(|&i| v.y[i]).fold(f64::NEG_INFINITY, f64::max);
    (g.map_or(f64::NAN, |b| spread_but_largest(&b.observed)), c.map_or(f64::NAN, |b| spread_but_largest(&b.observed)), largest)
}

/// The last step: evaluations to the minimum, GCP against GP, and why.
pub fn verdict(v: &Versus) -> String {
    let optimum = v.y.iter().copied().fold(f64::INFINITY, f64::min);
    let at = |p: &[Pick]| evaluations_to_minimum(v, p);
    let show = |e: Option<usize>| e.map_or(format!("never in {MAX_STEPS}"), |e| format!("at evaluation {e}"));
    let (gp, gcp) = (at(&v.gp), at(&v.gcp));
    let (sd, psi, largest) = start_spreads(v);
    let head = format!("After {MAX_STEPS} evaluations: GCP reached the minimum, {optimum:.3}, {}; GP {}.", show(gcp), show(gp));
    // Whether ψ spread the values standardising squeezed: the reason GCP can win, true on
    // some seeds only (when no value of the random start stands far out, it is not).
    let spread = psi > sd;
    let why = if spread {
        format!(
            "after the {RANDOM_START} random points, standardising squeezed all but the largest value ({largest:.0}) into {sd:.2} standard units, while ψ spread them over {psi:.2}"
        )
    } else {
        format!(
            "after the {RANDOM_START} random points no value stood far out (the largest was {largest:.0}): standardising left all but it {sd:.2} standard units apart, ψ only {psi:.2}"
        )
    };
    match (gcp, gp) {
        (Some(c), g) if g.is_none_or(|g| c < g) => {
            if spread {
                format!("{head} GCP wins: {why}: GCP's model could tell the valleys apart, GP's saw them nearly flat.")
            } else {
                format!("{head} GCP wins, though not by ψ's spread: {why}; its EI happened to reach the valley first.")
            }
        }
        (Some(c), Some(g)) if c == g => format!("{head} A tie on this seed: {why}; both found the valley at the same evaluation."),
        (None, None) => format!("{head} Neither found it on this seed: {why}."),
        _ if spread => format!("{head} GP wins on this seed: {why}, but ranks also hide how deep a dip is, and GP's EI found it first."),
        _ => format!("{head} GP wins on this seed: {why}, so GP's model saw the valleys as clearly, and its EI found the minimum first."),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{number_after, CLAIM_SEEDS};
    use super::*;
    use crate::lessons::copula::{frame, versus, CopulaSetting, DEFAULT_SEED};
    use crate::lessons::over_seeds::VERDICT_SEEDS;

    fn check(f: &CopulaFrame, v: &Versus, k: usize, text: &str) -> Result<(), String> {
        let fail = |what: &str| Err(format!("step {k}: {what} in «{text}»"));
        if k < MAX_STEPS {
            let n = f.ys.len() - f.added;
            if k > 0 {
                let y = f.ys[n - 1];
                let standardised = (y - f.ys.iter().sum::<f64>() / f.ys.len() as f64)
                    / (f.ys.iter().map(|v| (v - f.ys.iter().sum::<f64>() / f.ys.len() as f64).powi(2)).sum::<f64>() / f.ys.len() as f64)
                        .sqrt();
                if number_after(text, "while standardised it is ") != Some((standardised * 100.0).round() / 100.0) {
                    return fail("the standardised value");
                }
                // ψ(y) = Φ⁻¹(F̃(y)), F̃ the rank share clipped to [δ_N, 1 − δ_N].
                let rank = f.ys.iter().filter(|&&o| o <= y).count() as f64 / f.ys.len() as f64;
                let psi = normal_quantile(rank.clamp(f.delta, 1.0 - f.delta));
                if (number_after(text, "so ψ(y) = ").unwrap_or(f64::NAN) - psi).abs() > 0.006 {
                    return fail("ψ of the new value");
                }
            }
            let cap = number_after(text, "beyond ±").unwrap_or(f64::NAN);
            if f.psi.iter().any(|p| p.abs() > cap + 0.005) {
                return fail("a ψ beyond the cap");
            }
            return Ok(());
        }
        let (gp, gcp) = (evaluations_to_minimum(v, &v.gp), evaluations_to_minimum(v, &v.gcp));
        let said = |who: &str| text.split(&format!("{who} ")).find_map(|s| number_after(s, "at evaluation ")).map(|e| e as usize);
        if said("minimum, 0.049,").or(said("GCP reached the minimum,")) != gcp && gcp.is_some() {
            return fail("GCP's evaluation");
        }
        if gp.is_some() && number_after(text.split("; GP ").nth(1).unwrap_or(""), "at evaluation ").map(|e| e as usize) != gp {
            return fail("GP's evaluation");
        }
        if text.contains("GCP wins") != gcp.is_some_and(|c| gp.is_none_or(|g| c < g)) {
            return fail("the winner");
        }
        // The spreads: recomputed from the observations both models saw after the random start.
        let ys: Vec<f64> = v.gp[RANDOM_START].evaluated.iter().map(|&i| v.y[i]).collect();
        let z = crate::warping::standardize(&ys);
        let mut rest: Vec<f64> = z.clone();
        rest.sort_by(f64::total_cmp);
        let spread = rest[rest.len() - 2] - rest[0];
        let mut psi: Vec<f64> = crate::warping::CopulaWarp::fit(&ys).transform(&ys);
        psi.sort_by(f64::total_cmp);
        let psi_spread = psi[psi.len() - 2] - psi[0];
        let said_spread = number_after(text, "into ").or(number_after(text, "but it ")).unwrap_or(f64::NAN);
        if (said_spread - spread).abs() > 0.006 {
            return fail("the standardised spread");
        }
        let said_psi = number_after(text, "spread them over ").or(number_after(text, "ψ only ")).unwrap_or(f64::NAN);
        if (said_psi - psi_spread).abs() > 0.006 {
            return fail("ψ's spread");
        }
        // "squeezed … while ψ spread them" only where ψ's spread is the larger.
        if text.contains("squeezed") != (psi_spread > spread) || text.contains("could tell the valleys apart") && psi_spread <= spread {
            return fail("why: the spreads say the opposite");
        }
        Ok(())
    }

    #[test]
    fn every_steps_sentence_is_true_to_its_frame_and_the_default_seed_is_typical() {
        let mut scored = Vec::new();
        for seed in 0..CLAIM_SEEDS {
            let v = versus(seed).unwrap();
            for k in 0..=MAX_STEPS {
                let f = frame(&CopulaSetting { step: k, seed, ..CopulaSetting::default() }).unwrap();
                check(&f, &v, k, &sentence(&f, k, Some(&v), seed, None)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            }
            // The seed's verdict and the count agree on who won it.
            let s = scores(&v);
            let said = if verdict(&v).contains("GCP wins") {
                Some(1)
            } else if verdict(&v).contains("GP wins") {
                Some(0)
            } else {
                None
            };
            assert_eq!(said, crate::lessons::over_seeds::winner(&s, 0.5), "seed {seed}: {}", verdict(&v));
            scored.push(s);
        }
        let o = OverSeeds { names: CONTENDERS.map(String::from).to_vec(), tie: 0.5, scores: scored[..VERDICT_SEEDS as usize].to_vec() };
        let g = o.gap();
        eprintln!("{o:?}\n{g:?} typical {}", o.typical_seed());
        assert_eq!(o.typical_seed(), DEFAULT_SEED, "the lesson opens on the typical seed");
        if !g.is_tie() {
            assert_eq!(o.winner(DEFAULT_SEED), Some(g.leader), "the default seed goes the way most seeds go");
        }
        let last = over_seeds_sentence(&o, DEFAULT_SEED);
        let wins = o.wins();
        assert!(last.contains(&format!("GCP reaches the minimum first on {}", wins[1])), "«{last}»");
        assert!(last.contains(&format!("{:.1} evaluations sooner", g.mean)) && last.contains(&format!("(±{:.1})", g.spread)), "«{last}»");
    }
}
