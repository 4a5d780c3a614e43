//! Full-evaluation methods, one file per method (or per paper variant pair), each declaring
//! its [`crate::registry::MethodEntry`] beside the code it builds.

pub mod ablr;
pub mod auto_gp;
pub mod ehvi;
pub mod gcp;
pub mod gp;
pub mod parego;
pub mod prior_gp;
pub mod random_search;
pub mod scalarized;
pub mod sgpt;
pub mod surrogate_bo;
pub mod thompson;
pub mod ws_gp;
