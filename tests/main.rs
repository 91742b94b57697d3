//! The integration tests: one binary, one module per area.

mod support;

mod catalog;
mod cli;
mod deploy;
mod docs;
mod expected;
mod explain;
mod fuzz_regressions;
mod gate;
mod hostile;
mod idioms;
mod lint;
mod llama;
mod project;
mod reliability;
mod rules;
mod sync;
mod verify;
