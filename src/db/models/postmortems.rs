//! Postmortems with their timeline and follow-up actions (`postmortems`,
//! `postmortem_timeline_entries`, `postmortem_follow_ups`). Scope figures are stored as a JSON
//! array in a TEXT column.

use chrono::{NaiveDateTime, TimeZone, Utc};
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{postmortem_follow_ups, postmortem_timeline_entries, postmortems};
use crate::domain::{FollowUpState, IncidentId, ScopeFigure, TimelineEntry};
use crate::error::{AppError, AppResult};

/// A postmortem as stored; at most one per incident.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable)]
#[diesel(table_name = postmortems)]
pub struct Postmortem {
    pub id: String,
    pub incident_id: IncidentId,
    /// Markdown.
    pub summary: String,
    /// Markdown.
    pub root_cause: String,
    /// JSON array of [`ScopeFigure`]; read it through [`Postmortem::scope_figures`].
    pub scope_figures: String,
    pub published: bool,
    pub published_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Its summary and root cause in the page's other languages (`domain::translation`).
    pub translations: String,
}

impl Postmortem {
    /// The headline figures, in the order they were saved.
    pub fn scope_figures(&self) -> AppResult<Vec<ScopeFigure>> {
        serde_json::from_str(&self.scope_figures).map_err(|e| {
            AppError::Internal(anyhow::anyhow!(
                "corrupt value in postmortems.scope_figures: {e}"
            ))
        })
    }
}

/// A new postmortem.
#[derive(Debug, Insertable)]
#[diesel(table_name = postmortems)]
pub struct NewPostmortem<'a> {
    pub id: &'a str,
    pub incident_id: &'a IncidentId,
    pub summary: &'a str,
    pub root_cause: &'a str,
    pub scope_figures: &'a str,
    pub published: bool,
    pub published_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Changes to a postmortem: `None` leaves a column alone.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = postmortems)]
pub struct PostmortemChanges<'a> {
    pub summary: Option<&'a str>,
    pub root_cause: Option<&'a str>,
    pub scope_figures: Option<&'a str>,
    pub published: Option<bool>,
    pub published_at: Option<Option<NaiveDateTime>>,
    pub translations: Option<&'a str>,
    /// Always set, so a change set is never empty.
    pub updated_at: NaiveDateTime,
}

/// One timeline entry as stored (UTC).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable, Insertable)]
#[diesel(table_name = postmortem_timeline_entries)]
pub struct TimelineEntryRow {
    pub id: String,
    pub postmortem_id: String,
    pub occurred_at: NaiveDateTime,
    pub description: String,
}

impl TimelineEntryRow {
    /// The entry as a domain value.
    pub fn entry(&self) -> TimelineEntry {
        TimelineEntry {
            at: Utc.from_utc_datetime(&self.occurred_at),
            description: self.description.clone(),
        }
    }
}

/// One follow-up action as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable, Insertable)]
#[diesel(table_name = postmortem_follow_ups)]
pub struct FollowUp {
    pub id: String,
    pub postmortem_id: String,
    pub description: String,
    /// Who is responsible (free text: a person or a team).
    pub owner: Option<String>,
    pub state: FollowUpState,
    pub position: i32,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// The postmortem of an incident, if one was written.
pub fn find_by_incident(
    conn: &mut DbConn,
    incident_id: &IncidentId,
) -> QueryResult<Option<Postmortem>> {
    postmortems::table
        .filter(postmortems::incident_id.eq(incident_id))
        .select(Postmortem::as_select())
        .first(conn)
        .optional()
}

/// Inserts a postmortem and returns it.
pub fn insert(conn: &mut DbConn, new: &NewPostmortem<'_>) -> QueryResult<Postmortem> {
    diesel::insert_into(postmortems::table)
        .values(new)
        .execute(conn)?;
    postmortems::table
        .find(new.id)
        .select(Postmortem::as_select())
        .first(conn)
}

/// Applies `changes` to the postmortem `id` and returns it as it now is.
pub fn update(
    conn: &mut DbConn,
    id: &str,
    changes: &PostmortemChanges<'_>,
) -> QueryResult<Postmortem> {
    diesel::update(postmortems::table.find(id))
        .set(changes)
        .execute(conn)?;
    postmortems::table
        .find(id)
        .select(Postmortem::as_select())
        .first(conn)
}

/// Deletes the timeline and follow-ups of a postmortem (before saving new ones).
pub fn delete_children(conn: &mut DbConn, postmortem_id: &str) -> QueryResult<()> {
    diesel::delete(
        postmortem_timeline_entries::table
            .filter(postmortem_timeline_entries::postmortem_id.eq(postmortem_id)),
    )
    .execute(conn)?;
    diesel::delete(
        postmortem_follow_ups::table.filter(postmortem_follow_ups::postmortem_id.eq(postmortem_id)),
    )
    .execute(conn)?;
    Ok(())
}

/// Inserts one timeline entry (one statement per row: batch inserts do not work through the
/// two-backend connection).
pub fn insert_timeline_entry(conn: &mut DbConn, row: &TimelineEntryRow) -> QueryResult<usize> {
    diesel::insert_into(postmortem_timeline_entries::table)
        .values(row)
        .execute(conn)
}

/// Inserts one follow-up action.
pub fn insert_follow_up(conn: &mut DbConn, row: &FollowUp) -> QueryResult<usize> {
    diesel::insert_into(postmortem_follow_ups::table)
        .values(row)
        .execute(conn)
}

/// The timeline of a postmortem, oldest first (entries at the same time in the order saved).
pub fn timeline(conn: &mut DbConn, postmortem_id: &str) -> QueryResult<Vec<TimelineEntryRow>> {
    postmortem_timeline_entries::table
        .filter(postmortem_timeline_entries::postmortem_id.eq(postmortem_id))
        .order((
            postmortem_timeline_entries::occurred_at.asc(),
            postmortem_timeline_entries::id.asc(),
        ))
        .select(TimelineEntryRow::as_select())
        .load(conn)
}

/// The follow-up actions of a postmortem, by position.
pub fn follow_ups(conn: &mut DbConn, postmortem_id: &str) -> QueryResult<Vec<FollowUp>> {
    postmortem_follow_ups::table
        .filter(postmortem_follow_ups::postmortem_id.eq(postmortem_id))
        .order((
            postmortem_follow_ups::position.asc(),
            postmortem_follow_ups::id.asc(),
        ))
        .select(FollowUp::as_select())
        .load(conn)
}

/// Deletes a postmortem with its timeline and follow-ups (their keys cascade).
pub fn delete(conn: &mut DbConn, id: &str) -> QueryResult<usize> {
    delete_children(conn, id)?;
    diesel::delete(postmortems::table.find(id)).execute(conn)
}
