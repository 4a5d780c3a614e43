//! Which methods propose a study's next trials: by its number of objectives, and whether the
//! file holds other studies of its space (the transfer methods' need); which one is
//! preselected; and the refusal, in words, of a method that cannot propose for a study.

use crate::axis::count;
use crate::error::{EngineError, Result};
use crate::method_entry::{MethodEntry, MethodObjectives, RunKind, TransferNeed};
use crate::registry;
use crate::study::Study;

/// The methods that suggest from the study alone: full-evaluation methods that need no other task.
pub fn methods() -> Vec<&'static str> {
    registry::of_kind(RunKind::Full).filter(|e| e.transfer() == TransferNeed::None).map(|e| e.name).collect()
}

/// The transfer methods, which suggest when the file holds other studies of the same space.
pub fn transfer_methods() -> Vec<&'static str> {
    registry::of_kind(RunKind::Full).filter(|e| e.transfer() != TransferNeed::None).map(|e| e.name).collect()
}

/// Whether `entry` handles `n` objectives: one objective takes a single-objective method (or
/// random search), several a "+MO" variant, ParEGO or EHVI (as many as they handle).
fn handles(entry: &MethodEntry, n: usize) -> bool {
    match entry.objectives() {
        MethodObjectives::Any => true,
        MethodObjectives::Single => n == 1,
        MethodObjectives::Scalarized(_) => n > 1,
        MethodObjectives::Pareto { max_objectives } => n > 1 && n <= max_objectives,
    }
}

/// Whether `entry` proposes the next trials of a study of `objectives` objectives: it
/// [`handles`] them, from the study alone; a transfer method also needs `related` (the file
/// holds other studies of the same space) and one objective.
fn proposes_for(entry: &MethodEntry, objectives: usize, related: bool) -> bool {
    handles(entry, objectives) && (entry.transfer() == TransferNeed::None || (related && objectives == 1))
}

/// The methods that propose the next trials of a study of `objectives` objectives, in
/// registry order: those that learn from the study alone, and with `related` (the file holds
/// other studies of its space) the transfer methods that fit too. What the page's Next
/// trials panel lists.
pub fn methods_for(objectives: usize, related: bool) -> Vec<&'static str> {
    registry::of_kind(RunKind::Full).filter(|e| proposes_for(e, objectives, related)).map(|e| e.name).collect()
}

/// The method a study of `objectives` objectives gets its next trials from unless another is
/// chosen: the registry's first preference that proposes for it
/// ([`registry::next_trials_first`]: GP for one objective, GP+MO for several), else the first
/// method that does. What the page preselects.
pub fn default_method(objectives: usize) -> &'static str {
    registry::next_trials_first()
        .chain(registry::of_kind(RunKind::Full))
        .find(|e| proposes_for(e, objectives, false))
        .map_or(registry::baseline(RunKind::Full).name, |e| e.name)
}

/// Whether `entry` can propose for `study`'s objectives ([`proposes_for`]; whether the file
/// holds the other studies a transfer method needs is checked where they are gathered).
pub(super) fn check_objectives(study: &Study, entry: &MethodEntry) -> Result<()> {
    let n = study.directions.len();
    if proposes_for(entry, n, true) {
        return Ok(());
    }
    let proposes = match entry.objectives() {
        _ if n > 1 && handles(entry, n) => "several objectives only from the study alone".to_string(),
        MethodObjectives::Single => "one objective".to_string(),
        MethodObjectives::Pareto { max_objectives } if n > 1 => format!("at most {max_objectives} objectives"),
        _ => "several objectives".to_string(),
    };
    Err(EngineError::Spec(format!(
        "'{}' has {}: {} proposes for {proposes}; for this study: {}",
        study.name,
        count(n, "objective"),
        entry.name,
        methods_for(n, false).join(", ")
    )))
}
