//! `Accept-Language` (and `?lang=`) on the public read path, against every set of languages.
#![no_main]

use herald::domain::lang::{self, Lang};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (asked, header) = text.split_once('\n').unwrap_or(("", text));
    for n in 1..=Lang::ALL.len() {
        let enabled = &Lang::ALL[..n];
        let chosen = lang::choose(Some(asked), Some(header), enabled, Lang::En);
        assert!(enabled.contains(&chosen) || chosen == Lang::En);
        if let Some(preferred) = lang::preferred(header, enabled) {
            assert!(enabled.contains(&preferred));
        }
    }
    let _ = lang::read_stored(text, Lang::En);
});
