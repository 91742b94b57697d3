//! Lints arbitrary bytes as a deployment file (the first byte picks its name).
//! The work is in `common.rs`, shared with the regression test.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::deploy(data));
