//! `hpo_playground._engine.MultiFidelitySession`: the engine's ask/tell session of a
//! multi-fidelity method (`hpo_engine::suggest::multi_fidelity`), for the Python
//! `MultiFidelity`, its Optuna loop and its Syne Tune scheduler. Parameters cross as JSON.

use std::panic::{catch_unwind, AssertUnwindSafe};

use hpo_engine::suggest::multi_fidelity::{Asked, MultiFidelitySession as Session, Reported};
use pyo3::prelude::*;

use crate::study::distributions;
use crate::EngineError;

/// One multi-fidelity method racing configurations of a search space. It holds the method's
/// state (a trait object, not `Send`): it stays on the thread that made it.
#[pyclass(unsendable, module = "hpo_playground._engine")]
pub struct MultiFidelitySession {
    session: Session,
}

#[pymethods]
impl MultiFidelitySession {
    /// A session over `configurations` configurations drawn from the distributions of
    /// `space_json` (a JSON list of `[name, distribution]` as a study description holds them),
    /// `sign` +1 to minimise, -1 to maximise.
    #[new]
    #[pyo3(signature = (space_json, method, max_budget, total_budget, sign, seed, configurations))]
    fn new(
        space_json: &str,
        method: &str,
        max_budget: u32,
        total_budget: Option<u64>,
        sign: f64,
        seed: u64,
        configurations: usize,
    ) -> PyResult<Self> {
        let space = distributions(space_json).map_err(EngineError::new_err)?;
        let session =
            guarded(|| Session::new(space, method, max_budget, total_budget, sign, seed, configurations).map_err(|e| e.to_string()))?;
        Ok(MultiFidelitySession { session })
    }

    /// `("train", config, from, budget)`, `("wait",)` or `("done",)`.
    /// (The GIL stays held: the method's state is not `Send`, so it cannot leave this thread.)
    fn ask(&mut self) -> PyResult<(String, usize, u32, u32)> {
        let session = &mut self.session;
        let asked = guarded(|| session.ask().map_err(|e| e.to_string()))?;
        Ok(match asked {
            Asked::Train(a) => ("train".into(), a.config, a.from, a.budget),
            Asked::Wait => ("wait".into(), 0, 0, 0),
            Asked::Done => ("done".into(), 0, 0, 0),
        })
    }

    /// Records the value at one budget step; true when it completes the request.
    fn tell(&mut self, config: usize, step: u32, value: f64) -> PyResult<bool> {
        self.session.tell(config, step, value).map_err(|e| EngineError::new_err(e.to_string()))
    }

    /// A value from training by the engine's rule (a NaN fails the configuration, an
    /// infinite value is clipped): `"training"`, `"completed"` or `"failed"`.
    fn report(&mut self, config: usize, step: u32, value: f64) -> PyResult<&'static str> {
        let reported = self.session.report(config, step, value).map_err(|e| EngineError::new_err(e.to_string()))?;
        Ok(match reported {
            Reported::Training => "training",
            Reported::Completed => "completed",
            Reported::Failed => "failed",
        })
    }

    /// Reports that a configuration's training failed: it is released for good.
    fn fail(&mut self, config: usize) -> PyResult<()> {
        self.session.fail(config).map_err(|e| EngineError::new_err(e.to_string()))
    }

    /// The configurations whose training failed, in increasing order.
    fn failed(&self) -> Vec<usize> {
        self.session.failed()
    }

    /// A configuration's parameter values, as a JSON list in the order of the space.
    fn params_json(&self, config: usize) -> PyResult<String> {
        let values = self.session.params(config).map_err(|e| EngineError::new_err(e.to_string()))?;
        Ok(serde_json::Value::from(values).to_string())
    }

    /// The budget a configuration has told up to.
    fn reached(&self, config: usize) -> PyResult<u32> {
        self.session.reached(config).map_err(|e| EngineError::new_err(e.to_string()))
    }

    /// The outstanding requests: (config, budget reached, budget to reach).
    fn in_training(&self) -> Vec<(usize, u32, u32)> {
        self.session.in_training().into_iter().map(|a| (a.config, a.from, a.budget)).collect()
    }

    /// The best value told: (config, step, value), or None.
    fn best(&self) -> Option<(usize, u32, f64)> {
        self.session.best()
    }

    /// Budget units not yet handed out (None without a total budget).
    fn remaining(&self) -> Option<u64> {
        Some(self.session.remaining()).filter(|&r| r != u64::MAX)
    }

    /// How many configurations the method races.
    fn configurations(&self) -> usize {
        self.session.configurations()
    }
}

/// Runs `f`, reporting a panic in the engine (a bug) as an exception instead of unwinding into Python.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(EngineError::new_err),
        Err(_) => Err(EngineError::new_err("the engine failed (a bug: please report it with the search space and method)")),
    }
}
