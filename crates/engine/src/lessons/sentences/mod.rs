//! What each lesson says at each step, computed from that step's state — the fitted model,
//! the acquisition, the pick — so that the sentence beside a chart is true to it; the last
//! step of every lesson says who won and why. One file per lesson; each file's tests read
//! every step's sentence as a class would and check each claim it makes against the frame.

pub mod copula;
pub mod designs;
pub mod gp_ei;
pub mod multi_fidelity;
pub mod pareto;
pub mod transfer;

/// The ordinal of `n` in words a class reads at a glance: "1st", "2nd", "3rd", "11th", "22nd".
pub(crate) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Below this a value is written "below 1e-300" (f64 underflows to 0 near 1e-308, and a
/// value printed as "0e0" reads as exactly nothing).
pub const TINY: f64 = 1e-300;

/// A small non-negative value (an expected improvement) in words a class can read: "3e-7", or
/// "below 1e-300" once it has underflowed, never "0e0".
pub fn tiny(v: f64) -> String {
    if v < TINY {
        "below 1e-300".to_string()
    } else {
        format!("{v:.0e}")
    }
}

/// Seeds over which the claim tests read every step of every lesson (0, 1, …): a sentence
/// true on the default seed alone misleads a class that clicks "another task".
#[cfg(test)]
pub(crate) const CLAIM_SEEDS: u64 = 20;

/// The number after `prefix` in `text` (its first occurrence), as the tests read a claim.
#[cfg(test)]
pub(crate) fn number_after(text: &str, prefix: &str) -> Option<f64> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '−' || c == 'e')).unwrap_or(rest.len());
    rest[..end].trim_end_matches('.').replace('−', "-").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_and_numbers_read_back() {
        assert_eq!(
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 103].map(ordinal),
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd"]
        );
        assert_eq!(number_after("best f = -6.02 at x = 0.755.", "x = "), Some(0.755));
        assert_eq!(number_after("best f = −6.02 at", "f = "), Some(-6.02));
        assert_eq!(number_after("nothing", "x = "), None);
        assert_eq!([3.4e-12, 1e-300, 0.0].map(tiny), ["3e-12", "1e-300", "below 1e-300"]);
    }
}
