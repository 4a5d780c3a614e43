//! The page's panels, each a part the page lays out on its own: the four numbered sections, the views opened below them, what the browser keeps, and the first visit's strip.

pub mod data_panel;
pub mod design_view;
pub mod kept_panel;
pub mod landing;
pub mod results;
pub mod run;
pub mod setup;
pub mod study_view;
pub mod suggest_view;
