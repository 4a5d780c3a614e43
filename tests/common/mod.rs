//! Shared by the native and the wasm tests: the golden experiment whose traces must be
//! byte-identical on every platform.

use hpo_playground::engine::bundled::load_bundled;
use hpo_playground::engine::export::traces_csv;
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::spec::{ExperimentSpec, TransferMode};
use hpo_playground::engine::transfer::PriorCache;

/// The golden traces, as committed in `tests/golden/quadratic_rs.csv`.
pub const GOLDEN: &str = include_str!("../golden/quadratic_rs.csv");

/// The golden traces of a transfer method (CTS: prior training and Thompson sampling).
pub const GOLDEN_CTS: &str = include_str!("../golden/quadratic_cts.csv");

/// The golden traces of the model-based transfer methods (GCP+prior: prior, copula, GP fit
/// and EI argmax; ABLR: the shared network's L-BFGS fit and its features).
pub const GOLDEN_MODELS: &str = include_str!("../golden/quadratic_models.csv");

/// Runs GCP+prior and ABLR on one quadratic task for one seed, 10 iterations (5 of them
/// model-based), and returns their traces CSV.
pub fn golden_models_run() -> String {
    let spec = ExperimentSpec {
        tasks: vec!["quadratic-05".into()],
        methods: vec!["GCP+prior".into(), "ABLR".into()],
        seeds: 1,
        first_seed: 7,
        iterations: 10,
        ..ExperimentSpec::default()
    };
    run_on_quadratic(spec)
}

/// Runs CTS on one quadratic task for two seeds and returns its traces CSV.
pub fn golden_cts_run() -> String {
    let spec = ExperimentSpec {
        tasks: vec!["quadratic-02".into()],
        methods: vec!["CTS".into()],
        seeds: 2,
        iterations: 12,
        ..ExperimentSpec::default()
    };
    run_on_quadratic(spec)
}

/// Runs the golden experiment and returns its traces CSV.
pub fn golden_run() -> String {
    let spec = ExperimentSpec {
        tasks: vec!["quadratic-00".into(), "quadratic-17".into()],
        methods: vec!["RS".into()],
        seeds: 3,
        first_seed: 41,
        iterations: 20,
        transfer: TransferMode::LeaveOneTaskOut,
        ..ExperimentSpec::default()
    };
    run_on_quadratic(spec)
}

/// Runs every job of `spec` on the bundled quadratic family (one prior cache for all, as the
/// CLI and the page share it) and returns the traces CSV.
fn run_on_quadratic(spec: ExperimentSpec) -> String {
    let bench = load_bundled("quadratic").expect("bundled");
    let resolved = spec.resolve(&bench).expect("valid spec");
    let priors = PriorCache::new();
    let traces: Vec<_> =
        resolved.jobs().iter().map(|j| run_job(&bench, &resolved, j, &priors, &|| 0.0, &mut |_| true).expect("runs")).collect();
    traces_csv(&traces)
}
