//! Status page use cases: creating and changing pages, finding them, and their next-update
//! intervals.
//!
//! Its [`input`] submodule holds the small input helpers every service shares.

pub mod input;

use serde::Deserialize;

pub use input::{
    FieldCheck, found, null_as_default, nullable, optional, optional_text, required_line,
    required_text, row_time,
};

use crate::db::models::access as access_rows;
use crate::db::models::pages::{self, NewStatusPage, StatusPage, StatusPageChanges};
use crate::db::{DbConn, now, write_tx};
use crate::domain::access::{parse_domains, signs_readers_out};
use crate::domain::brand::{self, BrandColor, HeaderLink};
use crate::domain::lang::{self, Lang};
use crate::domain::{
    EmailAddress, NextUpdateIntervals, PageId, Slug, SupportReach, Theme, Visibility,
    parse_time_zone,
};
use crate::error::{AppError, AppResult};

/// The longest page, group or component name, in characters.
pub const MAX_NAME_LEN: usize = 100;
/// The longest description, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 1000;
/// The longest public URL, in characters.
const MAX_URL_LEN: usize = 2000;

/// A new status page. Unset optional fields take their defaults: time zone UTC, the default
/// next-update intervals, public.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewPageInput {
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    pub public_url: Option<String>,
    pub custom_domain: Option<String>,
    pub time_zone: Option<String>,
    pub support_email: Option<String>,
    pub next_update_intervals: Option<NextUpdateIntervals>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub is_default: bool,
    /// Who may read it (public when absent).
    pub visibility: Option<Visibility>,
    /// The earlier form of `visibility`: `true` is public, `false` internal.
    pub is_public: Option<bool>,
}

/// Changes to a page: absent fields stay as they are; `null` clears an optional one.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct UpdatePageInput {
    pub slug: Option<String>,
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub description: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub public_url: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub custom_domain: Option<Option<String>>,
    pub time_zone: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub support_email: Option<Option<String>>,
    pub next_update_intervals: Option<NextUpdateIntervals>,
    pub is_default: Option<bool>,
    /// Who may read it.
    pub visibility: Option<Visibility>,
    /// The earlier form of `visibility` (when it is absent): `true` is public, `false`
    /// internal.
    pub is_public: Option<bool>,
    /// A private page's password (write-only); `null` removes it.
    #[serde(default, deserialize_with = "nullable")]
    pub password: Option<Option<String>>,
    /// The e-mail domains whose addresses may ask for a sign-in link (`[]`: none).
    pub allowed_email_domains: Option<Vec<String>>,
    /// Who may use the support form of a page that is not public.
    pub support_reach: Option<SupportReach>,
    /// The sites that may frame the status embed (`[]`: none).
    pub embed_origins: Option<Vec<String>>,
    /// Its brand colour (`#rrggbb`, readable on white); `null` returns to Herald's.
    #[serde(default, deserialize_with = "nullable")]
    pub brand_color: Option<Option<String>>,
    /// The colours it is drawn in.
    pub theme: Option<Theme>,
    /// Links in its header (`[]`: none).
    pub header_links: Option<Vec<HeaderLink>>,
    /// Its footer (Markdown); `null` removes it.
    #[serde(default, deserialize_with = "nullable")]
    pub footer: Option<Option<String>>,
    /// Its own stylesheet; `null` removes it.
    #[serde(default, deserialize_with = "nullable")]
    pub custom_css: Option<Option<String>>,
    /// The languages it is read in (codes, holding the default).
    pub languages: Option<Vec<String>>,
    /// The language it is read in when a reader asks for none of its others.
    pub default_language: Option<String>,
}

impl UpdatePageInput {
    /// The visibility asked for, by its name or by the earlier `is_public`.
    fn visibility(&self) -> Option<Visibility> {
        self.visibility.or(self.is_public.map(legacy_visibility))
    }
}

/// What the earlier `is_public` flag means: a page that is not public was served to no one
/// but its responders.
fn legacy_visibility(is_public: bool) -> Visibility {
    match is_public {
        true => Visibility::Public,
        false => Visibility::Internal,
    }
}

/// Creates a page. Setting it default takes the flag from the others; the first page of an
/// installation is always the default.
#[tracing::instrument(skip_all, fields(slug = %input.slug))]
pub fn create_page(conn: &mut DbConn, input: &NewPageInput) -> AppResult<StatusPage> {
    let fields = new_page_fields(input)?;
    let [none, minor, major, critical] = fields.intervals;
    write_tx(conn, |conn| {
        ensure_unique(
            conn,
            None,
            Some(&fields.slug),
            fields.custom_domain.as_deref(),
        )?;
        let is_default = input.is_default || pages::count(conn)? == 0;
        let (id, at) = (PageId::new(), now());
        let page = pages::insert(
            conn,
            &NewStatusPage {
                id: &id,
                slug: &fields.slug,
                name: &fields.name,
                description: fields.description.as_deref(),
                public_url: fields.public_url.as_deref(),
                custom_domain: fields.custom_domain.as_deref(),
                time_zone: &fields.time_zone,
                support_email: fields.support_email.as_deref(),
                is_default,
                visibility: input
                    .visibility
                    .or(input.is_public.map(legacy_visibility))
                    .unwrap_or(Visibility::Public),
                next_update_none_mins: none,
                next_update_minor_mins: minor,
                next_update_major_mins: major,
                next_update_critical_mins: critical,
                created_at: at,
                updated_at: at,
            },
        )?;
        if is_default {
            pages::clear_default_except(conn, &id, at)?;
        }
        Ok(page)
    })
}

/// A new page's validated fields.
struct PageFields {
    slug: String,
    name: String,
    description: Option<String>,
    public_url: Option<String>,
    custom_domain: Option<String>,
    time_zone: String,
    support_email: Option<String>,
    intervals: [Option<i32>; 4],
}

/// Validates a new page, answering every field error at once.
fn new_page_fields(input: &NewPageInput) -> AppResult<PageFields> {
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

/// Changes a page; see [`UpdatePageInput`]. Making it default takes the flag from the others.
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn update_page(
    conn: &mut DbConn,
    page_id: &PageId,
    input: &UpdatePageInput,
) -> AppResult<StatusPage> {
    let mut changes = page_changes(input)?;
    let password = match &input.password {
        Some(Some(password)) => Some(Some(crate::services::users::hash_password(password)?)),
        Some(None) => Some(None),
        None => None,
    };
    write_tx(conn, |conn| {
        let before = found(pages::find(conn, page_id), "page")?;
        let domain = changes.custom_domain.as_ref().and_then(|d| d.as_deref());
        ensure_unique(conn, Some(page_id), changes.slug.as_deref(), domain)?;
        let password_changed = match &password {
            Some(Some(hash)) => {
                access_rows::set_password(conn, page_id, hash, changes.updated_at)?;
                true
            }
            Some(None) => access_rows::clear_password(conn, page_id)?,
            None => false,
        };
        let after_domains: Vec<String> = match &changes.allowed_email_domains {
            Some(stored) => stored.split_whitespace().map(str::to_owned).collect(),
            None => before.email_domains(),
        };
        let visibility = changes.visibility.unwrap_or(before.visibility);
        if signs_readers_out(
            (before.visibility, visibility),
            (&before.email_domains(), &after_domains),
            password_changed,
        ) {
            changes.access_epoch = Some(before.access_epoch + 1);
        }
        language_changes(input, &before, &mut changes)?;
        let page = pages::update(conn, page_id, &changes)?;
        if page.is_default {
            pages::clear_default_except(conn, page_id, changes.updated_at)?;
        }
        Ok(page)
    })
}

/// The page's languages and default as `input` changes them from `before`'s: the default
/// must be among the languages the page has after the change.
fn language_changes(
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
fn page_changes(input: &UpdatePageInput) -> AppResult<StatusPageChanges> {
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

/// Answers a field error when another page than `page_id` already uses the slug or domain.
fn ensure_unique(
    conn: &mut DbConn,
    page_id: Option<&str>,
    slug: Option<&str>,
    domain: Option<&str>,
) -> AppResult<()> {
    let mut check = FieldCheck::default();
    let other = |page: &StatusPage| Some(page.id.as_str()) != page_id;
    if let Some(slug) = slug
        && pages::find_by_slug(conn, slug)?.is_some_and(|p| other(&p))
    {
        check.add(
            "slug",
            format!("'{slug}' is already used by another page; choose another slug"),
        );
    }
    if let Some(domain) = domain
        && pages::find_by_custom_domain(conn, domain)?.is_some_and(|p| other(&p))
    {
        check.add(
            "custom_domain",
            format!("{domain} is already used by another page"),
        );
    }
    check.taken()
}

/// The page with this id.
pub fn get_page(conn: &mut DbConn, page_id: &PageId) -> AppResult<StatusPage> {
    found(pages::find(conn, page_id), "page")
}

/// The page with this slug.
pub fn get_page_by_slug(conn: &mut DbConn, slug: &str) -> AppResult<StatusPage> {
    pages::find_by_slug(conn, slug)?.ok_or_else(|| AppError::NotFound(format!("page '{slug}'")))
}

/// The page served at `/`, if one is marked default.
pub fn get_default_page(conn: &mut DbConn) -> AppResult<Option<StatusPage>> {
    Ok(pages::find_default(conn)?)
}

/// Every page: the default first, then by name.
pub fn list_pages(conn: &mut DbConn) -> AppResult<Vec<StatusPage>> {
    Ok(pages::list(conn)?)
}

/// The page's default next-update intervals per impact.
pub fn page_intervals(page: &StatusPage) -> NextUpdateIntervals {
    page.intervals()
}

/// The interval columns (none, minor, major, critical) of valid intervals.
fn interval_columns(intervals: &NextUpdateIntervals) -> Result<[Option<i32>; 4], String> {
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
