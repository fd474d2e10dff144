//! What imports made (`imported_records`): each source record of a page and the record it
//! became.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::imported_records;
use crate::domain::PageId;

/// The local id the source record `source_id` of `kind` became on the page, if imported.
pub fn local_id(
    conn: &mut DbConn,
    page_id: &PageId,
    kind: &str,
    source_id: &str,
) -> QueryResult<Option<String>> {
    imported_records::table
        .find((page_id, kind, source_id))
        .select(imported_records::local_id)
        .first(conn)
        .optional()
}

/// Records that `source_id` of `kind` became `local_id`.
pub fn remember(
    conn: &mut DbConn,
    page_id: &PageId,
    kind: &str,
    source_id: &str,
    local_id: &str,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::insert_into(imported_records::table)
        .values((
            imported_records::page_id.eq(page_id),
            imported_records::kind.eq(kind),
            imported_records::source_id.eq(source_id),
            imported_records::local_id.eq(local_id),
            imported_records::created_at.eq(at),
        ))
        .execute(conn)
}

/// Every record of `kind` imported into the page: (source id, local id).
pub fn all_of_kind(
    conn: &mut DbConn,
    page_id: &PageId,
    kind: &str,
) -> QueryResult<Vec<(String, String)>> {
    imported_records::table
        .filter(imported_records::page_id.eq(page_id))
        .filter(imported_records::kind.eq(kind))
        .select((imported_records::source_id, imported_records::local_id))
        .load(conn)
}
