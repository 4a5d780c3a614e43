//! The race's verdict under its regret chart: who won and how sure, in a sentence, and the
//! evidence per method and for the study's own run (the engine's `results::verdict`, the
//! same numbers `hpo race` writes as verdict.csv).

use leptos::prelude::*;

use crate::app::platform::browser::{download_text, export_failed};
use crate::app::state::{Level, Messages};
use hpo_engine::axis::significant;
use hpo_engine::results::race_summary::RaceSummary;
use hpo_engine::results::verdict::{PairedTest, VerdictRow};

/// "better 9, worse 1: p = 0.021", or "–" without a test.
fn test_cell(t: &Option<PairedTest>) -> String {
    t.map_or("–".into(), |t| format!("{} better, {} worse: p = {}", t.better, t.worse, significant(t.test.p, 2)))
}

fn budget_cell(r: &VerdictRow) -> String {
    if r.reached.is_empty() {
        "–".into()
    } else {
        format!("{} ({}–{})", r.to_best_median, r.to_best_min, r.to_best_max)
    }
}

/// The verdict's sentence and table, when the summary has one.
#[component]
pub fn RaceVerdict(
    /// The race's summary.
    summary: Memo<Option<RaceSummary>>,
    /// The messages at the top of the page (a download that failed).
    messages: Messages,
) -> impl IntoView {
    let download = move |_| {
        let csv = summary.with_untracked(|s| s.as_ref().and_then(|s| s.verdict.as_ref()).map(|v| v.csv())).unwrap_or_default();
        if let Err(e) = download_text("verdict.csv", "text/csv", &csv) {
            messages.say(Level::Error, export_failed(&e));
        }
    };
    move || {
        summary.with(|s| {
            let s = s.as_ref()?;
            let v = s.verdict.as_ref()?;
            let base = v.baseline.clone().unwrap_or_else(|| "the baseline".into());
            let study = s.study.as_ref().map(|l| l.label.clone());
            let rows = v
                .rows
                .iter()
                .map(|r| {
                    let reached = if r.reached.is_empty() { "none".to_string() } else { r.reached.join(" ") };
                    view! {
                        <tr>
                            <th scope="row">{r.name.clone()}</th>
                            <td>{format!("{} of {}", r.reached.len(), r.runs)}</td>
                            <td>{reached}</td>
                            <td>{budget_cell(r)}</td>
                            <td>{significant(r.area, 3)}</td>
                            <td>{test_cell(&r.vs_baseline)}</td>
                            {study.is_some().then(|| view! { <td>{test_cell(&r.vs_study)}</td> })}
                        </tr>
                    }
                })
                .collect_view();
            Some(view! {
                <div id="race-verdict">
                    <p id="race-verdict-sentence" role="status"><strong>{v.sentence.clone()}</strong></p>
                    // The explanation above the table, not its caption: it wraps to the page's
                    // width while the table scrolls sideways on a phone.
                    <p class="hint" id="race-verdict-caption">"Per run (task × seed): the runs that reached the best, the budget units to reach it (median, range), the area under the regret curve (mean regret over the budget; smaller is better) and Wilcoxon signed-rank tests of the areas, paired by seed (docs/methods.md, \"A race's verdict\")."</p>
                    <div class="table-scroll"><table id="race-verdict-table" aria-describedby="race-verdict-caption">
                        <thead><tr>
                            <th scope="col">""</th>
                            <th scope="col">"reached the best"</th>
                            <th scope="col">"runs reaching it"</th>
                            <th scope="col">"budget to reach it"</th>
                            <th scope="col">"regret area"</th>
                            <th scope="col">{format!("vs {base}")}</th>
                            {study.clone().map(|l| view! { <th scope="col">{format!("vs {l}")}</th> })}
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table></div>
                    <button id="export-verdict-csv" on:click=download>"verdict.csv"</button>
                </div>
            })
        })
    }
}
