//! Incident use cases: opening incidents, advisories and maintenances, posting updates through
//! the domain's state machines, editing the structured fields, and reading incidents back with
//! their updates, including the page overview the public page and its API are built from.
//!
//! Every write of one use case happens in one transaction: the incident row, its update, the
//! component changes (old → new) with their history rows and the affected-components list.

mod changes;
mod edit;
mod open;
mod query;
mod update;

use crate::db::models::incidents::{Incident, IncidentUpdate, IncidentUpdateComponent};

pub use edit::{UpdateEdit, delete_incident, edit_update, set_maintenance_plan, set_metadata};
pub use open::{GivenTranslations, OpenIncidentInput, checked_translations, open_incident};
pub(crate) use open::{MAX_BODY_LEN, MAX_INCIDENT_NAME_LEN, translated_body};
pub use query::{
    IncidentDetail, IncidentFilter, PageOverview, UpdateWithChanges, get_incident,
    get_incident_by_reference, get_page_incident, incident_with_updates, incidents_with_updates,
    list_incidents, page_overview,
};
pub use update::{IncidentFieldsInput, PostUpdateInput, post_update, update_incident_fields};

/// Whether an update tells subscribers: Herald's `notify` and Statuspage's
/// `deliver_notifications` name one switch, so either may be sent, or both when they agree;
/// yes when neither is.
pub fn notify_switch(notify: Option<bool>, deliver: Option<bool>) -> crate::error::AppResult<bool> {
    match (notify, deliver) {
        (Some(a), Some(b)) if a != b => Err(crate::error::AppError::field(
            "deliver_notifications",
            "disagrees with notify: they are the same switch, send one",
        )),
        (a, b) => Ok(a.or(b).unwrap_or(true)),
    }
}

/// What opening an incident or posting an update wrote: the incident as it now is, the new
/// update and the component changes it made (what notifications are built from).
#[derive(Debug, Clone, PartialEq)]
pub struct PostedUpdate {
    pub incident: Incident,
    pub update: IncidentUpdate,
    pub changes: Vec<IncidentUpdateComponent>,
}

#[cfg(test)]
mod tests {
    use super::notify_switch;

    #[test]
    fn notify_and_deliver_notifications_are_one_switch() {
        assert!(notify_switch(None, None).unwrap());
        assert!(!notify_switch(Some(false), None).unwrap());
        assert!(!notify_switch(None, Some(false)).unwrap());
        assert!(notify_switch(Some(true), Some(true)).unwrap());
        assert!(notify_switch(Some(false), Some(true)).is_err());
    }
}
