//! A [`PageData`] for the renderers' tests: a page with a group and two components, an open
//! incident with two updates that change components, a resolved one with a published
//! postmortem, an upcoming and an in-progress maintenance. Shared by the API, feed and badge
//! tests.

use chrono::{DateTime, TimeZone, Utc};

use crate::domain::markdown::to_safe_html;
use crate::domain::{
    ComponentStatus, FollowUpState, Impact, IncidentKind, IncidentStatus, Indicator,
    LifecycleStatus, MaintenanceStatus, PageStatus, ScopeFigure, TimelineEntry, UptimeBar,
};
use crate::services::public::data::{
    AffectedComponent, ComponentChange, ComponentInfo, FollowUpInfo, GroupInfo, IncidentInfo,
    PageData, PageInfo, PostmortemInfo, UpdateInfo,
};

pub const PAGE_ID: &str = "0195a3c0-0000-7000-8000-000000000001";
pub const GROUP_ID: &str = "0195a3c0-0000-7000-8000-0000000000a0";
pub const API_ID: &str = "0195a3c0-0000-7000-8000-0000000000a1";
pub const WEB_ID: &str = "0195a3c0-0000-7000-8000-0000000000b1";
pub const OPEN_ID: &str = "0195a3c0-0000-7000-8000-000000000101";
pub const RESOLVED_ID: &str = "0195a3c0-0000-7000-8000-000000000102";
pub const UPCOMING_ID: &str = "0195a3c0-0000-7000-8000-000000000201";
pub const ACTIVE_ID: &str = "0195a3c0-0000-7000-8000-000000000202";

/// 14 March 2026 at `h:m` UTC, shifted by `day` days.
pub fn at(day: i64, h: u32, m: u32) -> DateTime<Utc> {
    let base = Utc.with_ymd_and_hms(2026, 3, 14, h, m, 0).single();
    base.expect("valid time") + chrono::Duration::days(day)
}

/// The fixture page.
pub fn page() -> PageData {
    PageData {
        page: PageInfo {
            id: PAGE_ID.into(),
            slug: "demo".into(),
            name: "Acme Cloud".into(),
            description: Some("Status of Acme's services".into()),
            url: "https://status.acme.test".into(),
            base_url: "https://herald.acme.test".into(),
            path: "/status/demo".into(),
            time_zone: chrono_tz::Europe::Berlin,
            support_email: None,
            created_at: at(-70, 9, 0),
            updated_at: at(-10, 9, 0),
            embed_origins: Vec::new(),
            brand: Default::default(),
            languages: vec![crate::domain::lang::Lang::En],
            default_language: crate::domain::lang::Lang::En,
        },
        as_of: at(0, 12, 0),
        stale_since: None,
        status: PageStatus::from_indicator(Indicator::Critical),
        groups: vec![GroupInfo {
            id: GROUP_ID.into(),
            name: "Europe".into(),
            description: None,
            position: 1,
            created_at: at(-70, 9, 5),
            updated_at: at(-70, 9, 5),
            component_ids: vec![API_ID.into()],
        }],
        components: vec![
            component(
                API_ID,
                Some(GROUP_ID),
                "API",
                1,
                ComponentStatus::MajorOutage,
            ),
            component(
                WEB_ID,
                None,
                "Website",
                2,
                ComponentStatus::UnderMaintenance,
            ),
        ],
        incidents: vec![open_incident(), resolved_incident()],
        maintenances: vec![upcoming_maintenance(), active_maintenance()],
        vendor_incidents: Vec::new(),
        read_from: Default::default(),
    }
}

/// The fixture with hostile user text: a page named `<script>`, and every record, update body
/// and component name set to `<script>alert(1)</script>`.
pub fn hostile() -> PageData {
    const EVIL: &str = "<script>alert(1)</script>";
    let mut data = page();
    data.page.name = "<script>".into();
    for component in &mut data.components {
        component.name = EVIL.into();
    }
    for record in data
        .incidents
        .iter_mut()
        .chain(data.maintenances.iter_mut())
    {
        record.name = EVIL.into();
        for affected in &mut record.affected_components {
            affected.name = EVIL.into();
        }
        for update in &mut record.updates {
            update.body = format!("{EVIL} & more");
            update.body_html = to_safe_html(&update.body);
            for change in &mut update.changes {
                change.component_name = EVIL.into();
            }
        }
    }
    data
}

fn component(
    id: &str,
    group: Option<&str>,
    name: &str,
    position: i32,
    status: ComponentStatus,
) -> ComponentInfo {
    ComponentInfo {
        id: id.into(),
        group_id: group.map(Into::into),
        name: name.into(),
        description: group.map(|_| "Public REST API".into()),
        position,
        region: group.map(|_| "eu-central-1".into()),
        status,
        showcase: true,
        signin: false,
        created_at: at(-70, 9, 10),
        updated_at: at(0, 10, 30),
        uptime: UptimeBar {
            days: vec![],
            percent: None,
        },
        incidents_by_day: vec![],
        vendor: None,
        bar_source: 0,
    }
}

/// Fields every record shares, at 10:00 on the fixture's day; callers fill in the rest.
pub(crate) fn record(id: &str, reference: &str, name: &str, kind: IncidentKind) -> IncidentInfo {
    IncidentInfo {
        names: Default::default(),
        id: id.into(),
        reference: reference.into(),
        name: name.into(),
        kind,
        impact: Impact::None,
        status: LifecycleStatus::Incident(IncidentStatus::Investigating),
        user_impact: None,
        scope: None,
        root_cause: None,
        started_at: at(0, 10, 0),
        identified_at: None,
        monitoring_at: None,
        resolved_at: None,
        scheduled_for: None,
        scheduled_until: None,
        auto_transition: false,
        next_update_by: None,
        created_at: at(0, 10, 0),
        updated_at: at(0, 10, 0),
        updates: vec![],
        affected_components: vec![],
        postmortem: None,
        url: format!("https://status.acme.test/incidents/{id}"),
    }
}

fn update(
    id: &str,
    status: impl Into<LifecycleStatus>,
    body: &str,
    created_at: DateTime<Utc>,
) -> UpdateInfo {
    UpdateInfo {
        bodies: Default::default(),
        id: id.into(),
        status: status.into(),
        body: body.into(),
        body_html: to_safe_html(body),
        next_update_by: None,
        created_at,
        updated_at: created_at,
        changes: vec![],
        notify: true,
    }
}

fn change(id: &str, name: &str, old: ComponentStatus, new: ComponentStatus) -> ComponentChange {
    ComponentChange {
        component_id: id.into(),
        component_name: name.into(),
        old_status: old,
        new_status: new,
    }
}

fn affected(id: &str, name: &str, status: ComponentStatus) -> AffectedComponent {
    AffectedComponent {
        id: id.into(),
        name: name.into(),
        region: None,
        status: Some(status),
    }
}

fn open_incident() -> IncidentInfo {
    use ComponentStatus::{MajorOutage, Operational, PartialOutage};
    let mut first = update(
        "u-open-1",
        IncidentStatus::Investigating,
        "We see **errors** on the API.",
        at(0, 10, 0),
    );
    first.next_update_by = Some(at(0, 10, 30));
    first.changes = vec![change(API_ID, "API", Operational, PartialOutage)];
    let mut second = update(
        "u-open-2",
        IncidentStatus::Identified,
        "A bad deploy; rolling back.",
        at(0, 10, 30),
    );
    second.next_update_by = Some(at(0, 11, 30));
    second.changes = vec![change(API_ID, "API", PartialOutage, MajorOutage)];
    // Posted without telling subscribers.
    second.notify = false;
    IncidentInfo {
        impact: Impact::Critical,
        status: IncidentStatus::Identified.into(),
        user_impact: Some("API calls fail with 502".into()),
        scope: Some("All EU customers".into()),
        root_cause: Some("A bad deploy".into()),
        identified_at: Some(at(0, 10, 30)),
        next_update_by: Some(at(0, 11, 30)),
        updated_at: at(0, 10, 30),
        updates: vec![second, first],
        affected_components: vec![affected(API_ID, "API", MajorOutage)],
        ..record(
            OPEN_ID,
            "INC-2026-0002",
            "API errors in Europe",
            IncidentKind::Incident,
        )
    }
}

fn resolved_incident() -> IncidentInfo {
    let start = at(-3, 8, 0);
    let mut resolved = update("u-res-2", IncidentStatus::Resolved, "Fixed.", at(-3, 8, 47));
    resolved.changes = vec![change(
        WEB_ID,
        "Website",
        ComponentStatus::DegradedPerformance,
        ComponentStatus::Operational,
    )];
    IncidentInfo {
        impact: Impact::Minor,
        status: IncidentStatus::Postmortem.into(),
        started_at: start,
        monitoring_at: Some(at(-3, 8, 40)),
        resolved_at: Some(at(-3, 8, 47)),
        created_at: start,
        updated_at: at(-2, 9, 0),
        updates: vec![
            resolved,
            update(
                "u-res-1",
                IncidentStatus::Investigating,
                "The website is slow.",
                start,
            ),
        ],
        affected_components: vec![affected(
            WEB_ID,
            "Website",
            ComponentStatus::UnderMaintenance,
        )],
        postmortem: Some(postmortem()),
        ..record(
            RESOLVED_ID,
            "INC-2026-0001",
            "Slow website",
            IncidentKind::Incident,
        )
    }
}

fn postmortem() -> PostmortemInfo {
    PostmortemInfo {
        summaries: Default::default(),
        root_causes: Default::default(),
        summary: "The CDN *cache* was purged.".into(),
        summary_html: to_safe_html("The CDN *cache* was purged."),
        root_cause: "A purge script ran twice.".into(),
        root_cause_html: to_safe_html("A purge script ran twice."),
        scope_figures: vec![ScopeFigure {
            label: "Duration".into(),
            value: "47 minutes".into(),
        }],
        timeline: vec![TimelineEntry {
            at: at(-3, 8, 0),
            description: "Alert fired".into(),
        }],
        follow_ups: vec![FollowUpInfo {
            description: "Make the purge idempotent".into(),
            owner: Some("SRE".into()),
            state: FollowUpState::InProgress,
        }],
        published_at: at(-2, 9, 0),
    }
}

fn upcoming_maintenance() -> IncidentInfo {
    IncidentInfo {
        status: MaintenanceStatus::Scheduled.into(),
        started_at: at(-1, 9, 0),
        scheduled_for: Some(at(6, 2, 0)),
        scheduled_until: Some(at(6, 4, 0)),
        auto_transition: true,
        created_at: at(-1, 9, 0),
        updated_at: at(-1, 9, 0),
        updates: vec![update(
            "u-up-1",
            MaintenanceStatus::Scheduled,
            "Database upgrade; writes pause; reads work.",
            at(-1, 9, 0),
        )],
        affected_components: vec![affected(API_ID, "API", ComponentStatus::MajorOutage)],
        ..record(
            UPCOMING_ID,
            "MNT-2026-0002",
            "Database upgrade",
            IncidentKind::Maintenance,
        )
    }
}

fn active_maintenance() -> IncidentInfo {
    let mut started = update(
        "u-act-2",
        MaintenanceStatus::InProgress,
        "Work has started.",
        at(0, 11, 0),
    );
    started.changes = vec![change(
        WEB_ID,
        "Website",
        ComponentStatus::Operational,
        ComponentStatus::UnderMaintenance,
    )];
    IncidentInfo {
        status: MaintenanceStatus::InProgress.into(),
        started_at: at(-2, 9, 0),
        scheduled_for: Some(at(0, 11, 0)),
        scheduled_until: Some(at(0, 13, 0)),
        created_at: at(-2, 9, 0),
        updated_at: at(0, 11, 0),
        updates: vec![
            started,
            update(
                "u-act-1",
                MaintenanceStatus::Scheduled,
                "Network work.",
                at(-2, 9, 0),
            ),
        ],
        affected_components: vec![affected(
            WEB_ID,
            "Website",
            ComponentStatus::UnderMaintenance,
        )],
        ..record(
            ACTIVE_ID,
            "MNT-2026-0001",
            "Network maintenance",
            IncidentKind::Maintenance,
        )
    }
}
