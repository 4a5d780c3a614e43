//! The one validity rule and the conversions of [`Distribution`], tested once for the
//! loaders, the next trials and the Python package.

use serde_json::{json, Value};

use super::encoding::{decode, draw, internal, search_space, searched_space};
use super::Distribution;

fn float(low: f64, high: f64, log: bool, step: Option<f64>) -> Distribution {
    Distribution::Float { low, high, log, step }
}

fn int(low: i64, high: i64, log: bool, step: i64) -> Distribution {
    Distribution::Int { low, high, log, step }
}

/// Optuna's own rule: what its `FloatDistribution`, `IntDistribution` and
/// `CategoricalDistribution` construct, and nothing else.
#[test]
fn validity_is_optuna_s() {
    let ok = [
        float(0.0, 1.0, false, None),
        float(1e-5, 0.1, true, None),
        float(0.0, 1.0, false, Some(0.25)),
        float(1.0, 1.0, false, None),
        int(32, 512, false, 32),
        int(1, 1024, true, 1),
        Distribution::Categorical { choices: vec![json!("adam")] },
    ];
    for d in &ok {
        assert_eq!(d.validate(), Ok(()), "{d:?}");
    }
    let refused = [
        (float(1.0, 0.0, false, None), "finite low <= high"),
        (float(0.0, f64::INFINITY, false, None), "finite low <= high"),
        (float(f64::NAN, 1.0, false, None), "finite low <= high"),
        (float(0.0, 1.0, true, None), "low > 0"),
        // Optuna: "The parameter `step` is not supported when `log` is true."
        (float(1e-5, 0.1, true, Some(0.01)), "none on a log scale"),
        (float(0.0, 1.0, false, Some(0.0)), "step must be positive"),
        (float(0.0, 1.0, false, Some(f64::INFINITY)), "step must be positive"),
        (int(2, 1, false, 1), "low <= high"),
        (int(0, 10, false, 0), "step >= 1"),
        (int(0, 10, true, 1), "low >= 1"),
        // Optuna: "Samplers and other components in Optuna only accept step is 1 when `log` argument is True."
        (int(1, 64, true, 2), "1 on a log scale"),
        (Distribution::Categorical { choices: vec![] }, "needs a choice"),
    ];
    for (d, why) in &refused {
        let said = d.validate().expect_err(&format!("{d:?} is refused"));
        assert!(said.contains(why), "{d:?}: {said}");
    }
}

/// Optuna's serialised distributions, the ones before 3.0 included; a valid form of an
/// invalid distribution is refused with the rule's reason.
#[test]
fn optuna_json_is_read_and_checked() {
    let read = |name: &str, attributes: Value| Distribution::from_optuna_json(&json!({"name": name, "attributes": attributes}).to_string());
    assert_eq!(read("FloatDistribution", json!({"low": 1e-5, "high": 0.1, "log": true, "step": null})), Ok(float(1e-5, 0.1, true, None)));
    assert_eq!(read("IntDistribution", json!({"low": 32, "high": 512, "log": false, "step": 32})), Ok(int(32, 512, false, 32)));
    assert_eq!(read("DiscreteUniformDistribution", json!({"low": 0.0, "high": 1.0, "q": 0.5})), Ok(float(0.0, 1.0, false, Some(0.5))));
    assert_eq!(read("IntLogUniformDistribution", json!({"low": 1, "high": 8, "step": 2})), Ok(int(1, 8, true, 1)));
    assert_eq!(
        read("CategoricalDistribution", json!({"choices": ["a", 1, null]})),
        Ok(Distribution::Categorical { choices: vec![json!("a"), json!(1), Value::Null] })
    );
    assert_eq!(read("NormalDistribution", json!({})), Err("not a distribution Optuna writes".into()));
    assert!(read("FloatDistribution", json!({"low": 1e-5, "high": 0.1, "log": true, "step": 0.01})).unwrap_err().contains("log scale"));
}

/// Internal and external values: a choice by its index, an integer rounded, a value outside
/// the distribution refused.
#[test]
fn internal_and_external_values_round_trip() {
    let space = vec![
        ("lr".to_string(), float(1e-4, 1.0, true, None)),
        ("width".to_string(), int(8, 256, false, 8)),
        ("optimizer".to_string(), Distribution::Categorical { choices: vec![json!("adam"), json!("sgd")] }),
    ];
    let config = [0.01, 64.0, 1.0];
    let external: Vec<Value> = space.iter().zip(&config).map(|((_, d), &v)| d.external(v)).collect();
    assert_eq!(external, vec![json!(0.01), json!(64), json!("sgd")]);
    assert_eq!(internal(&space, &external), Ok(config.to_vec()));
    assert!(internal(&space, &[json!(0.01), json!(65), json!("sgd")]).unwrap_err().contains("'width'"));
    assert_eq!(space.iter().map(|(_, d)| d.inactive_value()).collect::<Vec<_>>(), vec![1e-4, 8.0, 0.0]);
}

/// Every draw and every decoded point of the searched space is a value of its distribution,
/// on its steps.
#[test]
fn draws_and_decoded_points_are_on_the_steps() {
    let space = vec![
        ("x".to_string(), float(-1.0, 1.0, false, Some(0.3))),
        ("lr".to_string(), float(1e-4, 1.0, true, None)),
        ("n".to_string(), int(1, 100, true, 1)),
        ("width".to_string(), int(8, 250, false, 8)),
        ("c".to_string(), Distribution::Categorical { choices: vec![json!("a"), json!("b"), json!("c")] }),
    ];
    let mut rng = crate::optimizer::job_rng(0, "study");
    for _ in 0..200 {
        let c = draw(&space, &mut rng);
        assert!(space.iter().zip(&c).all(|((_, d), &v)| d.holds(v) && d.on_steps(v) == v), "{c:?}");
    }
    let encoded = search_space(&space);
    let searched = searched_space(&space, &encoded);
    assert_eq!(searched.coordinates.len(), space.len());
    let c = decode(&space, &[0.5, 0.0, 0.5, 1.0, 0.1, 0.7, 0.2]);
    assert!((c[0] + 0.1).abs() < 1e-12 && (c[1] - 1e-4).abs() < 1e-12, "{c:?}");
    assert_eq!((c[3], c[4]), (248.0, 1.0), "the last step below the upper bound, the likeliest choice");
    assert!(space.iter().zip(&c).all(|((_, d), &v)| d.holds(v) && d.on_steps(v) == v), "{c:?}");
}
