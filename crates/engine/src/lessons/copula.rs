//! Lesson 2: the copula warping of Salinas et al. (2020, §3), ψ = Φ⁻¹∘F̃, on values that
//! arrive one at a time. Heavy-tailed values — a log-normal sample, like validation errors or
//! run times across configurations — are what a GP on standardised values (Δ) handles badly:
//! one large value stretches the scale and every other value bunches together. ψ maps the
//! values through their winsorized empirical CDF F̃ (clipped to [δ_N, 1 − δ_N]) and the normal
//! quantile, so the warped values are spread like N(0, 1) whatever the original scale, and the
//! extremes stay finite. The engine's own `warping` code computes every number shown.

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::gp_ei::forrester;
use super::steps::{record, Pick};
use super::{parse_list, parse_seed, Fields};
use crate::error::{EngineError, Result};
use crate::methods::{gcp::gcp, gp::gp};
use crate::optimizer::MethodRng;
use crate::stats::standard_normal;
use crate::warping::{delta_n, standardize, CopulaWarp};

/// Values in the sample; the lesson starts with [`FIRST`] of them and reveals one per step.
pub const SAMPLE: usize = 40;
/// Values seen at step 0.
pub const FIRST: usize = 3;
/// The last step.
pub const MAX_STEPS: usize = SAMPLE - FIRST;
/// Most values a user may add.
pub const MAX_ADDED: usize = 20;

/// The seed the lesson opens on: the typical one of GP against GCP over the seeds counted
/// (`sentences::copula`'s test checks it).
pub const DEFAULT_SEED: u64 = 15;

/// The lesson's setting (all of it in the link).
#[derive(Debug, Clone, PartialEq)]
pub struct CopulaSetting {
    /// Values revealed beyond the first three.
    pub step: usize,
    /// Values the user added (finite, positive or not).
    pub added: Vec<f64>,
    /// Seed of the sample.
    pub seed: u64,
}

impl Default for CopulaSetting {
    fn default() -> Self {
        CopulaSetting { step: 0, added: Vec::new(), seed: DEFAULT_SEED }
    }
}

impl CopulaSetting {
    /// Its link fields besides the step: the added values, the seed.
    pub fn write_link(&self, q: &mut Vec<String>) {
        if !self.added.is_empty() {
            q.push(format!("ly={}", self.added.iter().map(|y| format!("{y}")).collect::<Vec<_>>().join(",")));
        }
        if self.seed != DEFAULT_SEED {
            q.push(format!("seed={}", self.seed));
        }
    }

    /// Reads its link fields besides the step, naming each bad one.
    pub fn read_link(&mut self, fields: &Fields, warnings: &mut Vec<String>) {
        let what = format!("the added values must be at most {MAX_ADDED} finite numbers");
        self.added = parse_list(fields.get("ly"), MAX_ADDED, f64::is_finite, &what, warnings);
        self.seed = parse_seed(fields.get("seed"), DEFAULT_SEED, warnings);
    }
}

/// What one step draws.
#[derive(Debug, Clone, PartialEq)]
pub struct CopulaFrame {
    /// The values seen, in arrival order (the sample's, then the added ones).
    pub ys: Vec<f64>,
    /// How many of `ys` the user added (the last ones).
    pub added: usize,
    /// δ_N for this N.
    pub delta: f64,
    /// The winsorized empirical CDF as steps: (y, F̃(y)) at each sorted distinct value.
    pub ecdf: Vec<(f64, f64)>,
    /// ψ(y) of each value in `ys`.
    pub psi: Vec<f64>,
    /// (y − mean) / sd of each value in `ys`: what the GP baseline sees.
    pub standardized: Vec<f64>,
}

/// The sample: 10·exp(1.5·Z), Z standard normal — heavy right tail, rounded to 3 significant
/// digits as a table would print them.
pub fn sample(seed: u64) -> Vec<f64> {
    let mut rng = MethodRng::seed_from_u64(seed);
    (0..SAMPLE)
        .map(|_| {
            let v = 10.0 * (1.5 * standard_normal(&mut rng)).exp();
            format!("{v:.2e}").parse().unwrap_or(v)
        })
        .collect()
}

/// The frame at `setting.step`.
pub fn frame(setting: &CopulaSetting) -> Result<CopulaFrame> {
    if setting.added.iter().any(|y| !y.is_finite()) || setting.added.len() > MAX_ADDED {
        return Err(EngineError::Spec(format!("added values must be at most {MAX_ADDED} finite numbers")));
    }
    let seen = FIRST + setting.step.min(MAX_STEPS);
    let mut ys: Vec<f64> = sample(setting.seed).into_iter().take(seen).collect();
    ys.extend(&setting.added);
    let warp = CopulaWarp::fit(&ys);
    let mut sorted = ys.clone();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    Ok(CopulaFrame {
        delta: delta_n(ys.len()),
        ecdf: sorted.iter().map(|&y| (y, warp.cdf(y))).collect(),
        psi: warp.transform(&ys),
        standardized: standardize(&ys),
        added: setting.added.len(),
        ys,
    })
}

/// Candidates of the side-by-side run: x = 0, 0.01, …, 1.
pub const VERSUS_GRID: usize = 101;

/// GP and GCP minimising the same heavy-tailed function from the same seed (the lesson's
/// second part): every pick of both, steps 0 ..= [`MAX_STEPS`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    /// The candidates' x.
    pub x: Vec<f64>,
    /// The function at each candidate.
    pub y: Vec<f64>,
    /// GP's frames (Δ: standardised values).
    pub gp: Vec<Pick>,
    /// GCP's frames (ψ).
    pub gcp: Vec<Pick>,
}

/// exp(f(x)/2) with f Forrester's function: the same minimum (x ≈ 0.757, 0.049) and shape
/// as lesson 1, but values from 0.05 to about 2,700 with most below 3 — the heavy right tail
/// that standardising handles badly.
pub fn heavy_tailed(x: f64) -> f64 {
    (forrester(x) / 2.0).exp()
}

/// Both methods, their registry defaults (5 random evaluations first, drawn alike from `seed`).
pub fn versus(seed: u64) -> Result<Versus> {
    let x: Vec<f64> = (0..VERSUS_GRID).map(|i| i as f64 / (VERSUS_GRID - 1) as f64).collect();
    let candidates: Vec<Vec<f64>> = x.iter().map(|&v| vec![v]).collect();
    let y: Vec<f64> = x.iter().map(|&v| heavy_tailed(v)).collect();
    let gp = record(&mut gp(), &candidates, &y, MAX_STEPS, &mut MethodRng::seed_from_u64(seed))?;
    let gcp = record(&mut gcp(), &candidates, &y, MAX_STEPS, &mut MethodRng::seed_from_u64(seed))?;
    Ok(Versus { x, y, gp, gcp })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_reveals_one_value_and_psi_is_bounded_by_delta() {
        let f0 = frame(&CopulaSetting::default()).unwrap();
        assert_eq!(f0.ys.len(), FIRST);
        let f = frame(&CopulaSetting { step: 20, ..CopulaSetting::default() }).unwrap();
        assert_eq!(f.ys.len(), FIRST + 20);
        assert_eq!(&f.ys[..FIRST], &f0.ys[..]);
        // ψ is monotone in y and capped at Φ⁻¹(1 − δ_N).
        let cap = crate::stats::normal_quantile(1.0 - f.delta);
        for (i, j) in (0..f.ys.len()).flat_map(|i| (0..f.ys.len()).map(move |j| (i, j))) {
            if f.ys[i] < f.ys[j] {
                assert!(f.psi[i] <= f.psi[j]);
            }
        }
        assert!(f.psi.iter().all(|z| z.abs() <= cap + 1e-12));
        assert!(f.ecdf.iter().all(|&(_, p)| (f.delta..=1.0 - f.delta).contains(&p)));
    }

    #[test]
    fn an_outlier_stretches_the_standardised_scale_but_not_psi() {
        let base = frame(&CopulaSetting { step: 20, ..CopulaSetting::default() }).unwrap();
        let with = frame(&CopulaSetting { step: 20, added: vec![1e6], seed: 0 }).unwrap();
        // Standardised, the other values collapse towards one point; under ψ they keep their spread.
        let spread = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max) - v.iter().copied().fold(f64::INFINITY, f64::min);
        let n = base.ys.len();
        assert!(spread(&with.standardized[..n]) < 0.2 * spread(&base.standardized));
        assert!(spread(&with.psi[..n]) > 0.8 * spread(&base.psi));
        assert!(frame(&CopulaSetting { added: vec![f64::NAN], ..CopulaSetting::default() }).is_err());
    }

    #[test]
    fn every_fit_of_five_seeds_is_sound_and_gcp_finds_the_minimum_at_least_as_fast() {
        // GP and GCP as a class sees them on seeds 0–4 (the lesson's default is 0): no
        // lengthscale on a bound, and the mean near every observation. GCP's ψ gives the
        // minimum the lowest quantile however sharp the dip, and its GP (noise fitted, as the
        // method's) smooths part of that dip away: the best observation lies up to 2.5 sd
        // from the mean (predictive sd, noise included) in these frames, so the bound is 3
        // for GCP; GP's is 2.
        for seed in 0..5 {
            let v = versus(seed).unwrap();
            super::super::steps::fits_are_sound(&v.gp, 2.0).unwrap_or_else(|e| panic!("GP, seed {seed}: {e}"));
            super::super::steps::fits_are_sound(&v.gcp, 3.0).unwrap_or_else(|e| panic!("GCP, seed {seed}: {e}"));
            // The first evaluation of the grid's minimum: GCP's never comes later than GP's.
            let first = |picks: &[Pick]| picks.iter().position(|p| v.y[p.next] == v.y.iter().copied().fold(f64::INFINITY, f64::min));
            let (gp, gcp) = (first(&v.gp).unwrap_or(usize::MAX), first(&v.gcp).unwrap_or(usize::MAX));
            assert!(gcp <= gp, "seed {seed}: GCP first evaluates the minimum at step {gcp}, GP at {gp}");
        }
    }

    #[test]
    fn gp_and_gcp_start_alike_and_see_different_values() {
        let v = versus(0).unwrap();
        assert_eq!(v.gp.len(), MAX_STEPS + 1);
        // The same seed: the same five random evaluations.
        for k in 0..5 {
            assert_eq!(v.gp[k].next, v.gcp[k].next, "warm-start pick {k}");
        }
        // After that each models its own warp of the same observations: Δ keeps the outlier's
        // distance, ψ caps it at Φ⁻¹(1 − δ_N).
        let (g, c) = (v.gp[5].belief.as_ref().unwrap(), v.gcp[5].belief.as_ref().unwrap());
        let ys: Vec<f64> = v.gp[5].evaluated.iter().map(|&i| v.y[i]).collect();
        assert_eq!(g.observed, standardize(&ys));
        assert_eq!(c.observed, CopulaWarp::fit(&ys).transform(&ys));
        let cap = crate::stats::normal_quantile(1.0 - delta_n(5));
        assert!(c.observed.iter().all(|z| z.abs() <= cap + 1e-12));
    }
}
