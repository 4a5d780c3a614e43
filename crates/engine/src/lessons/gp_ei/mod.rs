//! Lesson 1: Bayesian optimisation with a GP and expected improvement on a 1-D function, one
//! step at a time — the loop of the copula paper's GP baseline (Salinas et al. 2020, §5) made
//! visible: observations, the posterior mean ± 2 sd, EI below it and the point EI picks next.
//!
//! The function is Forrester et al.'s (2008) f(x) = (6x − 2)² sin(12x − 4) on [0, 1], the
//! textbook example: a global minimum near x = 0.757, a local one near 0.143, and a flat
//! shoulder between. The GP is the GP method's (`engine::gp`: Matérn-5/2, MAP with the
//! reference's priors) on standardised y; EI is maximised over the 201-point grid the chart
//! draws, leaving out points already evaluated (a GP with a noise floor gives them a little
//! EI, and a lesson that evaluates a point twice teaches nothing). The pick is log-EI's
//! argmax: once the GP is sure of the minimum, EI underflows to 0 everywhere and an argmax of
//! EI would fall to the first index of a tie; log-EI keeps ranking the points.
//! A teacher may pin the lengthscale to show over- and under-smoothing, and add observations
//! by clicking; every frame is recomputed from the lesson's setting, so stepping back and
//! forth gives identical pictures.

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::MethodRng;
use crate::stats::{expected_improvement, log_expected_improvement};

use super::{parse_list, parse_seed, Fields};

/// Points of the drawing grid, where EI is also maximised.
pub const GRID: usize = 201;
/// Random points before the first step.
pub const INITIAL_POINTS: usize = 3;
/// Most steps a lesson runs.
pub const MAX_STEPS: usize = 30;
/// Most observations a user may add.
pub const MAX_ADDED: usize = 20;
/// Noise variance of the GP with a pinned lengthscale (standardised units).
const PINNED_NOISE: f64 = 1e-6;
/// Range of the lengthscale slider.
pub const LENGTHSCALE_RANGE: (f64, f64) = (0.01, 1.0);

/// Forrester et al. (2008): the function the lesson minimises.
pub fn forrester(x: f64) -> f64 {
    (6.0 * x - 2.0).powi(2) * (12.0 * x - 4.0).sin()
}

/// The lesson's setting (all of it in the link); the default is step 0, a fitted lengthscale,
/// nothing added, seed 0.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GpEiSetting {
    /// EI steps taken.
    pub step: usize,
    /// `None`: fitted by maximum likelihood; `Some(ℓ)`: pinned.
    pub lengthscale: Option<f64>,
    /// Observations the user added by clicking (x in [0, 1]).
    pub added: Vec<f64>,
    /// Seed of the initial random points.
    pub seed: u64,
}

/// Where an observation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// The random initial design.
    Initial,
    /// Added by the user.
    Added,
    /// Picked by EI at this step (1-based).
    Step(usize),
}

impl GpEiSetting {
    /// Its link fields besides the step: a pinned lengthscale, the added points, the seed.
    pub fn write_link(&self, q: &mut Vec<String>) {
        if let Some(l) = self.lengthscale {
            q.push(format!("ls={l}"));
        }
        if !self.added.is_empty() {
            q.push(format!("lx={}", self.added.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(",")));
        }
        if self.seed != 0 {
            q.push(format!("seed={}", self.seed));
        }
    }

    /// Reads its link fields besides the step, naming each bad one.
    pub fn read_link(&mut self, fields: &Fields, warnings: &mut Vec<String>) {
        match fields.get("ls") {
            None | Some("fit") => {}
            Some(v) => match v.parse::<f64>() {
                Ok(l) if (LENGTHSCALE_RANGE.0..=LENGTHSCALE_RANGE.1).contains(&l) => self.lengthscale = Some(l),
                _ => warnings.push(format!(
                    "the lengthscale '{v}' is not a number in [{}, {}]: fitting it instead",
                    LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1
                )),
            },
        }
        let what = format!("the added points must be at most {MAX_ADDED} numbers in [0, 1]");
        self.added = parse_list(fields.get("lx"), MAX_ADDED, |x| (0.0..=1.0).contains(&x), &what, warnings);
        self.seed = parse_seed(fields.get("seed"), 0, warnings);
    }
}

/// Everything one frame of the lesson draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpEiFrame {
    /// The grid.
    pub x: Vec<f64>,
    /// f on the grid.
    pub truth: Vec<f64>,
    /// Posterior mean on the grid (original units).
    pub mean: Vec<f64>,
    /// Posterior standard deviation on the grid (original units).
    pub sd: Vec<f64>,
    /// EI on the grid (original units).
    pub ei: Vec<f64>,
    /// log₁₀ EI on the grid (original units), finite where EI underflows to 0; −∞ at points
    /// already evaluated. The pick is its argmax.
    pub log10_ei: Vec<f64>,
    /// Observations so far: (x, y, origin).
    pub observations: Vec<(f64, f64, Origin)>,
    /// Where log-EI is largest: the next evaluation, and EI there.
    pub next: (f64, f64),
    /// The best observation: (x, y).
    pub best: (f64, f64),
    /// The lengthscale used, in units of x.
    pub lengthscale: f64,
    /// Whether it was fitted (else pinned).
    pub fitted: bool,
}

/// EI counts as collapsed when it is below this share of the observed values' range
/// everywhere: the expected gain is then invisible on the chart and in the numbers.
pub const COLLAPSED_EI: f64 = 1e-3;

impl GpEiFrame {
    /// The largest EI on the grid.
    pub fn max_ei(&self) -> f64 {
        self.ei.iter().copied().fold(0.0, f64::max)
    }

    /// The observed values' range (largest minus smallest y).
    pub fn observed_range(&self) -> f64 {
        let ys = self.observations.iter().map(|o| o.1);
        ys.clone().fold(f64::NEG_INFINITY, f64::max) - ys.fold(f64::INFINITY, f64::min)
    }

    /// Whether EI is tiny everywhere (below [`COLLAPSED_EI`] of the observed range): the GP
    /// is sure nothing on the grid beats the best, and only log-EI still ranks the points.
    pub fn ei_collapsed(&self) -> bool {
        self.max_ei() < COLLAPSED_EI * self.observed_range()
    }

    /// What the band says, read off the fit: sure near the points and unsure between them
    /// (the textbook picture), unsure everywhere (the band stays wide even at the points), or
    /// sure everywhere (a lengthscale so long the band is narrow between the points too).
    pub fn band_reading(&self) -> &'static str {
        let range = self.observed_range();
        let widest = self.sd.iter().copied().fold(0.0, f64::max);
        let nearest_sd =
            |x: f64| self.x.iter().zip(&self.sd).min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs())).map_or(0.0, |p| *p.1);
        let at_points = self.observations.iter().map(|o| nearest_sd(o.0)).sum::<f64>() / self.observations.len().max(1) as f64;
        if widest < 0.02 * range {
            "is sure everywhere: its band is narrow between the points too"
        } else if at_points > 0.5 * widest {
            "is unsure everywhere, even at the points it has seen"
        } else {
            "is sure near the points and unsure between them"
        }
    }
}

/// The x of grid point `i`.
fn grid_x(i: usize) -> f64 {
    i as f64 / (GRID - 1) as f64
}

/// The frame after `setting.step` EI steps.
pub fn frame(setting: &GpEiSetting) -> Result<GpEiFrame> {
    let mut all = frames(setting, setting.step)?;
    Ok(all.pop().expect("frames returns upto + 1 frames"))
}

/// Frames 0 ..= `upto` (at most [`MAX_STEPS`]) of `setting`, whose own `step` is ignored: one
/// pass, as costly as the last frame alone, so that a player can step through them.
pub fn frames(setting: &GpEiSetting, upto: usize) -> Result<Vec<GpEiFrame>> {
    if setting.added.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return Err(EngineError::Spec("added observations must lie in [0, 1]".into()));
    }
    if let Some(l) = setting.lengthscale {
        if !(LENGTHSCALE_RANGE.0..=LENGTHSCALE_RANGE.1).contains(&l) {
            return Err(EngineError::Spec(format!("the lengthscale must lie in [{}, {}]", LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1)));
        }
    }
    let mut rng = MethodRng::seed_from_u64(setting.seed);
    let mut observations: Vec<(f64, f64, Origin)> = (0..INITIAL_POINTS)
        .map(|_| {
            let x = rng.random_range(0.0..1.0);
            (x, forrester(x), Origin::Initial)
        })
        .collect();
    observations.extend(setting.added.iter().map(|&x| (x, forrester(x), Origin::Added)));
    let upto = upto.min(MAX_STEPS);
    let mut out = Vec::with_capacity(upto + 1);
    loop {
        let frame = posterior(&observations, setting.lengthscale)?;
        let x = frame.next.0;
        out.push(frame);
        if out.len() > upto {
            return Ok(out);
        }
        observations.push((x, forrester(x), Origin::Step(out.len())));
    }
}

/// The GP on standardised y, its posterior and EI on the grid. A pinned lengthscale comes with
/// the rest pinned too, at the values standardised y suggests (signal variance 1, mean 0, noise
/// variance 10⁻⁶): the lesson then shows the lengthscale's effect alone.
fn posterior(observations: &[(f64, f64, Origin)], pinned: Option<f64>) -> Result<GpEiFrame> {
    let n = observations.len() as f64;
    let ys: Vec<f64> = observations.iter().map(|o| o.1).collect();
    let mu = ys.iter().sum::<f64>() / n;
    let sigma = (ys.iter().map(|y| (y - mu).powi(2)).sum::<f64>() / n).sqrt().max(1e-9);
    let x: Vec<Vec<f64>> = observations.iter().map(|o| vec![o.0]).collect();
    let z: Vec<f64> = ys.iter().map(|y| (y - mu) / sigma).collect();
    let gp = match pinned {
        None => {
            // Forrester's function has no noise: the noise variance is held at the floor, as
            // Optuna's GPSampler holds it for a deterministic objective. Fitted, it sometimes
            // took an observation for noise and the mean missed it.
            let floor = GpSettings::default().noise_variance.0;
            FittedGp::fit(&x, &z, &GpSettings { noise_variance: (floor, floor), ..GpSettings::default() })?
        }
        Some(l) => FittedGp::with_params(&x, &z, GpParams(vec![libm::log(l), 0.0, libm::log(PINNED_NOISE), 0.0]))?,
    };
    let best = observations.iter().map(|o| (o.0, o.1)).fold((f64::NAN, f64::INFINITY), |b, o| if o.1 < b.1 { o } else { b });
    let xs: Vec<f64> = (0..GRID).map(grid_x).collect();
    let (mut mean, mut sd, mut ei, mut log10_ei) =
        (Vec::with_capacity(GRID), Vec::with_capacity(GRID), Vec::with_capacity(GRID), Vec::with_capacity(GRID));
    let z_best = (best.1 - mu) / sigma;
    for &xv in &xs {
        let (m, v) = gp.predict(&[xv]);
        let s = v.max(0.0).sqrt();
        mean.push(mu + sigma * m);
        sd.push(sigma * s);
        ei.push(sigma * expected_improvement(m, s, z_best));
        let log_ei = if s > 0.0 { log_expected_improvement(m, s, z_best).0 } else { f64::NEG_INFINITY };
        log10_ei.push((log_ei + libm::log(sigma)) / std::f64::consts::LN_10);
    }
    // The function has no noise, so EI at a point already evaluated is 0 (the GP's floor of
    // noise left a sliver there, the tallest bar of the chart late in a run).
    let evaluated = |x: f64| observations.iter().any(|o| o.0 == x);
    for ((e, l), &x) in ei.iter_mut().zip(log10_ei.iter_mut()).zip(&xs) {
        if evaluated(x) {
            *e = 0.0;
            *l = f64::NEG_INFINITY;
        }
    }
    // The grid point of largest log-EI not yet evaluated: log-EI ranks points where EI has
    // underflowed to 0 (an exact tie would go to the leftmost, so frames are reproducible;
    // the lesson's test checks that none occurs).
    let i = log10_ei
        .iter()
        .copied()
        .enumerate()
        .filter(|&(i, _)| !evaluated(xs[i]))
        .fold((0, f64::NEG_INFINITY), |b, (i, l)| if l > b.1 { (i, l) } else { b })
        .0;
    let e = ei[i];
    Ok(GpEiFrame {
        truth: xs.iter().map(|&x| forrester(x)).collect(),
        x: xs,
        mean,
        sd,
        ei,
        log10_ei,
        observations: observations.to_vec(),
        next: (grid_x(i), e),
        best,
        lengthscale: libm::exp(gp.params().0[0]),
        fitted: pinned.is_none(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forrester_has_its_known_minimum() {
        let (x, y) =
            (0..=10_000)
                .map(|i| i as f64 / 10_000.0)
                .map(|x| (x, forrester(x)))
                .fold((0.0, f64::INFINITY), |b, p| if p.1 < b.1 { p } else { b });
        assert!((x - 0.7572).abs() < 1e-3 && (y + 6.0207).abs() < 1e-3, "{x} {y}");
    }

    #[test]
    fn each_step_adds_ei_s_pick_and_stepping_is_reproducible() {
        let s = GpEiSetting::default();
        let f0 = frame(&s).unwrap();
        assert_eq!(f0.observations.len(), INITIAL_POINTS);
        let f1 = frame(&GpEiSetting { step: 1, ..s.clone() }).unwrap();
        assert_eq!(f1.observations.len(), INITIAL_POINTS + 1);
        assert_eq!(f1.observations.last().unwrap().0, f0.next.0, "step 1 evaluates frame 0's pick");
        assert_eq!(f1.observations.last().unwrap().2, Origin::Step(1));
        // Back and forth: the same frame again.
        assert_eq!(frame(&GpEiSetting { step: 1, ..s.clone() }).unwrap(), f1);
        // Each frame is the one before plus that frame's pick, evaluated.
        let all = frames(&s, 5).unwrap();
        assert_eq!(all.len(), 6);
        for k in 1..all.len() {
            let (before, now) = (&all[k - 1], &all[k]);
            assert_eq!(&now.observations[..now.observations.len() - 1], &before.observations[..], "step {k}");
            let last = now.observations.last().unwrap();
            assert_eq!((last.0, last.1, last.2), (before.next.0, forrester(before.next.0), Origin::Step(k)));
        }
        // The posterior interpolates observations (little noise) and EI is ≥ 0.
        for &(x, y, _) in &f1.observations {
            let i = (x * (GRID - 1) as f64).round() as usize;
            if (grid_x(i) - x).abs() < 1e-12 {
                assert!((f1.mean[i] - y).abs() < 0.05 * (1.0 + y.abs()), "{x}: {} vs {y}", f1.mean[i]);
            }
        }
        assert!(f1.ei.iter().all(|e| *e >= 0.0));
    }

    #[test]
    fn every_step_of_five_seeds_looks_like_the_textbook_picture() {
        // Lesson 1 as a class sees it (the landing page loops seed 0): at each of the 31
        // frames of seeds 0–4 the fitted lengthscale is inside its bounds (away from them by
        // more than rounding), the mean passes within two standard deviations of every
        // observation, and no pick repeats an evaluated point.
        let bounds = crate::gp::GpSettings::default().lengthscale;
        for seed in 0..5 {
            let all = frames(&GpEiSetting { seed, ..GpEiSetting::default() }, MAX_STEPS).unwrap();
            for (step, f) in all.iter().enumerate() {
                assert!(
                    f.lengthscale > bounds.0 * 1.01 && f.lengthscale < bounds.1 / 1.01,
                    "seed {seed} step {step}: ℓ = {}",
                    f.lengthscale
                );
                let gp_at = |x: f64| {
                    let i = (0..GRID).min_by(|&a, &b| (grid_x(a) - x).abs().total_cmp(&(grid_x(b) - x).abs())).unwrap();
                    (f.mean[i], f.sd[i], (grid_x(i) - x).abs())
                };
                for &(x, y, _) in &f.observations {
                    let (m, sd, off) = gp_at(x);
                    // Off the grid (the random initial points) the nearest grid point is up to
                    // half a cell away: compare there only where the function moves little.
                    if off < 1e-12 || (forrester(x) - forrester(x + off)).abs() < 0.05 {
                        assert!((m - y).abs() <= 2.0 * sd + 0.05, "seed {seed} step {step}: at x = {x} mean {m}, y {y}, sd {sd}");
                    }
                }
                assert!(f.observations.iter().all(|o| o.0 != f.next.0), "seed {seed} step {step}: picks {} again", f.next.0);
                for (x, e) in f.x.iter().zip(&f.ei) {
                    assert!(!f.observations.iter().any(|o| o.0 == *x) || *e == 0.0, "seed {seed} step {step}: EI {e} at evaluated x = {x}");
                }
                // The textbook reading while points are few; later, with some 30 points on
                // [0, 1], the band may be narrow everywhere (and the sentence says so), but a
                // fit never reads as unsure everywhere.
                if step <= 8 {
                    assert_eq!(f.band_reading(), "is sure near the points and unsure between them", "seed {seed} step {step}");
                }
                assert_ne!(f.band_reading(), "is unsure everywhere, even at the points it has seen", "seed {seed} step {step}");
            }
        }
    }

    #[test]
    fn the_landing_preview_is_the_lessons_first_frames() {
        // The landing asks for the first ten steps only (`LessonJob::GpEiFirst`): the frames
        // must be the lesson's own, bit for bit, and cost a fraction of all 31.
        use crate::lessons::{LessonFrames, LessonJob};
        let setting = GpEiSetting::default();
        let t = std::time::Instant::now();
        let Ok(LessonFrames::GpEi(first)) = LessonJob::GpEiFirst(setting.clone(), 10).run() else { panic!("not lesson 1's frames") };
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let Ok(LessonFrames::GpEi(all)) = LessonJob::GpEi(setting).run() else { panic!("not lesson 1's frames") };
        let all_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(first.len(), 11);
        assert_eq!(first[..], all[..11]);
        eprintln!("lesson 1: frames 0..=10 in {first_ms:.1} ms, 0..=30 in {all_ms:.1} ms");
    }

    #[test]
    fn ten_steps_find_the_global_minimum() {
        let f = frame(&GpEiSetting { step: 10, ..GpEiSetting::default() }).unwrap();
        assert!((f.best.0 - 0.757).abs() < 0.02 && f.best.1 < -5.9, "{:?}", f.best);
    }

    #[test]
    fn a_pinned_lengthscale_is_used_and_bad_settings_are_refused() {
        // Every pinned value runs all the steps (a fit with ℓ's bounds collapsed to one value
        // never ended: the reason the rest is pinned too).
        for l in [0.01, 0.03, 0.1, 0.3, 1.0] {
            assert_eq!(
                frames(&GpEiSetting { lengthscale: Some(l), ..GpEiSetting::default() }, MAX_STEPS).unwrap().len(),
                MAX_STEPS + 1,
                "{l}"
            );
        }
        let f = frame(&GpEiSetting { lengthscale: Some(0.05), ..GpEiSetting::default() }).unwrap();
        assert!((f.lengthscale - 0.05).abs() < 1e-9 && !f.fitted);
        // A short lengthscale reverts to the mean between points: the sd is larger there.
        let g = frame(&GpEiSetting { lengthscale: Some(0.5), ..GpEiSetting::default() }).unwrap();
        assert!(f.sd.iter().sum::<f64>() > g.sd.iter().sum::<f64>());
        assert!(frame(&GpEiSetting { lengthscale: Some(5.0), ..GpEiSetting::default() }).is_err());
        assert!(frame(&GpEiSetting { added: vec![1.5], ..GpEiSetting::default() }).is_err());
    }

    #[test]
    fn the_sentence_follows_the_band() {
        // The default frame reads as the textbook; the same frame with a band narrow
        // everywhere, or as wide at the points as anywhere, reads as such.
        let mut f = frame(&GpEiSetting::default()).unwrap();
        assert_eq!(f.band_reading(), "is sure near the points and unsure between them");
        f.sd.iter_mut().for_each(|s| *s = 1e-3);
        assert_eq!(f.band_reading(), "is sure everywhere: its band is narrow between the points too");
        f.sd.iter_mut().for_each(|s| *s = 3.0);
        assert_eq!(f.band_reading(), "is unsure everywhere, even at the points it has seen");
    }

    #[test]
    fn added_observations_are_used() {
        let f = frame(&GpEiSetting { added: vec![0.75], ..GpEiSetting::default() }).unwrap();
        assert!(f.observations.iter().any(|o| o.0 == 0.75 && o.2 == Origin::Added));
        assert!(f.best.1 < -5.9);
    }
}
