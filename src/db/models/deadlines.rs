//! Queries for the "next update by" discipline: overdue and soon-due incidents, and the updates
//! whose promises are scored.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::incidents::Incident;
use crate::db::DbConn;
use crate::db::schema::{incident_updates, incidents};
use crate::domain::{IncidentKind, LifecycleStatus, MaintenanceStatus, PageId};

/// Open incidents whose promised update time lies in `[from, until)`, soonest first, on one page
/// or on all.
pub fn open_due_between(
    conn: &mut DbConn,
    page_id: Option<&str>,
    from: Option<NaiveDateTime>,
    until: NaiveDateTime,
) -> QueryResult<Vec<Incident>> {
    let mut query = incidents::table
        .filter(incidents::resolved_at.is_null())
        .filter(incidents::next_update_by.lt(until))
        .into_boxed();
    if let Some(from) = from {
        query = query.filter(incidents::next_update_by.ge(from));
    }
    if let Some(page_id) = page_id {
        query = query.filter(incidents::page_id.eq(page_id));
    }
    query
        .order(incidents::next_update_by.asc())
        .select(Incident::as_select())
        .load(conn)
}

/// (incident id, posted at, next update by) of every update of the page's incidents that were
/// open at some point since `since`, in time order per incident.
pub fn promises_since(
    conn: &mut DbConn,
    page_id: &PageId,
    since: NaiveDateTime,
) -> QueryResult<Vec<(String, NaiveDateTime, Option<NaiveDateTime>)>> {
    incident_updates::table
        .inner_join(incidents::table)
        .filter(incidents::page_id.eq(page_id))
        .filter(
            incidents::resolved_at
                .is_null()
                .or(incidents::resolved_at.ge(since)),
        )
        .order((
            incident_updates::incident_id,
            incident_updates::created_at,
            incident_updates::id,
        ))
        .select((
            incident_updates::incident_id,
            incident_updates::created_at,
            incident_updates::next_update_by,
        ))
        .load(conn)
}

/// Automatic maintenances with a window edge passed at `at` and a step still to take: scheduled
/// ones whose start has come, and open ones whose end has come. On PostgreSQL the rows are locked
/// (`FOR UPDATE SKIP LOCKED`) so two processes never step the same maintenance.
pub fn auto_maintenances_due(conn: &mut DbConn, at: NaiveDateTime) -> QueryResult<Vec<Incident>> {
    let due = incidents::kind
        .eq(IncidentKind::Maintenance)
        .and(incidents::auto_transition.eq(true))
        .and(incidents::resolved_at.is_null())
        .and(
            incidents::status
                .eq(LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled))
                .and(incidents::scheduled_for.le(at))
                .or(incidents::scheduled_until.le(at)),
        );
    match conn {
        DbConn::Postgres(pg) => incidents::table
            .filter(due)
            .order(incidents::scheduled_for)
            .for_update()
            .skip_locked()
            .select(Incident::as_select())
            .load(pg),
        DbConn::Sqlite(_) => incidents::table
            .filter(due)
            .order(incidents::scheduled_for)
            .select(Incident::as_select())
            .load(conn),
    }
}

/// Open incidents whose promised next update is past `at` (for `/metrics`).
pub fn overdue_count(conn: &mut DbConn, at: NaiveDateTime) -> QueryResult<i64> {
    incidents::table
        .filter(incidents::resolved_at.is_null())
        .filter(incidents::next_update_by.lt(at))
        .count()
        .get_result(conn)
}
