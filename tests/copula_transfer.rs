//! Reduced replication of the copula paper on the real XGBoost and NAS-Bench-201 tables:
//! GCP+prior must beat random search (lower mean DTM over the run). Skipped when
//! ../shared is absent.

use std::path::PathBuf;

use hpo_playground::engine::benchmark::Benchmark;
use hpo_playground::engine::loaders::copula::load_copula_format;
use hpo_playground::engine::results::metrics::{adtm_curves, band};
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::spec::{ExperimentSpec, ResolvedSpec};
use hpo_playground::engine::transfer::PriorCache;

fn load(file: &str) -> Option<Benchmark> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/benchmarks/quantile-transfer").join(file);
    if !p.exists() {
        eprintln!("skipping: {} not present", p.display());
        return None;
    }
    Some(load_copula_format(file, &std::fs::read(p).unwrap()).unwrap().benchmark)
}

/// Mean over iterations of the ADTM curve (the area the paper's improvement averages over).
fn mean_adtm(bench: &Benchmark, resolved: &ResolvedSpec, traces: &[hpo_playground::engine::trace::Trace], method: &str) -> f64 {
    let b = band(&adtm_curves(traces, bench, resolved.objective, resolved.direction, method));
    b.mean.iter().sum::<f64>() / b.mean.len() as f64
}

fn check(file: &str, tasks: &[&str], iterations: u32) {
    let Some(bench) = load(file) else { return };
    let spec = ExperimentSpec {
        data: format!("shared:{file}").parse().unwrap(),
        tasks: tasks.iter().map(|t| t.to_string()).collect(),
        methods: vec!["RS".into(), "GCP+prior".into()],
        seeds: 3,
        iterations,
        ..ExperimentSpec::default()
    };
    let resolved = spec.resolve(&bench).unwrap();
    let priors = PriorCache::new();
    let traces: Vec<_> = resolved.jobs().iter().map(|j| run_job(&bench, &resolved, j, &priors, &|| 0.0, &mut |_| true).unwrap()).collect();
    let (rs, gcp) = (mean_adtm(&bench, &resolved, &traces, "RS"), mean_adtm(&bench, &resolved, &traces, "GCP+prior"));
    eprintln!("{file}: mean ADTM over {iterations} iterations: RS {rs:.4}, GCP+prior {gcp:.4}");
    assert!(gcp < rs, "{file}: GCP+prior ({gcp}) must beat RS ({rs})");
}

#[test]
fn gcp_prior_beats_random_search_on_xgboost() {
    check("XGBoost.csv.zip", &["heart", "a6a"], 30);
}

#[test]
fn gcp_prior_beats_random_search_on_nas_bench_201() {
    check("nas_bench102.csv.zip", &["cifar100"], 25);
}
