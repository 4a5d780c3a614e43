//! Where everything of a critical-difference diagram goes (Demšar 2006, as drawn in the DyHPO
//! paper's Fig. 4): methods on an axis of average ranks, best on the left; a bar joins methods
//! whose pairwise Wilcoxon signed-rank tests (Holm-corrected, α = 0.05) find no significant
//! difference. One layout serves the page's component and the CLI's standalone SVG files, so
//! the diagram in `docs/replication.md` is the one the page shows.

use super::race_summary::CdSummary;
use crate::axis::{LABEL_CHAR_WIDTH as CHAR, TITLE_CHAR_WIDTH as TITLE_CHAR};

/// Width of the drawing the CLI writes, in SVG units (the page lays out at its own width).
pub const WIDTH: f64 = 720.0;
const LINE: f64 = 20.0;
const ROW: f64 = 22.0;
const EDGE: f64 = 8.0;

/// A tick of the rank axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// The rank it marks, 1 = best.
    pub rank: usize,
    /// The tick mark, from the axis outwards.
    pub line: [(f64, f64); 2],
    /// Where its number is centred (horizontally) and its baseline.
    pub text: (f64, f64),
}

/// A method's label: a line from its rank on the axis out to its row, then its text.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodLabel {
    /// "name (average rank)".
    pub text: String,
    /// The line's points.
    pub line: [(f64, f64); 3],
    /// Where the text is anchored, horizontally.
    pub text_x: f64,
    /// The text's baseline.
    pub text_y: f64,
    /// Text anchored at its end (the methods on the left) or at its start.
    pub anchor_end: bool,
}

/// A bar joining methods that are not significantly different.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// One end, at the better method's rank (a little beyond it).
    pub from: (f64, f64),
    /// The other end, at the worse method's rank.
    pub to: (f64, f64),
}

/// The whole diagram, laid out for a width: on a wide drawing the classic layout (a horizontal
/// axis, the better half labelled on the left, the rest on the right); where the labels would
/// not fit beside the axis (a phone), a vertical axis with every label to its right. Nothing is
/// scrolled or cut: the title and subtitle wrap onto as many lines as the width needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CdLayout {
    /// Width of the drawing.
    pub width: f64,
    /// Height of the drawing.
    pub height: f64,
    /// "Critical difference at 50% of the budget over 34 tasks", in lines of the width.
    pub title: Vec<String>,
    /// Friedman's p and what the bars mean, in lines of the width.
    pub subtitle: Vec<String>,
    /// Baseline of the first title line; each line is [`CdLayout::LINE`] below the last.
    pub title_y: f64,
    /// The axis, from rank 1 to rank k.
    pub axis: [(f64, f64); 2],
    /// One tick per rank 1..=k.
    pub ticks: Vec<Tick>,
    /// One bar per maximal group not significantly different ([`CdSummary::cliques`]).
    pub bars: Vec<Bar>,
    /// Best average rank first.
    pub labels: Vec<MethodLabel>,
}

/// `text` in lines of at most `width` at `char_width` per character, broken at spaces.
pub fn wrap(text: &str, width: f64, char_width: f64) -> Vec<String> {
    let most = ((width / char_width).floor() as usize).max(8);
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= most => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Estimated width of a label or tick text.
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR
}

impl CdLayout {
    /// Space between lines of the title and subtitle.
    pub const LINE: f64 = LINE;

    /// Lays out `cd` for `methods` (in the order of `cd.ranks`), ranked over `tasks` tasks, as
    /// the CLI's files draw it ([`WIDTH`] wide).
    pub fn new(cd: &CdSummary, methods: &[String], tasks: usize) -> CdLayout {
        Self::at_width(cd, methods, tasks, WIDTH)
    }

    /// The same, laid out for a drawing `width` wide.
    pub fn at_width(cd: &CdSummary, methods: &[String], tasks: usize, width: f64) -> CdLayout {
        let k = methods.len();
        let order = cd.order();
        let texts: Vec<String> = (0..k).map(|m| format!("{} ({:.2})", methods[m], cd.ranks[m])).collect();
        let title = wrap(
            &format!("Critical difference at {:.0}% of the budget over {}", cd.fraction * 100.0, crate::axis::count(tasks, "task")),
            width - 2.0 * EDGE,
            TITLE_CHAR,
        );
        let subtitle = wrap(
            &format!("Friedman p = {:.2e}; bars: no significant difference (Wilcoxon signed-rank, Holm, α = 0.05)", cd.friedman_p),
            width - 2.0 * EDGE,
            CHAR,
        );
        let header = 20.0 + LINE * (title.len() + subtitle.len()) as f64;
        let left = k.div_ceil(2);
        let side = |range: std::ops::Range<usize>| range.map(|p| text_width(&texts[order[p]])).fold(0.0, f64::max);
        let (margin_left, margin_right) = (side(0..left) + 24.0, side(left..k) + 24.0);
        let groups = cd.cliques();
        let mut layout = CdLayout {
            width,
            height: 0.0,
            title,
            subtitle,
            title_y: 20.0,
            axis: [(0.0, 0.0); 2],
            ticks: Vec::new(),
            bars: Vec::new(),
            labels: Vec::new(),
        };
        let span = (k.max(2) - 1) as f64;
        if width - margin_left - margin_right >= (24.0 * span).max(160.0) {
            // Horizontal axis, labels on both sides.
            let axis_y = header + 24.0;
            let x = |rank: f64| margin_left + (rank - 1.0) / span * (width - margin_left - margin_right);
            layout.axis = [(margin_left, axis_y), (width - margin_right, axis_y)];
            layout.ticks = (1..=k)
                .map(|rank| Tick {
                    rank,
                    line: [(x(rank as f64), axis_y), (x(rank as f64), axis_y - 5.0)],
                    text: (x(rank as f64), axis_y - 9.0),
                })
                .collect();
            layout.bars = groups
                .iter()
                .enumerate()
                .map(|(g, &(i, j))| {
                    let y = axis_y + 10.0 + 6.0 * g as f64;
                    Bar { from: (x(cd.ranks[order[i]]) - 4.0, y), to: (x(cd.ranks[order[j]]) + 4.0, y) }
                })
                .collect();
            let bars_bottom = axis_y + 10.0 + 6.0 * groups.len() as f64;
            layout.labels = order
                .iter()
                .enumerate()
                .map(|(pos, &m)| {
                    let xr = x(cd.ranks[m]);
                    let on_left = pos < left;
                    let row = if on_left { pos } else { k - 1 - pos };
                    let y = bars_bottom + 12.0 + ROW * row as f64;
                    let (x_end, text_x) = if on_left {
                        (margin_left - 10.0, margin_left - 14.0)
                    } else {
                        (width - margin_right + 10.0, width - margin_right + 14.0)
                    };
                    MethodLabel {
                        text: texts[m].clone(),
                        line: [(xr, axis_y), (xr, y), (x_end, y)],
                        text_x,
                        text_y: y + 5.0,
                        anchor_end: on_left,
                    }
                })
                .collect();
            layout.height = bars_bottom + 12.0 + ROW * left as f64 + 24.0;
        } else {
            // Vertical axis (rank 1 at the top), bars and rank numbers to its left, every label
            // on a row of its own to its right: rows and ranks both run best first, so no two
            // connecting lines cross.
            let axis_x = EDGE + text_width(&k.to_string()) + 6.0 + 5.0 * groups.len() as f64 + 4.0;
            let top = header + 16.0;
            let length = ROW * (k.max(2) - 1) as f64;
            let y = |rank: f64| top + (rank - 1.0) / span * length;
            layout.axis = [(axis_x, top), (axis_x, top + length)];
            layout.ticks = (1..=k)
                .map(|rank| Tick {
                    rank,
                    line: [(axis_x, y(rank as f64)), (axis_x + 5.0, y(rank as f64))],
                    text: (EDGE + text_width(&k.to_string()) / 2.0, y(rank as f64) + 5.0),
                })
                .collect();
            layout.bars = groups
                .iter()
                .enumerate()
                .map(|(g, &(i, j))| {
                    let x = axis_x - 6.0 - 5.0 * g as f64;
                    Bar { from: (x, y(cd.ranks[order[i]]) - 4.0), to: (x, y(cd.ranks[order[j]]) + 4.0) }
                })
                .collect();
            let text_x = axis_x + 26.0;
            layout.labels = order
                .iter()
                .enumerate()
                .map(|(row, &m)| {
                    let yr = y(cd.ranks[m]);
                    let yrow = top + ROW * row as f64;
                    MethodLabel {
                        text: texts[m].clone(),
                        line: [(axis_x, yr), (axis_x + 16.0, yrow), (text_x - 4.0, yrow)],
                        text_x,
                        text_y: yrow + 5.0,
                        anchor_end: false,
                    }
                })
                .collect();
            layout.height = top + length + 24.0;
        }
        layout
    }

    /// The polyline's `points` attribute of a label.
    pub fn points(label: &MethodLabel) -> String {
        label.line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
    }

    /// The baselines of the title's lines, then of the subtitle's.
    pub fn header_lines(&self) -> Vec<(f64, &str, bool)> {
        let title = self.title.iter().map(|t| (t.as_str(), true));
        let subtitle = self.subtitle.iter().map(|t| (t.as_str(), false));
        title.chain(subtitle).enumerate().map(|(i, (t, is_title))| (self.title_y + LINE * i as f64, t, is_title)).collect()
    }

    /// A standalone SVG document: the page's drawing with the page's chart type sizes written
    /// into each text (a file has no style sheet).
    pub fn to_svg(&self) -> String {
        const FONT: &str = r#"font-family="system-ui, -apple-system, 'Segoe UI', sans-serif""#;
        let tick = format!(r##"{FONT} font-size="14" fill="#444""##);
        let (w, h) = (self.width, self.height);
        let mut s = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="Critical-difference diagram: {title}">
<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>
"##,
            title = escape(&self.title.join(" ")),
        );
        for (y, text, is_title) in self.header_lines() {
            let style = if is_title { format!(r##"{FONT} font-size="17" font-weight="600" fill="#222""##) } else { tick.clone() };
            s += &format!("<text x=\"{EDGE}\" y=\"{y}\" {style}>{}</text>\n", escape(text));
        }
        let [(ax0, ay0), (ax1, ay1)] = self.axis;
        s += &format!("<line x1=\"{ax0}\" x2=\"{ax1}\" y1=\"{ay0}\" y2=\"{ay1}\" stroke=\"#444\"/>\n");
        for t in &self.ticks {
            let [(x1, y1), (x2, y2)] = t.line;
            s += &format!(
                "<line x1=\"{x1}\" x2=\"{x2}\" y1=\"{y1}\" y2=\"{y2}\" stroke=\"#444\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" {tick}>{}</text>\n",
                t.text.0, t.text.1, t.rank
            );
        }
        for b in &self.bars {
            s += &format!(
                "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"3\"/>\n",
                b.from.0, b.to.0, b.from.1, b.to.1
            );
        }
        for l in &self.labels {
            s += &format!(
                "<polyline points=\"{}\" fill=\"none\" stroke=\"#555\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" {FONT} font-size=\"14\" fill=\"#222\">{}</text>\n",
                Self::points(l),
                l.text_x,
                l.text_y,
                if l.anchor_end { "end" } else { "start" },
                escape(&l.text)
            );
        }
        s + "</svg>\n"
    }
}

/// Escapes text for XML content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(k: usize) -> Vec<String> {
        ["DyHPO", "BOHB", "ASHA", "DEHB", "Hyperband", "RS"][..k].iter().map(|s| s.to_string()).collect()
    }

    /// Ranks from 1.5 to 5.5 of six methods: the axis maps rank 1 to the left margin and rank
    /// 6 to the right one; the better three are labelled on the left, best on the top row.
    #[test]
    fn ranks_map_onto_the_axis_and_halves_onto_the_sides() {
        let cd = CdSummary {
            fraction: 0.5,
            ranks: vec![1.5, 2.0, 3.0, 4.0, 4.0, 5.5],
            friedman_p: 1e-9,
            not_different: vec![(0, 1), (2, 3), (2, 4), (3, 4)],
        };
        let l = CdLayout::new(&cd, &names(6), 34);
        let [(x0, axis_y), (x1, _)] = l.axis;
        assert!((l.ticks[0].line[0].0 - x0).abs() < 1e-9 && (l.ticks[5].line[0].0 - x1).abs() < 1e-9);
        // Rank 1.5 sits a tenth of the way along the axis (ranks 1..6).
        assert!((l.labels[0].line[0].0 - (x0 + (x1 - x0) / 10.0)).abs() < 1e-9 && l.labels[0].line[0].1 == axis_y);
        assert!(l.labels[0].anchor_end && l.labels[1].anchor_end && l.labels[2].anchor_end);
        assert!(!l.labels[3].anchor_end && !l.labels[5].anchor_end);
        assert!(l.labels[0].text_y < l.labels[1].text_y, "the best method is on the top row");
        assert_eq!(l.labels[5].text, "RS (5.50)");
        // Two bars: {DyHPO, BOHB} and {ASHA, DEHB, Hyperband}, stacked below the axis.
        assert_eq!(l.bars.len(), 2);
        let step = (x1 - x0) / 10.0;
        assert!((l.bars[0].from.0 - (x0 + step - 4.0)).abs() < 1e-9 && (l.bars[0].to.0 - (x0 + 2.0 * step + 4.0)).abs() < 1e-9);
        assert!(l.bars[1].from.1 > l.bars[0].from.1);
        assert_eq!(l.title.join(" "), "Critical difference at 50% of the budget over 34 tasks");
    }

    #[test]
    fn the_svg_is_one_document_with_every_method_and_bar() {
        let cd = CdSummary { fraction: 1.0, ranks: vec![2.0, 1.0, 3.0], friedman_p: 0.02, not_different: vec![(0, 1)] };
        let mut methods = names(3);
        methods[2] = "A<B & \"C\"".into();
        let svg = CdLayout::new(&cd, &methods, 5).to_svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 3);
        assert_eq!(svg.matches("stroke-width=\"3\"").count(), 1);
        assert!(svg.contains(">BOHB (1.00)</text>") && svg.contains(">A&lt;B &amp; &quot;C&quot; (3.00)</text>"));
        assert!(!svg.contains("A<B"), "method names are escaped");
    }

    /// Every text stays inside the drawing and no two labels overlap, at a projector's figure
    /// (593 px), a phone's (350 px) and the narrowest (280 px), with the longest names the
    /// registry has: the diagram is laid out for its width, never scrolled or cut.
    #[test]
    fn every_label_and_rank_fits_the_width_it_is_laid_out_for() {
        let methods: Vec<String> = [
            "DyHPO w/o CNN",
            "DyHPO (fast)",
            "GP (max budget)",
            "GPB (Random)",
            "Hyperband",
            "DyHPO",
            "BOHB",
            "DEHB",
            "ASHA",
            "RS",
            "GPB (IC)",
            "GPB (TA)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let cd = CdSummary {
            fraction: 0.5,
            ranks: vec![2.5, 3.0, 5.25, 6.0, 6.0, 1.75, 7.5, 8.0, 9.0, 11.5, 10.0, 12.0],
            friedman_p: 3.2e-7,
            not_different: vec![(0, 1), (5, 0), (2, 3), (3, 4), (6, 7), (7, 8)],
        };
        for width in [WIDTH, 593.0, 350.0, 280.0] {
            let l = CdLayout::at_width(&cd, &methods, 34, width);
            let inside = |x0: f64, x1: f64| x0 >= 0.0 && x1 <= width;
            for lab in &l.labels {
                let w = text_width(&lab.text);
                let (x0, x1) = if lab.anchor_end { (lab.text_x - w, lab.text_x) } else { (lab.text_x, lab.text_x + w) };
                assert!(inside(x0, x1), "{width}: '{}' at {x0}..{x1}", lab.text);
                assert!(lab.text_y < l.height, "{width}: '{}' below the drawing", lab.text);
            }
            for (_, line, is_title) in l.header_lines() {
                let w = line.chars().count() as f64 * if is_title { TITLE_CHAR } else { CHAR };
                assert!(EDGE + w <= width, "{width}: header line '{line}' is {w} wide");
            }
            assert_eq!(l.labels.len(), 12, "every method, with its rank");
            assert!(l.labels.iter().all(|lab| lab.text.ends_with(')')));
            // No two labels share a row on the same side.
            for (i, a) in l.labels.iter().enumerate() {
                for b in &l.labels[i + 1..] {
                    assert!(
                        a.anchor_end != b.anchor_end || (a.text_y - b.text_y).abs() >= ROW - 1e-9,
                        "{width}: '{}' and '{}'",
                        a.text,
                        b.text
                    );
                }
            }
            assert_eq!(l.ticks.len(), 12);
        }
        assert!(
            CdLayout::at_width(&cd, &methods, 34, 350.0).axis[0].0 == CdLayout::at_width(&cd, &methods, 34, 350.0).axis[1].0,
            "a phone gets the vertical axis"
        );
        let horizontal = |l: CdLayout| l.axis[0].1 == l.axis[1].1;
        assert!(horizontal(CdLayout::new(&cd, &methods, 34)), "the CLI's files keep the horizontal axis");
        let six = CdSummary { fraction: 1.0, ranks: vec![1.5, 2.0, 3.0, 4.0, 4.0, 5.5], friedman_p: 1e-9, not_different: vec![(0, 1)] };
        assert!(horizontal(CdLayout::at_width(&six, &names(6), 34, 593.0)), "six methods on a projector: the classic layout");
    }
}
