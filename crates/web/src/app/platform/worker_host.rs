//! A Web Worker as the page holds it: started by `boot.js`'s `hpoStartWorker` (which hands it
//! the worker wasm compiled once for the whole page), spoken to in bincode (the same encoding
//! gloo-worker used), terminated at once when asked or dropped.
//!
//! This replaces gloo-worker's bridge, which cannot terminate a worker: its `Drop` only asks
//! the worker to close after the message it is processing, so a cancelled multi-second step
//! ran to its end. Here `terminate()` is `Worker.terminate()`, and a worker that dies (a Rust
//! panic, running out of memory, a failed start) is reported once through `on_crash` with the
//! best message available: the panic's text (posted by the worker's panic hook before it
//! aborts) or the error event's.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use hpo_protocol::{FromWorker, ToWorker};

/// The page's function that starts a worker (`www/boot.js`): the build names the worker's files
/// by their hashes, and only the page's scripts know those names. It posts the worker wasm,
/// fetched and compiled once per page, as the worker's first message, so that five workers do
/// not fetch and compile 1.7 MB five times.
const START_WORKER: &str = "hpoStartWorker";

/// A worker started by the page's [`START_WORKER`] function.
fn start_worker() -> Result<web_sys::Worker, String> {
    let refused = "this browser refused to start a worker (the page needs Web Workers)".to_string();
    let start = js_sys::Reflect::get(&js_sys::global(), &START_WORKER.into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| format!("the page's start-up script is missing ({START_WORKER})"))?;
    start
        .call1(&wasm_bindgen::JsValue::NULL, &"hpo-worker".into())
        .map_err(|_| refused.clone())?
        .dyn_into::<web_sys::Worker>()
        .map_err(|_| refused)
}

struct Inner {
    worker: web_sys::Worker,
    /// The worker's wasm has started and set its message handler (it said `Ready`).
    ready: Cell<bool>,
    /// Messages sent before `Ready`: a worker drops what arrives before its handler is set.
    queued: RefCell<Vec<js_sys::Uint8Array>>,
    /// Terminated, or crashed: nothing more is sent or delivered.
    dead: Cell<bool>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// A running worker (cheap to clone; the worker is terminated when the last clone is dropped).
#[derive(Clone)]
pub struct WorkerHandle {
    inner: Rc<Inner>,
}

/// What a dead worker's message says when nothing better is known.
fn crash_text(detail: &str) -> String {
    if detail.is_empty() {
        "the worker stopped unexpectedly (out of memory or an internal error)".into()
    } else {
        format!("the worker stopped on an internal error ({detail})")
    }
}

impl WorkerHandle {
    /// Starts a worker. `on_message` gets every reply; `on_crash` is called at most once, when
    /// the worker dies on its own (never after [`WorkerHandle::terminate`]).
    pub fn spawn(on_message: impl Fn(FromWorker) + 'static, on_crash: impl Fn(String) + 'static) -> Result<WorkerHandle, String> {
        let worker = start_worker()?;
        // The handlers need the handle's state, which needs the handlers: tie them through a
        // weak slot filled right after.
        let slot: Rc<RefCell<std::rc::Weak<Inner>>> = Rc::new(RefCell::new(std::rc::Weak::new()));
        let on_crash: Rc<dyn Fn(String)> = Rc::new(on_crash);
        let crashed = {
            let (slot, on_crash) = (slot.clone(), on_crash.clone());
            move |message: String| {
                let Some(inner) = slot.borrow().upgrade() else { return };
                if !inner.dead.replace(true) {
                    inner.worker.terminate();
                    drop(inner);
                    on_crash(message);
                }
            }
        };
        let crashed = Rc::new(crashed);
        let on_message = {
            let (slot, crashed) = (slot.clone(), crashed.clone());
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                // No strong reference is held while a callback runs: it may drop the handle.
                if slot.borrow().upgrade().is_none_or(|inner| inner.dead.get()) {
                    return;
                }
                let bytes = js_sys::Uint8Array::new(&event.data()).to_vec();
                match FromWorker::decode(&bytes) {
                    Ok(FromWorker::Ready) => {
                        if let Some(inner) = slot.borrow().upgrade() {
                            inner.ready.set(true);
                            for message in inner.queued.take() {
                                post(&inner.worker, &message);
                            }
                        }
                    }
                    Ok(FromWorker::Crashed { message }) => crashed(crash_text(&message)),
                    Ok(msg) => on_message(msg),
                    Err(e) => crashed(crash_text(&e)),
                }
            })
        };
        let on_error = {
            let crashed = crashed.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
                event.prevent_default();
                // The browser's exception text ("Uncaught RuntimeError: unreachable") is for the
                // console; the page says what it means.
                let detail = event.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).unwrap_or_default();
                web_sys::console::warn_1(&format!("worker error: {detail}").into());
                let out_of_memory = detail.to_lowercase().contains("memory");
                crashed(if out_of_memory { "the worker ran out of memory".into() } else { crash_text("") });
            })
        };
        // The handlers are handed to JavaScript for good (two small closures per worker
        // started): a handler may drop the last handle while it runs, so it must not be freed
        // with the handle. They hold only a weak reference to the worker's state.
        let (on_message, on_error) = (on_message.into_js_value(), on_error.into_js_value());
        worker.set_onmessage(Some(on_message.unchecked_ref()));
        worker.set_onerror(Some(on_error.unchecked_ref()));
        worker.set_onmessageerror(Some(on_error.unchecked_ref()));
        let inner = Rc::new(Inner { worker, ready: Cell::new(false), queued: RefCell::new(Vec::new()), dead: Cell::new(false) });
        *slot.borrow_mut() = Rc::downgrade(&inner);
        Ok(WorkerHandle { inner })
    }

    /// Sends a message (queued until the worker is ready; dropped if it is dead).
    pub fn send(&self, message: &ToWorker) {
        if self.inner.dead.get() {
            return;
        }
        let bytes = match message.encode() {
            Ok(b) => b,
            Err(e) => {
                web_sys::console::error_1(&e.into());
                return;
            }
        };
        let array = js_sys::Uint8Array::from(bytes.as_slice());
        if self.inner.ready.get() {
            post(&self.inner.worker, &array);
        } else {
            self.inner.queued.borrow_mut().push(array);
        }
    }

    /// Stops the worker now, in the middle of whatever it computes.
    pub fn terminate(&self) {
        self.inner.dead.set(true);
        self.inner.worker.terminate();
    }

    /// True once the worker has crashed or been terminated.
    pub fn is_dead(&self) -> bool {
        self.inner.dead.get()
    }
}

/// Posts `bytes`, handing its buffer over instead of copying it (a 100 MB benchmark is not
/// copied a second time on the page's thread).
fn post(worker: &web_sys::Worker, bytes: &js_sys::Uint8Array) {
    let transfer = js_sys::Array::of1(&bytes.buffer());
    if let Err(e) = worker.post_message_with_transfer(bytes, &transfer) {
        web_sys::console::error_1(&e);
    }
}

/// Ids for requests to workers, one counter for the whole page, so that an answer is never
/// taken for another request's (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct RequestIds(leptos::prelude::StoredValue<u32, leptos::prelude::LocalStorage>);

impl RequestIds {
    /// No id used yet.
    pub fn new() -> Self {
        RequestIds(leptos::prelude::StoredValue::new_local(0))
    }

    /// An id never used before in this page.
    pub fn next(&self) -> u32 {
        use leptos::prelude::UpdateValue;
        self.0
            .try_update_value(|n| {
                *n += 1;
                *n
            })
            .unwrap_or_default()
    }
}

impl Default for RequestIds {
    fn default() -> Self {
        Self::new()
    }
}
