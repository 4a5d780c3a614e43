//! The GPB design view (paper 003, §3–4.1): a design over the map of its sensitivity
//! d(x, ξ) — an optimal design leaves no positive (red) region, the equivalence theorem made
//! visible — with the criterion, max d and β's standard error, and beside it the §4.1 function
//! with GPB fitted on the same kind of design at the budgets of Table 1. The design is built on
//! the unit square or, once data is loaded, on a task's configurations at the race's budget
//! levels, drawn over two chosen hyperparameters. Everything it shows is computed by
//! `engine::gpb_experiments::design_view` in a Web Worker from the link's `design=` field.

use std::sync::Arc;

use leptos::prelude::*;

use crate::app::charts::chart::{chart_width, ChartFigure, PALETTE};
use crate::app::charts::scatter::{Scatter, ScatterCanvas};
use crate::app::platform::workers::WorkerService;
use hpo_engine::benchmark::Benchmark;
use hpo_engine::fidelity::gpb::construct::DesignMethod;
use hpo_engine::fidelity::gpb::design::Criterion;
use hpo_engine::fidelity::gpb::view_setting::{DesignViewSpec, POINTS_RANGE};
use hpo_engine::gpb_experiments::design_view::{Axis, DesignTable, DesignViewData, MAP_SIDE};
use hpo_engine::spec::ExperimentSpec;
use hpo_protocol::ToWorker;

/// Room left of the map (tick labels, axis title), right of it (the colour bar and its key)
/// and below it (tick labels, axis title); the square takes the rest of the figure's width.
const LEFT: f64 = 84.0;
const RIGHT: f64 = 118.0;
/// On a phone the key's title goes (the caption names d) and the y title moves closer.
const LEFT_NARROW: f64 = 66.0;
const RIGHT_NARROW: f64 = 76.0;
const NARROW_FROM: f64 = 420.0;
const BOTTOM: f64 = 62.0;
const TOP: f64 = 12.0;

/// The map's side on a figure `w` wide.
fn side_for(w: f64) -> f64 {
    let (left, right) = margins(w);
    (w - left - right).clamp(100.0, 440.0)
}

/// Room left and right of the map on a figure `w` wide.
fn margins(w: f64) -> (f64, f64) {
    if w < NARROW_FROM {
        (LEFT_NARROW, RIGHT_NARROW)
    } else {
        (LEFT, RIGHT)
    }
}
/// The true function at b = 1, 2/3, 1/2: darker for larger budgets.
const TRUTH_GREYS: [&str; 3] = ["#333333", "#777777", "#aaaaaa"];
/// Marker names by budget level, as drawn by [`marker`].
pub(crate) const MARKER_GLYPHS: [&str; 6] = ["●", "■", "▲", "◆", "▼", "✚"];

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

/// A number of the design numbers: 3 decimals, scientific when very large or small.
pub(crate) fn fmt(v: f64) -> String {
    if !v.is_finite() {
        "—".into()
    } else if v.abs() >= 1000.0 || (v != 0.0 && v.abs() < 0.01) {
        format!("{v:.2e}")
    } else {
        format!("{v:.3}")
    }
}

/// A design point of budget level `level` at (cx, cy): shape and colour by level.
fn marker(level: usize, cx: f64, cy: f64) -> AnyView {
    let color = PALETTE[level % PALETTE.len()];
    let poly = |pts: &[(f64, f64)]| pts.iter().map(|(x, y)| format!("{},{}", cx + x, cy + y)).collect::<Vec<_>>().join(" ");
    match level % MARKER_GLYPHS.len() {
        0 => view! { <circle class="design-point" cx=cx cy=cy r="9" fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
        1 => view! { <rect class="design-point" x=cx - 8.0 y=cy - 8.0 width="16" height="16" fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
        2 => view! { <polygon class="design-point" points=poly(&[(0.0, -10.0), (-9.0, 7.0), (9.0, 7.0)]) fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
        3 => view! { <polygon class="design-point" points=poly(&[(0.0, -10.0), (10.0, 0.0), (0.0, 10.0), (-10.0, 0.0)]) fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
        4 => view! { <polygon class="design-point" points=poly(&[(0.0, 10.0), (-9.0, -7.0), (9.0, -7.0)]) fill=color stroke="#000" stroke-width="1.5"/> }.into_any(),
        _ => {
            let cross = [(-3.0, -10.0), (3.0, -10.0), (3.0, -3.0), (10.0, -3.0), (10.0, 3.0), (3.0, 3.0), (3.0, 10.0), (-3.0, 10.0), (-3.0, 3.0), (-10.0, 3.0), (-10.0, -3.0), (-3.0, -3.0)];
            view! { <polygon class="design-point" points=poly(&cross) fill=color stroke="#000" stroke-width="1.5"/> }.into_any()
        }
    }
}

/// The map of d(x, ξ) with the design's points (shape and colour by budget) and max d marked:
/// cells of the square's grid, or each candidate configuration as a dot, the largest d on top.
#[component]
pub(crate) fn SensitivityMap(
    data: Signal<Option<DesignViewData>>,
    axes: Signal<[Axis; 2]>,
    on_square: Signal<bool>,
    /// When set, the design's points can be dragged (or moved with the arrow keys once
    /// focused), and a move ends with (point index, x1, x2) on the unit square.
    #[prop(optional)]
    on_move: Option<Callback<(usize, f64, f64)>>,
) -> impl IntoView {
    let side = move || side_for(chart_width());
    let sides = move || margins(chart_width());
    // The point being dragged and where the pointer holds it (unit square).
    let dragging = RwSignal::new(None::<(usize, f64, f64)>);
    let unit_at = move |ev: &leptos::ev::PointerEvent| -> Option<(f64, f64)> {
        let svg: web_sys::Element = event_target::<web_sys::Element>(ev).closest("svg").ok().flatten()?;
        let r = svg.get_bounding_client_rect();
        // The view box is "-left -top width height", the map side = height - top - bottom.
        let vb: Vec<f64> = svg.get_attribute("viewBox").unwrap_or_default().split_whitespace().filter_map(|v| v.parse().ok()).collect();
        let [x0, _, vw, vh] = vb[..] else { return None };
        let side = vh - TOP - BOTTOM;
        let cell = side / MAP_SIDE as f64;
        let k = vw / r.width().max(1.0);
        let sx = x0 + (ev.client_x() as f64 - r.left()) * k;
        let sy = -TOP + (ev.client_y() as f64 - r.top()) * k;
        let round = |v: f64| (v.clamp(0.0, 1.0) * 100.0).round() / 100.0;
        Some((round((sx - cell / 2.0) / (side - cell)), round((side - sy - cell / 2.0) / (side - cell))))
    };
    let on_pointer_move = move |ev: leptos::ev::PointerEvent| {
        if let (Some((k, _, _)), Some((x, y))) = (dragging.get_untracked(), unit_at(&ev)) {
            dragging.set(Some((k, x, y)));
        }
    };
    let on_pointer_up = move |_: leptos::ev::PointerEvent| {
        if let (Some((k, x, y)), Some(cb)) = (dragging.get_untracked(), on_move) {
            cb.run((k, x, y));
        }
        dragging.set(None);
    };
    view! {
        <svg id="design-map" class="chart" class:draggable=on_move.is_some() viewBox=move || { let (a, (l, r)) = (side(), sides()); format!("{} {} {} {}", -l, -TOP, a + l + r, a + TOP + BOTTOM) }
            width=move || { let (l, r) = sides(); side() + l + r }
            // A picture, unless its points take the keyboard: then a group of those controls.
            role=if on_move.is_some() { "group" } else { "img" }
            aria-label="Sensitivity d(x, ξ) over two inputs with the design's points"
            on:pointermove=on_pointer_move on:pointerup=on_pointer_up on:pointerleave=move |_| dragging.set(None)>
            {move || { let a = side(); view! { <ColourBar side=a titled=sides().1 == RIGHT/> } }}
            {move || data.get().map(|d| {
                let side_px = side();
                let cell = side_px / MAP_SIDE as f64;
                let to_px = move |v: f64| cell / 2.0 + v * (side_px - cell);
                let map = if on_square.get() {
                    d.map.iter().enumerate().map(|(k, &v)| {
                        let (i, j) = (k % MAP_SIDE, k / MAP_SIDE);
                        view! { <rect x=i as f64 * cell y=side_px - (j + 1) as f64 * cell width=cell + 0.5 height=cell + 0.5 fill=heat(v)/> }.into_any()
                    }).collect_view().into_any()
                } else {
                    let mut order: Vec<usize> = (0..d.map.len()).collect();
                    order.sort_by(|&a, &b| d.map[a].total_cmp(&d.map[b]));
                    view! {
                        <rect x="0" y="0" width=side_px height=side_px fill="#f4f4f4" stroke="#999"/>
                        {order.into_iter().map(|k| {
                            let (x, y) = d.map_xy[k];
                            view! { <circle class="design-candidate" cx=to_px(x) cy=side_px - to_px(y) r="5" fill=heat(d.map[k]) stroke="#555" stroke-width="0.5"/> }
                        }).collect_view()}
                    }.into_any()
                };
                let points = d.points.iter().enumerate().map(|(k, &(x, y, b))| {
                    let Some(cb) = on_move else { return marker(b, to_px(x), side_px - to_px(y)) };
                    // Where the point is drawn: under the pointer while dragged.
                    let at = move || dragging.get().filter(|d| d.0 == k).map_or((x, y), |d| (d.1, d.2));
                    let nudge = move |ev: leptos::ev::KeyboardEvent| {
                        let step = 0.05;
                        let (dx, dy) = match ev.key().as_str() {
                            "ArrowLeft" => (-step, 0.0),
                            "ArrowRight" => (step, 0.0),
                            "ArrowUp" => (0.0, step),
                            "ArrowDown" => (0.0, -step),
                            _ => return,
                        };
                        ev.prevent_default();
                        let round = |v: f64| (v.clamp(0.0, 1.0) * 100.0).round() / 100.0;
                        cb.run((k, round(x + dx), round(y + dy)));
                    };
                    view! {
                        <g class="design-handle" tabindex="0" role="button" focusable="true"
                            aria-label=format!("design point {} at ({x:.2}, {y:.2}), budget level {}: drag it, or move it with the arrow keys", k + 1, b + 1)
                            on:pointerdown=move |ev: leptos::ev::PointerEvent| { ev.prevent_default(); dragging.set(Some((k, x, y))) }
                            on:keydown=nudge>
                            {move || { let (px, py) = at(); marker(b, to_px(px), side_px - to_px(py)) }}
                        </g>
                    }.into_any()
                }).collect_view();
                let (mx, my, _) = d.map_max;
                let (cx, cy) = (to_px(mx), side_px - to_px(my));
                let [x_axis, y_axis] = axes.get();
                view! {
                    <g>{map}</g>
                    <g>{points}</g>
                    <g id="design-max">
                        <line x1=cx - 14.0 y1=cy x2=cx + 14.0 y2=cy stroke="#000" stroke-width="3"/>
                        <line x1=cx y1=cy - 14.0 x2=cx y2=cy + 14.0 stroke="#000" stroke-width="3"/>
                    </g>
                    <text x=side_px / 2.0 y=side_px + 52.0 text-anchor="middle" class="axis-title">{x_axis.title}</text>
                    <text x="0" y="0" transform=format!("translate({},{}) rotate(-90)", 16.0 - sides().0, side_px / 2.0) text-anchor="middle" class="axis-title">{y_axis.title}</text>
                    // Every other x label when the map is too narrow for all of them.
                    {x_axis.ticks.iter().cloned().enumerate().filter(|(k, _)| k % ((x_axis.ticks.len() as f64 * 44.0 / side_px).ceil().max(1.0) as usize) == 0).map(|(_, (v, l))| view! {
                        <line x1=to_px(v) x2=to_px(v) y1=side_px y2=side_px + 5.0 stroke="#444"/>
                        <text x=to_px(v) y=side_px + 22.0 text-anchor="middle" class="tick">{l}</text>
                    }).collect_view()}
                    {y_axis.ticks.into_iter().map(|(v, l)| view! {
                        <line x1="-5" x2="0" y1=side_px - to_px(v) y2=side_px - to_px(v) stroke="#444"/>
                        <text x="-8" y=side_px - to_px(v) + 5.0 text-anchor="end" class="tick">{l}</text>
                    }).collect_view()}
                }
            })}
        </svg>
    }
}

/// The key of [`heat`] right of the map: d from −1 (bottom) through 0 to 1 (top), the
/// positive half on heat's square-root scale.
#[component]
fn ColourBar(side: f64, titled: bool) -> impl IntoView {
    let (x, w) = (side + 16.0, 16.0);
    // Position t in [−1, 1] (bottom to top) shows d = t for t ≤ 0 and d = t² above.
    let stops = (0..=20)
        .map(|k| {
            let t = 1.0 - k as f64 / 10.0;
            let d = if t > 0.0 { t * t } else { t };
            view! { <stop offset=format!("{}%", k * 5) stop-color=heat(d)/> }
        })
        .collect_view();
    let label = |t: f64, text: &'static str| {
        view! { <text x=x + w + 4.0 y=side * (1.0 - t) / 2.0 + 5.0 class="tick">{text}</text> }
    };
    view! {
        <defs><linearGradient id="design-heat" x1="0" y1="0" x2="0" y2="1">{stops}</linearGradient></defs>
        <rect x=x y="0" width=w height=side fill="url(#design-heat)" stroke="#555"/>
        {label(1.0, "≥ 1")}{label(0.5, "0.25")}{label(0.0, "0")}{label(-1.0, "≤ −1")}
        {titled.then(|| view! { <text x="0" y="0" transform=format!("translate({},{}) rotate(-90)", x + w + 60.0, side / 2.0) text-anchor="middle" class="axis-title">"d(x, ξ)"</text> })}
    }
}

/// Where the view's design is computed and what it has to show.
#[derive(Debug, Clone, PartialEq)]
enum DesignStatus {
    /// Waiting for the worker (the last result stays drawn meanwhile).
    Computing,
    /// The view of a setting, with the worker's milliseconds.
    Ready(Box<DesignViewData>, DesignViewSpec, f64),
    /// Why there is nothing to show.
    Failed(String),
}

/// The task the view builds a table design on: the setup's first task, else the first one.
fn view_task(bench: &Benchmark, spec: RwSignal<ExperimentSpec>) -> usize {
    spec.with_untracked(|s| s.tasks.first().and_then(|t| bench.task_index(t))).unwrap_or(0)
}

/// Sends the view's request to the page's design worker (a request made while an older one
/// computes goes to a fresh worker; the older one's answer is never shown).
fn request_design(workers: WorkerService, spec: DesignViewSpec, table: Option<DesignTable>, status: RwSignal<DesignStatus>) {
    let request = workers.next_request();
    status.set(DesignStatus::Computing);
    let message = ToWorker::Design { request, spec, table: table.map(Box::new) };
    workers.designer.ask(request, message, move |result, ms| {
        status.set(match result {
            Ok(data) => DesignStatus::Ready(data, spec, ms),
            Err(e) => DesignStatus::Failed(e),
        })
    });
}

/// The design view panel.
#[component]
pub fn DesignView(
    /// The setup (the view's own settings are in it, as in the link).
    setup: RwSignal<ExperimentSpec>,
    /// The loaded data.
    bench: RwSignal<Option<Arc<Benchmark>>>,
    /// The page's workers.
    workers: WorkerService,
) -> impl IntoView {
    let spec = Memo::new(move |_| setup.get().design_view.unwrap_or_default());
    let status = RwSignal::new(DesignStatus::Computing);
    // What the map and the numbers show: the last finished view (kept while the next computes).
    let shown: RwSignal<Option<(Box<DesignViewData>, DesignViewSpec, f64)>> = RwSignal::new(None);
    // A link that opens the page on a design (`?design=…`) brings the panel into view once,
    // when its first view is drawn (earlier, the loading data above would push it down again).
    let panel = NodeRef::<leptos::html::Section>::new();
    let opened_on_it = StoredValue::new(setup.with_untracked(|s| s.design_view.is_some()));
    Effect::new(move |_| {
        if let DesignStatus::Ready(d, s, ms) = status.get() {
            shown.set(Some((d, s, ms)));
            if opened_on_it.get_value() {
                opened_on_it.set_value(false);
                if let Some(section) = panel.get_untracked() {
                    section.scroll_into_view();
                }
            }
        }
    });
    // The loaded data's problem, when the view is on it: (table, task index) or why not.
    let table = Memo::new(move |_| -> Option<Result<Arc<DesignTable>, String>> {
        let s = spec.get();
        let axes = s.axes?;
        let bench = bench.get()?;
        let task = view_task(&bench, setup);
        Some(DesignTable::from_benchmark(&bench, task, axes, s.seed).map(Arc::new).map_err(|e| e.to_string()))
    });
    Effect::new(move |_| {
        let s = spec.get();
        match (s.axes, table.get()) {
            (None, _) => request_design(workers, s, None, status),
            (Some(_), Some(Ok(t))) => request_design(workers, s, Some((*t).clone()), status),
            (Some(_), Some(Err(e))) => status.set(DesignStatus::Failed(e)),
            (Some(_), None) => status.set(DesignStatus::Failed("load data to build the design on its configurations".into())),
        }
    });
    let data = Signal::derive(move || shown.get().map(|(d, _, _)| *d));
    let on_square = Signal::derive(move || data.with(|d| d.as_ref().is_none_or(|d| d.axes.is_none())));
    let axes = Signal::derive(move || {
        data.get().and_then(|d| d.axes).unwrap_or_else(|| [Axis::unit("x₁ (unit scale)"), Axis::unit("x₂ (unit scale)")])
    });
    let set = move |f: &dyn Fn(&mut DesignViewSpec)| {
        setup.update(|s| {
            let mut d = s.design_view.unwrap_or_default();
            f(&mut d);
            s.design_view = Some(d);
        })
    };
    let params =
        Signal::derive(move || bench.get().map(|b| b.space.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>()).unwrap_or_default());
    let on_data = move || spec.get().axes.is_some() && params.get().len() > 1;
    let axis_select = move |id: &'static str, which: usize| {
        view! {
            <select id=id on:change=move |ev| {
                if let Ok(k) = event_target_value(&ev).parse::<usize>() {
                    set(&|d| {
                        let (mut i, mut j) = d.axes.unwrap_or((0, 1));
                        if which == 0 { if k == j { j = i } i = k } else { if k == i { i = j } j = k }
                        d.axes = Some((i, j));
                    })
                }
            }>
                {move || params.get().into_iter().enumerate().map(|(k, name)| {
                    let selected = move || spec.get().axes.is_some_and(|a| if which == 0 { a.0 == k } else { a.1 == k });
                    view! { <option value=k.to_string() selected=selected>{name}</option> }
                }).collect_view()}
            </select>
        }
    };
    let line = Memo::new(move |_| {
        let Some(d) = data.get() else { return Scatter::default() };
        let names = ["b = 1/2", "b = 2/3", "b = 1"];
        let mut overlays = Vec::new();
        // Curves come in Table 1's order b = 1, 2/3, 1/2; budget index 2 is b = 1.
        for (k, c) in d.curves.iter().enumerate() {
            let level = 2 - k;
            let name = names[level];
            overlays.push((d.curve_x.iter().copied().zip(c.truth.iter().copied()).collect(), TRUTH_GREYS[k], format!("f, {name}"), true));
            overlays.push((
                d.curve_x.iter().copied().zip(c.fitted.iter().copied()).collect(),
                PALETTE[level],
                format!("GPB, {name}"),
                true,
            ));
        }
        for (level, name) in names.iter().enumerate() {
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
    let map_caption = move || {
        let budgets = data.get().map(|d| {
            d.budget_names
                .iter()
                .enumerate()
                .map(|(k, n)| format!("{} {n}", MARKER_GLYPHS[k % MARKER_GLYPHS.len()]))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let budgets = budgets.unwrap_or_default();
        match data.get().and_then(|d| d.table) {
            Some((name, rows, candidates, inputs)) => format!(
                "d(x, ξ), the largest over the budgets, at {candidates} of the {rows} configurations of {name} (all {inputs} inputs; drawn over two of them); budgets: {budgets}; + marks max d."
            ),
            None => format!("d(x, ξ), the largest over the budgets, on [0, 1]²; budgets: {budgets}; + marks max d."),
        }
    };
    view! {
        <section class="panel wide" id="design-panel" node_ref=panel>
            <h2>"Initial designs for GPB"</h2>
            <p class="lesson-text">
                "Which first points should a GP with budgets see? An optimal design makes β — the trend and the budget effect — as certain as possible (paper 003, §3). "
                "The map shows d(x, ξ): red where adding a point would still improve the design, blue where it would not. "
                "By the equivalence theorem (Thm. 1) a design is optimal exactly when nothing is red; IC moves points to the reddest spot, TA shuffles a Latin hypercube."
            </p>
            <div class="controls" id="design-controls">
                <label>"On "
                    <select id="design-space" on:change=move |ev| {
                        let on_data = event_target_value(&ev) == "data";
                        set(&|d| d.axes = if on_data { Some(d.axes.unwrap_or((0, 1))) } else { None })
                    }>
                        <option value="square" selected=move || spec.get().axes.is_none()>"the unit square"</option>
                        <option value="data" selected=move || spec.get().axes.is_some() disabled=move || params.get().len() < 2>
                            {move || bench.get().map_or("the loaded data (none yet)".to_string(), |b| format!("the loaded data: {}", b.name))}
                        </option>
                    </select>
                </label>
                <Show when=on_data>
                    <label>"x axis " {axis_select("design-axis-x", 0)}</label>
                    <label>"y axis " {axis_select("design-axis-y", 1)}</label>
                </Show>
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
                <span id="design-status" class="status" aria-live="polite">{move || match status.get() {
                    DesignStatus::Computing => "computing…".to_string(),
                    DesignStatus::Ready(..) => String::new(),
                    DesignStatus::Failed(e) => e,
                }}</span>
            </div>
            <div class="chart-row">
                <ChartFigure id="design-map" file="design-map" caption=move || view! { <span>{map_caption}</span> }>
                    <SensitivityMap data=data axes=axes on_square=on_square/>
                </ChartFigure>
                <ChartFigure id="design-line" file="design-gpb-1d" caption=move || view! {
                    <span>"The same construction with the same number of points on §4.1's function: grey the truth, colours GPB's mean at each budget."</span>
                }>
                    <ScatterCanvas id="design-line" data=Signal::derive(move || line.get())/>
                </ChartFigure>
            </div>
            <div class="scroll-x"><table id="design-numbers" class="numbers">
                <thead><tr><th>"design"</th><th>"criterion value"</th><th>"max d(x, ξ)"</th><th>"mean std. error of β"</th><th>"iterates"</th><th>"computed in"</th></tr></thead>
                <tbody>{move || shown.get().map(|(d, s, ms)| {
                    let raised = if d.points_used > s.points { format!(" — raised to p + 2 = {}", d.points_used) } else { String::new() };
                    view! {
                        <tr>
                            <td>{format!("{} ({}-optimality, N = {}{raised})", s.method.name(), s.criterion.name(), s.points)}</td>
                            <td>{fmt(d.value)}</td>
                            <td>{fmt(d.max_d)}{if d.max_d <= 1e-9 { " — optimal" } else { "" }}</td>
                            <td>{fmt(d.std_beta)}</td>
                            <td>{d.iterates}</td>
                            <td class="design-ms">{format!("{ms:.0} ms")}</td>
                        </tr>
                    }
                })}</tbody>
            </table></div>
        </section>
    }
}
