//! A subscriber file to import (Statuspage's template, Herald's export, any headed sheet).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = herald::domain::imports::subscriber_csv::read(data);
});
