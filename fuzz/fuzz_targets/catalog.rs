//! Parses arbitrary text as a catalogue and exercises what reads one.
//! The work is in `common.rs`, shared with the regression test.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::catalog(data));
