//! Shared by the native and the wasm tests: the golden experiment whose traces must be
//! byte-identical on every platform.

use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::bundled::load_bundled;
use hpo_playground::engine::export::{race_traces_csv, traces_csv};
use hpo_playground::engine::fidelity::gpb::design::{Criterion, Design};
use hpo_playground::engine::fidelity::gpb::model::{profile_nll, CovParams, Gpb, GpbSettings};
use hpo_playground::engine::fidelity::gpb::{budget_levels, table_design_problem};
use hpo_playground::engine::fixtures::wide_curves_csv;
use hpo_playground::engine::loaders::upload::load_file;
use hpo_playground::engine::optimizer::MethodRng;
use hpo_playground::engine::results::race_report::race_traces;
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::spec::{ExperimentSpec, TransferMode};
use hpo_playground::engine::suggest::suggest;
use hpo_playground::engine::transfer::PriorCache;
use rand::SeedableRng;

/// The golden traces, as committed in `tests/golden/quadratic_rs.csv`.
pub const GOLDEN: &str = include_str!("../golden/quadratic_rs.csv");

/// The golden traces of a transfer method (CTS: prior training and Thompson sampling).
pub const GOLDEN_CTS: &str = include_str!("../golden/quadratic_cts.csv");

/// The golden traces of the model-based transfer methods (GCP+prior: prior, copula, GP fit
/// and EI argmax; ABLR: the shared network's L-BFGS fit and its features).
pub const GOLDEN_MODELS: &str = include_str!("../golden/quadratic_models.csv");

/// GPB's model and design criteria on the 7-input table, every number as its bits, as
/// committed in `tests/golden/wide_gpb_model.csv`.
pub const GOLDEN_WIDE_MODEL: &str = include_str!("../golden/wide_gpb_model.csv");

/// GPB (IC), its full-budget baseline and DyHPO racing on the 7-input table, as committed in
/// `tests/golden/wide_races.csv`.
pub const GOLDEN_WIDE_RACES: &str = include_str!("../golden/wide_races.csv");

/// The next trials of a study searched over its own space, every number as its bits, as
/// committed in `tests/golden/study_suggestions.csv`.
pub const GOLDEN_SUGGESTIONS: &str = include_str!("../golden/study_suggestions.csv");

/// Three next trials of the journal fixture's `mlp-svhn` study (its other study is the related
/// task) by each method that searches a study's own space — the GP fit, log-EI and its
/// gradient, the L-BFGS and grid passes, the prior network's input gradient — one line per
/// value with its bits (`method,trial,parameter,bits,value`): the page's next trials and
/// `hpo suggest` are the same engine call, so equal bits here mean equal files there.
pub fn golden_suggestions_run() -> String {
    let journal = include_str!("../fixtures/studies/optuna-two-studies-journal.log");
    let mut out = String::from("method,trial,parameter,bits,value\n");
    for method in ["GP", "GCP", "GCP+prior", "GP+prior"] {
        let s = suggest("two.log", journal, Some("mlp-svhn"), method, 3, 0).expect("the fixture gets suggestions");
        for (t, row) in s.rows.iter().enumerate() {
            for (name, v) in s.names.iter().zip(row) {
                let (bits, value) = match v.as_f64() {
                    Some(x) => (format!("{:016x}", x.to_bits()), format!("{x}")),
                    None => (String::new(), v.to_string()),
                };
                out.push_str(&format!("{method},{t},{name},{bits},{value}\n"));
            }
        }
    }
    out
}

/// The 7-input learning curves (`hpo generate wide-curves`), read as an upload is.
pub fn wide_benchmark() -> Benchmark {
    load_file("wide-curves.csv", wide_curves_csv().as_bytes(), None).expect("the generated table loads").benchmark
}

/// GPB's likelihood and gradient, its fit, predictions and the D, A and E criteria with their
/// sensitivity on the first task of the 7-input table, one line per number with its bits
/// (`quantity,bits,value`): with 7 inputs every GLS product FᵀR⁻¹F is 9 × 9, the size at
/// which a linear-algebra crate may take a path of its own, so a last-bit difference shows
/// here even when it moves no pick.
pub fn golden_wide_model_run() -> String {
    let bench = wide_benchmark();
    let candidates = bench.encoded_task(0);
    let curves = &bench.tasks[0].curves.as_ref().expect("curves").values;
    let steps = curves[0].len() as u32;
    let levels = budget_levels(steps);
    // 36 observations: the first configurations, each at one budget level in turn.
    let n = 36;
    let level = |i: usize| levels[i % levels.len()];
    let x: Vec<Vec<f64>> = candidates[..n].to_vec();
    let b: Vec<f64> = (0..n).map(|i| level(i) as f64 / steps as f64).collect();
    let y: Vec<f64> = (0..n).map(|i| curves[i][level(i) as usize - 1]).collect();
    let mut out = String::from("quantity,bits,value\n");
    let mut put = |name: &str, v: f64| out += &format!("{name},{:016x},{v}\n", v.to_bits());
    let settings = GpbSettings::default();
    let nominal = CovParams::nominal(x[0].len(), &settings);
    let (nll, grad) = profile_nll(settings.kernel, &nominal, &x, &b, &y).expect("R and FᵀR⁻¹F factor");
    put("nll", nll);
    grad.iter().enumerate().for_each(|(k, g)| put(&format!("nll_grad_{k}"), *g));
    let model = Gpb::fit(&settings, x, b, &y, &mut MethodRng::seed_from_u64(3)).expect("fits");
    model.params().to_vec().iter().enumerate().for_each(|(k, v)| put(&format!("param_{k}"), *v));
    model.beta().iter().enumerate().for_each(|(k, v)| put(&format!("beta_{k}"), *v));
    put("sigma2", model.sigma2());
    for (i, c) in candidates[n..n + 4].iter().enumerate() {
        for l in [1, steps] {
            let (mean, var) = model.predict(c, l as f64 / steps as f64);
            put(&format!("mean_{i}_at_{l}"), mean);
            put(&format!("var_{i}_at_{l}"), var);
        }
        let (mean, var) = model.predict_limit(c);
        put(&format!("limit_mean_{i}"), mean);
        put(&format!("limit_var_{i}"), var);
    }
    // A 12-point design over 60 configurations at every level.
    let grid = candidates[..60].to_vec();
    let budgets: Vec<f64> = levels.iter().map(|&l| l as f64 / steps as f64).collect();
    let design = Design { x: grid[..12].to_vec(), budget: (0..12).map(|i| i % budgets.len()).collect() };
    for criterion in Criterion::ALL {
        let problem = table_design_problem(grid.clone(), budgets.clone(), criterion, &settings);
        put(&format!("{}_value", criterion.name()), problem.value(&design));
        let (max_d, (g, l)) = problem.max_sensitivity(&design).expect("M is regular");
        put(&format!("{}_max_d_at_{g}_{l}", criterion.name()), max_d);
    }
    out
}

/// Races GPB (IC) and GP (max budget) (600 budget units: each fits its model after a
/// 20-configuration initial design) and DyHPO (160 units: a model fit every step) on the
/// first task of the 7-input table for one seed and returns their race traces CSV (optimizer
/// seconds 0).
pub fn golden_wide_races_run() -> String {
    let bench = wide_benchmark();
    let race = |methods: &[&str], budget: u64| {
        let spec = ExperimentSpec {
            tasks: vec!["wide-00".into()],
            methods: methods.iter().map(|m| m.to_string()).collect(),
            seeds: 1,
            first_seed: 5,
            race_budget: Some(budget),
            ..ExperimentSpec::default()
        };
        run_jobs(&bench, spec)
    };
    let mut traces = race(&["GPB (IC)", "GP (max budget)"], 600);
    traces.extend(race(&["DyHPO"], 160));
    race_traces_csv(&race_traces(&traces))
}

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
    traces_csv(&run_jobs(&load_bundled("quadratic").expect("bundled"), spec))
}

/// Every job of `spec` on `bench`, in order, with one prior cache for all (as the CLI and the
/// page share it) and a clock that stands still.
fn run_jobs(bench: &Benchmark, spec: ExperimentSpec) -> Vec<hpo_playground::engine::trace::Trace> {
    let resolved = spec.resolve(bench).expect("valid spec");
    let priors = PriorCache::new();
    resolved.jobs().iter().map(|j| run_job(bench, &resolved, j, &priors, &|| 0.0, &mut |_| true).expect("runs")).collect()
}
