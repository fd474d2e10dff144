//! Test fixtures: a small status page built in memory, and incidents to add to it.

use chrono::{DateTime, Duration, TimeZone, Utc};
use chrono_tz::Tz;

use crate::domain::markdown::to_safe_html;
use crate::domain::{
    ComponentStatus, FollowUpState, Impact, IncidentKind, IncidentStatus, LifecycleStatus,
    MaintenanceStatus, ScopeFigure, TimelineEntry, daily_uptime, page_status,
};
use crate::render::api_v2::fixture::record;
use crate::services::public::data::PageData;
use crate::services::public::data::*;

/// 30 Nov 2026, 12:00 UTC: when the fixture's data was read.
pub fn as_of() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap()
}

/// A page "Acme Cloud" (`/status/acme`, Europe/Berlin) with a group "Core" (API, Dashboard)
/// and an ungrouped "CDN" in eu-west; status history starts 40 days before `as_of`, the API had
/// a two-hour partial outage on 29 Nov. No incidents.
pub fn page() -> PageData {
    let now = as_of();
    let created = now - Duration::days(40);
    let day = |d: u32, h: u32| Utc.with_ymd_and_hms(2026, 11, d, h, 0, 0).unwrap();
    let api_history = [
        (created, ComponentStatus::Operational),
        (day(29, 8), ComponentStatus::PartialOutage),
        (day(29, 10), ComponentStatus::Operational),
    ];
    let component = |id: &str, name: &str, group: Option<&str>, position: i32| ComponentInfo {
        id: id.to_owned(),
        group_id: group.map(str::to_owned),
        name: name.to_owned(),
        description: None,
        position,
        region: None,
        status: ComponentStatus::Operational,
        showcase: true,
        signin: false,
        created_at: created,
        updated_at: created,
        uptime: daily_uptime(&[(created, ComponentStatus::Operational)], now, UPTIME_DAYS),
        incidents_by_day: vec![Vec::new(); UPTIME_DAYS as usize],
        vendor: None,
        bar_source: 0,
    };
    let mut api = component("c-api", "API", Some("g-core"), 1);
    api.uptime = daily_uptime(&api_history, now, UPTIME_DAYS);
    api.description = Some("Public REST API".to_owned());
    let dashboard = component("c-dash", "Dashboard", Some("g-core"), 2);
    let mut cdn = component("c-cdn", "CDN", None, 2);
    cdn.region = Some("eu-west".to_owned());
    let page = PageInfo {
        id: "p-acme".to_owned(),
        slug: "acme".to_owned(),
        name: "Acme Cloud".to_owned(),
        description: Some("Status of Acme's services".to_owned()),
        url: "https://status.acme.test".to_owned(),
        base_url: "https://herald.acme.test".to_owned(),
        path: "/status/acme".to_owned(),
        time_zone: Tz::Europe__Berlin,
        support_email: None,
        created_at: created,
        updated_at: created,
        embed_origins: Vec::new(),
        brand: Default::default(),
        languages: vec![crate::domain::lang::Lang::En],
        default_language: crate::domain::lang::Lang::En,
    };
    let mut data = PageData {
        page,
        as_of: now,
        stale_since: None,
        status: page_status(&[], &[], false),
        groups: vec![GroupInfo {
            id: "g-core".to_owned(),
            name: "Core".to_owned(),
            description: None,
            position: 1,
            created_at: created,
            updated_at: created,
            component_ids: vec!["c-api".to_owned(), "c-dash".to_owned()],
        }],
        components: vec![api, dashboard, cdn],
        incidents: Vec::new(),
        maintenances: Vec::new(),
        vendor_incidents: Vec::new(),
        read_from: Default::default(),
    };
    refresh_status(&mut data);
    data
}

/// Recomputes the page status after a test changed components or incidents.
pub fn refresh_status(data: &mut PageData) {
    let statuses: Vec<_> = data.components.iter().map(|c| c.status).collect();
    let impacts: Vec<_> = data.open_incidents().map(|i| i.impact).collect();
    let in_progress = !data.active_maintenances().is_empty();
    data.status = page_status(&statuses, &impacts, in_progress);
}

/// An update with a markdown body.
pub fn update(
    id: &str,
    status: LifecycleStatus,
    body: &str,
    at: DateTime<Utc>,
    next_update_by: Option<DateTime<Utc>>,
) -> UpdateInfo {
    UpdateInfo {
        bodies: Default::default(),
        id: id.to_owned(),
        status,
        body: body.to_owned(),
        body_html: to_safe_html(body),
        next_update_by,
        created_at: at,
        updated_at: at,
        changes: Vec::new(),
        notify: true,
    }
}

/// A major incident opened 30 minutes before `as_of`, investigating, affecting the API, whose
/// one update promises the next by `next_update_by`.
pub fn open_incident(id: &str, name: &str, next_update_by: DateTime<Utc>) -> IncidentInfo {
    let started = as_of() - Duration::minutes(30);
    let status = LifecycleStatus::Incident(IncidentStatus::Investigating);
    let base = record(id, "INC-2026-0007", name, IncidentKind::Incident);
    IncidentInfo {
        impact: Impact::Major,
        status,
        user_impact: Some("Some API requests fail with 502.".to_owned()),
        started_at: started,
        next_update_by: Some(next_update_by),
        created_at: started,
        updated_at: started,
        updates: vec![update(
            &format!("{id}-u1"),
            status,
            "We are **investigating** elevated error rates.",
            started,
            Some(next_update_by),
        )],
        affected_components: vec![AffectedComponent {
            id: "c-api".to_owned(),
            name: "API".to_owned(),
            region: None,
            status: Some(ComponentStatus::PartialOutage),
        }],
        ..base
    }
}

/// An incident on `day` of November 2026 (08:00 to 10:00 UTC), resolved, with a published
/// postmortem, and two updates: the first promised the second by 09:00, which came at 10:00.
pub fn resolved_incident(id: &str, name: &str, day: u32) -> IncidentInfo {
    let at = |h: u32| Utc.with_ymd_and_hms(2026, 11, day, h, 0, 0).unwrap();
    let mut incident = open_incident(id, name, at(9));
    incident.started_at = at(8);
    incident.resolved_at = Some(at(10));
    incident.status = LifecycleStatus::Incident(IncidentStatus::Resolved);
    incident.next_update_by = None;
    incident.updates[0].created_at = at(8);
    incident.updates.insert(
        0,
        update(
            &format!("{id}-u2"),
            incident.status,
            "The fix is deployed; errors are back to normal.",
            at(10),
            None,
        ),
    );
    incident.postmortem = Some(PostmortemInfo {
        summaries: Default::default(),
        root_causes: Default::default(),
        summary: "A bad deploy.".to_owned(),
        summary_html: to_safe_html("A bad **deploy**."),
        root_cause: "Config".to_owned(),
        root_cause_html: to_safe_html("A configuration change removed a route."),
        scope_figures: vec![ScopeFigure::new("Duration", "2 hours").unwrap()],
        timeline: vec![TimelineEntry {
            at: at(8),
            description: "Error rates rise".to_owned(),
        }],
        follow_ups: vec![FollowUpInfo {
            description: "Validate routes before deploys".to_owned(),
            owner: Some("Platform team".to_owned()),
            state: FollowUpState::InProgress,
        }],
        published_at: at(12),
    });
    incident
}

/// A maintenance scheduled for `from`, two hours long, affecting the dashboard.
pub fn maintenance(id: &str, name: &str, from: DateTime<Utc>) -> IncidentInfo {
    let status = LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled);
    let mut m = open_incident(id, name, from);
    m.kind = IncidentKind::Maintenance;
    m.reference = "MNT-2026-0001".to_owned();
    m.impact = Impact::None;
    m.status = status;
    m.next_update_by = None;
    m.scheduled_for = Some(from);
    m.scheduled_until = Some(from + Duration::hours(2));
    m.updates = vec![update(
        &format!("{id}-u1"),
        status,
        "We will upgrade the database.",
        as_of() - Duration::days(1),
        None,
    )];
    m.affected_components[0].name = "Dashboard".to_owned();
    m.affected_components[0].status = Some(ComponentStatus::Operational);
    m
}
