//! What every lesson is built from: the player (start, back, play / pause, step, speed), the
//! panels' hide switches as the link holds them, and [`worker_frames`], which computes a
//! lesson's frames in a worker. The lessons import this module; the Learn page
//! (`learn.rs`) imports the lessons.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use crate::app::platform::workers::{lesson_reply, LatestWorker, WorkerService};
use hpo_engine::lessons::{Lesson, LessonFrames, LessonJob, LessonLink, SPEEDS};
use hpo_protocol::ToWorker;

/// What a worker computed for a lesson: the key it was asked for, the frames, milliseconds.
pub type Computed<K, T> = Option<(K, Arc<T>, f64)>;

/// Asks a worker for `job(key)` whenever `key` changes (a newer request supersedes an older
/// one) and keeps the answer `extract` takes from it, or the error in words.
pub fn worker_frames<K, T>(
    key: Memo<K>,
    job: fn(K) -> LessonJob,
    extract: fn(LessonFrames) -> Option<T>,
) -> (RwSignal<Computed<K, T>>, RwSignal<Option<String>>)
where
    K: Clone + PartialEq + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    let all = RwSignal::new(None::<(K, Arc<T>, f64)>);
    let error = RwSignal::new(None::<String>);
    let worker = LatestWorker::new(lesson_reply);
    let workers = expect_context::<WorkerService>();
    Effect::new(move |_| {
        let k = key.get();
        if all.with_untracked(|a| a.as_ref().is_some_and(|(have, _, _)| *have == k)) {
            // Back to what is shown: an answer still computing is for another key.
            worker.forget();
            return;
        }
        let request = workers.next_request();
        let asked = k.clone();
        worker.ask(request, ToWorker::Lesson { request, job: job(k) }, move |result, ms| match result.map(extract) {
            Ok(Some(frames)) => {
                error.set(None);
                all.set(Some((asked.clone(), Arc::new(frames), ms)));
            }
            Ok(None) => {}
            Err(e) => error.set(Some(e)),
        });
    });
    (all, error)
}

/// What a lesson computed in a worker gets from its link: its setting, the step shown, the
/// frames with the milliseconds they took, and why they could not be computed.
pub struct WorkerLesson<S: Send + Sync + 'static, T: Send + Sync + 'static> {
    /// The lesson's setting, from the link.
    pub setting: Memo<S>,
    /// The step shown.
    pub step: Memo<usize>,
    /// Every frame of the setting, and how long the worker took.
    pub frames: Memo<Option<(Arc<T>, f64)>>,
    /// Why the frames could not be computed.
    pub error: RwSignal<Option<String>>,
    /// Whether the worker is computing the frames of a setting other than those shown (the
    /// shell's `aria-busy`: readers and tests wait for it).
    pub busy: Signal<bool>,
}

/// The prologue of every lesson whose frames a worker computes: its setting read from the
/// link (`setting` of the link's lesson, or the default when the link holds another), the
/// lesson's job (`Lesson::job`, the engine's: the worker is asked again only when it changes,
/// not at every step) and what the lesson takes from the reply.
pub fn worker_lesson<S, T>(
    link: RwSignal<LessonLink>,
    setting: fn(&Lesson) -> Option<S>,
    extract: fn(LessonFrames) -> Option<T>,
) -> WorkerLesson<S, T>
where
    S: Clone + Default + PartialEq + Send + Sync + 'static,
    T: PartialEq + Send + Sync + 'static,
{
    let setting = Memo::new(move |_| link.with(|l| setting(&l.lesson)).unwrap_or_default());
    let job = Memo::new(move |_| link.with(|l| l.lesson.job()));
    let (all, error) = worker_frames(job, |j| j, extract);
    let frames = Memo::new(move |_| all.with(|a| a.as_ref().map(|(_, f, ms)| (Arc::clone(f), *ms))));
    let step = Memo::new(move |_| link.with(|l| l.lesson.step()));
    let busy =
        Signal::derive(move || error.with(Option::is_none) && job.with(|j| all.with(|a| a.as_ref().is_none_or(|(have, _, _)| have != j))));
    WorkerLesson { setting, step, frames, error, busy }
}

/// A lesson's "add a value" row: a number field and an "add" button that hands `add` the
/// number when `valid` accepts it, and then empties the field; a button that removes what was
/// added and one that draws a new start (lessons 1 and 2).
#[component]
pub fn AddValue(
    /// The field's label ("add a point at x = ").
    label: &'static str,
    /// The field's id.
    input_id: &'static str,
    /// The field's hint.
    placeholder: &'static str,
    /// Whether a number may be added.
    valid: fn(f64) -> bool,
    /// Adds the number.
    add: Callback<f64>,
    /// What the user added ("my points").
    added: &'static str,
    /// Whether anything was added.
    has_added: Signal<bool>,
    /// Removes what was added.
    clear: Callback<()>,
    /// The new start ("new sample").
    reseed_label: &'static str,
    /// Draws a new start.
    reseed: Callback<()>,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    view! {
        <label>{label}
            <input id=input_id type="number" placeholder=placeholder prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))/>
        </label>
        <button id="lesson-add" on:click=move |_| {
            if let Some(v) = text.get_untracked().trim().parse::<f64>().ok().filter(|&v| valid(v)) {
                add.run(v);
                text.set(String::new());
            }
        }>"add"</button>
        <button id="lesson-clear" prop:disabled=move || !has_added.get() on:click=move |_| clear.run(())>{format!("remove {added}")}</button>
        <button id="lesson-reseed" on:click=move |_| reseed.run(())>{reseed_label}</button>
    }
}

/// A new seed for a lesson that is a seeded run (lessons 3, 4 and 6), from step 0: the seed is
/// read from the link being written, never from a signal derived from it. A memo of the link
/// read inside `link.update` reads the link while it is locked for writing; Leptos reports that
/// as a value already disposed and the page's module dies (the reseeds of lessons 3 and 4 did,
/// every time: their memo of the setting was read nowhere else, so it always had to compute).
pub fn next_seed(link: RwSignal<LessonLink>) {
    link.update(|l| {
        if let Lesson::Transfer(s) | Lesson::MultiFidelity(s) | Lesson::Pareto(_, s) = &mut l.lesson {
            s.seed += 1;
            s.step = 0;
        }
    })
}

/// Whether the link hides `panel`.
pub fn hidden(link: RwSignal<LessonLink>, panel: &'static str) -> bool {
    link.with(|l| l.hidden.contains(panel))
}

/// Start / back / play-pause / step / to the end / speed for a lesson with steps 0 ..= `last`.
#[component]
pub fn Player(
    /// The lesson's link, whose step and playing state the player changes.
    link: RwSignal<LessonLink>,
    /// The last step.
    last: Signal<usize>,
    /// Whether the frames of the lesson's setting are drawn: playing counts no step before
    /// (a `play=1` link on a slow machine would otherwise be at step 3 when its chart appears).
    drawn: Signal<bool>,
) -> impl IntoView {
    let step = Memo::new(move |_| link.with(|l| l.lesson.step()));
    // `last` may derive from the link: read it before taking the link for writing.
    let set_step = move |k: usize| {
        let k = k.min(last.get_untracked());
        link.update(|l| l.lesson = l.lesson.with_step(k))
    };
    let timer = StoredValue::new_local(None::<IntervalHandle>);
    let stop_timer = move || {
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        timer.set_value(None);
    };
    // (Re)starts the timer whenever playing or the speed changes.
    let playing = Memo::new(move |_| link.with(|l| (l.playing, l.speed)));
    Effect::new(move |_| {
        let (on, speed) = playing.get();
        stop_timer();
        if !on {
            return;
        }
        let tick = move || {
            if !drawn.get_untracked() {
                // Still playing: the first step counts once the frames are drawn.
                return;
            }
            let (k, end) = (step.get_untracked(), last.get_untracked());
            if k >= end {
                link.update(|l| l.playing = false);
            } else {
                set_step(k + 1);
            }
        };
        if let Ok(h) = set_interval_with_handle(tick, Duration::from_millis(1000 / speed.max(1) as u64)) {
            timer.set_value(Some(h));
        }
    });
    on_cleanup(stop_timer);
    let pause = move || link.update(|l| l.playing = false);
    // Comparisons stay out of the view! macro, which would read `>` as the end of a tag.
    let at_end = move || step.get() >= last.get();
    let toggle = move |_| {
        let end = last.get_untracked();
        link.update(|l| {
            if !l.playing && l.lesson.step() >= end {
                l.lesson = l.lesson.with_step(0);
            }
            l.playing = !l.playing;
        })
    };
    view! {
        <div class="player" role="group" aria-label="Step through the lesson">
            <button id="lesson-start" title="back to the start" on:click=move |_| { pause(); set_step(0) }>"« start"</button>
            <button id="lesson-back" title="one step back" aria-label="one step back" prop:disabled=move || step.get() == 0
                on:click=move |_| { pause(); set_step(step.get_untracked().saturating_sub(1)) }>"◀ back"</button>
            <button id="lesson-play" class="primary" on:click=toggle>{move || if link.with(|l| l.playing) { "‖ pause" } else { "▶ play" }}</button>
            <button id="lesson-step" title="one step forward" prop:disabled=at_end
                on:click=move |_| { pause(); set_step(step.get_untracked() + 1) }>"step ▶"</button>
            <button id="lesson-end" title="to the last step" prop:disabled=at_end
                on:click=move |_| { pause(); set_step(last.get_untracked()) }>"end »"</button>
            <label>"speed "
                <select id="lesson-speed" on:change=move |ev| { if let Ok(s) = event_target_value(&ev).parse::<u32>() { link.update(|l| l.speed = s) } }>
                    {SPEEDS.iter().map(|&s| view! { <option value=s.to_string() selected=move || link.with(|l| l.speed == s)>{format!("{s} step{}/s", if s == 1 { "" } else { "s" })}</option> }).collect_view()}
                </select>
            </label>
            <span id="lesson-step-label" aria-live="polite">{move || format!("step {} of {}", step.get().min(last.get()), last.get())}</span>
        </div>
    }
}

/// The frame every lesson stands in, in two columns on a wide screen so that a projector shows
/// the step, its controls and the main chart at once: beside the charts, the heading, this
/// step in words, the player with the lesson's own buttons, its settings (`side`), the line
/// of numbers and the idea of the lesson; then why its frames failed, or what is being
/// computed while they are, and its charts (`children`). On a narrow screen the columns stack
/// in that order. Each part that the link hides ("text", "controls", "numbers") is left out.
#[component]
pub fn LessonShell(
    /// The lesson's link.
    link: RwSignal<LessonLink>,
    /// The section's id.
    id: &'static str,
    /// What the lesson is about, in one paragraph.
    intro: &'static str,
    /// The step shown, in words.
    explain: Signal<Option<String>>,
    /// The last step, where it depends on the setting (lesson 5); otherwise the lesson's own
    /// from `engine::lessons::LESSONS`.
    #[prop(optional)]
    last: Option<Signal<usize>>,
    /// Buttons beside the player (another seed, another task).
    #[prop(optional)]
    controls: Option<ViewFn>,
    /// The lesson's settings, under the player.
    #[prop(optional)]
    side: Option<ViewFn>,
    /// Why the frames could not be computed.
    error: Signal<Option<String>>,
    /// What is being computed, while it is.
    #[prop(optional)]
    computing: Option<Signal<Option<&'static str>>>,
    /// The line of numbers under the settings.
    numbers: Signal<Option<String>>,
    /// Whether the picture is about to change (`aria-busy`, for readers and tests).
    #[prop(optional)]
    busy: Option<Signal<bool>>,
    /// Whether the lesson's frames have arrived from its worker (the player waits for them);
    /// drawn at once when not given (a lesson computed on the page).
    #[prop(optional)]
    drawn: Option<Signal<bool>>,
    /// The race counted over seeds, under the last step's sentence ([`super::seed_strip`]).
    #[prop(optional)]
    strip: Option<ViewFn>,
    /// The lesson's charts.
    children: Children,
) -> impl IntoView {
    let controls = StoredValue::new(controls);
    let side = StoredValue::new(side);
    let strip = StoredValue::new(strip);
    // The heading and the last step are the lesson's facts in the engine's table, not the view's.
    let def = link.with_untracked(|l| l.lesson.def());
    let last = last.unwrap_or_else(|| Signal::derive(move || def.last_step.unwrap_or(0)));
    let drawn = drawn.unwrap_or_else(|| Signal::derive(|| true));
    let title = def.title;
    let player = NodeRef::<leptos::html::Div>::new();
    reserve_player_height(player);
    view! {
        <section class="panel lesson" id=id aria-busy=move || busy.map(|b| if b.get() { "true" } else { "false" })>
            <div class="lesson-side">
                <h2>{title}</h2>
                <Show when=move || !hidden(link, "text")>
                    <div id="lesson-text" class="lesson-text">
                        <p id="lesson-explain" aria-live="polite">{move || explain.get()}</p>
                        {move || (link.with(|l| l.lesson.step()) >= last.get()).then(|| strip.with_value(|s| s.as_ref().map(ViewFn::run)))}
                    </div>
                </Show>
                <Show when=move || !hidden(link, "controls")>
                    <div class="lesson-player" node_ref=player>
                        <Player link=link last=last drawn=drawn/>
                        {move || controls.with_value(|c| c.as_ref().map(|c| view! { <div class="row">{c.run()}</div> }))}
                    </div>
                </Show>
                <div class="lesson-settings">{move || side.with_value(|c| c.as_ref().map(ViewFn::run))}</div>
                <Show when=move || !hidden(link, "numbers")>
                    <p id="lesson-numbers" class="numbers">{move || numbers.get()}</p>
                </Show>
                <Show when=move || !hidden(link, "text")>
                    <p id="lesson-intro" class="lesson-intro">{intro}</p>
                </Show>
            </div>
            <div class="lesson-charts">
                {move || error.get().map(|e| view! { <p class="msg error">{e}</p> })}
                {move || computing.and_then(|c| c.get()).map(|what| view! { <p class="hint" id="lesson-computing">{what}</p> })}
                {children()}
            </div>
        </section>
    }
}

/// Keeps the player's height in the page's `--player-h` (a `ResizeObserver`), which a phone's
/// layout reserves below the page's scrolling area (`www/style.css`): the player bar is fixed
/// at the bottom of the screen and the lesson scrolls above it, so no chart ever passes under
/// it. Removed when the lesson goes.
fn reserve_player_height(node: NodeRef<leptos::html::Div>) {
    use wasm_bindgen::JsCast;
    let root = || {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    };
    crate::app::platform::browser::watch_size(node, move |el| {
        if let (Some(r), Some(el)) = (root(), el.dyn_ref::<web_sys::HtmlElement>()) {
            let _ = r.style().set_property("--player-h", &format!("{}px", el.offset_height()));
        }
    });
    on_cleanup(move || {
        if let Some(r) = root() {
            let _ = r.style().remove_property("--player-h");
        }
    });
}
