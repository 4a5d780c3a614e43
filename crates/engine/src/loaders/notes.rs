//! One line for everything a loader noted about a file: the page shows it as a single banner
//! ("taskset.csv: 8 hyperparameters on a log scale, 11,978 diverged or missing curve points
//! repaired, curves of 50 steps") with each note behind it, instead of one banner per note.

use super::clean::REPAIR_NOTE;

/// Sums up `notes` (each "{file}: …", as the loaders write them) in one line, or `None` when
/// there are none. A single note is its own summary.
pub fn summary(notes: &[String]) -> Option<String> {
    match notes {
        [] => return None,
        [one] => return Some(one.clone()),
        _ => {}
    }
    let file = notes[0].split_once(": ").map_or("", |(f, _)| f);
    let body = |n: &str| n.split_once(": ").map_or(n, |(_, b)| b).to_string();
    let mut parts = Vec::new();
    let mut other = 0;
    let log_scaled = notes.iter().filter(|n| n.contains("modelled on a log scale")).count();
    if log_scaled > 0 {
        parts.push(format!("{} on a log scale", plural(log_scaled, "hyperparameter")));
    }
    for n in notes.iter().filter(|n| !n.contains("modelled on a log scale")) {
        let b = body(n);
        if b.contains(REPAIR_NOTE) {
            parts.push(repairs(&b));
        } else if let Some(steps) = b.strip_prefix("learning curves with ").and_then(|r| r.split(' ').next()) {
            parts.push(format!("curves of {steps} steps"));
        } else {
            other += 1;
        }
    }
    if other > 0 {
        parts.push(format!("{other} more note{}", if other == 1 { "" } else { "s" }));
    }
    Some(format!("{file}: {}", parts.join(", ")))
}

/// "4515 curve points in 214 rows missing or non-finite …, set to …" → "4,515 diverged or
/// missing curve points repaired" (or "dropped").
fn repairs(body: &str) -> String {
    let mut words = body.split(' ');
    let count = words.next().and_then(|w| w.parse::<u64>().ok());
    let what: Vec<&str> = words.take_while(|w| *w != "in" && !REPAIR_NOTE.starts_with(*w)).collect();
    let what = if what.is_empty() { "values".to_string() } else { what.join(" ") };
    let verb = if body.contains("set to") || body.contains("counted as") { "repaired" } else { "dropped" };
    match count {
        Some(c) => format!("{} diverged or missing {what} {verb}", thousands(c)),
        None => format!("diverged or missing {what} {verb}"),
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// 11978 → "11,978".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_curve_file_s_notes_become_one_line() {
        let notes: Vec<String> = [
            "raw.csv: 'step_0' is the untrained value (step 0): not a hyperparameter nor a budget step; it bounds what counts as diverged",
            "raw.csv: 11978 curve points in 214 rows missing or non-finite or worse than untrained, set to the untrained value from the first diverged point on (missing=untrained) (untrained value: each run's 'step_0'; 2.313 to 2.380)",
            "raw.csv: 'hp_a' spans 1e-6 to 0.9 (6.0 decades): modelled on a log scale (lin=hp_a in the link keeps it linear)",
            "raw.csv: 'hp_b' spans 1e-6 to 0.9 (6.0 decades): modelled on a log scale (lin=hp_b in the link keeps it linear)",
            "raw.csv: learning curves with 50 steps; the objective is the value at the last step, minimised (switch the direction in Setup if larger is better)",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            summary(&notes).unwrap(),
            "raw.csv: 2 hyperparameters on a log scale, 11,978 diverged or missing curve points repaired, curves of 50 steps, 1 more note"
        );
        assert_eq!(summary(&notes[..1]).unwrap(), notes[0]);
        assert_eq!(summary(&[]), None);
        let dropped = "t.csv: 40 missing or non-finite values in 7 rows, dropped (missing=drop)".to_string();
        assert_eq!(repairs(dropped.split_once(": ").unwrap().1), "40 diverged or missing values dropped");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
