//! Tests for the status vocabularies.

use std::fmt::{Debug, Display};
use std::str::FromStr;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::*;

/// Checks that `as_str`, `Display`, `FromStr` and serde agree for every variant.
fn assert_names_round_trip<T>(all: &[T], as_str: fn(T) -> &'static str)
where
    T: Copy + PartialEq + Debug + Display + FromStr<Err = ParseEnumError>,
    T: Serialize + DeserializeOwned,
{
    for &value in all {
        let name = as_str(value);
        assert_eq!(value.to_string(), name);
        assert_eq!(name.parse::<T>(), Ok(value), "{name}");
        let json = serde_json::to_string(&value).expect("serializes");
        assert_eq!(json, format!("\"{name}\""));
        let back: T = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(back, value);
    }
}

#[test]
fn every_enum_round_trips_through_its_name_display_from_str_and_serde() {
    assert_names_round_trip(ComponentStatus::ALL, ComponentStatus::as_str);
    assert_names_round_trip(IncidentStatus::ALL, IncidentStatus::as_str);
    assert_names_round_trip(MaintenanceStatus::ALL, MaintenanceStatus::as_str);
    assert_names_round_trip(Impact::ALL, Impact::as_str);
    assert_names_round_trip(IncidentKind::ALL, IncidentKind::as_str);
    assert_names_round_trip(Indicator::ALL, Indicator::as_str);
    assert_names_round_trip(Role::ALL, Role::as_str);
    assert_names_round_trip(FollowUpState::ALL, FollowUpState::as_str);
}

#[test]
fn component_statuses_use_statuspage_names_and_labels() {
    let cases = [
        (ComponentStatus::Operational, "operational", "Operational"),
        (
            ComponentStatus::DegradedPerformance,
            "degraded_performance",
            "Degraded Performance",
        ),
        (
            ComponentStatus::PartialOutage,
            "partial_outage",
            "Partial Outage",
        ),
        (ComponentStatus::MajorOutage, "major_outage", "Major Outage"),
        (
            ComponentStatus::UnderMaintenance,
            "under_maintenance",
            "Under Maintenance",
        ),
    ];
    assert_eq!(ComponentStatus::ALL.len(), cases.len());
    for (status, name, label) in cases {
        assert_eq!(status.as_str(), name);
        assert_eq!(status.label(), label);
    }
}

#[test]
fn parse_error_names_the_value_the_kind_and_the_accepted_names() {
    let err = "foo"
        .parse::<ComponentStatus>()
        .expect_err("foo is invalid");
    assert_eq!(
        err.to_string(),
        "'foo' is not a valid component status; expected one of: operational, \
         degraded_performance, partial_outage, major_outage, under_maintenance"
    );
    assert_eq!(err.value, "foo");
    assert_eq!(err.kind, "component status");
}

#[test]
fn parsing_is_exact_about_case_and_whitespace() {
    for bad in [
        "",
        "Operational",
        " operational",
        "operational ",
        "OPERATIONAL",
    ] {
        assert!(bad.parse::<ComponentStatus>().is_err(), "{bad:?}");
    }
    assert!(serde_json::from_str::<Impact>("\"severe\"").is_err());
}

#[test]
fn incident_statuses_are_open_until_resolved() {
    let cases = [
        (IncidentStatus::Investigating, true),
        (IncidentStatus::Identified, true),
        (IncidentStatus::Monitoring, true),
        (IncidentStatus::Resolved, false),
        (IncidentStatus::Postmortem, false),
    ];
    for (status, open) in cases {
        assert_eq!(status.is_open(), open, "{status}");
    }
}

#[test]
fn maintenance_statuses_are_open_until_completed() {
    let cases = [
        (MaintenanceStatus::Scheduled, true, "Scheduled"),
        (MaintenanceStatus::InProgress, true, "In Progress"),
        (MaintenanceStatus::Verifying, true, "Verifying"),
        (MaintenanceStatus::Completed, false, "Completed"),
    ];
    for (status, open, label) in cases {
        assert_eq!(status.is_open(), open, "{status}");
        assert_eq!(status.label(), label);
    }
}

#[test]
fn impacts_are_ordered_by_severity() {
    assert!(Impact::None < Impact::Minor);
    assert!(Impact::Minor < Impact::Major);
    assert!(Impact::Major < Impact::Critical);
    assert_eq!(Impact::ALL.iter().max(), Some(&Impact::Critical));
    assert_eq!(Impact::Critical.label(), "Critical");
}

#[test]
fn incident_kinds_have_reference_prefixes() {
    let cases = [
        (IncidentKind::Incident, "INC"),
        (IncidentKind::Advisory, "ADV"),
        (IncidentKind::Maintenance, "MNT"),
    ];
    for (kind, prefix) in cases {
        assert_eq!(kind.reference_prefix(), prefix);
    }
}

#[test]
fn only_owners_and_responders_can_write() {
    let cases = [
        (Role::Owner, true, true),
        (Role::Responder, true, false),
        (Role::Viewer, false, false),
    ];
    for (role, write, owner) in cases {
        assert_eq!(role.can_write(), write, "{role}");
        assert_eq!(role.is_owner(), owner, "{role}");
    }
}

#[test]
fn follow_up_states_use_snake_case_names() {
    assert_eq!(FollowUpState::InProgress.as_str(), "in_progress");
    assert_eq!(FollowUpState::InProgress.label(), "In Progress");
}

#[test]
fn lifecycle_status_parses_with_the_vocabulary_of_the_kind() {
    use LifecycleStatus as L;
    let cases = [
        (
            IncidentKind::Incident,
            "monitoring",
            Some(L::Incident(IncidentStatus::Monitoring)),
        ),
        (
            IncidentKind::Advisory,
            "resolved",
            Some(L::Incident(IncidentStatus::Resolved)),
        ),
        (
            IncidentKind::Maintenance,
            "verifying",
            Some(L::Maintenance(MaintenanceStatus::Verifying)),
        ),
        (IncidentKind::Maintenance, "investigating", None),
        (IncidentKind::Incident, "in_progress", None),
        (IncidentKind::Advisory, "scheduled", None),
    ];
    for (kind, input, expected) in cases {
        assert_eq!(
            LifecycleStatus::parse(kind, input).ok(),
            expected,
            "{kind} {input}"
        );
    }
}

#[test]
fn lifecycle_status_parse_error_lists_the_kinds_vocabulary() {
    let err = LifecycleStatus::parse(IncidentKind::Maintenance, "resolved")
        .expect_err("resolved is not a maintenance status");
    assert_eq!(err.kind, "maintenance status");
    assert!(
        err.to_string()
            .contains("scheduled, in_progress, verifying, completed")
    );
}

#[test]
fn lifecycle_status_delegates_name_label_and_openness() {
    let incident = LifecycleStatus::from(IncidentStatus::Postmortem);
    assert_eq!(incident.as_str(), "postmortem");
    assert_eq!(incident.label(), "Postmortem");
    assert!(!incident.is_open());
    let maintenance = LifecycleStatus::from(MaintenanceStatus::InProgress);
    assert_eq!(maintenance.to_string(), "in_progress");
    assert!(maintenance.is_open());
}

#[test]
fn lifecycle_status_serializes_as_the_bare_status_name() {
    for &status in IncidentStatus::ALL {
        let wrapped = LifecycleStatus::Incident(status);
        let json = serde_json::to_string(&wrapped).expect("serializes");
        assert_eq!(json, format!("\"{status}\""));
        assert_eq!(
            serde_json::from_str::<LifecycleStatus>(&json).ok(),
            Some(wrapped)
        );
    }
    for &status in MaintenanceStatus::ALL {
        let wrapped = LifecycleStatus::Maintenance(status);
        let json = serde_json::to_string(&wrapped).expect("serializes");
        assert_eq!(json, format!("\"{status}\""));
        assert_eq!(
            serde_json::from_str::<LifecycleStatus>(&json).ok(),
            Some(wrapped)
        );
    }
}

#[test]
fn a_stored_status_reads_back_without_its_kind_because_the_vocabularies_share_no_name() {
    let incident: Vec<&str> = IncidentStatus::ALL.iter().map(|s| s.as_str()).collect();
    let maintenance: Vec<&str> = MaintenanceStatus::ALL.iter().map(|s| s.as_str()).collect();
    assert!(incident.iter().all(|name| !maintenance.contains(name)));
    assert_eq!(LIFECYCLE_NAMES, [incident, maintenance].concat());
    for status in IncidentStatus::ALL {
        let read: LifecycleStatus = status.as_str().parse().expect("an incident status");
        assert_eq!(read, LifecycleStatus::Incident(*status));
    }
    for status in MaintenanceStatus::ALL {
        let read: LifecycleStatus = status.as_str().parse().expect("a maintenance status");
        assert_eq!(read, LifecycleStatus::Maintenance(*status));
    }
    let refused = "fixed".parse::<LifecycleStatus>().unwrap_err();
    assert_eq!(refused.kind, "incident or maintenance status");
}
