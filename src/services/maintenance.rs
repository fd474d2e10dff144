//! Maintenances that move on their own: with `auto_transition`, a scheduled maintenance starts at
//! `scheduled_for` (its components go under maintenance) and completes at `scheduled_until`
//! (they come back), each step posted as an ordinary update. Its plan
//! (`domain::maintenance_plan`) may turn a step off, keep its components as they are, or keep
//! the step from subscribers.

use chrono::{DateTime, Utc};

use super::incidents::{self, PostUpdateInput};
use crate::db::models::deadlines;
use crate::db::{DbConn, write_tx};
use crate::domain::maintenance_plan::Plan;
use crate::domain::{IncidentId, LifecycleStatus, MaintenanceStatus};
use crate::error::AppResult;

/// A step taken: (maintenance id, new status).
pub type Step = (IncidentId, MaintenanceStatus);

/// Starts and completes every automatic maintenance whose window edge has passed at `now`.
/// Safe to run from several processes at once: each maintenance row is locked (PostgreSQL) or the
/// whole pass is one immediate transaction (SQLite), and a maintenance already moved is skipped.
pub fn advance_due(conn: &mut DbConn, now: DateTime<Utc>) -> AppResult<Vec<Step>> {
    write_tx(conn, |c| {
        let mut steps = Vec::new();
        for maintenance in deadlines::auto_maintenances_due(c, now.naive_utc())? {
            let plan = Plan::read(&maintenance.maintenance_plan);
            let status = maintenance.status;
            let until_passed = maintenance
                .scheduled_until
                .is_some_and(|u| u <= now.naive_utc());
            let (next, body) = match status {
                LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled)
                    if !until_passed && plan.auto_start =>
                {
                    (
                        MaintenanceStatus::InProgress,
                        "Scheduled maintenance is now in progress.",
                    )
                }
                LifecycleStatus::Maintenance(
                    MaintenanceStatus::Scheduled
                    | MaintenanceStatus::InProgress
                    | MaintenanceStatus::Verifying,
                ) if until_passed && plan.auto_complete => (
                    MaintenanceStatus::Completed,
                    "Scheduled maintenance has been completed.",
                ),
                _ => continue,
            };
            let starting = next == MaintenanceStatus::InProgress;
            let (moves_components, notify) = match starting {
                true => (plan.to_maintenance_state, plan.notify_at_start),
                false => (plan.to_operational_state, plan.notify_at_end),
            };
            // Components that stay as they are are named at their status (the step then
            // changes none of them).
            let components = match moves_components {
                true => Default::default(),
                false => incidents::incident_with_updates(c, &maintenance.id)?
                    .affected
                    .iter()
                    .map(|a| (a.id.as_str().to_owned(), a.status))
                    .collect(),
            };
            let input = PostUpdateInput {
                status: Some(next.as_str().to_owned()),
                body: body.to_owned(),
                components,
                next_update_by: None,
                reopen: false,
                notify: Some(notify),
                deliver_notifications: None,
                translations: None,
            };
            incidents::post_update(c, &maintenance.id, &input, None, now)?;
            steps.push((maintenance.id, next));
        }
        crate::services::outbox::maintenances_starting_soon(
            c,
            now.naive_utc(),
            crate::services::outbox::STARTING_SOON_LEAD,
        )?;
        Ok(steps)
    })
}
