//! Axis ticks every chart uses: "nice" linear steps of 1, 2 or 5 × 10^k whose labels share one
//! number of decimals, and log axes at decades (with 2 and 5 between them when the axis spans
//! less than two decades). Pure functions, so that they are tested natively; the page's charts
//! only draw what they return.
//!
//! Why not a crate: plotters computes ticks inside its own drawing backends, and no small
//! crate offers only the tick algorithm; this is Heckbert's "nice numbers" (Graphics Gems,
//! 1990) with the labelling rule d3 uses (decimals from the step, not from each value).

/// Tick positions and their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    /// Values, increasing.
    pub values: Vec<f64>,
    /// One label per value.
    pub labels: Vec<String>,
}

/// The nice step for about `target` intervals over `span` (> 0): 1, 2 or 5 × 10^k.
pub fn nice_step(span: f64, target: usize) -> f64 {
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let m = raw / mag;
    let nice = if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// [lo, hi] widened to whole steps of the ticks [`linear`] would put on it.
pub fn nice_range(lo: f64, hi: f64, target: usize) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return (lo, hi);
    }
    let step = nice_step(hi - lo, target);
    ((lo / step).floor() * step, (hi / step).ceil() * step)
}

/// About `target` + 1 ticks inside [lo, hi] at a nice step, labelled with the step's decimals
/// (0.0, 0.5, 1.0), or in scientific notation with a shared mantissa precision when the
/// values are very large or very small (2e-5, 4e-5; 1.2e-4, 1.3e-4).
pub fn linear(lo: f64, hi: f64, target: usize) -> Ticks {
    if !(lo.is_finite() && hi.is_finite()) {
        return Ticks { values: Vec::new(), labels: Vec::new() };
    }
    if hi <= lo {
        return Ticks { values: vec![lo], labels: vec![label(lo, 0.0, scientific(lo.abs(), 0.0))] };
    }
    let step = nice_step(hi - lo, target);
    let (first, last) = ((lo / step - 1e-9).ceil() as i64, (hi / step + 1e-9).floor() as i64);
    // k·step, not lo + k·step: 0 is exactly 0 and 0.3 prints as 0.3.
    let values: Vec<f64> = (first..=last).map(|k| k as f64 * step).collect();
    let sci = scientific(lo.abs().max(hi.abs()), step);
    let labels = values.iter().map(|&v| label(v, step, sci)).collect();
    Ticks { values, labels }
}

/// [`linear`] ticks over [lo, hi] drawn along `width` units, with at most about `target`
/// intervals and as many as leave `gap` between labels `char_width` wide per character: an
/// axis of seconds up to 104,600 gets 0, 20000, … rather than eleven labels run together.
pub fn linear_fitting(lo: f64, hi: f64, target: usize, width: f64, char_width: f64, gap: f64) -> Ticks {
    for t in (1..=target.max(1)).rev() {
        let ticks = linear(lo, hi, t);
        let [a, b, ..] = ticks.values[..] else { return ticks };
        let spacing = width * (b - a) / (hi - lo);
        let widest = ticks.labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * char_width;
        if spacing >= widest + gap || t == 1 {
            return ticks;
        }
    }
    unreachable!("the loop returns at t = 1")
}

/// Whether an axis reaching `big` in steps of `step` is labelled in scientific notation.
fn scientific(big: f64, step: f64) -> bool {
    let big = big.max(step);
    big >= 1e6 || (big > 0.0 && big < 1e-3)
}

/// Ticks of a log axis over [lo, hi] (both > 0): every decade, and 2 and 5 times each when the
/// axis spans less than two decades; when it spans more than about `target` decades, every
/// second (third, …) decade.
pub fn log(lo: f64, hi: f64, target: usize) -> Ticks {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Ticks { values: Vec::new(), labels: Vec::new() };
    }
    let (a, b) = ((lo.log10() + 1e-9).floor() as i32, (hi.log10() - 1e-9).ceil() as i32);
    let decades = (b - a).max(1) as usize;
    let every = decades.div_ceil(target.max(1)).max(1) as i32;
    let multiples: &[f64] = if hi / lo < 100.0 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut values = Vec::new();
    for e in (a..=b).filter(|e| (e - a) % every == 0) {
        for &m in multiples {
            let v = m * 10f64.powi(e);
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                values.push(v);
            }
        }
    }
    if values.is_empty() {
        return linear(lo, hi, target);
    }
    let labels = values.iter().map(|&v| log_label(v)).collect();
    Ticks { values, labels }
}

/// A value on a nice linear axis of step `step` (0 for a single value), in the axis' notation.
fn label(v: f64, step: f64, sci: bool) -> String {
    let v = if step > 0.0 && v.abs() < step * 1e-6 { 0.0 } else { v };
    if sci {
        if v == 0.0 {
            return "0".into();
        }
        // Mantissa digits: as many as the step needs relative to the value's magnitude.
        let e = v.abs().log10().floor();
        let digits = if step > 0.0 { (e - (step.log10() + 1e-9).floor()).clamp(0.0, 6.0) as usize } else { 2 };
        return tidy_exponent(&format!("{v:.digits$e}"));
    }
    let decimals = decimals_of(if step > 0.0 { step } else { v.abs() });
    format!("{v:.decimals$}")
}

/// Decimals needed to write multiples of `step` exactly (step a nice number).
fn decimals_of(step: f64) -> usize {
    if step <= 0.0 || !step.is_finite() {
        return 3;
    }
    (-(step.log10() + 1e-9).floor()).clamp(0.0, 12.0) as usize
}

/// A decade or 2·/5· a decade: plain below 1e5 and above 1e-4, else 1e-6.
fn log_label(v: f64) -> String {
    if (1e-4..1e5).contains(&v) {
        let decimals = decimals_of(v);
        format!("{v:.decimals$}")
    } else {
        tidy_exponent(&format!("{v:.0e}"))
    }
}

/// Rust writes 2.0e-5 as "2.0e-5" and 1e6 as "1e6"; keep that, but never "e0".
/// `v` with `digits` significant digits for reports: fixed notation from 10⁻³ up to 10⁶,
/// scientific beyond (so 1e308 is never printed as a 309-digit number, nor 3e-9 as 0.0000).
pub fn significant(v: f64, digits: usize) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = digits.max(1);
    let e = v.abs().log10().floor() as i32;
    if !(-3..6).contains(&e) {
        return tidy_exponent(&format!("{v:.prec$e}", prec = digits - 1));
    }
    let decimals = (digits as i32 - 1 - e).max(0) as usize;
    format!("{v:.decimals$}")
}

/// Width of a character of a chart title (600 weight, 17 px; DejaVu Sans, the widest fallback
/// font), for wrapping titles: the page's charts and the CD layout the CLI writes share it.
pub const TITLE_CHAR_WIDTH: f64 = 11.0;
/// Width of a character of a tick or legend label (14 px; DejaVu Sans), for fitting labels.
pub const LABEL_CHAR_WIDTH: f64 = 8.4;

/// "1 configuration", "2 configurations": `n` and `noun`, plural unless n is 1.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if let Some(stem) = noun.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'o', 'u'])) {
        // "study" → "studies" (but "day" → "days").
        format!("{n} {stem}ies")
    } else {
        format!("{n} {noun}s")
    }
}

fn tidy_exponent(s: &str) -> String {
    s.strip_suffix("e0").map_or_else(|| s.to_string(), str::to_string)
}

/// How a chart's title is set: its x, its lines, the step between lines, and the room above
/// the plot it needs. Every title is set at the one title size.
#[derive(Debug, Clone, PartialEq)]
pub struct TitleSet {
    /// Where the lines start.
    pub x: f64,
    /// The lines.
    pub rows: Vec<String>,
    /// The step between lines, in pixels, as SVG wants it.
    pub step: &'static str,
    /// The room above the plot.
    pub top: f64,
}

/// Sets `title` on a chart `w` wide from `x` ([`TITLE_CHAR_WIDTH`] a character), always at the
/// title size: on one line if it fits, else wrapped onto two lines on a wide chart and three on
/// a `narrow` one (which starts at its own left edge). The room above the plot is at least
/// `min_top`.
pub fn set_title(title: &str, w: f64, x: f64, narrow: bool, min_top: f64) -> TitleSet {
    let x = if narrow { 8.0 } else { x };
    let per_line = (((w - x - 8.0) / TITLE_CHAR_WIDTH).floor() as usize).max(8);
    let lines = if narrow { 3 } else { 2 };
    // Words greedily onto lines of `per_line` characters. A word longer than a line (a long
    // task name) is broken into pieces that fit, after a '-', '_', '.' or '/' where it has
    // one, so that none runs past the chart's edge.
    let mut rows: Vec<String> = Vec::new();
    for word in title.split(' ').flat_map(|w| pieces(w, per_line)) {
        match rows.last_mut() {
            Some(r) if r.chars().count() + 1 + word.chars().count() <= per_line => {
                r.push(' ');
                r.push_str(&word);
            }
            _ => rows.push(word),
        }
    }
    // Too long for its lines: the middle left out ("…") so that the end, which often tells
    // one chart from the next (a task's suffix), stays.
    if rows.len() > lines {
        let last: Vec<char> = rows.split_off(lines - 1).join(" ").chars().collect();
        let tail: String = last[last.len().saturating_sub(per_line - 1)..].iter().collect();
        rows.push(format!("…{}", tail.trim_start()));
    }
    let top = (36.0 + 22.0 * (rows.len().max(1) - 1) as f64).max(min_top);
    TitleSet { x, rows, step: "22", top }
}

/// `word` in pieces of at most `per_line` characters, each ending after a separator where
/// there is one in reach.
fn pieces(word: &str, per_line: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: Vec<char> = word.chars().collect();
    while rest.len() > per_line {
        let cut = rest[..per_line].iter().rposition(|c| matches!(c, '-' | '_' | '.' | '/')).map_or(per_line, |i| i + 1);
        out.push(rest.drain(..cut).collect());
    }
    out.push(rest.into_iter().collect());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plural_in_english() {
        assert_eq!(count(1, "study"), "1 study");
        assert_eq!(count(2, "study"), "2 studies");
        assert_eq!(count(3, "day"), "3 days");
        assert_eq!(count(0, "task"), "0 tasks");
    }

    #[test]
    fn a_title_with_a_long_task_name_wraps_within_the_chart_and_keeps_the_name_s_end() {
        let task = "openml-classification-credit-g-fold-09";
        for w in [280.0, 390.0, 720.0] {
            let t = set_title(&format!("Best so far on {task}"), w, 74.0, w < 560.0, 36.0);
            let per_line = ((w - t.x - 8.0) / TITLE_CHAR_WIDTH).floor() as usize;
            assert!(t.rows.iter().all(|r| r.chars().count() <= per_line), "{w}: {:?}", t.rows);
            assert!(t.rows.concat().ends_with("fold-09"), "{w}: {:?}", t.rows);
        }
        // Too long for every layout: the middle goes, the end stays.
        let long = format!("Mean regret of every method on {}", [task; 6].join(" and "));
        let t = set_title(&long, 280.0, 74.0, true, 60.0);
        assert_eq!(t.rows.len(), 3);
        assert!(t.rows[2].starts_with('…') && t.rows[2].ends_with("fold-09"), "{:?}", t.rows);
        assert_eq!(pieces("ab-cd-ef", 4), ["ab-", "cd-", "ef"]);
        assert_eq!(pieces("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn report_numbers_keep_their_digits_at_any_scale() {
        assert_eq!(significant(1e308, 4), "1.000e308");
        assert_eq!(significant(3e-9, 3), "3.00e-9");
        assert_eq!(significant(0.000123456, 3), "1.23e-4");
        assert_eq!(significant(0.5, 4), "0.5000");
        assert_eq!(significant(-12.3456, 3), "-12.3");
        assert_eq!(significant(123456.7, 4), "123457");
        assert_eq!(significant(2e6, 3), "2.00e6");
        assert_eq!(significant(0.0, 3), "0");
        assert_eq!((count(1, "method"), count(0, "task"), count(3, "seed")), ("1 method".into(), "0 tasks".into(), "3 seeds".into()));
    }

    #[test]
    fn fitted_ticks_leave_room_between_labels() {
        // 448 units wide, digits 9 units, 7 between: eleven "10000"s do not fit, six do.
        let t = linear_fitting(0.0, 104_600.0, 7, 448.0, 9.0, 7.0);
        assert_eq!(labels(&t), ["0", "20000", "40000", "60000", "80000", "100000"]);
        // Where the labels fit, the ticks are linear's.
        assert_eq!(linear_fitting(1.0, 1000.0, 7, 448.0, 9.0, 7.0), linear(1.0, 1000.0, 7));
        // A narrow axis still gets its two ends' step; a point gets its one label.
        assert!(linear_fitting(0.0, 1e5, 7, 20.0, 9.0, 7.0).values.len() >= 2);
        assert_eq!(labels(&linear_fitting(3.0, 3.0, 7, 448.0, 9.0, 7.0)), ["3"]);
    }

    fn labels(t: &Ticks) -> Vec<&str> {
        t.labels.iter().map(String::as_str).collect()
    }

    #[test]
    fn linear_ticks_are_1_2_5_steps_with_shared_decimals() {
        assert_eq!(labels(&linear(0.0, 1.0, 5)), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        // The ranges the issue saw drawn as 2.996 / 25.38 / 47.765.
        assert_eq!(labels(&linear(2.996, 47.765, 5)), ["10", "20", "30", "40"]);
        assert_eq!(labels(&linear(-1.301, 2.1, 5)), ["-1.0", "-0.5", "0.0", "0.5", "1.0", "1.5", "2.0"]);
        assert_eq!(labels(&linear(0.0, 250.0, 5)), ["0", "50", "100", "150", "200", "250"]);
        assert_eq!(labels(&linear(0.81, 0.83, 4)), ["0.810", "0.815", "0.820", "0.825", "0.830"]);
        assert_eq!(labels(&linear(1.0, 3000.0, 5)), ["500", "1000", "1500", "2000", "2500", "3000"]);
    }

    #[test]
    fn tiny_and_huge_values_share_a_scientific_format() {
        assert_eq!(labels(&linear(0.0, 6.83e-5, 4)), ["0", "2e-5", "4e-5", "6e-5"]);
        assert_eq!(labels(&linear(0.0, 3.0e7, 3)), ["0", "1e7", "2e7", "3e7"]);
        assert_eq!(labels(&linear(1.2e-4, 1.5e-4, 3)), ["1.2e-4", "1.3e-4", "1.4e-4", "1.5e-4"]);
    }

    #[test]
    fn ticks_stay_inside_the_range_and_never_print_minus_zero() {
        for (lo, hi) in [(-0.3, 0.3), (0.1, 0.7), (-1e-12, 1e-12), (123.4, 123.9), (-5.0, -4.0)] {
            let t = linear(lo, hi, 5);
            assert!(!t.values.is_empty(), "{lo} {hi}");
            assert!(t.values.iter().all(|v| *v >= lo - 1e-12 && *v <= hi + 1e-12), "{lo} {hi}: {:?}", t.values);
            assert!(t.labels.iter().all(|l| !l.starts_with("-0") || l.chars().any(|c| ('1'..='9').contains(&c))), "{:?}", t.labels);
            assert!(t.values.windows(2).all(|w| w[0] < w[1]));
        }
        assert_eq!(labels(&linear(-0.3, 0.3, 5)), ["-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"]);
    }

    #[test]
    fn degenerate_and_non_finite_ranges() {
        assert_eq!(linear(2.0, 2.0, 5).values, [2.0]);
        assert!(linear(f64::NAN, 1.0, 5).values.is_empty());
        assert!(log(0.0, 1.0, 5).values.is_empty());
    }

    #[test]
    fn log_ticks_are_decades() {
        assert_eq!(labels(&log(1e-3, 10.0, 6)), ["0.001", "0.01", "0.1", "1", "10"]);
        assert_eq!(labels(&log(3e-7, 2e-2, 6)), ["1e-6", "1e-5", "0.0001", "0.001", "0.01"]);
        // Less than two decades: 2 and 5 between.
        assert_eq!(labels(&log(0.8, 30.0, 6)), ["1", "2", "5", "10", "20"]);
        // Many decades: every second one.
        assert_eq!(labels(&log(1e-8, 1e4, 6)), ["1e-8", "1e-6", "0.0001", "0.01", "1", "100", "10000"]);
        assert_eq!(labels(&log(1.0, 1e7, 8)), ["1", "10", "100", "1000", "10000", "1e5", "1e6", "1e7"]);
    }

    #[test]
    fn nice_range_covers_the_data_with_whole_steps() {
        assert_eq!(nice_range(2.996, 47.765, 5), (0.0, 50.0));
        assert_eq!(nice_range(0.0, 1.0, 5), (0.0, 1.0));
        let (lo, hi) = nice_range(-1.301, 2.1, 5);
        assert!((lo + 1.5).abs() < 1e-12 && (hi - 2.5).abs() < 1e-12, "{lo} {hi}");
    }
}
