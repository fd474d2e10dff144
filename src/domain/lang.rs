//! The languages a page can be read in, and how a reader's language is chosen among a page's:
//! a `?lang=` the reader picked (the switcher's links carry it), then their browser's
//! `Accept-Language`, then the page's default.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::status::{ParseEnumError, string_enum};

string_enum! {
    /// A language Herald's own words are written in. The label is the language's own name,
    /// as a switcher shows it.
    #[derive(PartialOrd, Ord)]
    pub enum Lang ("language") {
        En => ("en", "English"),
        De => ("de", "Deutsch"),
        Fr => ("fr", "Français"),
        Es => ("es", "Español"),
        Pt => ("pt", "Português"),
        Ja => ("ja", "日本語"),
    }
}

/// The longest `Accept-Language` value read; browsers send a few dozen bytes, and a header
/// longer than this is not worth parsing on the read path.
const MAX_ACCEPT_LANGUAGE: usize = 512;

/// The language of `enabled` a reader is answered in: the one `asked` names (`?lang=`) when the
/// page has it, else the first of `accept_language` the page has (in the reader's order of
/// preference; `q=0` means "not this one"; `de-AT` asks for `de`), else `default`.
pub fn choose(
    asked: Option<&str>,
    accept_language: Option<&str>,
    enabled: &[Lang],
    default: Lang,
) -> Lang {
    if let Some(lang) = asked.and_then(|code| enabled_lang(code, enabled)) {
        return lang;
    }
    accept_language
        .and_then(|header| preferred(header, enabled))
        .unwrap_or(default)
}

/// The language of `enabled` an `Accept-Language` value prefers: the one of the highest weight
/// (`q`; 1 when not given; the first of equal weights; `q=0` means "not this one"), matched by
/// its primary subtag (`de-AT` asks for `de`). Read in one pass without allocating: it runs on
/// the public read path for every request to a page in several languages (the
/// `accept-language` crate's parse, which allocates each tag and sorts them, cost that path
/// about 10 % of its throughput in bench/multilingual-page.sh).
pub fn preferred(header: &str, enabled: &[Lang]) -> Option<Lang> {
    if header.len() > MAX_ACCEPT_LANGUAGE {
        return None;
    }
    let mut best: Option<(Lang, f32)> = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or_default().trim();
        let quality = parts
            .filter_map(|param| param.trim().strip_prefix("q="))
            .next()
            .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
        let Some(quality) = quality.filter(|q| *q > 0.0 && *q <= 1.0) else {
            continue;
        };
        let primary = tag.split('-').next().unwrap_or_default();
        let Some(lang) = enabled_lang(primary, enabled) else {
            continue;
        };
        if best.is_none_or(|(_, q)| quality > q) {
            best = Some((lang, quality));
        }
    }
    best.map(|(lang, _)| lang)
}

/// `code` (any case) when it names a language of `enabled`.
fn enabled_lang(code: &str, enabled: &[Lang]) -> Option<Lang> {
    enabled
        .iter()
        .copied()
        .find(|lang| lang.as_str().eq_ignore_ascii_case(code))
}

/// A page's languages as given: known, each once, at least one.
pub fn parse_languages(languages: &[String]) -> Result<Vec<Lang>, String> {
    let mut out: Vec<Lang> = Vec::new();
    for code in languages {
        let lang = code.parse::<Lang>().map_err(|e| e.to_string())?;
        if out.contains(&lang) {
            return Err(format!("'{lang}' is listed twice"));
        }
        out.push(lang);
    }
    if out.is_empty() {
        return Err("a page is read in at least one language".to_owned());
    }
    Ok(out)
}

/// Why `default` cannot be the default of a page read in `languages`, if it cannot.
pub fn default_outside(default: Lang, languages: &[Lang]) -> Option<String> {
    (!languages.contains(&default)).then(|| {
        let codes: Vec<&str> = languages.iter().map(|l| l.as_str()).collect();
        format!(
            "the default language '{default}' must be one of the page's languages ({}); \
             add it to languages",
            codes.join(", ")
        )
    })
}

/// A page's languages as stored (`["en","de"]`), and read back; an unreadable value reads as
/// the default alone (it was written by [`stored`]).
pub fn stored(languages: &[Lang]) -> String {
    serde_json::to_string(languages).unwrap_or_else(|_| "[\"en\"]".to_owned())
}

/// See [`stored`].
pub fn read_stored(text: &str, default: Lang) -> Vec<Lang> {
    let mut langs: Vec<Lang> = serde_json::from_str(text).unwrap_or_default();
    if !langs.contains(&default) {
        langs.insert(0, default);
    }
    langs
}

#[cfg(test)]
mod tests {
    use super::Lang::*;
    use super::*;

    #[test]
    fn an_asked_language_the_page_has_wins() {
        assert_eq!(choose(Some("de"), Some("fr"), &[En, De, Fr], En), De);
        assert_eq!(choose(Some("DE"), None, &[En, De], En), De);
    }

    #[test]
    fn an_asked_language_the_page_lacks_falls_to_the_browser_then_the_default() {
        assert_eq!(
            choose(Some("ja"), Some("fr-CA,fr;q=0.9"), &[En, Fr], En),
            Fr
        );
        assert_eq!(choose(Some("ja"), None, &[En, Fr], En), En);
        assert_eq!(choose(Some("<script>"), None, &[En, Fr], Fr), Fr);
    }

    #[test]
    fn the_browser_order_and_weights_are_followed() {
        assert_eq!(preferred("de-AT,de;q=0.9,en;q=0.8", &[En, De]), Some(De));
        assert_eq!(preferred("en;q=0.5, ja;q=0.9", &[En, Ja]), Some(Ja));
        assert_eq!(preferred("pt-BR", &[En, Pt]), Some(Pt));
        assert_eq!(preferred("sv, fi", &[En, De]), None);
        assert_eq!(preferred("*", &[En, De]), None);
        assert_eq!(preferred("", &[En, De]), None);
    }

    #[test]
    fn weights_are_read_as_browsers_and_people_write_them() {
        assert_eq!(preferred("fr;q=0.4, de ; q=0.9", &[En, De, Fr]), Some(De));
        assert_eq!(
            preferred("fr;q=0.9, de;q=0.9", &[En, De, Fr]),
            Some(Fr),
            "ties: the first"
        );
        assert_eq!(
            preferred("de;q=abc, fr", &[En, De, Fr]),
            Some(Fr),
            "a bad weight"
        );
        assert_eq!(
            preferred("de;q=2, fr;q=0.1", &[En, De, Fr]),
            Some(Fr),
            "out of range"
        );
        assert_eq!(preferred("DE-ch", &[En, De]), Some(De));
        assert_eq!(preferred(",,;,", &[En, De]), None);
    }

    #[test]
    fn a_language_weighted_zero_is_refused() {
        assert_eq!(preferred("de;q=0, fr", &[En, De, Fr]), Some(Fr));
        assert_eq!(preferred("de;q=0", &[En, De]), None);
    }

    #[test]
    fn an_overlong_header_is_not_read() {
        let long = format!("de,{}", "x-y;q=0.1,".repeat(100));
        assert_eq!(preferred(&long, &[En, De]), None);
    }

    #[test]
    fn a_pages_languages_are_known_once_each_with_the_default() {
        let codes = |c: &[&str]| c.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(parse_languages(&codes(&["en", "de"])), Ok(vec![En, De]));
        let unknown = parse_languages(&codes(&["en", "xx"])).unwrap_err();
        assert!(
            unknown.contains("'xx' is not a valid language"),
            "{unknown}"
        );
        assert!(unknown.contains("en, de, fr, es, pt, ja"), "{unknown}");
        let twice = parse_languages(&codes(&["en", "en"])).unwrap_err();
        assert!(twice.contains("twice"), "{twice}");
        assert!(parse_languages(&[]).is_err());
        assert_eq!(default_outside(De, &[En, De]), None);
        let missing = default_outside(Fr, &[En, De]).expect("refused");
        assert!(
            missing.contains("'fr' must be one of the page's languages (en, de)"),
            "{missing}"
        );
    }

    #[test]
    fn stored_languages_read_back_with_the_default_first_when_missing() {
        assert_eq!(read_stored(&stored(&[En, Ja]), En), vec![En, Ja]);
        assert_eq!(read_stored("[\"de\"]", Fr), vec![Fr, De]);
        assert_eq!(read_stored("garbage", De), vec![De]);
    }

    #[test]
    fn each_language_is_named_in_itself() {
        assert_eq!(Ja.label(), "日本語");
        assert_eq!(Fr.label(), "Français");
        assert_eq!(Lang::ALL.len(), 6);
    }
}
