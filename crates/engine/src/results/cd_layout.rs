//! Where everything of a critical-difference diagram goes (Demšar 2006, as drawn in the DyHPO
//! paper's Fig. 4): methods on an axis of average ranks, best on the left; a bar joins methods
//! whose pairwise Wilcoxon signed-rank tests (Holm-corrected, α = 0.05) find no significant
//! difference. One layout serves the page's component and the CLI's standalone SVG files, so
//! the diagram in `docs/replication.md` is the one the page shows.

use super::race_summary::CdSummary;

/// Width of the drawing, in SVG units.
pub const WIDTH: f64 = 720.0;
const MARGIN_LEFT: f64 = 190.0;
const MARGIN_RIGHT: f64 = 190.0;
/// Height of the rank axis.
pub const AXIS_Y: f64 = 70.0;
const ROW: f64 = 22.0;

/// A tick of the rank axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// The rank it marks, 1 = best.
    pub rank: usize,
    /// Its position.
    pub x: f64,
}

/// A method's label: a line from its rank on the axis down to its row, then out to the side.
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
    /// Its left end, a little left of the better method's rank.
    pub x1: f64,
    /// Its right end, a little right of the worse method's rank.
    pub x2: f64,
    /// Its height: bars stack downwards from just below the axis.
    pub y: f64,
}

/// The whole diagram.
#[derive(Debug, Clone, PartialEq)]
pub struct CdLayout {
    /// Height of the drawing ([`WIDTH`] wide).
    pub height: f64,
    /// "Critical difference at 50% of the budget over 34 tasks".
    pub title: String,
    /// Friedman's p and what the bars mean.
    pub subtitle: String,
    /// The axis runs from `axis_x.0` to `axis_x.1` at [`AXIS_Y`].
    pub axis_x: (f64, f64),
    /// One tick per rank 1..=k.
    pub ticks: Vec<Tick>,
    /// One bar per maximal group not significantly different ([`CdSummary::cliques`]).
    pub bars: Vec<Bar>,
    /// Best average rank first; the better half is labelled on the left.
    pub labels: Vec<MethodLabel>,
}

impl CdLayout {
    /// Lays out `cd` for `methods` (in the order of `cd.ranks`), ranked over `tasks` tasks.
    pub fn new(cd: &CdSummary, methods: &[String], tasks: usize) -> CdLayout {
        let k = methods.len();
        let order = cd.order();
        let x = |rank: f64| MARGIN_LEFT + (rank - 1.0) / ((k.max(2) - 1) as f64) * (WIDTH - MARGIN_LEFT - MARGIN_RIGHT);
        let left = k.div_ceil(2);
        let groups = cd.cliques();
        let bars_bottom = AXIS_Y + 10.0 + 6.0 * groups.len() as f64;
        let ticks = (1..=k).map(|rank| Tick { rank, x: x(rank as f64) }).collect();
        let bars = groups
            .iter()
            .enumerate()
            .map(|(g, &(i, j))| Bar { x1: x(cd.ranks[order[i]]) - 4.0, x2: x(cd.ranks[order[j]]) + 4.0, y: AXIS_Y + 10.0 + 6.0 * g as f64 })
            .collect();
        let labels = order
            .iter()
            .enumerate()
            .map(|(pos, &m)| {
                let xr = x(cd.ranks[m]);
                let on_left = pos < left;
                let row = if on_left { pos } else { k - 1 - pos };
                let y = bars_bottom + 12.0 + ROW * row as f64;
                let (x_end, text_x) = if on_left {
                    (MARGIN_LEFT - 10.0, MARGIN_LEFT - 14.0)
                } else {
                    (WIDTH - MARGIN_RIGHT + 10.0, WIDTH - MARGIN_RIGHT + 14.0)
                };
                MethodLabel {
                    text: format!("{} ({:.2})", methods[m], cd.ranks[m]),
                    line: [(xr, AXIS_Y), (xr, y), (x_end, y)],
                    text_x,
                    text_y: y + 5.0,
                    anchor_end: on_left,
                }
            })
            .collect();
        CdLayout {
            height: bars_bottom + 12.0 + ROW * left as f64 + 24.0,
            title: format!("Critical difference at {:.0}% of the budget over {tasks} tasks", cd.fraction * 100.0),
            subtitle: format!("Friedman p = {:.2e}; bars: no significant difference (Wilcoxon signed-rank, Holm, α = 0.05)", cd.friedman_p),
            axis_x: (MARGIN_LEFT, WIDTH - MARGIN_RIGHT),
            ticks,
            bars,
            labels,
        }
    }

    /// The polyline's `points` attribute of a label.
    pub fn points(label: &MethodLabel) -> String {
        label.line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
    }

    /// A standalone SVG document: the page's drawing with the page's chart type sizes written
    /// into each text (a file has no style sheet).
    pub fn to_svg(&self) -> String {
        const FONT: &str = r#"font-family="system-ui, -apple-system, 'Segoe UI', sans-serif""#;
        let tick = format!(r##"{FONT} font-size="14" fill="#444""##);
        let mut s = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {h}" width="{WIDTH}" height="{h}" role="img" aria-label="Critical-difference diagram: {title}">
<rect x="0" y="0" width="{WIDTH}" height="{h}" fill="#ffffff"/>
<text x="8" y="20" {FONT} font-size="17" font-weight="600" fill="#222">{title}</text>
<text x="8" y="40" {tick}>{subtitle}</text>
<line x1="{ax0}" x2="{ax1}" y1="{AXIS_Y}" y2="{AXIS_Y}" stroke="#444"/>
"##,
            h = self.height,
            title = escape(&self.title),
            subtitle = escape(&self.subtitle),
            ax0 = self.axis_x.0,
            ax1 = self.axis_x.1,
        );
        for t in &self.ticks {
            s += &format!(
                "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{AXIS_Y}\" stroke=\"#444\"/>\n<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" {tick}>{}</text>\n",
                AXIS_Y - 5.0,
                AXIS_Y - 9.0,
                t.rank,
                x = t.x
            );
        }
        for b in &self.bars {
            s += &format!("<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#222\" stroke-width=\"3\"/>\n", b.x1, b.x2, y = b.y);
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
        assert_eq!(l.ticks.first().map(|t| t.x), Some(190.0));
        assert_eq!(l.ticks.last().map(|t| t.x), Some(530.0));
        // Rank 1.5 sits a tenth of the way along the axis (ranks 1..6 over 340 units).
        assert_eq!(l.labels[0].line[0], (190.0 + 34.0, AXIS_Y));
        assert!(l.labels[0].anchor_end && l.labels[1].anchor_end && l.labels[2].anchor_end);
        assert!(!l.labels[3].anchor_end && !l.labels[5].anchor_end);
        assert!(l.labels[0].text_y < l.labels[1].text_y, "the best method is on the top row");
        assert_eq!(l.labels[5].text, "RS (5.50)");
        // Two bars: {DyHPO, BOHB} and {ASHA, DEHB, Hyperband}, stacked below the axis.
        assert_eq!(l.bars.len(), 2);
        assert_eq!((l.bars[0].x1, l.bars[0].x2), (190.0 + 34.0 - 4.0, 190.0 + 68.0 + 4.0));
        assert!(l.bars[1].y > l.bars[0].y);
        assert_eq!(l.title, "Critical difference at 50% of the budget over 34 tasks");
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
}
