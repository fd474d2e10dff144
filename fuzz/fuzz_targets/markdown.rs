//! The Markdown of incident updates, postmortems and page footers, rendered to HTML that must
//! carry no script: no `<script`, no `javascript:` address, no event handler attribute.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let html = herald::render::markdown::to_safe_html(text).to_ascii_lowercase();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("href=\"javascript:"), "{html}");
    assert!(!html.contains("src=\"javascript:"), "{html}");
});
