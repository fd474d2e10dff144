//! Vendors' status, mirrored (`mirror_sources`, `mirrors`): the summaries polled, one row per
//! URL with its ETag and whether the vendor answers, and the components that follow them.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{mirror_sources, mirrors};
use crate::domain::{ComponentId, ComponentStatus, PageId};

/// One summary URL Herald polls.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = mirror_sources, treat_none_as_null = true)]
pub struct Source {
    pub url: String,
    pub etag: Option<String>,
    pub vendor_name: String,
    pub vendor_url: Option<String>,
    pub confirmed_at: Option<NaiveDateTime>,
    pub failing_since: Option<NaiveDateTime>,
    pub last_error: Option<String>,
    pub checked_at: Option<NaiveDateTime>,
    pub next_poll_at: NaiveDateTime,
    pub created_at: NaiveDateTime,
}

/// One component following a vendor's component.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = mirrors, treat_none_as_null = true)]
pub struct Mirror {
    pub component_id: ComponentId,
    pub page_id: PageId,
    pub source_url: String,
    /// The vendor component's id.
    pub vendor_component: String,
    /// Its name as the vendor shows it ("Group - Component").
    pub vendor_label: String,
    /// The vendor's status last seen.
    pub vendor_status: Option<ComponentStatus>,
    /// The vendor's open incidents naming it (`domain::vendor::Named` as a JSON array).
    pub incidents: String,
    /// Why the summary could not serve this one, when it could not.
    pub problem: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// The source at `url`.
pub fn find_source(conn: &mut DbConn, url: &str) -> QueryResult<Option<Source>> {
    mirror_sources::table
        .find(url)
        .select(Source::as_select())
        .first(conn)
        .optional()
}

pub fn insert_source(conn: &mut DbConn, row: &Source) -> QueryResult<usize> {
    diesel::insert_into(mirror_sources::table)
        .values(row)
        .execute(conn)
}

pub fn save_source(conn: &mut DbConn, row: &Source) -> QueryResult<usize> {
    diesel::update(mirror_sources::table.find(&row.url))
        .set(row)
        .execute(conn)
}

/// Forgets a source no component follows any more.
pub fn delete_source_if_unused(conn: &mut DbConn, url: &str) -> QueryResult<usize> {
    let used: i64 = mirrors::table
        .filter(mirrors::source_url.eq(url))
        .count()
        .get_result(conn)?;
    if used > 0 {
        return Ok(0);
    }
    diesel::delete(mirror_sources::table.find(url)).execute(conn)
}

/// Up to `limit` sources due at `at`, most overdue first: each URL with its ETag.
pub fn due_sources(
    conn: &mut DbConn,
    at: NaiveDateTime,
    limit: i64,
) -> QueryResult<Vec<(String, Option<String>)>> {
    mirror_sources::table
        .filter(mirror_sources::next_poll_at.le(at))
        .order(mirror_sources::next_poll_at)
        .limit(limit)
        .select((mirror_sources::url, mirror_sources::etag))
        .load(conn)
}

/// Takes the poll of a due source for this process: moves its next poll to `next` unless
/// another process did first; whether this one did.
pub fn claim_source(
    conn: &mut DbConn,
    url: &str,
    at: NaiveDateTime,
    next: NaiveDateTime,
) -> QueryResult<bool> {
    let claimed = diesel::update(
        mirror_sources::table
            .find(url)
            .filter(mirror_sources::next_poll_at.le(at)),
    )
    .set((
        mirror_sources::next_poll_at.eq(next),
        mirror_sources::checked_at.eq(at),
    ))
    .execute(conn)?;
    Ok(claimed == 1)
}

/// When the next source falls due.
pub fn next_due(conn: &mut DbConn) -> QueryResult<Option<NaiveDateTime>> {
    use diesel::dsl::min;
    mirror_sources::table
        .select(min(mirror_sources::next_poll_at))
        .first(conn)
}

pub fn insert(conn: &mut DbConn, row: &Mirror) -> QueryResult<usize> {
    diesel::insert_into(mirrors::table)
        .values(row)
        .execute(conn)
}

pub fn save(conn: &mut DbConn, row: &Mirror) -> QueryResult<usize> {
    diesel::update(mirrors::table.find(&row.component_id))
        .set(row)
        .execute(conn)
}

pub fn find(conn: &mut DbConn, component_id: &ComponentId) -> QueryResult<Option<Mirror>> {
    mirrors::table
        .find(component_id)
        .select(Mirror::as_select())
        .first(conn)
        .optional()
}

pub fn delete(conn: &mut DbConn, component_id: &ComponentId) -> QueryResult<usize> {
    diesel::delete(mirrors::table.find(component_id)).execute(conn)
}

/// The components following the source at `url`.
pub fn of_source(conn: &mut DbConn, url: &str) -> QueryResult<Vec<Mirror>> {
    mirrors::table
        .filter(mirrors::source_url.eq(url))
        .order(mirrors::component_id)
        .select(Mirror::as_select())
        .load(conn)
}

/// A page's mirrors with their sources, in component id order.
pub fn of_page(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<(Mirror, Source)>> {
    mirrors::table
        .inner_join(mirror_sources::table)
        .filter(mirrors::page_id.eq(page_id))
        .order(mirrors::component_id)
        .select((Mirror::as_select(), Source::as_select()))
        .load(conn)
}
