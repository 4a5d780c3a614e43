//! Critical-difference diagram (Demšar 2006, as drawn in the DyHPO paper's Fig. 4), drawn from
//! the engine's layout (`engine::results::cd_layout`, which the CLI writes as SVG files too).

use leptos::prelude::*;

use hpo_engine::results::cd_layout::{CdLayout, AXIS_Y, WIDTH};
use hpo_engine::results::race_summary::CdSummary;

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
    let layout = CdLayout::new(&cd, &methods, tasks);
    let h = layout.height;
    let ticks = layout
        .ticks
        .iter()
        .map(|t| {
            view! {
                <line x1=t.x x2=t.x y1=AXIS_Y - 5.0 y2=AXIS_Y stroke="#444"/>
                <text x=t.x y=AXIS_Y - 9.0 text-anchor="middle" class="tick">{t.rank}</text>
            }
        })
        .collect_view();
    let labels = layout
        .labels
        .iter()
        .map(|l| {
            view! {
                <polyline points=CdLayout::points(l) fill="none" stroke="#555"/>
                <text x=l.text_x y=l.text_y text-anchor=if l.anchor_end { "end" } else { "start" } class="legend cd-method">{l.text.clone()}</text>
            }
        })
        .collect_view();
    let bars = layout
        .bars
        .iter()
        .map(|b| view! { <line class="cd-bar" x1=b.x1 x2=b.x2 y1=b.y y2=b.y stroke="#222" stroke-width="3"/> })
        .collect_view();
    let label = format!("Critical-difference diagram: {}", layout.title);
    view! {
        <svg id=id xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {WIDTH} {h}") width="100%"
            class="chart" role="img" aria-label=label>
            <rect x="0" y="0" width=WIDTH height=h fill="#ffffff"/>
            <text x="8" y="20" class="chart-title">{layout.title}</text>
            <text x="8" y="40" class="tick">{layout.subtitle}</text>
            <line x1=layout.axis_x.0 x2=layout.axis_x.1 y1=AXIS_Y y2=AXIS_Y stroke="#444"/>
            {ticks}
            {bars}
            {labels}
        </svg>
    }
}
