//! Which status changes an update may make: the incident and maintenance state machines.
//!
//! Posting another update with the same open status is normal ("still investigating"), so
//! same-to-same is allowed while open. Closed incidents only come back through an explicit
//! reopen, so a stray form submission cannot silently reopen one.

use super::status::{IncidentStatus, LifecycleStatus, MaintenanceStatus};

/// A status change that the state machine refuses, with a message saying what to do instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    /// An open incident cannot jump straight to postmortem.
    #[error(
        "cannot move an incident from {from} to {to}: resolve it first, then publish the postmortem"
    )]
    ResolveFirst {
        /// The current status.
        from: IncidentStatus,
        /// The requested status.
        to: IncidentStatus,
    },
    /// A closed incident goes back to an open status only when reopened explicitly.
    #[error(
        "cannot move an incident from {from} to {to} without reopening it; reopen the incident explicitly"
    )]
    ReopenRequired {
        /// The current status.
        from: IncidentStatus,
        /// The requested status.
        to: IncidentStatus,
    },
    /// A resolved incident cannot be resolved again.
    #[error("cannot move an incident from {from} to {to}: it is already resolved")]
    AlreadyResolved {
        /// The current status.
        from: IncidentStatus,
        /// The requested status.
        to: IncidentStatus,
    },
    /// An incident whose postmortem is published cannot go back to resolved or publish again.
    #[error(
        "cannot move an incident from {from} to {to}: its postmortem is already published; edit the postmortem or reopen the incident"
    )]
    PostmortemPublished {
        /// The current status.
        from: IncidentStatus,
        /// The requested status.
        to: IncidentStatus,
    },
    /// A maintenance must be in progress before it can be verified.
    #[error("cannot move a maintenance from {from} to {to}: start it first (in_progress)")]
    MaintenanceNotStarted {
        /// The current status.
        from: MaintenanceStatus,
        /// The requested status.
        to: MaintenanceStatus,
    },
    /// A started maintenance cannot go back to scheduled.
    #[error(
        "cannot move a maintenance from {from} to {to}: it has already started; complete it and schedule a new one"
    )]
    MaintenanceAlreadyStarted {
        /// The current status.
        from: MaintenanceStatus,
        /// The requested status.
        to: MaintenanceStatus,
    },
    /// A completed maintenance is final.
    #[error(
        "cannot move a maintenance from {from} to {to}: it is already completed; schedule a new maintenance instead"
    )]
    MaintenanceCompleted {
        /// The current status.
        from: MaintenanceStatus,
        /// The requested status.
        to: MaintenanceStatus,
    },
    /// An incident status and a maintenance status were mixed.
    #[error("cannot move from {from} to {to}: incidents and maintenances use different statuses")]
    KindMismatch {
        /// The current status.
        from: LifecycleStatus,
        /// The requested status.
        to: LifecycleStatus,
    },
}

/// Checks that an incident (or advisory) update may move the status from `from` to `to`.
///
/// Open statuses move freely among themselves and to resolved; postmortem follows resolved;
/// going from resolved or postmortem back to an open status needs `reopen`.
pub fn check_incident_transition(
    from: IncidentStatus,
    to: IncidentStatus,
    reopen: bool,
) -> Result<(), TransitionError> {
    use IncidentStatus::{Postmortem, Resolved};
    if from.is_open() {
        return match to {
            Postmortem => Err(TransitionError::ResolveFirst { from, to }),
            _ => Ok(()),
        };
    }
    match (from, to) {
        (_, to) if to.is_open() => match reopen {
            true => Ok(()),
            false => Err(TransitionError::ReopenRequired { from, to }),
        },
        (Resolved, Postmortem) => Ok(()),
        (Resolved, _) => Err(TransitionError::AlreadyResolved { from, to }),
        _ => Err(TransitionError::PostmortemPublished { from, to }),
    }
}

/// Checks that a maintenance update may move the status from `from` to `to`.
///
/// scheduled → in_progress | completed (finished early or cancelled), in_progress → verifying |
/// completed, verifying → in_progress | completed; repeating an open status is allowed and
/// completed is final.
pub fn check_maintenance_transition(
    from: MaintenanceStatus,
    to: MaintenanceStatus,
) -> Result<(), TransitionError> {
    use MaintenanceStatus::{Completed, InProgress, Scheduled, Verifying};
    match (from, to) {
        (Completed, _) => Err(TransitionError::MaintenanceCompleted { from, to }),
        (_, Completed) => Ok(()),
        _ if from == to => Ok(()),
        (Scheduled, InProgress) | (InProgress | Verifying, InProgress | Verifying) => Ok(()),
        (Scheduled, _) => Err(TransitionError::MaintenanceNotStarted { from, to }),
        (_, _) => Err(TransitionError::MaintenanceAlreadyStarted { from, to }),
    }
}

/// Checks a status change of either kind; `reopen` only matters for incidents.
pub fn check_lifecycle_transition(
    from: LifecycleStatus,
    to: LifecycleStatus,
    reopen: bool,
) -> Result<(), TransitionError> {
    match (from, to) {
        (LifecycleStatus::Incident(a), LifecycleStatus::Incident(b)) => {
            check_incident_transition(a, b, reopen)
        }
        (LifecycleStatus::Maintenance(a), LifecycleStatus::Maintenance(b)) => {
            check_maintenance_transition(a, b)
        }
        _ => Err(TransitionError::KindMismatch { from, to }),
    }
}

#[cfg(test)]
mod tests;
