//! What the page keeps in the browser, in IndexedDB: files (uploads and downloaded public
//! tables) under their SHA-256, and experiments with each finished job's trace, so that a
//! reload or a crashed tab loses nothing.
//!
//! Written on web-sys's IndexedDB bindings rather than a wrapper crate: the one thing a user
//! must be told in words — that the browser's storage is full — arrives as the transaction's
//! `error` (a `QuotaExceededError`) on its abort, which the wrappers we tried (rexie 0.6 on idb
//! 0.6) report only as "aborted". The bindings plus two promise adapters are all we need.
//!
//! Every record is `{ key, json }` (the Rust value as JSON), plus `bytes` for file contents:
//! the Rust types stay the schema, and nothing depends on JavaScript field names.

use std::cell::RefCell;
use std::fmt;

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use hpo_engine::kept::{trace_key, trace_key_range, ExperimentRecord};
use hpo_engine::trace::Trace;

const DB_NAME: &str = "hpo-playground";
const DB_VERSION: u32 = 1;
/// File descriptions (small: listed without reading contents).
const FILES: &str = "files";
/// File contents, by the same key.
const FILE_BYTES: &str = "file_bytes";
const EXPERIMENTS: &str = "experiments";
const TRACES: &str = "traces";
const STORES: [&str; 4] = [FILES, FILE_BYTES, EXPERIMENTS, TRACES];

/// Why something could not be kept or read, in words.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreError {
    /// The browser's storage for this page is full.
    Quota,
    /// This browser offers no IndexedDB here (some private modes).
    Unavailable(String),
    /// Anything else, with the browser's words.
    Failed(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Quota => write!(
                f,
                "the browser's storage for this page is full; delete past experiments or files under 'Kept in this browser' (or clear all) to make room"
            ),
            StoreError::Unavailable(why) => write!(f, "this browser does not let the page keep anything ({why})"),
            StoreError::Failed(why) => write!(f, "the browser's storage failed ({why})"),
        }
    }
}

fn describe(value: &JsValue) -> String {
    if let Some(e) = value.dyn_ref::<web_sys::DomException>() {
        format!("{}: {}", e.name(), e.message())
    } else if let Some(e) = value.dyn_ref::<js_sys::Error>() {
        String::from(e.message())
    } else {
        format!("{value:?}")
    }
}

fn classify(error: Option<web_sys::DomException>, fallback: &str) -> StoreError {
    match error {
        Some(e) if e.name() == "QuotaExceededError" => StoreError::Quota,
        Some(e) => StoreError::Failed(format!("{}: {}", e.name(), e.message())),
        None => StoreError::Failed(fallback.into()),
    }
}

fn failed(value: JsValue) -> StoreError {
    match value.dyn_into::<web_sys::DomException>() {
        Ok(e) => classify(Some(e), ""),
        Err(value) => StoreError::Failed(describe(&value)),
    }
}

/// Waits for a request's success (its result) or error.
async fn request(req: &web_sys::IdbRequest) -> Result<JsValue, StoreError> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        req.set_onsuccess(Some(&resolve));
        req.set_onerror(Some(&reject));
    });
    match JsFuture::from(promise).await {
        Ok(_) => req.result().map_err(failed),
        Err(_) => Err(classify(req.error().ok().flatten(), "a request failed")),
    }
}

/// Waits until a transaction has committed; an abort says why (a full quota among others).
async fn committed(tx: &web_sys::IdbTransaction) -> Result<(), StoreError> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&reject));
    });
    JsFuture::from(promise).await.map(drop).map_err(|_| classify(tx.error(), "the transaction was aborted"))
}

thread_local! {
    static DB: RefCell<Option<web_sys::IdbDatabase>> = const { RefCell::new(None) };
}

/// The page's database, opened (and created) on first use.
async fn database() -> Result<web_sys::IdbDatabase, StoreError> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let factory = web_sys::window()
        .ok_or_else(|| StoreError::Unavailable("no window".into()))?
        .indexed_db()
        .map_err(|e| StoreError::Unavailable(describe(&e)))?
        .ok_or_else(|| StoreError::Unavailable("no IndexedDB".into()))?;
    let open = factory.open_with_u32(DB_NAME, DB_VERSION).map_err(|e| StoreError::Unavailable(describe(&e)))?;
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
        let Some(db) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::IdbOpenDbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|r| r.dyn_into::<web_sys::IdbDatabase>().ok())
        else {
            return;
        };
        let names = db.object_store_names();
        for store in STORES {
            if !names.contains(store) {
                let params = web_sys::IdbObjectStoreParameters::new();
                params.set_key_path(&JsValue::from_str("key"));
                let _ = db.create_object_store_with_optional_parameters(store, &params);
            }
        }
    });
    open.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let db: web_sys::IdbDatabase = request(&open).await?.dyn_into().map_err(|v| StoreError::Failed(describe(&v)))?;
    drop(upgrade);
    DB.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn transaction(db: &web_sys::IdbDatabase, stores: &[&str], write: bool) -> Result<web_sys::IdbTransaction, StoreError> {
    let names = js_sys::Array::new();
    for s in stores {
        names.push(&JsValue::from_str(s));
    }
    let mode = if write { web_sys::IdbTransactionMode::Readwrite } else { web_sys::IdbTransactionMode::Readonly };
    db.transaction_with_str_sequence_and_mode(&names, mode).map_err(failed)
}

fn store(tx: &web_sys::IdbTransaction, name: &str) -> Result<web_sys::IdbObjectStore, StoreError> {
    tx.object_store(name).map_err(failed)
}

/// `{ key, json }` for a Rust value.
fn record<T: Serialize>(key: &str, value: &T) -> Result<JsValue, StoreError> {
    let json = serde_json::to_string(value).map_err(|e| StoreError::Failed(e.to_string()))?;
    let object = js_sys::Object::new();
    js_sys::Reflect::set(&object, &"key".into(), &key.into()).map_err(failed)?;
    js_sys::Reflect::set(&object, &"json".into(), &json.into()).map_err(failed)?;
    Ok(object.into())
}

/// The value of a `{ key, json }` record, `None` if it is not one (or from an older format).
fn value_of<T: DeserializeOwned>(record: &JsValue) -> Option<T> {
    let json = js_sys::Reflect::get(record, &"json".into()).ok()?.as_string()?;
    serde_json::from_str(&json).ok()
}

fn range(lower: &str, upper: &str) -> Result<JsValue, StoreError> {
    web_sys::IdbKeyRange::bound_with_lower_open_and_upper_open(&lower.into(), &upper.into(), false, true).map(Into::into).map_err(failed)
}

/// A file kept in the browser (its contents are read separately).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptFile {
    /// File name as uploaded (or the URL's last part).
    pub name: String,
    /// Lower-case hex SHA-256 of the contents.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// Where it was downloaded from, for a public table fetched by URL.
    pub url: Option<String>,
    /// When it was kept (ms since 1970).
    pub saved_ms: f64,
}

/// Keeps a file's contents under its hash (replacing a previous copy).
pub async fn put_file(file: &KeptFile, bytes: &[u8]) -> Result<(), StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[FILES, FILE_BYTES], true)?;
    let contents = js_sys::Object::new();
    js_sys::Reflect::set(&contents, &"key".into(), &file.sha256.as_str().into()).map_err(failed)?;
    js_sys::Reflect::set(&contents, &"bytes".into(), &js_sys::Uint8Array::from(bytes)).map_err(failed)?;
    store(&tx, FILE_BYTES)?.put(&contents).map_err(failed)?;
    store(&tx, FILES)?.put(&record(&file.sha256, file)?).map_err(failed)?;
    committed(&tx).await
}

/// A kept file and its contents, if the browser has it.
pub async fn get_file(sha256: &str) -> Result<Option<(KeptFile, Vec<u8>)>, StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[FILES, FILE_BYTES], false)?;
    let meta = store(&tx, FILES)?.get(&sha256.into()).map_err(failed)?;
    let bytes = store(&tx, FILE_BYTES)?.get(&sha256.into()).map_err(failed)?;
    let (meta, bytes) = (request(&meta).await?, request(&bytes).await?);
    let Some(file) = value_of::<KeptFile>(&meta) else { return Ok(None) };
    let Some(array) = js_sys::Reflect::get(&bytes, &"bytes".into()).ok().and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok()) else {
        return Ok(None);
    };
    Ok(Some((file, array.to_vec())))
}

/// Every kept file, newest first.
pub async fn list_files() -> Result<Vec<KeptFile>, StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[FILES], false)?;
    let all = request(&store(&tx, FILES)?.get_all().map_err(failed)?).await?;
    let mut files: Vec<KeptFile> = js_sys::Array::from(&all).iter().filter_map(|r| value_of(&r)).collect();
    files.sort_by(|a, b| b.saved_ms.total_cmp(&a.saved_ms));
    Ok(files)
}

/// Forgets a file.
pub async fn delete_file(sha256: &str) -> Result<(), StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[FILES, FILE_BYTES], true)?;
    store(&tx, FILES)?.delete(&sha256.into()).map_err(failed)?;
    store(&tx, FILE_BYTES)?.delete(&sha256.into()).map_err(failed)?;
    committed(&tx).await
}

/// Keeps finished traces of an experiment together with its record (one transaction: the
/// record's counts never run ahead of the traces kept).
pub async fn put_traces(record: &ExperimentRecord, traces: &[Trace]) -> Result<(), StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[EXPERIMENTS, TRACES], true)?;
    let traces_store = store(&tx, TRACES)?;
    for t in traces {
        traces_store.put(&record_of_trace(&record.id, t)?).map_err(failed)?;
    }
    store(&tx, EXPERIMENTS)?.put(&record_json(record)?).map_err(failed)?;
    committed(&tx).await
}

/// Takes back traces of an experiment (a batch whose write a reload cut off before the page
/// counted it) and keeps `record` as it now is.
pub async fn forget_traces(record: &ExperimentRecord, traces: &[Trace]) -> Result<(), StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[EXPERIMENTS, TRACES], true)?;
    let traces_store = store(&tx, TRACES)?;
    for t in traces {
        traces_store.delete(&trace_key(&record.id, &t.method, &t.task, t.seed).into()).map_err(failed)?;
    }
    store(&tx, EXPERIMENTS)?.put(&record_json(record)?).map_err(failed)?;
    committed(&tx).await
}

fn record_of_trace(id: &str, t: &Trace) -> Result<JsValue, StoreError> {
    record(&trace_key(id, &t.method, &t.task, t.seed), t)
}

fn record_json(record: &ExperimentRecord) -> Result<JsValue, StoreError> {
    self::record(&record.id, record)
}

/// The bytes a trace takes when kept (its JSON), for the experiment's size.
pub fn kept_size(trace: &Trace) -> u64 {
    serde_json::to_string(trace).map_or(0, |s| s.len() as u64)
}

/// An experiment's record and kept traces, if any were kept.
pub async fn get_experiment(id: &str) -> Result<Option<(ExperimentRecord, Vec<Trace>)>, StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[EXPERIMENTS, TRACES], false)?;
    let record = store(&tx, EXPERIMENTS)?.get(&id.into()).map_err(failed)?;
    let (lo, hi) = trace_key_range(id);
    let traces = store(&tx, TRACES)?.get_all_with_key(&range(&lo, &hi)?).map_err(failed)?;
    let (record, traces) = (request(&record).await?, request(&traces).await?);
    let Some(record) = value_of::<ExperimentRecord>(&record) else { return Ok(None) };
    let traces: Vec<Trace> = js_sys::Array::from(&traces).iter().filter_map(|r| value_of(&r)).collect();
    Ok(Some((record, traces)))
}

/// Every kept experiment, most recently saved first.
pub async fn list_experiments() -> Result<Vec<ExperimentRecord>, StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[EXPERIMENTS], false)?;
    let all = request(&store(&tx, EXPERIMENTS)?.get_all().map_err(failed)?).await?;
    let mut list: Vec<ExperimentRecord> = js_sys::Array::from(&all).iter().filter_map(|r| value_of(&r)).collect();
    list.sort_by(|a, b| b.saved_ms.total_cmp(&a.saved_ms));
    Ok(list)
}

/// Forgets an experiment and its traces.
pub async fn delete_experiment(id: &str) -> Result<(), StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &[EXPERIMENTS, TRACES], true)?;
    store(&tx, EXPERIMENTS)?.delete(&id.into()).map_err(failed)?;
    let (lo, hi) = trace_key_range(id);
    store(&tx, TRACES)?.delete(&range(&lo, &hi)?).map_err(failed)?;
    committed(&tx).await
}

/// Forgets everything the page kept.
pub async fn clear_all() -> Result<(), StoreError> {
    let db = database().await?;
    let tx = transaction(&db, &STORES, true)?;
    for s in STORES {
        store(&tx, s)?.clear().map_err(failed)?;
    }
    committed(&tx).await
}

/// Bytes the page's origin uses and may use, as the browser estimates them.
pub async fn usage() -> Option<(f64, f64)> {
    let storage = web_sys::window()?.navigator().storage();
    // A dictionary, not a class instance: no `instanceof` check applies.
    let estimate: web_sys::StorageEstimate = JsFuture::from(storage.estimate().ok()?).await.ok()?.unchecked_into();
    Some((estimate.get_usage()?, estimate.get_quota()?))
}
