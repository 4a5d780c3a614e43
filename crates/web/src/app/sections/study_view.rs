//! "Your study": the views a researcher opens first on the loaded data — trials table,
//! history, intermediate values, importance, slice, contour, parallel coordinates, EDF and,
//! for several objectives, the Pareto front (`engine::explore`). Computed in a worker (the
//! forests and the GP stay out of the page's bundle) from the same code as `hpo explore`:
//! each view's CSV download is that command's file, byte for byte. An Optuna storage is read
//! again in the worker for its every trial (pruned and failed ones with their intermediate
//! values); any other data is its loaded table's task. The view, the study and the parameters
//! are in the link (`explore=`).

use leptos::prelude::*;

use hpo_engine::axis::significant;
use hpo_engine::explore::link::{StudyView, StudyViewSpec, STUDY_VIEWS};
use hpo_engine::explore::views::{proposal_raw, Exploration};
use hpo_engine::space::ParamKind;
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::suggest::SuggestedFiles;
use hpo_protocol::{ExploreSource, ExploredStudy, ToWorker};

use super::suggest_view::{loaded_format, loaded_journal};
use crate::app::charts::chart::{chart_width, SvgFigure};
use crate::app::learn::plot::escape;
use crate::app::platform::browser::download_text;
use crate::app::platform::workers::WorkerService;
use crate::app::state::{DataState, Level, Messages};
use crate::app::views::study_charts::{self as charts, H};

/// What the panel shows.
#[derive(Clone)]
enum Status {
    Idle,
    Computing,
    Ready(Box<ExploredStudy>, f64),
    Failed(String),
}

/// The trials' source for the study (or task) `study` of the loaded data.
fn source(spec: RwSignal<ExperimentSpec>, data: DataState, study: &str) -> Option<ExploreSource> {
    if let Some(file) = loaded_journal(spec, data) {
        return Some(ExploreSource::OptunaFile { file: file.name, bytes: file.bytes.to_vec() });
    }
    let bench = data.bench.get_untracked()?;
    let task = bench.task_index(study).unwrap_or(0);
    let words = loaded_format(spec, data).map_or_else(|| format!("the table {}", bench.name), |f| f.name().to_string());
    Some(ExploreSource::Table { benchmark: data.encoded_for(&bench).ok()?, task, source: words })
}

/// The panel.
#[component]
pub fn StudyView(
    /// The setup (its `explore` field is the link's view).
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The messages at the top of the page.
    messages: Messages,
    /// The page's workers.
    workers: WorkerService,
) -> impl IntoView {
    let linked = spec.with_untracked(|s| s.explore.clone());
    let view_shown = RwSignal::new(linked.as_ref().map_or(StudyView::Importance, |l| l.view));
    let study = RwSignal::new(linked.as_ref().map(|l| l.study.clone()).unwrap_or_default());
    let params = RwSignal::new(linked.as_ref().map(|l| l.params.clone()).unwrap_or_default());
    let status = RwSignal::new(Status::Idle);
    let log_y = RwSignal::new(false);
    let studies = Memo::new(move |_| {
        data.bench.with(|b| b.as_ref().map(|b| b.tasks.iter().map(|t| t.name.clone()).collect::<Vec<_>>()).unwrap_or_default())
    });
    // The link follows what is shown, once the views are open.
    let remember = move || {
        if matches!(status.get_untracked(), Status::Idle) {
            return;
        }
        let chosen = StudyViewSpec { view: view_shown.get_untracked(), study: study.get_untracked(), params: params.get_untracked() };
        if spec.with_untracked(|s| s.explore.as_ref() != Some(&chosen)) {
            spec.update(|s| s.explore = Some(chosen));
        }
    };
    let ask = move || {
        let chosen = study.get_untracked();
        let name = if chosen.is_empty() { studies.with_untracked(|s| s.first().cloned().unwrap_or_default()) } else { chosen };
        let Some(source) = source(spec, data, &name) else { return };
        let contour = params
            .with_untracked(|p| (view_shown.get_untracked() == StudyView::Contour && p.len() == 2).then(|| (p[0].clone(), p[1].clone())));
        let request = workers.next_request();
        status.set(Status::Computing);
        let message = ToWorker::Explore { request, source, study: (!name.is_empty()).then_some(name), contour, seed: 0 };
        workers.explorer.ask(request, message, move |result, ms| {
            status.set(match result {
                Ok(e) => Status::Ready(e, ms),
                Err(e) => Status::Failed(e),
            });
            remember();
        });
    };
    // Other data closes the views (the first data a link opens keeps them).
    Effect::new(move |previous: Option<Option<std::sync::Arc<hpo_engine::benchmark::Benchmark>>>| {
        let current = data.bench.get();
        if let Some(Some(before)) = previous {
            if !current.as_ref().is_some_and(|c| std::sync::Arc::ptr_eq(c, &before)) {
                status.set(Status::Idle);
            }
        }
        current
    });
    // A link that names a view opens it once its data is in.
    let opened = linked.is_some();
    Effect::new(move |done: Option<bool>| {
        let done = done.unwrap_or(false);
        if opened && !done && data.bench.with(Option::is_some) {
            ask();
            return true;
        }
        done
    });
    let download = move |file: String, text: String| {
        if download_text(&file, "text/csv", &text).is_err() {
            messages.say(Level::Error, format!("{file} could not be offered for download: the browser refused the file"));
        }
    };
    let choose_view = move |v: StudyView| {
        view_shown.set(v);
        let needs_contour = v == StudyView::Contour && params.with_untracked(|p| p.len() == 2);
        let shown_contour = match status.get_untracked() {
            Status::Ready(e, _) => e.views.contour.as_ref().map(|(a, b, _)| vec![a.clone(), b.clone()]),
            _ => None,
        };
        if needs_contour && shown_contour != Some(params.get_untracked()) {
            ask();
        } else {
            remember();
        }
    };
    view! {
        <Show when=move || data.bench.with(Option::is_some)>
            <section class="panel wide" id="study-panel">
                <h2>"Your study, explored"</h2>
                <p class="hint">"What mattered and where the good region is: the trials table, the history, the trials' own learning curves, each parameter's importance (Optuna's fANOVA, grown over 8 forests so its spread shows how sure the order is), a GP's slices and contour, parallel coordinates and the EDF — computed in a worker by the same code as "<code>"hpo explore"</code>", each downloadable as that command's CSV."</p>
                <div class="row">
                    <Show when=move || studies.with(|s| s.len() > 1)>
                        <label>"Study "
                            <select id="study-choice" on:change=move |ev| { study.set(event_target_value(&ev)); ask(); }>
                                {move || studies.get().into_iter().map(|s| view! { <option value=s.clone() selected=study.get() == s>{s.clone()}</option> }).collect_view()}
                            </select>
                        </label>
                    </Show>
                    <button id="study-explore" class="primary" on:click=move |_| ask()>"Explore the study"</button>
                </div>
                {move || match status.get() {
                    Status::Idle => ().into_any(),
                    Status::Computing => view! { <p id="study-status" role="status"><span class="spinner"></span>" computing the views…"</p> }.into_any(),
                    Status::Failed(e) => view! { <p id="study-status" class="role-error" role="alert">{e}</p> }.into_any(),
                    Status::Ready(e, ms) => {
                        let ExploredStudy { views, files } = *e;
                        let e = std::sync::Arc::new(views);
                        let summary = format!("{} Computed in {ms:.0} ms in a worker.", e.summary());
                        let several = e.study.objectives.len() > 1;

                        let e2 = e.clone();
                        view! {
                            <p id="study-status" role="status">{summary}</p>
                            <div class="row" role="tablist" id="study-views">
                                {STUDY_VIEWS.into_iter().filter(|v| *v != StudyView::Pareto || several).map(|v| view! {
                                    <button role="tab" class="small" id=format!("study-view-{}", v.as_str()) aria-selected=move || (view_shown.get() == v).to_string()
                                        on:click=move |_| choose_view(v)>{v.title()}</button>
                                }).collect_view()}
                            </div>
                            {move || {
                                let v = view_shown.get();
                                let csv = files.iter().find(|f| f.0 == v.file()).map(|f| f.1.clone()).unwrap_or_default();
                                let file = v.file();
                                let e = e2.clone();
                                view! {
                                    <div class="row">
                                        <button class="small" id="study-csv" on:click=move |_| download(file.clone(), csv.clone())>{format!("{} (CSV)", v.file())}</button>
                                        {matches!(v, StudyView::History | StudyView::Intermediate).then(|| view! {
                                            <label><input type="checkbox" id="study-log" prop:checked=move || log_y.get() on:change=move |ev| log_y.set(event_target_checked(&ev))/>" log y axis"</label>
                                        })}
                                        {(v == StudyView::Slice).then(|| param_select(&e, params, 0, "study-slice-param", remember))}
                                        {(v == StudyView::Contour).then(|| view! {
                                            {param_select(&e, params, 0, "study-contour-x", ask)}
                                            {param_select(&e, params, 1, "study-contour-y", ask)}
                                        })}
                                    </div>
                                    {shown_view(e, v, params, log_y, data.suggested)}
                                }
                            }}
                        }.into_any()
                    }
                }}
            </section>
        </Show>
    }
}

/// A select of the modelled parameters, setting `params[slot]`; `then` runs after a change.
fn param_select(
    e: &Exploration,
    params: RwSignal<Vec<String>>,
    slot: usize,
    id: &'static str,
    then: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let names: Vec<String> = e.slices.iter().map(|(n, _)| n.clone()).collect();
    // What the view shows when the link names no parameter: the contour's pair, or the most
    // important parameter's slice.
    let shown: Vec<String> = match &e.contour {
        Some((a, b, _)) if id != "study-slice-param" => vec![a.clone(), b.clone()],
        _ => e.importance.rows.first().map(|r| r.parameter.clone()).into_iter().collect(),
    };
    let current = params.with_untracked(|p| p.get(slot).cloned()).or_else(|| shown.get(slot).cloned());
    let label = if slot == 0 { "Parameter " } else { " against " };
    view! {
        <label>{label}
            <select id=id on:change=move |ev| {
                let chosen = event_target_value(&ev);
                params.update(|p| {
                    // The other slot keeps what is shown, not an empty name.
                    if p.len() <= slot {
                        *p = shown.clone();
                        p.resize(slot + 1, String::new());
                    }
                    p[slot] = chosen;
                });
                then();
            }>
                {names.into_iter().map(|n| view! { <option value=n.clone() selected=current.as_deref() == Some(n.as_str())>{n.clone()}</option> }).collect_view()}
            </select>
        </label>
    }
}

/// The chosen view, drawn.
fn shown_view(
    e: std::sync::Arc<Exploration>,
    v: StudyView,
    params: RwSignal<Vec<String>>,
    log_y: RwSignal<bool>,
    suggested: RwSignal<Option<std::sync::Arc<SuggestedFiles>>>,
) -> AnyView {
    // The Next trials panel's latest proposals for this study, drawn on the slice and contour.
    let proposals = move |e: &Exploration| -> Vec<charts::Proposal> {
        suggested.with(|s| {
            s.as_ref().filter(|s| s.study == e.study.name).map_or_else(Vec::new, |s| {
                s.rows
                    .iter()
                    .enumerate()
                    .map(|(k, row)| {
                        let predicted = s.explanations.get(k).and_then(|x| x.predicted).map(|p| (p.value, p.sd));
                        (proposal_raw(&e.study.space, &s.names, row), predicted)
                    })
                    .collect()
            })
        })
    };
    // A figure whose legend has `entries` lines: on a phone the legend goes below the plot.
    let figure = move |id: &'static str, label: &'static str, entries: usize, draw: Box<dyn Fn() -> String + Send + Sync>| {
        figure_of(id, label, H, entries, draw)
    };
    let importance_height = charts::importance_height(&e);
    let slice_param = move |e: &Exploration| {
        let name =
            params.with(|p| p.first().cloned()).or_else(|| e.importance.rows.first().map(|r| r.parameter.clone())).unwrap_or_default();
        e.study.space.params.iter().position(|p| p.name == name && e.slices.iter().any(|(n, _)| *n == name))
    };
    match v {
        StudyView::Trials => trials_table(e),
        StudyView::History => figure(
            "study-history",
            "Each complete trial's value and the best so far.",
            2,
            Box::new(move || charts::history_chart(&e, log_y.get())),
        ),
        StudyView::Intermediate => figure(
            "study-intermediate",
            "The trials' intermediate values, pruned and failed ones included.",
            3,
            Box::new(move || charts::intermediate_chart(&e, log_y.get())),
        ),
        StudyView::Importance => figure_of(
            "study-importance",
            "Importance: mean ± sd over 8 forests of Optuna's fANOVA.",
            importance_height,
            0,
            Box::new(move || charts::importance_chart(&e, chart_width())),
        ),
        StudyView::Slice => figure(
            "study-slice",
            "One parameter: the trials on it and a GP's mean ± 2 sd along it.",
            3,
            Box::new(move || match slice_param(&e) {
                Some(p) => charts::slice_chart(&e, p, &proposals(&e)),
                None => String::new(),
            }),
        ),
        StudyView::Contour => figure(
            "study-contour",
            "A GP's mean over two parameters, the trials on it.",
            0,
            Box::new(move || charts::contour_chart(&e, &proposals(&e))),
        ),
        StudyView::Parallel => figure(
            "study-parallel",
            "Parallel coordinates of the complete trials.",
            0,
            Box::new(move || charts::parallel_chart(&e, chart_width())),
        ),
        StudyView::Edf => {
            figure("study-edf", "The empirical distribution function of the values.", 0, Box::new(move || charts::edf_chart(&e)))
        }
        StudyView::Pareto => {
            figure("study-pareto", "The first two objectives, the Pareto front joined.", 2, Box::new(move || charts::pareto_chart(&e)))
        }
    }
}

/// A view's figure `height` high (and room for a legend of `legend` lines below it on a
/// phone), with its SVG and PNG exports.
fn figure_of(id: &'static str, label: &'static str, height: f64, legend: usize, draw: Box<dyn Fn() -> String + Send + Sync>) -> AnyView {
    view! {
        <SvgFigure id=id file=id caption=move || view! { <span>{label}</span> } height=height label=label legend=legend>
            <g inner_html=draw></g>
        </SvgFigure>
    }
    .into_any()
}

/// Rows a page of the trials table shows.
const TABLE_ROWS: usize = 200;

/// The trials table: every trial, sortable by any column, filtered by state, in pages of
/// [`TABLE_ROWS`]; a row opens its intermediate values below.
fn trials_table(e: std::sync::Arc<Exploration>) -> AnyView {
    let header: Vec<String> = ["number", "state"]
        .map(String::from)
        .into_iter()
        .chain(e.study.objectives.iter().map(|o| o.0.clone()))
        .chain(e.study.space.params.iter().map(|p| p.name.clone()))
        .collect();
    // Each trial's sort key per column; its text is made for the rows shown only (100,000
    // trials' texts took seconds).
    let keys: Vec<Vec<f64>> = e
        .study
        .trials
        .iter()
        .map(|t| {
            let values = (0..e.study.objectives.len()).map(|m| t.values.as_ref().and_then(|v| v.get(m).copied()).unwrap_or(f64::NAN));
            [t.number as f64, t.state as u8 as f64]
                .into_iter()
                .chain(values)
                .chain(t.params.iter().map(|p| p.unwrap_or(f64::NAN)))
                .collect()
        })
        .collect();
    let e_text = e.clone();
    let text = move |i: usize| -> Vec<String> {
        let (study, t) = (&e_text.study, &e_text.study.trials[i]);
        let mut shown = vec![t.number.to_string(), hpo_engine::explore::files::state_name(t.state).to_string()];
        for m in 0..study.objectives.len() {
            shown.push(t.values.as_ref().and_then(|v| v.get(m).copied()).map_or(String::new(), |v| significant(v, 4)));
        }
        for (p, param) in study.space.params.iter().enumerate() {
            shown.push(match (&param.kind, t.params[p]) {
                (_, None) => String::new(),
                (ParamKind::Categorical { .. } | ParamKind::Integer { .. }, Some(v)) => param.display_value(v),
                (_, Some(v)) => significant(v, 4),
            });
        }
        shown
    };
    let sort = RwSignal::new((0usize, true));
    let state_filter = RwSignal::new(String::new());
    let opened = RwSignal::new(None::<usize>);
    let page = RwSignal::new(0usize);
    let e_rows = e.clone();
    // The trials the filter keeps, in the sort's order (indices into the study's trials).
    let ordered = Memo::new(move |_| {
        let (col, ascending) = sort.get();
        let filter = state_filter.get();
        let states = |i: usize| hpo_engine::explore::files::state_name(e_rows.study.trials[i].state);
        let mut r: Vec<usize> = (0..keys.len()).filter(|&i| filter.is_empty() || states(i) == filter).collect();
        // Missing values last either way.
        r.sort_by(|&a, &b| match (keys[a][col].is_nan(), keys[b][col].is_nan()) {
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ if ascending => keys[a][col].total_cmp(&keys[b][col]),
            _ => keys[b][col].total_cmp(&keys[a][col]),
        });
        r
    });
    let pages = move || ordered.with(|r| r.len().div_ceil(TABLE_ROWS).max(1));
    // The table as markup (a table of 1,000 trials is that many rows; typed views of it would
    // cost the page's wasm more than its budget allows): one click handler reads which header
    // or row was clicked from its data attributes.
    let markup = move || {
        use std::fmt::Write;
        let (col, ascending) = sort.get();
        let mut html = String::from("<thead><tr>");
        for (k, h) in header.iter().enumerate() {
            let arrow = if k != col {
                ""
            } else if ascending {
                " ▲"
            } else {
                " ▼"
            };
            let _ = write!(html, r#"<th><button data-col="{k}">{}{arrow}</button></th>"#, escape(h));
        }
        html.push_str("</tr></thead><tbody>");
        let open = opened.get();
        let first = page.get().min(pages() - 1) * TABLE_ROWS;
        let shown: Vec<usize> = ordered.with(|o| o.iter().skip(first).take(TABLE_ROWS).copied().collect());
        for r in shown.into_iter().map(&text) {
            let class = if r[0].parse::<usize>().ok() == open { r#" class="opened""# } else { "" };
            let _ = write!(html, r#"<tr data-number="{}"{class}>"#, escape(&r[0]));
            for c in &r {
                let _ = write!(html, "<td>{}</td>", escape(c));
            }
            html.push_str("</tr>");
        }
        html + "</tbody>"
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if let Some(k) =
            target.closest("[data-col]").ok().flatten().and_then(|h| h.get_attribute("data-col")).and_then(|k| k.parse::<usize>().ok())
        {
            sort.update(|s| *s = (k, if s.0 == k { !s.1 } else { true }));
            page.set(0);
        } else if let Some(n) =
            target.closest("tr[data-number]").ok().flatten().and_then(|r| r.get_attribute("data-number")).and_then(|n| n.parse().ok())
        {
            opened.set(Some(n));
        }
    };
    let e2 = e.clone();
    view! {
        <div class="row">
            <label>"State "
                <select id="study-state-filter" on:change=move |ev| { state_filter.set(event_target_value(&ev)); page.set(0); }>
                    <option value="">"all"</option>
                    {["COMPLETE", "PRUNED", "FAIL", "RUNNING", "WAITING"].map(|s| view! { <option value=s>{s}</option> }).collect_view()}
                </select>
            </label>
            <span class="hint">"Click a column to sort by it, a row to see its intermediate values."</span>
        </div>
        <div class="row">
            <span id="study-trials-shown">{move || {
                let n = ordered.with(Vec::len);
                let first = page.get().min(pages() - 1) * TABLE_ROWS;
                if n == 0 { "No trial in this state.".to_string() } else { format!("Trials {}–{} of {n}", first + 1, (first + TABLE_ROWS).min(n)) }
            }}</span>
            <Show when=move || { pages() > 1 }>
                <button class="small" id="study-trials-previous" disabled=move || page.get() == 0 on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>"Previous"</button>
                <button class="small" id="study-trials-next" disabled=move || { page.get() + 1 >= pages() } on:click=move |_| page.update(|p| *p += 1)>"Next"</button>
            </Show>
        </div>
        <div class="table-scroll"><table id="study-trials" inner_html=markup on:click=on_click></table></div>
        {move || opened.get().map(|n| {
            let e = e2.clone();
            view! {
                <SvgFigure id="study-trial-curve" file="study-trial-curve" caption=move || view! { <span>{format!("Trial {n}.")}</span> } height=H label="One trial's intermediate values">
                    <g inner_html=move || charts::trial_curve_chart(&e, n)></g>
                </SvgFigure>
            }
        })}
    }
    .into_any()
}
