//! What a person sends through the support form, as typed, and its validation: a message per
//! field, limits on every field, one-line fields free of control characters (so no field can
//! ever inject a mail header), and the anti-abuse checks (honeypot, signed token with the
//! minimum fill time).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Topic;
use super::token::{Identity, TokenKey, TokenProblem};
use crate::domain::EmailAddress;
use crate::domain::lang::Lang;
use crate::error::FieldErrors;
use crate::render::i18n::text_with;
use crate::services::public::data::PageData;
use fluent_templates::fluent_bundle::FluentValue;

/// Longest name, in characters.
pub const MAX_NAME: usize = 100;
/// Longest account identifier, in characters.
pub const MAX_ACCOUNT: usize = 200;
/// Longest message, in characters.
pub const MAX_MESSAGE: usize = 5000;
/// Shortest message, in characters (after trimming).
pub const MIN_MESSAGE: usize = 10;
/// The largest form body accepted, in bytes (every field at its limit fits, in UTF-8 and
/// urlencoded, with room to spare).
pub const BODY_LIMIT: usize = 64 * 1024;
/// The honeypot's field name: hidden from people, tempting to form-filling robots.
pub const HONEYPOT: &str = "website";

/// The form's fields exactly as typed (the HTML form posts these names; JSON uses the same).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SupportForm {
    pub name: String,
    pub email: String,
    pub topic: String,
    pub component: String,
    pub account: String,
    pub message: String,
    /// The "send me a copy" checkbox (`on` when ticked).
    pub copy: String,
    /// The honeypot: must stay empty.
    pub website: String,
    pub form_token: String,
}

/// The JSON body of `POST /status/{slug}/api/support`: the same fields, `copy` as a boolean.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SupportJson {
    pub name: Option<String>,
    pub email: Option<String>,
    pub topic: Option<String>,
    pub component: Option<String>,
    pub account: Option<String>,
    pub message: Option<String>,
    pub copy: Option<bool>,
    pub website: Option<String>,
    pub form_token: Option<String>,
}

impl From<SupportJson> for SupportForm {
    fn from(j: SupportJson) -> Self {
        Self {
            name: j.name.unwrap_or_default(),
            email: j.email.unwrap_or_default(),
            topic: j.topic.unwrap_or_default(),
            component: j.component.unwrap_or_default(),
            account: j.account.unwrap_or_default(),
            message: j.message.unwrap_or_default(),
            copy: if j.copy.unwrap_or(false) { "on" } else { "" }.to_owned(),
            website: j.website.unwrap_or_default(),
            form_token: j.form_token.unwrap_or_default(),
        }
    }
}

/// The checked fields of a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The submission the form's token names (`None` from the field checks alone).
    pub identity: Option<Identity>,
    pub name: String,
    pub email: String,
    pub topic: Topic,
    pub component_id: Option<String>,
    pub account: Option<String>,
    pub message: String,
    pub wants_copy: bool,
}

/// Why a submission was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Fields to correct, one message (or more) each.
    Fields(FieldErrors),
    /// An anti-abuse check failed (honeypot, forged or too-fast token). The answer does not
    /// say which: telling a robot what gave it away helps it.
    Suspicious,
    /// The form was loaded too long ago; it is served again with a fresh token.
    Expired,
}

impl SupportForm {
    /// Checks every field against `page` (its components) and the token at `now`. Field
    /// messages come first: a person who mistyped is told so even when also too fast.
    pub fn check(
        &self,
        (page, lang): (&PageData, Lang),
        key: &TokenKey,
        now: DateTime<Utc>,
    ) -> Result<Checked, Refusal> {
        if !self.website.trim().is_empty() {
            return Err(Refusal::Suspicious);
        }
        let checked = self.check_fields(page, lang).map_err(Refusal::Fields)?;
        match key.verify(&self.form_token, &page.page.id, now) {
            Ok(stamp) => Ok(Checked {
                identity: Some(stamp.identity()),
                ..checked
            }),
            Err(TokenProblem::Expired) => Err(Refusal::Expired),
            Err(TokenProblem::Invalid | TokenProblem::TooFast) => Err(Refusal::Suspicious),
        }
    }

    /// The field checks alone, each message in `lang` (the form's reader's; the JSON API's
    /// is English).
    pub fn check_fields(&self, page: &PageData, lang: Lang) -> Result<Checked, FieldErrors> {
        let mut errors = FieldErrors::new();
        let say = |key: &str, args: &[(&'static str, String)]| {
            let args: Vec<_> = args
                .iter()
                .map(|(name, value)| (*name, FluentValue::from(value.as_str())))
                .collect();
            text_with(lang, key, &args)
        };
        let mut add = |field: &str, message: String| {
            errors.entry(field.to_owned()).or_default().push(message);
        };
        let too_long = |max: usize| [("max", max.to_string())];
        let name = self.name.trim();
        if name.is_empty() {
            add("name", say("support-error-name-empty", &[]));
        } else if name.chars().count() > MAX_NAME {
            add("name", say("support-error-too-long", &too_long(MAX_NAME)));
        } else if has_control(name) {
            add("name", say("support-error-name-line", &[]));
        }
        let email = match EmailAddress::parse(&self.email) {
            Ok(_) if has_control(self.email.trim()) => {
                add("email", say("form-error-email", &[]));
                None
            }
            Ok(email) => Some(email),
            // English readers are told exactly what is wrong with the address (the parser's
            // words are English); the others, what to type.
            Err(e) if lang == Lang::En => {
                add("email", sentence(&e.to_string()));
                None
            }
            Err(_) => {
                add("email", say("form-error-email", &[]));
                None
            }
        };
        let topic = match self.topic.trim() {
            "" => {
                add("topic", say("support-error-topic-empty", &[]));
                None
            }
            t => match t.parse::<Topic>() {
                Ok(topic) => Some(topic),
                Err(_) => {
                    add("topic", say("support-error-topic-unknown", &[]));
                    None
                }
            },
        };
        let component_id = match self.component.trim() {
            "" => None,
            id if page.component(id).is_some() => Some(id.to_owned()),
            _ => {
                add("component", say("support-error-component", &[]));
                None
            }
        };
        let account = self.account.trim();
        if account.chars().count() > MAX_ACCOUNT {
            add(
                "account",
                say("support-error-too-long", &too_long(MAX_ACCOUNT)),
            );
        } else if has_control(account) {
            add("account", say("support-error-account-line", &[]));
        }
        let message = self.message.trim();
        let length = message.chars().count();
        if length == 0 {
            add("message", say("support-error-message-empty", &[]));
        } else if length < MIN_MESSAGE {
            let min = [("min", MIN_MESSAGE.to_string())];
            add("message", say("support-error-message-short", &min));
        } else if length > MAX_MESSAGE {
            let args = [
                ("max", MAX_MESSAGE.to_string()),
                ("length", length.to_string()),
            ];
            add("message", say("support-error-message-long", &args));
        } else if message
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            add("message", say("support-error-control", &[]));
        }
        match (email, topic) {
            (Some(email), Some(topic)) if errors.is_empty() => Ok(Checked {
                identity: None,
                name: name.to_owned(),
                email: email.as_str().to_owned(),
                topic,
                component_id,
                account: (!account.is_empty()).then(|| account.to_owned()),
                message: message.replace("\r\n", "\n"),
                wants_copy: matches!(self.copy.trim(), "on" | "true" | "1" | "yes"),
            }),
            _ => Err(errors),
        }
    }
}

/// Control characters, including line breaks and Unicode line separators.
fn has_control(s: &str) -> bool {
    s.chars()
        .any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// An error text as a sentence: capitalised, ending with a full stop.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::public::fixtures::page as fixture;
    use chrono::Duration;

    fn valid(page: &PageData) -> SupportForm {
        SupportForm {
            name: " Ada Lovelace ".into(),
            email: "Ada@Example.com".into(),
            topic: "sign_in".into(),
            component: page.components[0].id.clone(),
            account: "acct-42".into(),
            message: "I cannot sign in since this morning.\r\nPlease help.".into(),
            copy: "on".into(),
            ..SupportForm::default()
        }
    }

    fn fields(form: &SupportForm, page: &PageData) -> Vec<String> {
        match form.check_fields(page, Lang::En) {
            Err(errors) => errors.into_keys().collect(),
            Ok(_) => Vec::new(),
        }
    }

    #[test]
    fn a_valid_form_is_trimmed_and_normalised() {
        let page = fixture::page();
        let checked = valid(&page).check_fields(&page, Lang::En).unwrap();
        assert_eq!(checked.name, "Ada Lovelace");
        assert_eq!(checked.email, "ada@example.com");
        assert_eq!(checked.topic, Topic::SignIn);
        assert_eq!(checked.account.as_deref(), Some("acct-42"));
        assert!(checked.message.contains("morning.\nPlease"));
        assert!(checked.wants_copy);
    }

    #[test]
    fn each_invalid_field_gets_its_own_message() {
        let page = fixture::page();
        type Spoil = Box<dyn Fn(&mut SupportForm)>;
        let cases: Vec<(&str, Spoil)> = vec![
            ("name", Box::new(|f| f.name = "  ".into())),
            ("name", Box::new(|f| f.name = "x".repeat(MAX_NAME + 1))),
            (
                "name",
                Box::new(|f| f.name = "Eve\r\nBcc: all@example.com".into()),
            ),
            ("email", Box::new(|f| f.email = "not an address".into())),
            ("email", Box::new(|f| f.email = String::new())),
            ("topic", Box::new(|f| f.topic = "refunds".into())),
            ("topic", Box::new(|f| f.topic = String::new())),
            (
                "component",
                Box::new(|f| f.component = "no-such-component".into()),
            ),
            (
                "account",
                Box::new(|f| f.account = "a".repeat(MAX_ACCOUNT + 1)),
            ),
            ("account", Box::new(|f| f.account = "a\nb".into())),
            ("message", Box::new(|f| f.message = "short".into())),
            (
                "message",
                Box::new(|f| f.message = "m".repeat(MAX_MESSAGE + 1)),
            ),
            (
                "message",
                Box::new(|f| f.message = "bell \u{7} in a message".into()),
            ),
        ];
        for (field, spoil) in cases {
            let mut form = valid(&page);
            spoil(&mut form);
            assert_eq!(fields(&form, &page), [field], "{form:?}");
            // In German too, each message a German sentence (not a key, not the English).
            let said = |lang| form.check_fields(&page, lang).unwrap_err()[field].join(" ");
            let (english, german) = (said(Lang::En), said(Lang::De));
            assert_ne!(english, german, "{field}");
            assert!(!german.contains("-error-"), "{field}: {german}");
        }
        let empty = SupportForm::default();
        assert_eq!(fields(&empty, &page), ["email", "message", "name", "topic"]);
    }

    #[test]
    fn honeypot_forged_and_hasty_submissions_are_suspicious_without_detail() {
        let page = fixture::page();
        let key = TokenKey::derive(
            b"0123456789abcdef0123456789abcdef",
            Duration::seconds(3),
            Duration::hours(1),
        );
        let now = Utc::now();
        let mut form = valid(&page);
        form.form_token = key.mint(&page.page.id, now - Duration::seconds(10));
        assert!(form.check((&page, Lang::En), &key, now).is_ok());
        let mut trapped = form.clone();
        trapped.website = "http://spam.example".into();
        assert_eq!(
            trapped.check((&page, Lang::En), &key, now),
            Err(Refusal::Suspicious)
        );
        let mut hasty = form.clone();
        hasty.form_token = key.mint(&page.page.id, now - Duration::seconds(1));
        assert_eq!(
            hasty.check((&page, Lang::En), &key, now),
            Err(Refusal::Suspicious)
        );
        let mut forged = form.clone();
        forged.form_token = "AAAA".into();
        assert_eq!(
            forged.check((&page, Lang::En), &key, now),
            Err(Refusal::Suspicious)
        );
        let mut old = form.clone();
        old.form_token = key.mint(&page.page.id, now - Duration::hours(2));
        assert_eq!(
            old.check((&page, Lang::En), &key, now),
            Err(Refusal::Expired)
        );
    }
}
