//! The drawings of a study's views (`engine::explore`): each draws one view of an
//! [`Exploration`] the worker computed, as SVG in the lessons' plot box ([`Plot`]), so that it
//! exports as the page shows it. No numbers are computed here beyond placing them.

use leptos::prelude::*;

use crate::app::charts::chart::{chart_title, title_top};
use crate::app::learn::plot::{range, Plot, BLUE, GREY, ORANGE};
use hpo_engine::axis::significant;
use hpo_engine::explore::importance::FORESTS;
use hpo_engine::explore::views::{intermediate, parallel, pareto, Exploration};
use hpo_engine::space::ParamKind;
use hpo_engine::study::TrialState;

/// Height of every study chart.
pub const H: f64 = 380.0;

/// A parameter's value as its axis places it: log10 on a log scale.
fn on_axis(e: &Exploration, p: usize, raw: f64) -> f64 {
    match e.study.space.params[p].kind {
        ParamKind::Continuous { log: true, .. } => raw.log10(),
        _ => raw,
    }
}

/// A parameter's axis title: "log10 lr" on a log scale; a categorical names its choices.
fn axis_title(e: &Exploration, p: usize) -> String {
    let param = &e.study.space.params[p];
    match &param.kind {
        ParamKind::Continuous { log: true, .. } => format!("log10 {}", param.name),
        ParamKind::Categorical { levels } => {
            format!("{} (0 = {}, …, {} = {})", param.name, levels[0], levels.len() - 1, levels[levels.len() - 1])
        }
        _ => param.name.clone(),
    }
}

/// The colour of a trial's state.
fn state_color(state: TrialState) -> &'static str {
    match state {
        TrialState::Complete => BLUE,
        TrialState::Pruned => ORANGE,
        _ => GREY,
    }
}

/// Green (best) to red (worst) by rank of loss.
fn rank_color(rank: usize, n: usize) -> String {
    let hue = 120.0 * (1.0 - rank as f64 / (n.max(2) - 1) as f64);
    format!("hsl({hue:.0},70%,40%)")
}

/// The y plot of `values`, on a log axis when asked and every value is positive.
fn y_plot(x: (f64, f64), values: &[f64], log: bool, title: &str) -> Plot {
    let y = range(values.iter().copied());
    let p = Plot::nice(x, y, H);
    if log && y.0 > 0.0 { p.log_y(y) } else { p }.room_for(title)
}

/// Each trial's first value against its number, and the best so far.
pub fn history_chart(e: &Exploration, log: bool) -> AnyView {
    let objective = e.study.objectives[0].0.clone();
    let title = format!("{}: each complete trial's {objective} and the best so far", e.study.name);
    let values: Vec<f64> = e.history.iter().filter_map(|h| h.value).collect();
    let p = y_plot((0.0, e.history.len().saturating_sub(1) as f64), &values, log, &title);
    let best: Vec<(f64, f64)> = e.history.iter().filter_map(|h| h.best.map(|b| (h.number as f64, b))).collect();
    let dots: Vec<(f64, f64)> = e.history.iter().filter_map(|h| h.value.map(|v| (h.number as f64, v))).collect();
    view! {
        {p.axes(&title, "trial", &objective)}
        {dots.iter().map(|&(x, y)| view! { <circle cx=p.px(x) cy=p.py(y) r="4" fill=BLUE fill-opacity="0.7"/> }).collect_view()}
        <polyline class="best-so-far" points=p.points(best.iter().copied()) fill="none" stroke=ORANGE stroke-width="3"/>
        {p.legend(&[("complete trial", BLUE, "none"), ("best so far", ORANGE, "none")], &dots)}
    }
    .into_any()
}

/// Every trial's intermediate values, pruned and failed ones included, coloured by state.
pub fn intermediate_chart(e: &Exploration, log: bool) -> AnyView {
    let points = intermediate(&e.study);
    let title = format!("{}: the trials' own intermediate values", e.study.name);
    if points.is_empty() {
        return view! { <text x="20" y="40" class="legend">{format!("{} records no intermediate values.", e.study.name)}</text> }
            .into_any();
    }
    let steps = range(points.iter().map(|p| p.2 as f64));
    let values: Vec<f64> = points.iter().map(|p| p.3).collect();
    let p = y_plot(steps, &values, log, &title);
    let mut curves: Vec<(TrialState, Vec<(f64, f64)>)> = Vec::new();
    let mut last = None;
    for (n, s, step, v) in points {
        if last != Some(n) {
            curves.push((s, Vec::new()));
            last = Some(n);
        }
        if let Some(c) = curves.last_mut() {
            c.1.push((step as f64, v));
        }
    }
    let data: Vec<(f64, f64)> = curves.iter().flat_map(|c| c.1.iter().copied()).collect();
    view! {
        {p.axes(&title, "step", &e.study.objectives[0].0)}
        {curves.iter().map(|(s, c)| view! {
            <polyline points=p.points(c.iter().copied()) fill="none" stroke=state_color(*s) stroke-width="1.5" stroke-opacity="0.6"/>
        }).collect_view()}
        {p.legend(&[("complete", BLUE, "none"), ("pruned", ORANGE, "none"), ("failed or running", GREY, "none")], &data)}
    }
    .into_any()
}

/// One importance row's height: its bar and, below it, its numbers and how settled its order is.
const IMPORTANCE_ROW: f64 = 62.0;

/// The importance chart's height: its title (room for it wrapped, as on a phone) and a row a
/// parameter.
pub fn importance_height(e: &Exploration) -> f64 {
    title_top(&importance_title(e), 340.0, 12.0) + 12.0 + IMPORTANCE_ROW * e.importance.rows.len().max(1) as f64
}

fn importance_title(e: &Exploration) -> String {
    format!("{}: importance (fANOVA, {} forests)", e.study.name, FORESTS)
}

/// The importance as bars with their spread over the forests, most important on top.
pub fn importance_chart(e: &Exploration, w: f64) -> AnyView {
    let rows = &e.importance.rows;
    let title = importance_title(e);
    let (left, right) = ((w * 0.3).min(170.0), 24.0);
    let bar = |v: f64| left + v.clamp(0.0, 1.0) * (w - left - right);
    let top = title_top(&title, w, 12.0) + 4.0;
    let height = importance_height(e);
    view! {
        <rect x="0" y="0" width=w height=height fill="#ffffff"/>
        {chart_title(&title, w, 12.0)}
        {rows.iter().enumerate().map(|(k, r)| {
            let y = top + IMPORTANCE_ROW * k as f64;
            let (m, sd) = (r.importance.mean, r.importance.sd);
            let numbers = format!("{} ± {}", significant(m, 3), significant(sd, 2));
            let settled = r.importance.ahead_of_next.map(|a| format!("above the next in {:.0}/{FORESTS} forests", a * FORESTS as f64)).unwrap_or_default();
            view! {
                <text x=left - 10.0 y=y + 18.0 text-anchor="end" class="tick">{r.parameter.clone()}</text>
                <rect class="importance-bar" x=left y=y + 4.0 width=(bar(m) - left).max(1.0) height="20" fill=BLUE/>
                <line x1=bar(m - sd) x2=bar(m + sd) y1=y + 14.0 y2=y + 14.0 stroke="#222" stroke-width="2"/>
                <text x=left + 4.0 y=y + 40.0 class="legend">{numbers}</text>
                <text x=left + 4.0 y=y + 58.0 class="legend">{settled}</text>
            }
        }).collect_view()}
    }
    .into_any()
}

/// Parameter `p`'s slice: the trials on it and the surrogate's mean ± 2 sd along it.
pub fn slice_chart(e: &Exploration, p: usize) -> AnyView {
    let name = e.study.space.params[p].name.clone();
    let objective = e.study.objectives[0].0.clone();
    let title = format!("{name}: the trials and a GP's mean ± 2 sd, the others at the best trial");
    let trials: Vec<(f64, f64)> = e.study.complete().filter_map(|t| Some((on_axis(e, p, t.params[p]?), t.values.as_ref()?[0]))).collect();
    let slice = e.slices.iter().find(|(n, _)| *n == name).map(|(_, s)| s.clone()).unwrap_or_default();
    let x: Vec<f64> = slice.iter().map(|s| on_axis(e, p, s.x)).collect();
    let lower: Vec<f64> = slice.iter().map(|s| s.mean - 2.0 * s.sd).collect();
    let upper: Vec<f64> = slice.iter().map(|s| s.mean + 2.0 * s.sd).collect();
    let mean: Vec<f64> = slice.iter().map(|s| s.mean).collect();
    let all: Vec<f64> = trials.iter().map(|t| t.1).chain(lower.iter().copied()).chain(upper.iter().copied()).collect();
    let plot = Plot::nice(range(x.iter().copied().chain(trials.iter().map(|t| t.0))), range(all), H).room_for(&title);
    view! {
        {plot.axes(&title, &axis_title(e, p), &objective)}
        <polygon points=plot.band(&x, &lower, &upper) fill=BLUE fill-opacity="0.15" stroke="none"/>
        <polyline points=plot.points(x.iter().copied().zip(mean.iter().copied())) fill="none" stroke=BLUE stroke-width="3"/>
        {trials.iter().map(|&(a, b)| view! { <circle cx=plot.px(a) cy=plot.py(b) r="4" fill=ORANGE fill-opacity="0.8"/> }).collect_view()}
        {plot.legend(&[("GP mean ± 2 sd", BLUE, "none"), ("complete trial", ORANGE, "none")], &trials)}
    }
    .into_any()
}

/// The contour: the surrogate's mean over two parameters as coloured cells, the trials on it.
pub fn contour_chart(e: &Exploration) -> AnyView {
    let Some((a, b, grid)) = &e.contour else {
        return view! { <text x="20" y="40" class="legend">"A contour needs two parameters every complete trial suggested."</text> }
            .into_any();
    };
    let index = |n: &str| e.study.space.params.iter().position(|q| q.name == n).unwrap_or_default();
    let (pa, pb) = (index(a), index(b));
    let title = format!("{}: a GP's mean over {a} and {b} (green: best), the trials on it", e.study.name);
    let xs: Vec<f64> = grid.iter().map(|g| on_axis(e, pa, g.x)).collect();
    let ys: Vec<f64> = grid.iter().map(|g| on_axis(e, pb, g.y)).collect();
    let plot = Plot::nice(range(xs.iter().copied()), range(ys.iter().copied()), H).room_for(&title);
    let distinct = |v: &[f64]| {
        let mut d = v.to_vec();
        d.sort_by(f64::total_cmp);
        d.dedup();
        d
    };
    let (ux, uy) = (distinct(&xs), distinct(&ys));
    let half = |u: &[f64], k: usize| -> (f64, f64) {
        let lo = if k == 0 { u[0] } else { (u[k - 1] + u[k]) / 2.0 };
        let hi = if k + 1 == u.len() { u[k] } else { (u[k] + u[k + 1]) / 2.0 };
        (lo, hi)
    };
    let losses: Vec<f64> = grid.iter().map(|g| e.study.loss(g.mean)).collect();
    let mut order: Vec<usize> = (0..grid.len()).collect();
    order.sort_by(|&i, &j| losses[i].total_cmp(&losses[j]));
    let mut rank = vec![0; grid.len()];
    for (r, i) in order.into_iter().enumerate() {
        rank[i] = r;
    }
    let trials: Vec<(f64, f64)> =
        e.study.complete().filter_map(|t| Some((on_axis(e, pa, t.params[pa]?), on_axis(e, pb, t.params[pb]?)))).collect();
    view! {
        {plot.axes(&title, &axis_title(e, pa), &axis_title(e, pb))}
        {(0..grid.len()).map(|i| {
            let kx = ux.iter().position(|&v| v == xs[i]).unwrap_or_default();
            let ky = uy.iter().position(|&v| v == ys[i]).unwrap_or_default();
            let ((x0, x1), (y0, y1)) = (half(&ux, kx), half(&uy, ky));
            let (sx0, sx1, sy0, sy1) = (plot.px(x0), plot.px(x1), plot.py(y1), plot.py(y0));
            view! { <rect x=sx0 y=sy0 width=(sx1 - sx0).max(1.0) height=(sy1 - sy0).max(1.0) fill=rank_color(rank[i], grid.len())/> }
        }).collect_view()}
        {trials.iter().map(|&(x, y)| view! { <circle cx=plot.px(x) cy=plot.py(y) r="4" fill="#ffffff" stroke="#111" stroke-width="1.5"/> }).collect_view()}
    }
    .into_any()
}

/// Parallel coordinates: one axis a parameter and the value, one line a complete trial,
/// coloured by its value's rank (green: best).
pub fn parallel_chart(e: &Exploration, w: f64) -> AnyView {
    let rows = parallel(&e.study);
    let names: Vec<String> = e.study.space.params.iter().map(|p| p.name.clone()).chain([e.study.objectives[0].0.clone()]).collect();
    let title = format!("{}: parallel coordinates of the complete trials (green: best)", e.study.name);
    let (left, right, top, bottom) = (40.0, 40.0, title_top(&title, w, 12.0) + 24.0, 50.0);
    let ax = |k: usize| left + (w - left - right) * k as f64 / (names.len() - 1).max(1) as f64;
    let ay = |v: f64| H - bottom - v.clamp(0.0, 1.0) * (H - top - bottom);
    let (lo, hi) = range(rows.iter().map(|r| r.1));
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&i, &j| e.study.loss(rows[i].1).total_cmp(&e.study.loss(rows[j].1)));
    view! {
        <rect x="0" y="0" width=w height=H fill="#ffffff"/>
        {chart_title(&format!("{}: parallel coordinates of the complete trials (green: best)", e.study.name), w, 12.0)}
        // The worst drawn first, so the best lie on top.
        {order.iter().enumerate().rev().map(|(rank, &i)| {
            let (_, v, positions) = &rows[i];
            let value = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
            let points: Vec<String> = positions.iter().chain([&Some(value)]).enumerate()
                .filter_map(|(k, p)| p.map(|p| format!("{:.1},{:.1}", ax(k), ay(p)))).collect();
            view! { <polyline points=points.join(" ") fill="none" stroke=rank_color(rank, rows.len()) stroke-width="1.5" stroke-opacity="0.7"/> }
        }).collect_view()}
        {names.iter().enumerate().map(|(k, n)| view! {
            <line x1=ax(k) x2=ax(k) y1=top y2=H - bottom stroke="#444"/>
            <text x=ax(k) y=H - bottom + 22.0 text-anchor="middle" class="tick">{n.clone()}</text>
        }).collect_view()}
        // Each parameter's axis runs from its lower bound (bottom) to its upper one (top).
        {e.study.space.params.iter().enumerate().map(|(k, p)| {
            let (lo, hi) = e.study.range(k);
            view! {
                <text x=ax(k) + 4.0 y=top - 8.0 class="tick">{p.display_value(hi)}</text>
                <text x=ax(k) + 4.0 y=H - bottom - 4.0 class="tick">{p.display_value(lo)}</text>
            }
        }).collect_view()}
        <text x=ax(names.len() - 1) y=top - 8.0 text-anchor="middle" class="tick">{significant(hi, 3)}</text>
        <text x=ax(names.len() - 1) y=H - bottom + 40.0 text-anchor="middle" class="tick">{significant(lo, 3)}</text>
    }
    .into_any()
}

/// The EDF of the complete trials' values.
pub fn edf_chart(e: &Exploration) -> AnyView {
    let objective = e.study.objectives[0].0.clone();
    let title = format!("{}: share of complete trials with {objective} at most x", e.study.name);
    let x = range(e.edf.iter().map(|p| p.0));
    let p = Plot::nice(x, (0.0, 1.0), H).room_for(&title);
    let mut steps = Vec::new();
    let mut before = 0.0;
    for &(v, s) in &e.edf {
        steps.push((v, before));
        steps.push((v, s));
        before = s;
    }
    view! {
        {p.axes(&title, &objective, "share of trials")}
        <polyline class="edf" points=p.points(steps) fill="none" stroke=BLUE stroke-width="3"/>
    }
    .into_any()
}

/// The first two objectives of every complete trial, the Pareto front joined.
pub fn pareto_chart(e: &Exploration) -> AnyView {
    let rows = pareto(&e.study);
    let (a, b) = (e.study.objectives[0].0.clone(), e.study.objectives.get(1).map_or(String::new(), |o| o.0.clone()));
    let title = format!("{}: {a} against {b}, the Pareto front joined", e.study.name);
    let points: Vec<(f64, f64)> = rows.iter().map(|r| (r.1[0], r.1[1])).collect();
    let mut front: Vec<(f64, f64)> = rows.iter().filter(|r| r.2).map(|r| (r.1[0], r.1[1])).collect();
    front.sort_by(|p, q| p.0.total_cmp(&q.0));
    let plot = Plot::nice(range(points.iter().map(|p| p.0)), range(points.iter().map(|p| p.1)), H).room_for(&title);
    view! {
        {plot.axes(&title, &a, &b)}
        {points.iter().map(|&(x, y)| view! { <circle cx=plot.px(x) cy=plot.py(y) r="4" fill=GREY fill-opacity="0.6"/> }).collect_view()}
        <polyline points=plot.points(front.iter().copied()) fill="none" stroke=ORANGE stroke-width="2"/>
        {front.iter().map(|&(x, y)| view! { <circle class="front" cx=plot.px(x) cy=plot.py(y) r="6" fill=ORANGE/> }).collect_view()}
        {plot.legend(&[("trial", GREY, "none"), ("Pareto front", ORANGE, "none")], &points)}
    }
    .into_any()
}

/// One trial's intermediate values (the trials table's row opened).
pub fn trial_curve_chart(e: &Exploration, number: usize) -> AnyView {
    let Some(t) = e.study.trials.iter().find(|t| t.number == number) else { return ().into_any() };
    let title = format!("trial {number}: its intermediate values");
    if t.intermediate.is_empty() {
        return view! { <text x="20" y="40" class="legend">{format!("Trial {number} reported no intermediate value.")}</text> }.into_any();
    }
    let p = Plot::nice(range(t.intermediate.iter().map(|s| s.0 as f64)), range(t.intermediate.iter().map(|s| s.1)), H).room_for(&title);
    view! {
        {p.axes(&title, "step", &e.study.objectives[0].0)}
        <polyline points=p.points(t.intermediate.iter().map(|&(s, v)| (s as f64, v))) fill="none" stroke=state_color(t.state) stroke-width="3"/>
    }
    .into_any()
}
