//! The data's way in and what the browser keeps: a load's sources ([`load`]), its decision and
//! store ([`install`]), the column roles ([`roles`]), and keeping files and finished jobs ([`kept`]).

pub mod install;
pub mod kept;
pub mod load;
pub mod roles;
