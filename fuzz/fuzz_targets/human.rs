//! Lints arbitrary bytes as a runbook and renders the report in the human format.
//! The work is in `common.rs`, shared with the regression test.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::human(data));
