#![no_main]
//! `find-replace` through the executor; see `cmpx_fuzz::run_tool` for how the bytes become arguments.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cmpx_fuzz::run_tool("find-replace", data));
