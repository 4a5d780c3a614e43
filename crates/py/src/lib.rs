//! `hpo_playground._engine`: the engine's suggest path for a study held in memory, for the
//! Python package beside it (`python/hpo_playground`). Only plain data crosses: a study as JSON
//! in, configurations as Optuna's internal values out; every failure is a Python exception.
// PyO3 exists natively only; for wasm32 (the workspace is linted for it) this crate is empty.
#![cfg(not(target_arch = "wasm32"))]

mod multi_fidelity;
mod study;

use std::panic::{catch_unwind, AssertUnwindSafe};

use hpo_engine::suggest::{methods, suggest_for_study, transfer_methods, Liar};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    _engine,
    EngineError,
    PyValueError,
    "The engine refused a request: a bad study description, an unknown method, or a study it cannot suggest for."
);

/// The next `k` configurations the full-evaluation method `method` proposes for the study
/// described by `study_json`, deterministic given `seed`; transfer methods learn from the
/// studies of `related_json` (a JSON list of descriptions). The study's RUNNING and WAITING
/// trials with parameters are pending: observed at `liar`'s lie ("believer", the default, or the
/// constant "min", "mean" or "max"), as the batch's own picks are. Each configuration is a list of Optuna's internal values in the
/// order of the description's distributions.
#[pyfunction]
#[pyo3(signature = (study_json, related_json, method, k, seed, liar = "believer"))]
fn suggest(py: Python<'_>, study_json: &str, related_json: &str, method: &str, k: usize, seed: u64, liar: &str) -> PyResult<Vec<Vec<f64>>> {
    if k == 0 {
        return Err(EngineError::new_err("ask for at least one configuration (k >= 1)"));
    }
    let liar = Liar::from_name(liar).map_err(|e| EngineError::new_err(e.to_string()))?;
    let chosen = study::parse(study_json).and_then(|d| d.into_study(0)).map_err(EngineError::new_err)?;
    let related: Vec<serde_json::Value> =
        serde_json::from_str(related_json).map_err(|e| EngineError::new_err(format!("not a list of study descriptions: {e}")))?;
    let mut studies = vec![chosen];
    for (i, r) in related.into_iter().enumerate() {
        let description = serde_json::from_value::<study::StudyDescription>(r)
            .map_err(|e| EngineError::new_err(format!("related study {i}: not a study description: {e}")))?;
        studies.push(description.into_study(i + 1).map_err(EngineError::new_err)?);
    }
    // The search runs without the GIL (other threads of an n_jobs study go on); a panic in the
    // engine is a bug, reported as an exception rather than unwinding into Python.
    let outcome = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let s = suggest_for_study(&studies, &studies[0].name, method, k, seed, liar).map_err(|e| e.to_string())?;
            s.rows.iter().map(|row| study::internal(&studies[0].distributions, row)).collect::<Result<Vec<_>, String>>()
        }))
    });
    match outcome {
        Ok(result) => result.map_err(EngineError::new_err),
        Err(_) => Err(EngineError::new_err("the engine failed (a bug: please report it with the study)")),
    }
}

/// The methods that suggest from the study alone.
#[pyfunction]
fn single_study_methods() -> Vec<&'static str> {
    methods()
}

/// The methods that also learn from related studies of the same search space.
#[pyfunction]
fn related_study_methods() -> Vec<&'static str> {
    transfer_methods()
}

/// The multi-fidelity methods, by their registry names.
#[pyfunction]
fn multi_fidelity_methods() -> Vec<&'static str> {
    hpo_engine::suggest::multi_fidelity::methods()
}

/// Checks a search space (a JSON list of `[name, distribution]`) by the engine's rule
/// (`Distribution::validate`, Optuna's): an error naming the first parameter it refuses (low
/// above high, a log scale from 0 or below, no choice, a bad step).
#[pyfunction]
fn check_space(space_json: &str) -> PyResult<()> {
    study::distributions(space_json).map(|_| ()).map_err(EngineError::new_err)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(suggest, m)?)?;
    m.add_function(wrap_pyfunction!(single_study_methods, m)?)?;
    m.add_function(wrap_pyfunction!(related_study_methods, m)?)?;
    m.add_function(wrap_pyfunction!(multi_fidelity_methods, m)?)?;
    m.add_function(wrap_pyfunction!(check_space, m)?)?;
    m.add_class::<multi_fidelity::MultiFidelitySession>()?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    Ok(())
}
