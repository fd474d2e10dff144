//! The Markdown of incident updates, postmortems and page footers, rendered to HTML that must
//! carry no script: no `<script` element, no `javascript:` or `vbscript:` address and no event
//! handler in any tag. Text is escaped (`&lt;`), so every `<` left in the output opens a tag;
//! what a reader sees as text (`ohref="javascript:` typed in a sentence) is not checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The tags of `html` (each `<...>`), lowercased.
fn tags(html: &str) -> impl Iterator<Item = String> + '_ {
    html.split('<')
        .skip(1)
        .map(|rest| rest.split('>').next().unwrap_or("").to_ascii_lowercase())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let html = herald::render::markdown::to_safe_html(text);
    for tag in tags(&html) {
        let name = tag.split_whitespace().next().unwrap_or("");
        assert!(name != "script" && name != "iframe", "{html}");
        for attribute in tag.split_whitespace().skip(1) {
            let (key, value) = attribute.split_once('=').unwrap_or((attribute, ""));
            let value = value.trim_matches('"').trim();
            assert!(!key.starts_with("on"), "{tag} in {html}");
            assert!(
                !value.starts_with("javascript:") && !value.starts_with("vbscript:"),
                "{tag} in {html}"
            );
        }
    }
});
