//! The Setup section (2. on the page): what to run — mode, objectives, tasks, methods, seeds and length, transfer, the
//! race's settings. It edits the spec through the engine's setup rules (`engine::setup`).

use leptos::prelude::*;

use crate::app::state::{DataState, Level, Messages};
use hpo_engine::benchmark::Direction;
use hpo_engine::fidelity::targets::RaceTargets;
use hpo_engine::method_entry::RunKind;
use hpo_engine::spec::ExperimentSpec;
use hpo_engine::spec::{RegretScale, TransferMode, MAX_ITERATIONS, MAX_RACE_BUDGET, MAX_SEEDS};

fn parse_in<T: std::str::FromStr + PartialOrd>(s: &str, lo: T, hi: T) -> Option<T> {
    s.trim().parse::<T>().ok().filter(|v| *v >= lo && *v <= hi)
}

/// Objective, tasks, methods, seeds, iterations, transfer mode: one child component each.
/// Every edit is a method of the engine's `ExperimentSpec` (`engine/setup.rs`); these
/// components only wire inputs to them and show what they say.
#[component]
pub fn SetupPanel(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The messages at the top of the page.
    messages: Messages,
    /// "none" was pressed under Tasks.
    no_tasks: RwSignal<bool>,
    /// Reads the loaded data again with the setup's options (a new direction changes the repaired values).
    reread: Callback<()>,
) -> impl IntoView {
    view! {
        <ModeSwitches spec=spec data=data messages=messages/>
        <ObjectiveChooser spec=spec data=data messages=messages reread=reread/>
        <TaskChooser spec=spec data=data no_tasks=no_tasks/>
        <MethodChooser spec=spec/>
        <RunLength spec=spec messages=messages/>
    }
}

/// Whether the setup is a race, as a memo: views switched on it are rebuilt only when the
/// mode flips, not on every edit of the setup.
fn race_mode(spec: RwSignal<hpo_engine::spec::ExperimentSpec>) -> impl Fn() -> bool + Copy {
    let memo = Memo::new(move |_| spec.with(|s| s.run_kind() == RunKind::Race));
    move || memo.get()
}

/// Race on/off and one/several objectives.
#[component]
fn ModeSwitches(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The messages at the top of the page.
    messages: Messages,
) -> impl IntoView {
    let multi = move || !spec.with(|s| s.objectives.is_empty());
    let race = race_mode(spec);
    // A race needs learning curves; switching keeps the methods that exist in the new mode.
    let set_race = move |on: bool| {
        let Some(b) = data.bench.get_untracked() else { return };
        let mut said = Vec::new();
        spec.update(|s| said = s.switch_race(&b, on));
        messages.tell(said);
    };
    // Switching modes keeps the methods that fit the new number of objectives.
    let set_multi = move |on: bool| {
        let Some(b) = data.bench.get_untracked() else { return };
        let mut said = Vec::new();
        spec.update(|s| said = s.switch_multi_objective(&b, on));
        messages.tell(said);
    };
    view! {
        <label class="check" title="Gray-box HPO on learning curves: train configurations a budget unit at a time (Wistuba et al. 2022)"
            class:disabled=move || data.bench.with(|b| b.as_ref().is_none_or(|b| b.curve_steps().is_none()))>
            <input id="race-mode" type="checkbox" prop:checked=race on:change=move |ev| set_race(event_target_checked(&ev))/>
            "Multi-fidelity race (DyHPO, Hyperband family; needs learning curves)"
        </label>
        <label class="check" title="Optimise two or more metrics jointly (Salinas et al. 2020, §5.2)" style:display=move || if race() { "none" } else { "" }>
            <input id="multi-objective" type="checkbox" prop:checked=multi on:change=move |ev| set_multi(event_target_checked(&ev))/>
            "Several objectives (Pareto front, hypervolume error)"
        </label>
    }
}

/// The objective and its direction, or the several objectives with theirs.
#[component]
fn ObjectiveChooser(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// The messages at the top of the page.
    messages: Messages,
    /// Reads the loaded data again with the setup's options.
    reread: Callback<()>,
) -> impl IntoView {
    let multi = move || !spec.with(|s| s.objectives.is_empty());
    let toggle_objective = move |name: String| {
        let mut message = None;
        spec.update(|s| message = s.toggle_objective(&name));
        messages.tell(message);
    };
    view! {
        {move || (!multi()).then(|| view! {
            <div class="row">
                <label>"Objective "
                    <select id="objective" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        spec.update(|s| s.objective = if v.is_empty() { None } else { Some(v) });
                    }>
                        {move || data.bench.get().map(|b| {
                            let current = spec.get().objective.unwrap_or_else(|| b.metrics[b.objective].name.clone());
                            b.metrics.iter().map(|m| {
                                let selected = m.name == current;
                                view! { <option value=m.name.clone() selected=selected>{format!("{} ({})", m.name, m.direction.as_str())}</option> }
                            }).collect_view()
                        })}
                    </select>
                </label>
                <label>"Direction "
                    <select id="direction" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        spec.update(|s| s.direction = match v.as_str() { "min" => Some(Direction::Minimize), "max" => Some(Direction::Maximize), _ => None });
                        // Repaired values depend on which way is worse, which flips with the direction.
                        if data.repaired.get_untracked() && spec.with_untracked(|s| s.missing.depends_on_direction()) {
                            reread.run(());
                        }
                    } prop:value=move || spec.get().direction.map(|d| d.as_str().to_string()).unwrap_or_default()>
                        <option value="">"metric's own"</option>
                        <option value="min">"minimise"</option>
                        <option value="max">"maximise"</option>
                    </select>
                </label>
            </div>
        })}
        {move || multi().then(|| view! {
            <fieldset id="objectives">
                <legend>"Objectives (two or more)"</legend>
                {move || data.bench.get().map(|b| {
                    let chosen = spec.get().objectives;
                    b.metrics.iter().map(|m| {
                        let name = m.name.clone();
                        let current = chosen.iter().find(|o| o.metric == name).cloned();
                        let (n1, n2) = (name.clone(), name.clone());
                        let own = m.direction.as_str();
                        view! {
                            <div>
                                <label class="check"><input type="checkbox" class="mo-metric" value=name.clone() prop:checked=current.is_some()
                                    on:change=move |_| toggle_objective(n1.clone())/>{name.clone()}</label>
                                <select class="mo-direction" disabled=current.is_none()
                                    prop:value=current.as_ref().and_then(|o| o.direction).map(|d| d.as_str().to_string()).unwrap_or_default()
                                    on:change=move |ev| {
                                        let v = event_target_value(&ev);
                                        let d = match v.as_str() { "min" => Some(Direction::Minimize), "max" => Some(Direction::Maximize), _ => None };
                                        spec.update(|s| if let Some(o) = s.objectives.iter_mut().find(|o| o.metric == n2) { o.direction = d; });
                                    }>
                                    <option value="">{format!("metric's own ({own})")}</option>
                                    <option value="min">"minimise"</option>
                                    <option value="max">"maximise"</option>
                                </select>
                            </div>
                        }
                    }).collect_view()
                })}
            </fieldset>
        })}
    }
}

/// The target tasks.
#[component]
fn TaskChooser(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The loaded data.
    data: DataState,
    /// "none" was pressed under Tasks.
    no_tasks: RwSignal<bool>,
) -> impl IntoView {
    let task_names = move || data.bench.get().map(|b| b.tasks.iter().map(|t| t.name.clone()).collect::<Vec<_>>()).unwrap_or_default();
    let none = no_tasks;
    // After "none", the first box checked is the one task chosen.
    let toggle_task = move |name: String| {
        if none.get_untracked() {
            none.set(false);
            spec.update(|s| s.tasks = vec![name]);
            return;
        }
        let all = task_names();
        spec.update(|s| s.toggle_task(&name, &all));
    };
    // Other data: its tasks start all chosen.
    Effect::new(move |_| {
        data.bench.track();
        none.set(false);
    });
    view! {
        <fieldset id="tasks">
            <legend>"Tasks "
                <button class="small" id="tasks-all" on:click=move |_| { none.set(false); spec.update(|s| s.tasks.clear()) }>"all"</button>
                " "
                <button class="small" id="tasks-none" on:click=move |_| none.set(true)>"none"</button>
            </legend>
            {move || {
                let chosen = spec.get().tasks;
                let cleared = none.get();
                task_names().into_iter().map(|t| {
                    let checked = !cleared && (chosen.is_empty() || chosen.contains(&t));
                    let name = t.clone();
                    view! {
                        <label class="check"><input type="checkbox" value=t.clone() prop:checked=checked on:change=move |_| toggle_task(name.clone())/>{t}</label>
                    }
                }).collect_view()
            }}
        </fieldset>
    }
}

/// The methods the registry offers for this mode and number of objectives.
#[component]
fn MethodChooser(
    /// The setup, whose method list this edits.
    spec: RwSignal<hpo_engine::spec::ExperimentSpec>,
) -> impl IntoView {
    let multi = move || !spec.with(|s| s.objectives.is_empty());
    let race = race_mode(spec);
    let method_box = move |name: &'static str, summary: &'static str| {
        view! {
            <label class="check chip" title=summary>
                <input type="checkbox" value=name prop:checked=move || spec.get().methods.iter().any(|x| x == name)
                    on:change=move |_| spec.update(|s| s.toggle_method(name))/>
                {name}
            </label>
        }
    };
    view! {
        // Every offered method in view at once (names; what each is on hover and in the list
        // under them), so that no checked method hides in a scroll box.
        <fieldset id="methods">
            <legend>"Methods"</legend>
            {move || {
                // Rebuilt when the mode or the number of objectives flips.
                let (_, _) = (race(), multi());
                spec.with_untracked(|s| s.offered_methods().map(|m| method_box(m.name, m.summary)).collect_view())
            }}
            <details id="methods-about">
                <summary>"what each method is"</summary>
                <dl>{move || {
                    let (_, _) = (race(), multi());
                    spec.with_untracked(|s| s.offered_methods().map(|m| view! { <dt>{m.name}</dt><dd>{m.summary}</dd> }).collect_view())
                }}</dl>
            </details>
        </fieldset>
    }
}

/// Seeds, run length (iterations or budget units) and the transfer protocol.
#[component]
fn RunLength(
    /// The setup.
    spec: RwSignal<ExperimentSpec>,
    /// The messages at the top of the page.
    messages: Messages,
) -> impl IntoView {
    let race = race_mode(spec);
    let number_input = move |id: &'static str,
                             label: &'static str,
                             get: fn(&hpo_engine::spec::ExperimentSpec) -> String,
                             set: fn(&mut hpo_engine::spec::ExperimentSpec, &str) -> bool,
                             hint: String| {
        let invalid = RwSignal::new(false);
        view! {
            <label>{label}" "
                <input id=id type="number" class:invalid=move || invalid.get() title=hint.clone()
                    prop:value=move || get(&spec.get())
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        let mut ok = false;
                        spec.update(|s| ok = set(s, &v));
                        invalid.set(!ok);
                        if !ok { messages.say(Level::Warning, format!("{label}: '{v}' is not valid ({hint}); kept the previous value")); }
                    }/>
            </label>
        }
    };
    view! {
        <div class="row">
            {number_input("seeds", "Seeds", |s| s.seeds.to_string(), |s, v| parse_in(v, 1, MAX_SEEDS).map(|n| s.seeds = n).is_some(), format!("1 to {MAX_SEEDS}"))}
            {number_input("first-seed", "First seed", |s| s.first_seed.to_string(), |s, v| parse_in(v, 0, u64::MAX).map(|n| s.first_seed = n).is_some(), "a non-negative integer".into())}
            {move || if race() {
                number_input("race-budget", "Budget units per run", |s| s.race_budget.map(|b| b.to_string()).unwrap_or_default(),
                    |s, v| parse_in(v, 1, MAX_RACE_BUDGET).map(|n| s.race_budget = Some(n)).is_some(),
                    format!("1 to {MAX_RACE_BUDGET}; one unit trains one configuration one step further")).into_any()
            } else {
                number_input("iters", "Iterations", |s| s.iterations.to_string(), |s, v| parse_in(v, 1, MAX_ITERATIONS).map(|n| s.iterations = n).is_some(), format!("1 to {MAX_ITERATIONS}")).into_any()
            }}
            <label style:display=move || if race() { "none" } else { "" }>"Transfer "
                <select id="transfer" prop:value=move || spec.get().transfer.as_str() on:change=move |ev| {
                    let v = event_target_value(&ev);
                    spec.update(|s| s.transfer = if v == "none" { TransferMode::None } else { TransferMode::LeaveOneTaskOut });
                }>
                    <option value="loto">"leave one task out"</option>
                    <option value="none">"none"</option>
                </select>
            </label>
            <label style:display=move || if race() { "" } else { "none" } title="Normalised: each task's regret divided by the regret of its median configuration (0 best, 1 median), so tasks with different scales weigh alike in the mean and no exploded run sets the scale. Automatic normalises when the tasks' ranges differ by more than 10×.">"Regret "
                <select id="regret-scale" prop:value=move || spec.get().regret.map_or("auto", RegretScale::as_str) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    spec.update(|s| s.regret = RegretScale::parse(&v));
                }>
                    <option value="auto">"automatic"</option>
                    <option value="raw">"metric units"</option>
                    <option value="norm">"normalised per task"</option>
                </select>
            </label>
            <label style:display=move || if race() { "" } else { "none" } title="What the surrogates of DyHPO, GPB and the GP baseline fit: the losses as observed (the papers' choice), or their Gaussian-copula transform ψ (Salinas et al. 2020), under which one exploded value cannot flatten the differences among the others. Rank-based methods (Hyperband, ASHA, BOHB, DEHB, RS) pick the same either way.">"Surrogates fit "
                <select id="race-targets" prop:value=move || spec.get().targets.as_str() on:change=move |ev| {
                    let v = event_target_value(&ev);
                    spec.update(|s| s.targets = RaceTargets::parse(&v).unwrap_or_default());
                }>
                    <option value="raw">"losses as observed"</option>
                    <option value="copula">"copula transform ψ"</option>
                </select>
            </label>
        </div>
    }
}
