//! Status pages: the row, its changes and the queries on `status_pages`.
//!
//! Also home to [`decode`], which every model file uses to turn a stored TEXT enum back into its
//! domain type without panicking on a corrupt value.

use std::fmt::Display;
use std::str::FromStr;

use chrono::NaiveDateTime;
use chrono_tz::Tz;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::connection::MultiBackend;
use crate::db::schema::status_pages;
use crate::domain::lang::Lang;
use crate::domain::{
    NextUpdateIntervals, PageId, SupportReach, Theme, Visibility, parse_time_zone,
};
use crate::error::{AppError, AppResult};

/// Parses a value read from `column` into its domain type. A value the domain does not know can
/// only come from a corrupt or hand-edited database, so it is an internal error, never a panic.
pub fn decode<T>(column: &'static str, value: &str) -> AppResult<T>
where
    T: FromStr,
    T::Err: Display,
{
    value
        .parse()
        .map_err(|e| AppError::Internal(anyhow::anyhow!("corrupt value in {column}: {e}")))
}

/// A status page as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable)]
#[diesel(table_name = status_pages)]
pub struct StatusPage {
    pub id: PageId,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    pub public_url: Option<String>,
    pub custom_domain: Option<String>,
    /// IANA name, e.g. `Europe/Berlin`; times are shown in it.
    pub time_zone: String,
    pub support_email: Option<String>,
    /// The page served at `/` (at most one page has it).
    pub is_default: bool,
    pub next_update_none_mins: Option<i32>,
    pub next_update_minor_mins: Option<i32>,
    pub next_update_major_mins: Option<i32>,
    pub next_update_critical_mins: Option<i32>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// The sites that may frame its status embed, separated by spaces (CSP's
    /// `frame-ancestors` sources); empty, none may.
    pub embed_origins: String,
    /// Who may read it.
    pub visibility: Visibility,
    /// The e-mail domains whose addresses may ask for a sign-in link (a private page),
    /// separated by spaces.
    pub allowed_email_domains: String,
    /// Who may use its support form when it is not public.
    pub support_reach: SupportReach,
    /// The epoch of its access settings: a reader's pass names one (see `services::access`).
    pub access_epoch: i64,
    /// Its brand colour (`#rrggbb`), drawn for links, buttons and accents.
    pub brand_color: Option<String>,
    /// The colours it is drawn in.
    pub theme: Theme,
    /// Links in its header beside its own navigation (a JSON array of `{label, url}`).
    pub header_links: String,
    /// Its footer (Markdown).
    pub footer: Option<String>,
    /// Its own stylesheet, after the brand colour's.
    pub custom_css: Option<String>,
    /// The language it is read in when a reader asks for none of its others.
    pub default_language: Lang,
    /// The languages it is read in (a JSON array of codes, holding the default).
    pub languages: String,
    /// The look of its status embed (`domain::embed::Look`, as JSON).
    pub embed_look: String,
}

impl StatusPage {
    /// The languages it is read in, the default first when the stored list lacks it.
    pub fn enabled_languages(&self) -> Vec<Lang> {
        crate::domain::lang::read_stored(&self.languages, self.default_language)
    }

    /// The allowed e-mail domains, as a list.
    pub fn email_domains(&self) -> Vec<String> {
        self.allowed_email_domains
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    /// The page's default next-update intervals. A stored negative value (never written by
    /// Herald) reads as "no deadline".
    pub fn intervals(&self) -> NextUpdateIntervals {
        let mins = |v: Option<i32>| v.and_then(|m| u32::try_from(m).ok());
        NextUpdateIntervals {
            none: mins(self.next_update_none_mins),
            minor: mins(self.next_update_minor_mins),
            major: mins(self.next_update_major_mins),
            critical: mins(self.next_update_critical_mins),
        }
    }

    /// The page's time zone.
    pub fn tz(&self) -> AppResult<Tz> {
        parse_time_zone(&self.time_zone).map_err(|e| {
            AppError::Internal(anyhow::anyhow!(
                "corrupt value in status_pages.time_zone: {e}"
            ))
        })
    }
}

/// A new status page.
#[derive(Debug, Insertable)]
#[diesel(table_name = status_pages)]
pub struct NewStatusPage<'a> {
    pub id: &'a PageId,
    pub slug: &'a str,
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub public_url: Option<&'a str>,
    pub custom_domain: Option<&'a str>,
    pub time_zone: &'a str,
    pub support_email: Option<&'a str>,
    pub is_default: bool,
    pub visibility: Visibility,
    pub next_update_none_mins: Option<i32>,
    pub next_update_minor_mins: Option<i32>,
    pub next_update_major_mins: Option<i32>,
    pub next_update_critical_mins: Option<i32>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Changes to a page: `None` leaves a column alone, `Some(None)` clears a nullable one.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = status_pages)]
pub struct StatusPageChanges {
    pub embed_look: Option<String>,
    pub slug: Option<String>,
    pub name: Option<String>,
    pub description: Option<Option<String>>,
    pub public_url: Option<Option<String>>,
    pub custom_domain: Option<Option<String>>,
    pub time_zone: Option<String>,
    pub support_email: Option<Option<String>>,
    pub is_default: Option<bool>,
    pub visibility: Option<Visibility>,
    pub allowed_email_domains: Option<String>,
    pub support_reach: Option<SupportReach>,
    pub access_epoch: Option<i64>,
    pub next_update_none_mins: Option<Option<i32>>,
    pub next_update_minor_mins: Option<Option<i32>>,
    pub next_update_major_mins: Option<Option<i32>>,
    pub next_update_critical_mins: Option<Option<i32>>,
    pub embed_origins: Option<String>,
    pub brand_color: Option<Option<String>>,
    pub theme: Option<Theme>,
    pub header_links: Option<String>,
    pub footer: Option<Option<String>>,
    pub custom_css: Option<Option<String>>,
    pub default_language: Option<Lang>,
    pub languages: Option<String>,
    /// Always set, so a change set is never empty.
    pub updated_at: NaiveDateTime,
}

/// Inserts a page and returns it.
pub fn insert(conn: &mut DbConn, new: &NewStatusPage<'_>) -> QueryResult<StatusPage> {
    diesel::insert_into(status_pages::table)
        .values(new)
        .execute(conn)?;
    find(conn, new.id)
}

/// Applies `changes` to the page `id` and returns the page as it now is.
pub fn update(
    conn: &mut DbConn,
    id: &PageId,
    changes: &StatusPageChanges,
) -> QueryResult<StatusPage> {
    diesel::update(status_pages::table.find(id))
        .set(changes)
        .execute(conn)?;
    find(conn, id)
}

/// The page with this id (diesel `NotFound` when there is none).
pub fn find(conn: &mut DbConn, id: &PageId) -> QueryResult<StatusPage> {
    status_pages::table
        .find(id)
        .select(StatusPage::as_select())
        .first(conn)
}

/// The page `query` finds, if any.
fn first(
    conn: &mut DbConn,
    query: status_pages::BoxedQuery<'_, MultiBackend>,
) -> QueryResult<Option<StatusPage>> {
    query.select(StatusPage::as_select()).first(conn).optional()
}

/// The page with this slug, if any.
pub fn find_by_slug(conn: &mut DbConn, slug: &str) -> QueryResult<Option<StatusPage>> {
    first(
        conn,
        status_pages::table
            .filter(status_pages::slug.eq(slug))
            .into_boxed(),
    )
}

/// The page served on this custom domain (lowercase), if any.
pub fn find_by_custom_domain(conn: &mut DbConn, domain: &str) -> QueryResult<Option<StatusPage>> {
    let query = status_pages::table.filter(status_pages::custom_domain.eq(domain));
    first(conn, query.into_boxed())
}

/// The default page, if one is marked.
pub fn find_default(conn: &mut DbConn) -> QueryResult<Option<StatusPage>> {
    let query = status_pages::table.filter(status_pages::is_default.eq(true));
    first(conn, query.into_boxed())
}

/// Every page: the default first, then by name.
pub fn list(conn: &mut DbConn) -> QueryResult<Vec<StatusPage>> {
    status_pages::table
        .order((
            status_pages::is_default.desc(),
            status_pages::name.asc(),
            status_pages::id.asc(),
        ))
        .select(StatusPage::as_select())
        .load(conn)
}

/// How many pages exist.
pub fn count(conn: &mut DbConn) -> QueryResult<i64> {
    status_pages::table.count().get_result(conn)
}

/// Removes the default flag from every page except `keep`.
pub fn clear_default_except(
    conn: &mut DbConn,
    keep: &str,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        status_pages::table
            .filter(status_pages::is_default.eq(true))
            .filter(status_pages::id.ne(keep)),
    )
    .set((
        status_pages::is_default.eq(false),
        status_pages::updated_at.eq(at),
    ))
    .execute(conn)
}
