//! What responders write, in the page's other languages: an incident's or a maintenance's
//! name, an update's body, a postmortem's summary and root cause, each given per language as
//! `{"de": {"name": "...", "body": "..."}}`. A reader sees the text in their language where it
//! was translated, and the original otherwise (marked as such).

use std::collections::BTreeMap;

use super::lang::Lang;

/// Texts by language, then by field (`name`, `body`, `summary`, `root_cause`).
pub type Translations = BTreeMap<Lang, BTreeMap<String, String>>;

/// How one field's text is checked (the rule of the field it translates): the text kept, or
/// what is wrong with it.
pub type Check = fn(&str) -> Result<String, String>;

/// The translations as given: known languages, only `fields`, each text as its field's check
/// takes it. `Err` says what is wrong, naming the language and field.
pub fn parse(
    given: &BTreeMap<String, BTreeMap<String, String>>,
    fields: &[(&str, Check)],
) -> Result<Translations, String> {
    let mut out = Translations::new();
    for (code, texts) in given {
        let lang: Lang = code
            .parse()
            .map_err(|e: super::ParseEnumError| e.to_string())?;
        let mut kept = BTreeMap::new();
        for (field, text) in texts {
            let Some((_, check)) = fields.iter().find(|(name, _)| name == field) else {
                let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
                return Err(format!(
                    "{code}.{field}: not a translatable field here (only {})",
                    names.join(", ")
                ));
            };
            let text = check(text).map_err(|message| format!("{code}.{field}: {message}"))?;
            kept.insert(field.clone(), text);
        }
        if !kept.is_empty() {
            out.insert(lang, kept);
        }
    }
    Ok(out)
}

/// No translations, as stored.
pub const NONE: &str = "{}";

/// The translations as stored: a JSON object ([`NONE`] when none).
pub fn stored(translations: &Translations) -> String {
    serde_json::to_string(translations).unwrap_or_else(|_| NONE.to_owned())
}

/// Stored translations read back; anything unreadable reads as none (they were written by
/// [`stored`]).
pub fn read(text: &str) -> Translations {
    serde_json::from_str(text).unwrap_or_default()
}

/// The `field` of each language that has it.
pub fn field(translations: &Translations, field: &str) -> BTreeMap<Lang, String> {
    translations
        .iter()
        .filter_map(|(lang, texts)| texts.get(field).map(|t| (*lang, t.clone())))
        .collect()
}

/// Only the `fields` of `translations` (an opening's update takes its `body`, the incident
/// its `name`).
pub fn only(translations: &Translations, fields: &[&str]) -> Translations {
    translations
        .iter()
        .filter_map(|(lang, texts)| {
            let kept: BTreeMap<String, String> = texts
                .iter()
                .filter(|(field, _)| fields.contains(&field.as_str()))
                .map(|(f, t)| (f.clone(), t.clone()))
                .collect();
            (!kept.is_empty()).then_some((*lang, kept))
        })
        .collect()
}

/// A text as one language reads it: its translation, or the original and that it is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown<'a, T> {
    pub text: &'a T,
    /// No translation into the reader's language: this is the original.
    pub original: bool,
}

/// `original` as a reader of `lang` sees it, on a page whose default (the language responders
/// write in) is `default`: a translation into `lang` wins (even into the default, for a page
/// whose default changed after they wrote), else the original, marked unless `lang` is the
/// default.
pub fn shown<'a, T>(
    original: &'a T,
    translated: &'a BTreeMap<Lang, T>,
    lang: Lang,
    default: Lang,
) -> Shown<'a, T> {
    match translated.get(&lang) {
        Some(text) => Shown {
            text,
            original: false,
        },
        _ => Shown {
            text: original,
            original: lang != default,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(pairs: &[(&str, &str, &str)]) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (lang, field, text) in pairs {
            out.entry((*lang).to_owned())
                .or_default()
                .insert((*field).to_owned(), (*text).to_owned());
        }
        out
    }

    fn short(text: &str) -> Result<String, String> {
        match text.trim() {
            "" => Err("must not be blank".to_owned()),
            t if t.chars().count() > 20 => Err("must be at most 20 characters long".to_owned()),
            t => Ok(t.to_owned()),
        }
    }

    const INCIDENT: &[(&str, Check)] = &[("name", short), ("body", short)];

    #[test]
    fn translations_are_read_by_language_and_field() {
        let parsed = parse(
            &given(&[("de", "name", " Störung "), ("de", "body", "Wir prüfen.")]),
            INCIDENT,
        )
        .expect("valid");
        assert_eq!(parsed[&Lang::De]["name"], "Störung");
        assert_eq!(read(&stored(&parsed)), parsed);
        assert_eq!(field(&parsed, "body")[&Lang::De], "Wir prüfen.");
        assert_eq!(only(&parsed, &["name"])[&Lang::De].len(), 1);
        assert!(only(&parsed, &["summary"]).is_empty());
    }

    #[test]
    fn bad_translations_are_refused_naming_the_language_and_field() {
        let unknown = parse(&given(&[("xx", "name", "x")]), INCIDENT).unwrap_err();
        assert!(
            unknown.contains("'xx' is not a valid language"),
            "{unknown}"
        );
        let field = parse(&given(&[("de", "title", "x")]), INCIDENT).unwrap_err();
        assert_eq!(
            field,
            "de.title: not a translatable field here (only name, body)"
        );
        let empty = parse(&given(&[("fr", "name", "  ")]), INCIDENT).unwrap_err();
        assert_eq!(empty, "fr.name: must not be blank");
        let long = parse(&given(&[("fr", "name", &"x".repeat(21))]), INCIDENT).unwrap_err();
        assert_eq!(long, "fr.name: must be at most 20 characters long");
        assert_eq!(read("not json"), Translations::new());
    }

    #[test]
    fn a_reader_sees_their_language_or_the_original_marked() {
        let names = BTreeMap::from([(Lang::De, "Störung".to_owned())]);
        let outage = "Outage".to_owned();
        let de = shown(&outage, &names, Lang::De, Lang::En);
        assert_eq!((de.text.as_str(), de.original), ("Störung", false));
        let fr = shown(&outage, &names, Lang::Fr, Lang::En);
        assert_eq!((fr.text.as_str(), fr.original), ("Outage", true));
        let en = shown(&outage, &names, Lang::En, Lang::En);
        assert_eq!((en.text.as_str(), en.original), ("Outage", false));
    }
}
