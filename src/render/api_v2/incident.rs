//! Incidents and scheduled maintenances as Statuspage's v2 API shows them, with their
//! `incident_updates` and affected `components`.
//!
//! Standard keys come first, in Statuspage's order; Herald's extras (reference, kind,
//! `identified_at`, `next_update_by`, the structured fields, the page URL and the published
//! postmortem) follow and never replace a standard key.

use serde::Serialize;

use super::model::{Component, Head, Time, time};
use crate::domain::{ComponentStatus, FollowUpState, IncidentKind, LifecycleStatus};
use crate::services::public::data::{IncidentInfo, PageData, PostmortemInfo, UpdateInfo};

/// One incident, advisory or maintenance.
#[derive(Debug, Serialize)]
pub struct Incident<'a> {
    #[serde(flatten)]
    pub head: Head<'a, LifecycleStatus>,
    pub monitoring_at: Option<Time>,
    pub resolved_at: Option<Time>,
    /// `none`..`critical`, or `maintenance` for maintenances as on Statuspage.
    pub impact: &'static str,
    /// Statuspage's short link; Herald has none, so it is the incident's page.
    pub shortlink: &'a str,
    pub started_at: Time,
    pub page_id: &'a str,
    pub incident_updates: Vec<Update<'a>>,
    pub components: Vec<Component<'a>>,
    /// Only on maintenances.
    #[serde(flatten)]
    pub schedule: Option<Schedule>,
    // Herald's extras.
    pub reference: &'a str,
    pub kind: IncidentKind,
    pub identified_at: Option<Time>,
    /// When the next update is promised; `null` once the incident is closed.
    pub next_update_by: Option<Time>,
    pub user_impact: Option<&'a str>,
    pub scope: Option<&'a str>,
    pub root_cause: Option<&'a str>,
    pub url: &'a str,
    pub postmortem: Option<Postmortem<'a>>,
}

/// The window of a scheduled maintenance.
#[derive(Debug, Serialize)]
pub struct Schedule {
    pub scheduled_for: Option<Time>,
    pub scheduled_until: Option<Time>,
}

impl<'a> Incident<'a> {
    /// The JSON form of `i`, a record of `data`.
    pub fn new(data: &'a PageData, i: &'a IncidentInfo) -> Self {
        let maintenance = i.kind == IncidentKind::Maintenance;
        Self {
            head: Head::new((&i.id, &i.name), i.status, (i.created_at, i.updated_at)),
            monitoring_at: time(i.monitoring_at),
            resolved_at: time(i.resolved_at),
            impact: if maintenance {
                "maintenance"
            } else {
                i.impact.as_str()
            },
            shortlink: &i.url,
            started_at: Time(i.started_at),
            page_id: &data.page.id,
            incident_updates: i.updates.iter().map(|u| Update::new(data, i, u)).collect(),
            components: affected_components(data, i),
            schedule: maintenance.then(|| Schedule {
                scheduled_for: time(i.scheduled_for),
                scheduled_until: time(i.scheduled_until),
            }),
            reference: &i.reference,
            kind: i.kind,
            identified_at: time(i.identified_at),
            next_update_by: time(i.next_update_by.filter(|_| i.status.is_open())),
            user_impact: i.user_impact.as_deref(),
            scope: i.scope.as_deref(),
            root_cause: i.root_cause.as_deref(),
            url: &i.url,
            postmortem: i.postmortem.as_ref().map(Postmortem::new),
        }
    }
}

/// The affected components that are still on the page, as full component objects whose
/// `status` is what the incident set (the live status only where it set none).
fn affected_components<'a>(data: &'a PageData, i: &'a IncidentInfo) -> Vec<Component<'a>> {
    i.affected_components
        .iter()
        .filter_map(|a| {
            let c = data.component(&a.id)?;
            let mut component = Component::of_component(data, c);
            component.head.status = a.status.unwrap_or(c.status);
            Some(component)
        })
        .collect()
}

/// One entry of `incident_updates`.
#[derive(Debug, Serialize)]
pub struct Update<'a> {
    pub id: &'a str,
    pub status: LifecycleStatus,
    /// The text as written (Markdown).
    pub body: &'a str,
    pub incident_id: &'a str,
    pub created_at: Time,
    pub updated_at: Time,
    pub display_at: Time,
    /// `null` when the update changed no component, as on Statuspage.
    pub affected_components: Option<Vec<AffectedComponent>>,
    /// Statuspage's per-update notification switch; not recorded by Herald.
    pub deliver_notifications: bool,
    pub custom_tweet: Option<&'a str>,
    pub tweet_id: Option<&'a str>,
    // Herald's extras.
    pub next_update_by: Option<Time>,
    /// The body rendered to sanitized HTML.
    pub body_html: &'a str,
}

/// A component status change made by an update.
#[derive(Debug, Serialize)]
pub struct AffectedComponent {
    /// The component's id.
    pub code: String,
    /// "Group - Component" for grouped components, as on Statuspage.
    pub name: String,
    pub old_status: ComponentStatus,
    pub new_status: ComponentStatus,
}

impl<'a> Update<'a> {
    /// The JSON form of update `u` of incident `i`.
    pub fn new(data: &PageData, i: &'a IncidentInfo, u: &'a UpdateInfo) -> Self {
        let changes: Vec<AffectedComponent> = u
            .changes
            .iter()
            .map(|change| AffectedComponent {
                code: change.component_id.clone(),
                name: qualified_name(data, &change.component_id, &change.component_name),
                old_status: change.old_status,
                new_status: change.new_status,
            })
            .collect();
        Self {
            id: &u.id,
            status: u.status,
            body: &u.body,
            incident_id: &i.id,
            created_at: Time(u.created_at),
            updated_at: Time(u.updated_at),
            display_at: Time(u.created_at),
            affected_components: (!changes.is_empty()).then_some(changes),
            deliver_notifications: u.notify,
            custom_tweet: None,
            tweet_id: None,
            next_update_by: time(u.next_update_by),
            body_html: &u.body_html,
        }
    }
}

/// A component's name prefixed with its group's, e.g. "Europe - API".
fn qualified_name(data: &PageData, component_id: &str, name: &str) -> String {
    let group = data
        .component(component_id)
        .and_then(|c| c.group_id.as_deref())
        .and_then(|id| data.groups.iter().find(|g| g.id == id));
    match group {
        Some(g) => format!("{} - {name}", g.name),
        None => name.to_owned(),
    }
}

/// A published postmortem (Herald's extra; Statuspage's public API has none).
#[derive(Debug, Serialize)]
pub struct Postmortem<'a> {
    pub published_at: Time,
    pub summary: &'a str,
    pub summary_html: &'a str,
    pub root_cause: &'a str,
    pub root_cause_html: &'a str,
    pub scope_figures: Vec<ScopeFigure<'a>>,
    pub timeline: Vec<TimelineEntry<'a>>,
    pub follow_ups: Vec<FollowUp<'a>>,
}

/// A headline figure, e.g. "Duration" / "47 minutes".
#[derive(Debug, Serialize)]
pub struct ScopeFigure<'a> {
    pub label: &'a str,
    pub value: &'a str,
}

/// One moment of the postmortem's timeline.
#[derive(Debug, Serialize)]
pub struct TimelineEntry<'a> {
    pub at: Time,
    pub description: &'a str,
}

/// A follow-up action.
#[derive(Debug, Serialize)]
pub struct FollowUp<'a> {
    pub description: &'a str,
    pub owner: Option<&'a str>,
    pub state: FollowUpState,
}

impl<'a> Postmortem<'a> {
    /// The JSON form of `p`.
    pub fn new(p: &'a PostmortemInfo) -> Self {
        Self {
            published_at: Time(p.published_at),
            summary: &p.summary,
            summary_html: &p.summary_html,
            root_cause: &p.root_cause,
            root_cause_html: &p.root_cause_html,
            scope_figures: p
                .scope_figures
                .iter()
                .map(|f| ScopeFigure {
                    label: &f.label,
                    value: &f.value,
                })
                .collect(),
            timeline: p
                .timeline
                .iter()
                .map(|e| TimelineEntry {
                    at: Time(e.at),
                    description: &e.description,
                })
                .collect(),
            follow_ups: p
                .follow_ups
                .iter()
                .map(|f| FollowUp {
                    description: &f.description,
                    owner: f.owner.as_deref(),
                    state: f.state,
                })
                .collect(),
        }
    }
}
