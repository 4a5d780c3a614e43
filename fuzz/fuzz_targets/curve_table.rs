//! Fuzz target: see `curve_table_case` in tests/fuzz_cases/mod.rs (shared with the regression test).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_cases/mod.rs"]
mod cases;

fuzz_target!(|data: &[u8]| cases::curve_table_case(data));
