//! Views of incidents, advisories and maintenances shared by the overview, incident and history
//! pages: the summary card, updates, and the "next update by" promise with its state.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::format::{self, Locale, StatusLook, TimeView, duration_text_in};
use crate::domain::{DeadlineState, IncidentKind, deadline_state};
use crate::services::public::data::{IncidentInfo, Prose, UpdateInfo};

/// An incident, advisory or maintenance in brief.
#[derive(Debug, Clone, Serialize)]
pub struct EventCard {
    pub id: String,
    /// The level of the card's heading (`h3` unless said otherwise).
    pub level: u8,
    pub name: String,
    pub href: String,
    pub reference: String,
    /// "Incident", "Advisory" or "Maintenance".
    pub kind: String,
    pub is_maintenance: bool,
    pub impact: StatusLook,
    /// E.g. "Investigating".
    pub status: String,
    pub open: bool,
    pub started: TimeView,
    pub resolved: Option<TimeView>,
    /// The maintenance window.
    pub window: Option<Window>,
    pub latest: Option<UpdateView>,
    /// The promise of the latest update, while the incident is open.
    pub next_update: Option<DeadlineView>,
    pub affected: Vec<AffectedView>,
    /// Its name or latest update is not translated into the reader's language: shown in the
    /// original, in `original_lang`.
    pub untranslated: bool,
    /// The language responders wrote in (the page's default), for `lang` on the original.
    pub original_lang: &'static str,
    /// The name is the original (`lang` on it).
    pub name_untranslated: bool,
}

/// A scheduled maintenance window.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    pub from: TimeView,
    pub until: Option<TimeView>,
}

/// One update.
#[derive(Debug, Clone, Serialize)]
pub struct UpdateView {
    pub status: String,
    pub time: TimeView,
    /// Sanitized HTML, inserted as is.
    pub body_html: String,
    pub deadline: Option<DeadlineView>,
    pub changes: Vec<ChangeView>,
    /// The body is the original, not the reader's language.
    pub untranslated: bool,
    pub original_lang: &'static str,
}

/// A component status change made by an update.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeView {
    pub name: String,
    pub old: StatusLook,
    pub new: StatusLook,
}

/// A component affected by an event, with its current status.
#[derive(Debug, Clone, Serialize)]
pub struct AffectedView {
    pub name: String,
    /// The status the event set; none for an ended event that set none.
    pub status: Option<StatusLook>,
}

/// A "next update by" promise.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlineView {
    pub time: TimeView,
    /// Still the promise in force: the JS counts down to it and flips it to overdue.
    pub live: bool,
    /// Reached or passed at the time the data was read.
    pub overdue: bool,
    /// For a promise a later update answered: whether that update came in time.
    pub outcome: Option<String>,
}

impl EventCard {
    /// The card of `event`, seen at `as_of`; `path` is the page's route prefix.
    pub fn new(event: &IncidentInfo, path: &str, loc: Locale, as_of: DateTime<Utc>) -> Self {
        let open = event.status.is_open();
        let window = event.scheduled_for.map(|from| Window {
            from: TimeView::local(from, loc),
            until: event.scheduled_until.map(|t| TimeView::local(t, loc)),
        });
        let next_update = if open && event.kind != IncidentKind::Maintenance {
            live_deadline(event.next_update_by, as_of, loc)
        } else {
            None
        };
        let name = loc.pick(&event.name, &event.names);
        let latest = event.updates.first().map(|u| UpdateView::new(u, loc));
        let untranslated = name.original || latest.as_ref().is_some_and(|u| u.untranslated);
        Self {
            id: event.id.clone(),
            level: 3,
            name: name.text.clone(),
            name_untranslated: name.original,
            untranslated,
            original_lang: loc.default.as_str(),
            href: loc.href(&incident_href(path, &event.id)),
            reference: event.reference.clone(),
            kind: format::kind_in(event.kind, loc.lang),
            is_maintenance: event.kind == IncidentKind::Maintenance,
            impact: StatusLook::impact_in(event.impact, loc.lang),
            status: format::event_status_in(event.status, loc.lang),
            open,
            started: TimeView::local(event.started_at, loc),
            resolved: event.resolved_at.map(|t| TimeView::local(t, loc)),
            window,
            latest,
            next_update,
            affected: event
                .affected_components
                .iter()
                .map(|c| AffectedView {
                    name: c.label(),
                    status: c.status.map(|s| StatusLook::component_in(s, loc.lang)),
                })
                .collect(),
        }
    }
}

impl EventCard {
    /// The same card under a heading of `level`.
    pub fn with_level(mut self, level: u8) -> Self {
        self.level = level;
        self
    }
}

/// The address of an event's page.
pub fn incident_href(path: &str, id: &str) -> String {
    format!("{path}/incidents/{id}")
}

impl UpdateView {
    /// An update without its deadline (see [`timeline`]).
    pub fn new(update: &UpdateInfo, loc: Locale) -> Self {
        let original = Prose {
            markdown: String::new(),
            html: update.body_html.clone(),
        };
        let body = loc.pick(&original, &update.bodies);
        Self {
            status: format::event_status_in(update.status, loc.lang),
            time: TimeView::local(update.created_at, loc),
            body_html: body.text.html.clone(),
            untranslated: body.original,
            original_lang: loc.default.as_str(),
            deadline: None,
            changes: update
                .changes
                .iter()
                .map(|c| ChangeView {
                    name: c.component_name.clone(),
                    old: StatusLook::component_in(c.old_status, loc.lang),
                    new: StatusLook::component_in(c.new_status, loc.lang),
                })
                .collect(),
        }
    }
}

/// Every update of `event`, newest first, each with its promise: the latest one live while the
/// event is open, older ones with whether the following update kept them.
pub fn timeline(event: &IncidentInfo, loc: Locale, as_of: DateTime<Utc>) -> Vec<UpdateView> {
    let open = event.status.is_open();
    event
        .updates
        .iter()
        .enumerate()
        .map(|(i, update)| {
            let mut view = UpdateView::new(update, loc);
            let newer = i.checked_sub(1).and_then(|j| event.updates.get(j));
            view.deadline = match (newer, update.next_update_by) {
                (_, None) => None,
                (Some(newer), Some(by)) => Some(kept_deadline(by, newer.created_at, loc)),
                (None, Some(_)) if open => live_deadline(update.next_update_by, as_of, loc),
                (None, Some(_)) => None,
            };
            view
        })
        .collect()
}

/// The promise in force, as it stands at `as_of`.
fn live_deadline(
    by: Option<DateTime<Utc>>,
    as_of: DateTime<Utc>,
    loc: Locale,
) -> Option<DeadlineView> {
    let by = by?;
    // "Overdue for 12 min" would go stale in a snapshot; the JS says how long, live.
    let overdue = matches!(
        deadline_state(Some(by), as_of),
        DeadlineState::Overdue { .. }
    );
    Some(DeadlineView {
        time: TimeView::local(by, loc),
        live: true,
        overdue,
        outcome: None,
    })
}

/// A promise answered by an update posted at `answered_at`.
fn kept_deadline(by: DateTime<Utc>, answered_at: DateTime<Utc>, loc: Locale) -> DeadlineView {
    let outcome = if answered_at <= by {
        loc.text("update-on-time")
    } else {
        let late = duration_text_in(answered_at - by, loc.lang);
        loc.text_with("update-late", &[("duration", late.into())])
    };
    DeadlineView {
        time: TimeView::local(by, loc),
        live: false,
        overdue: false,
        outcome: Some(outcome),
    }
}
