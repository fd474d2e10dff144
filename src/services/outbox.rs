//! Notification events, written in the transaction of the change that causes them: incidents
//! opened, updated and resolved, maintenances scheduled, starting soon, started and completed,
//! postmortems published, component status changes. An update posted with `notify: false`
//! writes none. The engine expands them into deliveries.

use chrono::{Duration, NaiveDateTime};
use diesel::prelude::*;

use crate::db::models::components::Component;
use crate::db::models::incidents::{self, Incident};
use crate::db::models::notify::{self as rows, NotificationEvent};
use crate::db::schema::{incidents as incident_table, notification_events};
use crate::db::{DbConn, new_id, now};
use crate::domain::{
    ComponentId, IncidentKind, IncidentStatus, LifecycleStatus, MaintenanceStatus, PageId,
    SubscriberId,
};
use crate::error::AppResult;
use crate::services::incidents::PostedUpdate;

/// Event kinds.
pub mod kind {
    pub const INCIDENT_OPENED: &str = "incident.opened";
    pub const INCIDENT_UPDATED: &str = "incident.updated";
    pub const INCIDENT_RESOLVED: &str = "incident.resolved";
    pub const POSTMORTEM_PUBLISHED: &str = "postmortem.published";
    pub const MAINTENANCE_SCHEDULED: &str = "maintenance.scheduled";
    pub const MAINTENANCE_STARTING_SOON: &str = "maintenance.starting_soon";
    pub const MAINTENANCE_STARTED: &str = "maintenance.started";
    pub const MAINTENANCE_UPDATED: &str = "maintenance.updated";
    pub const MAINTENANCE_COMPLETED: &str = "maintenance.completed";
    pub const COMPONENT_STATUS_CHANGED: &str = "component.status_changed";
    /// A mirrored component moved with its vendor's status: only subscribers who chose the
    /// component themselves hear of it.
    pub const VENDOR_STATUS_CHANGED: &str = "component.vendor_status_changed";
    /// The double opt-in mail to one new email subscriber.
    pub const SUBSCRIBER_CONFIRMATION: &str = "subscriber.confirmation";
    /// The opt-in mail to an email subscriber imported from another status page.
    pub const SUBSCRIBER_MOVED: &str = "subscriber.moved_confirmation";
    /// The notice to a quarantined webhook's contact address.
    pub const SUBSCRIBER_QUARANTINED: &str = "subscriber.quarantined";
}

/// How long before a maintenance window opens its subscribers are told it starts soon.
pub const STARTING_SOON_LEAD: Duration = Duration::hours(1);

fn event(page_id: &PageId, kind: &'static str, at: NaiveDateTime) -> NotificationEvent {
    NotificationEvent {
        id: new_id(),
        page_id: page_id.to_owned(),
        kind: kind.to_owned(),
        incident_id: None,
        update_id: None,
        component_id: None,
        subscriber_id: None,
        impact: None,
        created_at: at,
        expanded_at: None,
    }
}

/// The event of an opened incident or a posted update (none with `notify: false`), in the
/// caller's transaction. `from` is the status before the update (`None` when opening).
pub fn incident_posted(
    conn: &mut DbConn,
    posted: &PostedUpdate,
    from: Option<LifecycleStatus>,
) -> AppResult<()> {
    if !posted.update.notify {
        return Ok(());
    }
    let incident = &posted.incident;
    let to = incident.status;
    let kind = match (incident.kind, from, to) {
        (
            IncidentKind::Maintenance,
            None,
            LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled),
        ) => kind::MAINTENANCE_SCHEDULED,
        (
            IncidentKind::Maintenance,
            _,
            LifecycleStatus::Maintenance(MaintenanceStatus::Completed),
        ) => kind::MAINTENANCE_COMPLETED,
        (
            IncidentKind::Maintenance,
            None | Some(LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled)),
            LifecycleStatus::Maintenance(MaintenanceStatus::InProgress),
        ) => kind::MAINTENANCE_STARTED,
        (IncidentKind::Maintenance, _, _) => kind::MAINTENANCE_UPDATED,
        (_, None, _) => kind::INCIDENT_OPENED,
        (_, _, LifecycleStatus::Incident(IncidentStatus::Resolved)) => kind::INCIDENT_RESOLVED,
        _ => kind::INCIDENT_UPDATED,
    };
    let mut e = event(&incident.page_id, kind, posted.update.created_at);
    e.incident_id = Some(incident.id.clone());
    e.update_id = Some(posted.update.id.clone());
    e.impact = Some(incident.impact.as_str().to_owned());
    let mut components = incidents::affected_component_ids(conn, &incident.id)?;
    components.extend(posted.changes.iter().map(|c| c.component_id.clone()));
    rows::insert_event(conn, &e, &components)?;
    Ok(())
}

/// The event of a published postmortem, in the caller's transaction.
pub fn postmortem_published(conn: &mut DbConn, incident: &Incident) -> AppResult<()> {
    let mut e = event(&incident.page_id, kind::POSTMORTEM_PUBLISHED, now());
    e.incident_id = Some(incident.id.clone());
    e.impact = Some(incident.impact.as_str().to_owned());
    let components = incidents::affected_component_ids(conn, &incident.id)?;
    rows::insert_event(conn, &e, &components)?;
    Ok(())
}

/// The event of a component status set directly (not by an incident update), in the caller's
/// transaction; only subscribers who asked for component updates receive it.
pub fn component_status_changed(
    conn: &mut DbConn,
    component: &Component,
    at: NaiveDateTime,
) -> AppResult<()> {
    let mut e = event(&component.page_id, kind::COMPONENT_STATUS_CHANGED, at);
    e.component_id = Some(component.id.clone());
    rows::insert_event(conn, &e, std::slice::from_ref(&component.id))?;
    Ok(())
}

/// A mirrored component's status changed with its vendor's, in the caller's transaction.
pub fn vendor_status_changed(
    conn: &mut DbConn,
    page_id: &PageId,
    component_id: &ComponentId,
    at: NaiveDateTime,
) -> AppResult<()> {
    let mut e = event(page_id, kind::VENDOR_STATUS_CHANGED, at);
    e.component_id = Some(component_id.to_owned());
    rows::insert_event(conn, &e, &[component_id.to_owned()])?;
    Ok(())
}

/// A notice to one subscriber (confirmation mail, quarantine notice), in the caller's
/// transaction.
pub fn subscriber_notice(
    conn: &mut DbConn,
    page_id: &PageId,
    subscriber_id: &SubscriberId,
    kind: &'static str,
) -> AppResult<()> {
    let mut e = event(page_id, kind, now());
    e.subscriber_id = Some(subscriber_id.to_owned());
    rows::insert_event(conn, &e, &[])?;
    Ok(())
}

/// Writes a "starting soon" event for every scheduled maintenance whose window opens within
/// `lead` of `at` and that has none yet. Run inside the maintenance clock's transaction.
pub fn maintenances_starting_soon(
    conn: &mut DbConn,
    at: NaiveDateTime,
    lead: Duration,
) -> AppResult<usize> {
    // Each candidate's announcement is looked up by its incident (an index), not by listing
    // every announcement ever made.
    let announced = notification_events::table
        .filter(notification_events::incident_id.eq(incident_table::id.nullable()))
        .filter(notification_events::kind.eq(kind::MAINTENANCE_STARTING_SOON));
    let due: Vec<Incident> = incident_table::table
        .filter(incident_table::kind.eq(IncidentKind::Maintenance.as_str()))
        .filter(incident_table::status.eq(MaintenanceStatus::Scheduled.as_str()))
        .filter(incident_table::scheduled_for.gt(at))
        .filter(incident_table::scheduled_for.le(at + lead))
        .filter(diesel::dsl::not(diesel::dsl::exists(announced)))
        .select(Incident::as_select())
        .load(conn)?;
    // A maintenance whose plan turned its reminder off is not announced.
    let due: Vec<Incident> = due
        .into_iter()
        .filter(|i| crate::domain::maintenance_plan::Plan::read(&i.maintenance_plan).remind_prior)
        .collect();
    for incident in &due {
        let mut e = event(&incident.page_id, kind::MAINTENANCE_STARTING_SOON, at);
        e.incident_id = Some(incident.id.clone());
        e.impact = Some(incident.impact.as_str().to_owned());
        let components = incidents::affected_component_ids(conn, &incident.id)?;
        rows::insert_event(conn, &e, &components)?;
    }
    Ok(due.len())
}
