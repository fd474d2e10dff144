//! Tables of allowed and refused status changes.

use super::*;

/// A short name for each outcome, so the tables stay readable.
fn outcome(result: Result<(), TransitionError>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(TransitionError::ResolveFirst { .. }) => "resolve-first",
        Err(TransitionError::ReopenRequired { .. }) => "reopen",
        Err(TransitionError::AlreadyResolved { .. }) => "already-resolved",
        Err(TransitionError::PostmortemPublished { .. }) => "published",
        Err(TransitionError::MaintenanceNotStarted { .. }) => "not-started",
        Err(TransitionError::MaintenanceAlreadyStarted { .. }) => "already-started",
        Err(TransitionError::MaintenanceCompleted { .. }) => "completed",
        Err(TransitionError::KindMismatch { .. }) => "kind-mismatch",
    }
}

/// The cells of a table, `(from, to, outcome)`: its first line names the statuses changed to,
/// each other line the status changed from and then the outcome of each change. A cell
/// `a/b` is `a` without reopening and `b` with it; any other cell is both.
fn cells(table: &str) -> Vec<(&str, &str, &str)> {
    let mut lines = table
        .lines()
        .map(str::split_whitespace)
        .filter_map(|mut words| {
            let first = words.next()?;
            Some((first, words.collect::<Vec<_>>()))
        });
    let (_, to) = lines.next().expect("a header");
    lines
        .flat_map(|(from, outcomes)| {
            assert_eq!(outcomes.len(), to.len(), "a cell per column from {from}");
            let to = to.clone();
            outcomes
                .into_iter()
                .zip(to)
                .map(move |(cell, to)| (from, to, cell))
        })
        .collect()
}

/// Without reopening, then with it.
fn split(cell: &str) -> (&str, &str) {
    cell.split_once('/').unwrap_or((cell, cell))
}

#[test]
fn incident_transitions_follow_the_table() {
    let table = "
        from/to        investigating  identified  monitoring  resolved          postmortem
        investigating  ok             ok          ok          ok                resolve-first
        identified     ok             ok          ok          ok                resolve-first
        monitoring     ok             ok          ok          ok                resolve-first
        resolved       reopen/ok      reopen/ok   reopen/ok   already-resolved  ok
        postmortem     reopen/ok      reopen/ok   reopen/ok   published         published
    ";
    let cases = cells(table);
    assert_eq!(cases.len(), IncidentStatus::ALL.len().pow(2));
    for (from, to, cell) in cases {
        let from: IncidentStatus = from.parse().expect("valid from");
        let to: IncidentStatus = to.parse().expect("valid to");
        let (plain, reopened) = split(cell);
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
    let table = "
        from/to      scheduled        in_progress  verifying    completed
        scheduled    ok               ok           not-started  ok
        in_progress  already-started  ok           ok           ok
        verifying    already-started  ok           ok           ok
        completed    completed        completed    completed    completed
    ";
    let cases = cells(table);
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
        (resolved, investigating, false, "reopen"),
        (resolved, investigating, true, "ok"),
        (scheduled, verifying, false, "not-started"),
        (scheduled, investigating, false, "kind-mismatch"),
        (resolved, scheduled, true, "kind-mismatch"),
    ];
    for (from, to, reopen, expected) in cases {
        let result = check_lifecycle_transition(from, to, reopen);
        assert_eq!(outcome(result), expected, "{from}->{to} reopen={reopen}");
    }
}
