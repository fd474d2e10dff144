//! The audit log: recording who changed what, and reading it back for owners.
//!
//! Writers call [`record`] inside the transaction of their write, so a change and its audit row
//! commit together.

use serde::Deserialize;
use serde_json::Value;

use crate::db::models::audit::{self, AuditEntry, AuditQuery};
use crate::db::models::pages;
use crate::db::{DbConn, new_id, now};
use crate::domain::PageId;
use crate::error::{AppError, AppResult};
use crate::services::pages::FieldCheck;

/// Rows per page of the log when no limit is given.
pub const DEFAULT_LIST_LIMIT: i64 = 25;
/// The largest page of the log.
pub const MAX_LIST_LIMIT: i64 = 100;

/// Who made a change.
#[derive(Debug, Clone)]
pub struct Actor {
    pub user_id: String,
    pub email: String,
}

/// What changed: an action such as `incident.create`, the record and its page, and the
/// changed fields as a JSON object.
#[derive(Debug, Clone)]
pub struct Change {
    pub action: &'static str,
    pub entity_type: &'static str,
    pub entity_id: Option<String>,
    pub page_id: Option<PageId>,
    pub changes: Value,
}

/// Which audit rows to read (query-string friendly), newest first.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AuditFilter {
    /// A page slug.
    pub page: Option<String>,
    /// A user id or email address.
    pub actor: Option<String>,
    /// At most this many (1 to 100, 25 when absent).
    pub limit: Option<i64>,
    /// Skip this many first.
    pub offset: Option<i64>,
}

/// Records a change in the caller's transaction.
#[tracing::instrument(skip_all, fields(action = %change.action))]
pub fn record(conn: &mut DbConn, actor: &Actor, change: &Change) -> AppResult<()> {
    let entry = AuditEntry {
        id: new_id(),
        at: now(),
        actor_id: Some(actor.user_id.clone()),
        actor_email: actor.email.clone(),
        action: change.action.to_owned(),
        entity_type: change.entity_type.to_owned(),
        entity_id: change.entity_id.clone(),
        page_id: change.page_id.clone(),
        changes: change.changes.to_string(),
    };
    audit::insert(conn, &entry)?;
    Ok(())
}

/// The rows matching the filter, newest first. An unknown page slug is a 404.
pub fn list_audit(conn: &mut DbConn, filter: &AuditFilter) -> AppResult<Vec<AuditEntry>> {
    let mut check = FieldCheck::default();
    let limit = filter.limit.unwrap_or(DEFAULT_LIST_LIMIT);
    if !(1..=MAX_LIST_LIMIT).contains(&limit) {
        check.add("limit", format!("must be between 1 and {MAX_LIST_LIMIT}"));
    }
    let offset = filter.offset.unwrap_or(0);
    if offset < 0 {
        check.add("offset", "must not be negative");
    }
    check.done(Some(()))?;
    let page_id = match filter.page.as_deref() {
        Some(slug) => Some(
            pages::find_by_slug(conn, slug)?
                .ok_or_else(|| AppError::NotFound(format!("page {slug}")))?
                .id,
        ),
        None => None,
    };
    let query = AuditQuery {
        page_id: page_id.as_ref(),
        actor: filter.actor.as_deref(),
        limit,
        offset,
    };
    Ok(audit::list(conn, &query)?)
}
