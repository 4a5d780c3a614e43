//! Lesson 6's sentences: how many of the points found are on their front, what the method
//! minimises, the hypervolume error; at the last step every offered method's error side by
//! side on the same task and seed, who won, and what its way of choosing did.

use crate::lessons::over_seeds::{counting, OverSeeds};
use crate::lessons::pareto::{frames, names, ParetoFrames, DEFAULT_METHOD, MAX_STEPS};
use crate::warping::OutputWarp;

/// Hypervolume errors closer than this are a tie (three decimals, as shown).
pub const TIE: f64 = 5e-4;

/// A seed's scores: each method's hypervolume error after [`MAX_STEPS`] evaluations
/// ([`names`] order).
pub fn scores(f: &ParetoFrames) -> Vec<f64> {
    names().iter().map(|n| f.final_errors.iter().find(|e| e.0 == *n).map_or(f64::NAN, |e| e.1)).collect()
}

/// The methods over [`VERDICT_SEEDS`] seeds, each run as the lesson runs it.
pub fn over_seeds(seeds: std::ops::Range<u64>) -> crate::error::Result<OverSeeds> {
    OverSeeds::count(&names(), TIE, seeds, |seed| frames(DEFAULT_METHOD, seed).map(|f| scores(&f)))
}

/// The count over seeds in words, with where `seed` stands among them.
pub fn over_seeds_sentence(o: &OverSeeds, seed: u64) -> String {
    let lead = |l: &str, r: &str, d: &str| format!("on average {l}'s error is {d} lower than {r}'s");
    format!("{}{}", o.sentence("has the lowest error", lead, |v| format!("{v:.3}")), o.shown_seed(seed))
}

/// The sentence after `step` evaluations of seed `seed`; the last step's ends with the count
/// over seeds once it is computed.
pub fn sentence(f: &ParetoFrames, step: usize, seed: u64, over: Option<&OverSeeds>) -> String {
    if step >= MAX_STEPS && !f.final_errors.is_empty() {
        return format!("{} {}", verdict(f), over.map_or_else(|| counting("seeds"), |o| over_seeds_sentence(o, seed)));
    }
    let st = f.at(step);
    let how = match f.warp {
        Some(w) => format!(
            "{} minimises ½·Z(error) + ½·Z(latency) with Z = {} fitted on what it has seen: darker dots are what it prefers now.",
            f.method,
            w.as_str()
        ),
        None => format!("{} keeps the objectives apart: no single score colours the cloud.", f.method),
    };
    format!(
        "After {step} evaluations, {} of the points found are on their front (a point is on it when no other is better in both). {how} Hypervolume error {}.",
        st.front.len(),
        f.hv_error.get(step.wrapping_sub(1)).map_or("—".to_string(), |e| format!("{e:.3}"))
    )
}

/// Why a method ends where it does, in the lesson's words.
fn how_it_chooses(method: &str, warp: Option<OutputWarp>) -> &'static str {
    match (method, warp) {
        (_, Some(OutputWarp::Copula)) => "ψ puts both objectives on one scale by rank, so neither wins by its units",
        (_, Some(OutputWarp::Standardize)) => "its average of standardised objectives was enough on this task",
        ("ParEGO", _) => "new random weights each step spread its points along the front",
        _ => "it aims at the largest expected gain in dominated area itself",
    }
}

/// The last step: each method's hypervolume error after [`MAX_STEPS`] evaluations, lowest
/// first, and what the winner's way of choosing did.
pub fn verdict(f: &ParetoFrames) -> String {
    let mut order = f.final_errors.clone();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let side: Vec<String> = order.iter().map(|(m, e)| format!("{m} {e:.3}")).collect();
    let (winner, best) = (&order[0].0, order[0].1);
    let tied: Vec<&str> = order.iter().filter(|o| o.1 - best < TIE).map(|o| o.0.as_str()).collect();
    let warp = crate::lessons::pareto::methods().into_iter().find(|m| m.name == winner.as_str()).and_then(|e| match e.objectives() {
        crate::method_entry::MethodObjectives::Scalarized(w) => Some(w),
        _ => None,
    });
    let head = format!(
        "After {MAX_STEPS} evaluations on {}, the hypervolume error of each method (lower is better): {}.",
        f.task,
        side.join(", ")
    );
    if tied.len() > 1 {
        format!("{head} {} tie on this seed: each found as much of the true front, to three decimals.", tied.join(" and "))
    } else {
        format!("{head} {winner} wins on this seed: {}.", how_it_chooses(winner, warp))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{number_after, CLAIM_SEEDS};
    use super::*;
    use crate::lessons::over_seeds::VERDICT_SEEDS;
    use crate::lessons::pareto::DEFAULT_SEED;

    fn check(f: &ParetoFrames, k: usize, text: &str) -> Result<(), String> {
        let fail = |what: &str| Err(format!("step {k}: {what} in «{text}»"));
        if k < MAX_STEPS {
            // The front counted from scratch: found points no other found point beats in both.
            let found: Vec<(f64, f64)> = f.picks[..k].iter().map(|&i| f.all[i]).collect();
            let on = found.iter().filter(|p| !found.iter().any(|q| q.0 <= p.0 && q.1 <= p.1 && (q.0 < p.0 || q.1 < p.1))).count();
            let mut distinct = found.clone();
            distinct.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            distinct.dedup();
            let on_distinct =
                distinct.iter().filter(|p| !distinct.iter().any(|q| q.0 <= p.0 && q.1 <= p.1 && (q.0 < p.0 || q.1 < p.1))).count();
            let said = number_after(text, "evaluations, ").map(|n| n as usize);
            if said != Some(on) && said != Some(on_distinct) {
                return fail("the number on the front");
            }
            if k > 0 && number_after(text, "Hypervolume error ") != Some((f.hv_error[k - 1] * 1e3).round() / 1e3) {
                return fail("the hypervolume error");
            }
            return Ok(());
        }
        for (m, e) in &f.final_errors {
            if number_after(text, &format!("{m} ")) != Some((e * 1e3).round() / 1e3) {
                return fail(&format!("{m}'s error"));
            }
        }
        let said = names().iter().position(|n| text.contains(&format!("{n} wins")));
        if said != crate::lessons::over_seeds::winner(&scores(f), TIE) || (said.is_none() && !text.contains(" tie")) {
            return fail("the winner");
        }
        Ok(())
    }

    #[test]
    fn every_steps_sentence_is_true_to_its_frame_and_the_default_seed_is_typical() {
        // Each claim seed with one of the methods in turn (every frame runs them all for the
        // last step's comparison).
        let mut scored = Vec::new();
        for seed in 0..CLAIM_SEEDS {
            let method = names()[seed as usize % names().len()];
            let f = frames(method, seed).unwrap();
            assert_eq!(f.final_errors.iter().find(|e| e.0 == method).map(|e| e.1), f.hv_error.last().copied());
            for k in 0..=MAX_STEPS {
                check(&f, k, &sentence(&f, k, seed, None)).unwrap_or_else(|e| panic!("{method}, seed {seed}: {e}"));
            }
            scored.push(scores(&f));
        }
        let o = OverSeeds {
            names: names().iter().map(|n| n.to_string()).collect(),
            tie: TIE,
            scores: scored[..VERDICT_SEEDS as usize].to_vec(),
        };
        let g = o.gap();
        eprintln!("{o:?}\n{g:?} typical {}", o.typical_seed());
        assert_eq!(o.typical_seed(), DEFAULT_SEED, "the lesson opens on the typical seed");
        let last = over_seeds_sentence(&o, DEFAULT_SEED);
        let wins = o.wins();
        for (c, n) in names().iter().enumerate().filter(|(c, _)| wins[*c] > 0) {
            assert!(
                last.contains(&format!("{n} on {}", wins[c])) || last.contains(&format!("{n} has the lowest error on {}", wins[c])),
                "«{last}»"
            );
        }
        assert!(last.contains(&format!("{:.3} lower than", g.mean)) && last.contains(&format!("(±{:.3})", g.spread)), "«{last}»");
        assert_eq!(last.contains("over seeds, a tie"), g.is_tie(), "«{last}»");
    }
}
