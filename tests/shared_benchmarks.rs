//! The real tables in ../shared/benchmarks load as the README describes. Skipped (with a
//! message) when ../shared is absent: the build must work without it.

use std::path::PathBuf;

use hpo_playground::engine::loaders::copula::load_copula_format;
use hpo_playground::engine::loaders::curves::{load_lcbench, NamedBytes};

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/benchmarks").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not present", p.display());
        None
    }
}

#[test]
fn quantile_transfer_files_load_with_the_documented_shape() {
    for (file, name, tasks, rows, inputs, objective) in [
        ("DeepAR.csv.zip", "DeepAR", 11, 2510, 6, "metric_CRPS"),
        ("XGBoost.csv.zip", "XGBoost", 10, 50_000, 8, "metric_error"),
        ("nas_bench102.csv.zip", "NAS", 3, 46_875, 30, "metric_error"),
    ] {
        let Some(path) = shared(&format!("quantile-transfer/{file}")) else {
            return;
        };
        let loaded = load_copula_format(file, &std::fs::read(path).unwrap()).unwrap();
        let b = &loaded.benchmark;
        assert_eq!((b.name.as_str(), b.tasks.len(), b.total_rows(), b.space.encoded_dim()), (name, tasks, rows, inputs), "{file}");
        assert_eq!(b.metrics[b.objective].name, objective);
    }
}

#[test]
fn lcbench_surrogate_loads_34_tasks_of_2000_curves() {
    let Some(dir) = shared("lcbench-surrogate") else {
        return;
    };
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let (configs, acc, time, names) = (
        read("lcbench_configs.csv"),
        read("lcbench_surrogate_val_balanced_accuracy.csv.gz"),
        read("lcbench_surrogate_time.csv.gz"),
        read("lcbench_task_names.csv"),
    );
    let loaded = load_lcbench(
        NamedBytes { name: "lcbench_configs.csv", bytes: &configs },
        NamedBytes { name: "val_balanced_accuracy", bytes: &acc },
        "val_balanced_accuracy",
        Some(NamedBytes { name: "time", bytes: &time }),
        Some(NamedBytes { name: "names", bytes: &names }),
    )
    .unwrap();
    let b = &loaded.benchmark;
    assert_eq!(b.tasks.len(), 34);
    assert!(b.tasks.iter().all(|t| t.len() == 2000));
    let curves = b.tasks[0].curves.as_ref().unwrap();
    assert_eq!(curves.values[0].len(), 52);
    assert!(curves.cost.as_ref().unwrap()[0].windows(2).all(|w| w[1] >= w[0]), "time is cumulative");
}
