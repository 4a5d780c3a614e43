//! Lesson 5's sentences: the criterion and max d at each iterate; at the last iterate the
//! criterion the construction reached against random designs of the same size.

use crate::lessons::designs::DesignFrames;
use crate::lessons::over_seeds::OverSeeds;

/// Criteria closer than this are a tie (three decimals, as shown).
pub const TIE: f64 = 5e-4;

/// The construction against each random design (seeds 0, 1, …) as a race over seeds, for the
/// strip under the last step: a score is the criterion negated, since larger is better.
pub fn over_seeds(f: &DesignFrames, method: &str) -> OverSeeds {
    let ours = f.views[f.result].value;
    OverSeeds {
        names: vec![method.to_string(), "the random design".into()],
        tie: TIE,
        scores: f.random.iter().map(|&r| vec![-ours, -r]).collect(),
    }
}

/// A random design in words, for the strip: its criterion against the construction's.
pub fn describe(o: &OverSeeds, seed: u64) -> String {
    let Some(s) = o.scores.get(seed as usize) else { return String::new() };
    let who = o.winner(seed).map_or("a tie".to_string(), |w| format!("{} wins", o.names[w]));
    format!("random design {seed}: criterion {:.3} against {}'s {:.3}, {who}", -s[1], o.names[0], -s[0])
}

/// max d at or below this counts as nothing red.
pub const NOTHING_RED: f64 = 1e-9;

/// The sentence at iterate `step` (clamped to the last).
pub fn sentence(f: &DesignFrames, method: &str, criterion: &str, step: usize) -> String {
    let last = f.views.len() - 1;
    let d = &f.views[step.min(last)];
    if step >= last {
        return verdict(f, method, criterion);
    }
    format!(
        "Iterate {} of {last}: {criterion}-criterion {:.3}, max d = {:.3}{}.",
        d.shown_iterate,
        d.value,
        d.max_d,
        if d.max_d <= NOTHING_RED {
            " — nothing is red: the design is optimal"
        } else {
            " — still red somewhere, so the design can improve"
        }
    )
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The last iterate: the criterion of the design the construction returns, against the
/// median and the best of random designs of the same size, and what that means for β.
pub fn verdict(f: &DesignFrames, method: &str, criterion: &str) -> String {
    let ours = &f.views[f.result];
    let n = ours.points.len();
    let (med, best) = (median(&f.random), f.random.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    let beaten = f.random.iter().filter(|&&r| ours.value - r >= TIE).count();
    let returned = if f.result + 1 == f.views.len() { String::new() } else { format!(" (its best accepted design, iterate {})", f.result) };
    let head = format!(
        "{method} reached a {criterion}-criterion of {:.3} with {n} points{returned}; {} random designs of {n} points reach a median of {med:.3} and at best {best:.3}.",
        ours.value,
        f.random.len()
    );
    let why = if beaten == f.random.len() {
        format!("{method} wins: larger is better, so its design pins β down more tightly than any of them — points spread over the square and the budgets")
    } else {
        format!("{method} beats {beaten} of the {}: larger is better, and a lucky random design can do as well", f.random.len())
    };
    let red = if ours.max_d <= NOTHING_RED {
        " Nothing is red: the design is optimal.".to_string()
    } else {
        format!(" Its max d is {:.3}: some red remains, where one more point would still help.", ours.max_d)
    };
    format!("{head} {why}.{red}")
}

#[cfg(test)]
mod tests {
    use super::super::{number_after, CLAIM_SEEDS};
    use super::*;
    use crate::fidelity::gpb::construct::DesignMethod;
    use crate::fidelity::gpb::view_setting::DesignViewSpec;
    use crate::lessons::designs::frames;

    fn check(f: &DesignFrames, k: usize, text: &str) -> Result<(), String> {
        let fail = |what: &str| Err(format!("iterate {k}: {what} in «{text}»"));
        let last = f.views.len() - 1;
        if k < last {
            let d = &f.views[k];
            if number_after(text, "-criterion ") != Some((d.value * 1e3).round() / 1e3)
                || number_after(text, "max d = ") != Some((d.max_d * 1e3).round() / 1e3)
            {
                return fail("the criterion and max d");
            }
            if text.contains("still red") != (d.max_d > NOTHING_RED) {
                return fail("red or not");
            }
            return Ok(());
        }
        if text.contains("some red remains") != (f.views[f.result].max_d > NOTHING_RED) {
            return fail("red or not at the end");
        }
        if number_after(text, "-criterion of ") != Some((f.views[f.result].value * 1e3).round() / 1e3) {
            return fail("the criterion reached");
        }
        if number_after(text, "median of ") != Some((median(&f.random) * 1e3).round() / 1e3) {
            return fail("the random designs' median");
        }
        if text.contains(" wins:") != f.random.iter().all(|&r| f.views[f.result].value - r >= TIE) {
            return fail("the winner");
        }
        Ok(())
    }

    #[test]
    fn every_iterates_sentence_is_true_to_its_frame() {
        for (method, seed) in [DesignMethod::Ic, DesignMethod::Ta].into_iter().flat_map(|m| (0..CLAIM_SEEDS).map(move |s| (m, s))) {
            let spec = DesignViewSpec { method, seed, ..DesignViewSpec::default() };
            let f = frames(&spec, &[]).unwrap();
            assert_eq!(f.random.len(), crate::lessons::designs::RANDOM_DESIGNS);
            for k in 0..f.views.len() {
                let text = sentence(&f, method.name(), "D", k);
                check(&f, k, &text).unwrap_or_else(|e| panic!("{}, seed {seed}: {e}", method.name()));
            }
        }
    }
}
