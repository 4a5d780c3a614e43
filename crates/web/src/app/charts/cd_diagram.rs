//! Critical-difference diagram (Demšar 2006, as drawn in the DyHPO paper's Fig. 4), drawn from
//! the engine's layout (`engine::results::cd_layout`, which the CLI writes as SVG files too),
//! laid out at the width of its figure: every label and rank shows, on a projector and on a
//! phone, without a scroll box.

use leptos::prelude::*;

use super::chart::chart_width;
use hpo_engine::results::cd_layout::CdLayout;
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
    move || {
        let layout = CdLayout::at_width(&cd, &methods, tasks, chart_width());
        let (w, h) = (layout.width, layout.height);
        let header = layout
            .header_lines()
            .into_iter()
            .map(|(y, text, is_title)| view! { <text x="8" y=y class=if is_title { "chart-title" } else { "tick" }>{text.to_string()}</text> })
            .collect_view();
        let ticks = layout
            .ticks
            .iter()
            .map(|t| {
                let [(x1, y1), (x2, y2)] = t.line;
                view! {
                    <line x1=x1 x2=x2 y1=y1 y2=y2 stroke="#444"/>
                    <text x=t.text.0 y=t.text.1 text-anchor="middle" class="tick">{t.rank}</text>
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
            .map(|b| view! { <line class="cd-bar" x1=b.from.0 x2=b.to.0 y1=b.from.1 y2=b.to.1 stroke="#222" stroke-width="3"/> })
            .collect_view();
        let [(ax0, ay0), (ax1, ay1)] = layout.axis;
        let label = format!("Critical-difference diagram: {}", layout.title.join(" "));
        view! {
            <svg id=id xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {w} {h}") width="100%"
                class="chart" role="img" aria-label=label>
                <rect x="0" y="0" width=w height=h fill="#ffffff"/>
                {header}
                <line x1=ax0 x2=ax1 y1=ay0 y2=ay1 stroke="#444"/>
                {ticks}
                {bars}
                {labels}
            </svg>
        }
    }
}
