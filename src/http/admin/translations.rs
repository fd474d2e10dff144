//! The translation fields of the console's incident, maintenance and update forms: one input
//! per translatable text for each of the page's languages but its default (`tr_de_name`,
//! `tr_de_body`), read back into the API's `translations` shape.

use serde::Serialize;

use super::form::Submitted;
use crate::db::models::pages::StatusPage;
use crate::services::incidents::GivenTranslations;

/// A text a form may translate: its field, its label, and whether it is a paragraph.
pub type Translatable = (&'static str, &'static str, bool);

/// An incident's or a maintenance's name and first message.
pub const OPENING: &[Translatable] = &[("name", "Name", false), ("body", "Message", true)];
/// An update's message.
pub const UPDATE: &[Translatable] = &[("body", "Message", true)];

/// One language's inputs.
#[derive(Debug, Serialize)]
pub struct LanguageFields {
    pub code: &'static str,
    pub label: &'static str,
    pub inputs: Vec<Input>,
}

/// One input, with what was typed into it.
#[derive(Debug, Serialize)]
pub struct Input {
    pub name: String,
    pub label: String,
    pub value: String,
    pub multiline: bool,
}

/// The inputs of `texts` for each of `page`'s languages but its default, filled from `form`
/// (none when the page is read in one language).
pub fn fields(page: &StatusPage, form: &Submitted, texts: &[Translatable]) -> Vec<LanguageFields> {
    page.enabled_languages()
        .into_iter()
        .filter(|lang| *lang != page.default_language)
        .map(|lang| LanguageFields {
            code: lang.as_str(),
            label: lang.label(),
            inputs: texts
                .iter()
                .map(|(field, label, multiline)| {
                    let name = format!("tr_{lang}_{field}");
                    Input {
                        value: form.get(&name).to_owned(),
                        label: format!("{label} in {}", lang.label()),
                        name,
                        multiline: *multiline,
                    }
                })
                .collect(),
        })
        .collect()
}

/// The translations typed into `form` for `fields` (blank inputs left out); `None` when none
/// were typed.
pub fn typed(form: &Submitted, fields: &[&str]) -> Option<GivenTranslations> {
    let mut out = GivenTranslations::new();
    for (key, value) in &form.0 {
        let Some((lang, field)) = key
            .strip_prefix("tr_")
            .and_then(|rest| rest.split_once('_'))
        else {
            continue;
        };
        if value.trim().is_empty() || !fields.contains(&field) {
            continue;
        }
        out.entry(lang.to_owned())
            .or_default()
            .insert(field.to_owned(), value.clone());
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_translations_are_read_by_language_and_field_blank_ones_left_out() {
        let form = Submitted(vec![
            ("name".into(), "Outage".into()),
            ("tr_de_name".into(), "Störung".into()),
            ("tr_de_body".into(), "  ".into()),
            ("tr_fr_body".into(), "Nous regardons.".into()),
            ("tr_fr_title".into(), "ignored".into()),
        ]);
        let typed = typed(&form, &["name", "body"]).expect("some");
        assert_eq!(typed["de"].len(), 1);
        assert_eq!(typed["de"]["name"], "Störung");
        assert_eq!(typed["fr"]["body"], "Nous regardons.");
        assert!(!typed["fr"].contains_key("title"));
        assert_eq!(super::typed(&Submitted::default(), &["body"]), None);
    }
}
