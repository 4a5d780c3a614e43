//! The Learn section: a list of lessons, the lesson of the link, a player (start, back, play /
//! pause, step, speed) shared by all lessons, and switches that hide panels — everything in
//! the URL (`engine::lessons::LessonLink`), so that a teacher's link opens exactly what they
//! chose. One file per lesson, named as the engine's (`engine::lessons`): [`gp_ei`], [`copula`],
//! [`transfer`], [`multi_fidelity`], [`designs`] and [`pareto`]; what they share is the shell
//! ([`shell`]), the lessons' small SVG plot ([`plot`]) and the strip of a race counted over
//! seeds ([`seed_strip`]).

pub mod copula;
pub mod designs;
pub mod gp_ei;
pub mod gp_ei_playground;
pub mod multi_fidelity;
pub mod pareto;
pub mod plot;
pub mod seed_strip;
pub mod shell;
pub mod transfer;

use leptos::prelude::*;

use super::browser;
use copula::CopulaLesson;
use designs::DesignLesson;
use gp_ei::GpEiLesson;
use hpo_engine::lessons::{LessonKind, LessonLink, LESSONS};
use multi_fidelity::MultiFidelityLesson;
use pareto::ParetoLesson;
use shell::hidden;
use transfer::TransferLesson;

/// The Learn page: the list of lessons and the lesson of the link (none when the link named a
/// lesson that does not exist: the page says so and shows the list).
#[component]
pub fn LearnPage(
    /// The lesson the link opened.
    initial: Option<LessonLink>,
) -> impl IntoView {
    let Some(initial) = initial else {
        return view! {
            <main class="learn">
                <LessonList current=Signal::derive(|| None)/>
                <section class="panel lesson" id="lesson-none">
                    <h2>"Choose a lesson"</h2>
                    <p>"The link names no lesson that exists; each lesson on the list opens with its own link."</p>
                </section>
            </main>
        }
        .into_any();
    };
    let link = RwSignal::new(initial);
    Effect::new(move |_| browser::replace_query(&link.get().to_query()));
    let kind = Memo::new(move |_| link.with(|l| l.lesson.kind()));
    view! {
        <main class="learn">
            <LessonList current=Signal::derive(move || Some(kind.get()))/>
            {move || match kind.get() {
                LessonKind::GpEi => view! { <GpEiLesson link=link/> }.into_any(),
                LessonKind::Copula => view! { <CopulaLesson link=link/> }.into_any(),
                LessonKind::Transfer => view! { <TransferLesson link=link/> }.into_any(),
                LessonKind::MultiFidelity => view! { <MultiFidelityLesson link=link/> }.into_any(),
                LessonKind::Designs => view! { <DesignLesson link=link/> }.into_any(),
                LessonKind::Pareto => view! { <ParetoLesson link=link/> }.into_any(),
            }}
            <HideSwitches link=link/>
        </main>
    }
    .into_any()
}

/// The six lessons in one row of links above the lesson (numbered, short names; the full
/// title on hover and in the lesson's heading); `current` is marked.
#[component]
fn LessonList(current: Signal<Option<LessonKind>>) -> impl IntoView {
    view! {
        <nav id="lesson-list" aria-label="Lessons">
            <span class="lesson-list-title">"Lessons"</span>
            <ol>
                {LESSONS.iter().enumerate().map(|(k, d)| {
                    let href = format!("?{}", LessonLink::new((d.start)()).to_query());
                    view! {
                        <li><a href=href title=d.title aria-current=move || (current.get() == Some(d.kind)).then_some("page")>{format!("{} {}", k + 1, d.short)}</a></li>
                    }
                }).collect_view()}
            </ol>
            <span class="hint">"Each lesson is a link: its step, speed and hidden parts are in the address, ready to send to a class."</span>
        </nav>
    }
}

/// Checkboxes that show or hide each panel of the lesson (and so build a teacher's link).
#[component]
fn HideSwitches(link: RwSignal<LessonLink>) -> impl IntoView {
    let panels = Memo::new(move |_| link.with(|l| l.lesson.panels()));
    view! {
        <details class="panel wide" id="lesson-hide">
            <summary>"Show or hide parts of this lesson (for a class)"</summary>
            <div class="row">
                {move || panels.get().iter().map(|&p| view! {
                    <label class="check">
                        <input type="checkbox" id=format!("show-{p}") prop:checked=move || !hidden(link, p)
                            on:change=move |ev| {
                                let show = event_target_checked(&ev);
                                link.update(|l| { if show { l.hidden.remove(p); } else { l.hidden.insert(p.to_string()); } });
                            }/>
                        {format!(" {p}")}
                    </label>
                }).collect_view()}
            </div>
        </details>
    }
}
