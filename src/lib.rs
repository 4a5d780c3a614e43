//! hpo-playground: run, compare and teach hyperparameter optimization in the browser.
//!
//! The workspace's crates, re-exported under the names the binaries and tests use:
//! [`engine`] (`crates/engine`) is pure Rust (no web crates) and is what the native CLI, the
//! Web Workers and the tests all call; [`app`] (`crates/web`, wasm only) wires the engine to
//! a Leptos UI, and [`worker_protocol`] (`crates/protocol`) is the message format between the
//! page and its workers. This package holds the three binaries: the page, the worker and the `hpo` CLI.
#![warn(missing_docs)]

pub use hpo_engine as engine;
pub use hpo_protocol as worker_protocol;

#[cfg(target_arch = "wasm32")]
pub use hpo_web::app;
