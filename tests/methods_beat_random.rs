//! The GP-based methods must beat random search where they should: on the quadratic family
//! (smooth, 3-D) after 25 evaluations, averaged over tasks and seeds. Fails if a regression
//! makes the surrogate no better than chance.

use hpo_playground::engine::bundled::load_bundled;
use hpo_playground::engine::results::metrics::{adtm_curves, band};
use hpo_playground::engine::runner::run_job;
use hpo_playground::engine::spec::ExperimentSpec;
use hpo_playground::engine::transfer::PriorCache;

#[test]
fn gp_and_gcp_beat_random_search_on_quadratics() {
    let bench = load_bundled("quadratic").expect("bundled");
    let spec = ExperimentSpec {
        tasks: vec!["quadratic-01".into(), "quadratic-07".into(), "quadratic-19".into()],
        methods: vec!["RS".into(), "GP".into(), "GCP".into()],
        seeds: 6,
        iterations: 25,
        ..ExperimentSpec::default()
    };
    let resolved = spec.resolve(&bench).unwrap();
    let traces: Vec<_> =
        resolved.jobs().iter().map(|j| run_job(&bench, &resolved, j, &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap()).collect();
    let final_adtm = |m: &str| *band(&adtm_curves(&traces, &bench, 0, resolved.direction, m)).mean.last().unwrap();
    let (rs, gp, gcp) = (final_adtm("RS"), final_adtm("GP"), final_adtm("GCP"));
    eprintln!("final ADTM: RS {rs:.4}, GP {gp:.4}, GCP {gcp:.4}");
    assert!(gp < 0.5 * rs, "GP {gp} should at least halve RS {rs}");
    assert!(gcp < 0.5 * rs, "GCP {gcp} should at least halve RS {rs}");
    // Determinism of the surrogate methods.
    let again = run_job(&bench, &resolved, &resolved.jobs()[40], &PriorCache::new(), &|| 0.0, &mut |_| true).unwrap();
    assert_eq!(again, traces[40]);
}
