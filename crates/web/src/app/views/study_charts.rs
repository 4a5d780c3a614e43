//! The drawings of a study's views (`engine::explore`): each draws one view of an
//! [`Exploration`] the worker computed, as SVG markup in the lessons' plot box ([`Plot`]), so
//! that it exports as the page shows it. Markup, not typed views: the same drawing compiles to
//! a fraction of the code, and the page's main wasm has a size budget
//! (tests/e2e/loading.test.mjs). No numbers are computed here beyond placing them.

use std::fmt::Write;

use crate::app::learn::plot::{escape, range, title_svg, Plot, BLUE, GREY, ORANGE};
use hpo_engine::axis::significant;
use hpo_engine::explore::importance::FORESTS;
use hpo_engine::explore::views::{intermediate, parallel, pareto, Exploration};
use hpo_engine::space::ParamKind;
use hpo_engine::study::TrialState;

use crate::app::charts::chart::title_top;

/// Height of every study chart but the importance's.
pub const H: f64 = 380.0;

/// A next trial as the slice and contour views draw it: its raw values (`None` where it leaves
/// a parameter out) and the model's prediction there (value, sd), when its method has one.
pub type Proposal = (Vec<Option<f64>>, Option<(f64, f64)>);

/// The next trials' colour.
const PROPOSAL: &str = "#CC79A7";

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

/// A bound as an axis shows it: a number to 3 significant digits, a choice by its name.
fn bound_text(p: &hpo_engine::space::Hyperparameter, v: f64) -> String {
    match p.kind {
        ParamKind::Continuous { .. } => significant(v, 3),
        _ => p.display_value(v),
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

/// At most this many dots a chart draws, and lines ([`MOST_LINES`]): an SVG of 100,000 dots
/// held the page for 4 s, of 100,000 lines for 8 s. Beyond them a chart draws every k-th and
/// its legend or title says how many of how many; the CSVs keep every trial.
const MOST_DOTS: usize = 3_000;
const MOST_LINES: usize = 1_000;

/// Every k-th of `items`, the first included, k the smallest that keeps at most `most`.
fn thinned<T: Clone>(items: &[T], most: usize) -> Vec<T> {
    items.iter().step_by(items.len().div_ceil(most.max(1)).max(1)).cloned().collect()
}

/// `label`, and how many of how many are drawn when some are left out.
fn drawn(label: &str, shown: usize, total: usize) -> String {
    if shown < total {
        format!("{label} ({shown} of {total} drawn)")
    } else {
        label.to_string()
    }
}

/// A dot at screen (x, y).
fn dot(s: &mut String, x: f64, y: f64, r: f64, fill: &str, extra: &str) {
    let _ = write!(s, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}" {extra}/>"#);
}

/// A polyline through `points` (already in screen coordinates, as [`Plot::points`] gives them).
fn line(s: &mut String, points: &str, color: &str, width: f64, extra: &str) {
    let _ = write!(s, r#"<polyline points="{points}" fill="none" stroke="{color}" stroke-width="{width}" {extra}/>"#);
}

/// A diamond (a next trial) at screen (x, y).
fn diamond(s: &mut String, x: f64, y: f64) {
    let _ = write!(
        s,
        r##"<polygon class="proposal" points="{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}" fill="{PROPOSAL}" stroke="#fff" stroke-width="1.5"/>"##,
        y - 8.0,
        x + 8.0,
        y + 8.0,
        x - 8.0
    );
}

/// A sentence where a chart has nothing to draw.
fn nothing(text: &str) -> String {
    format!(r#"<text x="20" y="40" class="legend">{}</text>"#, escape(text))
}

/// Each trial's first value against its number, and the best so far.
pub fn history_chart(e: &Exploration, log: bool) -> String {
    let objective = &e.study.objectives[0].0;
    let title = format!("{}: each complete trial's {objective} and the best so far", e.study.name);
    let values: Vec<f64> = e.history.iter().filter_map(|h| h.value).collect();
    let p = y_plot((0.0, e.history.len().saturating_sub(1) as f64), &values, log, &title);
    let best: Vec<(f64, f64)> = e.history.iter().filter_map(|h| h.best.map(|b| (h.number as f64, b))).collect();
    // The best so far as its corners only: the same line in as many points as it has steps.
    let corners: Vec<(f64, f64)> = best
        .iter()
        .enumerate()
        .filter(|&(k, b)| k == 0 || k + 1 == best.len() || best[k - 1].1 != b.1 || best[k + 1].1 != b.1)
        .map(|(_, b)| *b)
        .collect();
    let all: Vec<(f64, f64)> = e.history.iter().filter_map(|h| h.value.map(|v| (h.number as f64, v))).collect();
    let dots = thinned(&all, MOST_DOTS);
    let mut s = p.axes_svg(&title, "trial", objective);
    for &(x, y) in &dots {
        dot(&mut s, p.px(x), p.py(y), 4.0, BLUE, r#"fill-opacity="0.7""#);
    }
    line(&mut s, &p.points(corners.iter().copied()), ORANGE, 3.0, r#"class="best-so-far""#);
    let label = drawn("complete trial", dots.len(), all.len());
    s + &p.legend_svg(&[(&label, BLUE, "none"), ("best so far", ORANGE, "none")], &dots)
}

/// Every trial's intermediate values, pruned and failed ones included, coloured by state.
pub fn intermediate_chart(e: &Exploration, log: bool) -> String {
    let points = intermediate(&e.study);
    if points.is_empty() {
        return nothing(&format!("{} records no intermediate values.", e.study.name));
    }
    let title = format!("{}: the trials' own intermediate values", e.study.name);
    let values: Vec<f64> = points.iter().map(|p| p.3).collect();
    let p = y_plot(range(points.iter().map(|p| p.2 as f64)), &values, log, &title);
    let mut curves: Vec<(TrialState, Vec<(f64, f64)>)> = Vec::new();
    let mut last = None;
    for (n, state, step, v) in points {
        if last != Some(n) {
            curves.push((state, Vec::new()));
            last = Some(n);
        }
        if let Some(c) = curves.last_mut() {
            c.1.push((step as f64, v));
        }
    }
    let total = curves.len();
    let curves = thinned(&curves, MOST_LINES);
    let title = drawn(&title, curves.len(), total);
    let mut s = p.axes_svg(&title, "step", &e.study.objectives[0].0);
    for (state, c) in &curves {
        line(&mut s, &p.points(c.iter().copied()), state_color(*state), 1.5, r#"stroke-opacity="0.6""#);
    }
    let data: Vec<(f64, f64)> = curves.iter().flat_map(|c| c.1.iter().copied()).collect();
    s + &p.legend_svg(&[("complete", BLUE, "none"), ("pruned", ORANGE, "none"), ("failed or running", GREY, "none")], &data)
}

/// One importance row's height: its bar and, below it, its numbers and how settled its order is.
const IMPORTANCE_ROW: f64 = 62.0;

fn importance_title(e: &Exploration) -> String {
    if e.importance.too_few() {
        return format!("{}: {}", e.study.name, e.importance.in_words());
    }
    format!("{}: importance (fANOVA, {} forests)", e.study.name, FORESTS)
}

/// The importance chart's height: its title (room for it wrapped, as on a phone) and a row a
/// parameter.
pub fn importance_height(e: &Exploration) -> f64 {
    title_top(&importance_title(e), 340.0, 12.0) + 12.0 + IMPORTANCE_ROW * e.importance.rows.len().max(1) as f64
}

/// The importance as bars with their spread over the forests, most important on top.
pub fn importance_chart(e: &Exploration, w: f64) -> String {
    let title = importance_title(e);
    if e.importance.rows.is_empty() {
        return title_svg(&title, w, 12.0);
    }
    let (left, right) = ((w * 0.3).min(170.0), 24.0);
    let bar = |v: f64| left + v.clamp(0.0, 1.0) * (w - left - right);
    let top = title_top(&title, w, 12.0) + 4.0;
    let mut s = format!(r##"<rect x="0" y="0" width="{w}" height="{}" fill="#ffffff"/>"##, importance_height(e));
    s.push_str(&title_svg(&title, w, 12.0));
    for (k, r) in e.importance.rows.iter().enumerate() {
        let y = top + IMPORTANCE_ROW * k as f64;
        let (m, sd) = (r.importance.mean, r.importance.sd);
        let settled = r
            .importance
            .ahead_of_next
            .map(|a| format!("above the next in {:.0}/{FORESTS} forests", a * FORESTS as f64))
            .unwrap_or_default();
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end" class="tick">{}</text><rect class="importance-bar" x="{left}" y="{}" width="{:.1}" height="20" fill="{BLUE}"/><line x1="{:.1}" x2="{:.1}" y1="{}" y2="{}" stroke="#222" stroke-width="2"/><text x="{}" y="{}" class="legend">{} ± {}</text><text x="{}" y="{}" class="legend">{settled}</text>"##,
            left - 10.0,
            y + 18.0,
            escape(&r.parameter),
            y + 4.0,
            (bar(m) - left).max(1.0),
            bar(m - sd),
            bar(m + sd),
            y + 14.0,
            y + 14.0,
            left + 4.0,
            y + 40.0,
            significant(m, 3),
            significant(sd, 2),
            left + 4.0,
            y + 58.0,
        );
    }
    s
}

/// Parameter `p`'s slice: the trials on it, the surrogate's mean ± 2 sd along it, and the
/// next trials (at their predicted value ± 2 sd, or at the axis' foot without a prediction).
pub fn slice_chart(e: &Exploration, p: usize, proposals: &[Proposal]) -> String {
    let name = &e.study.space.params[p].name;
    let title = format!("{name}: the trials and a GP's mean ± 2 sd, the others at the best trial");
    let every: Vec<(f64, f64)> = e.study.complete().filter_map(|t| Some((on_axis(e, p, t.params[p]?), t.values.as_ref()?[0]))).collect();
    let trials = thinned(&every, MOST_DOTS);
    let slice = e.slices.iter().find(|(n, _)| n == name).map(|(_, s)| s.as_slice()).unwrap_or_default();
    let x: Vec<f64> = slice.iter().map(|s| on_axis(e, p, s.x)).collect();
    let lower: Vec<f64> = slice.iter().map(|s| s.mean - 2.0 * s.sd).collect();
    let upper: Vec<f64> = slice.iter().map(|s| s.mean + 2.0 * s.sd).collect();
    let all = trials.iter().map(|t| t.1).chain(lower.iter().copied()).chain(upper.iter().copied());
    let plot = Plot::nice(range(x.iter().copied().chain(trials.iter().map(|t| t.0))), range(all), H).room_for(&title);
    let mut s = plot.axes_svg(&title, &axis_title(e, p), &e.study.objectives[0].0);
    let _ = write!(s, r#"<polygon points="{}" fill="{BLUE}" fill-opacity="0.15" stroke="none"/>"#, plot.band(&x, &lower, &upper));
    line(&mut s, &plot.points(x.iter().copied().zip(slice.iter().map(|s| s.mean))), BLUE, 3.0, "");
    for &(a, b) in &trials {
        dot(&mut s, plot.px(a), plot.py(b), 4.0, ORANGE, r#"fill-opacity="0.8""#);
    }
    for (raw, predicted) in proposals {
        let Some(v) = raw[p] else { continue };
        let sx = plot.px(on_axis(e, p, v));
        match predicted {
            Some((m, sd)) => {
                let _ = write!(
                    s,
                    r#"<line x1="{sx:.1}" x2="{sx:.1}" y1="{:.1}" y2="{:.1}" stroke="{PROPOSAL}" stroke-width="2"/>"#,
                    plot.py(m - 2.0 * sd),
                    plot.py(m + 2.0 * sd)
                );
                diamond(&mut s, sx, plot.py(*m));
            }
            None => diamond(&mut s, sx, plot.py(plot.y.0)),
        }
    }
    let label = drawn("complete trial", trials.len(), every.len());
    let mut legend = vec![("GP mean ± 2 sd", BLUE, "none"), (label.as_str(), ORANGE, "none")];
    if !proposals.is_empty() {
        legend.push(("next trial", PROPOSAL, "none"));
    }
    s + &plot.legend_svg(&legend, &trials)
}

/// The contour: the surrogate's mean over two parameters as coloured cells (green: best), the
/// trials on it and the next trials (diamonds).
pub fn contour_chart(e: &Exploration, proposals: &[Proposal]) -> String {
    let Some((a, b, grid)) = &e.contour else {
        return nothing("A contour needs two parameters every complete trial suggested.");
    };
    let index = |n: &str| e.study.space.params.iter().position(|q| q.name == n).unwrap_or_default();
    let (pa, pb) = (index(a), index(b));
    let on_both: Vec<(f64, f64)> = e.study.complete().filter_map(|t| t.params[pa].zip(t.params[pb])).collect();
    let dots = thinned(&on_both, MOST_DOTS);
    let title = drawn(&format!("{}: a GP's mean over {a} × {b} (green: best)", e.study.name), dots.len(), on_both.len());
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
    // A cell spans halfway to its neighbours.
    let half = |u: &[f64], k: usize| -> (f64, f64) {
        let lo = if k == 0 { u[0] } else { (u[k - 1] + u[k]) / 2.0 };
        let hi = if k + 1 == u.len() { u[k] } else { (u[k] + u[k + 1]) / 2.0 };
        (lo, hi)
    };
    let mut order: Vec<usize> = (0..grid.len()).collect();
    order.sort_by(|&i, &j| e.study.loss(grid[i].mean).total_cmp(&e.study.loss(grid[j].mean)));
    let mut rank = vec![0; grid.len()];
    for (r, i) in order.into_iter().enumerate() {
        rank[i] = r;
    }
    let mut s = plot.axes_svg(&title, &axis_title(e, pa), &axis_title(e, pb));
    for i in 0..grid.len() {
        let kx = ux.iter().position(|&v| v == xs[i]).unwrap_or_default();
        let ky = uy.iter().position(|&v| v == ys[i]).unwrap_or_default();
        let ((x0, x1), (y0, y1)) = (half(&ux, kx), half(&uy, ky));
        let (sx0, sx1, sy0, sy1) = (plot.px(x0), plot.px(x1), plot.py(y1), plot.py(y0));
        let _ = write!(
            s,
            r#"<rect x="{sx0:.1}" y="{sy0:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
            (sx1 - sx0).max(1.0),
            (sy1 - sy0).max(1.0),
            rank_color(rank[i], grid.len())
        );
    }
    for (x, y) in dots {
        dot(&mut s, plot.px(on_axis(e, pa, x)), plot.py(on_axis(e, pb, y)), 4.0, "#ffffff", r##"stroke="#111" stroke-width="1.5""##);
    }
    for (raw, _) in proposals {
        if let (Some(x), Some(y)) = (raw[pa], raw[pb]) {
            diamond(&mut s, plot.px(on_axis(e, pa, x)), plot.py(on_axis(e, pb, y)));
        }
    }
    s
}

/// Parallel coordinates: one axis a parameter (its lower bound at the foot, its upper at the
/// top) and the value, one line a complete trial, coloured by its value's rank (green: best).
pub fn parallel_chart(e: &Exploration, w: f64) -> String {
    let rows = parallel(&e.study);
    let names: Vec<&str> = e.study.space.params.iter().map(|p| p.name.as_str()).chain([e.study.objectives[0].0.as_str()]).collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&i, &j| e.study.loss(rows[i].1).total_cmp(&e.study.loss(rows[j].1)));
    // Beyond MOST_LINES, every k-th by rank: the best is drawn, and the colours keep their spread.
    let ranked: Vec<(usize, usize)> = thinned(&order.iter().copied().enumerate().collect::<Vec<_>>(), MOST_LINES);
    let title = drawn(&format!("{}: parallel coordinates (green: best)", e.study.name), ranked.len(), rows.len());
    // Room for the outer axes' names, centred under them (about 7.5 units a character).
    let half_name = |n: &str| 8.0 + 3.8 * n.chars().count() as f64;
    let (left, right) = (half_name(names[0]).max(40.0), half_name(names[names.len() - 1]).max(40.0));
    let (top, bottom) = (title_top(&title, w, 12.0) + 24.0, 50.0);
    let ax = |k: usize| left + (w - left - right) * k as f64 / (names.len() - 1).max(1) as f64;
    let ay = |v: f64| H - bottom - v.clamp(0.0, 1.0) * (H - top - bottom);
    let (lo, hi) = range(rows.iter().map(|r| r.1));
    let mut s = format!(r##"<rect x="0" y="0" width="{w}" height="{H}" fill="#ffffff"/>"##);
    s.push_str(&title_svg(&title, w, 12.0));
    // The worst drawn first, so the best lie on top.
    for &(rank, i) in ranked.iter().rev() {
        let (_, v, positions) = &rows[i];
        let value = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        let points: Vec<String> = positions
            .iter()
            .chain([&Some(value)])
            .enumerate()
            .filter_map(|(k, p)| p.map(|p| format!("{:.1},{:.1}", ax(k), ay(p))))
            .collect();
        line(&mut s, &points.join(" "), &rank_color(rank, rows.len()), 1.5, r#"stroke-opacity="0.7""#);
    }
    for (k, n) in names.iter().enumerate() {
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#444"/><text x="{x:.1}" y="{}" text-anchor="middle" class="tick">{}</text>"##,
            H - bottom,
            H - bottom + 22.0,
            escape(n),
            x = ax(k)
        );
    }
    for (k, p) in e.study.space.params.iter().enumerate() {
        let (low, high) = e.study.range(k);
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{}" class="tick">{}</text><text x="{x:.1}" y="{}" class="tick">{}</text>"#,
            top - 8.0,
            escape(&bound_text(p, high)),
            H - bottom - 4.0,
            escape(&bound_text(p, low)),
            x = ax(k) + 4.0
        );
    }
    let last = ax(names.len() - 1);
    let _ = write!(
        s,
        r#"<text x="{last:.1}" y="{}" text-anchor="middle" class="tick">{}</text><text x="{last:.1}" y="{}" text-anchor="middle" class="tick">{}</text>"#,
        top - 8.0,
        significant(hi, 3),
        H - bottom + 40.0,
        significant(lo, 3)
    );
    s
}

/// The EDF of the complete trials' values.
pub fn edf_chart(e: &Exploration) -> String {
    let objective = &e.study.objectives[0].0;
    let title = format!("{}: share of complete trials with {objective} at most x", e.study.name);
    let p = Plot::nice(range(e.edf.iter().map(|p| p.0)), (0.0, 1.0), H).room_for(&title);
    let mut steps = Vec::new();
    let mut before = 0.0;
    for &(v, share) in &e.edf {
        steps.push((v, before));
        steps.push((v, share));
        before = share;
    }
    let mut s = p.axes_svg(&title, objective, "share of trials");
    line(&mut s, &p.points(steps), BLUE, 3.0, r#"class="edf""#);
    s
}

/// The first two objectives of every complete trial, the Pareto front joined.
pub fn pareto_chart(e: &Exploration) -> String {
    let rows = pareto(&e.study);
    let (a, b) = (&e.study.objectives[0].0, e.study.objectives.get(1).map_or("", |o| o.0.as_str()));
    let title = format!("{}: {a} against {b}, the Pareto front joined", e.study.name);
    let points: Vec<(f64, f64)> = rows.iter().map(|r| (r.1[0], r.1[1])).collect();
    let mut front: Vec<(f64, f64)> = rows.iter().filter(|r| r.2).map(|r| (r.1[0], r.1[1])).collect();
    front.sort_by(|p, q| p.0.total_cmp(&q.0));
    let plot = Plot::nice(range(points.iter().map(|p| p.0)), range(points.iter().map(|p| p.1)), H).room_for(&title);
    let mut s = plot.axes_svg(&title, a, b);
    let dots = thinned(&points, MOST_DOTS);
    for &(x, y) in &dots {
        dot(&mut s, plot.px(x), plot.py(y), 4.0, GREY, r#"fill-opacity="0.6""#);
    }
    line(&mut s, &plot.points(front.iter().copied()), ORANGE, 2.0, "");
    for &(x, y) in &front {
        dot(&mut s, plot.px(x), plot.py(y), 6.0, ORANGE, r#"class="front""#);
    }
    let label = drawn("trial", dots.len(), points.len());
    s + &plot.legend_svg(&[(&label, GREY, "none"), ("Pareto front", ORANGE, "none")], &dots)
}

/// One trial's intermediate values (the trials table's row opened).
pub fn trial_curve_chart(e: &Exploration, number: usize) -> String {
    let Some(t) = e.study.trials.iter().find(|t| t.number == number) else { return String::new() };
    if t.intermediate.is_empty() {
        return nothing(&format!("Trial {number} reported no intermediate value."));
    }
    let title = format!("trial {number}: its intermediate values");
    let p = Plot::nice(range(t.intermediate.iter().map(|s| s.0 as f64)), range(t.intermediate.iter().map(|s| s.1)), H).room_for(&title);
    let mut s = p.axes_svg(&title, "step", &e.study.objectives[0].0);
    line(&mut s, &p.points(t.intermediate.iter().map(|&(st, v)| (st as f64, v))), state_color(t.state), 3.0, "");
    s
}
