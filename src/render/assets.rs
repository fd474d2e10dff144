//! Static assets (CSS, a little vanilla JS, icons) embedded in the binary and served under
//! content-hashed names (`app.3f9a1c2b.css`), so they can be cached forever: a change of content
//! is a change of name.

use std::collections::HashMap;
use std::sync::Arc;

use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};

use super::{CachePolicy, Representation};

/// The URL prefix assets are served under.
pub const PREFIX: &str = "/assets/";

/// The embedded `assets/` folder.
#[derive(RustEmbed)]
#[folder = "assets/"]
struct Embedded;

/// The assets, by plain and by fingerprinted name.
pub struct Assets {
    /// `app.css` -> `app.3f9a1c2b.css`.
    names: HashMap<String, String>,
    /// `app.3f9a1c2b.css` -> the response.
    files: HashMap<String, Arc<Representation>>,
}

impl std::fmt::Debug for Assets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<_> = self.files.keys().collect();
        names.sort();
        f.debug_struct("Assets").field("files", &names).finish()
    }
}

impl Assets {
    /// The embedded assets.
    pub fn load() -> Self {
        Self::from_files(Embedded::iter().filter_map(|name| {
            let file = Embedded::get(&name)?;
            Some((name.replace('\\', "/"), file.data.into_owned()))
        }))
    }

    /// Assets from `(name, content)` pairs.
    pub fn from_files(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Self {
        let mut assets = Self {
            names: HashMap::new(),
            files: HashMap::new(),
        };
        for (name, content) in files {
            let fingerprinted = fingerprinted_name(&name, &content);
            let rep = Representation::new(content_type(&name), content, CachePolicy::IMMUTABLE);
            assets.files.insert(fingerprinted.clone(), Arc::new(rep));
            assets.names.insert(name, fingerprinted);
        }
        assets
    }

    /// The URL of the asset `name` (e.g. `app.css` -> `/assets/app.3f9a1c2b.css`). An unknown
    /// name gets its plain URL, which answers 404.
    pub fn url(&self, name: &str) -> String {
        let file = self.names.get(name).map_or(name, String::as_str);
        format!("{PREFIX}{file}")
    }

    /// The bytes of the asset `name` (by its plain name).
    pub fn source(&self, name: &str) -> Option<bytes::Bytes> {
        let file = self.names.get(name)?;
        self.files.get(file).map(|rep| rep.identity.clone())
    }

    /// The asset served under a fingerprinted file name.
    pub fn get(&self, fingerprinted_file_name: &str) -> Option<Arc<Representation>> {
        self.files.get(fingerprinted_file_name).cloned()
    }
}

/// `app.css` -> `app.<first 8 hex digits of the SHA-256 of the content>.css`.
fn fingerprinted_name(name: &str, content: &[u8]) -> String {
    let hash = hex::encode(&Sha256::digest(content)[..4]);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains('/') => {
            format!("{stem}.{hash}.{ext}")
        }
        _ => format!("{name}.{hash}"),
    }
}

/// The content type by file extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("json") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::brand::Rgb;

    #[test]
    fn embedded_assets_are_served_under_fingerprinted_urls() {
        let assets = Assets::load();
        for (name, content_type) in [
            ("app.css", "text/css; charset=utf-8"),
            ("app.js", "text/javascript; charset=utf-8"),
            ("favicon.svg", "image/svg+xml"),
        ] {
            let url = assets.url(name);
            let file = url.strip_prefix(PREFIX).expect("under /assets/");
            assert_ne!(file, name, "{url} is fingerprinted");
            let rep = assets.get(file).expect("served");
            assert_eq!(rep.content_type, content_type);
            assert_eq!(rep.cache, CachePolicy::IMMUTABLE);
        }
        assert!(
            assets.get("app.css").is_none(),
            "plain names are not served"
        );
    }

    #[test]
    fn a_fingerprint_changes_with_the_content() {
        let one = Assets::from_files([("app.css".to_owned(), b"a{}".to_vec())]);
        let same = Assets::from_files([("app.css".to_owned(), b"a{}".to_vec())]);
        let other = Assets::from_files([("app.css".to_owned(), b"b{}".to_vec())]);
        let url = one.url("app.css");
        assert!(
            url.starts_with("/assets/app.") && url.ends_with(".css") && url.len() == 24,
            "{url}"
        );
        assert_eq!(url, same.url("app.css"));
        assert_ne!(url, other.url("app.css"));
        let body = one.get(&url[PREFIX.len()..]).expect("served");
        assert_eq!(&body.identity[..], b"a{}");
    }

    /// The colour variables of one theme block of `app.css` (`--name: #rrggbb;`).
    fn theme(css: &str, start: &str) -> HashMap<String, Rgb> {
        let block = &css[css.find(start).expect("theme block")..];
        let block = &block[..block.find('}').expect("block end")];
        block
            .lines()
            .filter_map(|line| {
                let (name, value) = line.trim().strip_prefix("--")?.split_once(':')?;
                let color = Rgb::parse(value.trim().strip_suffix(';')?)?;
                Some((name.to_owned(), color))
            })
            .collect()
    }

    #[test]
    fn both_themes_meet_wcag_aa_contrast() {
        let assets = Assets::load();
        let url = assets.url("app.css");
        let css = assets.get(&url[PREFIX.len()..]).expect("css");
        let css = std::str::from_utf8(&css.identity).expect("utf-8");
        let tones = ["ok", "minor", "partial", "major", "maint", "none"];
        let dark = "@media (prefers-color-scheme: dark)";
        let forced_dark = ":root[data-theme=\"dark\"] {";
        assert_eq!(
            theme(css, dark),
            theme(css, forced_dark),
            "a page always drawn dark has the dark theme's colours"
        );
        let (light, night) = (theme(css, ":root {"), theme(css, dark));
        assert_eq!(
            light["bg"],
            crate::domain::brand::LIGHT_BG,
            "brand colours are checked on it"
        );
        assert_eq!(
            night["bg"],
            crate::domain::brand::DARK_BG,
            "the dark shade is made for it"
        );
        assert_eq!(night["surface"], crate::domain::brand::DARK_SURFACE);
        for start in [":root {", dark] {
            let t = theme(css, start);
            let pair = |fg: &str, bg: &str, min: f64| {
                let ratio = t[fg].contrast(t[bg]);
                assert!(ratio >= min, "{start}: {fg} on {bg} is {ratio:.2}:1");
            };
            for bg in ["bg", "surface"] {
                for fg in ["text", "muted", "link"].iter().chain(&tones) {
                    pair(fg, bg, 4.5);
                }
            }
            for tone in tones {
                pair("on-tone", tone, 4.5);
            }
            pair("no-data", "bg", 3.0);
            pair("border", "bg", 1.2);
            pair("focus", "bg", 3.0);
        }
    }

    #[test]
    fn unknown_assets_get_a_plain_url() {
        let assets = Assets::from_files([]);
        assert_eq!(assets.url("nope.css"), "/assets/nope.css");
        assert!(assets.get("nope.css").is_none());
    }
}
