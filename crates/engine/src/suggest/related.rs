//! What a transfer method learns when it proposes a study's next trials: the file's other
//! studies of the same space as the tasks seen before, the chosen study as the held-out task
//! of a leave-one-task-out run.

use super::method_choice::methods;
use crate::benchmark::{Benchmark, Metric, Task};
use crate::error::{EngineError, Result};
use crate::method_entry::{MethodEntry, TransferContext, TransferNeed};
use crate::space::SearchSpace;
use crate::spec::{ExperimentSpec, TransferMode};
use crate::study::Study;
use crate::transfer::{transfer_context, Learned, PriorCache, TRAINED_IN_THIS_PROCESS};

/// What a transfer method learns from the file's other studies of the chosen one's search
/// space and directions, as in a leave-one-task-out run where the chosen study is the held-out
/// task: its candidates are the study's (observed and fresh), the other studies' complete
/// trials are the tasks seen before.
pub(super) fn related_context(
    studies: &[Study],
    chosen: &Study,
    entry: &'static MethodEntry,
    space: &SearchSpace,
    candidates: &[Vec<f64>],
    complete: &[(Vec<f64>, f64)],
) -> Result<TransferContext> {
    let related: Vec<&Study> = studies.iter().filter(|s| s.id != chosen.id && chosen.same_space(s)).collect();
    let task = |s: &Study| -> Option<Task> {
        let rows = s.evaluations(chosen);
        (!rows.is_empty()).then(|| Task {
            name: s.name.clone(),
            metrics: vec![rows.iter().map(|r| r.1).collect()],
            configs: rows.into_iter().map(|r| r.0).collect(),
            curves: None,
            history: None,
        })
    };
    let others: Vec<Task> = related.iter().filter_map(|s| task(s)).collect();
    if others.is_empty() {
        return Err(EngineError::Spec(format!(
            "{} learns from other studies of the same search space, and this file has none beside '{}' (methods that learn from the study alone: {})",
            entry.name,
            chosen.name,
            methods().join(", ")
        )));
    }
    // The held-out task: every candidate, the observed ones with their values (the fresh
    // ones have none: no method reads the held-out task's values when it learns).
    let mut values: Vec<f64> = complete.iter().map(|c| c.1).collect();
    values.resize(candidates.len(), f64::NAN);
    let target = Task { name: chosen.name.clone(), configs: candidates.to_vec(), metrics: vec![values], curves: None, history: None };
    let bench = Benchmark {
        name: chosen.name.clone(),
        space: space.clone(),
        metrics: vec![Metric { name: "value".into(), direction: chosen.directions[0] }],
        objective: 0,
        tasks: std::iter::once(target).chain(others).collect(),
        joint_objectives: false,
    };
    // One iteration: the spec only has to accept the tasks (the smallest may be small).
    let spec = ExperimentSpec {
        methods: vec![entry.name.to_string()],
        transfer: TransferMode::LeaveOneTaskOut,
        iterations: 1,
        ..ExperimentSpec::default()
    };
    let resolved = spec.resolve(&bench)?;
    let priors = PriorCache::new();
    // The prior learns from the related studies alone (under the chosen study's name): the
    // next proposal for the same study reuses it, as the same bits would be trained again.
    if let TransferNeed::Prior(warp) = entry.transfer() {
        if let Ok((prior, _)) = TRAINED_IN_THIS_PROCESS.get_or_train(&bench, &resolved, 0, warp) {
            priors.insert(0, warp, Learned::Prior(prior));
        }
    }
    Ok(transfer_context(&bench, &resolved, 0, entry, &priors, &mut |_, _| true)?.0)
}
