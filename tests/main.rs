//! The integration tests: one binary, one module per area.

mod support;

mod idioms;
mod sync;
