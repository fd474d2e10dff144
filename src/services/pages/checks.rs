//! Checking a page's fields: a new page's and a patch's, answering every field error at once,
//! and the languages a change leaves the page with.

use super::input::{FieldCheck, optional, optional_text, required_line, required_text};

use crate::db::models::pages::{StatusPage, StatusPageChanges};
use crate::db::now;
use crate::domain::access::parse_domains;
use crate::domain::brand::{self, BrandColor};
use crate::domain::lang::{self, Lang};
use crate::domain::{EmailAddress, NextUpdateIntervals, Slug, parse_time_zone};
use crate::error::{AppError, AppResult};

use super::{MAX_DESCRIPTION_LEN, MAX_NAME_LEN, MAX_URL_LEN, NewPageInput, UpdatePageInput};

/// A new page's validated fields.
pub(super) struct PageFields {
    pub(super) slug: String,
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) public_url: Option<String>,
    pub(super) custom_domain: Option<String>,
    pub(super) time_zone: String,
    pub(super) support_email: Option<String>,
    pub(super) intervals: [Option<i32>; 4],
}

/// Validates a new page, answering every field error at once.
pub(super) fn new_page_fields(input: &NewPageInput) -> AppResult<PageFields> {
    let mut check = FieldCheck::default();
    let slug = check.check("slug", Slug::parse(&input.slug));
    let name = check.check("name", required_line(&input.name, MAX_NAME_LEN));
    let description = optional_text(input.description.as_deref(), MAX_DESCRIPTION_LEN);
    let description = check.check("description", description);
    let public_url = check.check(
        "public_url",
        optional(input.public_url.as_deref(), parse_public_url),
    );
    let custom_domain = check.check(
        "custom_domain",
        optional(input.custom_domain.as_deref(), parse_domain),
    );
    let time_zone = check.check(
        "time_zone",
        optional(input.time_zone.as_deref(), parse_zone_name),
    );
    let support_email = check.check(
        "support_email",
        optional(input.support_email.as_deref(), parse_email),
    );
    let intervals = interval_columns(&input.next_update_intervals.unwrap_or_default());
    let intervals = check.check("next_update_intervals", intervals);
    let fields = (|| {
        Some(PageFields {
            slug: slug?.into(),
            name: name?,
            description: description?,
            public_url: public_url?,
            custom_domain: custom_domain?,
            time_zone: time_zone?.unwrap_or_else(|| "UTC".to_owned()),
            support_email: support_email?,
            intervals: intervals?,
        })
    })();
    check.done(fields)
}

/// The page's languages and default as `input` changes them from `before`'s: the default
/// must be among the languages the page has after the change.
pub(super) fn language_changes(
    input: &UpdatePageInput,
    before: &StatusPage,
    changes: &mut StatusPageChanges,
) -> AppResult<()> {
    if input.languages.is_none() && input.default_language.is_none() {
        return Ok(());
    }
    let default = match &input.default_language {
        Some(code) => code
            .parse::<Lang>()
            .map_err(|e| AppError::field("default_language", e.to_string()))?,
        None => before.default_language,
    };
    let languages = match &input.languages {
        Some(codes) => lang::parse_languages(codes).map_err(|m| AppError::field("languages", m))?,
        None => lang::read_stored(&before.languages, before.default_language),
    };
    if let Some(message) = lang::default_outside(default, &languages) {
        let field = match input.default_language {
            Some(_) => "default_language",
            None => "languages",
        };
        return Err(AppError::field(field, message));
    }
    changes.default_language = Some(default);
    changes.languages = Some(lang::stored(&languages));
    Ok(())
}

/// Validates a page patch into a change set.
pub(super) fn page_changes(input: &UpdatePageInput) -> AppResult<StatusPageChanges> {
    let mut check = FieldCheck::default();
    // Each check answers Option<Option<T>>: the outer None (an error) fails `done` below.
    let line = |v: &Option<String>, max| v.as_deref().map(|v| required_line(v, max)).transpose();
    let patch = |v: &Option<Option<String>>, parse: fn(&str) -> Result<String, String>| {
        v.as_ref()
            .map(|v| optional(v.as_deref(), parse))
            .transpose()
    };
    let slug = input
        .slug
        .as_deref()
        .map(|s| Slug::parse(s).map(String::from))
        .transpose();
    let zone = input.time_zone.as_deref().map(parse_zone_name).transpose();
    let intervals = input
        .next_update_intervals
        .map(|i| interval_columns(&i))
        .transpose();
    let intervals = check.check("next_update_intervals", intervals).flatten();
    let embed_origins = input
        .embed_origins
        .as_deref()
        .map(|o| crate::domain::embed::parse_origins(o).map(|o| crate::domain::embed::stored(&o)))
        .transpose();
    let allowed_email_domains = input
        .allowed_email_domains
        .as_deref()
        .map(|d| parse_domains(d).map(|d| d.join(" ")))
        .transpose();
    if let Some(Some(password)) = &input.password {
        check.check("password", crate::domain::check_password(password));
    }
    let header_links = input
        .header_links
        .as_deref()
        .map(|l| brand::parse_header_links(l).map(|l| brand::stored_links(&l)))
        .transpose();
    let color = |v: &str| BrandColor::parse(v).map(|c| c.to_string());
    let description = |v: &str| required_text(v, MAX_DESCRIPTION_LEN);
    let changes = StatusPageChanges {
        embed_look: None,
        slug: check.check("slug", slug).flatten(),
        name: check
            .check("name", line(&input.name, MAX_NAME_LEN))
            .flatten(),
        description: check
            .check("description", patch(&input.description, description))
            .flatten(),
        public_url: check
            .check("public_url", patch(&input.public_url, parse_public_url))
            .flatten(),
        custom_domain: check
            .check("custom_domain", patch(&input.custom_domain, parse_domain))
            .flatten(),
        time_zone: check.check("time_zone", zone).flatten(),
        support_email: check
            .check("support_email", patch(&input.support_email, parse_email))
            .flatten(),
        is_default: input.is_default,
        visibility: input.visibility(),
        allowed_email_domains: check
            .check("allowed_email_domains", allowed_email_domains)
            .flatten(),
        support_reach: input.support_reach,
        access_epoch: None,
        next_update_none_mins: intervals.map(|i| i[0]),
        next_update_minor_mins: intervals.map(|i| i[1]),
        next_update_major_mins: intervals.map(|i| i[2]),
        next_update_critical_mins: intervals.map(|i| i[3]),
        embed_origins: check.check("embed_origins", embed_origins).flatten(),
        brand_color: check
            .check("brand_color", patch(&input.brand_color, color))
            .flatten(),
        theme: input.theme,
        header_links: check.check("header_links", header_links).flatten(),
        footer: check
            .check("footer", patch(&input.footer, brand::parse_footer))
            .flatten(),
        custom_css: check
            .check(
                "custom_css",
                patch(&input.custom_css, brand::parse_custom_css),
            )
            .flatten(),
        default_language: None,
        languages: None,
        updated_at: now(),
    };
    check.done(Some(changes))
}

/// The interval columns (none, minor, major, critical) of valid intervals.
pub(super) fn interval_columns(
    intervals: &NextUpdateIntervals,
) -> Result<[Option<i32>; 4], String> {
    intervals.validate().map_err(|e| e.to_string())?;
    let col = |m: Option<u32>| {
        m.map(|m| i32::try_from(m).map_err(|e| e.to_string()))
            .transpose()
    };
    Ok([
        col(intervals.none)?,
        col(intervals.minor)?,
        col(intervals.major)?,
        col(intervals.critical)?,
    ])
}

/// An absolute http(s) URL.
fn parse_public_url(value: &str) -> Result<String, String> {
    let invalid =
        || format!("'{value}' is not an absolute http(s) URL such as https://status.example.com");
    if value.chars().count() > MAX_URL_LEN {
        return Err(format!("must be at most {MAX_URL_LEN} characters long"));
    }
    let url = url::Url::parse(value).map_err(|_| invalid())?;
    match (url.scheme(), url.host_str()) {
        ("http" | "https", Some(_)) => Ok(url.to_string()),
        _ => Err(invalid()),
    }
}

/// A host name such as `status.example.com`, lowercased.
fn parse_domain(value: &str) -> Result<String, String> {
    let domain = value.to_ascii_lowercase();
    if !crate::domain::hostname::is_host_name(&domain) {
        return Err(format!(
            "'{value}' is not a host name such as status.example.com"
        ));
    }
    Ok(domain)
}

/// An IANA time zone, stored under its canonical name.
fn parse_zone_name(value: &str) -> Result<String, String> {
    parse_time_zone(value)
        .map(|tz| tz.name().to_owned())
        .map_err(|e| e.to_string())
}

/// A normalised email address.
fn parse_email(value: &str) -> Result<String, String> {
    EmailAddress::parse(value)
        .map(String::from)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_domains_are_lowercase_host_names_with_a_dot() {
        assert_eq!(
            parse_domain("Status.Acme.Example"),
            Ok("status.acme.example".to_owned())
        );
        assert_eq!(
            parse_domain("eu-1.status.acme.io"),
            Ok("eu-1.status.acme.io".to_owned())
        );
        for bad in [
            "acme",
            "-acme.example",
            "acme-.example",
            "acme..example",
            "acme.example/x",
            "ac me.io",
        ] {
            assert!(parse_domain(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn public_urls_are_absolute_http_urls() {
        assert_eq!(
            parse_public_url("https://status.acme.example"),
            Ok("https://status.acme.example/".to_owned())
        );
        for bad in [
            "status.acme.example",
            "ftp://acme.example",
            "mailto:ops@acme.example",
            "https://",
        ] {
            assert!(parse_public_url(bad).is_err(), "{bad}");
        }
    }
}
