//! Tables of allowed and refused status changes.

use super::*;

/// A short name for each outcome, so the tables stay readable.
fn outcome(result: Result<(), TransitionError>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(TransitionError::ResolveFirst { .. }) => "resolve first",
        Err(TransitionError::ReopenRequired { .. }) => "reopen required",
        Err(TransitionError::AlreadyResolved { .. }) => "already resolved",
        Err(TransitionError::PostmortemPublished { .. }) => "postmortem published",
        Err(TransitionError::MaintenanceNotStarted { .. }) => "not started",
        Err(TransitionError::MaintenanceAlreadyStarted { .. }) => "already started",
        Err(TransitionError::MaintenanceCompleted { .. }) => "completed",
        Err(TransitionError::KindMismatch { .. }) => "kind mismatch",
    }
}

#[test]
fn incident_transitions_follow_the_table() {
    // (from, to, without reopen, with reopen)
    let cases = [
        ("investigating", "investigating", "ok", "ok"),
        ("investigating", "identified", "ok", "ok"),
        ("investigating", "monitoring", "ok", "ok"),
        ("investigating", "resolved", "ok", "ok"),
        (
            "investigating",
            "postmortem",
            "resolve first",
            "resolve first",
        ),
        ("identified", "investigating", "ok", "ok"),
        ("identified", "identified", "ok", "ok"),
        ("identified", "monitoring", "ok", "ok"),
        ("identified", "resolved", "ok", "ok"),
        ("identified", "postmortem", "resolve first", "resolve first"),
        ("monitoring", "investigating", "ok", "ok"),
        ("monitoring", "identified", "ok", "ok"),
        ("monitoring", "monitoring", "ok", "ok"),
        ("monitoring", "resolved", "ok", "ok"),
        ("monitoring", "postmortem", "resolve first", "resolve first"),
        ("resolved", "investigating", "reopen required", "ok"),
        ("resolved", "identified", "reopen required", "ok"),
        ("resolved", "monitoring", "reopen required", "ok"),
        (
            "resolved",
            "resolved",
            "already resolved",
            "already resolved",
        ),
        ("resolved", "postmortem", "ok", "ok"),
        ("postmortem", "investigating", "reopen required", "ok"),
        ("postmortem", "identified", "reopen required", "ok"),
        ("postmortem", "monitoring", "reopen required", "ok"),
        (
            "postmortem",
            "resolved",
            "postmortem published",
            "postmortem published",
        ),
        (
            "postmortem",
            "postmortem",
            "postmortem published",
            "postmortem published",
        ),
    ];
    assert_eq!(cases.len(), IncidentStatus::ALL.len().pow(2));
    for (from, to, plain, reopened) in cases {
        let from: IncidentStatus = from.parse().expect("valid from");
        let to: IncidentStatus = to.parse().expect("valid to");
        assert_eq!(
            outcome(check_incident_transition(from, to, false)),
            plain,
            "{from}->{to}"
        );
        assert_eq!(
            outcome(check_incident_transition(from, to, true)),
            reopened,
            "{from}->{to} reopen"
        );
    }
}

#[test]
fn maintenance_transitions_follow_the_table() {
    let cases = [
        ("scheduled", "scheduled", "ok"),
        ("scheduled", "in_progress", "ok"),
        ("scheduled", "verifying", "not started"),
        ("scheduled", "completed", "ok"),
        ("in_progress", "scheduled", "already started"),
        ("in_progress", "in_progress", "ok"),
        ("in_progress", "verifying", "ok"),
        ("in_progress", "completed", "ok"),
        ("verifying", "scheduled", "already started"),
        ("verifying", "in_progress", "ok"),
        ("verifying", "verifying", "ok"),
        ("verifying", "completed", "ok"),
        ("completed", "scheduled", "completed"),
        ("completed", "in_progress", "completed"),
        ("completed", "verifying", "completed"),
        ("completed", "completed", "completed"),
    ];
    assert_eq!(cases.len(), MaintenanceStatus::ALL.len().pow(2));
    for (from, to, expected) in cases {
        let from: MaintenanceStatus = from.parse().expect("valid from");
        let to: MaintenanceStatus = to.parse().expect("valid to");
        assert_eq!(
            outcome(check_maintenance_transition(from, to)),
            expected,
            "{from}->{to}"
        );
    }
}

#[test]
fn error_messages_name_both_statuses_and_the_way_out() {
    use IncidentStatus as I;
    use MaintenanceStatus as M;
    let cases = [
        (
            check_incident_transition(I::Monitoring, I::Postmortem, false),
            "resolve it first",
        ),
        (
            check_incident_transition(I::Resolved, I::Identified, false),
            "reopen the incident",
        ),
        (
            check_incident_transition(I::Resolved, I::Resolved, false),
            "already resolved",
        ),
        (
            check_incident_transition(I::Postmortem, I::Resolved, false),
            "already published",
        ),
        (
            check_maintenance_transition(M::Scheduled, M::Verifying),
            "start it first",
        ),
        (
            check_maintenance_transition(M::Verifying, M::Scheduled),
            "already started",
        ),
        (
            check_maintenance_transition(M::Completed, M::InProgress),
            "already completed",
        ),
    ];
    for (result, hint) in cases {
        let err = result.expect_err("refused");
        let (from, to) = match err {
            TransitionError::ResolveFirst { from, to }
            | TransitionError::ReopenRequired { from, to }
            | TransitionError::AlreadyResolved { from, to }
            | TransitionError::PostmortemPublished { from, to } => (from.as_str(), to.as_str()),
            TransitionError::MaintenanceNotStarted { from, to }
            | TransitionError::MaintenanceAlreadyStarted { from, to }
            | TransitionError::MaintenanceCompleted { from, to } => (from.as_str(), to.as_str()),
            TransitionError::KindMismatch { from, to } => (from.as_str(), to.as_str()),
        };
        let message = err.to_string();
        assert!(
            message.contains(&format!("from {from} to {to}")),
            "{message}"
        );
        assert!(message.contains(hint), "{message}");
    }
}

#[test]
fn lifecycle_transitions_delegate_by_kind_and_refuse_mixed_kinds() {
    let investigating = LifecycleStatus::Incident(IncidentStatus::Investigating);
    let resolved = LifecycleStatus::Incident(IncidentStatus::Resolved);
    let scheduled = LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled);
    let verifying = LifecycleStatus::Maintenance(MaintenanceStatus::Verifying);
    let cases = [
        (investigating, resolved, false, "ok"),
        (resolved, investigating, false, "reopen required"),
        (resolved, investigating, true, "ok"),
        (scheduled, verifying, false, "not started"),
        (scheduled, investigating, false, "kind mismatch"),
        (resolved, scheduled, true, "kind mismatch"),
    ];
    for (from, to, reopen, expected) in cases {
        let result = check_lifecycle_transition(from, to, reopen);
        assert_eq!(outcome(result), expected, "{from}->{to} reopen={reopen}");
    }
}
