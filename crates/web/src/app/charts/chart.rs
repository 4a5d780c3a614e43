//! Line charts with confidence bands, drawn as self-contained SVG (attributes, no CSS), so
//! the exported file looks like the page. Values on hover; log-scale y axis on demand.

use leptos::prelude::*;

use crate::app::platform::browser::{download_png, download_svg};
use crate::app::state::{Level, Messages};

use hpo_engine::axis::{self, Ticks, TitleSet};
use hpo_engine::results::metrics::Band;

/// One curve: a method's mean with its band.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// CSS colour.
    pub color: &'static str,
    /// Mean and band per iteration (iteration 1 is index 0).
    pub band: Band,
    /// While its method's jobs are not all in: how many are ("3 of 10 runs so far"), said in
    /// the legend; a method with none yet has an empty band and this entry alone.
    pub so_far: Option<String>,
}

/// Line styles paired with the palette, so that series stay apart without colour (print,
/// colour blindness beyond what Okabe–Ito covers, a washed-out projector).
const DASHES: &[&str] = &["none", "9,4", "2,3", "12,3,2,3", "5,5", "1,4", "14,5", "6,2,2,2"];

/// The colour of a study's own run beside the methods (grey: it is not one of them).
pub const STUDY_COLOR: &str = "#555555";

/// Colour-blind-safe palette (Okabe–Ito), one colour per method.
pub const PALETTE: &[&str] = &["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

/// Height of the plot and its axes; a legend below it adds to the chart's height.
const H: f64 = 360.0;
const ML: f64 = 72.0;
/// Right margin beside a legend, and without one.
const MR_LEGEND: f64 = 200.0;
const MR_BARE: f64 = 24.0;
/// Narrower than this (a phone; a phone-sized window in Firefox, 500 px), a chart's legend
/// goes below its plot: beside it there is no room, and inside it, in a corner, it covered the
/// data on every lesson with a legend (the Pareto front's low-latency end, the early learning
/// curves, CTS's draws). Wider, the result charts keep it beside the plot and the lessons'
/// plots in their clearest corner ([`legend_below`], [`legend_room`]).
pub const LEGEND_BELOW_UNDER: f64 = 600.0;
const MB: f64 = 52.0;
/// Width of a digit of the 14-unit tick labels (DejaVu Sans, the widest of the fonts
/// `--chart-font` falls back to here: 0.64 em).
pub const TICK_DIGIT: f64 = 9.0;
/// The least air between two x labels.
pub const TICK_GAP: f64 = 7.0;
/// Height of one legend entry and of one hover line (the type scale's legend size plus air).
pub const LINE: f64 = 20.0;

/// Whether a chart `w` wide puts its legend below its plot ([`LEGEND_BELOW_UNDER`]).
pub fn legend_below(w: f64) -> bool {
    w < LEGEND_BELOW_UNDER
}

/// The height a legend of `n` entries adds under a chart `w` wide: its rows when it goes
/// below the plot, nothing when it stays beside or inside it.
pub fn legend_room(w: f64, n: usize) -> f64 {
    if legend_below(w) {
        8.0 + LINE * n as f64
    } else {
        0.0
    }
}

/// The mean width of a character of the 14-unit legend text (wider than most fonts' 0.5 em,
/// so that a wrapped note stays inside the legend's column).
const LEGEND_CHAR_WIDTH: f64 = 8.0;

/// `text` greedily in lines of at most `per_line` characters, broken at spaces.
fn wrap_words(text: &str, per_line: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match rows.last_mut() {
            Some(r) if r.chars().count() + 1 + word.chars().count() <= per_line.max(8) => {
                r.push(' ');
                r.push_str(word);
            }
            _ => rows.push(word.to_string()),
        }
    }
    rows
}

/// A series' legend entry: its name, how many runs its band is over and, while its method's
/// jobs are not all in, how many are.
fn legend_label(s: &Series) -> String {
    match (&s.so_far, s.band.n) {
        (Some(so_far), 0) => format!("{}: {so_far}", s.name),
        (Some(so_far), n) => format!("{} (n={n}): {so_far}", s.name),
        (None, n) => format!("{} (n={n})", s.name),
    }
}

/// Where a chart `w` wide puts its plot and its legend of `n` entries.
#[derive(Clone, Copy)]
struct Frame {
    w: f64,
    /// Right margin of the plot.
    mr: f64,
    legend_below: bool,
    /// The whole chart's height.
    h: f64,
    /// Room above the plot (the title's).
    mt: f64,
}

impl Frame {
    /// `n` legend entries, the longest `widest` characters: beside the plot, the right margin
    /// grows past [`MR_LEGEND`] for a label longer than it holds ("Optuna's own run (n=1)").
    fn new(w: f64, n: usize, widest: usize) -> Self {
        let below = legend_below(w);
        let mr = if below { MR_BARE } else { MR_LEGEND.max(44.0 + LEGEND_CHAR_WIDTH * widest as f64).min(w / 3.0) };
        Frame { w, mr, legend_below: below, h: H + legend_room(w, n), mt: top_margin(w) }
    }

    /// The same frame with room above the plot for `title`.
    fn titled(self, title: &str) -> Self {
        Frame { mt: title_top(title, self.w, ML), ..self }
    }

    /// The left end of legend entry `k` and its text's baseline.
    fn legend_at(&self, k: usize) -> (f64, f64) {
        if self.legend_below {
            (8.0, H + 8.0 + LINE * k as f64 + 14.0)
        } else {
            (self.w - self.mr + 6.0, self.mt + 14.0 + LINE * k as f64)
        }
    }
}

struct Scale {
    fr: Frame,
    x_max: usize,
    y_lo: f64,
    y_hi: f64,
    log: bool,
}

impl Scale {
    fn x(&self, i: usize) -> f64 {
        let span = (self.x_max.max(2) - 1) as f64;
        ML + (i as f64) / span * (self.fr.w - ML - self.fr.mr)
    }
    fn t(&self, v: f64) -> f64 {
        if self.log {
            v.max(self.y_lo).log10()
        } else {
            v
        }
    }
    fn y(&self, v: f64) -> f64 {
        let (lo, hi) = (self.t(self.y_lo), self.t(self.y_hi));
        let f = if hi > lo { (self.t(v) - lo) / (hi - lo) } else { 0.5 };
        H - MB - f * (H - self.fr.mt - MB)
    }
    fn ticks(&self) -> Ticks {
        if self.log {
            axis::log(self.y_lo, self.y_hi, 6)
        } else {
            axis::linear(self.y_lo, self.y_hi, 5)
        }
    }

    /// Ticks of the x axis: nice values of `x_values` (evenly spaced over the indices) or of
    /// the 1-based iteration counted from `first_iteration` (a zoomed window's), as (pixel,
    /// label).
    fn x_ticks_from(&self, x_values: Option<&[f64]>, first_iteration: usize) -> Vec<(f64, String)> {
        let n = self.x_max;
        let (first, last) = match x_values {
            Some(v) if v.len() >= 2 && v[v.len() - 1] > v[0] => (v[0], v[v.len() - 1]),
            _ => (first_iteration as f64, (first_iteration + n - 1) as f64),
        };
        if n < 2 || last <= first {
            return vec![(
                self.x(0),
                x_values.and_then(|v| v.first()).map_or(first_iteration.to_string(), |v| axis::linear(*v, *v, 1).labels[0].clone()),
            )];
        }
        let mut ticks = axis::linear_fitting(first, last, 7, self.fr.w - ML - self.fr.mr, TICK_DIGIT, TICK_GAP);
        if x_values.is_none() && ticks.values.len() > 1 && ticks.values[1] - ticks.values[0] < 1.0 {
            // Iterations are whole numbers.
            let range = first_iteration..first_iteration + n;
            ticks = Ticks { values: range.clone().map(|i| i as f64).collect(), labels: range.map(|i| i.to_string()).collect() };
        }
        ticks
            .values
            .iter()
            .zip(ticks.labels)
            .map(|(&v, l)| (ML + (v - first) / (last - first) * (self.fr.w - ML - self.fr.mr), l))
            .collect()
    }
}

fn scale(fr: Frame, series: &[Series], log: bool) -> Option<Scale> {
    let x_max = series.iter().map(|s| s.band.mean.len()).max().filter(|&n| n > 0)?;
    let values = series
        .iter()
        .flat_map(|s| s.band.lower.iter().chain(&s.band.upper).chain(&s.band.mean))
        .copied()
        .filter(|v| v.is_finite() && (!log || *v > 0.0));
    let (mut lo, mut hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return None;
    }
    if !log && hi == lo {
        lo -= 0.5;
        hi += 0.5;
    }
    if log && hi / lo < 10.0 {
        lo /= 1.5;
        hi *= 1.5;
    }
    Some(Scale { fr, x_max, y_lo: lo, y_hi: hi, log })
}

/// Index ranges `from..to` of consecutive finite values.
fn finite_runs(values: &[f64]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, v) in values.iter().enumerate() {
        match (v.is_finite(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, values.len()));
    }
    runs
}

/// Three significant digits (axis ticks).
fn fmt_tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return fmt_value(v);
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

fn fmt_value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e4 || v.abs() < 1e-3 {
        format!("{v:.3e}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A chart of several series over iterations.
#[component]
pub fn LineChart(
    /// DOM id of the `<svg>` (used by the export buttons and the tests).
    id: &'static str,
    /// Title drawn in the chart.
    title: Signal<String>,
    /// Y-axis label.
    y_label: &'static str,
    /// The curves.
    series: Signal<Vec<Series>>,
    /// Log-scale y axis.
    log_y: Signal<bool>,
    /// X-axis label (default "iteration").
    #[prop(optional)]
    x_label: Option<&'static str>,
    /// The x value of each index (evenly spaced; default: index + 1).
    #[prop(optional)]
    x_values: Option<Signal<Vec<f64>>>,
    /// A remark the legend ends with, wrapped to the legend's width (the race chart's: what
    /// the methods beside a study's own run replay).
    #[prop(optional)]
    legend_note: Option<Signal<String>>,
) -> impl IntoView {
    let x_label = x_label.unwrap_or("iteration");
    // Laid out at its figure's width (one unit a pixel); the legend below on a narrow one.
    let width = use_context::<ChartWidth>().map_or(Signal::derive(|| DEFAULT_WIDTH), |w| w.0);
    let note_rows = move || {
        let w = width.get();
        let room = if legend_below(w) { w - 16.0 } else { MR_LEGEND - 8.0 };
        legend_note.map_or_else(Vec::new, |n| wrap_words(&n.get(), (room / LEGEND_CHAR_WIDTH) as usize))
    };
    // The longest legend label, in characters (a series' name and its count).
    let widest = move || series.with(|s| s.iter().map(|x| legend_label(x).chars().count()).max().unwrap_or(0));
    let frame = move || Frame::new(width.get(), series.with(Vec::len) + note_rows().len(), widest()).titled(&title.get());
    // Drag across the plot to zoom into those iterations; "reset zoom" (or Escape) undoes it.
    // Zooming slices the data, so scale, ticks and hover work on the window unchanged.
    let zoom = RwSignal::new(None::<(usize, usize)>);
    let drag = RwSignal::new(None::<(usize, usize)>);
    let all_series = series;
    let series = Signal::derive(move || {
        let all = all_series.get();
        match zoom.get() {
            None => all,
            Some((a, b)) => all
                .into_iter()
                .map(|mut s| {
                    let cut = |v: &mut Vec<f64>| *v = v.get(a..=b.min(v.len().saturating_sub(1))).map(<[f64]>::to_vec).unwrap_or_default();
                    cut(&mut s.band.mean);
                    cut(&mut s.band.lower);
                    cut(&mut s.band.upper);
                    s
                })
                .collect(),
        }
    });
    let x_values: Option<Signal<Vec<f64>>> = x_values.map(|v| {
        Signal::derive(move || {
            let all = v.get();
            match zoom.get() {
                Some((a, b)) => all.get(a..=b.min(all.len().saturating_sub(1))).map(<[f64]>::to_vec).unwrap_or_default(),
                None => all,
            }
        })
    });
    // Without x values the axis counts iterations from the window's first.
    let first_iteration = move || zoom.get().map_or(1, |(a, _)| a + 1);
    let x_at = move |i: usize| -> String {
        match x_values {
            Some(v) => v.with(|v| v.get(i).map(|x| fmt_tick(*x)).unwrap_or_default()),
            None => (i + first_iteration()).to_string(),
        }
    };
    let hover = RwSignal::new(None::<usize>);
    // Series the reader switched off in the legend (by name, so a new run keeps the choice).
    let hidden = RwSignal::new(std::collections::BTreeSet::<String>::new());
    let toggle = move |name: String| {
        hidden.update(|h| {
            if !h.remove(&name) {
                h.insert(name);
            }
        })
    };
    // The index under the pointer within the shown window, or None without data.
    let index_at = move |ev: &leptos::ev::MouseEvent| -> Option<usize> {
        let n = series.with(|s| s.iter().map(|x| x.band.mean.len()).max().unwrap_or(0));
        if n == 0 {
            return None;
        }
        // offsetX is in CSS pixels of the rendered svg; map back through its viewBox.
        let target: web_sys::Element = event_target(ev);
        let svg = target.closest("svg").ok().flatten()?;
        let w = view_box_width(&svg);
        let fr = Frame::new(w, 0, widest());
        let x = ev.offset_x() as f64 * w / svg.get_bounding_client_rect().width().max(1.0);
        let f = ((x - ML) / (w - ML - fr.mr)).clamp(0.0, 1.0);
        Some((f * (n.max(2) - 1) as f64).round() as usize)
    };
    let offset = move || zoom.get_untracked().map_or(0, |(a, _)| a);
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let Some(i) = index_at(&ev) else { return };
        hover.set(Some(i));
        if let Some((start, _)) = drag.get_untracked() {
            drag.set(Some((start, offset() + i)));
        }
    };
    let on_down = move |ev: leptos::ev::MouseEvent| {
        // Not on the legend or the reset button, which take clicks.
        let target: web_sys::Element = event_target(&ev);
        if target.closest(".legend-entry, .zoom-reset").ok().flatten().is_none() {
            if let Some(i) = index_at(&ev) {
                // A drag zooms; it must not also select the chart's text.
                ev.prevent_default();
                drag.set(Some((offset() + i, offset() + i)));
            }
        }
    };
    let on_up = move |_| {
        if let Some((a, b)) = drag.get_untracked() {
            let (a, b) = (a.min(b), a.max(b));
            if b >= a + 2 {
                zoom.set(Some((a, b)));
                hover.set(None);
            }
        }
        drag.set(None);
    };
    let reset = move || {
        zoom.set(None);
        drag.set(None);
    };
    view! {
        <svg id=id xmlns="http://www.w3.org/2000/svg" viewBox=move || { let fr = frame(); format!("0 0 {} {}", fr.w, fr.h) } width="100%"
            class="chart" role="group" aria-label=move || format!("{}: {y_label} over {x_label}", title.get())
            on:mousemove=on_move on:mouseleave=move |_| { hover.set(None); drag.set(None) }
            on:mousedown=on_down on:mouseup=on_up on:keydown=move |ev| { if ev.key() == "Escape" { reset() } }>
            <rect x="0" y="0" width=move || frame().w height=move || frame().h fill="#ffffff"/>
            {move || chart_title(&title.get(), frame().w, ML)}
            {move || {
                let all = series.get();
                let off = hidden.get();
                let s: Vec<Series> = all.iter().filter(|x| !off.contains(&x.name)).cloned().collect();
                let log = log_y.get();
                let notes = note_rows();
                let fr = Frame::new(width.get(), all.len() + notes.len(), widest()).titled(&title.get());
                // The legend lists every series, shown or not; a click (or Enter) toggles one.
                let dash = |name: &str| DASHES[all.iter().position(|x| x.name == name).unwrap_or(0) % DASHES.len()];
                let legend = all.iter().enumerate().map(|(k, se)| {
                    let (lx, ly) = fr.legend_at(k);
                    let name = se.name.clone();
                    let shown = !off.contains(&se.name);
                    let (n1, n2) = (name.clone(), name.clone());
                    view! {
                        <g class="legend-entry" role="button" tabindex="0" aria-pressed=if shown { "true" } else { "false" }
                            aria-label=format!("{}: {}", se.name, if shown { "shown, press to hide" } else { "hidden, press to show" })
                            on:click=move |_| toggle(n1.clone())
                            on:keydown=move |ev| { if ev.key() == "Enter" || ev.key() == " " { ev.prevent_default(); toggle(n2.clone()) } }
                            style="cursor:pointer" opacity=if shown { "1" } else { "0.4" }>
                            <rect x=lx y=ly - 14.0 width=MR_LEGEND - 8.0 height=LINE - 2.0 fill="#ffffff" fill-opacity="0"/>
                            <line x1=lx + 2.0 x2=lx + 26.0 y1=ly - 5.0 y2=ly - 5.0 stroke=se.color stroke-width="3"
                                stroke-dasharray=dash(&se.name)/>
                            <text x=lx + 30.0 y=ly class="legend">{legend_label(se)}</text>
                        </g>
                    }
                }).collect_view();
                let note = notes.iter().enumerate().map(|(j, row)| {
                    let (lx, ly) = fr.legend_at(all.len() + j);
                    view! { <text x=lx + 2.0 y=ly class="legend legend-note">{row.clone()}</text> }
                }).collect_view();
                let legend = view! { {legend} {note} };
                let Some(sc) = scale(fr, &s, log) else {
                    let note = if all.is_empty() { "No results yet: run an experiment." } else { "Every series is hidden: click one in the legend." };
                    return view! {
                        <text x=(ML + fr.w - fr.mr) / 2.0 y=H / 2.0 text-anchor="middle" class="axis-title">{note}</text>
                        {legend}
                    }.into_any();
                };
                let yt = sc.ticks();
                let ticks = yt.values.iter().zip(yt.labels).map(|(&v, label)| {
                    let y = sc.y(v);
                    view! {
                        <line x1=ML x2=fr.w - fr.mr y1=y y2=y stroke="#e5e5e5"/>
                        <text x=ML - 10.0 y=y + 5.0 text-anchor="end" class="tick">{label}</text>
                    }
                }).collect_view();
                let xt = match x_values {
                    Some(v) => v.with(|v| sc.x_ticks_from(Some(v), 1)),
                    None => sc.x_ticks_from(None, first_iteration()),
                };
                let xticks = xt.into_iter().map(|(x, label)| {
                    view! { <text x=x y=H - MB + 24.0 text-anchor="middle" class="tick">{label}</text> }
                }).collect_view();
                let curves = s.iter().map(|se| {
                    let b = &se.band;
                    // Missing values (NaN) break the curve rather than the drawing.
                    let pieces = finite_runs(&b.mean).into_iter().map(|(from, to)| {
                        let upper: Vec<String> = (from..to).map(|i| format!("{:.2},{:.2}", sc.x(i), sc.y(b.upper[i]))).collect();
                        let lower: Vec<String> = (from..to).rev().map(|i| format!("{:.2},{:.2}", sc.x(i), sc.y(b.lower[i]))).collect();
                        let line: Vec<String> = (from..to).map(|i| format!("{:.2},{:.2}", sc.x(i), sc.y(b.mean[i]))).collect();
                        view! {
                            <polygon points=format!("{} {}", upper.join(" "), lower.join(" ")) fill=se.color fill-opacity="0.18" stroke="none"/>
                            <polyline points=line.join(" ") fill="none" stroke=se.color stroke-width="2.5" stroke-dasharray=dash(&se.name)/>
                        }
                    }).collect_view();
                    view! { {pieces} }
                }).collect_view();
                let hover_view = hover.get().filter(|&i| i < sc.x_max).map(|i| {
                    let x = sc.x(i);
                    let lines: Vec<(String, &'static str)> = s.iter().filter_map(|se| {
                        let m = *se.band.mean.get(i).filter(|m| m.is_finite())?;
                        Some((format!("{}: {} [{}, {}]", se.name, fmt_value(m), fmt_value(se.band.lower[i]), fmt_value(se.band.upper[i])), se.color))
                    }).collect();
                    let box_w = 308f64.min(fr.w - 16.0);
                    let bx = if x > (ML + fr.w - fr.mr) / 2.0 { (x - box_w - 8.0).max(8.0) } else { (x + 8.0).min(fr.w - box_w - 8.0) };
                    let rows = lines.into_iter().enumerate().map(|(k, (t, c))| view! {
                        <text x=bx + 6.0 y=fr.mt + 24.0 + LINE * (k + 1) as f64 class="legend" style=format!("fill:{c}")>{t}</text>
                    }).collect_view();
                    let height = 12.0 + LINE * (s.len() + 1) as f64;
                    view! {
                        <g class="hover">
                            <line x1=x x2=x y1=fr.mt y2=H - MB stroke="#888" stroke-dasharray="3,3"/>
                            <rect x=bx y=fr.mt + 4.0 width=box_w height=height fill="#ffffff" fill-opacity="0.92" stroke="#bbb"/>
                            <text x=bx + 6.0 y=fr.mt + 24.0 class="legend" font-weight="600">{format!("{x_label} {}", x_at(i))}</text>
                            {rows}
                        </g>
                    }
                });
                view! {
                    <g>
                        {ticks}
                        {xticks}
                        <line x1=ML x2=fr.w - fr.mr y1=H - MB y2=H - MB stroke="#444"/>
                        <line x1=ML x2=ML y1=fr.mt y2=H - MB stroke="#444"/>
                        <text x=(ML + fr.w - fr.mr) / 2.0 y=H - 10.0 text-anchor="middle" class="axis-title">{x_label}</text>
                        <text transform=format!("translate(18,{}) rotate(-90)", (fr.mt + H - MB) / 2.0) text-anchor="middle" class="axis-title">
                            {move || if log_y.get() { format!("{y_label} (log)") } else { y_label.to_string() }}
                        </text>
                        {curves}
                        {legend}
                        {hover_view}
                        {drag.get().filter(|(a, b)| a != b).map(|(a, b)| {
                            let o = offset();
                            let (x1, x2) = (sc.x(a.min(b).saturating_sub(o)), sc.x(a.max(b).saturating_sub(o)));
                            view! { <rect class="zoom-band" x=x1 y=fr.mt width=x2 - x1 height=H - fr.mt - MB fill="#0072B2" fill-opacity="0.12" stroke="#0072B2"/> }
                        })}
                        {zoom.get().map(|_| view! {
                            <g class="zoom-reset" role="button" tabindex="0" aria-label="reset zoom" style="cursor:pointer"
                                on:click=move |_| reset() on:keydown=move |ev| { if ev.key() == "Enter" || ev.key() == " " { ev.prevent_default(); reset() } }>
                                <rect x=fr.w - fr.mr - 112.0 y=fr.mt + 4.0 width="104" height="24" rx="4" fill="#ffffff" stroke="#0072B2"/>
                                <text x=fr.w - fr.mr - 60.0 y=fr.mt + 21.0 text-anchor="middle" class="legend" style="fill:#0072B2">"reset zoom"</text>
                            </g>
                        })}
                    </g>
                }.into_any()
            }}
        </svg>
    }
}

/// The width, in CSS pixels, at which the charts inside a [`ChartFigure`] are laid out: the
/// figure's own width, measured as it changes. A chart drawn with a view box this wide shows
/// one unit as one pixel, so its text keeps the type scale's size at every width (on a phone
/// the plot narrows and its legend moves below; nothing shrinks).
#[derive(Clone, Copy)]
pub struct ChartWidth(pub Signal<f64>);

/// Narrowest layout: below it (a 320 px phone with the page's margins) the drawing scales.
pub const MIN_WIDTH: f64 = 280.0;
/// Widest layout: on a wider screen the drawing scales up with it.
pub const MAX_WIDTH: f64 = 1000.0;
/// The width before the figure is measured (and outside any figure).
pub const DEFAULT_WIDTH: f64 = 720.0;

/// The width of the figure this chart is drawn in (see [`ChartWidth`]); reactive.
pub fn chart_width() -> f64 {
    use_context::<ChartWidth>().map_or(DEFAULT_WIDTH, |w| w.0.get())
}

/// Watches `node`'s width (a `ResizeObserver`), whole pixels within
/// [`MIN_WIDTH`]..=[`MAX_WIDTH`]; stops watching when the owner is cleaned up.
pub fn observed_width<E>(node: NodeRef<E>) -> Signal<f64>
where
    E: leptos::html::ElementType,
    E::Output: wasm_bindgen::JsCast + Clone + 'static,
{
    let width = RwSignal::new(DEFAULT_WIDTH);
    crate::app::platform::browser::watch_size(node, move |el| {
        let w = (el.client_width() as f64).clamp(MIN_WIDTH, MAX_WIDTH).round();
        // Zero when hidden: keep the last layout rather than draw a 280 px chart.
        if el.client_width() > 0 && (w - width.get_untracked()).abs() >= 1.0 {
            width.set(w);
        }
    });
    width.into()
}

/// Charts narrower than this (a phone) start their title at the left edge, wrap it onto two
/// lines and leave room above the plot for both.
pub const NARROW: f64 = 560.0;

/// Room above the plot of a chart `w` wide: the title's one line, or two on a narrow chart.
pub fn top_margin(w: f64) -> f64 {
    if w < NARROW {
        60.0
    } else {
        36.0
    }
}

/// How `title` is set on a chart `w` wide from `x` ([`axis::set_title`]: a narrow chart
/// puts it at its own left edge and has room for three lines).
fn set_title(title: &str, w: f64, x: f64) -> TitleSet {
    axis::set_title(title, w, x, w < NARROW, top_margin(w))
}

/// The room above the plot a chart `w` wide needs for `title` drawn from `x` (at least
/// [`top_margin`]).
pub fn title_top(title: &str, w: f64, x: f64) -> f64 {
    set_title(title, w, x).top
}

/// A chart's title from `x` (the plot's left edge; the chart's on a narrow chart), wrapped at
/// word breaks (see [`title_top`] for the room it takes).
pub fn chart_title(title: &str, w: f64, x: f64) -> impl IntoView {
    let TitleSet { x, rows, step, .. } = set_title(title, w, x);
    view! {
        <text x=x y="22" class="chart-title">
            // Each line but the last keeps the space it broke at: the title reads whole as text.
            {rows.iter().enumerate().map(|(k, r)| {
                let r = if k + 1 < rows.len() { format!("{r} ") } else { r.clone() };
                view! { <tspan x=x dy=if k == 0 { "0" } else { step }>{r}</tspan> }
            }).collect_view()}
        </text>
    }
}

/// A box as wide as its parent whose charts are laid out at its width ([`ChartWidth`]).
#[component]
pub fn ChartBox(
    /// The charts.
    children: Children,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let width = ChartWidth(observed_width(node));
    // A Provider, not provide_context: the width is this box's, not its siblings'.
    view! {
        <div node_ref=node class="chart-box">
            <leptos::context::Provider value=width>{children()}</leptos::context::Provider>
        </div>
    }
}

/// The width of an `<svg>`'s view box (what a pointer's position maps back through), or
/// [`DEFAULT_WIDTH`] if it has none.
pub fn view_box_width(svg: &web_sys::Element) -> f64 {
    svg.get_attribute("viewBox").and_then(|v| v.split_whitespace().nth(2).and_then(|w| w.parse().ok())).unwrap_or(DEFAULT_WIDTH)
}

/// A chart with its caption and its SVG and PNG export buttons — the one way the results
/// show a chart, so every chart exports alike and reports a failed export alike. The charts
/// inside are laid out at the figure's width ([`ChartWidth`]).
#[component]
pub fn ChartFigure(
    /// DOM id of the chart inside (what the exports read).
    id: &'static str,
    /// File name of the downloads, without extension.
    file: &'static str,
    /// The caption: text, and controls if any; the export buttons follow it.
    #[prop(into)]
    caption: ViewFn,
    /// Whether this is what its lesson builds up to (the chart a projector must show with
    /// the step: `class="payoff"`, which the layout test checks).
    #[prop(optional)]
    payoff: bool,
    /// The chart.
    children: Children,
) -> impl IntoView {
    let messages = expect_context::<Messages>();
    let export = move |png: bool| {
        let result = if png { download_png(id, &format!("{file}.png")) } else { download_svg(id, &format!("{file}.svg")) };
        if let Err(e) = result {
            messages.say(Level::Error, crate::app::platform::browser::export_failed(&e));
        }
    };
    view! {
        <figure class:payoff=payoff>
            <ChartBox>{children()}</ChartBox>
            <figcaption>
                {caption.run()}
                " "
                <button class="small" on:click=move |_| export(false)>"SVG"</button>
                <button class="small" on:click=move |_| export(true)>"PNG"</button>
            </figcaption>
        </figure>
    }
}

/// A [`ChartFigure`] of one SVG chart: the figure, its caption and exports, and the `<svg>`
/// with the same id, its view box and what it shows in words (for screen readers).
#[component]
pub fn SvgFigure(
    /// DOM id of the SVG (what the exports read).
    id: &'static str,
    /// File name of the downloads, without extension.
    file: &'static str,
    /// The caption.
    #[prop(into)]
    caption: ViewFn,
    /// The drawing's height (its width is the figure's, [`chart_width`]).
    height: f64,
    /// What the chart shows, in words.
    label: &'static str,
    /// Whether this is what its lesson builds up to ([`ChartFigure`]'s `payoff`).
    #[prop(optional)]
    payoff: bool,
    /// The entries of the drawing's legend, which goes below `height` on a narrow chart
    /// ([`legend_room`]; the lessons' `plot::Plot::legend`).
    #[prop(optional)]
    legend: usize,
    /// The drawing.
    children: Children,
) -> impl IntoView {
    view! {
        <ChartFigure id=id file=file caption=caption payoff=payoff>
            <svg id=id class="chart" xmlns="http://www.w3.org/2000/svg" viewBox=move || { let w = chart_width(); format!("0 0 {w} {}", height + legend_room(w, legend)) } role="img" aria-label=label>
                {children()}
            </svg>
        </ChartFigure>
    }
}
