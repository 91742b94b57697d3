//! Extracts flags and metrics from arbitrary text as `core/config.cpp`.
//! The work is in `common.rs`, shared with the regression test.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::extract(data));
