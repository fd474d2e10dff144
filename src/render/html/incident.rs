//! The incident page: the whole timeline of updates with their promises, the affected
//! components, the structured fields, and the published postmortem.

use serde::Serialize;

use super::events::{EventCard, UpdateView, timeline};
use super::format::{Locale, StatusLook, TimeView};
use super::frame::{Frame, Section};
use super::history::{day_href, event_day};
use crate::render::assets::Assets;
use crate::services::public::data::PageData;
use crate::services::public::data::{IncidentInfo, PostmortemInfo, Prose};

/// What `pages/incident` renders.
#[derive(Debug, Serialize)]
pub struct IncidentView {
    pub frame: Frame,
    pub event: EventCard,
    pub updates: Vec<UpdateView>,
    /// Labelled structured fields that are set (user impact, scope, preliminary root cause).
    pub fields: Vec<FieldView>,
    pub postmortem: Option<PostmortemView>,
    /// The event's day in the history.
    pub history_href: String,
    pub time_zone: String,
}

/// One structured field.
#[derive(Debug, Serialize)]
pub struct FieldView {
    pub label: String,
    pub value: String,
}

/// A published postmortem.
#[derive(Debug, Serialize)]
pub struct PostmortemView {
    pub published: TimeView,
    pub summary_html: String,
    pub root_cause_html: String,
    pub summary_untranslated: bool,
    pub root_cause_untranslated: bool,
    /// The summary or the root cause is the original, not the reader's language.
    pub untranslated: bool,
    pub original_lang: &'static str,
    pub figures: Vec<FigureView>,
    pub timeline: Vec<TimelineRow>,
    pub follow_ups: Vec<FollowUpView>,
}

/// A scope figure ("Affected customers" / "About 8 %").
#[derive(Debug, Serialize)]
pub struct FigureView {
    pub label: String,
    pub value: String,
}

/// A row of the postmortem's UTC timeline.
#[derive(Debug, Serialize)]
pub struct TimelineRow {
    pub time: TimeView,
    pub description: String,
}

/// A postmortem follow-up.
#[derive(Debug, Serialize)]
pub struct FollowUpView {
    pub description: String,
    pub owner: Option<String>,
    pub state: StatusLook,
}

impl IncidentView {
    /// The page of `event`, one of `data`'s incidents or maintenances.
    pub fn new(event: &IncidentInfo, data: &PageData, assets: &Assets, loc: Locale) -> Self {
        let (path, tz, as_of) = (&data.page.path, data.page.time_zone, data.as_of);
        // Once the postmortem is out, its root cause is the word on it; what was said during
        // the incident stays, labelled for what it was.
        let root_cause = match event.postmortem {
            Some(_) => "field-root-cause-as-reported",
            None => "field-preliminary-root-cause",
        };
        let fields = [
            ("field-user-impact", &event.user_impact),
            ("field-scope", &event.scope),
            (root_cause, &event.root_cause),
        ]
        .into_iter()
        .filter_map(|(label, value)| {
            let value = value.as_deref()?.trim();
            (!value.is_empty()).then(|| FieldView {
                label: loc.text(label),
                value: value.to_owned(),
            })
        })
        .collect();
        let here = super::events::incident_href(path, &event.id);
        Self {
            frame: Frame::page(Some(&event.name), Section::Other, data, assets, loc, &here),
            event: EventCard::new(event, path, loc, as_of),
            updates: timeline(event, loc, as_of),
            fields,
            postmortem: event.postmortem.as_ref().map(|p| postmortem_view(p, loc)),
            history_href: loc.href(&day_href(path, as_of, event_day(event))),
            time_zone: tz.name().to_owned(),
        }
    }
}

fn postmortem_view(p: &PostmortemInfo, loc: Locale) -> PostmortemView {
    let original = |html: &String| Prose {
        markdown: String::new(),
        html: html.clone(),
    };
    let (summary, root_cause) = (original(&p.summary_html), original(&p.root_cause_html));
    let summary = loc.pick(&summary, &p.summaries);
    let root_cause = loc.pick(&root_cause, &p.root_causes);
    PostmortemView {
        published: TimeView::local(p.published_at, loc),
        summary_html: summary.text.html.clone(),
        root_cause_html: root_cause.text.html.clone(),
        summary_untranslated: summary.original,
        root_cause_untranslated: root_cause.original,
        untranslated: summary.original || root_cause.original,
        original_lang: loc.default.as_str(),
        figures: p
            .scope_figures
            .iter()
            .map(|f| FigureView {
                label: f.label.clone(),
                value: f.value.clone(),
            })
            .collect(),
        timeline: p
            .timeline
            .iter()
            .map(|t| TimelineRow {
                time: TimeView::utc_in(t.at, loc.lang),
                description: t.description.clone(),
            })
            .collect(),
        follow_ups: p
            .follow_ups
            .iter()
            .map(|f| FollowUpView {
                description: f.description.clone(),
                owner: f.owner.clone(),
                state: StatusLook::follow_up_in(f.state, loc.lang),
            })
            .collect(),
    }
}
