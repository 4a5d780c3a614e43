//! **exploding** — a bundled benchmark that behaves like a researcher's raw learning curves
//! (TaskSet's shape: Adam8p's eight hyperparameters, losses every 200 iterations): crossing
//! curves where most runs sit on a chance-level plateau, about a quarter of the runs explode
//! after a random step (to 10¹⁰–10¹⁷, or to `nan`), and a `step_0` column holds each run's
//! untrained loss. What [`crate::loaders::clean::MissingPolicy`] and the normalised
//! regret are tested on; no real data is involved.
//!
//! Per configuration, with u = (log₁₀ lr + 6)/6 ∈ [0, 1] and r = (log₁₀ l1 + 8)/7 ∈ [0, 1]:
//! * a run *plateaus* at chance, ln 10 + N(0, 0.002²) per step, when u < 0.4 (too small a
//!   learning rate) or r > 0.75 (too much L1);
//! * otherwise it *learns*: loss a + (ln 10 − a)·exp(−κ·b) + N(0, 0.005²) after step b, with
//!   final loss a = f_t + 6·(u − u_t)² + 0.4·(β₁ − 0.9)² (capped below chance) and speed
//!   κ = 0.06 + 0.5·(u − 0.4): large learning rates start fast and end worse, so the curves
//!   cross and the best configurations are slow starters;
//! * it *explodes* when u > 0.62 and a uniform draw is below (u − 0.62)/0.3: from a step drawn
//!   from 2..=38 on, either every point is `nan` (half of them) or each is 10^U(10, 17).
//!
//! Step 0 is ln 10 + 0.01 + |N(0, 0.02²)| (a fresh network's loss, a little above chance).
//! Task t draws its optimum u_t ∈ [0.45, 0.6] and floor f_t ∈ [0.2, 0.6]. 4 tasks × 256
//! configurations shared by the tasks × 40 steps, seed 2021. [`exploding_csv`]`(false)` is the
//! same table with no run exploded (each follows its own curve): the test's reference.

use rand::{Rng, SeedableRng};

/// Tasks of the family.
pub const EXPLODING_TASKS: usize = 4;
/// Configurations per task (the same for every task).
pub const EXPLODING_CANDIDATES: usize = 256;
/// Budget steps after step 0.
pub const EXPLODING_STEPS: usize = 40;
const SEED: u64 = 2021;
const CHANCE: f64 = std::f64::consts::LN_10;

/// The eight hyperparameters: name, range, log scale.
const PARAMS: [(&str, f64, f64, bool); 8] = [
    ("hp_learning_rate", 1e-6, 1.0, true),
    ("hp_beta1", 0.0, 0.99, false),
    ("hp_beta2", 0.9, 0.9999, false),
    ("hp_epsilon", 1e-10, 1e-3, true),
    ("hp_l1", 1e-8, 1e-1, true),
    ("hp_l2", 1e-8, 1e-1, true),
    ("hp_linear_decay", 1e-7, 1e-4, true),
    ("hp_exponential_decay", 1e-6, 1e-3, true),
];

/// Six significant digits, so that the CSV stays small and reads back exactly.
fn round6(v: f64) -> f64 {
    format!("{v:.5e}").parse().expect("formatted float parses")
}

fn normal(rng: &mut rand_chacha::ChaCha8Rng) -> f64 {
    crate::stats::normal_quantile(rng.random_range(1e-9..1.0 - 1e-9))
}

/// The table as CSV: `hp_*`, `task`, `step_0` … `step_40`; `explode = false` gives the same
/// runs with no explosion (every random draw is made either way, so both tables agree on
/// everything else).
pub fn exploding_csv(explode: bool) -> String {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SEED);
    let configs: Vec<Vec<f64>> = (0..EXPLODING_CANDIDATES)
        .map(|_| {
            PARAMS
                .iter()
                .map(|&(_, lo, hi, log)| {
                    let w: f64 = rng.random_range(0.0..1.0);
                    round6(if log { 10f64.powf(lo.log10() + w * (hi.log10() - lo.log10())) } else { lo + w * (hi - lo) })
                })
                .collect()
        })
        .collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = PARAMS.iter().map(|p| p.0.to_string()).collect();
    header.push("task".into());
    header.extend((0..=EXPLODING_STEPS).map(|s| format!("step_{s}")));
    w.write_record(&header).expect("memory");
    for t in 0..EXPLODING_TASKS {
        let u_t: f64 = rng.random_range(0.45..0.6);
        let floor: f64 = rng.random_range(0.2..0.6);
        for x in &configs {
            let u = (x[0].log10() + 6.0) / 6.0;
            let r = (x[4].log10() + 8.0) / 7.0;
            let plateau = u < 0.4 || r > 0.75;
            let a = (floor + 6.0 * (u - u_t).powi(2) + 0.4 * (x[1] - 0.9).powi(2)).min(CHANCE - 0.05);
            let kappa = 0.06 + 0.5 * (u - 0.4);
            // Every draw is made whether or not it is used, so the two variants share them.
            let (z, at, goes_nan): (f64, usize, bool) = (rng.random_range(0.0..1.0), rng.random_range(2..=38), rng.random_bool(0.5));
            let explodes = explode && u > 0.62 && z < (u - 0.62) / 0.3;
            let mut rec: Vec<String> = x.iter().map(|v| format!("{v}")).collect();
            rec.push(format!("exploding-{t:02}"));
            rec.push(format!("{}", round6(CHANCE + 0.01 + normal(&mut rng).abs() * 0.02)));
            for b in 1..=EXPLODING_STEPS {
                let (noise, magnitude) = (normal(&mut rng), rng.random_range(10.0..17.0));
                let value = if explodes && b >= at {
                    if goes_nan {
                        f64::NAN
                    } else {
                        10f64.powf(magnitude)
                    }
                } else if plateau {
                    CHANCE + 0.002 * noise
                } else {
                    a + (CHANCE - a) * libm::exp(-kappa * b as f64) + 0.005 * noise
                };
                rec.push(if value.is_nan() { "nan".into() } else { format!("{}", round6(value)) });
            }
            w.write_record(&rec).expect("memory");
        }
    }
    String::from_utf8(w.into_inner().expect("memory")).expect("utf8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loaders::table::LoadOptions;
    use crate::loaders::upload::load_file_with;

    /// Rows of the CSV as (plateau at chance, exploded) flags, counted.
    fn shape(csv: &str) -> (usize, usize, usize) {
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let (mut rows, mut plateau, mut exploded) = (0, 0, 0);
        for rec in reader.records() {
            let rec = rec.unwrap();
            let last: f64 = rec[rec.len() - 1].parse().unwrap();
            rows += 1;
            if !last.is_finite() || last > 1e9 {
                exploded += 1;
            } else if (last - CHANCE).abs() < 0.02 {
                plateau += 1;
            }
        }
        (rows, plateau, exploded)
    }

    #[test]
    fn the_family_is_what_its_docs_say() {
        let csv = exploding_csv(true);
        assert_eq!(csv, exploding_csv(true), "deterministic");
        let (rows, plateau, exploded) = shape(&csv);
        assert_eq!(rows, EXPLODING_TASKS * EXPLODING_CANDIDATES);
        // About a quarter explode; most of the others sit on the chance plateau.
        assert!((0.18..0.32).contains(&(exploded as f64 / rows as f64)), "{exploded} of {rows} exploded");
        assert!(plateau + exploded > rows / 2, "{plateau} on the plateau, {exploded} exploded, of {rows}");
        let points: Vec<f64> =
            csv.lines().skip(1).flat_map(|l| l.split(',').skip(10).map(|c| c.parse::<f64>().unwrap()).collect::<Vec<_>>()).collect();
        assert!(points.iter().any(|v| v.is_nan()) && points.iter().any(|&v| v > 1e16) && points.iter().all(|&v| v.is_nan() || v > 0.0));
        // Without explosions: the same table but for the exploded runs' points.
        let (_, _, none) = shape(&exploding_csv(false));
        assert_eq!(none, 0);
        // Both load; by default the explosions are repaired to each run's step 0 value and
        // said, with the bound.
        let loaded = load_file_with("exploding.csv", csv.as_bytes(), &LoadOptions::default()).ok().unwrap();
        let notes = loaded.notes.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert!(notes.contains("worse than untrained") && notes.contains("each run's 'step_0'"), "{notes}");
        let worst =
            loaded.benchmark.tasks.iter().flat_map(|t| t.curves.as_ref().unwrap().values.iter().flatten()).fold(0.0f64, |m, &v| m.max(v));
        assert!(worst < CHANCE + 0.2, "no explosion survives the default policy: {worst}");
    }
}
