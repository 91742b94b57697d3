//! The catalogue: its model, where catalogues are stored, the engine
//! profiles (and the eras of their source), the questions every user asks
//! of a catalogue, how two compare, and how one is rendered for people.

pub mod diff;
pub mod history;
pub mod metric_since;
pub mod model;
pub mod pinned;
pub mod profile;
pub mod query;
pub mod render;
pub mod semantics;
pub mod since;
pub mod store;
pub mod tag;
