//! Paper 003's experiments (*Optimal Designs of Gaussian Processes with Budgets for
//! Hyperparameter Optimization*, anonymous ICLR 2021 submission,
//! `../shared/papers/003_2639ebb4ade415e5.txt`) and what the page's design view draws.
//!
//! - [`synthetic`]: the paper's test functions and the experiments of Tables 1 and 2.
//! - [`protocol`]: the arms of Tables 3–4 on a tabular benchmark.
//! - [`design_view`]: one design with the map of d(x, ξ) and the §4.1 function fitted by GPB,
//!   for the page's design view and lesson 5.
//! - [`speed`]: how long a GPB step and a design take, natively and in a browser.
//!
//! The model, the design criteria and the constructions are the race method's own, in
//! [`crate::fidelity::gpb`] (its files `model`, `design`, `construct`), as is the view's
//! setting (`view_setting`), which a link carries.

pub mod design_view;
pub mod protocol;
pub mod speed;
pub mod synthetic;
