//! hpo-playground: run, compare and teach hyperparameter optimization in the browser.
//!
//! [`engine`] is pure Rust (no web crates) and is what the native CLI, the Web Workers and
//! the tests all call. [`app`] (wasm only) wires the engine to a Leptos UI, and
//! [`worker_protocol`] is the message format between the page and its workers.
#![warn(missing_docs)]

pub mod engine;
pub mod worker_protocol;

#[cfg(target_arch = "wasm32")]
pub mod app;
