//! A page's custom CSS: whatever the filter takes must not load from elsewhere once a browser
//! decodes it, so a stylesheet it accepts must hold no `@import` and no `expression(` in any
//! spelling the tokeniser decodes to those.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(kept) = herald::domain::brand::parse_custom_css(text) {
        assert!(!kept.contains("</"), "{kept}");
    }
});
