//! The functions lesson 1 minimises on [0, 1]: three textbook ones, each teaching something,
//! and one the student draws.
//!
//! - Forrester et al. (2008), f(x) = (6x − 2)² sin(12x − 4): a global minimum near x = 0.757,
//!   a local one near 0.143 and a flat shoulder between — the classic picture.
//! - Gramacy & Lee (2012), g(t) = sin(10πt)/(2t) + (t − 1)⁴ on t ∈ [0.5, 2.5] (here t = 0.5 + 2x):
//!   many local minima, the deepest at the left edge — a GP must resolve wiggles.
//! - A smooth bowl with a narrow well, 2(x − 0.35)² − 1.6·exp(−((x − 0.82)/0.02)²): the well
//!   is invisible until a point lands in it — no acquisition finds what the model has no
//!   reason to expect.
//! - A drawn one: [`KNOTS`] values the student sets along [0, 1], joined by straight lines.

use serde::{Deserialize, Serialize};

use super::super::{parse_list, Fields};

/// Points of a drawn function, evenly spaced on [0, 1] (ends included).
pub const KNOTS: usize = 21;
/// The values a drawn function's points may take.
pub const DRAWN_RANGE: (f64, f64) = (-1.0, 1.0);

/// The function the lesson minimises.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub enum Objective {
    /// Forrester et al. (2008).
    #[default]
    Forrester,
    /// Gramacy & Lee (2012), rescaled to [0, 1].
    GramacyLee,
    /// A smooth bowl with a narrow well near x = 0.82.
    NarrowWell,
    /// The student's: [`KNOTS`] values in [`DRAWN_RANGE`], joined by straight lines.
    Drawn(Vec<f64>),
}

/// Forrester et al. (2008): the lesson's default function.
pub fn forrester(x: f64) -> f64 {
    (6.0 * x - 2.0).powi(2) * (12.0 * x - 4.0).sin()
}

impl Objective {
    /// The named functions, in the order the page offers them (the drawn one is made by drawing).
    pub const NAMED: [Objective; 3] = [Objective::Forrester, Objective::GramacyLee, Objective::NarrowWell];

    /// Its name in a link.
    pub fn link_name(&self) -> &'static str {
        match self {
            Objective::Forrester => "forrester",
            Objective::GramacyLee => "gramacy-lee",
            Objective::NarrowWell => "narrow-well",
            Objective::Drawn(_) => "drawn",
        }
    }

    /// Its name in words.
    pub fn title(&self) -> &'static str {
        match self {
            Objective::Forrester => "Forrester et al.'s function (one deep valley, one shallow)",
            Objective::GramacyLee => "Gramacy & Lee's function (many wiggles)",
            Objective::NarrowWell => "a bowl with a narrow well",
            Objective::Drawn(_) => "your drawing",
        }
    }

    /// f(x) for x in [0, 1].
    pub fn value(&self, x: f64) -> f64 {
        match self {
            Objective::Forrester => forrester(x),
            Objective::GramacyLee => {
                let t = 0.5 + 2.0 * x;
                libm::sin(10.0 * std::f64::consts::PI * t) / (2.0 * t) + (t - 1.0).powi(4)
            }
            Objective::NarrowWell => {
                let w = (x - 0.82) / 0.02;
                2.0 * (x - 0.35) * (x - 0.35) - 1.6 * libm::exp(-w * w)
            }
            Objective::Drawn(knots) => {
                let s = x.clamp(0.0, 1.0) * (KNOTS - 1) as f64;
                let k = (s.floor() as usize).min(KNOTS - 2);
                let t = s - k as f64;
                knots[k] + t * (knots[k + 1] - knots[k])
            }
        }
    }

    /// The minimum (x, f(x)) over 100,001 evenly spaced points (a drawn function's lies on one
    /// of its points, all of which are among them).
    pub fn minimum(&self) -> (f64, f64) {
        (0..=100_000)
            .map(|i| i as f64 / 100_000.0)
            .map(|x| (x, self.value(x)))
            .fold((0.0, f64::INFINITY), |b, p| if p.1 < b.1 { p } else { b })
    }

    /// The largest minus the smallest value on `xs`.
    pub fn range_on(&self, xs: &[f64]) -> f64 {
        let (lo, hi) = xs.iter().map(|&x| self.value(x)).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        hi - lo
    }

    /// Whether it can be minimised: a drawn function has [`KNOTS`] finite values in range.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Objective::Drawn(k) if k.len() != KNOTS || k.iter().any(|v| !(DRAWN_RANGE.0..=DRAWN_RANGE.1).contains(v)) => {
                Err(format!("a drawn function needs {KNOTS} values in [{}, {}]", DRAWN_RANGE.0, DRAWN_RANGE.1))
            }
            _ => Ok(()),
        }
    }

    /// Its link fields: none for the default, `f=` otherwise, and a drawing's values (`fy=`).
    pub fn write_link(&self, q: &mut Vec<String>) {
        if *self != Objective::Forrester {
            q.push(format!("f={}", self.link_name()));
        }
        if let Objective::Drawn(k) = self {
            q.push(format!("fy={}", k.iter().map(|v| format!("{v}")).collect::<Vec<_>>().join(",")));
        }
    }

    /// Reads its link fields, naming a bad one (and falling back to Forrester's function).
    pub fn read_link(fields: &Fields, warnings: &mut Vec<String>) -> Objective {
        match fields.get("f") {
            None | Some("forrester") => Objective::Forrester,
            Some("gramacy-lee") => Objective::GramacyLee,
            Some("narrow-well") => Objective::NarrowWell,
            Some("drawn") => {
                let what = format!("a drawn function needs {KNOTS} values in [{}, {}]", DRAWN_RANGE.0, DRAWN_RANGE.1);
                let mut local = Vec::new();
                let knots = parse_list(fields.get("fy"), KNOTS, |v| (DRAWN_RANGE.0..=DRAWN_RANGE.1).contains(&v), &what, &mut local);
                if knots.len() == KNOTS && local.is_empty() {
                    Objective::Drawn(knots)
                } else {
                    warnings.push(format!("{what}: using Forrester et al.'s function instead"));
                    Objective::Forrester
                }
            }
            Some(other) => {
                warnings.push(format!(
                    "the function '{other}' is not one of forrester, gramacy-lee, narrow-well or drawn: using Forrester et al.'s"
                ));
                Objective::Forrester
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_functions_have_their_known_minima() {
        let (x, y) = Objective::Forrester.minimum();
        assert!((x - 0.7572).abs() < 1e-3 && (y + 6.0207).abs() < 1e-3, "{x} {y}");
        // Gramacy & Lee's minimum is at t ≈ 0.5486, g ≈ −0.869 (their paper's figure).
        let (x, y) = Objective::GramacyLee.minimum();
        assert!((0.5 + 2.0 * x - 0.5486).abs() < 1e-3 && (y + 0.869).abs() < 1e-3, "{x} {y}");
        // The well, not the bowl: near 0.82 and below the bowl's bottom (0 at 0.35).
        let (x, y) = Objective::NarrowWell.minimum();
        assert!((x - 0.82).abs() < 0.01 && y < -1.0, "{x} {y}");
        assert!(Objective::NarrowWell.value(0.35).abs() < 1e-12);
    }

    #[test]
    fn a_drawn_function_joins_its_points_with_straight_lines() {
        let knots: Vec<f64> = (0..KNOTS).map(|k| if k == 7 { -1.0 } else { (k as f64 / 20.0) - 0.5 }).collect();
        let f = Objective::Drawn(knots.clone());
        for (k, v) in knots.iter().enumerate() {
            assert_eq!(f.value(k as f64 / 20.0), *v, "at point {k}");
        }
        assert!((f.value(0.025) - (knots[0] + knots[1]) / 2.0).abs() < 1e-12);
        assert_eq!(f.minimum(), (0.35, -1.0));
        assert!(f.check().is_ok());
        assert!(Objective::Drawn(vec![0.0; 5]).check().is_err());
        assert!(Objective::Drawn(vec![2.0; KNOTS]).check().is_err());
    }

    #[test]
    fn links_name_the_function_and_refuse_bad_ones_in_words() {
        let read = |query: &str| crate::lessons::read_fields(query, Objective::read_link);
        for f in [
            Objective::Forrester,
            Objective::GramacyLee,
            Objective::NarrowWell,
            Objective::Drawn((0..KNOTS).map(|k| k as f64 / 40.0).collect()),
        ] {
            let mut q = Vec::new();
            f.write_link(&mut q);
            assert_eq!(read(&q.join("&")), (f, vec![]));
        }
        let (f, w) = read("f=sphere");
        assert_eq!(f, Objective::Forrester);
        assert!(w[0].contains("'sphere'"), "{w:?}");
        let (f, w) = read("f=drawn&fy=0.1,0.2");
        assert_eq!(f, Objective::Forrester);
        assert!(w[0].contains("21 values"), "{w:?}");
    }
}
