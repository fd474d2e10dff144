//! Use cases on the database: storing a submission exactly once, and triage (list, filter,
//! mark handled, link to an incident) with an audit row for every triage write.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::OptionalExtension;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Submission, Topic};
use crate::db::models::pages;
use crate::db::models::support::{
    self as rows, SubmissionChanges, SubmissionQuery, SupportSubmission,
};
use crate::db::{DbConn, now, savepoint, write_tx};
use crate::domain::PageId;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::services::audit::{self, Actor, Change};

/// Rows per page of the triage list when no limit is given.
pub const DEFAULT_LIMIT: i64 = 50;
/// The largest page of the triage list.
pub const MAX_LIMIT: i64 = 200;

/// Stores `s` unless a submission with its id is already there (a spool replay after the
/// first attempt did reach the database), with its notice jobs in the same transaction (a
/// savepoint of a batch's: one that fails leaves the others).
/// Returns whether it was inserted. A submission for a
/// page deleted meanwhile is dropped with a warning.
pub fn insert_submission(conn: &mut DbConn, s: &Submission, spooled: bool) -> AppResult<bool> {
    let row = to_row(s, spooled);
    let inserted = savepoint(conn, |c| -> AppResult<bool> {
        if rows::exists(c, &row.id)? {
            return Ok(false);
        }
        let Some(page) = pages::find(c, &PageId::from(row.page_id.as_str())).optional()? else {
            tracing::warn!(reference = %row.reference, "support submission for a deleted page dropped");
            return Ok(false);
        };
        rows::insert(c, &row)?;
        // Only here, where the row was new: a replayed submission gets its notices once.
        super::notice::enqueue(c, &row, &page, s.language)?;
        Ok(true)
    });
    match inserted {
        // Another process inserted the same id between the check and the insert.
        Err(AppError::Conflict(_)) => Ok(false),
        other => other,
    }
}

fn to_row(s: &Submission, spooled: bool) -> SupportSubmission {
    let at = now();
    SupportSubmission {
        id: s.id.clone(),
        page_id: s.page_id.clone(),
        reference: s.reference.clone(),
        name: s.name.clone(),
        email: s.email.clone(),
        topic: s.topic.as_str().to_owned(),
        component_id: s.component_id.clone(),
        account: s.account.clone(),
        message: s.message.clone(),
        wants_copy: s.wants_copy,
        status: "open".to_owned(),
        incident_id: None,
        client_ip: s.client_ip.clone(),
        spooled,
        submitted_at: micros(s.submitted_at),
        handled_at: None,
        handled_by: None,
        created_at: at,
        updated_at: at,
    }
}

fn micros(at: DateTime<Utc>) -> NaiveDateTime {
    use chrono::SubsecRound;
    at.naive_utc().trunc_subsecs(6)
}

/// The triage list's query string.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TriageFilter {
    pub topic: Option<String>,
    /// `open` or `handled`.
    pub status: Option<String>,
    /// An incident id or reference.
    pub incident: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// A triage change: status `handled` or `open`, and the incident (id or reference; `null`
/// unlinks).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriagePatch {
    pub status: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub incident: Option<Option<String>>,
}

fn nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Ok(Some(Option::deserialize(d)?))
}

/// The submissions of page `page_id` matching `filter`, newest first.
pub fn list(
    conn: &mut DbConn,
    page_id: &str,
    filter: &TriageFilter,
) -> AppResult<Vec<SupportSubmission>> {
    let mut errors = FieldErrors::new();
    let limit = filter.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        errors.insert(
            "limit".into(),
            vec![format!("must be between 1 and {MAX_LIMIT}")],
        );
    }
    let offset = filter.offset.unwrap_or(0);
    if offset < 0 {
        errors.insert("offset".into(), vec!["must not be negative".into()]);
    }
    let topic = blank(&filter.topic);
    if let Some(t) = topic
        && t.parse::<Topic>().is_err()
    {
        errors.insert("topic".into(), vec![topic_message()]);
    }
    let status = blank(&filter.status);
    if let Some(s) = status
        && !matches!(s, "open" | "handled")
    {
        errors.insert("status".into(), vec!["must be open or handled".into()]);
    }
    // No id or reference holds it, and PostgreSQL refuses it in a query's text.
    if blank(&filter.incident).is_some_and(|i| i.contains('\0')) {
        errors.insert(
            "incident".into(),
            vec!["must not contain the NUL character (U+0000)".into()],
        );
    }
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    // A filter naming an incident the page does not have finds nothing to list: 404.
    let incident_id = match blank(&filter.incident) {
        Some(i) => Some(incident_id(conn, page_id, i).map_err(|e| match e {
            AppError::Validation(_) => AppError::NotFound(format!("incident {i}")),
            other => other,
        })?),
        None => None,
    };
    let query = SubmissionQuery {
        page_id: Some(page_id.to_owned()),
        topic: topic.map(str::to_owned),
        status: status.map(str::to_owned),
        incident_id,
        limit,
        offset,
    };
    Ok(rows::list(conn, &query)?)
}

/// The submission `key` (id or reference) of page `page_id`.
pub fn get(conn: &mut DbConn, page_id: &str, key: &str) -> AppResult<SupportSubmission> {
    if let Some(row) = rows::find(conn, key)?
        && row.page_id == page_id
    {
        return Ok(row);
    }
    if let Some(reference) = super::reference::normalize(key)
        && let [row] = rows::find_by_reference(conn, page_id, &reference)?.as_slice()
    {
        return Ok(row.clone());
    }
    Err(AppError::NotFound("support submission".into()))
}

/// The submission `id`, whatever its page (the console's inbox spans every page).
pub fn find(conn: &mut DbConn, id: &str) -> AppResult<SupportSubmission> {
    rows::find(conn, id)?.ok_or_else(|| AppError::NotFound("support submission".into()))
}

/// The submissions `query` selects (the console's inbox).
pub fn query(conn: &mut DbConn, query: &SubmissionQuery) -> AppResult<Vec<SupportSubmission>> {
    Ok(rows::list(conn, query)?)
}

/// Applies a triage change by `actor` and records it in the audit log, in one transaction.
pub fn triage(
    conn: &mut DbConn,
    page_id: &str,
    key: &str,
    patch: &TriagePatch,
    actor: &Actor,
) -> AppResult<SupportSubmission> {
    write_tx(conn, |c| {
        let row = get(c, page_id, key)?;
        let at = now();
        let mut changes = SubmissionChanges {
            updated_at: at,
            ..SubmissionChanges::default()
        };
        let mut audit_fields = serde_json::Map::new();
        match blank(&patch.status) {
            None => {}
            Some("handled") => {
                changes.status = Some("handled".into());
                changes.handled_at = Some(Some(at));
                changes.handled_by = Some(Some(actor.email.clone()));
                audit_fields.insert("status".into(), json!("handled"));
            }
            Some("open") => {
                changes.status = Some("open".into());
                changes.handled_at = Some(None);
                changes.handled_by = Some(None);
                audit_fields.insert("status".into(), json!("open"));
            }
            Some(_) => return Err(AppError::field("status", "must be open or handled")),
        }
        if let Some(incident) = &patch.incident {
            let id = match incident.as_deref().map(str::trim).filter(|i| !i.is_empty()) {
                Some(i) => Some(incident_id(c, page_id, i)?),
                None => None,
            };
            audit_fields.insert("incident_id".into(), json!(id));
            changes.incident_id = Some(id);
        }
        if audit_fields.is_empty() {
            // A patch that changes nothing changes nothing, as every PATCH of the API.
            return Ok(row);
        }
        rows::update(c, &row.id, &changes)?;
        audit::record(
            c,
            actor,
            &Change {
                action: "support.triage",
                entity_type: "support_submission",
                entity_id: Some(row.id.clone()),
                page_id: Some(PageId::from(page_id)),
                changes: Value::Object(audit_fields),
            },
        )?;
        rows::find(c, &row.id)?.ok_or_else(|| AppError::NotFound("support submission".into()))
    })
}

/// Submissions per (page id, topic) in the last hour before `at`.
pub fn last_hour(conn: &mut DbConn, at: DateTime<Utc>) -> AppResult<Vec<(String, String, i64)>> {
    Ok(rows::counts_since(
        conn,
        micros(at - chrono::Duration::hours(1)),
    )?)
}

/// The id of incident `key` (id or reference) of the page; a field error otherwise.
fn incident_id(conn: &mut DbConn, page_id: &str, key: &str) -> AppResult<String> {
    match crate::services::incidents::get_page_incident(conn, &PageId::from(page_id), key) {
        Ok(i) => Ok(i.id.into()),
        Err(AppError::NotFound(_)) => Err(AppError::field(
            "incident",
            "is not an incident of this page",
        )),
        Err(e) => Err(e),
    }
}

fn blank(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

fn topic_message() -> String {
    let names: Vec<&str> = Topic::ALL.iter().map(|t| t.as_str()).collect();
    format!("must be one of {}", names.join(", "))
}

/// A submission as the API shows it.
pub fn view(s: &SupportSubmission) -> Value {
    let time = |t: NaiveDateTime| {
        t.and_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    json!({
        "id": s.id, "reference": s.reference, "page_id": s.page_id, "name": s.name,
        "email": s.email, "topic": s.topic, "component_id": s.component_id,
        "account": s.account, "message": s.message, "wants_copy": s.wants_copy,
        "status": s.status, "incident_id": s.incident_id, "spooled": s.spooled,
        "submitted_at": time(s.submitted_at),
        "handled_at": s.handled_at.map(time), "handled_by": s.handled_by,
        "created_at": time(s.created_at), "updated_at": time(s.updated_at),
    })
}
