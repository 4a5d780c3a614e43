//! The Learn section's lessons: each shows one method from the inside, one step at a time,
//! and is a link that opens ready to play (`?learn=gp-ei&step=3`). A lesson's whole state —
//! its setting, the step, the speed and which panels a teacher hid (`ei_hide=1`, as
//! TensorFlow Playground's `*_hide` switches) — is in that link; every frame is recomputed
//! from it, so stepping back and forth gives identical pictures.
//!
//! Lessons: [`gp_ei`] (1, GP + EI on a 1-D function), [`copula`] (2, the copula warping, and
//! GP against GCP on heavy-tailed values), [`transfer`] (3, the MLP prior, CTS and GCP+prior),
//! [`multi_fidelity`] (4, DyHPO and Hyperband on crossing curves), the GPB initial-design
//! construction (5, `engine::gpb_experiments::design_view` at each iterate of IC or TA) and [`pareto`] (6, the
//! Pareto front of a multi-objective run). [`steps`] records a method's beliefs pick by pick.

pub mod copula;
pub mod designs;
pub mod gp_ei;
pub mod kept_counts;
pub mod multi_fidelity;
pub mod over_seeds;
pub mod pareto;
pub mod sentences;
pub mod steps;
pub mod transfer;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::fidelity::gpb::view_setting::DesignViewSpec;
use crate::percent::decode_component;
use copula::CopulaSetting;
use gp_ei::{GpEiSetting, MAX_STEPS};

/// Steps per second the player offers.
pub const SPEEDS: [u32; 4] = [1, 2, 4, 8];

/// Which lesson, with its own setting.
#[derive(Debug, Clone, PartialEq)]
pub enum Lesson {
    /// Lesson 1: GP + EI in 1-D.
    GpEi(GpEiSetting),
    /// Lesson 2: the copula warping ψ on values arriving one at a time.
    Copula(CopulaSetting),
    /// Lesson 3: transfer from other tasks (step, seed).
    Transfer(SeedStep),
    /// Lesson 4: DyHPO and Hyperband spending the same epochs (step = epochs spent, seed).
    MultiFidelity(SeedStep),
    /// Lesson 5: an initial design built step by step (the setting, the iterate shown, and the
    /// start the user placed by dragging points: (x1, x2, budget level); empty = the method's).
    Designs(DesignViewSpec, usize, Vec<Placed>),
    /// Lesson 6: a multi-objective run (method, step, seed).
    Pareto(String, SeedStep),
}

/// A design point placed by hand in lesson 5: (x1, x2) in [0, 1]² and its budget level.
pub type Placed = (f64, f64, usize);

/// The setting of a lesson that is a seeded run shown step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SeedStep {
    /// The step shown.
    pub step: usize,
    /// The seed (the task drawn and the methods' randomness).
    pub seed: u64,
}

/// Which lesson, apart from its setting: what the lesson list shows and the page dispatches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LessonKind {
    /// Lesson 1.
    GpEi,
    /// Lesson 2.
    Copula,
    /// Lesson 3.
    Transfer,
    /// Lesson 4.
    MultiFidelity,
    /// Lesson 5.
    Designs,
    /// Lesson 6.
    Pareto,
}

/// What defines a lesson besides its setting: its link name, title, the panels a teacher can
/// hide, its last step and how it starts. [`LESSONS`] holds the six, in order.
#[derive(Debug)]
pub struct LessonDef {
    /// Which lesson.
    pub kind: LessonKind,
    /// The link name (`learn=…`).
    pub id: &'static str,
    /// The title in the lesson list.
    pub title: &'static str,
    /// A name short enough for the list of lessons above a lesson ("Copula").
    pub short: &'static str,
    /// The panels a teacher can hide (link names, `…_hide=1`).
    pub panels: &'static [&'static str],
    /// The last step, where the lesson has a fixed number of steps (lesson 5's depends on the
    /// construction).
    pub last_step: Option<usize>,
    /// The lesson at its start.
    pub start: fn() -> Lesson,
}

/// The lessons, in the order of the list.
pub static LESSONS: [LessonDef; 6] = [
    LessonDef {
        kind: LessonKind::GpEi,
        id: "gp-ei",
        title: "1. How Bayesian optimisation picks the next point",
        short: "BO and EI",
        panels: &["text", "controls", "lengthscale", "posterior", "ei", "numbers"],
        last_step: Some(MAX_STEPS),
        start: || Lesson::GpEi(GpEiSetting::default()),
    },
    LessonDef {
        kind: LessonKind::Copula,
        id: "copula",
        title: "2. Making values comparable: the copula warping",
        short: "Copula",
        panels: &["text", "controls", "add", "ecdf", "warped", "versus", "numbers"],
        last_step: Some(copula::MAX_STEPS),
        start: || Lesson::Copula(CopulaSetting::default()),
    },
    LessonDef {
        kind: LessonKind::Transfer,
        id: "transfer",
        title: "3. Learning from other tasks: prior, CTS and GCP+prior",
        short: "Transfer",
        panels: &["text", "controls", "prior", "runs", "regret", "numbers"],
        last_step: Some(transfer::MAX_STEPS),
        start: || Lesson::Transfer(SeedStep::start(transfer::DEFAULT_SEED)),
    },
    LessonDef {
        kind: LessonKind::MultiFidelity,
        id: "multi-fidelity",
        title: "4. Spending epochs wisely: DyHPO and Hyperband",
        short: "DyHPO vs Hyperband",
        panels: &["text", "controls", "dyhpo", "hyperband", "numbers"],
        last_step: Some(multi_fidelity::BUDGET),
        start: || Lesson::MultiFidelity(SeedStep::start(multi_fidelity::DEFAULT_SEED)),
    },
    LessonDef {
        kind: LessonKind::Designs,
        id: "designs",
        title: "5. Where to put the first points",
        short: "Designs",
        panels: &["text", "controls", "settings", "map", "numbers"],
        last_step: None,
        start: || {
            Lesson::Designs(
                DesignViewSpec { method: crate::fidelity::gpb::construct::DesignMethod::Ic, ..DesignViewSpec::default() },
                0,
                Vec::new(),
            )
        },
    },
    LessonDef {
        kind: LessonKind::Pareto,
        id: "pareto",
        title: "6. Several objectives: the Pareto front",
        short: "Pareto front",
        panels: &["text", "controls", "method", "front", "hv", "numbers"],
        last_step: Some(pareto::MAX_STEPS),
        start: || Lesson::Pareto(pareto::DEFAULT_METHOD.into(), SeedStep::start(pareto::DEFAULT_SEED)),
    },
];

impl Lesson {
    /// Which lesson it is.
    pub fn kind(&self) -> LessonKind {
        match self {
            Lesson::GpEi(_) => LessonKind::GpEi,
            Lesson::Copula(_) => LessonKind::Copula,
            Lesson::Transfer(_) => LessonKind::Transfer,
            Lesson::MultiFidelity(_) => LessonKind::MultiFidelity,
            Lesson::Designs(..) => LessonKind::Designs,
            Lesson::Pareto(..) => LessonKind::Pareto,
        }
    }

    /// Its definition in [`LESSONS`].
    pub fn def(&self) -> &'static LessonDef {
        let kind = self.kind();
        LESSONS.iter().find(|d| d.kind == kind).expect("every lesson kind is in LESSONS")
    }

    /// The link name.
    pub fn id(&self) -> &'static str {
        self.def().id
    }

    /// Title shown in the lesson list.
    pub fn title(&self) -> &'static str {
        self.def().title
    }

    /// Every lesson at its start.
    pub fn all() -> Vec<Lesson> {
        LESSONS.iter().map(|d| (d.start)()).collect()
    }

    /// The lesson with link name `id` at its start.
    pub fn by_id(id: &str) -> Option<Lesson> {
        LESSONS.iter().find(|d| d.id == id).map(|d| (d.start)())
    }

    /// The last step, where the lesson has a fixed number of steps.
    pub fn last_step(&self) -> Option<usize> {
        self.def().last_step
    }

    /// The panels a teacher can hide (link names).
    pub fn panels(&self) -> &'static [&'static str] {
        self.def().panels
    }

    /// The step shown.
    pub fn step(&self) -> usize {
        match self {
            Lesson::GpEi(s) => s.step,
            Lesson::Copula(s) => s.step,
            Lesson::Transfer(s) | Lesson::MultiFidelity(s) | Lesson::Pareto(_, s) => s.step,
            Lesson::Designs(_, k, _) => *k,
        }
    }

    /// The same lesson at another step (clamped to the lesson's own limit where it has one).
    pub fn with_step(&self, step: usize) -> Lesson {
        let step = self.last_step().map_or(step, |last| step.min(last));
        match self {
            Lesson::GpEi(s) => Lesson::GpEi(GpEiSetting { step, ..s.clone() }),
            Lesson::Copula(s) => Lesson::Copula(CopulaSetting { step, ..s.clone() }),
            Lesson::Transfer(s) => Lesson::Transfer(SeedStep { step, ..*s }),
            Lesson::MultiFidelity(s) => Lesson::MultiFidelity(SeedStep { step, ..*s }),
            Lesson::Designs(d, _, placed) => Lesson::Designs(*d, step, placed.clone()),
            Lesson::Pareto(m, s) => Lesson::Pareto(m.clone(), SeedStep { step, ..*s }),
        }
    }
}

impl Lesson {
    /// The worker job whose frames this lesson shows (its step ignored: one job computes every
    /// step of a setting; lesson 2's first part is computed on the page, its job is the GP
    /// against GCP part). The page asks again only when the job changes.
    pub fn job(&self) -> LessonJob {
        match self {
            Lesson::GpEi(s) => LessonJob::GpEi(GpEiSetting { step: 0, ..s.clone() }),
            Lesson::Copula(s) => LessonJob::Versus(s.seed),
            Lesson::Transfer(s) => LessonJob::Transfer(s.seed),
            Lesson::MultiFidelity(s) => LessonJob::MultiFidelity(s.seed),
            Lesson::Designs(d, _, placed) => LessonJob::Designs(*d, placed.clone()),
            Lesson::Pareto(m, s) => LessonJob::Pareto(m.clone(), s.seed),
        }
    }
}

impl Lesson {
    /// The same lesson and step on another seed (`None` for lesson 5, which has no seed):
    /// what a click on a seed of the count over seeds opens.
    pub fn with_seed(&self, seed: u64) -> Option<Lesson> {
        Some(match self {
            Lesson::GpEi(s) => Lesson::GpEi(GpEiSetting { seed, ..s.clone() }),
            Lesson::Copula(s) => Lesson::Copula(CopulaSetting { seed, ..s.clone() }),
            Lesson::Transfer(s) => Lesson::Transfer(SeedStep { seed, ..*s }),
            Lesson::MultiFidelity(s) => Lesson::MultiFidelity(SeedStep { seed, ..*s }),
            Lesson::Pareto(m, s) => Lesson::Pareto(m.clone(), SeedStep { seed, ..*s }),
            Lesson::Designs(..) => return None,
        })
    }

    /// The seed shown (`None` for lesson 5).
    pub fn seed(&self) -> Option<u64> {
        match self {
            Lesson::GpEi(s) => Some(s.seed),
            Lesson::Copula(s) => Some(s.seed),
            Lesson::Transfer(s) | Lesson::MultiFidelity(s) | Lesson::Pareto(_, s) => Some(s.seed),
            Lesson::Designs(..) => None,
        }
    }

    /// The worker jobs that count the lesson's race over seeds, one a part of the seeds (the
    /// seed shown and the step ignored: one count serves every seed), for the lessons that
    /// race methods from a seed; lesson 5's construction has no seed, and its random designs
    /// come with its frames. Two parts, so that two workers share the count.
    pub fn over_seeds_jobs(&self) -> Option<[LessonJob; 2]> {
        let kind = match self {
            Lesson::GpEi(s) => OverSeedsOf::GpEi(GpEiSetting { step: 0, seed: 0, ..s.clone() }),
            Lesson::Copula(_) => OverSeedsOf::Copula,
            Lesson::Transfer(_) => OverSeedsOf::Transfer,
            Lesson::MultiFidelity(_) => OverSeedsOf::MultiFidelity,
            Lesson::Pareto(..) => OverSeedsOf::Pareto,
            Lesson::Designs(..) => return None,
        };
        let half = over_seeds::VERDICT_SEEDS / 2;
        Some([LessonJob::OverSeeds(kind.clone(), 0..half), LessonJob::OverSeeds(kind, half..over_seeds::VERDICT_SEEDS)])
    }
}

/// Which lesson's race a count over seeds is of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OverSeedsOf {
    /// Lesson 1 with this setting (its seed and step ignored).
    GpEi(GpEiSetting),
    /// Lesson 2's GP against GCP.
    Copula,
    /// Lesson 3.
    Transfer,
    /// Lesson 4.
    MultiFidelity,
    /// Lesson 6.
    Pareto,
}

/// Lesson work heavy enough for a Web Worker (it brings the GP and GPB fitting code, which
/// the page's own bundle then need not carry): every frame of a setting at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LessonJob {
    /// Lesson 1: frames 0 ..= `MAX_STEPS` of a setting (its step ignored).
    GpEi(GpEiSetting),
    /// Lesson 1's first frames only, 0 ..= `steps` (the landing's preview: later steps, with
    /// more points, cost the most, and a first visit waits for them).
    GpEiFirst(GpEiSetting, usize),
    /// Lesson 2's second part: GP and GCP side by side from this seed.
    Versus(u64),
    /// Lesson 3 for a seed.
    Transfer(u64),
    /// Lesson 4 for a seed.
    MultiFidelity(u64),
    /// Lesson 5: the view at every iterate of a construction on the unit square, from the
    /// placed start if any.
    Designs(DesignViewSpec, Vec<Placed>),
    /// Lesson 6: (method, seed).
    Pareto(String, u64),
    /// A part of a lesson's race over [`over_seeds::VERDICT_SEEDS`] seeds.
    OverSeeds(OverSeedsOf, std::ops::Range<u64>),
}

/// What a [`LessonJob`] returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LessonFrames {
    /// Lesson 1's frames, step 0 first.
    GpEi(Vec<gp_ei::GpEiFrame>),
    /// Lesson 2's GP and GCP runs.
    Versus(copula::Versus),
    /// Lesson 3's prior and runs.
    Transfer(transfer::TransferFrames),
    /// Lesson 4's runs.
    MultiFidelity(multi_fidelity::MultiFidelityFrames),
    /// Lesson 5's views, iterate 0 first, and random designs to compare with.
    Designs(designs::DesignFrames),
    /// Lesson 6's run.
    Pareto(pareto::ParetoFrames),
    /// A lesson's race counted over seeds.
    OverSeeds(over_seeds::OverSeeds),
}

impl LessonJob {
    /// Computes every frame of the job (deterministic given the job).
    pub fn run(&self) -> crate::error::Result<LessonFrames> {
        match self {
            LessonJob::GpEi(s) => gp_ei::frames(s, MAX_STEPS).map(LessonFrames::GpEi),
            LessonJob::GpEiFirst(s, steps) => gp_ei::frames(s, *steps).map(LessonFrames::GpEi),
            LessonJob::Versus(seed) => copula::versus(*seed).map(LessonFrames::Versus),
            LessonJob::Transfer(seed) => transfer::frames(*seed).map(LessonFrames::Transfer),
            LessonJob::MultiFidelity(seed) => multi_fidelity::frames(*seed).map(LessonFrames::MultiFidelity),
            LessonJob::Pareto(method, seed) => pareto::frames(method, *seed).map(LessonFrames::Pareto),
            LessonJob::Designs(spec, placed) => designs::frames(spec, placed).map(LessonFrames::Designs),
            LessonJob::OverSeeds(of, seeds) => match of {
                OverSeedsOf::GpEi(s) => sentences::gp_ei::over_seeds(s, seeds.clone()),
                OverSeedsOf::Copula => sentences::copula::over_seeds(seeds.clone()),
                OverSeedsOf::Transfer => sentences::transfer::over_seeds(seeds.clone()),
                OverSeedsOf::MultiFidelity => sentences::multi_fidelity::over_seeds(seeds.clone()),
                OverSeedsOf::Pareto => sentences::pareto::over_seeds(seeds.clone()),
            }
            .map(LessonFrames::OverSeeds),
        }
    }
}

/// A lesson link: the lesson, the player's speed and the hidden panels.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonLink {
    /// The lesson and its setting.
    pub lesson: Lesson,
    /// Steps per second when playing.
    pub speed: u32,
    /// Play on opening.
    pub playing: bool,
    /// Panels hidden by the link.
    pub hidden: BTreeSet<String>,
}

impl LessonLink {
    /// A lesson at its start, paused, everything shown.
    pub fn new(lesson: Lesson) -> Self {
        LessonLink { lesson, speed: 1, playing: false, hidden: BTreeSet::new() }
    }

    /// The query string (without `?`).
    pub fn to_query(&self) -> String {
        let mut q = vec![format!("learn={}", self.lesson.id()), format!("step={}", self.lesson.step())];
        match &self.lesson {
            Lesson::GpEi(s) => s.write_link(&mut q),
            Lesson::Copula(s) => s.write_link(&mut q),
            Lesson::Transfer(s) => s.write_link(transfer::DEFAULT_SEED, &mut q),
            Lesson::MultiFidelity(s) => s.write_link(multi_fidelity::DEFAULT_SEED, &mut q),
            Lesson::Designs(d, _, placed) => designs::write_link(d, placed, &mut q),
            Lesson::Pareto(m, s) => pareto::write_link(m, s, &mut q),
        }
        if self.speed != 1 {
            q.push(format!("speed={}", self.speed));
        }
        if self.playing {
            q.push("play=1".into());
        }
        q.extend(self.hidden.iter().map(|h| format!("{h}_hide=1")));
        q.join("&")
    }

    /// Parses a query with `learn=`: `None` when it is no lesson link, an error when it names
    /// a lesson that does not exist. Each bad field of a lesson is named in a warning and left
    /// at its default.
    pub fn from_query(query: &str) -> Option<Result<(LessonLink, Vec<String>), String>> {
        let query = crate::permalink::plain_query(query);
        let pairs: Vec<(String, String)> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                // A broken escape reads as an invalid value, named by the field's own warning.
                (k.to_string(), decode_component(v).unwrap_or_else(|| "\u{FFFD}".into()))
            })
            .collect();
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let id = get("learn")?;
        let mut warnings = Vec::new();
        let Some(mut lesson) = Lesson::by_id(id) else {
            let ids: Vec<&str> = LESSONS.iter().map(|d| d.id).collect();
            return Some(Err(format!("there is no lesson '{id}'; the lessons are {}", ids.join(", "))));
        };
        let step = match get("step").map(|v| v.parse::<usize>()) {
            None => 0,
            Some(Ok(s)) => s,
            Some(Err(_)) => {
                warnings.push("the link's step is not a whole number: starting at step 0".into());
                0
            }
        };
        if let Some(last) = lesson.last_step().filter(|&last| step > last) {
            warnings.push(format!("the lesson has {last} steps: showing step {last}"));
        }
        lesson = lesson.with_step(step);
        let fields = Fields(&pairs);
        match &mut lesson {
            Lesson::GpEi(s) => s.read_link(&fields, &mut warnings),
            Lesson::Copula(s) => s.read_link(&fields, &mut warnings),
            Lesson::Transfer(s) => s.read_link(transfer::DEFAULT_SEED, &fields, &mut warnings),
            Lesson::MultiFidelity(s) => s.read_link(multi_fidelity::DEFAULT_SEED, &fields, &mut warnings),
            Lesson::Designs(d, _, placed) => designs::read_link(d, placed, &fields, &mut warnings),
            Lesson::Pareto(m, s) => pareto::read_link(m, s, &fields, &mut warnings),
        }
        let speed = match get("speed").map(|v| v.parse::<u32>()) {
            None => 1,
            Some(Ok(s)) if SPEEDS.contains(&s) => s,
            Some(_) => {
                warnings.push(format!("the speed must be one of {SPEEDS:?} steps per second: using 1"));
                1
            }
        };
        let playing = matches!(get("play"), Some("1" | "true"));
        let mut hidden = BTreeSet::new();
        for (k, v) in &pairs {
            if let Some(panel) = k.strip_suffix("_hide") {
                if !lesson.panels().contains(&panel) {
                    warnings.push(format!("this lesson has no panel '{panel}' to hide (it has {})", lesson.panels().join(", ")));
                } else if matches!(v.as_str(), "1" | "true") {
                    hidden.insert(panel.to_string());
                }
            }
        }
        Some(Ok((LessonLink { lesson, speed, playing, hidden }, warnings)))
    }
}

/// A lesson link's fields after decoding, as each lesson's file reads them.
pub struct Fields<'a>(&'a [(String, String)]);

impl<'a> Fields<'a> {
    /// The value of `key`, if the link has it.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

impl SeedStep {
    /// A lesson's start: step 0 of its default seed.
    pub fn start(seed: u64) -> Self {
        SeedStep { step: 0, seed }
    }

    /// Its link fields besides the step: the seed, where it is not the lesson's default.
    pub fn write_link(&self, default_seed: u64, q: &mut Vec<String>) {
        if self.seed != default_seed {
            q.push(format!("seed={}", self.seed));
        }
    }

    /// Reads its link fields besides the step, naming a bad one.
    pub fn read_link(&mut self, default_seed: u64, fields: &Fields, warnings: &mut Vec<String>) {
        self.seed = parse_seed(fields.get("seed"), default_seed, warnings);
    }
}

/// A lesson's seed field (`default` when absent or bad, with a warning when bad).
pub(crate) fn parse_seed(value: Option<&str>, default: u64, warnings: &mut Vec<String>) -> u64 {
    match value.map(str::parse::<u64>) {
        None => default,
        Some(Ok(seed)) => seed,
        Some(Err(_)) => {
            warnings.push(format!("the seed '{}' is not a whole number: using {default}", value.unwrap_or_default()));
            default
        }
    }
}

/// What `read` makes of the link fields of `query` (plain `key=value` pairs, not decoded), and
/// the warnings it gave: the link-field tests of the lessons' parts.
#[cfg(test)]
pub(crate) fn read_fields<T>(query: &str, read: impl Fn(&Fields, &mut Vec<String>) -> T) -> (T, Vec<String>) {
    let pairs: Vec<(String, String)> =
        query.split('&').filter_map(|p| p.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut warnings = Vec::new();
    (read(&Fields(&pairs), &mut warnings), warnings)
}

/// A comma-separated list of at most `max` numbers that pass `valid`; bad or surplus entries
/// are dropped with the warning `what`.
pub(crate) fn parse_list(value: Option<&str>, max: usize, valid: impl Fn(f64) -> bool, what: &str, warnings: &mut Vec<String>) -> Vec<f64> {
    let Some(v) = value.filter(|v| !v.is_empty()) else { return Vec::new() };
    let parsed: Vec<Option<f64>> = v.split(',').map(|x| x.parse::<f64>().ok().filter(|x| valid(*x))).collect();
    if parsed.iter().any(Option::is_none) || parsed.len() > max {
        warnings.push(format!("{what}: ignoring the bad ones"));
    }
    parsed.into_iter().flatten().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip() {
        let link = LessonLink {
            lesson: Lesson::GpEi(GpEiSetting {
                step: 4,
                lengthscale: Some(0.05),
                added: vec![0.25, 0.5],
                seed: 3,
                ..GpEiSetting::default()
            }),
            speed: 4,
            playing: true,
            hidden: ["ei".to_string(), "text".to_string()].into(),
        };
        let q = link.to_query();
        assert_eq!(q, "learn=gp-ei&step=4&ls=0.05&lx=0.25,0.5&seed=3&speed=4&play=1&ei_hide=1&text_hide=1");
        assert_eq!(LessonLink::from_query(&q), Some(Ok((link, vec![]))));
        let copula = LessonLink::new(Lesson::Copula(CopulaSetting { step: 5, added: vec![1e6, -2.5], seed: 2 }));
        assert_eq!(copula.to_query(), "learn=copula&step=5&ly=1000000,-2.5&seed=2");
        assert_eq!(LessonLink::from_query(&copula.to_query()), Some(Ok((copula, vec![]))));
        let designs = LessonLink::new(Lesson::Designs(DesignViewSpec::default(), 7, Vec::new()));
        // The worker's jobs: every frame of the setting, whatever its step, starting at step 0.
        let LessonFrames::GpEi(all) = LessonJob::GpEi(GpEiSetting { step: 7, ..GpEiSetting::default() }).run().unwrap() else { panic!() };
        assert_eq!(all.len(), MAX_STEPS + 1);
        assert_eq!(all[0].observations.len(), gp_ei::INITIAL_POINTS);
        let spec = DesignViewSpec { method: crate::fidelity::gpb::construct::DesignMethod::Ic, ..DesignViewSpec::default() };
        let LessonFrames::Designs(designs::DesignFrames { views, .. }) = LessonJob::Designs(spec, Vec::new()).run().unwrap() else {
            panic!()
        };
        assert!(views.len() > 1 && views.iter().enumerate().all(|(k, v)| v.shown_iterate == k && v.iterates == views.len()));
        assert_eq!(LessonLink::from_query(&designs.to_query()), Some(Ok((designs, vec![]))));
        assert_eq!(LessonLink::from_query("v=1&seeds=3"), None, "not a lesson link");
        for lesson in [
            Lesson::Transfer(SeedStep { step: 4, seed: 2 }),
            Lesson::MultiFidelity(SeedStep { step: 77, seed: multi_fidelity::DEFAULT_SEED + 1 }),
            Lesson::Pareto("GP+MO".into(), SeedStep { step: 9, seed: 5 }),
        ] {
            let link = LessonLink { hidden: [lesson.panels()[2].to_string()].into(), ..LessonLink::new(lesson) };
            assert_eq!(LessonLink::from_query(&link.to_query()), Some(Ok((link.clone(), vec![]))), "{}", link.to_query());
        }
        assert_eq!(
            LessonLink::new(Lesson::Pareto("GCP+MO".into(), SeedStep { step: 1, seed: pareto::DEFAULT_SEED })).to_query(),
            "learn=pareto&step=1&lm=GCP%2BMO"
        );
        // A seed of the count over seeds opens the same lesson and step on that seed.
        let shown = Lesson::MultiFidelity(SeedStep { step: multi_fidelity::BUDGET, seed: 2 });
        assert_eq!(shown.with_seed(7), Some(Lesson::MultiFidelity(SeedStep { step: multi_fidelity::BUDGET, seed: 7 })));
        assert!(Lesson::all().iter().all(|l| l.with_seed(5).map(|o| (o.seed(), o.step())) == l.seed().map(|_| (Some(5), l.step()))));
        assert_eq!(
            Lesson::all().iter().filter(|l| l.over_seeds_jobs().is_some()).count(),
            5,
            "every lesson but lesson 5 counts over seeds"
        );
        // Lesson 1's count in two parts is the count of seeds 0–19.
        let Some([a, b]) = Lesson::all()[0].over_seeds_jobs() else { panic!() };
        let part = |j: LessonJob| match j.run().unwrap() {
            LessonFrames::OverSeeds(o) => o,
            _ => panic!(),
        };
        let joined = over_seeds::OverSeeds::joined([part(a), part(b)]).unwrap();
        assert_eq!(joined, sentences::gp_ei::over_seeds(&GpEiSetting::default(), 0..over_seeds::VERDICT_SEEDS).unwrap());
        // Every lesson is in the list once, under its own name.
        let ids: Vec<&str> = Lesson::all().iter().map(Lesson::id).collect();
        assert_eq!(ids, ["gp-ei", "copula", "transfer", "multi-fidelity", "designs", "pareto"]);
    }

    #[test]
    fn each_bad_field_is_named_and_defaults() {
        let (link, warnings) =
            LessonLink::from_query("learn=gp-ei&step=x&ls=7&lx=0.2,2,abc&seed=-1&speed=3&bogus_hide=1&ei_hide=1").unwrap().unwrap();
        assert_eq!(link.lesson, Lesson::GpEi(GpEiSetting { added: vec![0.2], ..GpEiSetting::default() }));
        assert_eq!(link.hidden, ["ei".to_string()].into());
        assert_eq!(link.speed, 1);
        let all = warnings.join("\n");
        for part in ["step", "lengthscale '7'", "added points", "seed '-1'", "speed", "no panel 'bogus'"] {
            assert!(all.contains(part), "{part} in {all}");
        }
        let (link, warnings) = LessonLink::from_query("learn=gp-ei&step=99").unwrap().unwrap();
        assert_eq!(link.lesson.step(), MAX_STEPS);
        assert_eq!(warnings.len(), 1);
        // A lesson that does not exist is an error naming the six, not lesson 1.
        let e = LessonLink::from_query("learn=nope&step=99").unwrap().unwrap_err();
        assert!(e.contains("no lesson 'nope'") && LESSONS.iter().all(|d| e.contains(d.id)), "{e}");
        // Lesson 5 from a placed design: the link carries it, iterate 0 is it, IC improves it.
        let placed: Vec<Placed> = vec![(0.1, 0.1, 0), (0.2, 0.15, 1), (0.15, 0.2, 2), (0.3, 0.3, 0), (0.25, 0.1, 2)];
        let spec = DesignViewSpec { method: crate::fidelity::gpb::construct::DesignMethod::Ic, points: 5, ..DesignViewSpec::default() };
        let link = LessonLink::new(Lesson::Designs(spec, 0, placed.clone()));
        assert!(link.to_query().contains("lp=0.1:0.1:0,0.2:0.15:1,"), "{}", link.to_query());
        assert_eq!(LessonLink::from_query(&link.to_query()), Some(Ok((link, vec![]))));
        let LessonFrames::Designs(designs::DesignFrames { views, .. }) = LessonJob::Designs(spec, placed.clone()).run().unwrap() else {
            panic!()
        };
        assert_eq!(views[0].points, placed, "iterate 0 is the placed design");
        assert!(views.len() > 1 && views.last().unwrap().max_d < views[0].max_d, "IC improves a bunched design");
        for bad in ["0.1:0.1", "0.1:0.1:3,0.2:0.2:0,0.3:0.3:0,0.4:0.4:0", "2:0:0,0:0:0,0:0:0,0:0:0", "0.1:0.1:0"] {
            let (link, warnings) = LessonLink::from_query(&format!("learn=designs&lp={bad}")).unwrap().unwrap();
            assert!(matches!(link.lesson, Lesson::Designs(_, _, ref p) if p.is_empty()) && warnings.len() == 1, "{bad}");
        }
        let (_, warnings) = LessonLink::from_query("learn=designs&design=IC.D.10.0.1.2").unwrap().unwrap();
        assert_eq!(warnings.len(), 1, "lesson 5 draws the unit square only");
        let (link, warnings) = LessonLink::from_query("learn=pareto&step=500&lm=GCP%2Bprior&seed=x").unwrap().unwrap();
        assert_eq!(
            link.lesson,
            Lesson::Pareto(pareto::DEFAULT_METHOD.into(), SeedStep { step: pareto::MAX_STEPS, seed: pareto::DEFAULT_SEED })
        );
        let all = warnings.join("\n");
        for part in ["30 steps", "no method 'GCP+prior'", "seed 'x'"] {
            assert!(all.contains(part), "{part} in {all}");
        }
    }
}
