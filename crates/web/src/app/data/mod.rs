//! The data's way in and what the browser keeps: loading a benchmark ([`load`]) and keeping files and finished jobs ([`kept`]).

pub mod kept;
pub mod load;
