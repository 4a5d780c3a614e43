//! Lesson 1's settings, a playground: the function (three textbook ones, or one drawn by hand
//! on its own small chart), the noise, the acquisition with UCB's κ, the guessing mode, the
//! lengthscale (fitted or pinned), the points the student added (each removable) and a new
//! random start. Every control writes the lesson's link (`engine::lessons::gp_ei`), from
//! which the worker recomputes the frames; each edit reads the setting being written, never a
//! signal derived from the link (a memo read inside `link.update` panics the page).

use leptos::prelude::*;

use super::gp_ei::{LATEST, LIVE_MS};
use super::shell::{hidden, AddValue};
use crate::app::platform::browser::now_ms;
use hpo_engine::lessons::gp_ei::{
    grid, Acquisition, GpEiSetting, Objective, DEFAULT_KAPPA, DRAWN_RANGE, KAPPA_RANGE, KNOTS, LENGTHSCALE_RANGE, MAX_ADDED, MAX_NOISE,
};
use hpo_engine::lessons::{Lesson, LessonLink};

/// Writes the lesson's setting in the link.
fn edit(link: RwSignal<LessonLink>, f: impl FnOnce(&mut GpEiSetting)) {
    link.update(|l| {
        if let Lesson::GpEi(s) = &mut l.lesson {
            f(s)
        }
    })
}

/// The drawing a function starts from when the student picks "draw your own": the current
/// function at the drawing's points, scaled into [`DRAWN_RANGE`].
fn drawing_of(objective: &Objective) -> Vec<f64> {
    let xs: Vec<f64> = (0..KNOTS).map(|k| k as f64 / (KNOTS - 1) as f64).collect();
    let values: Vec<f64> = xs.iter().map(|&x| objective.value(x)).collect();
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let span = (hi - lo).max(1e-12);
    values.iter().map(|v| ((DRAWN_RANGE.0 + (v - lo) / span * (DRAWN_RANGE.1 - DRAWN_RANGE.0)) * 100.0).round() / 100.0).collect()
}

/// The settings beside lesson 1's charts.
#[component]
pub fn Playground(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
    /// The lesson's setting, from the link.
    setting: Memo<GpEiSetting>,
    /// The lengthscale the GP fitted at the step shown (where a pinned one starts).
    fitted_ls: Signal<f64>,
) -> impl IntoView {
    let log_ls = move || setting.get().lengthscale.unwrap_or_else(|| fitted_ls.get()).log10();
    let kappa = move || match setting.get().acquisition {
        Acquisition::Ucb(k) => Some(k),
        _ => None,
    };
    view! {
        <Show when=move || !hidden(link, "lengthscale")>
            <div class="row" id="lesson-playground">
                <label>"function "
                    <select id="lesson-function" prop:value=move || setting.get().objective.link_name().to_string()
                        on:change=move |ev| {
                            let name = event_target_value(&ev);
                            edit(link, |s| {
                                s.objective = match name.as_str() {
                                    "drawn" => Objective::Drawn(drawing_of(&s.objective)),
                                    other => Objective::NAMED.into_iter().find(|o| o.link_name() == other).unwrap_or_default(),
                                };
                                s.step = 0;
                                s.guesses.clear();
                            })
                        }>
                        {Objective::NAMED.into_iter().map(|o| view! { <option value=o.link_name()>{o.title()}</option> }).collect_view()}
                        <option value="drawn">"draw your own"</option>
                    </select>
                </label>
                <label>"noise "
                    <input type="range" id="lesson-noise" min="0" max=MAX_NOISE step="0.01" aria-label="noise, as a share of the function's range"
                        prop:value=move || setting.get().noise.to_string()
                        on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                            let v = (v.clamp(0.0, MAX_NOISE) * 100.0).round() / 100.0;
                            edit(link, |s| s.noise = v)
                        } }/>
                    <span id="lesson-noise-value">{move || format!(" {:.0} % of its range", 100.0 * setting.get().noise)}</span>
                </label>
                <label>"acquisition "
                    <select id="lesson-acq" prop:value=move || setting.get().acquisition.link_name().to_string()
                        on:change=move |ev| {
                            let name = event_target_value(&ev);
                            edit(link, |s| s.acquisition = Acquisition::ALL.into_iter().find(|a| a.link_name() == name).unwrap_or_default())
                        }>
                        <option value="ei">"expected improvement (EI)"</option>
                        <option value="pi">"probability of improvement (PI)"</option>
                        <option value="ucb">"lower confidence bound (UCB)"</option>
                        <option value="ts">"Thompson sampling"</option>
                    </select>
                </label>
                <Show when=move || kappa().is_some()>
                    <label>"κ = "
                        <input type="range" id="lesson-kappa" min=KAPPA_RANGE.0 max=KAPPA_RANGE.1 step="0.1" aria-label="UCB's κ: how many standard deviations below the mean"
                            prop:value=move || kappa().unwrap_or(DEFAULT_KAPPA).to_string()
                            on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                                let v = (v.clamp(KAPPA_RANGE.0, KAPPA_RANGE.1) * 10.0).round() / 10.0;
                                edit(link, |s| s.acquisition = Acquisition::Ucb(v))
                            } }/>
                        <span id="lesson-kappa-value">{move || kappa().map(|k| format!(" {k:.1}"))}</span>
                    </label>
                </Show>
                <label class="check"><input type="checkbox" id="lesson-guess" prop:checked=move || setting.get().guessing
                    on:change=move |ev| { let on = event_target_checked(&ev); edit(link, |s| { s.guessing = on; if !on { s.guesses.clear() } }) }/>
                    " guess each next pick first (click the chart)"</label>
            </div>
            <Show when=move || matches!(setting.get().objective, Objective::Drawn(_))>
                <DrawnFunction link=link setting=setting/>
            </Show>
            <div class="row" id="lesson-lengthscale">
                <label class="check"><input type="checkbox" id="lesson-ls-fit" prop:checked=move || setting.get().lengthscale.is_none()
                    on:change=move |ev| {
                        let fit = event_target_checked(&ev);
                        let l = ((fitted_ls.get_untracked() * 1000.0).round() / 1000.0).clamp(LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1);
                        edit(link, |s| s.lengthscale = if fit { None } else { Some(l) })
                    }/>
                    " fit the lengthscale (the most probable given the points and a prior)"</label>
                <label>"or pin it: ℓ = "
                    <input type="range" id="lesson-ls" min=LENGTHSCALE_RANGE.0.log10() max=LENGTHSCALE_RANGE.1.log10() step="0.05"
                        prop:value=move || log_ls().to_string() prop:disabled=move || setting.get().lengthscale.is_none()
                        aria-label="lengthscale (log scale)"
                        on:input=move |ev| { if let Ok(t) = event_target_value(&ev).parse::<f64>() {
                            let l = ((10f64.powf(t) * 1000.0).round() / 1000.0).clamp(LENGTHSCALE_RANGE.0, LENGTHSCALE_RANGE.1);
                            edit(link, |s| s.lengthscale = Some(l))
                        } }/>
                    <span id="lesson-ls-value">{move || format!(" {:.3}", setting.get().lengthscale.unwrap_or_else(|| fitted_ls.get()))}</span>
                </label>
                <AddValue label="add a point at x = " input_id="lesson-add-x" placeholder="0 to 1" valid=|x| (0.0..=1.0).contains(&x)
                    add=Callback::new(move |x: f64| {
                        let x = (x * 1000.0).round() / 1000.0;
                        edit(link, |s| if s.added.len() < MAX_ADDED && !s.added.contains(&x) { s.added.push(x) });
                    })
                    added="my points" has_added=Signal::derive(move || !setting.get().added.is_empty())
                    clear=Callback::new(move |()| edit(link, |s| s.added.clear()))
                    reseed_label="new random start" reseed=Callback::new(move |()| edit(link, |s| { s.seed += 1; s.step = 0; s.guesses.clear() }))/>
            </div>
            <ul id="lesson-points" class="lesson-points">
                {move || setting.get().added.into_iter().enumerate().map(|(k, x)| view! {
                    <li>{format!("x = {x:.3} ")}
                        <button class="lesson-point-remove" aria-label=format!("remove the point at x = {x:.3}")
                            on:click=move |_| edit(link, |s| if k < s.added.len() { s.added.remove(k); })>"remove"</button>
                    </li>
                }).collect_view()}
            </ul>
        </Show>
    }
}

/// Height of the drawing's chart.
const DRAW_H: f64 = 150.0;
/// Room around the drawing's plot.
const DRAW_PAD: f64 = 18.0;
/// Width of the drawing's view box (it scales to its column).
const DRAW_W: f64 = 420.0;

/// A drawn function's points on their own chart, y in [`DRAWN_RANGE`]: a press or a drag
/// moves the nearest point to the pointer (the lesson follows as it is drawn);
/// each point is also a slider for the keyboard (arrow keys, a tenth at a time).
#[component]
fn DrawnFunction(link: RwSignal<LessonLink>, setting: Memo<GpEiSetting>) -> impl IntoView {
    let knots = move || match setting.get().objective {
        Objective::Drawn(k) => k,
        _ => vec![0.0; KNOTS],
    };
    // The drawing while the pointer is down, written to the link when it lets go.
    let draft = RwSignal::new(None::<Vec<f64>>);
    let shown = move || draft.get().unwrap_or_else(knots);
    let sx = |k: usize| DRAW_PAD + k as f64 / (KNOTS - 1) as f64 * (DRAW_W - 2.0 * DRAW_PAD);
    let sy = |v: f64| DRAW_PAD + (DRAWN_RANGE.1 - v) / (DRAWN_RANGE.1 - DRAWN_RANGE.0) * (DRAW_H - 2.0 * DRAW_PAD);
    let at = move |ev: &leptos::ev::PointerEvent| -> Option<(usize, f64)> {
        let svg: web_sys::Element = event_target::<web_sys::Element>(ev).closest("svg").ok().flatten()?;
        let r = svg.get_bounding_client_rect();
        let scale = DRAW_W / r.width().max(1.0);
        let (x, y) = ((ev.client_x() as f64 - r.left()) * scale, (ev.client_y() as f64 - r.top()) * scale);
        let k = (((x - DRAW_PAD) / (DRAW_W - 2.0 * DRAW_PAD)) * (KNOTS - 1) as f64).round().clamp(0.0, (KNOTS - 1) as f64) as usize;
        let v = DRAWN_RANGE.1 - (y - DRAW_PAD) / (DRAW_H - 2.0 * DRAW_PAD) * (DRAWN_RANGE.1 - DRAWN_RANGE.0);
        Some((k, (v.clamp(DRAWN_RANGE.0, DRAWN_RANGE.1) * 100.0).round() / 100.0))
    };
    let write = move |d: Vec<f64>| {
        edit(link, |s| {
            s.objective = Objective::Drawn(d);
            s.step = 0;
            s.guesses.clear();
        })
    };
    // The lesson follows the drawing while it is drawn, at most every LIVE_MS.
    let last_sent = StoredValue::new(f64::NEG_INFINITY);
    let move_point = move |ev: &leptos::ev::PointerEvent| {
        if let Some((k, v)) = at(ev) {
            draft.update(|d| {
                let d = d.get_or_insert_with(knots);
                d[k] = v;
            });
            let now = now_ms();
            if now - last_sent.get_value() >= LIVE_MS {
                last_sent.set_value(now);
                if let Some(d) = draft.get_untracked() {
                    write(d);
                }
            }
        }
    };
    let commit = move || {
        if let Some(d) = draft.get_untracked() {
            draft.set(None);
            write(d);
        }
    };
    let nudge = move |k: usize, ev: leptos::ev::KeyboardEvent| {
        let by = match ev.key().as_str() {
            "ArrowUp" | "ArrowRight" => 0.1,
            "ArrowDown" | "ArrowLeft" => -0.1,
            _ => return,
        };
        ev.prevent_default();
        edit(link, |s| {
            if let Objective::Drawn(d) = &mut s.objective {
                d[k] = ((d[k] + by).clamp(DRAWN_RANGE.0, DRAWN_RANGE.1) * 100.0).round() / 100.0;
                s.step = 0;
                s.guesses.clear();
            }
        });
    };
    let xs = grid();
    view! {
        <figure class="lesson-draw">
            <svg id="lesson-draw" class="chart draggable" viewBox=format!("0 0 {DRAW_W} {DRAW_H}") role="group"
                aria-label="Your function: drag along the chart to draw it, or move a point with the arrow keys"
                on:pointerdown=move |ev: leptos::ev::PointerEvent| { ev.prevent_default(); move_point(&ev) }
                on:pointermove=move |ev: leptos::ev::PointerEvent| { if draft.get_untracked().is_some() { move_point(&ev) } }
                on:pointerup=move |_| commit() on:pointerleave=move |_| commit()>
                <rect x=DRAW_PAD y=DRAW_PAD width=DRAW_W - 2.0 * DRAW_PAD height=DRAW_H - 2.0 * DRAW_PAD fill="#f4f4f4" stroke="#999"/>
                <line x1=DRAW_PAD x2=DRAW_W - DRAW_PAD y1=sy(0.0) y2=sy(0.0) stroke="#ccc"/>
                {move || {
                    let k = shown();
                    let f = Objective::Drawn(k.clone());
                    let line = xs.iter().map(|&x| format!("{:.1},{:.1}", DRAW_PAD + x * (DRAW_W - 2.0 * DRAW_PAD), sy(f.value(x)))).collect::<Vec<_>>().join(" ");
                    view! {
                        <polyline points=line fill="none" stroke="#444" stroke-width="2"/>
                        {k.iter().enumerate().map(|(i, &v)| view! {
                            <circle class="draw-point" cx=sx(i) cy=sy(v) r="7" fill=LATEST stroke="#fff" stroke-width="1.5" tabindex="0" role="slider"
                                aria-label=format!("point {} of your function, at x = {:.2}", i + 1, i as f64 / (KNOTS - 1) as f64)
                                aria-valuemin=DRAWN_RANGE.0 aria-valuemax=DRAWN_RANGE.1 aria-valuenow=v
                                on:keydown=move |ev| nudge(i, ev)/>
                        }).collect_view()}
                    }
                }}
            </svg>
            <figcaption>"Your function: press and drag along the chart to draw it (21 points, joined by straight lines); the lesson follows, from step 0."</figcaption>
        </figure>
    }
}
