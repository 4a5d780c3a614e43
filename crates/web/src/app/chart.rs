//! Line charts with confidence bands, drawn as self-contained SVG (attributes, no CSS), so
//! the exported file looks like the page. Values on hover; log-scale y axis on demand.

use leptos::prelude::*;

use super::browser::{download_png, download_svg};
use super::state::{AppState, Level};

use hpo_engine::axis::{self, Ticks};
use hpo_engine::metrics::Band;

/// One curve: a method's mean with its band.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// CSS colour.
    pub color: &'static str,
    /// Mean and band per iteration (iteration 1 is index 0).
    pub band: Band,
}

/// Line styles paired with the palette, so that series stay apart without colour (print,
/// colour blindness beyond what Okabe–Ito covers, a washed-out projector).
const DASHES: &[&str] = &["none", "9,4", "2,3", "12,3,2,3", "5,5", "1,4", "14,5", "6,2,2,2"];

/// Colour-blind-safe palette (Okabe–Ito), one colour per method.
pub const PALETTE: &[&str] = &["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

const W: f64 = 720.0;
const H: f64 = 360.0;
const ML: f64 = 72.0;
const MR: f64 = 200.0;
const MT: f64 = 36.0;
const MB: f64 = 52.0;
/// Width of a digit of the 14-unit tick labels (DejaVu Sans, the widest of the fonts
/// `--chart-font` falls back to here: 0.64 em) and the least air between two x labels.
const TICK_DIGIT: f64 = 9.0;
const TICK_GAP: f64 = 7.0;
/// Height of one legend entry and of one hover line (the type scale's legend size plus air).
const LINE: f64 = 20.0;

struct Scale {
    x_max: usize,
    y_lo: f64,
    y_hi: f64,
    log: bool,
}

impl Scale {
    fn x(&self, i: usize) -> f64 {
        let span = (self.x_max.max(2) - 1) as f64;
        ML + (i as f64) / span * (W - ML - MR)
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
        H - MB - f * (H - MT - MB)
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
        let mut ticks = axis::linear_fitting(first, last, 7, W - ML - MR, TICK_DIGIT, TICK_GAP);
        if x_values.is_none() && ticks.values.len() > 1 && ticks.values[1] - ticks.values[0] < 1.0 {
            // Iterations are whole numbers.
            let range = first_iteration..first_iteration + n;
            ticks = Ticks { values: range.clone().map(|i| i as f64).collect(), labels: range.map(|i| i.to_string()).collect() };
        }
        ticks.values.iter().zip(ticks.labels).map(|(&v, l)| (ML + (v - first) / (last - first) * (W - ML - MR), l)).collect()
    }
}

fn scale(series: &[Series], log: bool) -> Option<Scale> {
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
    Some(Scale { x_max, y_lo: lo, y_hi: hi, log })
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
) -> impl IntoView {
    let x_label = x_label.unwrap_or("iteration");
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
        let width = target.closest("svg").ok().flatten().map(|e| e.get_bounding_client_rect().width()).unwrap_or(W);
        let x = ev.offset_x() as f64 * W / width.max(1.0);
        let f = ((x - ML) / (W - ML - MR)).clamp(0.0, 1.0);
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
        <svg id=id xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {W} {H}") width="100%"
            class="chart" role="group" aria-label=move || format!("{}: {y_label} over {x_label}", title.get())
            on:mousemove=on_move on:mouseleave=move |_| { hover.set(None); drag.set(None) }
            on:mousedown=on_down on:mouseup=on_up on:keydown=move |ev| { if ev.key() == "Escape" { reset() } }>
            <rect x="0" y="0" width=W height=H fill="#ffffff"/>
            <text x=ML y="22" class="chart-title">{move || title.get()}</text>
            {move || {
                let all = series.get();
                let off = hidden.get();
                let s: Vec<Series> = all.iter().filter(|x| !off.contains(&x.name)).cloned().collect();
                let log = log_y.get();
                // The legend lists every series, shown or not; a click (or Enter) toggles one.
                let dash = |name: &str| DASHES[all.iter().position(|x| x.name == name).unwrap_or(0) % DASHES.len()];
                let legend = all.iter().enumerate().map(|(k, se)| {
                    let ly = MT + 14.0 + LINE * k as f64;
                    let name = se.name.clone();
                    let shown = !off.contains(&se.name);
                    let (n1, n2) = (name.clone(), name.clone());
                    view! {
                        <g class="legend-entry" role="button" tabindex="0" aria-pressed=if shown { "true" } else { "false" }
                            aria-label=format!("{}: {}", se.name, if shown { "shown, press to hide" } else { "hidden, press to show" })
                            on:click=move |_| toggle(n1.clone())
                            on:keydown=move |ev| { if ev.key() == "Enter" || ev.key() == " " { ev.prevent_default(); toggle(n2.clone()) } }
                            style="cursor:pointer" opacity=if shown { "1" } else { "0.4" }>
                            <rect x=W - MR + 6.0 y=ly - 14.0 width=MR - 8.0 height=LINE - 2.0 fill="#ffffff" fill-opacity="0"/>
                            <line x1=W - MR + 8.0 x2=W - MR + 32.0 y1=ly - 5.0 y2=ly - 5.0 stroke=se.color stroke-width="3"
                                stroke-dasharray=dash(&se.name)/>
                            <text x=W - MR + 36.0 y=ly class="legend">{format!("{} (n={})", se.name, se.band.n)}</text>
                        </g>
                    }
                }).collect_view();
                let Some(sc) = scale(&s, log) else {
                    let note = if all.is_empty() { "No results yet: run an experiment." } else { "Every series is hidden: click one in the legend." };
                    return view! {
                        <text x=(ML + W - MR) / 2.0 y=H / 2.0 text-anchor="middle" class="axis-title">{note}</text>
                        {legend}
                    }.into_any();
                };
                let yt = sc.ticks();
                let ticks = yt.values.iter().zip(yt.labels).map(|(&v, label)| {
                    let y = sc.y(v);
                    view! {
                        <line x1=ML x2=W - MR y1=y y2=y stroke="#e5e5e5"/>
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
                    let bx = if x > (ML + W - MR) / 2.0 { x - 316.0 } else { x + 8.0 };
                    let rows = lines.into_iter().enumerate().map(|(k, (t, c))| view! {
                        <text x=bx + 6.0 y=MT + 24.0 + LINE * (k + 1) as f64 class="legend" style=format!("fill:{c}")>{t}</text>
                    }).collect_view();
                    let height = 12.0 + LINE * (s.len() + 1) as f64;
                    view! {
                        <g class="hover">
                            <line x1=x x2=x y1=MT y2=H - MB stroke="#888" stroke-dasharray="3,3"/>
                            <rect x=bx y=MT + 4.0 width="308" height=height fill="#ffffff" fill-opacity="0.92" stroke="#bbb"/>
                            <text x=bx + 6.0 y=MT + 24.0 class="legend" font-weight="600">{format!("{x_label} {}", x_at(i))}</text>
                            {rows}
                        </g>
                    }
                });
                view! {
                    <g>
                        {ticks}
                        {xticks}
                        <line x1=ML x2=W - MR y1=H - MB y2=H - MB stroke="#444"/>
                        <line x1=ML x2=ML y1=MT y2=H - MB stroke="#444"/>
                        <text x=(ML + W - MR) / 2.0 y=H - 10.0 text-anchor="middle" class="axis-title">{x_label}</text>
                        <text transform=format!("translate(18,{}) rotate(-90)", (MT + H - MB) / 2.0) text-anchor="middle" class="axis-title">
                            {move || if log_y.get() { format!("{y_label} (log)") } else { y_label.to_string() }}
                        </text>
                        {curves}
                        {legend}
                        {hover_view}
                        {drag.get().filter(|(a, b)| a != b).map(|(a, b)| {
                            let o = offset();
                            let (x1, x2) = (sc.x(a.min(b).saturating_sub(o)), sc.x(a.max(b).saturating_sub(o)));
                            view! { <rect class="zoom-band" x=x1 y=MT width=x2 - x1 height=H - MT - MB fill="#0072B2" fill-opacity="0.12" stroke="#0072B2"/> }
                        })}
                        {zoom.get().map(|_| view! {
                            <g class="zoom-reset" role="button" tabindex="0" aria-label="reset zoom" style="cursor:pointer"
                                on:click=move |_| reset() on:keydown=move |ev| { if ev.key() == "Enter" || ev.key() == " " { ev.prevent_default(); reset() } }>
                                <rect x=W - MR - 112.0 y=MT + 4.0 width="104" height="24" rx="4" fill="#ffffff" stroke="#0072B2"/>
                                <text x=W - MR - 60.0 y=MT + 21.0 text-anchor="middle" class="legend" style="fill:#0072B2">"reset zoom"</text>
                            </g>
                        })}
                    </g>
                }.into_any()
            }}
        </svg>
    }
}

/// A chart with its caption and its SVG and PNG export buttons — the one way the results
/// show a chart, so every chart exports alike and reports a failed export alike.
#[component]
pub fn ChartFigure(
    /// DOM id of the chart inside (what the exports read).
    id: &'static str,
    /// File name of the downloads, without extension.
    file: &'static str,
    /// The caption: text, and controls if any; the export buttons follow it.
    #[prop(into)]
    caption: ViewFn,
    /// The chart.
    children: Children,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let export = move |png: bool| {
        let result = if png { download_png(id, &format!("{file}.png")) } else { download_svg(id, &format!("{file}.svg")) };
        if let Err(e) = result {
            state.say(Level::Error, format!("export failed: {e:?}"));
        }
    };
    view! {
        <figure>
            {children()}
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
    /// The SVG's view box, e.g. "0 0 720 300".
    #[prop(into)]
    view_box: String,
    /// What the chart shows, in words.
    label: &'static str,
    /// The drawing.
    children: Children,
) -> impl IntoView {
    view! {
        <ChartFigure id=id file=file caption=caption>
            <svg id=id class="chart" xmlns="http://www.w3.org/2000/svg" viewBox=view_box role="img" aria-label=label>
                {children()}
            </svg>
        </ChartFigure>
    }
}
