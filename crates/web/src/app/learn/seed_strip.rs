//! A lesson's race counted over seeds (`engine::lessons::over_seeds`): kept in the build for
//! each lesson's opening setting (`engine::lessons::kept_counts`), else computed in two workers
//! of its own (half the seeds each, one a core) once the lesson's frames are drawn, so that it
//! never delays the first picture nor waits behind a reseed; drawn under the last step's
//! sentence as a strip, one cell a seed coloured by who won it, grey for a tie, the seed shown
//! outlined. A click on a cell opens that seed at the same step.

use std::sync::Arc;

use leptos::prelude::*;

use crate::app::platform::workers::{lesson_reply, LatestWorker, WorkerService};
use hpo_engine::axis::count;
use hpo_engine::lessons::kept_counts;
use hpo_engine::lessons::over_seeds::OverSeeds;
use hpo_engine::lessons::{LessonFrames, LessonJob, LessonLink};
use hpo_protocol::ToWorker;

/// A seed that is a tie.
const TIE: &str = "#c8c8c8";

/// A part of the count as a worker answered it: the job asked, and the count or the error.
type Part = (LessonJob, Result<OverSeeds, String>);

/// The count over seeds of the link's lesson, once `ready` (the lesson's own frames drawn):
/// its two parts in two workers, one a core; `None` while they compute; an error in words if
/// either could not.
pub fn over_seeds(link: RwSignal<LessonLink>, ready: Signal<bool>) -> Memo<Option<Result<Arc<OverSeeds>, String>>> {
    let jobs = Memo::new(move |_| link.with(|l| l.lesson.over_seeds_jobs()));
    // Each part as counted, with the job it answers.
    let parts: [RwSignal<Option<Part>>; 2] = [RwSignal::new(None), RwSignal::new(None)];
    let workers = expect_context::<WorkerService>();
    for (k, part) in parts.into_iter().enumerate() {
        let worker = LatestWorker::new(lesson_reply);
        Effect::new(move |_| {
            let (Some(j), ready) = (jobs.with(|j| j.as_ref().map(|j| j[k].clone())), ready.get()) else { return };
            if part.with_untracked(|c| c.as_ref().is_some_and(|(have, _)| *have == j)) {
                // Back to the count shown: one still computing is another setting's.
                worker.forget();
                return;
            }
            if !ready {
                return;
            }
            // A count kept in the build (the lesson's opening setting) is shown with the
            // frames, and one still computing for a setting left is dropped, as above.
            if let Some(count) = kept_counts::counted(&j) {
                worker.forget();
                part.set(Some((j, Ok(count))));
                return;
            }
            let request = workers.next_request();
            let asked = j.clone();
            worker.ask(request, ToWorker::Lesson { request, job: j }, move |result, _| {
                let counted = match result {
                    Ok(LessonFrames::OverSeeds(o)) => Ok(o),
                    Ok(_) => return,
                    Err(e) => Err(e),
                };
                part.set(Some((asked.clone(), counted)));
            });
        });
    }
    Memo::new(move |_| {
        let want = jobs.get()?;
        let mut got = Vec::with_capacity(2);
        for (k, part) in parts.iter().enumerate() {
            match part.with(|c| c.as_ref().filter(|(have, _)| *have == want[k]).map(|(_, o)| o.clone()))? {
                Ok(o) => got.push(o),
                Err(e) => return Some(Err(e)),
            }
        }
        OverSeeds::joined(got).map(|o| Ok(Arc::new(o)))
    })
}

/// The count's result for the lesson's sentence: the count when it is in.
pub fn counted(over: Memo<Option<Result<Arc<OverSeeds>, String>>>) -> Option<Arc<OverSeeds>> {
    over.get().and_then(Result::ok)
}

/// The strip: one cell a seed, coloured by its winner, the seed shown outlined, a legend with
/// each contender's wins. `show` writes a score in a cell's label; `unit` names a cell ("seed").
#[component]
pub fn SeedStrip(
    /// The count (or why it could not be made).
    over: Memo<Option<Result<Arc<OverSeeds>, String>>>,
    /// The lesson's link, whose seed is outlined and which a click changes (lessons with a seed).
    link: RwSignal<LessonLink>,
    /// Writes a score.
    show: fn(f64) -> String,
    /// What a cell is, for its label ("seed", "random design").
    unit: &'static str,
    /// The contenders' colours, in their order: the lesson's own for them.
    colours: &'static [&'static str],
    /// A cell's label, where the lesson words it itself (else: the winner and the scores).
    #[prop(optional)]
    describe: Option<fn(&OverSeeds, u64) -> String>,
    /// The caption's opening words, where nothing races ("How EI did on each of the"; else
    /// "Who won each of the").
    #[prop(optional)]
    asks: Option<&'static str>,
) -> impl IntoView {
    let shown = Memo::new(move |_| link.with(|l| l.lesson.seed()));
    let open = move |seed: u64| {
        if let Some(lesson) = link.with_untracked(|l| l.lesson.with_seed(seed)) {
            link.update(|l| l.lesson = lesson);
        }
    };
    let clickable = link.with_untracked(|l| l.lesson.seed().is_some());
    move || match over.get() {
        None => view! { <p class="hint" id="lesson-seed-strip-wait">"Counting over seeds in a worker…"</p> }.into_any(),
        Some(Err(e)) => {
            view! { <p class="msg error" id="lesson-seed-strip-error">{format!("The count over seeds failed: {e}")}</p> }.into_any()
        }
        Some(Ok(o)) => {
            let wins = o.wins();
            let colour = |w: Option<usize>| w.map_or(TIE, |w| colours[w % colours.len()]);
            let cells = (0..o.scores.len() as u64)
                .map(|seed| {
                    let w = o.winner(seed);
                    let label = describe.map_or_else(
                        || {
                            let scores: Vec<String> =
                                o.names.iter().zip(&o.scores[seed as usize]).map(|(n, &v)| format!("{n} {}", show(v))).collect();
                            let who = w.map_or("a tie".to_string(), |w| format!("{} wins", o.names[w]));
                            format!("{unit} {seed}: {who} ({})", scores.join(", "))
                        },
                        |d| d(&o, seed),
                    );
                    view! {
                        <button class="seed-cell" class:shown=move || shown.get() == Some(seed) style:background=colour(w)
                            aria-label=label.clone() title=label disabled=!clickable on:click=move |_| open(seed)></button>
                    }
                })
                .collect_view();
            let legend = o
                .names
                .iter()
                .enumerate()
                .map(|(c, n)| view! { <span class="swatch" style:background=colours[c % colours.len()]></span>{format!("{n}: ")}<b class="count">{wins[c]}</b>" " })
                .collect_view();
            let n = o.scores.len();
            view! {
                <figure class="seed-strip" id="lesson-seed-strip">
                    <figcaption>{format!("{} {}, 0 to {}{}:", asks.unwrap_or("Who won each of the"), count(n, unit), n - 1, if clickable { " (click one to open it)" } else { "" })}</figcaption>
                    <div class="seed-cells">{cells}</div>
                    <p class="seed-legend">{legend}{(o.ties() > 0).then(|| view! { <span class="swatch" style:background=TIE></span>"tie: "<b class="count">{o.ties()}</b> })}</p>
                </figure>
            }
            .into_any()
        }
    }
}
