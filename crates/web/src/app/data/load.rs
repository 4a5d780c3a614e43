//! Getting a benchmark into the page: bundled assets, the shared tables served beside the app,
//! and uploads (verified against the link's hash when a link names them). Files are parsed
//! in a dedicated Web Worker so that even a large table never freezes the page. Each source
//! reads its bytes once and ends in [`super::install`]: decide what the reply makes of the
//! page, then store it.

use std::rc::Rc;

use futures_channel::oneshot;
use leptos::prelude::*;

use super::install::{decide, store, Decision, Read};
use super::kept::{forget_file, keep_file};
use super::roles::role_of;
use crate::app::platform::browser::{fetch_bytes, file_bytes, now_ms};
use crate::app::platform::workers::{ParseReply, WorkerService};
use crate::app::state::{AppState, DataState, Level, RoleEditor, UserFile};
use hpo_engine::content_hash;
use hpo_engine::loaders::table::{ColumnRoles, LoadOptions};
use hpo_engine::loaders::upload::LoadFailure;
use hpo_engine::loaders::MAX_DECOMPRESSED_BYTES;
use hpo_engine::public_data::verify;
use hpo_engine::spec::{DataRef, ExperimentSpec};
use hpo_protocol::ToWorker;

/// Largest upload accepted, checked before reading the file.
pub const MAX_UPLOAD_BYTES: f64 = MAX_DECOMPRESSED_BYTES as f64;

/// How to read `data`: the link's options when it is being opened (or re-read), the
/// defaults for `data` when it is new.
fn options_for(spec: RwSignal<ExperimentSpec>, data: &DataRef, keep_setup: bool) -> LoadOptions {
    let spec = if keep_setup { spec.get_untracked() } else { ExperimentSpec::default() };
    ExperimentSpec { data: data.clone(), ..spec }.load_options()
}

/// Parses `bytes` in the parser worker (`review`: answers with the column editor's starting
/// point instead of loading). The message owns its bytes: they are moved to the worker.
async fn parse(workers: WorkerService, file: String, bytes: Vec<u8>, options: LoadOptions, review: bool) -> ParseReply {
    let request = workers.next_request();
    workers.parser.ask(request, ToWorker::Parse { request, file, bytes, options: Box::new(options), review }).await
}

/// The end of load `ticket`: what the reply makes of the page, stored, unless a newer load began.
fn settle(state: AppState, ticket: u64, read: Read, reply: ParseReply) {
    if is_newest(ticket) {
        let decision = state.spec.with_untracked(|spec| decide(spec, read, reply));
        store(state, decision);
    }
}

/// Reads the list of shared tables the build copied beside the app.
pub async fn load_shared_manifest(data: DataState) {
    if let Ok(bytes) = fetch_bytes("shared/manifest.json").await {
        if let Ok(files) = serde_json::from_slice::<Vec<String>>(&bytes) {
            data.shared_files.set(files);
        }
    }
}

thread_local! {
    /// The number of the newest load. A load that ends after a newer one began is dropped, so
    /// that a slow default table can never replace the file the user chose meanwhile (seen:
    /// the bundled table, still loading when a file was chosen, finished second and won).
    static NEWEST_LOAD: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Starts a load: its number.
fn begin_load() -> u64 {
    NEWEST_LOAD.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

/// Whether load `ticket` is still the newest.
fn is_newest(ticket: u64) -> bool {
    NEWEST_LOAD.with(|n| n.get() == ticket)
}

/// Loads the data a spec refers to. `keep_setup` keeps the spec's tasks and objective (a
/// link being opened); otherwise they are reset for the new data.
pub async fn load_ref(state: AppState, data: DataRef, keep_setup: bool) {
    let ticket = begin_load();
    state.data.role_editor.set(None);
    match &data {
        DataRef::Upload { name, sha256 } => {
            // A file kept in this browser is loaded without asking for it again.
            if let Ok(Some((kept, bytes))) = crate::app::platform::store::get_file(sha256).await {
                if !is_newest(ticket) {
                    return;
                }
                if content_hash(&bytes) == *sha256 {
                    state.data.loading.set(true);
                    state.data.info.set(format!("parsing {name} (kept in this browser) in a worker…"));
                    let t0 = now_ms();
                    let file = UserFile { data: data.clone(), name: name.clone(), bytes: Rc::new(bytes) };
                    let options = options_for(state.spec, &data, keep_setup);
                    let reply = parse(state.workers, kept.name, file.bytes.to_vec(), options, false).await;
                    settle(state, ticket, Read { data, file: Some(file), keep_setup, roles: None, t0 }, reply);
                    return;
                }
            }
            if !is_newest(ticket) {
                return;
            }
            state.data.bench.set(None);
            state.data.encoded.set_value(None);
            state.data.pending_upload.set(Some((name.clone(), sha256.clone())));
            state.data.info.set(format!("waiting for your file {name}"));
            state.messages.say(
                Level::Info,
                format!(
                    "This link uses your file '{name}' (SHA-256 {}…). Choose or drop that file below to restore the experiment.",
                    &sha256[..12]
                ),
            );
        }
        DataRef::Url { url, sha256 } => load_url(state, ticket, url.clone(), sha256.clone(), keep_setup).await,
        DataRef::Bundled(name) | DataRef::Shared(name) => {
            let url = match &data {
                DataRef::Bundled(_) => format!("assets/{name}.csv"),
                _ => format!("shared/{name}"),
            };
            state.data.loading.set(true);
            state.data.info.set(format!("loading {name}…"));
            let t0 = now_ms();
            let fetched = fetch_bytes(&url).await;
            if !is_newest(ticket) {
                return;
            }
            match fetched {
                Ok(bytes) => {
                    let options = options_for(state.spec, &data, keep_setup);
                    let reply = parse(state.workers, name.clone(), bytes, options, false).await;
                    settle(state, ticket, Read { data: data.clone(), file: None, keep_setup, roles: None, t0 }, reply);
                }
                Err(e) => {
                    let hint = if matches!(data, DataRef::Shared(_)) {
                        " (the shared benchmarks are copied in at build time from ../shared/benchmarks)"
                    } else {
                        ""
                    };
                    store(state, Decision::Unavailable(format!("{e}{hint}")));
                }
            }
        }
    }
}

/// Loads a public file named by URL and SHA-256: the copy kept in this browser if there is
/// one (so a link opens offline), else a download that must have that hash, then kept.
async fn load_url(state: AppState, ticket: u64, url: String, sha256: String, keep_setup: bool) {
    let name = hpo_engine::spec::url_file_name(&url);
    let data = DataRef::Url { url: url.clone(), sha256: sha256.clone() };
    state.data.loading.set(true);
    let t0 = now_ms();
    let kept = crate::app::platform::store::get_file(&sha256).await.ok().flatten().map(|(_, b)| b).filter(|b| content_hash(b) == sha256);
    let from_network = kept.is_none();
    let bytes = match kept {
        Some(bytes) => bytes,
        None => {
            state.data.info.set(format!("downloading {name} from {url}…"));
            let fetched = fetch_bytes(&url).await.and_then(|bytes| verify(&url, &sha256, &bytes).map(|()| bytes));
            match fetched {
                Ok(bytes) => bytes,
                Err(e) => {
                    if is_newest(ticket) {
                        // The same table copied beside the page opens without the network.
                        let shared = state
                            .data
                            .shared_files
                            .with_untracked(|files| files.iter().find(|f| f.ends_with(&format!("/{name}")) || **f == name).cloned());
                        let offer = shared
                            .map(|f| format!(" The same table is beside this page: choose \"{f}\" under Real benchmarks in Data."))
                            .unwrap_or_default();
                        store(state, Decision::Unavailable(format!("{e}{offer}")));
                    }
                    return;
                }
            }
        }
    };
    if !is_newest(ticket) {
        return;
    }
    state.data.info.set(format!("parsing {name} ({:.1} MiB) in a worker…", bytes.len() as f64 / 1048576.0));
    let file = UserFile { data: data.clone(), name: name.clone(), bytes: Rc::new(bytes) };
    let options = options_for(state.spec, &data, keep_setup);
    let reply = parse(state.workers, name.clone(), file.bytes.to_vec(), options, false).await;
    if is_newest(ticket) {
        let loaded = reply.0.is_ok();
        let bytes = file.bytes.clone();
        settle(state, ticket, Read { data, file: Some(file), keep_setup, roles: None, t0 }, reply);
        if loaded && from_network {
            keep_file(state.kept, state.messages, name, sha256, Some(url), &bytes).await;
        }
    }
}

/// Loads an uploaded file.
pub async fn load_upload(state: AppState, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_UPLOAD_BYTES {
        state.messages.say(
            Level::Error,
            format!(
                "{name}: {:.0} MiB is larger than the {} MiB the playground accepts",
                file.size() / 1048576.0,
                MAX_DECOMPRESSED_BYTES >> 20
            ),
        );
        return;
    }
    let ticket = begin_load();
    state.data.loading.set(true);
    state.data.info.set(format!("reading {name}…"));
    let t0 = now_ms();
    let bytes = match file_bytes(&file).await {
        Ok(b) => Rc::new(b),
        Err(e) => {
            state.data.loading.set(false);
            state.messages.say(Level::Error, e);
            return;
        }
    };
    // The browser hashes off the main thread; the engine's hash is the fallback (and the reference).
    let sha256 = match crate::app::platform::browser::sha256_hex(&bytes).await {
        Ok(h) => h,
        Err(_) => content_hash(&bytes),
    };
    if !is_newest(ticket) {
        return;
    }
    let pending = state.data.pending_upload.get_untracked();
    if let Some((expected_name, expected_hash)) = &pending {
        if *expected_hash != sha256 {
            state.data.loading.set(false);
            state.messages.say(
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
    let keep = pending.is_some();
    let data = DataRef::Upload { name: name.clone(), sha256: sha256.clone() };
    let options = options_for(state.spec, &data, keep);
    state.data.info.set(format!("parsing {name} ({:.0} MiB) in a worker…", bytes.len() as f64 / 1048576.0));
    // Kept for next time (and for the link) while it is parsed, so that the link the page shows
    // once the data is in opens in another tab at once; forgotten again if it does not load.
    let known = state.kept.with_untracked(|k| k.files.iter().any(|f| f.sha256 == sha256));
    let keeping = (!known).then(|| {
        let (tx, rx) = oneshot::channel();
        let (name, sha256, bytes) = (name.clone(), sha256.clone(), bytes.clone());
        leptos::task::spawn_local(async move {
            keep_file(state.kept, state.messages, name, sha256, None, &bytes).await;
            let _ = tx.send(());
        });
        rx
    });
    let reply = parse(state.workers, name.clone(), bytes.to_vec(), options, false).await;
    if let Some(kept) = keeping {
        let _ = kept.await;
        if reply.0.is_err() {
            forget_file(state.kept, &sha256).await;
        }
    }
    let file = UserFile { data: data.clone(), name, bytes };
    settle(state, ticket, Read { data, file: Some(file), keep_setup: keep, roles: None, t0 }, reply);
}

/// The user's file last loaded, when it is the setup's data.
fn last_file(data: DataState, spec: &ExperimentSpec) -> Option<UserFile> {
    data.files.with_value(|f| f.last.clone()).filter(|f| f.data == spec.data)
}

/// Reads the loaded user file again with the link's current options (after the missing-value
/// policy, a scale or the direction changed); other data is fetched again.
pub async fn reload_current(state: AppState) {
    let spec = state.spec.get_untracked();
    let Some(file) = last_file(state.data, &spec) else {
        load_ref(state, spec.data, true).await;
        return;
    };
    let ticket = begin_load();
    state.data.loading.set(true);
    state.data.info.set(format!("reading {} again with the new options…", file.name));
    let t0 = now_ms();
    let reply = parse(state.workers, file.name.clone(), file.bytes.to_vec(), spec.load_options(), false).await;
    settle(state, ticket, Read { data: file.data.clone(), file: Some(file), keep_setup: true, roles: None, t0 }, reply);
}

/// Opens the column editor on the loaded user file, starting from a guess of its roles (a
/// learning-curve file's steps, hyperparameters and task).
pub async fn review_columns(state: AppState) {
    let spec = state.spec.get_untracked();
    let Some(file) = last_file(state.data, &spec) else {
        state.messages.say(Level::Error, "choose the file again: its content is no longer in memory");
        return;
    };
    let (result, _) = parse(state.workers, file.name.clone(), file.bytes.to_vec(), spec.load_options(), true).await;
    match result {
        Err(LoadFailure::NeedsRoles { message, headers, preview, guess }) => {
            // The link's roles, when it has some, are where the editor starts.
            let start = spec.columns.unwrap_or(*guess);
            let roles = headers.iter().map(|h| role_of(&start, h).to_string()).collect();
            let name = file.name.clone();
            state.data.files.update_value(|f| f.awaiting_roles = Some(file));
            state.data.role_editor.set(Some(RoleEditor { file: name, message, headers, preview, roles, error: None }));
        }
        Err(LoadFailure::Error(e)) => state.messages.say(Level::Error, e),
        Ok(_) => {}
    }
}

/// Re-parses the file waiting for roles with the roles from the editor.
pub async fn apply_roles(state: AppState, roles: ColumnRoles) {
    let Some(file) = state.data.files.with_value(|f| f.awaiting_roles.clone()) else {
        state.messages.say(Level::Error, "choose the file again: its content is no longer in memory");
        return;
    };
    let ticket = begin_load();
    state.data.loading.set(true);
    let t0 = now_ms();
    // Roles for the data already loaded (reviewed) keep the rest of the setup.
    let keep = state.data.bench.with_untracked(Option::is_some) && state.spec.with_untracked(|s| s.data == file.data);
    let options = LoadOptions { roles: Some(roles.clone()), ..options_for(state.spec, &file.data, keep) };
    let reply = parse(state.workers, file.name.clone(), file.bytes.to_vec(), options, false).await;
    settle(state, ticket, Read { data: file.data.clone(), file: Some(file), keep_setup: keep, roles: Some(roles), t0 }, reply);
}
