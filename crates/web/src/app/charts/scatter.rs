//! The canvas scatter chart every view with many points uses (objective spaces, Fig. 4's
//! priors, Fig. 6, the warping view, the design view's 1-D panel): canvases, because a
//! NAS-Bench-201 task has 15,625 points. Text sizes come from the CSS type scale, ticks from
//! `engine::axis`; the reader can hide series, read a point's values and zoom.

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::chart::{observed_width, DEFAULT_WIDTH};
use crate::app::platform::browser;
use hpo_engine::axis::{self, significant};

/// What one scatter canvas shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scatter {
    /// Title drawn on top.
    pub title: String,
    /// Axis labels.
    pub x_label: String,
    /// Axis labels.
    pub y_label: String,
    /// The cloud (x, y).
    pub points: Vec<(f64, f64)>,
    /// CSS colour per point; grey when empty.
    pub colors: Vec<String>,
    /// Highlighted point sets.
    pub overlays: Vec<Overlay>,
    /// x holds log10 of the data (a hyperparameter modelled on a log scale): the ticks are
    /// labelled in the data's own units, on decades.
    pub log_x: bool,
}

/// A highlighted point set: (points, colour, legend, joined by a line).
pub type Overlay = (Vec<(f64, f64)>, &'static str, String, bool);

/// Joined overlays with more points than this are drawn as lines without dots.
const DENSE_CURVE: usize = 60;
const H: f64 = 420.0;
const ML: f64 = 72.0;
/// Right margin beside the legend; narrower canvases leave the legend to the toggles below.
const MR_LEGEND: f64 = 180.0;
const MR_BARE: f64 = 20.0;
const LEGEND_FROM: f64 = 560.0;

/// A canvas `w` wide (its CSS width, so one canvas pixel is one CSS pixel and the type
/// scale holds) and its plot's right margin.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Geo {
    w: f64,
    mr: f64,
    /// Room above the plot: the title's one line, or two when it wraps.
    mt: f64,
}

impl Geo {
    fn new(w: f64) -> Self {
        Geo { w, mr: if w >= LEGEND_FROM { MR_LEGEND } else { MR_BARE }, mt: MT }
    }
    fn legend(&self) -> bool {
        self.mr == MR_LEGEND
    }
}
const MT: f64 = 34.0;
/// Room above the plot for a title on two lines.
const MT_TWO_LINES: f64 = 52.0;
const MB: f64 = 50.0;

/// A canvas font from the CSS type scale (`--chart-tick`, …), so canvas and SVG charts match.
fn font(variable: &str, weight: &str) -> String {
    let size = browser::css_variable(variable).unwrap_or_else(|| "14px".into());
    let family = browser::css_variable("--chart-font").unwrap_or_else(|| "system-ui, sans-serif".into());
    format!("{weight} {size} {family}")
}

/// The title across the canvas: in the title font from the plot's left edge if it fits, else
/// in the tick font (still the type scale) from the canvas' edge, on two lines if one is not
/// enough (the last one squeezed only if even two are not). Returns the room above the plot it
/// took.
fn draw_title(ctx: &web_sys::CanvasRenderingContext2d, title: &str, g: Geo) -> f64 {
    let width = |text: &str| ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0);
    ctx.set_font(&font("--chart-title", "600"));
    if width(title) <= g.w - ML - 8.0 {
        let _ = ctx.fill_text(title, ML, 22.0);
        return MT;
    }
    ctx.set_font(&font("--chart-tick", "600"));
    let room = g.w - 16.0;
    if width(title) <= room {
        let _ = ctx.fill_text(title, 8.0, 22.0);
        return MT;
    }
    // The longest first line that fits, broken at a space; the rest on the second.
    let words: Vec<&str> = title.split(' ').collect();
    let split = (1..words.len()).rev().find(|&k| width(&words[..k].join(" ")) <= room).unwrap_or(1);
    let _ = ctx.fill_text(&words[..split].join(" "), 8.0, 20.0);
    let _ = ctx.fill_text_with_max_width(&words[split..].join(" "), 8.0, 38.0, room);
    MT_TWO_LINES
}

/// The data box a drawn canvas shows: x0, x1, y0, y1, on a canvas of that geometry.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Frame(f64, f64, f64, f64, Geo);

impl Frame {
    fn px(&self, x: f64) -> f64 {
        ML + (x - self.0) / (self.1 - self.0) * (self.4.w - ML - self.4.mr)
    }
    fn py(&self, y: f64) -> f64 {
        H - MB - (y - self.2) / (self.3 - self.2) * (H - self.4.mt - MB)
    }
    /// Data coordinates of canvas point (cx, cy).
    fn data(&self, cx: f64, cy: f64) -> (f64, f64) {
        (
            self.0 + (cx - ML) / (self.4.w - ML - self.4.mr) * (self.1 - self.0),
            self.2 + (H - MB - cy) / (H - self.4.mt - MB) * (self.3 - self.2),
        )
    }
}

/// What the reader chose: hidden overlays, a zoom window (x0, x1, y0, y1), and the drag in
/// progress (canvas coordinates of its corners).
#[derive(Debug, Clone, PartialEq, Default)]
struct Choice {
    hidden: Vec<bool>,
    window: Option<(f64, f64, f64, f64)>,
    band: Option<(f64, f64, f64, f64)>,
}

fn draw(canvas: &web_sys::HtmlCanvasElement, s: &Scatter, choice: &Choice, g: Geo) -> Option<Frame> {
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, g.w, H);
    ctx.set_fill_style_str("#222");
    let g = Geo { mt: draw_title(&ctx, &s.title, g), ..g };
    let all = s.points.iter().chain(s.overlays.iter().flat_map(|o| o.0.iter())).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (x0, x1, y0, y1) = all.fold((f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY), |(a, b, c, d), p| {
        (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1))
    });
    if !x0.is_finite() {
        ctx.set_font(&font("--chart-axis", "400"));
        ctx.fill_text("No data.", g.w / 2.0 - 20.0, H / 2.0).ok()?;
        return None;
    }
    let pad = |lo: f64, hi: f64| if hi > lo { (lo - 0.03 * (hi - lo), hi + 0.03 * (hi - lo)) } else { (lo - 0.5, hi + 0.5) };
    let ((x0, x1), (y0, y1)) = match choice.window {
        Some((a, b, c, d)) => ((a, b), (c, d)),
        None => (pad(x0, x1), pad(y0, y1)),
    };
    let frame = Frame(x0, x1, y0, y1, g);
    let px = |x: f64| frame.px(x);
    let py = |y: f64| frame.py(y);
    ctx.set_stroke_style_str("#444");
    ctx.set_line_width(1.0);
    ctx.stroke_rect(ML, g.mt, g.w - ML - g.mr, H - g.mt - MB);
    ctx.set_font(&font("--chart-tick", "400"));
    ctx.set_fill_style_str("#444");
    // Tick labels centred under x ticks and right-aligned against the plot on y, so the
    // rotated y label at the left edge never runs into them.
    let xt = if s.log_x {
        let t = axis::log(10f64.powf(x0), 10f64.powf(x1), 5);
        axis::Ticks { values: t.values.iter().map(|v| v.log10()).collect(), labels: t.labels }
    } else {
        axis::linear(x0, x1, 5)
    };
    let yt = axis::linear(y0, y1, 5);
    ctx.set_text_align("center");
    for (&v, label) in xt.values.iter().zip(&xt.labels) {
        ctx.fill_text(label, px(v), H - MB + 20.0).ok()?;
    }
    ctx.set_text_align("right");
    for (&v, label) in yt.values.iter().zip(&yt.labels) {
        ctx.fill_text(label, ML - 6.0, py(v) + 5.0).ok()?;
    }
    ctx.set_fill_style_str("#222");
    ctx.set_font(&font("--chart-axis", "400"));
    ctx.set_text_align("center");
    ctx.fill_text(&s.x_label, (ML + g.w - g.mr) / 2.0, H - 10.0).ok()?;
    ctx.save();
    ctx.translate(18.0, (g.mt + H - MB) / 2.0).ok()?;
    ctx.rotate(-std::f64::consts::FRAC_PI_2).ok()?;
    ctx.fill_text(&s.y_label, 0.0, 0.0).ok()?;
    ctx.restore();
    ctx.set_text_align("start");
    // Marks stay inside the plot (a zoom window cuts through the cloud).
    ctx.save();
    ctx.begin_path();
    ctx.rect(ML, g.mt, g.w - ML - g.mr, H - g.mt - MB);
    ctx.clip();
    let mut current = String::new();
    for (i, p) in s.points.iter().enumerate() {
        let color = s.colors.get(i).map_or("#b9b9c3", String::as_str);
        if color != current {
            ctx.set_fill_style_str(color);
            current = color.to_string();
        }
        ctx.fill_rect(px(p.0) - 1.0, py(p.1) - 1.0, 2.5, 2.5);
    }
    for (k, (pts, color, _, joined)) in s.overlays.iter().enumerate() {
        if choice.hidden.get(k).copied().unwrap_or(false) {
            continue;
        }
        ctx.set_stroke_style_str(color);
        ctx.set_fill_style_str(color);
        ctx.set_line_width(1.6);
        if *joined && pts.len() > 1 {
            let mut sorted = pts.clone();
            sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
            ctx.begin_path();
            ctx.move_to(px(sorted[0].0), py(sorted[0].1));
            for p in &sorted[1..] {
                ctx.line_to(px(p.0), py(p.1));
            }
            ctx.stroke();
        }
        // A dense joined series is a curve: its line says everything, dots would smear it.
        let dotted = !*joined || pts.len() <= DENSE_CURVE;
        for p in pts.iter().filter(|_| dotted) {
            ctx.begin_path();
            ctx.arc(px(p.0), py(p.1), if *joined { 3.2 } else { 5.0 }, 0.0, std::f64::consts::TAU).ok()?;
            ctx.fill();
        }
    }
    if let Some((a, b, c, d)) = choice.band {
        ctx.set_fill_style_str("rgba(0,114,178,0.12)");
        ctx.set_stroke_style_str("#0072B2");
        ctx.fill_rect(a.min(c), b.min(d), (c - a).abs(), (d - b).abs());
        ctx.stroke_rect(a.min(c), b.min(d), (c - a).abs(), (d - b).abs());
    }
    ctx.restore();
    // The legend, a hidden series greyed (the page's toggles below the canvas switch them).
    ctx.set_font(&font("--chart-legend", "400"));
    for (k, (_, color, label, _)) in s.overlays.iter().enumerate().filter(|_| g.legend()) {
        let hidden = choice.hidden.get(k).copied().unwrap_or(false);
        let ly = g.mt + 14.0 + 20.0 * k as f64;
        ctx.set_fill_style_str(if hidden { "#c8c8c8" } else { color });
        ctx.fill_rect(g.w - g.mr + 10.0, ly - 6.0, 14.0, 4.0);
        ctx.set_fill_style_str(if hidden { "#9a9a9a" } else { "#222" });
        ctx.fill_text(label, g.w - g.mr + 28.0, ly).ok()?;
    }
    Some(frame)
}

/// A canvas redrawn whenever `data` changes, with what every chart of the page offers: a
/// toggle per highlighted series (below the canvas, keyboard-operable), a read-out of the
/// point under the pointer, and drag-to-zoom with a reset button (or Escape).
#[component]
pub fn ScatterCanvas(
    /// DOM id (export buttons and tests).
    id: &'static str,
    /// What to draw.
    data: Signal<Scatter>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let boxed = NodeRef::<leptos::html::Div>::new();
    let width = observed_width(boxed);
    let geo = Memo::new(move |_| Geo::new(width.get()));
    let choice = RwSignal::new(Choice::default());
    let frame = StoredValue::new(None::<Frame>);
    let hover = RwSignal::new(String::new());
    // New data: everything shown again, at full extent.
    Effect::new(move |_| {
        let n = data.with(|s| s.overlays.len());
        choice.set(Choice { hidden: vec![false; n], ..Choice::default() });
    });
    Effect::new(move |_| {
        let (s, c, g) = (data.get(), choice.get(), geo.get());
        if let Some(el) = canvas.get() {
            // Sized here, not in the view, so that the resize and the drawing come together.
            el.set_width(g.w as u32);
            el.set_height(H as u32);
            frame.set_value(draw(&el, &s, &c, g));
        }
    });
    let at = move |ev: &leptos::ev::MouseEvent| -> Option<(f64, f64)> {
        let el = canvas.get_untracked()?;
        let r = el.get_bounding_client_rect();
        let w = geo.get_untracked().w;
        Some(((ev.client_x() as f64 - r.left()) * w / r.width().max(1.0), (ev.client_y() as f64 - r.top()) * H / r.height().max(1.0)))
    };
    // The geometry the canvas was last drawn with (its title may have taken two lines).
    let drawn = move || frame.get_value().map_or_else(|| geo.get_untracked(), |f| f.4);
    let inside = move |(x, y): (f64, f64)| {
        let g = drawn();
        (ML..=g.w - g.mr).contains(&x) && (g.mt..=H - MB).contains(&y)
    };
    let on_down = move |ev: leptos::ev::MouseEvent| {
        if let Some(p) = at(&ev).filter(|&p| inside(p)) {
            ev.prevent_default();
            choice.update(|c| c.band = Some((p.0, p.1, p.0, p.1)));
        }
    };
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let Some(p) = at(&ev) else { return };
        if choice.with_untracked(|c| c.band.is_some()) {
            let g = drawn();
            choice.update(|c| c.band = c.band.map(|b| (b.0, b.1, p.0.clamp(ML, g.w - g.mr), p.1.clamp(g.mt, H - MB))));
            return;
        }
        hover.set(
            frame
                .get_value()
                .filter(|_| inside(p))
                .map_or(String::new(), |f| data.with(|s| readout(s, &f, p, &choice.get_untracked().hidden))),
        );
    };
    let on_up = move |_| {
        let (band, f) = (choice.with_untracked(|c| c.band), frame.get_value());
        if let (Some((a, b, c, d)), Some(f)) = (band, f) {
            let ((x0, y1), (x1, y0)) = (f.data(a.min(c), b.min(d)), f.data(a.max(c), b.max(d)));
            let big = (c - a).abs() > 6.0 && (d - b).abs() > 6.0;
            choice.update(|ch| {
                ch.band = None;
                if big {
                    ch.window = Some((x0, x1, y0, y1));
                }
            });
        }
    };
    let reset = move || choice.update(|c| c.window = None);
    let toggles = move || {
        let labels: Vec<(String, &'static str)> = data.with(|s| s.overlays.iter().map(|o| (o.2.clone(), o.1)).collect());
        labels
            .into_iter()
            .enumerate()
            .map(|(k, (label, color))| {
                let shown = move || !choice.with(|c| c.hidden.get(k).copied().unwrap_or(false));
                let flip = move || {
                    choice.update(|c| {
                        if let Some(h) = c.hidden.get_mut(k) {
                            *h = !*h
                        }
                    })
                };
                view! {
                    <button class="legend-entry" aria-pressed=move || if shown() { "true" } else { "false" }
                        title="show or hide this series" on:click=move |_| flip()>
                        <span class="swatch" style=format!("background:{color}")></span>{label}
                    </button>
                }
            })
            .collect_view()
    };
    view! {
        <div class="scatter" node_ref=boxed>
            <canvas id=id node_ref=canvas width=DEFAULT_WIDTH height=H style="width:100%" tabindex="0"
                aria-label="Scatter chart: drag to zoom, Escape to reset"
                on:mousedown=on_down on:mousemove=on_move on:mouseup=on_up on:mouseleave=move |_| { choice.update(|c| c.band = None); hover.set(String::new()) }
                on:keydown=move |ev| { if ev.key() == "Escape" { reset() } }></canvas>
            <div class="row scatter-controls">
                {toggles}
                {move || choice.with(|c| c.window.is_some()).then(|| view! { <button class="zoom-reset" on:click=move |_| reset()>"reset zoom"</button> })}
                <span class="hover-readout" aria-live="polite">{move || hover.get()}</span>
            </div>
        </div>
    }
}

/// The point nearest to canvas position `p` (within 12 px): a shown series' first, else the
/// cloud's, in words.
fn readout(s: &Scatter, f: &Frame, p: (f64, f64), hidden: &[bool]) -> String {
    let near = |pts: &[(f64, f64)]| {
        pts.iter().map(|&q| ((f.px(q.0) - p.0).hypot(f.py(q.1) - p.1), q)).filter(|(d, _)| *d <= 12.0).min_by(|a, b| a.0.total_cmp(&b.0))
    };
    let series = s
        .overlays
        .iter()
        .enumerate()
        .filter(|(k, _)| !hidden.get(*k).copied().unwrap_or(false))
        .filter_map(|(_, o)| near(&o.0).map(|(d, q)| (d, q, o.2.as_str())))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let (q, what) = match series {
        Some((_, q, label)) => (q, label.to_string()),
        None => match near(&s.points) {
            Some((_, q)) => (q, "configuration".to_string()),
            None => return String::new(),
        },
    };
    format!("{what}: {} = {}, {} = {}", s.x_label, significant(q.0, 4), s.y_label, significant(q.1, 4))
}
