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

/// A tag's name and its attributes (name, value), quoted values read whole.
fn parse_tag(tag: &str) -> (String, Vec<(String, String)>) {
    let mut chars = tag.chars().peekable();
    let name: String = chars.by_ref().take_while(|c| !c.is_whitespace()).collect();
    let mut attributes = Vec::new();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let key: String = std::iter::from_fn(|| chars.next_if(|c| !c.is_whitespace() && *c != '='))
            .collect();
        if key.is_empty() && chars.peek().is_none() {
            return (name, attributes);
        }
        let mut value = String::new();
        if chars.next_if_eq(&'=').is_some() {
            match chars.next_if(|c| *c == '"' || *c == '\'') {
                Some(quote) => value = chars.by_ref().take_while(|c| *c != quote).collect(),
                None => value = chars.by_ref().take_while(|c| !c.is_whitespace()).collect(),
            }
        } else if key.is_empty() {
            chars.next();
        }
        attributes.push((key, value));
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let html = herald::domain::markdown::to_safe_html(text);
    for tag in tags(&html) {
        let (name, attributes) = parse_tag(&tag);
        assert!(name != "script" && name != "iframe", "{html}");
        for (key, value) in attributes {
            let value = value.trim();
            assert!(!key.starts_with("on"), "{tag} in {html}");
            assert!(
                !value.starts_with("javascript:") && !value.starts_with("vbscript:"),
                "{tag} in {html}"
            );
        }
    }
});
