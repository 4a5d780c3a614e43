//! The Learn section: a list of lessons, the lesson of the link, a player (start, back, play /
//! pause, step, speed) shared by all lessons, and switches that hide panels — everything in
//! the URL (`engine::lessons::LessonLink`), so that a teacher's link opens exactly what they
//! chose. The lessons themselves are [`super::lesson_gp_ei`], [`super::lesson_copula`],
//! [`super::lesson_transfer`], [`super::lesson_multi_fidelity`], [`super::lesson_designs`] and
//! [`super::lesson_pareto`]; what they share is in [`super::lesson_shell`].

use leptos::prelude::*;

use super::browser;
use super::lesson_shell::hidden;
use crate::engine::lessons::{Lesson, LessonLink};

/// The Learn page for `initial`.
#[component]
pub fn LearnPage(
    /// The lesson the link opened.
    initial: LessonLink,
) -> impl IntoView {
    let link = RwSignal::new(initial);
    Effect::new(move |_| browser::replace_query(&link.get().to_query()));
    let id = Memo::new(move |_| link.with(|l| l.lesson.id()));
    view! {
        <main class="learn">
            <nav class="panel" id="lesson-list" aria-label="Lessons">
                <h2>"Lessons"</h2>
                <ul>
                    {Lesson::all().into_iter().map(|l| {
                        let href = format!("?{}", LessonLink::new(l.clone()).to_query());
                        let lesson_id = l.id();
                        view! {
                            <li><a href=href aria-current=move || (id.get() == lesson_id).then_some("page")>{l.title()}</a></li>
                        }
                    }).collect_view()}
                </ul>
                <p class="hint">"Each lesson is a link: the step, the speed and what is hidden are in the address, ready to send to a class."</p>
            </nav>
            {move || match id.get() {
                "designs" => view! { <super::lesson_designs::DesignLesson link=link/> }.into_any(),
                "copula" => view! { <super::lesson_copula::CopulaLesson link=link/> }.into_any(),
                "transfer" => view! { <super::lesson_transfer::TransferLesson link=link/> }.into_any(),
                "multi-fidelity" => view! { <super::lesson_multi_fidelity::MultiFidelityLesson link=link/> }.into_any(),
                "pareto" => view! { <super::lesson_pareto::ParetoLesson link=link/> }.into_any(),
                _ => view! { <super::lesson_gp_ei::GpEiLesson link=link/> }.into_any(),
            }}
            <HideSwitches link=link/>
        </main>
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
