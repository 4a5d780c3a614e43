//! The engine: benchmarks, loaders, methods, runner, metrics, links — pure Rust, no web
//! crates, deterministic given a seed. The CLI, the Web Workers and the tests call it alike.
//!
//! Layout: [`benchmark`], [`space`] and [`study`] (an Optuna study's model) hold data;
//! [`loaders`] read it; [`optimizer`] is the one trait methods implement ([`methods`] holds one file per method); [`spec`] says what to
//! run, [`runner`] runs one job, [`metrics`] and [`export`] summarise; [`permalink`] turns a
//! spec into a link and back; [`bundled`] generates the shipped benchmarks.
//!
//! # Papers
//! - D. Salinas, H. Shen, V. Perrone. *A Quantile-based Approach for Hyperparameter Transfer
//!   Learning.* ICML 2020 (DTM/ADTM, trace format, copula data format).
//! - V. Perrone et al. *Scalable Hyperparameter Transfer Learning.* NeurIPS 2018 (quadratic family).
//! - M. Wistuba, N. Schilling, L. Schmidt-Thieme. *Scalable Gaussian process-based transfer
//!   surrogates for hyperparameter optimization.* Machine Learning 2018 (DTM).
#![warn(missing_docs)]

pub mod adam;
pub mod axis;
pub mod benchmark;
pub mod bundled;
pub mod continuous;
pub mod data_ref;
pub mod error;
pub mod eta;
pub mod exploding_curves;
pub mod explore;
pub mod export;
pub mod fidelity;
pub mod fixtures;
pub mod gp;
pub mod gpb_experiments;
pub mod kept;
pub mod lbfgs;
pub mod lbfgsb;
pub mod lessons;
pub mod linalg_bench;
pub mod loaders;
pub mod method_entry;
pub mod methods;
pub mod optimizer;
pub mod pareto;
pub mod percent;
pub mod permalink;
pub mod prior;
pub mod prior_slice;
pub mod public_data;
pub mod race;
pub mod registry;
pub mod results;
pub mod runner;
pub mod setup;
pub mod smooth;
pub mod space;
pub mod spec;
pub mod stats;
pub mod study;
pub mod suggest;
pub mod trace;
pub mod transfer;
pub mod warping;

pub use error::{EngineError, Result};

/// Lower-case hex SHA-256 of bytes: how links identify uploaded files.
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_known_value() {
        assert_eq!(super::content_hash(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
