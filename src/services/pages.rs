//! Status page use cases: creating and changing pages, finding them, and their next-update
//! intervals.
//!
//! Its [`input`] submodule holds the small input helpers every service shares.

mod checks;
pub mod input;

use checks::{language_changes, new_page_fields, page_changes};

use serde::Deserialize;

pub use input::{
    FieldCheck, found, null_as_default, nullable, optional, optional_text, required_line,
    required_text, row_time,
};

use crate::db::models::access as access_rows;
use crate::db::models::pages::{self, NewStatusPage, StatusPage};
use crate::db::{DbConn, now, write_tx};
use crate::domain::access::signs_readers_out;
use crate::domain::brand::HeaderLink;
use crate::domain::{NextUpdateIntervals, PageId, SupportReach, Theme, Visibility};
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

/// Sets how the page's status embed looks.
pub fn set_embed_look(
    conn: &mut DbConn,
    page_id: &PageId,
    look: &crate::domain::embed::Look,
) -> AppResult<StatusPage> {
    let changes = pages::StatusPageChanges {
        embed_look: Some(look.stored()),
        updated_at: now(),
        ..pages::StatusPageChanges::default()
    };
    found(pages::update(conn, page_id, &changes), "page")
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
