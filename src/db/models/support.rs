//! Support form submissions (`support_submissions`) and the sign-in flag of components.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{components, support_submissions};

/// A stored submission.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = support_submissions)]
pub struct SupportSubmission {
    pub id: String,
    pub page_id: String,
    pub reference: String,
    pub name: String,
    pub email: String,
    pub topic: String,
    pub component_id: Option<String>,
    pub account: Option<String>,
    pub message: String,
    pub wants_copy: bool,
    /// `open` or `handled`.
    pub status: String,
    pub incident_id: Option<String>,
    pub client_ip: Option<String>,
    /// Whether it arrived through the spool (the database was unreachable when it was sent).
    pub spooled: bool,
    /// When the person sent it.
    pub submitted_at: NaiveDateTime,
    pub handled_at: Option<NaiveDateTime>,
    /// The email of the responder who marked it handled.
    pub handled_by: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Changes made in triage: `None` leaves a column alone, `Some(None)` clears it.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = support_submissions)]
pub struct SubmissionChanges {
    pub status: Option<String>,
    pub incident_id: Option<Option<String>>,
    pub handled_at: Option<Option<NaiveDateTime>>,
    pub handled_by: Option<Option<String>>,
    pub updated_at: NaiveDateTime,
}

/// Which submissions to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct SubmissionQuery {
    pub page_id: Option<String>,
    pub topic: Option<String>,
    pub status: Option<String>,
    pub incident_id: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// Whether a submission with this id exists.
pub fn exists(conn: &mut DbConn, id: &str) -> QueryResult<bool> {
    let n: i64 = support_submissions::table
        .filter(support_submissions::id.eq(id))
        .count()
        .get_result(conn)?;
    Ok(n > 0)
}

/// Inserts one submission.
pub fn insert(conn: &mut DbConn, row: &SupportSubmission) -> QueryResult<usize> {
    diesel::insert_into(support_submissions::table)
        .values(row)
        .execute(conn)
}

/// The submission with this id.
pub fn find(conn: &mut DbConn, id: &str) -> QueryResult<Option<SupportSubmission>> {
    support_submissions::table
        .find(id)
        .select(SupportSubmission::as_select())
        .first(conn)
        .optional()
}

/// Submissions of a page with this reference (normally one).
pub fn find_by_reference(
    conn: &mut DbConn,
    page_id: &str,
    reference: &str,
) -> QueryResult<Vec<SupportSubmission>> {
    support_submissions::table
        .filter(support_submissions::page_id.eq(page_id))
        .filter(support_submissions::reference.eq(reference))
        .select(SupportSubmission::as_select())
        .load(conn)
}

/// Submissions matching `q`, newest first.
pub fn list(conn: &mut DbConn, q: &SubmissionQuery) -> QueryResult<Vec<SupportSubmission>> {
    let mut query = support_submissions::table.into_boxed();
    if let Some(page_id) = &q.page_id {
        query = query.filter(support_submissions::page_id.eq(page_id));
    }
    if let Some(topic) = &q.topic {
        query = query.filter(support_submissions::topic.eq(topic));
    }
    if let Some(status) = &q.status {
        query = query.filter(support_submissions::status.eq(status));
    }
    if let Some(incident_id) = &q.incident_id {
        query = query.filter(support_submissions::incident_id.eq(incident_id));
    }
    query
        .order((
            support_submissions::submitted_at.desc(),
            support_submissions::id.desc(),
        ))
        .limit(q.limit)
        .offset(q.offset)
        .select(SupportSubmission::as_select())
        .load(conn)
}

/// Applies triage changes.
pub fn update(conn: &mut DbConn, id: &str, changes: &SubmissionChanges) -> QueryResult<usize> {
    diesel::update(support_submissions::table.find(id))
        .set(changes)
        .execute(conn)
}

/// (page id, topic, count) of submissions sent since `since`.
pub fn counts_since(
    conn: &mut DbConn,
    since: NaiveDateTime,
) -> QueryResult<Vec<(String, String, i64)>> {
    use diesel::dsl::count_star;
    support_submissions::table
        .filter(support_submissions::submitted_at.ge(since))
        .group_by((support_submissions::page_id, support_submissions::topic))
        .select((
            support_submissions::page_id,
            support_submissions::topic,
            count_star(),
        ))
        .load(conn)
}

/// The ids of a page's components marked as meaning "signing in".
pub fn signin_components(conn: &mut DbConn, page_id: &str) -> QueryResult<Vec<String>> {
    components::table
        .filter(components::page_id.eq(page_id))
        .filter(components::signin.eq(true))
        .select(components::id)
        .load(conn)
}

/// Marks (or unmarks) a component as meaning "signing in"; touches `updated_at` so the public
/// page is re-rendered.
pub fn set_signin(
    conn: &mut DbConn,
    component_id: &str,
    signin: bool,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(components::table.find(component_id))
        .set((components::signin.eq(signin), components::updated_at.eq(at)))
        .execute(conn)
}

/// Whether a component is marked as meaning "signing in".
pub fn is_signin(conn: &mut DbConn, component_id: &str) -> QueryResult<bool> {
    components::table
        .find(component_id)
        .select(components::signin)
        .first(conn)
}

/// The submissions sent from `email`, on any page, oldest first.
pub fn by_email(conn: &mut DbConn, email: &str) -> QueryResult<Vec<SupportSubmission>> {
    support_submissions::table
        .filter(support_submissions::email.eq(email))
        .order((
            support_submissions::submitted_at.asc(),
            support_submissions::id.asc(),
        ))
        .select(SupportSubmission::as_select())
        .load(conn)
}

/// Clears who sent the submissions from `email` (name, address, account, network address),
/// keeping their reference, topic, status and message (whose mentions of the address the
/// caller scrubs); answers how many.
pub fn forget_sender(conn: &mut DbConn, email: &str, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(support_submissions::table.filter(support_submissions::email.eq(email)))
        .set((
            support_submissions::name.eq(crate::db::archive::FORGOTTEN),
            support_submissions::email.eq(""),
            support_submissions::account.eq(None::<String>),
            support_submissions::client_ip.eq(None::<String>),
            support_submissions::updated_at.eq(at),
        ))
        .execute(conn)
}
