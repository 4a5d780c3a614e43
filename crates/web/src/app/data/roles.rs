//! The column-role editor's choices, to and from the loader's column roles (pure: no signal).

use hpo_engine::benchmark::{Direction, Metric};
use hpo_engine::loaders::table::ColumnRoles;

use crate::app::state::RoleEditor;

/// The editor's name for the role `column` has in `roles`.
pub(super) fn role_of(roles: &ColumnRoles, column: &str) -> &'static str {
    if roles.run.as_deref() == Some(column) {
        "run"
    } else if roles.step.as_deref() == Some(column) {
        "runstep"
    } else if roles.steps.iter().any(|s| s == column) {
        "step"
    } else if roles.task.as_deref() == Some(column) {
        "task"
    } else if roles.categorical.iter().any(|c| c == column) {
        "cat"
    } else if roles.hyperparameters.iter().any(|c| c == column) {
        "hp"
    } else if let Some(m) = roles.metrics.iter().find(|m| m.name == column) {
        m.direction.as_str()
    } else {
        "ignore"
    }
}

/// Column roles from the editor's choices, or a message saying what is missing.
pub fn roles_from_editor(editor: &RoleEditor) -> Result<ColumnRoles, String> {
    let mut roles = ColumnRoles::default();
    for (h, r) in editor.headers.iter().zip(&editor.roles) {
        match r.as_str() {
            "hp" => roles.hyperparameters.push(h.clone()),
            "cat" => {
                roles.hyperparameters.push(h.clone());
                roles.categorical.push(h.clone());
            }
            "min" | "max" => roles
                .metrics
                .push(Metric { name: h.clone(), direction: if r == "min" { Direction::Minimize } else { Direction::Maximize } }),
            "step" => roles.steps.push(h.clone()),
            "task" if roles.task.is_some() => return Err("only one column can name the task".into()),
            "task" => roles.task = Some(h.clone()),
            "run" if roles.run.is_some() => return Err("only one column can name the run".into()),
            "run" => roles.run = Some(h.clone()),
            "runstep" if roles.step.is_some() => return Err("only one column can number a run's steps".into()),
            "runstep" => roles.step = Some(h.clone()),
            _ => {}
        }
    }
    if roles.step.is_some() && roles.run.is_none() {
        return Err("a step of each row's run needs the column naming the run".into());
    }
    if roles.run.is_some() && (!roles.steps.is_empty() || roles.metrics.len() != 1) {
        return Err(
            "a table of runs (one row per run and step) needs one objective column, reported at each step, and no step columns".into()
        );
    }
    if roles.hyperparameters.is_empty() {
        return Err("mark at least one column as a hyperparameter".into());
    }
    if roles.metrics.is_empty() && roles.steps.is_empty() {
        return Err("mark at least one column as an objective (minimise or maximise), or the learning-curve steps".into());
    }
    if !roles.metrics.is_empty() && !roles.steps.is_empty() {
        return Err("a learning-curve file's objective is its last step: mark steps or objectives, not both".into());
    }
    if roles.steps.len() == 1 {
        return Err("a learning curve needs two or more step columns".into());
    }
    roles.objective = roles.metrics.first().map(|m| m.name.clone()).unwrap_or_default();
    Ok(roles)
}
