//! The objective space of multi-objective setups (Salinas et al. 2020, §5.2): every
//! configuration of a task on the first two objectives with the task's true Pareto front and
//! the points each method found for one seed; and Fig. 6, the same cloud coloured by the
//! scalarized objective αZ(y₁) + (1 − α)Z(y₂) for α ∈ {0.25, 0.5, 0.75} with Z = Δ and α = 0.5
//! with Z = ψ, so the level sets can be compared with the front. Drawn on canvases: a
//! NAS-Bench-201 task has 15,625 points per panel.

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::browser;
use super::chart::PALETTE;
use super::state::AppState;
use crate::engine::axis;
use crate::engine::benchmark::Benchmark;
use crate::engine::pareto::non_dominated;
use crate::engine::warping::{scalarize_weighted, OutputWarp};

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
}

/// A highlighted point set: (points, colour, legend, joined by a line).
pub type Overlay = (Vec<(f64, f64)>, &'static str, String, bool);

/// Joined overlays with more points than this are drawn as lines without dots.
const DENSE_CURVE: usize = 60;
const W: f64 = 640.0;
const H: f64 = 420.0;
const ML: f64 = 72.0;
const MR: f64 = 180.0;
const MT: f64 = 34.0;
const MB: f64 = 50.0;

/// A canvas font from the CSS type scale (`--chart-tick`, …), so canvas and SVG charts match.
fn font(variable: &str, weight: &str) -> String {
    let size = browser::css_variable(variable).unwrap_or_else(|| "14px".into());
    let family = browser::css_variable("--chart-font").unwrap_or_else(|| "system-ui, sans-serif".into());
    format!("{weight} {size} {family}")
}

/// The title across the canvas in the type scale's title font from the plot's left edge if it
/// fits, else from the canvas' edge in the tick font, else squeezed to the width.
fn draw_title(ctx: &web_sys::CanvasRenderingContext2d, title: &str) {
    let width = |ctx: &web_sys::CanvasRenderingContext2d| ctx.measure_text(title).map(|m| m.width()).unwrap_or(0.0);
    ctx.set_font(&font("--chart-title", "600"));
    if width(ctx) <= W - ML - 8.0 {
        let _ = ctx.fill_text(title, ML, 22.0);
        return;
    }
    for (variable, last) in [("--chart-axis", false), ("--chart-tick", true)] {
        ctx.set_font(&font(variable, "600"));
        if width(ctx) <= W - 16.0 || last {
            let _ = ctx.fill_text_with_max_width(title, 8.0, 22.0, W - 16.0);
            return;
        }
    }
}

fn draw(canvas: &web_sys::HtmlCanvasElement, s: &Scatter) -> Option<()> {
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, W, H);
    ctx.set_fill_style_str("#222");
    draw_title(&ctx, &s.title);
    let all = s.points.iter().chain(s.overlays.iter().flat_map(|o| o.0.iter())).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (x0, x1, y0, y1) = all.fold((f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY), |(a, b, c, d), p| {
        (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1))
    });
    if !x0.is_finite() {
        ctx.set_font(&font("--chart-axis", "400"));
        ctx.fill_text("No data.", W / 2.0 - 20.0, H / 2.0).ok()?;
        return Some(());
    }
    let pad = |lo: f64, hi: f64| if hi > lo { (lo - 0.03 * (hi - lo), hi + 0.03 * (hi - lo)) } else { (lo - 0.5, hi + 0.5) };
    let ((x0, x1), (y0, y1)) = (pad(x0, x1), pad(y0, y1));
    let px = |x: f64| ML + (x - x0) / (x1 - x0) * (W - ML - MR);
    let py = |y: f64| H - MB - (y - y0) / (y1 - y0) * (H - MT - MB);
    ctx.set_stroke_style_str("#444");
    ctx.set_line_width(1.0);
    ctx.stroke_rect(ML, MT, W - ML - MR, H - MT - MB);
    ctx.set_font(&font("--chart-tick", "400"));
    ctx.set_fill_style_str("#444");
    // Tick labels centred under x ticks and right-aligned against the plot on y, so the
    // rotated y label at the left edge never runs into them.
    let (xt, yt) = (axis::linear(x0, x1, 5), axis::linear(y0, y1, 5));
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
    ctx.fill_text(&s.x_label, (ML + W - MR) / 2.0, H - 10.0).ok()?;
    ctx.save();
    ctx.translate(18.0, (MT + H - MB) / 2.0).ok()?;
    ctx.rotate(-std::f64::consts::FRAC_PI_2).ok()?;
    ctx.fill_text(&s.y_label, 0.0, 0.0).ok()?;
    ctx.restore();
    ctx.set_text_align("start");
    let mut current = String::new();
    for (i, p) in s.points.iter().enumerate() {
        let color = s.colors.get(i).map_or("#b9b9c3", String::as_str);
        if color != current {
            ctx.set_fill_style_str(color);
            current = color.to_string();
        }
        ctx.fill_rect(px(p.0) - 1.0, py(p.1) - 1.0, 2.5, 2.5);
    }
    ctx.set_font(&font("--chart-legend", "400"));
    for (k, (pts, color, label, joined)) in s.overlays.iter().enumerate() {
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
        let ly = MT + 14.0 + 20.0 * k as f64;
        ctx.fill_rect(W - MR + 10.0, ly - 6.0, 14.0, 4.0);
        ctx.set_fill_style_str("#222");
        ctx.fill_text(label, W - MR + 28.0, ly).ok()?;
    }
    Some(())
}

/// A canvas redrawn whenever `data` changes.
#[component]
pub fn ScatterCanvas(
    /// DOM id (export buttons and tests).
    id: &'static str,
    /// What to draw.
    data: Signal<Scatter>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let s = data.get();
        if let Some(c) = canvas.get() {
            draw(&c, &s);
        }
    });
    view! { <canvas id=id node_ref=canvas width=W height=H style="width:100%;max-width:640px"></canvas> }
}

/// Green (best) to red (worst) by rank, as in the paper's Fig. 6.
fn rank_colors(values: &[f64]) -> Vec<String> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut colors = vec![String::new(); values.len()];
    let n = values.len().max(2) - 1;
    for (rank, i) in order.into_iter().enumerate() {
        let hue = 120.0 * (1.0 - rank as f64 / n as f64);
        colors[i] = format!("hsl({hue:.0},75%,42%)");
    }
    colors
}

/// The task's losses `[objective][config]` for the chosen objectives, and their raw values.
fn objective_columns(bench: &Benchmark, objectives: &[(usize, f64)], task: usize) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let raw: Vec<Vec<f64>> = objectives.iter().map(|&(m, _)| bench.tasks[task].metrics[m].clone()).collect();
    let losses = objectives.iter().zip(&raw).map(|(&(_, sign), col)| col.iter().map(|v| sign * v).collect()).collect();
    (raw, losses)
}

/// Objective space and Fig. 6 for the current setup (shown when two or more objectives are chosen).
#[component]
pub fn ObjectiveSpacePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let seed = RwSignal::new(None::<u64>);
    // (benchmark, objectives as (metric, sign), task index), from the current setup.
    let setup = Memo::new(move |_| {
        let bench = state.bench.get()?;
        let spec = state.spec.get();
        if spec.objectives.len() < 2 {
            return None;
        }
        let objectives: Vec<(usize, f64)> = spec
            .objectives
            .iter()
            .map(|o| {
                let m = bench.metric_index(&o.metric)?;
                Some((m, o.direction.unwrap_or(bench.metrics[m].direction).sign()))
            })
            .collect::<Option<_>>()?;
        let task = bench.task_index(&state.best_task.get()).unwrap_or(0);
        Some((bench, objectives, task))
    });
    let front_view = Memo::new(move |_| {
        let Some((bench, objectives, task)) = setup.get() else { return Scatter::default() };
        let (raw, losses) = objective_columns(&bench, &objectives, task);
        let n = raw[0].len();
        let points: Vec<(f64, f64)> = (0..n).map(|i| (raw[0][i], raw[1][i])).collect();
        let loss_points: Vec<Vec<f64>> = (0..n).map(|i| losses.iter().map(|c| c[i]).collect()).collect();
        let front: Vec<(f64, f64)> = non_dominated(&loss_points).into_iter().map(|i| points[i]).collect();
        let mut overlays = vec![(front, "#000000", "true front".to_string(), true)];
        let task_name = bench.tasks[task].name.clone();
        if let Some((resolved, run_bench)) = state.run_setup.get().filter(|(r, b)| r.is_multi_objective() && b.name == bench.name) {
            let chosen_seed = seed.get().unwrap_or(resolved.spec.first_seed);
            state.traces.with(|traces| {
                for (k, m) in resolved.spec.methods.iter().enumerate() {
                    let found: Vec<(f64, f64)> = traces
                        .iter()
                        .filter(|t| &t.method == m && t.task == task_name && t.seed == chosen_seed)
                        .flat_map(|t| t.rows().iter().map(|r| (r.objectives.first().copied(), r.objectives.get(1).copied())))
                        .filter_map(|(a, b)| Some((a?, b?)))
                        .collect();
                    if !found.is_empty() {
                        overlays.push((found, PALETTE[k % PALETTE.len()], format!("{m} (seed {chosen_seed})"), false));
                    }
                }
            });
            let _ = run_bench;
        }
        Scatter {
            title: format!("{task_name}: all {n} configurations, true front and points found"),
            x_label: bench.metrics[objectives[0].0].name.clone(),
            y_label: bench.metrics[objectives[1].0].name.clone(),
            points,
            colors: Vec::new(),
            overlays,
        }
    });
    let fig6 = move |alpha: f64, warp: OutputWarp| {
        Memo::new(move |_| {
            let Some((bench, objectives, task)) = setup.get() else { return Scatter::default() };
            let (raw, losses) = objective_columns(&bench, &objectives[..2], task);
            let z = scalarize_weighted(&losses, &[alpha, 1.0 - alpha], warp);
            Scatter {
                title: format!("α = {alpha}, Z = {}", warp.as_str()),
                x_label: bench.metrics[objectives[0].0].name.clone(),
                y_label: bench.metrics[objectives[1].0].name.clone(),
                points: (0..raw[0].len()).map(|i| (raw[0][i], raw[1][i])).collect(),
                colors: rank_colors(&z),
                overlays: Vec::new(),
            }
        })
    };
    let panels =
        [(0.25, OutputWarp::Standardize), (0.5, OutputWarp::Standardize), (0.75, OutputWarp::Standardize), (0.5, OutputWarp::Copula)];
    let ids = ["fig6-delta-25", "fig6-delta-50", "fig6-delta-75", "fig6-psi-50"];
    let seeds = move || {
        state
            .run_setup
            .get()
            .filter(|(r, _)| r.is_multi_objective())
            .map(|(r, _)| r.spec.first_seed..r.spec.first_seed + r.spec.seeds as u64)
    };
    move || {
        setup.get().map(|(bench, _, task)| {
            let memos: Vec<Memo<Scatter>> = panels.iter().map(|&(a, w)| fig6(a, w)).collect();
            view! {
                <div id="objective-space">
                    <h3>"Objective space"</h3>
                    <div class="row">
                        <label>"Task "
                            <select id="space-task" on:change=move |ev| state.best_task.set(event_target_value(&ev))>
                                {bench.tasks.iter().enumerate().map(|(i, t)| view! { <option value=t.name.clone() selected=i == task>{t.name.clone()}</option> }).collect_view()}
                            </select>
                        </label>
                        {move || seeds().map(|range| view! {
                            <label>"Seed "
                                <select id="space-seed" on:change=move |ev| seed.set(event_target_value(&ev).parse().ok())>
                                    {range.map(|s| view! { <option value=s.to_string()>{s}</option> }).collect_view()}
                                </select>
                            </label>
                        })}
                    </div>
                    <ScatterCanvas id="front-view" data=Signal::derive(move || front_view.get())/>
                    <p class="hint">"Black: the task's Pareto front over all its evaluations. Coloured: every configuration a method evaluated with the chosen seed. With three or more objectives the first two are shown."</p>
                    <h3>"Scalarizations (Salinas et al. 2020, Fig. 6): green = lowest αZ(y₁) + (1 − α)Z(y₂), red = highest"</h3>
                    <div class="charts">
                        {memos.into_iter().zip(ids).map(|(m, id)| view! { <ScatterCanvas id=id data=Signal::derive(move || m.get())/> }).collect_view()}
                    </div>
                    <p class="hint">"With Z = Δ (standardisation) the level sets are straight lines, so the best values of one α sit at one end of a curved front; with Z = ψ (the copula warp of each objective) they follow the front."</p>
                </div>
            }
        })
    }
}
