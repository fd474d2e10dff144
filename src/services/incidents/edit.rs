//! Changes to what was already posted: deleting an incident, correcting a posted update's text
//! or the time it is shown at, and the metadata integrations attach.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::IncidentDetail;
use super::open::MAX_BODY_LEN;
use crate::db::models::incidents::{self, Incident, IncidentChanges, IncidentUpdate};
use crate::db::{DbConn, now, write_tx};
use crate::domain::{IncidentId, metadata};
use crate::error::{AppError, AppResult};
use crate::services::pages::{found, required_text, row_time};

/// Deletes an incident with its updates, postmortem and pending notifications; answers what it
/// was. The page drops it at once (its counter moves with the delete).
pub fn delete_incident(conn: &mut DbConn, incident_id: &IncidentId) -> AppResult<IncidentDetail> {
    write_tx(conn, |conn| {
        let detail = super::incident_with_updates(conn, incident_id)?;
        match incidents::delete(conn, incident_id)? {
            0 => Err(AppError::NotFound("incident".into())),
            _ => Ok(detail),
        }
    })
}

/// A correction of a posted update: its text, or when it is shown to have happened. Nothing
/// is sent again.
#[derive(Debug, Default, Clone)]
pub struct UpdateEdit {
    pub body: Option<String>,
    pub display_at: Option<DateTime<Utc>>,
}

/// Corrects the update `update_id` of an incident (404 when it is not one of its).
pub fn edit_update(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    update_id: &str,
    edit: &UpdateEdit,
) -> AppResult<IncidentUpdate> {
    let body = edit
        .body
        .as_deref()
        .map(|b| required_text(b, MAX_BODY_LEN))
        .transpose()
        .map_err(|e| AppError::field("body", e))?;
    if edit.display_at.is_some_and(|at| at > Utc::now()) {
        return Err(AppError::field("display_at", "must not be in the future"));
    }
    write_tx(conn, |conn| {
        let found_update = incidents::find_update(conn, incident_id, update_id)?
            .ok_or_else(|| AppError::NotFound("incident update".into()))?;
        let display_at = edit.display_at.map(row_time);
        incidents::edit_update(conn, &found_update.id, body.as_deref(), display_at, now())?;
        incidents::find_update(conn, incident_id, update_id)?
            .ok_or_else(|| AppError::NotFound("incident update".into()))
    })
}

/// Sets an incident's metadata (checked by [`metadata::checked`]; a 422 on `metadata`).
pub fn set_metadata(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    given: &Value,
) -> AppResult<Incident> {
    let stored = metadata::checked(given).map_err(|e| AppError::field("metadata", e))?;
    let changes = IncidentChanges {
        metadata: Some(stored),
        updated_at: now(),
        ..IncidentChanges::default()
    };
    found(incidents::update(conn, incident_id, &changes), "incident")
}

/// Sets what a maintenance does by itself, switch by switch (its `auto_transition` says
/// whether it moves at all).
pub fn set_maintenance_plan(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    plan: &crate::domain::maintenance_plan::Plan,
) -> AppResult<Incident> {
    let changes = IncidentChanges {
        maintenance_plan: Some(plan.stored()),
        updated_at: now(),
        ..IncidentChanges::default()
    };
    found(incidents::update(conn, incident_id, &changes), "incident")
}
