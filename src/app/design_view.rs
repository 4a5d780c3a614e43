//! The GPB design view (paper 003, §3–4.1): a design on two inputs over the map of its
//! sensitivity d(x, ξ) — an optimal design leaves no positive (red) region, the equivalence
//! theorem made visible — with the criterion, max d and β's standard error, and beside it
//! the §4.1 function with GPB fitted on the same kind of design at the budgets of Table 1.
//! Everything it shows is computed by `engine::gpb::view` from the link's `design=` field.

use leptos::prelude::*;

use super::browser::now_ms;
use super::chart::{ChartFigure, PALETTE};
use super::objective_space::{Scatter, ScatterCanvas};
use super::state::AppState;
use crate::engine::gpb::construct::DesignMethod;
use crate::engine::gpb::design::Criterion;
use crate::engine::gpb::view::{design_view, DesignViewData, DesignViewSpec, MAP_SIDE, POINTS_RANGE};

const SIDE_PX: f64 = 420.0;
const BUDGET_NAMES: [&str; 3] = ["b = 1/2", "b = 2/3", "b = 1"];
/// The true function at b = 1, 2/3, 1/2: darker for larger budgets.
const TRUTH_GREYS: [&str; 3] = ["#333333", "#777777", "#aaaaaa"];

/// Colour of d on a diverging scale: blue below 0, white at 0, red above (clipped at ±1).
fn heat(d: f64) -> String {
    if !d.is_finite() {
        return "#cccccc".into();
    }
    // Positive values on a square-root scale, so that a small positive region still shows.
    let t = if d > 0.0 { d.min(1.0).sqrt() } else { d.max(-1.0) };
    let (r, g, b) = if t >= 0.0 { (255.0, 255.0 * (1.0 - t), 255.0 * (1.0 - t)) } else { (255.0 * (1.0 + t), 255.0 * (1.0 + t), 255.0) };
    format!("rgb({:.0},{:.0},{:.0})", r, g, b)
}

fn fmt(v: f64) -> String {
    if !v.is_finite() {
        "—".into()
    } else if v.abs() >= 1000.0 || (v != 0.0 && v.abs() < 0.01) {
        format!("{v:.2e}")
    } else {
        format!("{v:.3}")
    }
}

/// The map of d(x, ξ) with the design's points (shape and colour by budget) and max d marked.
#[component]
fn SensitivityMap(data: Signal<Option<DesignViewData>>) -> impl IntoView {
    let cell = SIDE_PX / MAP_SIDE as f64;
    let to_px = move |v: f64| cell / 2.0 + v * (SIDE_PX - cell);
    view! {
        <svg id="design-map" viewBox=format!("-40 -10 {} {}", SIDE_PX + 60.0, SIDE_PX + 50.0) role="img"
            aria-label="Sensitivity d(x, ξ) over two inputs with the design's points">
            {move || data.get().map(|d| {
                let rects = d.map.iter().enumerate().map(|(k, &v)| {
                    let (i, j) = (k % MAP_SIDE, k / MAP_SIDE);
                    view! { <rect x=i as f64 * cell y=SIDE_PX - (j + 1) as f64 * cell width=cell + 0.5 height=cell + 0.5 fill=heat(v)/> }
                }).collect_view();
                let points = d.points.iter().map(|&(x, y, b)| {
                    let (cx, cy) = (to_px(x), SIDE_PX - to_px(y));
                    let color = PALETTE[b % PALETTE.len()];
                    match b {
                        0 => view! { <circle class="design-point" cx=cx cy=cy r="9" fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
                        1 => view! { <rect class="design-point" x=cx - 8.0 y=cy - 8.0 width="16" height="16" fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
                        _ => view! { <polygon class="design-point" points=format!("{},{} {},{} {},{}", cx, cy - 10.0, cx - 9.0, cy + 7.0, cx + 9.0, cy + 7.0) fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
                    }
                }).collect_view();
                let (mx, my, _) = d.map_max;
                let (cx, cy) = (to_px(mx), SIDE_PX - to_px(my));
                view! {
                    <g>{rects}</g>
                    <g>{points}</g>
                    <g id="design-max">
                        <line x1=cx - 14.0 y1=cy x2=cx + 14.0 y2=cy stroke="#000" stroke-width="3"/>
                        <line x1=cx y1=cy - 14.0 x2=cx y2=cy + 14.0 stroke="#000" stroke-width="3"/>
                    </g>
                    <text x=SIDE_PX / 2.0 y=SIDE_PX + 34.0 text-anchor="middle" class="axis-title">"x₁ (unit scale)"</text>
                    <text x="0" y="0" transform=format!("translate(-22,{}) rotate(-90)", SIDE_PX / 2.0) text-anchor="middle" class="axis-title">"x₂ (unit scale)"</text>
                    <text x="0" y=SIDE_PX + 16.0 class="tick">"0"</text>
                    <text x=SIDE_PX - 8.0 y=SIDE_PX + 16.0 class="tick">"1"</text>
                }
            })}
        </svg>
    }
}

/// The design view panel.
#[component]
pub fn DesignView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = Memo::new(move |_| state.spec.get().design_view.unwrap_or_default());
    // Computed on the page's thread: the largest view (TA, 30 points) takes well under a
    // second (docs/benchmarks.md); the time is shown so that a user can see it.
    let timed = Memo::new(move |_| {
        let t0 = now_ms();
        let data = design_view(&spec.get()).ok();
        (data, now_ms() - t0)
    });
    let data = Memo::new(move |_| timed.get().0);
    let set = move |f: &dyn Fn(&mut DesignViewSpec)| {
        state.spec.update(|s| {
            let mut d = s.design_view.unwrap_or_default();
            f(&mut d);
            s.design_view = Some(d);
        })
    };
    let line = Memo::new(move |_| {
        let Some(d) = data.get() else { return Scatter::default() };
        let mut overlays = Vec::new();
        // Curves come in Table 1's order b = 1, 2/3, 1/2; budget index 2 is b = 1.
        for (k, c) in d.curves.iter().enumerate() {
            let level = 2 - k;
            let name = BUDGET_NAMES[level];
            overlays.push((d.curve_x.iter().copied().zip(c.truth.iter().copied()).collect(), TRUTH_GREYS[k], format!("f, {name}"), true));
            overlays.push((
                d.curve_x.iter().copied().zip(c.fitted.iter().copied()).collect(),
                PALETTE[level],
                format!("GPB, {name}"),
                true,
            ));
        }
        for (level, name) in BUDGET_NAMES.iter().enumerate() {
            let pts: Vec<(f64, f64)> = d.one_d_points.iter().filter(|p| p.1 == level).map(|&(x, _, y)| (x, y)).collect();
            if !pts.is_empty() {
                overlays.push((pts, PALETTE[level], format!("design, {name}"), false));
            }
        }
        Scatter {
            title: "§4.1 function and GPB fitted on the design".into(),
            x_label: "x".into(),
            y_label: "f(x, b)".into(),
            overlays,
            ..Scatter::default()
        }
    });
    view! {
        <section class="panel wide" id="design-panel">
            <h2>"Initial designs for GPB"</h2>
            <p class="lesson-text">
                "Which first points should a GP with budgets see? An optimal design makes β — the trend and the budget effect — as certain as possible (paper 003, §3). "
                "The map shows d(x, ξ): red where adding a point would still improve the design, blue where it would not. "
                "By the equivalence theorem (Thm. 1) a design is optimal exactly when nothing is red; IC moves points to the reddest spot, TA shuffles a Latin hypercube."
            </p>
            <div class="controls" id="design-controls">
                <label>"Design "
                    <select id="design-method" on:change=move |ev| { if let Some(m) = DesignMethod::parse(&event_target_value(&ev)) { set(&|d| d.method = m) } }>
                        {DesignMethod::ALL.iter().map(|m| view! { <option value=m.name() selected=move || spec.get().method == *m>{m.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Criterion "
                    <select id="design-criterion" on:change=move |ev| { if let Some(c) = Criterion::parse(&event_target_value(&ev)) { set(&|d| d.criterion = c) } }>
                        {Criterion::ALL.iter().map(|c| view! { <option value=c.name() selected=move || spec.get().criterion == *c>{c.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Points "
                    <input id="design-points" type="number" min=POINTS_RANGE.0 max=POINTS_RANGE.1 prop:value=move || spec.get().points
                        on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<usize>() { let n = n.clamp(POINTS_RANGE.0, POINTS_RANGE.1); set(&|d| d.points = n) } }/>
                </label>
                <label>"Seed "
                    <input id="design-seed" type="number" min="0" prop:value=move || spec.get().seed
                        on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<u64>() { set(&|d| d.seed = n) } }/>
                </label>
                <button id="design-next-seed" on:click=move |_| set(&|d| d.seed += 1)>"New draw"</button>
            </div>
            <div class="chart-row">
                <ChartFigure id="design-map" file="design-map" caption=move || view! {
                    <span>"d(x, ξ), the largest over the budgets, on [0, 1]²; points by budget: ● 1/2, ■ 2/3, ▲ 1; + marks max d."</span>
                }>
                    <SensitivityMap data=Signal::derive(move || data.get())/>
                </ChartFigure>
                <ChartFigure id="design-line" file="design-gpb-1d" caption=move || view! {
                    <span>"The same construction with the same number of points on §4.1's function: grey the truth, colours GPB's mean at each budget."</span>
                }>
                    <ScatterCanvas id="design-line" data=Signal::derive(move || line.get())/>
                </ChartFigure>
            </div>
            <table id="design-numbers" class="numbers">
                <thead><tr><th>"design"</th><th>"criterion value"</th><th>"max d(x, ξ)"</th><th>"mean std. error of β"</th><th>"iterates"</th><th>"computed in"</th></tr></thead>
                <tbody>{move || data.get().map(|d| view! {
                    <tr>
                        <td>{move || format!("{} ({}-optimality, N = {})", spec.get().method.name(), spec.get().criterion.name(), spec.get().points)}</td>
                        <td>{fmt(d.value)}</td>
                        <td>{fmt(d.max_d)}{if d.max_d <= 1e-9 { " — optimal" } else { "" }}</td>
                        <td>{fmt(d.std_beta)}</td>
                        <td>{d.iterates}</td>
                        <td class="design-ms">{move || format!("{:.0} ms", timed.get().1)}</td>
                    </tr>
                })}</tbody>
            </table>
        </section>
    }
}
