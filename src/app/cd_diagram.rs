//! Critical-difference diagram (Demšar 2006, as drawn in the DyHPO paper's Fig. 4): methods
//! on an axis of average ranks, best on the left; a bar joins methods whose pairwise
//! Wilcoxon signed-rank tests (Holm-corrected, α = 0.05) find no significant difference.

use leptos::prelude::*;

use crate::engine::fidelity::summary::CdSummary;

const W: f64 = 720.0;
const ML: f64 = 190.0;
const MR: f64 = 190.0;
const AXIS_Y: f64 = 70.0;
const ROW: f64 = 22.0;

/// One CD diagram as a self-contained SVG.
#[component]
pub fn CdDiagram(
    /// DOM id of the `<svg>`.
    id: &'static str,
    /// The analysis.
    cd: CdSummary,
    /// Method names, in the order of `cd.ranks`.
    methods: Vec<String>,
    /// Number of tasks the ranks are over.
    tasks: usize,
) -> impl IntoView {
    let k = methods.len();
    let order = cd.order();
    let x = move |rank: f64| ML + (rank - 1.0) / ((k.max(2) - 1) as f64) * (W - ML - MR);
    let left = k.div_ceil(2);
    let groups = cd.cliques();
    let bars_bottom = AXIS_Y + 10.0 + 6.0 * groups.len() as f64;
    let h = bars_bottom + 12.0 + ROW * left as f64 + 24.0;
    let title = format!("Critical difference at {:.0}% of the budget over {tasks} tasks", cd.fraction * 100.0);
    let subtitle = format!("Friedman p = {:.2e}; bars: no significant difference (Wilcoxon signed-rank, Holm, α = 0.05)", cd.friedman_p);
    let ticks = (1..=k)
        .map(|r| {
            let xr = x(r as f64);
            view! {
                <line x1=xr x2=xr y1=AXIS_Y - 5.0 y2=AXIS_Y stroke="#444"/>
                <text x=xr y=AXIS_Y - 9.0 text-anchor="middle" class="tick">{r}</text>
            }
        })
        .collect_view();
    let labels = order
        .iter()
        .enumerate()
        .map(|(pos, &m)| {
            let xr = x(cd.ranks[m]);
            let on_left = pos < left;
            let row = if on_left { pos } else { k - 1 - pos };
            let y = bars_bottom + 12.0 + ROW * row as f64;
            let (x_end, anchor, tx) = if on_left { (ML - 10.0, "end", ML - 14.0) } else { (W - MR + 10.0, "start", W - MR + 14.0) };
            let label = format!("{} ({:.2})", methods[m], cd.ranks[m]);
            view! {
                <polyline points=format!("{xr:.1},{AXIS_Y} {xr:.1},{y:.1} {x_end:.1},{y:.1}") fill="none" stroke="#555"/>
                <text x=tx y=y + 5.0 text-anchor=anchor class="legend cd-method">{label}</text>
            }
        })
        .collect_view();
    let bars = groups
        .iter()
        .enumerate()
        .map(|(g, &(i, j))| {
            let y = AXIS_Y + 10.0 + 6.0 * g as f64;
            view! { <line class="cd-bar" x1=x(cd.ranks[order[i]]) - 4.0 x2=x(cd.ranks[order[j]]) + 4.0 y1=y y2=y stroke="#222" stroke-width="3"/> }
        })
        .collect_view();
    let label = format!("Critical-difference diagram: {title}");
    view! {
        <svg id=id xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {W} {h}") width="100%"
            class="chart" role="img" aria-label=label>
            <rect x="0" y="0" width=W height=h fill="#ffffff"/>
            <text x="8" y="20" class="chart-title">{title}</text>
            <text x="8" y="40" class="tick">{subtitle}</text>
            <line x1=ML x2=W - MR y1=AXIS_Y y2=AXIS_Y stroke="#444"/>
            {ticks}
            {bars}
            {labels}
        </svg>
    }
}
