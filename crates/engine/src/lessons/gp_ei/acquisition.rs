//! How lesson 1 chooses the next point from the GP's posterior: the four acquisitions of the
//! textbooks (Brochu, Cora & de Freitas 2010; Shahriari et al. 2016, §4), for minimisation,
//! over the lesson's grid, never at a point already evaluated.
//!
//! - **EI**, expected improvement below the best observation, ranked by its logarithm
//!   (Ament et al. 2023) so that a pick exists once EI has underflowed everywhere.
//! - **PI**, the probability of improvement, Φ((best − μ)/σ), ranked by log Φ likewise.
//! - **UCB** (for minimisation, the lower confidence bound μ − κσ): the point whose optimistic
//!   value is lowest; κ trades exploitation (0) against exploration.
//! - **Thompson sampling**: one function drawn from the joint posterior over the grid, and its
//!   lowest point; a fresh draw each step (Thompson 1933; Russo et al. 2018).

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::super::Fields;
use crate::gp::FittedGp;
use crate::stats::{expected_improvement, log_expected_improvement, log_normal_cdf, normal_cdf};

/// The range of UCB's κ on the page.
pub const KAPPA_RANGE: (f64, f64) = (0.0, 5.0);
/// UCB's κ when none is given: the band the lesson draws (mean ± 2 sd).
pub const DEFAULT_KAPPA: f64 = 2.0;

/// The acquisition that picks the next point.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub enum Acquisition {
    /// Expected improvement.
    #[default]
    Ei,
    /// Probability of improvement.
    Pi,
    /// The lower confidence bound μ − κσ, with κ.
    Ucb(f64),
    /// Thompson sampling.
    Thompson,
}

/// The acquisition on the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// What the acquisition's chart draws: EI (units of f), PI (a probability), μ − κσ or the
    /// sampled function (units of f).
    pub shown: Vec<f64>,
    /// log₁₀ of EI or PI, finite where they underflow (empty for the others).
    pub log10: Vec<f64>,
    /// The ranking: the pick is its largest value (−∞ at evaluated points). log₁₀ EI; for PI
    /// the standardised improvement (best − μ)/σ, which orders the points as PI does without
    /// PI's rounding to 1 where the mean lies far below the best; minus the bound; minus the draw.
    pub rank: Vec<f64>,
}

impl Acquisition {
    /// The four, in the order the page offers them (UCB at its default κ).
    pub const ALL: [Acquisition; 4] = [Acquisition::Ei, Acquisition::Pi, Acquisition::Ucb(DEFAULT_KAPPA), Acquisition::Thompson];

    /// Its short name, as sentences say it ("EI picked …").
    pub fn short(&self) -> &'static str {
        match self {
            Acquisition::Ei => "EI",
            Acquisition::Pi => "PI",
            Acquisition::Ucb(_) => "UCB",
            Acquisition::Thompson => "Thompson sampling",
        }
    }

    /// Its name in a link.
    pub fn link_name(&self) -> &'static str {
        match self {
            Acquisition::Ei => "ei",
            Acquisition::Pi => "pi",
            Acquisition::Ucb(_) => "ucb",
            Acquisition::Thompson => "ts",
        }
    }

    /// Whether its chart's pick is the lowest point of what it draws (UCB's bound, Thompson's
    /// draw) rather than the highest (EI, PI).
    pub fn picks_lowest(&self) -> bool {
        matches!(self, Acquisition::Ucb(_) | Acquisition::Thompson)
    }

    /// Its link fields: none for EI, `acq=` otherwise and UCB's κ (`kappa=`).
    pub fn write_link(&self, q: &mut Vec<String>) {
        if *self != Acquisition::Ei {
            q.push(format!("acq={}", self.link_name()));
        }
        if let Acquisition::Ucb(k) = self {
            q.push(format!("kappa={k}"));
        }
    }

    /// Reads its link fields, naming a bad one (falling back to EI, or to κ = 2).
    pub fn read_link(fields: &Fields, warnings: &mut Vec<String>) -> Acquisition {
        match fields.get("acq") {
            None | Some("ei") => Acquisition::Ei,
            Some("pi") => Acquisition::Pi,
            Some("ts") => Acquisition::Thompson,
            Some("ucb") => Acquisition::Ucb(match fields.get("kappa").map(str::parse::<f64>) {
                None => DEFAULT_KAPPA,
                Some(Ok(k)) if (KAPPA_RANGE.0..=KAPPA_RANGE.1).contains(&k) => k,
                Some(_) => {
                    warnings.push(format!("UCB's κ must be a number in [{}, {}]: using {DEFAULT_KAPPA}", KAPPA_RANGE.0, KAPPA_RANGE.1));
                    DEFAULT_KAPPA
                }
            }),
            Some(other) => {
                warnings.push(format!("the acquisition '{other}' is not one of ei, pi, ucb or ts: using EI"));
                Acquisition::Ei
            }
        }
    }

    /// The acquisition at every grid point `xs`, from the GP `gp` fitted to standardised values
    /// (y = `mu` + `sigma`·z), its posterior mean and sd there (`standard`, standardised) and
    /// the best observation `best` (original units); points `evaluated` rank −∞. Thompson
    /// sampling draws its function with `rng`.
    #[allow(clippy::too_many_arguments)]
    pub fn score<R: Rng + ?Sized>(
        &self,
        gp: &FittedGp,
        xs: &[f64],
        (mu, sigma): (f64, f64),
        best: f64,
        standard: &[(f64, f64)],
        evaluated: &dyn Fn(f64) -> bool,
        rng: &mut R,
    ) -> Scored {
        let z_best = (best - mu) / sigma;
        let standard = |i: usize| standard[i];
        let n = xs.len();
        // PI is Φ of the standardised improvement u, and ranks by u itself.
        let improvement = |i: usize| {
            let (m, s) = standard(i);
            if s > 0.0 {
                (z_best - m) / s
            } else {
                f64::NEG_INFINITY
            }
        };
        let (shown, log10): (Vec<f64>, Vec<f64>) = match self {
            Acquisition::Ei => (0..n)
                .map(|i| {
                    let (m, s) = standard(i);
                    let log_ei = if s > 0.0 { log_expected_improvement(m, s, z_best).0 } else { f64::NEG_INFINITY };
                    (sigma * expected_improvement(m, s, z_best), (log_ei + libm::log(sigma)) / std::f64::consts::LN_10)
                })
                .unzip(),
            Acquisition::Pi => (0..n)
                .map(|i| {
                    let u = improvement(i);
                    (normal_cdf(u), log_normal_cdf(u) / std::f64::consts::LN_10)
                })
                .unzip(),
            Acquisition::Ucb(k) => (
                (0..n)
                    .map(|i| {
                        let (m, s) = standard(i);
                        (mu + sigma * m) - k * (sigma * s)
                    })
                    .collect(),
                Vec::new(),
            ),
            Acquisition::Thompson => {
                let grid: Vec<Vec<f64>> = xs.iter().map(|&x| vec![x]).collect();
                (gp.sample_path(&grid, rng).into_iter().map(|z| mu + sigma * z).collect(), Vec::new())
            }
        };
        let mut rank: Vec<f64> = match self {
            Acquisition::Ei => log10.clone(),
            Acquisition::Pi => (0..n).map(improvement).collect(),
            Acquisition::Ucb(_) | Acquisition::Thompson => shown.iter().map(|v| -v).collect(),
        };
        let (mut shown, mut log10) = (shown, log10);
        // The function has no noise, or the lesson treats it so: a point already evaluated is
        // never picked again, and EI and PI there are drawn at 0 (a GP's noise floor leaves a
        // sliver, the tallest bar of the chart late in a run).
        for (i, &x) in xs.iter().enumerate() {
            if evaluated(x) {
                rank[i] = f64::NEG_INFINITY;
                if !self.picks_lowest() {
                    shown[i] = 0.0;
                    log10[i] = f64::NEG_INFINITY;
                }
            }
        }
        Scored { shown, log10, rank }
    }
}

/// The grid index of the largest rank (the leftmost of an exact tie, so that frames repeat).
pub fn pick(rank: &[f64]) -> usize {
    rank.iter().copied().enumerate().fold((0, f64::NEG_INFINITY), |b, (i, r)| if r > b.1 { (i, r) } else { b }).0
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::gp::GpParams;
    use crate::optimizer::MethodRng;

    /// A GP on three standardised observations and its posterior on 101 points.
    fn setup() -> (FittedGp, Vec<f64>, Vec<(f64, f64)>) {
        let x = vec![vec![0.2], vec![0.5], vec![0.8]];
        let z = vec![0.5, -1.0, 0.7];
        let gp = FittedGp::with_params(&x, &z, GpParams(vec![libm::log(0.15), 0.0, libm::log(1e-6), 0.0])).unwrap();
        let xs: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
        let standard = xs.iter().map(|&x| gp.predict(&[x])).map(|(m, v)| (m, v.max(0.0).sqrt())).collect();
        (gp, xs, standard)
    }

    #[test]
    fn each_acquisition_scores_the_textbook_formula_and_picks_its_best_point() {
        let (gp, xs, standard) = setup();
        let (mean, sd): (Vec<f64>, Vec<f64>) = standard.iter().copied().unzip();
        let seen = |x: f64| [0.2, 0.5, 0.8].contains(&x);
        let mut rng = MethodRng::seed_from_u64(0);
        let best = -1.0;
        for a in [Acquisition::Ei, Acquisition::Pi, Acquisition::Ucb(0.0), Acquisition::Ucb(3.0), Acquisition::Thompson] {
            let s = a.score(&gp, &xs, (0.0, 1.0), best, &standard, &seen, &mut rng);
            let i = pick(&s.rank);
            assert!(!seen(xs[i]), "{a:?} picks an evaluated point");
            for (j, &x) in xs.iter().enumerate().filter(|(_, &x)| !seen(x)) {
                let want = match a {
                    Acquisition::Ei => expected_improvement(mean[j], sd[j], best),
                    Acquisition::Pi => normal_cdf((best - mean[j]) / sd[j]),
                    Acquisition::Ucb(k) => mean[j] - k * sd[j],
                    Acquisition::Thompson => s.shown[j],
                };
                assert!((s.shown[j] - want).abs() < 1e-12, "{a:?} at {x}: {} vs {want}", s.shown[j]);
                // The pick is the best of what is drawn: highest EI or PI, lowest bound or draw.
                let better = if a.picks_lowest() { s.shown[j] < s.shown[i] } else { s.shown[j] > s.shown[i] };
                assert!(!better, "{a:?}: {x} beats the pick {}", xs[i]);
            }
        }
        // κ = 0 is pure exploitation: the lowest mean; a large κ goes where the sd is largest.
        let lowest_mean = (0..xs.len()).filter(|&j| !seen(xs[j])).min_by(|&a, &b| mean[a].total_cmp(&mean[b])).unwrap();
        let s = Acquisition::Ucb(0.0).score(&gp, &xs, (0.0, 1.0), best, &standard, &seen, &mut rng);
        assert_eq!(pick(&s.rank), lowest_mean);
        let widest = (0..xs.len()).max_by(|&a, &b| sd[a].total_cmp(&sd[b]).then(b.cmp(&a))).unwrap();
        let s = Acquisition::Ucb(1e3).score(&gp, &xs, (0.0, 1.0), best, &standard, &seen, &mut rng);
        assert_eq!(pick(&s.rank), widest);
    }

    #[test]
    fn scores_come_back_in_original_units() {
        // The same posterior on y = 3 + 2z: EI and the bound scale by 2 and shift, PI does not change.
        let (gp, xs, standard) = setup();
        let seen = |_: f64| false;
        let mut rng = MethodRng::seed_from_u64(0);
        for a in [Acquisition::Ei, Acquisition::Pi, Acquisition::Ucb(2.0)] {
            let one = a.score(&gp, &xs, (0.0, 1.0), -1.0, &standard, &seen, &mut rng);
            let two = a.score(&gp, &xs, (3.0, 2.0), 1.0, &standard, &seen, &mut rng);
            for j in 0..xs.len() {
                let want = match a {
                    Acquisition::Ei => 2.0 * one.shown[j],
                    Acquisition::Pi => one.shown[j],
                    _ => 3.0 + 2.0 * one.shown[j],
                };
                assert!((two.shown[j] - want).abs() < 1e-9 * want.abs().max(1.0), "{a:?} at {j}");
            }
            assert_eq!(pick(&one.rank), pick(&two.rank), "{a:?}");
        }
    }

    #[test]
    fn links_round_trip_and_bad_fields_are_named() {
        let read = |query: &str| crate::lessons::read_fields(query, Acquisition::read_link);
        for a in [Acquisition::Ei, Acquisition::Pi, Acquisition::Ucb(0.5), Acquisition::Thompson] {
            let mut q = Vec::new();
            a.write_link(&mut q);
            assert_eq!(read(&q.join("&")), (a, vec![]));
        }
        assert_eq!(read("acq=ucb"), (Acquisition::Ucb(DEFAULT_KAPPA), vec![]));
        let (a, w) = read("acq=ucb&kappa=9");
        assert_eq!(a, Acquisition::Ucb(DEFAULT_KAPPA));
        assert!(w[0].contains("κ"), "{w:?}");
        let (a, w) = read("acq=random");
        assert_eq!(a, Acquisition::Ei);
        assert!(w[0].contains("'random'"), "{w:?}");
    }
}
