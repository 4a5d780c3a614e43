//! Drawing only: line charts and their frame, scatter plots, critical-difference diagrams (no state of the page).

pub mod cd_diagram;
pub mod chart;
pub mod scatter;
