//! Gaussian processes with budgets and their optimal initial designs (paper 003:
//! *Optimal Designs of Gaussian Processes with Budgets for Hyperparameter Optimization*,
//! anonymous ICLR 2021 submission, `../shared/papers/003_2639ebb4ade415e5.txt`).
//!
//! - [`model`]: the GPB model y(x, b) = g(x) + h(x, b) (§2, Eq. 1–3), GLS β and maximum
//!   likelihood covariance parameters, prediction at any budget and as b → ∞.
//! - [`design`]: the information matrix, the D/A/E criteria and the sensitivity d(x, ξ)
//!   of the equivalence theorem (§3.1–3.3, Thm. 1).
//! - [`construct`]: Random, LHD, Iterated Construction (Alg. 1), Threshold Acceptance (Alg. 2).
//! - [`synthetic`]: the paper's test functions and the experiments of Tables 1 and 2.
//!
//! The race method (EI over configuration and budget, §2 steps 1–5) is
//! [`crate::fidelity::gpb`].
//!
//! Further references: J. Kiefer, *General equivalence theory for optimum designs
//! (approximate theory)*, Ann. Statist. 1974; M. D. McKay, R. J. Beckman, W. J. Conover,
//! Technometrics 1979 (LHD); R. Tuo, C. F. J. Wu, D. Yu, Technometrics 2014 (the model
//! form); D. Ginsbourger, R. Le Riche, L. Carraro, *Kriging is well-suited to parallelize
//! optimization*, 2010 (the kriging believer used for batches).

pub mod construct;
pub mod design;
pub mod model;
pub mod protocol;
pub mod synthetic;
pub mod view;
