//! Maintenances that move on their own: with `auto_transition`, a scheduled maintenance starts at
//! `scheduled_for` (its components go under maintenance) and completes at `scheduled_until`
//! (they come back), each step posted as an ordinary update.

use chrono::{DateTime, Utc};

use super::incidents::{self, PostUpdateInput};
use crate::db::models::deadlines;
use crate::db::{DbConn, write_tx};
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
            let status = maintenance.status;
            let until_passed = maintenance
                .scheduled_until
                .is_some_and(|u| u <= now.naive_utc());
            let (next, body) = match status {
                LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled) if !until_passed => (
                    MaintenanceStatus::InProgress,
                    "Scheduled maintenance is now in progress.",
                ),
                LifecycleStatus::Maintenance(
                    MaintenanceStatus::Scheduled
                    | MaintenanceStatus::InProgress
                    | MaintenanceStatus::Verifying,
                ) if until_passed => (
                    MaintenanceStatus::Completed,
                    "Scheduled maintenance has been completed.",
                ),
                _ => continue,
            };
            let input = PostUpdateInput {
                status: Some(next.as_str().to_owned()),
                body: body.to_owned(),
                components: Default::default(),
                next_update_by: None,
                reopen: false,
                notify: Some(true),
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
