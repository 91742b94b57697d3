//! The catalogue: its model, where catalogues are stored, how two compare,
//! and how one is rendered for people.

pub mod diff;
pub mod model;
pub mod render;
pub mod semantics;
pub mod store;
