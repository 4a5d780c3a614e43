//! Optuna's relational storage as its SQLite file (`optuna.create_study(storage=
//! "sqlite:///study.db")`), read into the same [`Study`] values as the journal: every study,
//! its directions, its trials in creation order with their states, parameters (Optuna's
//! internal values and distributions), values and intermediate values.

use std::collections::BTreeMap;

use crate::benchmark::Direction;
use crate::error::{EngineError, Result};
use crate::loaders::sqlite::{Database, SqlValue, Table};
use crate::study::{Distribution, Study, Trial, TrialState};

/// The tables Optuna's storage always has.
const TABLES: &[&str] = &["studies", "study_directions", "trials", "trial_params", "trial_values"];

/// A value of `value_type` FINITE, INF_POS, INF_NEG or NAN (Optuna stores no infinity).
fn value_of(value: &SqlValue, kind: Option<&str>) -> f64 {
    match kind {
        Some("INF_POS") => f64::INFINITY,
        Some("INF_NEG") => f64::NEG_INFINITY,
        Some("NAN") => f64::NAN,
        _ => value.as_f64().unwrap_or(f64::NAN),
    }
}

fn column(file: &str, table: &Table, name: &str, of: &str) -> Result<usize> {
    table.column(name).ok_or_else(|| {
        EngineError::parse(file, format!("Optuna's table '{of}' has no column '{name}' here: a storage from another Optuna version?"))
    })
}

/// Every study of an Optuna SQLite storage.
pub fn read_storage(file: &str, bytes: &[u8]) -> Result<Vec<Study>> {
    let db = Database::open(file, bytes)?;
    let tables = db.tables()?;
    if let Some(missing) = TABLES.iter().find(|t| !tables.iter().any(|x| x == *t)) {
        return Err(EngineError::parse(
            file,
            format!("an SQLite database, but not an Optuna storage (it has no '{missing}' table; its tables: {})", tables.join(", ")),
        ));
    }
    let studies_t = db.table("studies")?;
    let (s_id, s_name) = (column(file, &studies_t, "study_id", "studies")?, column(file, &studies_t, "study_name", "studies")?);
    let mut studies: Vec<Study> = Vec::new();
    let mut index_of: BTreeMap<i64, usize> = BTreeMap::new();
    for row in &studies_t.rows {
        let id = row[s_id].as_i64().unwrap_or(-1);
        index_of.insert(id, studies.len());
        studies.push(Study {
            id: studies.len(),
            name: row[s_name].as_str().unwrap_or("study").to_string(),
            directions: Vec::new(),
            distributions: Vec::new(),
            trials: Vec::new(),
        });
    }
    let dirs = db.table("study_directions")?;
    let (d_dir, d_study, d_obj) = (
        column(file, &dirs, "direction", "study_directions")?,
        column(file, &dirs, "study_id", "study_directions")?,
        column(file, &dirs, "objective", "study_directions")?,
    );
    let mut by_objective: BTreeMap<(usize, i64), Direction> = BTreeMap::new();
    for row in &dirs.rows {
        if let Some(&s) = row[d_study].as_i64().and_then(|id| index_of.get(&id)) {
            let direction = if row[d_dir].as_str() == Some("MAXIMIZE") { Direction::Maximize } else { Direction::Minimize };
            by_objective.insert((s, row[d_obj].as_i64().unwrap_or(0)), direction);
        }
    }
    for ((s, _), d) in by_objective {
        studies[s].directions.push(d);
    }
    let trials_t = db.table("trials")?;
    let (t_id, t_study, t_state) = (
        column(file, &trials_t, "trial_id", "trials")?,
        column(file, &trials_t, "study_id", "trials")?,
        column(file, &trials_t, "state", "trials")?,
    );
    // Trials by id: (study, index in it).
    let mut trial_at: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
    for row in &trials_t.rows {
        let Some(&s) = row[t_study].as_i64().and_then(|id| index_of.get(&id)) else { continue };
        let state = row[t_state].as_str().and_then(TrialState::from_name).unwrap_or(TrialState::Running);
        studies[s].trials.push(Trial {
            state,
            params: BTreeMap::new(),
            values: None,
            intermediate: BTreeMap::new(),
            constraints: BTreeMap::new(),
        });
        trial_at.insert(row[t_id].as_i64().unwrap_or(-1), (s, studies[s].trials.len() - 1));
    }
    let params = db.table("trial_params")?;
    let (p_trial, p_name, p_value, p_dist) = (
        column(file, &params, "trial_id", "trial_params")?,
        column(file, &params, "param_name", "trial_params")?,
        column(file, &params, "param_value", "trial_params")?,
        column(file, &params, "distribution_json", "trial_params")?,
    );
    for row in &params.rows {
        let Some(&(s, t)) = row[p_trial].as_i64().and_then(|id| trial_at.get(&id)) else { continue };
        let name = row[p_name].as_str().unwrap_or_default().to_string();
        let dist = row[p_dist]
            .as_str()
            .ok_or_else(|| "no distribution".to_string())
            .and_then(Distribution::from_optuna_json)
            .map_err(|why| EngineError::parse(file, format!("the distribution of '{name}' in study '{}': {why}", studies[s].name)))?;
        let value = row[p_value].as_f64();
        if let Some(why) = value.and_then(|v| super::journal::not_held(&name, v, &dist)) {
            return Err(EngineError::parse(file, format!("in study '{}': {why}", studies[s].name)));
        }
        if !studies[s].distributions.iter().any(|(n, _)| *n == name) {
            studies[s].distributions.push((name.clone(), dist));
        }
        if let Some(v) = value {
            studies[s].trials[t].params.insert(name, v);
        }
    }
    // An enqueued trial's parameters, until it runs, are its `fixed_params` system attribute.
    if tables.iter().any(|t| t == "trial_system_attributes") {
        let attrs = db.table("trial_system_attributes")?;
        let of = "trial_system_attributes";
        let (a_trial, a_key, a_value) =
            (column(file, &attrs, "trial_id", of)?, column(file, &attrs, "key", of)?, column(file, &attrs, "value_json", of)?);
        for row in &attrs.rows {
            let Some(&(s, t)) = row[a_trial].as_i64().and_then(|id| trial_at.get(&id)) else { continue };
            let (Some(key), Some(value)) = (row[a_key].as_str(), row[a_value].as_str().and_then(|j| serde_json::from_str(j).ok())) else {
                continue;
            };
            studies[s].set_trial_system_attr(t, key, &value);
        }
    }
    let values = db.table("trial_values")?;
    let (v_trial, v_obj, v_value, v_type) = (
        column(file, &values, "trial_id", "trial_values")?,
        column(file, &values, "objective", "trial_values")?,
        column(file, &values, "value", "trial_values")?,
        column(file, &values, "value_type", "trial_values")?,
    );
    let mut per_trial: BTreeMap<(usize, usize), BTreeMap<i64, f64>> = BTreeMap::new();
    for row in &values.rows {
        let Some(&at) = row[v_trial].as_i64().and_then(|id| trial_at.get(&id)) else { continue };
        per_trial.entry(at).or_default().insert(row[v_obj].as_i64().unwrap_or(0), value_of(&row[v_value], row[v_type].as_str()));
    }
    for ((s, t), v) in per_trial {
        studies[s].trials[t].values = Some(v.into_values().collect());
    }
    if tables.iter().any(|t| t == "trial_intermediate_values") {
        let inter = db.table("trial_intermediate_values")?;
        let of = "trial_intermediate_values";
        let (i_trial, i_step, i_value) =
            (column(file, &inter, "trial_id", of)?, column(file, &inter, "step", of)?, column(file, &inter, "intermediate_value", of)?);
        let i_type = inter.column("intermediate_value_type");
        for row in &inter.rows {
            let Some(&(s, t)) = row[i_trial].as_i64().and_then(|id| trial_at.get(&id)) else { continue };
            let value = value_of(&row[i_value], i_type.and_then(|c| row[c].as_str()));
            studies[s].trials[t].intermediate.insert(row[i_step].as_i64().unwrap_or(0), value);
        }
    }
    for s in &mut studies {
        if s.directions.is_empty() {
            s.directions.push(Direction::Minimize);
        }
    }
    Ok(studies)
}
