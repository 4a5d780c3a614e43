//! Lesson 1: Bayesian optimisation with a GP on a 1-D function, one step at a time — the loop
//! of the copula paper's GP baseline (Salinas et al. 2020, §5) made visible: observations,
//! the posterior mean ± 2 sd, the acquisition below it and the point it picks next.
//!
//! A playground as much as a lesson: the student picks the function (`objective`: three
//! textbook ones or one drawn by hand), how noisy its observations are, the acquisition (EI,
//! PI, UCB with its κ, Thompson sampling: `acquisition`), pins the lengthscale to see over-
//! and under-smoothing, adds, moves and removes observations, and may guess each next pick
//! before the step reveals it. All of it is the setting, all of it in the link, and every
//! frame is recomputed from the setting, so stepping back and forth gives identical pictures.
//!
//! The GP is the GP method's (`engine::gp`: Matérn-5/2, MAP with the reference's priors) on
//! standardised y. Without noise its noise variance is held at the floor (as Optuna's
//! GPSampler holds it for a deterministic objective: fitted, it sometimes took an observation
//! for noise and the mean missed it); with noise it is fitted. The acquisition is maximised
//! over the 201-point grid the chart draws, leaving out points already evaluated (a lesson
//! that evaluates a point twice teaches nothing).

mod acquisition;
mod objective;

pub use acquisition::{Acquisition, Scored, DEFAULT_KAPPA, KAPPA_RANGE};
pub use objective::{forrester, Objective, DRAWN_RANGE, KNOTS};

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};
use crate::gp::{FittedGp, GpParams, GpSettings};
use crate::optimizer::MethodRng;
use crate::stats::standard_normal;

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
/// The largest noise: its standard deviation as a share of the function's range on the grid.
pub const MAX_NOISE: f64 = 0.3;

/// The lesson's setting (all of it in the link); the default is step 0, Forrester's function
/// without noise, EI, a fitted lengthscale, nothing added, seed 0, no guessing.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GpEiSetting {
    /// Steps taken.
    pub step: usize,
    /// `None`: fitted by maximum likelihood; `Some(ℓ)`: pinned.
    pub lengthscale: Option<f64>,
    /// Observations the user added (x in [0, 1]), in the order added.
    pub added: Vec<f64>,
    /// Seed of the initial random points, the noise and Thompson sampling's draws.
    pub seed: u64,
    /// The function minimised.
    #[serde(default)]
    pub objective: Objective,
    /// The observations' noise: its standard deviation as a share of the function's range on
    /// the grid, in [0, [`MAX_NOISE`]].
    #[serde(default)]
    pub noise: f64,
    /// What picks the next point.
    #[serde(default)]
    pub acquisition: Acquisition,
    /// Whether the student guesses each next pick before the step shows it.
    #[serde(default)]
    pub guessing: bool,
    /// The student's guesses: the one before step k at k − 1 (x in [0, 1]; `None` for a step
    /// taken without one).
    #[serde(default)]
    pub guesses: Vec<Option<f64>>,
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
    /// Its link fields besides the step: the function, the noise, the acquisition, a pinned
    /// lengthscale, the added points, the seed and the guesses; each only where it is not
    /// the default.
    pub fn write_link(&self, q: &mut Vec<String>) {
        self.objective.write_link(q);
        if self.noise > 0.0 {
            q.push(format!("noise={}", self.noise));
        }
        self.acquisition.write_link(q);
        if let Some(l) = self.lengthscale {
            q.push(format!("ls={l}"));
        }
        if !self.added.is_empty() {
            q.push(format!("lx={}", join(&self.added)));
        }
        if self.seed != 0 {
            q.push(format!("seed={}", self.seed));
        }
        if self.guessing {
            q.push("guess=1".into());
        }
        if !self.guesses.is_empty() {
            // A step taken without a guess is an empty entry.
            q.push(format!(
                "gx={}",
                self.guesses.iter().map(|g| g.map_or(String::new(), |x| format!("{x}"))).collect::<Vec<_>>().join(",")
            ));
        }
    }

    /// Reads its link fields besides the step, naming each bad one.
    pub fn read_link(&mut self, fields: &Fields, warnings: &mut Vec<String>) {
        self.objective = Objective::read_link(fields, warnings);
        self.noise = match fields.get("noise").map(str::parse::<f64>) {
            None => 0.0,
            Some(Ok(v)) if (0.0..=MAX_NOISE).contains(&v) => v,
            Some(_) => {
                warnings.push(format!("the noise must be a number in [0, {MAX_NOISE}]: using none"));
                0.0
            }
        };
        self.acquisition = Acquisition::read_link(fields, warnings);
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
        self.guessing = matches!(fields.get("guess"), Some("1" | "true"));
        self.guesses = Vec::new();
        if let Some(v) = fields.get("gx").filter(|v| !v.is_empty()) {
            let parsed: Vec<Option<Option<f64>>> = v
                .split(',')
                .map(|g| if g.is_empty() { Some(None) } else { g.parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x)).map(Some) })
                .collect();
            if parsed.iter().any(Option::is_none) || parsed.len() > MAX_STEPS {
                warnings.push(format!(
                    "the guesses must be at most {MAX_STEPS} numbers in [0, 1] (or empty, for a step not guessed): ignoring them"
                ));
            } else {
                self.guesses = parsed.into_iter().flatten().collect();
            }
        }
    }

    /// Checks what a link or a worker message may carry, in words.
    fn check(&self) -> Result<()> {
        let refuse = |m: String| Err(EngineError::Spec(m));
        if self.added.iter().chain(self.guesses.iter().flatten()).any(|x| !(0.0..=1.0).contains(x)) || self.guesses.len() > MAX_STEPS {
            return refuse("added observations and guesses must lie in [0, 1]".into());
        }
        if let Some(l) = self.lengthscale {
            if !(LENGTHSCALE_RANGE.0..=LENGTHSCALE_RANGE.1).contains(&l) {
                return refuse(format!("the lengthscale must lie in [{}, {}]", LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1));
            }
        }
        if !(0.0..=MAX_NOISE).contains(&self.noise) {
            return refuse(format!("the noise must lie in [0, {MAX_NOISE}]"));
        }
        if let Acquisition::Ucb(k) = self.acquisition {
            if !(KAPPA_RANGE.0..=KAPPA_RANGE.1).contains(&k) {
                return refuse(format!("UCB's κ must lie in [{}, {}]", KAPPA_RANGE.0, KAPPA_RANGE.1));
            }
        }
        self.objective.check().map_err(EngineError::Spec)
    }
}

/// Numbers as a link writes them, comma-separated.
fn join(values: &[f64]) -> String {
    values.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(",")
}

/// Everything one frame of the lesson draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpEiFrame {
    /// The grid.
    pub x: Vec<f64>,
    /// f on the grid (without noise).
    pub truth: Vec<f64>,
    /// Posterior mean on the grid (original units).
    pub mean: Vec<f64>,
    /// Posterior standard deviation on the grid (original units).
    pub sd: Vec<f64>,
    /// What picked the next point.
    pub acquisition: Acquisition,
    /// The acquisition on the grid: EI (units of f), PI (a probability), the bound μ − κσ or
    /// Thompson sampling's draw (units of f); EI and PI are 0 at points already evaluated.
    pub acq: Vec<f64>,
    /// log₁₀ of EI or PI on the grid, finite where they underflow to 0, −∞ at points already
    /// evaluated (the pick is its argmax); empty for UCB and Thompson sampling.
    pub log10_acq: Vec<f64>,
    /// What decides the pick, its argmax ([`Scored::rank`]): −∞ at points already evaluated.
    pub rank: Vec<f64>,
    /// Observations so far: (x, observed y, origin); y is f(x) plus the noise, if any.
    pub observations: Vec<(f64, f64, Origin)>,
    /// The next evaluation and the acquisition there.
    pub next: (f64, f64),
    /// The best observation: (x, y).
    pub best: (f64, f64),
    /// The lengthscale used, in units of x.
    pub lengthscale: f64,
    /// Whether it was fitted (else pinned).
    pub fitted: bool,
}

/// EI counts as collapsed when it is below this share of the observed values' range
/// everywhere, PI when it is below this probability: the chance of a gain is then invisible
/// on the chart and in the numbers.
pub const COLLAPSED: f64 = 1e-3;

impl GpEiFrame {
    /// The largest value of EI or PI on the grid (of UCB's bound or the draw: the lowest).
    pub fn best_acq(&self) -> f64 {
        if self.acquisition.picks_lowest() {
            self.acq.iter().copied().fold(f64::INFINITY, f64::min)
        } else {
            self.acq.iter().copied().fold(0.0, f64::max)
        }
    }

    /// The largest log₁₀ EI or PI on the grid (−∞ for the others).
    pub fn best_log10_acq(&self) -> f64 {
        self.log10_acq.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    /// The observed values' range (largest minus smallest y).
    pub fn observed_range(&self) -> f64 {
        let ys = self.observations.iter().map(|o| o.1);
        ys.clone().fold(f64::NEG_INFINITY, f64::max) - ys.fold(f64::INFINITY, f64::min)
    }

    /// Whether EI or PI is tiny everywhere (EI below [`COLLAPSED`] of the observed range, PI
    /// below [`COLLAPSED`]): the GP is sure nothing on the grid beats the best, and only the
    /// logarithm still ranks the points. Never for UCB and Thompson sampling.
    pub fn collapsed(&self) -> bool {
        match self.acquisition {
            Acquisition::Ei => self.best_acq() < COLLAPSED * self.observed_range(),
            Acquisition::Pi => self.best_acq() < COLLAPSED,
            Acquisition::Ucb(_) | Acquisition::Thompson => false,
        }
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

/// The grid's x values.
pub fn grid() -> Vec<f64> {
    (0..GRID).map(grid_x).collect()
}

/// The frame after `setting.step` steps.
pub fn frame(setting: &GpEiSetting) -> Result<GpEiFrame> {
    let mut all = frames(setting, setting.step)?;
    Ok(all.pop().expect("frames returns upto + 1 frames"))
}

/// Frames 0 ..= `upto` (at most [`MAX_STEPS`]) of `setting`, whose own `step` is ignored: one
/// pass, as costly as the last frame alone, so that a player can step through them.
pub fn frames(setting: &GpEiSetting, upto: usize) -> Result<Vec<GpEiFrame>> {
    setting.check()?;
    let f = &setting.objective;
    // Three streams from the seed: the initial points (the stream lesson 1 always had, so
    // that a noiseless EI lesson keeps its frames), the noise and Thompson sampling's draws.
    let mut rng = MethodRng::seed_from_u64(setting.seed);
    let mut noise_rng = MethodRng::seed_from_u64(setting.seed ^ NOISE_STREAM);
    let mut draws = MethodRng::seed_from_u64(setting.seed ^ DRAW_STREAM);
    let noise_sd = setting.noise * f.range_on(&grid());
    let mut observe = |x: f64| if noise_sd > 0.0 { f.value(x) + noise_sd * standard_normal(&mut noise_rng) } else { f.value(x) };
    let initial: Vec<f64> = (0..INITIAL_POINTS).map(|_| rng.random_range(0.0..1.0)).collect();
    let mut observations: Vec<(f64, f64, Origin)> = initial.into_iter().map(|x| (x, observe(x), Origin::Initial)).collect();
    for &x in &setting.added {
        let y = observe(x);
        observations.push((x, y, Origin::Added));
    }
    let upto = upto.min(MAX_STEPS);
    let mut out = Vec::with_capacity(upto + 1);
    loop {
        let frame = posterior(setting, &observations, noise_sd, &mut draws)?;
        let x = frame.next.0;
        out.push(frame);
        if out.len() > upto {
            return Ok(out);
        }
        let y = observe(x);
        observations.push((x, y, Origin::Step(out.len())));
    }
}

/// Seeds of the noise's and Thompson sampling's generators, from the lesson's seed.
const NOISE_STREAM: u64 = 0x6e6f_6973_6500_0001;
const DRAW_STREAM: u64 = 0x7468_6f6d_7000_0002;

/// The GP on standardised y, its posterior and the acquisition on the grid. A pinned
/// lengthscale comes with the rest pinned too (a fit with the lengthscale's bounds collapsed
/// to one value never ended), at the values standardised y suggests: signal variance 1, mean
/// 0, and the noise's own variance (10⁻⁶ without noise). The lesson then shows the
/// lengthscale's effect alone.
fn posterior(setting: &GpEiSetting, observations: &[(f64, f64, Origin)], noise_sd: f64, draws: &mut MethodRng) -> Result<GpEiFrame> {
    let noisy = noise_sd > 0.0;
    let n = observations.len() as f64;
    let ys: Vec<f64> = observations.iter().map(|o| o.1).collect();
    let mu = ys.iter().sum::<f64>() / n;
    let sigma = (ys.iter().map(|y| (y - mu).powi(2)).sum::<f64>() / n).sqrt().max(1e-9);
    let x: Vec<Vec<f64>> = observations.iter().map(|o| vec![o.0]).collect();
    let z: Vec<f64> = ys.iter().map(|y| (y - mu) / sigma).collect();
    let floor = GpSettings::default().noise_variance.0;
    let gp = match setting.lengthscale {
        None if noisy => FittedGp::fit(&x, &z, &GpSettings::default())?,
        None => FittedGp::fit(&x, &z, &GpSettings { noise_variance: (floor, floor), ..GpSettings::default() })?,
        Some(l) => {
            let noise = if noisy { (noise_sd / sigma).powi(2).max(PINNED_NOISE) } else { PINNED_NOISE };
            FittedGp::with_params(&x, &z, GpParams(vec![libm::log(l), 0.0, libm::log(noise), 0.0]))?
        }
    };
    let best = observations.iter().map(|o| (o.0, o.1)).fold((f64::NAN, f64::INFINITY), |b, o| if o.1 < b.1 { o } else { b });
    let xs = grid();
    let standard: Vec<(f64, f64)> = xs
        .iter()
        .map(|&xv| {
            let (m, v) = gp.predict(&[xv]);
            (m, v.max(0.0).sqrt())
        })
        .collect();
    let (mean, sd): (Vec<f64>, Vec<f64>) = standard.iter().map(|&(m, s)| (mu + sigma * m, sigma * s)).unzip();
    let evaluated = |x: f64| observations.iter().any(|o| o.0 == x);
    let Scored { shown, log10, rank } = setting.acquisition.score(&gp, &xs, (mu, sigma), best.1, &standard, &evaluated, draws);
    let i = acquisition::pick(&rank);
    Ok(GpEiFrame {
        truth: xs.iter().map(|&x| setting.objective.value(x)).collect(),
        next: (xs[i], shown[i]),
        x: xs,
        mean,
        sd,
        acquisition: setting.acquisition,
        acq: shown,
        log10_acq: log10,
        rank,
        observations: observations.to_vec(),
        best,
        lengthscale: libm::exp(gp.params().0[0]),
        fitted: setting.lengthscale.is_none(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(f1.acq.iter().all(|e| *e >= 0.0));
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
                for (x, e) in f.x.iter().zip(&f.acq) {
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
    fn every_function_and_acquisition_runs_all_its_steps_and_repeats() {
        let drawn = Objective::Drawn((0..KNOTS).map(|k| libm::sin(k as f64 / 3.0) * 0.8).collect());
        for objective in Objective::NAMED.into_iter().chain([drawn]) {
            for acquisition in Acquisition::ALL {
                for noise in [0.0, 0.1] {
                    let s = GpEiSetting { objective: objective.clone(), acquisition, noise, seed: 3, ..GpEiSetting::default() };
                    let all = frames(&s, MAX_STEPS).unwrap();
                    assert_eq!(all.len(), MAX_STEPS + 1);
                    assert_eq!(frames(&s, MAX_STEPS).unwrap(), all, "{s:?} repeats");
                    for (k, f) in all.iter().enumerate() {
                        assert!(f.observations.iter().all(|o| o.0 != f.next.0), "{s:?} step {k} picks an evaluated point");
                        assert!(f.mean.iter().chain(&f.sd).chain(&f.acq).all(|v| v.is_finite()), "{s:?} step {k}");
                        assert_eq!(f.truth[100], objective.value(0.5));
                    }
                }
            }
        }
    }

    #[test]
    fn noise_is_added_to_observations_only_and_a_pinned_lengthscale_takes_its_variance() {
        let s = GpEiSetting { noise: 0.2, ..GpEiSetting::default() };
        let f = frame(&GpEiSetting { step: 10, ..s.clone() }).unwrap();
        let range = Objective::Forrester.range_on(&grid());
        let errors: Vec<f64> = f.observations.iter().map(|o| (o.1 - forrester(o.0)) / (0.2 * range)).collect();
        // 13 draws of N(0, 1): none exactly 0, none beyond 4.
        assert!(errors.iter().all(|e| *e != 0.0 && e.abs() < 4.0), "{errors:?}");
        assert_eq!(f.truth, frame(&GpEiSetting::default()).unwrap().truth);
        // The same start and picks' noise come from the seed: a new seed, new noise.
        let g = frame(&GpEiSetting { step: 10, seed: 1, ..s.clone() }).unwrap();
        assert_ne!(f.observations, g.observations);
        // Without noise, the observations are f itself.
        let clean = frame(&GpEiSetting { step: 10, ..GpEiSetting::default() }).unwrap();
        assert!(clean.observations.iter().all(|o| o.1 == forrester(o.0)));
        // Noisy, the fitted GP no longer passes through every observation: its band is wider
        // at the points than the noiseless fit's.
        let at_points = |f: &GpEiFrame| f.observations.iter().map(|o| f.sd[(o.0 * 200.0).round() as usize]).sum::<f64>();
        assert!(at_points(&f) > at_points(&clean));
        let pinned = frame(&GpEiSetting { step: 5, lengthscale: Some(0.1), ..s }).unwrap();
        assert!((pinned.lengthscale - 0.1).abs() < 1e-12 && !pinned.fitted);
    }

    #[test]
    fn the_whole_setting_round_trips_through_its_link_and_bad_settings_are_refused() {
        use crate::lessons::{Lesson, LessonLink};
        let s = GpEiSetting {
            step: 4,
            lengthscale: Some(0.05),
            added: vec![0.25, 0.5],
            seed: 3,
            objective: Objective::Drawn((0..KNOTS).map(|k| k as f64 / 40.0 - 0.25).collect()),
            noise: 0.05,
            acquisition: Acquisition::Ucb(1.5),
            guessing: true,
            guesses: vec![Some(0.1), None, Some(0.9)],
        };
        let link = LessonLink { lesson: Lesson::GpEi(s.clone()), speed: 1, playing: false, hidden: Default::default() };
        let (back, warnings) = LessonLink::from_query(&link.to_query()).unwrap().unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back.lesson, Lesson::GpEi(s.clone()));
        for bad in [
            GpEiSetting { noise: 0.5, ..GpEiSetting::default() },
            GpEiSetting { acquisition: Acquisition::Ucb(-1.0), ..GpEiSetting::default() },
            GpEiSetting { guesses: vec![Some(2.0)], ..GpEiSetting::default() },
            GpEiSetting { objective: Objective::Drawn(vec![0.0; 3]), ..GpEiSetting::default() },
        ] {
            assert!(frames(&bad, 1).is_err(), "{bad:?}");
        }
        let (back, warnings) = LessonLink::from_query("learn=gp-ei&noise=2&acq=ucb&kappa=x&f=wavy").unwrap().unwrap();
        assert_eq!(back.lesson, Lesson::GpEi(GpEiSetting { acquisition: Acquisition::Ucb(DEFAULT_KAPPA), ..GpEiSetting::default() }));
        assert_eq!(warnings.len(), 3, "{warnings:?}");
    }

    #[test]
    fn added_observations_are_used() {
        let f = frame(&GpEiSetting { added: vec![0.75], ..GpEiSetting::default() }).unwrap();
        assert!(f.observations.iter().any(|o| o.0 == 0.75 && o.2 == Origin::Added));
        assert!(f.best.1 < -5.9);
    }
}
