//! The audit log: one row per write through the API or the console (who, what, when, which
//! fields changed).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::audit_log;
use crate::domain::PageId;

/// One recorded write.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = audit_log)]
pub struct AuditEntry {
    pub id: String,
    pub at: NaiveDateTime,
    /// The user who wrote; `None` for the system (jobs, CLI).
    pub actor_id: Option<String>,
    pub actor_email: String,
    /// What happened, e.g. `incident.create`.
    pub action: String,
    /// What kind of record changed, e.g. `incident`.
    pub entity_type: String,
    pub entity_id: Option<String>,
    pub page_id: Option<PageId>,
    /// The changed fields, as a JSON object.
    pub changes: String,
}

/// Which rows to read, newest first.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery<'a> {
    pub page_id: Option<&'a PageId>,
    /// A user id or an email address.
    pub actor: Option<&'a str>,
    pub limit: i64,
    pub offset: i64,
}

/// Records one write.
pub fn insert(conn: &mut DbConn, entry: &AuditEntry) -> QueryResult<usize> {
    diesel::insert_into(audit_log::table)
        .values(entry)
        .execute(conn)
}

/// Rows matching the query, newest first.
pub fn list(conn: &mut DbConn, query: &AuditQuery<'_>) -> QueryResult<Vec<AuditEntry>> {
    let mut q = audit_log::table.into_boxed();
    if let Some(page_id) = query.page_id {
        q = q.filter(audit_log::page_id.eq(page_id));
    }
    if let Some(actor) = query.actor {
        q = q.filter(
            audit_log::actor_id
                .eq(actor)
                .or(audit_log::actor_email.eq(actor)),
        );
    }
    q.order((audit_log::at.desc(), audit_log::id.desc()))
        .limit(query.limit)
        .offset(query.offset)
        .select(AuditEntry::as_select())
        .load(conn)
}
