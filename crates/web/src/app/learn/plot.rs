//! Small SVG plots for the lessons of `engine::lessons`: a box [x0, x1] × [y0, y1] mapped onto
//! a chart with the CSS type scale's classes, nice ticks from `engine::axis`, and the few
//! marks the lessons draw (lines, bands, dots). One size for every lesson chart, so that they
//! line up and read alike on a projector.

use leptos::prelude::*;

use crate::app::charts::chart::{chart_title, chart_width, legend_below, title_top, top_margin, LINE, NARROW, TICK_DIGIT, TICK_GAP};
use hpo_engine::axis;
use hpo_engine::lessons::steps::Pick;
use hpo_engine::optimizer::Acquisition;

const ML: f64 = 74.0;
const MR: f64 = 24.0;
const MT: f64 = 36.0;
const MB: f64 = 52.0;

/// Okabe–Ito colours with the roles the lessons give them.
pub const BLUE: &str = "#0072B2";
/// The newest mark.
pub const ORANGE: &str = "#D55E00";
/// A second method.
pub const GREEN: &str = "#009E73";
/// A third method.
pub const PURPLE: &str = "#CC79A7";
/// Truth and context.
pub const GREY: &str = "#7a7a7a";

/// A legend's entry: its label, colour and dash pattern ("none" for a solid line). A chart's
/// entries are one constant, whose length its figure's `legend` is (the room it takes below
/// a narrow chart).
pub type LegendEntry = (&'static str, &'static str, &'static str);

/// Maps data coordinates onto a chart `w` wide and `h` high.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plot {
    /// Data range along x.
    pub x: (f64, f64),
    /// Data range along y.
    pub y: (f64, f64),
    /// Chart height.
    pub h: f64,
    /// Chart width (the figure's, [`chart_width`]).
    pub w: f64,
    /// A log y axis (then `y` spans whole decades).
    pub log_y: bool,
    /// Room above the plot: the title's ([`Plot::room_for`]).
    pub top: f64,
}

impl Plot {
    /// A chart of height `h`, as wide as its figure, with nice ranges around the data ranges
    /// `x` and `y`.
    pub fn nice(x: (f64, f64), y: (f64, f64), h: f64) -> Self {
        let widen = |(a, b): (f64, f64)| if b > a { (a, b) } else { (a - 0.5, a + 0.5) };
        let (x, y) = (widen(x), widen(y));
        Plot {
            x: axis::nice_range(x.0, x.1, 5),
            y: axis::nice_range(y.0, y.1, y_ticks(h)),
            h,
            w: chart_width(),
            log_y: false,
            top: top_margin(chart_width()),
        }
    }

    /// The same plot with a log y axis a little wider than `y` (both > 0); the ticks fall on
    /// decades, with 2 and 5 between them on short axes.
    pub fn log_y(self, y: (f64, f64)) -> Self {
        let lo = y.0.max(f64::MIN_POSITIVE) / 1.2;
        Plot { y: (lo, y.1.max(lo * 10.0) * 1.2), log_y: true, ..self }
    }

    /// The same plot `w` wide.
    pub fn width(self, w: f64) -> Self {
        Plot { w, top: top_margin(w), ..self }
    }

    /// The same plot with room above it for `title` as [`Plot::axes`] sets it (two or three
    /// lines where it does not fit one), so that a wrapped title never runs into the plot.
    /// Call it last, with the title given to `axes`.
    pub fn room_for(self, title: &str) -> Self {
        Plot { top: title_top(title, self.w, ML), ..self }
    }

    /// Room above the plot (its title's).
    fn mt(&self) -> f64 {
        self.top
    }

    /// Screen x of data x.
    pub fn px(&self, x: f64) -> f64 {
        ML + (x - self.x.0) / (self.x.1 - self.x.0) * (self.w - ML - MR)
    }

    /// Screen y of data y (clamped to the plot).
    pub fn py(&self, y: f64) -> f64 {
        let y = y.clamp(self.y.0, self.y.1);
        let f = if self.log_y {
            (y.log10() - self.y.0.log10()) / (self.y.1.log10() - self.y.0.log10())
        } else {
            (y - self.y.0) / (self.y.1 - self.y.0)
        };
        let f = f.clamp(0.0, 1.0);
        self.h - MB - f * (self.h - self.mt() - MB)
    }

    /// Data x at chart x, if inside the plot.
    pub fn data_x(&self, sx: f64) -> Option<f64> {
        let f = (sx - ML) / (self.w - ML - MR);
        (0.0..=1.0).contains(&f).then_some(self.x.0 + f * (self.x.1 - self.x.0))
    }

    /// Polyline points through (x, y) pairs, skipping non-finite ones.
    pub fn points(&self, xy: impl IntoIterator<Item = (f64, f64)>) -> String {
        xy.into_iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(x, y)| format!("{:.1},{:.1}", self.px(x), self.py(y)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A band between `lower` and `upper` over `x`, as polygon points.
    pub fn band(&self, x: &[f64], lower: &[f64], upper: &[f64]) -> String {
        let top = self.points(x.iter().copied().zip(upper.iter().copied()));
        let bottom = self.points(x.iter().copied().zip(lower.iter().copied()).rev());
        format!("{top} {bottom}")
    }

    /// Background, grid, ticks, axis lines and titles.
    pub fn axes(&self, title: &str, x_title: &str, y_title: &str) -> impl IntoView {
        let p = *self;
        let xt = axis::linear_fitting(p.x.0, p.x.1, 6, p.w - ML - MR, TICK_DIGIT, TICK_GAP);
        let yt = if p.log_y { axis::log(p.y.0, p.y.1, y_ticks(p.h)) } else { axis::linear(p.y.0, p.y.1, y_ticks(p.h)) };
        view! {
            <rect x="0" y="0" width=p.w height=p.h fill="#ffffff"/>
            {chart_title(title, p.w, ML)}
            {yt.values.iter().zip(yt.labels).map(|(&v, l)| view! {
                <line x1=ML x2=p.w - MR y1=p.py(v) y2=p.py(v) stroke="#e5e5e5"/>
                <text x=ML - 10.0 y=p.py(v) + 5.0 text-anchor="end" class="tick">{l}</text>
            }).collect_view()}
            {xt.values.iter().zip(xt.labels).map(|(&v, l)| view! {
                <text x=p.px(v) y=p.h - MB + 24.0 text-anchor="middle" class="tick">{l}</text>
            }).collect_view()}
            <line x1=ML x2=p.w - MR y1=p.h - MB y2=p.h - MB stroke="#444"/>
            <line x1=ML x2=ML y1=self.mt() y2=p.h - MB stroke="#444"/>
            <text x=(ML + p.w - MR) / 2.0 y=p.h - 10.0 text-anchor="middle" class="axis-title">{x_title.to_string()}</text>
            <text transform=format!("translate(20,{}) rotate(-90)", (self.mt() + p.h - MB) / 2.0) text-anchor="middle" class="axis-title">{y_title.to_string()}</text>
        }
    }

    /// [`Plot::axes`] as SVG markup, for charts drawn as text (the study's views: markup is a
    /// fraction of the code typed views compile to, and the page's wasm has a size budget).
    pub fn axes_svg(&self, title: &str, x_title: &str, y_title: &str) -> String {
        use std::fmt::Write;
        let p = *self;
        let xt = axis::linear_fitting(p.x.0, p.x.1, 6, p.w - ML - MR, TICK_DIGIT, TICK_GAP);
        let yt = if p.log_y { axis::log(p.y.0, p.y.1, y_ticks(p.h)) } else { axis::linear(p.y.0, p.y.1, y_ticks(p.h)) };
        let mut s = format!(r##"<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##, p.w, p.h);
        s.push_str(&title_svg(title, p.w, ML));
        for (&v, l) in yt.values.iter().zip(&yt.labels) {
            let y = p.py(v);
            let _ = write!(
                s,
                r##"<line x1="{ML}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{}" y="{:.1}" text-anchor="end" class="tick">{}</text>"##,
                p.w - MR,
                ML - 10.0,
                y + 5.0,
                escape(l)
            );
        }
        for (&v, l) in xt.values.iter().zip(&xt.labels) {
            let _ = write!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle" class="tick">{}</text>"#, p.px(v), p.h - MB + 24.0, escape(l));
        }
        let _ = write!(
            s,
            r##"<line x1="{ML}" x2="{}" y1="{b}" y2="{b}" stroke="#444"/><line x1="{ML}" x2="{ML}" y1="{}" y2="{b}" stroke="#444"/><text x="{}" y="{}" text-anchor="middle" class="axis-title">{}</text><text transform="translate(20,{}) rotate(-90)" text-anchor="middle" class="axis-title">{}</text>"##,
            p.w - MR,
            self.mt(),
            (ML + p.w - MR) / 2.0,
            p.h - 10.0,
            escape(x_title),
            (self.mt() + p.h - MB) / 2.0,
            escape(y_title),
            b = p.h - MB,
        );
        s
    }

    /// [`Plot::legend`] as SVG markup, in the corner covering the fewest of `data` (below the
    /// plot on a narrow chart).
    pub fn legend_svg(&self, entries: &[(&str, &str, &str)], data: &[(f64, f64)]) -> String {
        use std::fmt::Write;
        let longest = entries.iter().map(|e| e.0.chars().count()).max().unwrap_or(0) as f64;
        let (w, h) = (40.0 + 8.2 * longest, LINE * entries.len() as f64 + 8.0);
        let (x, y0) = if legend_below(self.w) { (14.0, self.h) } else { self.clearest_corner(w, h, data, &[]) };
        let mut s =
            format!(r##"<rect class="legend-box" x="{}" y="{y0}" width="{w}" height="{h}" fill="#ffffff" fill-opacity="0.85"/>"##, x - 6.0);
        for (k, &(name, color, dash)) in entries.iter().enumerate() {
            let y = y0 + 16.0 + LINE * k as f64;
            let _ = write!(
                s,
                r#"<line x1="{x}" x2="{}" y1="{}" y2="{}" stroke="{color}" stroke-width="3" stroke-dasharray="{dash}"/><text x="{}" y="{y}" class="legend">{}</text>"#,
                x + 26.0,
                y - 5.0,
                y - 5.0,
                x + 32.0,
                escape(name)
            );
        }
        s
    }

    /// A legend of `entries`, one line each, on a white backing (`rect.legend-box`, what the
    /// layout test checks against the data). On a narrow chart ([`legend_below`]) it goes
    /// below the plot, in the room its figure adds ([`crate::app::charts::chart::legend_room`]);
    /// otherwise in the corner of the plot that covers the fewest of the `data` points (data
    /// coordinates: the marks the chart draws) — top left, top right, bottom left or bottom
    /// right, in that order when they tie. Keep labels short: the legend must fit the plot.
    pub fn legend(&self, entries: &[LegendEntry], data: &[(f64, f64)]) -> impl IntoView {
        self.legend_clear_of(entries, data, &[])
    }

    /// [`Plot::legend`] in a corner that covers none of the `clear` points (a label that must
    /// stay readable, such as [`Plot::marker_label_area`]'s) when one does, whatever the data.
    pub fn legend_clear_of(&self, entries: &[LegendEntry], data: &[(f64, f64)], clear: &[(f64, f64)]) -> impl IntoView {
        let longest = entries.iter().map(|e| e.0.chars().count()).max().unwrap_or(0) as f64;
        let (w, h) = (40.0 + 8.2 * longest, LINE * entries.len() as f64 + 8.0);
        let (x, y0) = if legend_below(self.w) { (14.0, self.h) } else { self.clearest_corner(w, h, data, clear) };
        view! {
            <rect class="legend-box" x=x - 6.0 y=y0 width=w height=h fill="#ffffff" fill-opacity="0.85"/>
            {entries
                .iter()
                .enumerate()
                .map(|(k, &(name, color, dash))| {
                    let y = y0 + 16.0 + LINE * k as f64;
                    view! {
                        <line x1=x x2=x + 26.0 y1=y - 5.0 y2=y - 5.0 stroke=color stroke-width="3" stroke-dasharray=dash/>
                        <text x=x + 32.0 y=y class="legend">{name.to_string()}</text>
                    }
                })
                .collect_view()}
        }
    }

    /// Where a legend `w` × `h` inside the plot starts (its lines' left end, its box's top):
    /// the corner covering none of `clear` and, among those, the fewest of `data`.
    fn clearest_corner(&self, w: f64, h: f64, data: &[(f64, f64)], clear: &[(f64, f64)]) -> (f64, f64) {
        // Wider than the plot: from the chart's left edge, over the y labels.
        let left = if ML + w > self.w - MR { (self.w - w - 2.0).max(8.0) } else { ML + 6.0 };
        let right = (self.w - MR - w + 6.0).max(left);
        let (top, bottom) = (self.mt() + 2.0, (self.h - MB - h - 2.0).max(self.mt() + 2.0));
        let on_screen = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
            points.iter().filter(|(x, y)| x.is_finite() && y.is_finite()).map(|&(x, y)| (self.px(x), self.py(y))).collect()
        };
        let (screen, kept_clear) = (on_screen(data), on_screen(clear));
        let covers = |points: &[(f64, f64)], x: f64, y: f64| {
            points.iter().filter(|&&(sx, sy)| sx >= x - 6.0 && sx <= x - 6.0 + w && sy >= y && sy <= y + h).count()
        };
        let corners = [(left, top), (right, top), (left, bottom), (right, bottom)];
        let clear_corners: Vec<(f64, f64)> = corners.into_iter().filter(|&(x, y)| covers(&kept_clear, x, y) == 0).collect();
        (if clear_corners.is_empty() { &corners[..] } else { &clear_corners[..] })
            .iter()
            .copied()
            .min_by_key(|&(x, y)| covers(&screen, x, y))
            .unwrap_or((left, top))
    }

    /// Points (data coordinates) along the label [`Plot::marker`] writes at data x for `label`:
    /// what a legend must not cover.
    pub fn marker_label_area(&self, x: f64, label: &str) -> Vec<(f64, f64)> {
        let sx = self.px(x);
        let width = 8.2 * label.chars().count() as f64;
        let (from, to) = if sx > self.w - 120.0 { (sx - 6.0 - width, sx - 6.0) } else { (sx + 6.0, sx + 6.0 + width) };
        let foot = if self.log_y { self.y.0 * 1.0001 } else { self.y.0 + 0.04 * (self.y.1 - self.y.0) };
        (0..=8)
            .map(|k| (self.x.0 + (from + (to - from) * k as f64 / 8.0 - ML) / (self.w - ML - MR) * (self.x.1 - self.x.0), foot))
            .collect()
    }

    /// A vertical dashed marker at data x with a label at its foot.
    pub fn marker(&self, x: f64, label: &str, color: &'static str) -> impl IntoView {
        let sx = self.px(x);
        let anchor = if sx > self.w - 120.0 { "end" } else { "start" };
        let tx = if anchor == "end" { sx - 6.0 } else { sx + 6.0 };
        view! {
            <line x1=sx x2=sx y1=self.mt() y2=self.h - MB stroke=color stroke-width="2" stroke-dasharray="4,4"/>
            <text x=tx y=self.h - MB - 8.0 class="legend" fill=color text-anchor=anchor>{label.to_string()}</text>
        }
    }
}

/// Ticks a y axis of a chart `h` high asks for: about one per 50 px of plot, so that a short
/// chart's labels never touch (the e2e overlap check caught 9 labels on a 112 px axis).
fn y_ticks(h: f64) -> usize {
    (((h - MT - MB) / 50.0).floor() as usize).clamp(2, 6)
}

/// The lowest non-NaN and the highest value of `values`, or (0, 1) when there is none.
pub fn range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.into_iter().filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// One method's model at a pick over a 1-D task: with a model, its mean ± 2 sd in its own
/// `units` (the warped values it was fitted on) with the evaluations so far; during a random
/// start, the task's values `truth` with the evaluations on them.
pub fn model_chart(name: &str, units: &str, x: &[f64], truth: &[f64], pick: &Pick, color: &'static str) -> impl IntoView {
    let n = pick.evaluated.len();
    let last = n.checked_sub(1);
    let dot = move |k: usize, p: &Plot, xv: f64, yv: f64| {
        let fill = if Some(k) == last { ORANGE } else { color };
        view! { <circle class="obs" cx=p.px(xv) cy=p.py(yv) r="6" fill=fill stroke="#fff" stroke-width="1.5"/> }
    };
    let Some(b) = pick.belief.as_ref() else {
        let title = format!("{name}: random start ({} of 5), no model yet", n + 1);
        let p = Plot::nice((0.0, 1.0), range(truth.iter().copied()), 240.0).room_for(&title);
        return view! {
            {p.axes(&title, "x", "y")}
            <polyline points=p.points(x.iter().copied().zip(truth.iter().copied())) fill="none" stroke=GREY stroke-width="2" stroke-dasharray="6,4"/>
            {pick.evaluated.iter().enumerate().map(|(k, &i)| dot(k, &p, x[i], truth[i])).collect_view()}
            {p.marker(x[pick.next], "next (random)", ORANGE)}
        }
        .into_any();
    };
    let upper: Vec<f64> = b.mean.iter().zip(&b.sd).map(|(m, s)| m + 2.0 * s).collect();
    let lower: Vec<f64> = b.mean.iter().zip(&b.sd).map(|(m, s)| m - 2.0 * s).collect();
    let title = match b.acquisition_kind {
        Acquisition::ThompsonDraw => format!("{name}: Thompson warm start ({} of 5), the prior alone", n + 1),
        Acquisition::ExpectedImprovement => format!("{name}: its GP in {units} units, next pick by EI"),
    };
    let p = Plot::nice((0.0, 1.0), range(upper.iter().chain(&lower).chain(&b.observed).copied()), 240.0).room_for(&title);
    view! {
        {p.axes(&title, "x", units)}
        <polygon points=p.band(x, &lower, &upper) fill=color fill-opacity="0.16" stroke="none"/>
        <polyline points=p.points(x.iter().copied().zip(b.mean.iter().copied())) fill="none" stroke=color stroke-width="3"/>
        {pick.evaluated.iter().zip(&b.observed).enumerate().map(|(k, (&i, &z))| dot(k, &p, x[i], z)).collect_view()}
        {p.marker(x[pick.next], "next", ORANGE)}
    }
    .into_any()
}

/// Text for SVG markup: `&`, `<`, `>` and `"` escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// [`chart_title`] as SVG markup: `title` from `x`, wrapped as the charts wrap it.
pub fn title_svg(title: &str, w: f64, x: f64) -> String {
    let axis::TitleSet { x, rows, step, .. } = axis::set_title(title, w, x, w < NARROW, top_margin(w));
    let lines: String = rows
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let r = if k + 1 < rows.len() { format!("{r} ") } else { r.clone() };
            format!(r#"<tspan x="{x}" dy="{}">{}</tspan>"#, if k == 0 { "0" } else { step }, escape(&r))
        })
        .collect();
    format!(r#"<text x="{x}" y="22" class="chart-title">{lines}</text>"#)
}
