//! Getting a benchmark into the page: bundled assets, the shared tables served beside the app,
//! and uploads (verified against the link's hash when a link names them).

use std::sync::Arc;

use leptos::prelude::*;

use super::browser::{fetch_bytes, file_bytes, next_frame, now_ms};
use super::state::{AppState, Level};
use crate::engine::benchmark::Benchmark;
use crate::engine::content_hash;
use crate::engine::loaders::copula::load_copula_format;
use crate::engine::loaders::MAX_DECOMPRESSED_BYTES;
use crate::engine::methods::METHODS;
use crate::engine::permalink::reconcile;
use crate::engine::spec::DataRef;

/// Largest upload accepted, checked before reading the file.
pub const MAX_UPLOAD_BYTES: f64 = MAX_DECOMPRESSED_BYTES as f64;

/// Reads the list of shared tables the build copied beside the app.
pub async fn load_shared_manifest(state: AppState) {
    if let Ok(bytes) = fetch_bytes("shared/manifest.json").await {
        if let Ok(files) = serde_json::from_slice::<Vec<String>>(&bytes) {
            state.shared_files.set(files);
        }
    }
}

/// Loads the data a spec refers to. `keep_setup` keeps the spec's tasks and objective (a
/// link being opened); otherwise they are reset for the new data.
pub async fn load_ref(state: AppState, data: DataRef, keep_setup: bool) {
    match &data {
        DataRef::Upload { name, sha256 } => {
            state.bench.set(None);
            state.pending_upload.set(Some((name.clone(), sha256.clone())));
            state.data_info.set(format!("waiting for your file {name}"));
            state.say(
                Level::Info,
                format!("This link uses your file '{name}' (SHA-256 {}…). Choose or drop that file below to restore the experiment.", &sha256[..12]),
            );
        }
        DataRef::Bundled(name) | DataRef::Shared(name) => {
            let url = match &data {
                DataRef::Bundled(_) => format!("assets/{name}.csv"),
                _ => format!("shared/{name}"),
            };
            state.loading.set(true);
            state.data_info.set(format!("loading {name}…"));
            let t0 = now_ms();
            let result = match fetch_bytes(&url).await {
                Ok(bytes) => {
                    next_frame().await;
                    load_copula_format(name, &bytes).map_err(|e| e.to_string())
                }
                Err(e) => Err(if matches!(data, DataRef::Shared(_)) { format!("{e} (the shared benchmarks are copied in at build time from ../shared/benchmarks)") } else { e }),
            };
            state.loading.set(false);
            match result {
                Ok(loaded) => {
                    for w in loaded.warnings {
                        state.say(Level::Warning, w);
                    }
                    install(state, data, loaded.benchmark, keep_setup, now_ms() - t0);
                }
                Err(e) => {
                    state.data_info.set("no data loaded".into());
                    state.say(Level::Error, e);
                }
            }
        }
    }
}

/// Loads an uploaded file.
pub async fn load_upload(state: AppState, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_UPLOAD_BYTES {
        state.say(Level::Error, format!("{name}: {:.0} MiB is larger than the {} MiB the playground accepts", file.size() / 1048576.0, MAX_DECOMPRESSED_BYTES >> 20));
        return;
    }
    state.loading.set(true);
    state.data_info.set(format!("reading {name}…"));
    let t0 = now_ms();
    let bytes = match file_bytes(&file).await {
        Ok(b) => b,
        Err(e) => {
            state.loading.set(false);
            state.say(Level::Error, e);
            return;
        }
    };
    let sha256 = content_hash(&bytes);
    let pending = state.pending_upload.get_untracked();
    if let Some((expected_name, expected_hash)) = &pending {
        if *expected_hash != sha256 {
            state.loading.set(false);
            state.say(
                Level::Error,
                format!(
                    "{name} is not the file this link was made with: its SHA-256 is {}…, the link expects '{expected_name}' with {}…. Choose the original file, or pick another data source to start afresh.",
                    &sha256[..12],
                    &expected_hash[..12]
                ),
            );
            return;
        }
    }
    next_frame().await;
    let result = load_copula_format(&name, &bytes);
    state.loading.set(false);
    match result {
        Ok(loaded) => {
            for w in loaded.warnings {
                state.say(Level::Warning, w);
            }
            let keep = pending.is_some();
            state.pending_upload.set(None);
            install(state, DataRef::Upload { name, sha256 }, loaded.benchmark, keep, now_ms() - t0);
        }
        Err(e) => {
            state.data_info.set(if state.bench.get_untracked().is_some() { "kept the previous data".into() } else { "no data loaded".into() });
            state.say(Level::Error, e.to_string());
        }
    }
}

fn install(state: AppState, data: DataRef, bench: Benchmark, keep_setup: bool, ms: f64) {
    state.clear(Level::Error);
    state.data_info.set(format!(
        "{}: {} tasks, {} evaluations, {} hyperparameters ({} model inputs), loaded in {:.0} ms",
        bench.name,
        bench.tasks.len(),
        bench.total_rows(),
        bench.space.params.len(),
        bench.space.encoded_dim(),
        ms
    ));
    let task_names: Vec<String> = bench.tasks.iter().map(|t| t.name.clone()).collect();
    let methods: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
    let mut warnings = Vec::new();
    state.spec.update(|spec| {
        spec.data = data;
        if !keep_setup {
            spec.tasks.clear();
            spec.objective = None;
            spec.direction = None;
        }
        if let Some(o) = &spec.objective {
            if bench.metric_index(o).is_none() {
                warnings.push(format!("objective '{o}' is not a metric of {}; using {}", bench.name, bench.metrics[bench.objective].name));
                spec.objective = None;
            }
        }
        warnings.extend(reconcile(spec, &task_names, &methods));
    });
    for w in warnings {
        state.say(Level::Warning, w);
    }
    state.best_task.set(task_names.first().cloned().unwrap_or_default());
    state.bench.set(Some(Arc::new(bench)));
}
