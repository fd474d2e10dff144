//! The settings form both ways: filled from the stored page, and read back into the typed
//! settings (with each field's complaint).

use serde_json::Value;

use crate::db::models::pages::StatusPage;
use crate::domain::NextUpdateIntervals;
use crate::domain::brand::{HeaderLink, read_links};
use crate::domain::deadline::{MAX_NEXT_UPDATE_MINS, MIN_NEXT_UPDATE_MINS};
use crate::domain::lang::Lang;
use crate::error::FieldErrors;
use crate::http::admin::fields::{text, ticked};
use crate::http::admin::form::Submitted;
use crate::services::page_webhooks::Purpose;
use crate::services::pages::UpdatePageInput;

/// The form filled from the stored page and its webhook URLs.
pub(super) fn stored(page: &StatusPage, hooks: &serde_json::Map<String, Value>) -> Submitted {
    let minutes = |m: Option<i32>| m.map(|m| m.to_string()).unwrap_or_default();
    let flag = |b: bool| if b { "yes".to_owned() } else { String::new() };
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let hook = |p: Purpose| {
        let url = hooks.get(p.url_field()).and_then(Value::as_str);
        url.unwrap_or_default().to_owned()
    };
    Submitted(
        [
            ("name", page.name.clone()),
            ("slug", page.slug.clone()),
            ("description", opt(&page.description)),
            ("time_zone", page.time_zone.clone()),
            ("support_email", opt(&page.support_email)),
            ("custom_domain", opt(&page.custom_domain)),
            ("public_url", opt(&page.public_url)),
            ("support_webhook_url", hook(Purpose::Support)),
            ("responder_webhook_url", hook(Purpose::Responder)),
            (
                "embed_origins",
                crate::domain::embed::listed(&page.embed_origins).join("\n"),
            ),
            ("interval_none", minutes(page.next_update_none_mins)),
            ("interval_minor", minutes(page.next_update_minor_mins)),
            ("interval_major", minutes(page.next_update_major_mins)),
            ("interval_critical", minutes(page.next_update_critical_mins)),
            ("visibility", page.visibility.as_str().to_owned()),
            ("allowed_email_domains", page.email_domains().join("\n")),
            ("support_reach", page.support_reach.as_str().to_owned()),
            ("brand_color", opt(&page.brand_color)),
            ("theme", page.theme.as_str().to_owned()),
            ("header_links", link_lines(&read_links(&page.header_links))),
            ("footer", opt(&page.footer)),
            ("custom_css", opt(&page.custom_css)),
            ("is_default", flag(page.is_default)),
            (
                "default_language",
                page.default_language.as_str().to_owned(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .chain(Lang::ALL.iter().map(|l| {
            let on = page.enabled_languages().contains(l);
            (format!("lang_{l}"), flag(on))
        }))
        .collect(),
    )
}

/// One interval field: blank is "no default deadline"; otherwise whole minutes in range.
fn interval(form: &Submitted, name: &str, errors: &mut FieldErrors) -> Option<u32> {
    let value = text(form, name)?;
    let complain = |errors: &mut FieldErrors, message: String| {
        errors.entry(name.to_owned()).or_default().push(message);
    };
    let Ok(minutes) = value.parse::<u32>() else {
        complain(errors, "is not a whole number of minutes".to_owned());
        return None;
    };
    if !(MIN_NEXT_UPDATE_MINS..=MAX_NEXT_UPDATE_MINS).contains(&minutes) {
        let range =
            format!("must be between {MIN_NEXT_UPDATE_MINS} and {MAX_NEXT_UPDATE_MINS} minutes");
        complain(errors, range);
        return None;
    }
    Some(minutes)
}

/// Header links as the form shows them: one `Label | address` a line.
fn link_lines(links: &[HeaderLink]) -> String {
    links
        .iter()
        .map(|l| format!("{} | {}", l.label, l.url))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The header links field: one `Label | address` a line, blank lines skipped.
fn header_links(form: &Submitted, errors: &mut FieldErrors) -> Option<Vec<HeaderLink>> {
    let mut links = Vec::new();
    for (n, line) in form.get("header_links").lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.rsplit_once('|') {
            Some((label, url)) => links.push(HeaderLink {
                label: label.trim().to_owned(),
                url: url.trim().to_owned(),
            }),
            None => {
                errors
                    .entry("header_links".to_owned())
                    .or_default()
                    .push(format!(
                        "line {}: write each link as Label | https://example.com/page",
                        n + 1
                    ));
                return None;
            }
        }
    }
    Some(links)
}

/// A select's value parsed (`None` when absent: it stays as it is), or an error under its name.
fn chosen<T: std::str::FromStr>(form: &Submitted, name: &str, errors: &mut FieldErrors) -> Option<T>
where
    T::Err: std::fmt::Display,
{
    let value = text(form, name)?;
    match value.parse() {
        Ok(value) => Some(value),
        Err(e) => {
            errors
                .entry(name.to_owned())
                .or_default()
                .push(e.to_string());
            None
        }
    }
}

/// Every setting as typed: blank optional fields clear, unticked boxes are false.
pub(super) fn settings_input(form: &Submitted) -> Result<UpdatePageInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let intervals = NextUpdateIntervals {
        none: interval(form, "interval_none", &mut errors),
        minor: interval(form, "interval_minor", &mut errors),
        major: interval(form, "interval_major", &mut errors),
        critical: interval(form, "interval_critical", &mut errors),
    };
    let input = UpdatePageInput {
        slug: Some(form.get("slug").to_owned()),
        name: Some(form.get("name").to_owned()),
        description: Some(text(form, "description")),
        public_url: Some(text(form, "public_url")),
        custom_domain: Some(text(form, "custom_domain")),
        time_zone: Some(form.get("time_zone").to_owned()),
        support_email: Some(text(form, "support_email")),
        next_update_intervals: Some(intervals),
        is_default: Some(ticked(form, "is_default")),
        visibility: chosen(form, "visibility", &mut errors),
        is_public: None,
        // Blank keeps the password; the box removes it.
        password: match (text(form, "password"), ticked(form, "clear_password")) {
            (_, true) => Some(None),
            (Some(password), false) => Some(Some(password)),
            (None, false) => None,
        },
        allowed_email_domains: Some(
            form.get("allowed_email_domains")
                .split([',', ' ', '\n', '\r', '\t'])
                .filter(|d| !d.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
        support_reach: chosen(form, "support_reach", &mut errors),
        embed_origins: Some(
            form.get("embed_origins")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        ),
        brand_color: Some(text(form, "brand_color")),
        theme: chosen(form, "theme", &mut errors),
        header_links: header_links(form, &mut errors),
        footer: Some(text(form, "footer")),
        custom_css: Some(text(form, "custom_css")),
        // A browser always sends the default language's select with the boxes beside it; a
        // form without it (an older page, a script) leaves the languages as they are.
        languages: text(form, "default_language").map(|_| {
            Lang::ALL
                .iter()
                .filter(|l| ticked(form, &format!("lang_{l}")))
                .map(|l| l.as_str().to_owned())
                .collect()
        }),
        default_language: text(form, "default_language"),
    };
    errors.is_empty().then_some(input).ok_or(errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{SupportReach, Visibility};
    use crate::http::admin::fields::filled;

    #[test]
    fn intervals_are_checked_one_by_one_and_blank_means_none() {
        let form = filled([
            ("interval_none", String::new()),
            ("interval_minor", "60".to_owned()),
            ("interval_major", "2".to_owned()),
            ("interval_critical", "soon".to_owned()),
        ]);
        let errors = settings_input(&form).unwrap_err();
        assert!(errors.contains_key("interval_major"));
        assert!(errors.contains_key("interval_critical"));
        assert!(!errors.contains_key("interval_minor"));
        let form = filled([("interval_minor", "60".to_owned())]);
        let input = settings_input(&form).unwrap();
        let intervals = input.next_update_intervals.unwrap();
        assert_eq!((intervals.none, intervals.minor), (None, Some(60)));
        assert_eq!(input.visibility, None, "absent: left as it is");
        assert_eq!(input.password, None, "blank: the password is kept");
    }

    #[test]
    fn the_access_fields_are_read_and_a_bad_visibility_is_refused_by_name() {
        let form = filled([
            ("visibility", "private".to_owned()),
            ("password", "a long page password".to_owned()),
            (
                "allowed_email_domains",
                "contoso.com\r\nfabrikam.com, ".to_owned(),
            ),
            ("support_reach", "readers".to_owned()),
        ]);
        let input = settings_input(&form).unwrap();
        assert_eq!(input.visibility, Some(Visibility::Private));
        assert_eq!(
            input.password,
            Some(Some("a long page password".to_owned()))
        );
        assert_eq!(
            input.allowed_email_domains.as_deref(),
            Some(&["contoso.com".to_owned(), "fabrikam.com".to_owned()][..])
        );
        assert_eq!(input.support_reach, Some(SupportReach::Readers));
        let form = filled([
            ("password", "ignored".to_owned()),
            ("clear_password", "yes".to_owned()),
        ]);
        assert_eq!(settings_input(&form).unwrap().password, Some(None));
        let form = filled([("visibility", "secret".to_owned())]);
        let errors = settings_input(&form).unwrap_err();
        assert!(errors["visibility"][0].contains("not a valid visibility"));
    }
}
