//! Lesson 6's sentences: how many of the points found are on their front, what the method
//! minimises, the hypervolume error; at the last step every offered method's error side by
//! side on the same task and seed, who won, and what its way of choosing did.

use crate::lessons::pareto::{ParetoFrames, MAX_STEPS};
use crate::warping::OutputWarp;

/// The sentence after `step` evaluations.
pub fn sentence(f: &ParetoFrames, step: usize) -> String {
    if step >= MAX_STEPS && !f.final_errors.is_empty() {
        return verdict(f);
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
    let tied: Vec<&str> = order.iter().filter(|o| o.1 == best).map(|o| o.0.as_str()).collect();
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
        format!("{head} {} tie: each found as much of the true front.", tied.join(" and "))
    } else {
        format!("{head} {winner} wins: {}.", how_it_chooses(winner, warp))
    }
}

/// Whether a task and seed show the lesson's point: the default method, GCP+MO, ends with the
/// lowest hypervolume error of those offered, ahead of GP+MO (ψ against Δ), by 0.005 or more.
pub fn shows_the_contrast(f: &ParetoFrames) -> bool {
    let error = |m: &str| f.final_errors.iter().find(|e| e.0 == m).map_or(f64::NAN, |e| e.1);
    let ours = error(crate::lessons::pareto::DEFAULT_METHOD);
    f.final_errors.iter().all(|e| e.0 == crate::lessons::pareto::DEFAULT_METHOD || e.1 > ours) && error("GP+MO") >= ours + 0.005
}

#[cfg(test)]
mod tests {
    use super::super::{number_after, CLAIM_SEEDS};
    use super::*;
    use crate::lessons::pareto::{frames, names, DEFAULT_METHOD, DEFAULT_SEED};

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
        let lowest = f.final_errors.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
        let winner = f.final_errors.iter().find(|e| text.contains(&format!("{} wins", e.0)));
        if winner.is_some_and(|w| w.1 != lowest) || (winner.is_none() && !text.contains(" tie")) {
            return fail("the winner");
        }
        Ok(())
    }

    #[test]
    fn every_steps_sentence_is_true_to_its_frame() {
        // Each claim seed with one of the methods in turn (every frame runs them all for the
        // last step's comparison).
        for seed in 0..CLAIM_SEEDS {
            let method = names()[seed as usize % names().len()];
            let f = frames(method, seed).unwrap();
            assert_eq!(f.final_errors.iter().find(|e| e.0 == method).map(|e| e.1), f.hv_error.last().copied());
            for k in 0..=MAX_STEPS {
                check(&f, k, &sentence(&f, k)).unwrap_or_else(|e| panic!("{method}, seed {seed}: {e}"));
            }
        }
    }

    #[test]
    fn the_default_seed_is_the_first_that_shows_the_contrast() {
        let first = (0..20).find(|&s| {
            let f = frames(DEFAULT_METHOD, s).unwrap();
            eprintln!("seed {s}: {:?}", f.final_errors);
            shows_the_contrast(&f)
        });
        assert_eq!(first, Some(DEFAULT_SEED));
        eprintln!("{}", verdict(&frames(DEFAULT_METHOD, DEFAULT_SEED).unwrap()));
    }
}
