//! The page and its workers: the Leptos single-page app ([`app`], wasm only; the worker's code
//! is `app::platform::worker`). Everything the page computes goes through `hpo_engine`, and its messages
//! to the workers are `hpo_protocol`'s; this crate is built for size, those two for speed.
#![warn(missing_docs)]

#[cfg(target_arch = "wasm32")]
pub mod app;
