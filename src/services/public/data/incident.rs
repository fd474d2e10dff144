//! Incidents, their updates and postmortems as [`PageData`](super::PageData) holds them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::lang::Lang;
use crate::domain::{
    ComponentStatus, FollowUpState, Impact, IncidentKind, LifecycleStatus, ScopeFigure,
    TimelineEntry,
};

/// An incident, advisory or maintenance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentInfo {
    pub id: String,
    pub reference: String,
    pub name: String,
    pub kind: IncidentKind,
    pub impact: Impact,
    pub status: LifecycleStatus,
    pub user_impact: Option<String>,
    pub scope: Option<String>,
    pub root_cause: Option<String>,
    pub started_at: DateTime<Utc>,
    pub identified_at: Option<DateTime<Utc>>,
    pub monitoring_at: Option<DateTime<Utc>>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub scheduled_for: Option<DateTime<Utc>>,
    pub scheduled_until: Option<DateTime<Utc>>,
    pub auto_transition: bool,
    /// The latest update's deadline (meaningful only while the incident is open).
    pub next_update_by: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Updates, newest first.
    pub updates: Vec<UpdateInfo>,
    pub affected_components: Vec<AffectedComponent>,
    /// Only a published postmortem appears here.
    pub postmortem: Option<PostmortemInfo>,
    /// Absolute URL of the incident's public page.
    pub url: String,
    /// Its name in the page's other languages.
    #[serde(skip)]
    pub names: BTreeMap<Lang, String>,
}

/// Text a responder wrote in Markdown, with its sanitised HTML.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prose {
    pub markdown: String,
    pub html: String,
}

impl Prose {
    /// `markdown` and its HTML.
    pub fn new(markdown: &str) -> Self {
        Self {
            markdown: markdown.to_owned(),
            html: crate::domain::markdown::to_safe_html(markdown),
        }
    }
}

/// A field of stored translations as [`Prose`] by language.
pub fn translated_prose(stored: &str, field: &str) -> BTreeMap<Lang, Prose> {
    let translations = crate::domain::translation::read(stored);
    crate::domain::translation::field(&translations, field)
        .into_iter()
        .map(|(lang, text)| (lang, Prose::new(&text)))
        .collect()
}

/// A component an incident affects, with the status the incident gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AffectedComponent {
    pub id: String,
    pub name: String,
    /// Where it runs, when set: people read [`AffectedComponent::label`].
    pub region: Option<String>,
    /// What the incident's own updates last set it to ([`status_in_incident`]); `None` for an
    /// ended incident that never set it. Never today's status from another incident.
    pub status: Option<ComponentStatus>,
}

impl AffectedComponent {
    /// The name people read: with the region, so that two components of one name differ.
    pub fn label(&self) -> String {
        crate::domain::component_label(&self.name, self.region.as_deref())
    }
}

/// The status an incident shows for a component it affects: the newest status one of its
/// `updates` (newest first) set; when none did, the live status while the incident is `open`
/// (it affects the component now), and nothing once it has ended.
pub fn status_in_incident(
    updates: &[UpdateInfo],
    component_id: &str,
    open: bool,
    live: ComponentStatus,
) -> Option<ComponentStatus> {
    updates
        .iter()
        .flat_map(|u| &u.changes)
        .find(|c| c.component_id == component_id)
        .map(|c| c.new_status)
        .or(open.then_some(live))
}

/// One update of an incident.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpdateInfo {
    pub id: String,
    pub status: LifecycleStatus,
    /// Markdown as written.
    pub body: String,
    /// The body rendered to sanitized HTML.
    pub body_html: String,
    pub next_update_by: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub changes: Vec<ComponentChange>,
    /// Whether subscribers were told of it (`notify`; Statuspage's `deliver_notifications`).
    pub notify: bool,
    /// Its body in the page's other languages.
    #[serde(skip)]
    pub bodies: BTreeMap<Lang, Prose>,
}

/// A component status change made by an update.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentChange {
    pub component_id: String,
    pub component_name: String,
    pub old_status: ComponentStatus,
    pub new_status: ComponentStatus,
}

/// A published postmortem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PostmortemInfo {
    pub summary: String,
    pub summary_html: String,
    pub root_cause: String,
    pub root_cause_html: String,
    pub scope_figures: Vec<ScopeFigure>,
    /// UTC, in time order.
    pub timeline: Vec<TimelineEntry>,
    pub follow_ups: Vec<FollowUpInfo>,
    pub published_at: DateTime<Utc>,
    /// Its summary and root cause in the page's other languages.
    #[serde(skip)]
    pub summaries: BTreeMap<Lang, Prose>,
    #[serde(skip)]
    pub root_causes: BTreeMap<Lang, Prose>,
}

/// A follow-up action of a postmortem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FollowUpInfo {
    pub description: String,
    pub owner: Option<String>,
    pub state: FollowUpState,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentStatus::*;

    fn update(changes: &[(&str, ComponentStatus)]) -> UpdateInfo {
        let at = DateTime::<Utc>::UNIX_EPOCH;
        UpdateInfo {
            bodies: Default::default(),
            id: "u".into(),
            status: LifecycleStatus::Incident(crate::domain::IncidentStatus::Investigating),
            body: String::new(),
            body_html: String::new(),
            next_update_by: None,
            created_at: at,
            updated_at: at,
            changes: changes
                .iter()
                .map(|&(id, new_status)| ComponentChange {
                    component_id: id.into(),
                    component_name: id.into(),
                    old_status: Operational,
                    new_status,
                })
                .collect(),
            notify: true,
        }
    }

    #[test]
    fn the_newest_status_the_incident_set_wins_over_the_live_one() {
        // Newest first: the resolution set Operational after an outage.
        let updates = [
            update(&[("api", Operational)]),
            update(&[("web", DegradedPerformance)]),
            update(&[("api", MajorOutage)]),
        ];
        // Today another incident has the API down: this one still shows what it set.
        assert_eq!(
            status_in_incident(&updates, "api", false, PartialOutage),
            Some(Operational)
        );
        assert_eq!(
            status_in_incident(&updates, "web", true, MajorOutage),
            Some(DegradedPerformance)
        );
    }

    #[test]
    fn a_component_never_set_shows_live_while_open_and_nothing_once_ended() {
        let updates = [update(&[("api", MajorOutage)])];
        assert_eq!(
            status_in_incident(&updates, "db", true, PartialOutage),
            Some(PartialOutage)
        );
        assert_eq!(
            status_in_incident(&updates, "db", false, PartialOutage),
            None
        );
        assert_eq!(status_in_incident(&[], "db", false, MajorOutage), None);
    }
}
