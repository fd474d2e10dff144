//! Postmortem use cases: saving a draft (summary, root cause, scope figures, a UTC timeline and
//! follow-up actions), publishing it, which moves the incident from resolved to postmortem, and
//! reading it back.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use validator::{Validate, ValidationErrors};

use crate::db::models::incidents::{self, Incident, IncidentChanges};
use crate::db::models::postmortems::{
    self, FollowUp, NewPostmortem, Postmortem, PostmortemChanges, TimelineEntryRow,
};
use crate::db::{DbConn, new_id, now, write_tx};
use crate::domain::{
    FollowUpState, IncidentId, IncidentStatus, LifecycleStatus, ScopeFigure, TimelineEntry,
    check_incident_transition, sort_timeline,
};
use crate::error::{AppError, AppResult};
use crate::services::pages::{FieldCheck, found, optional_text, required_text, row_time};

/// The longest summary or root cause (markdown), in characters.
const MAX_TEXT_LEN: usize = 50_000;
/// The longest follow-up description, in characters.
const MAX_FOLLOW_UP_LEN: usize = 2_000;
/// The longest follow-up owner, in characters.
const MAX_OWNER_LEN: usize = 200;
/// At most this many scope figures, timeline entries and follow-ups.
const MAX_FIGURES: usize = 20;
const MAX_TIMELINE: usize = 500;
const MAX_FOLLOW_UPS: usize = 100;

/// One follow-up action; open when no state is given.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FollowUpInput {
    pub description: String,
    pub owner: Option<String>,
    pub state: Option<FollowUpState>,
}

/// A postmortem draft; saving replaces the previous one entirely.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PostmortemInput {
    /// Markdown.
    #[serde(default)]
    pub summary: String,
    /// Markdown; required before publishing.
    #[serde(default)]
    pub root_cause: String,
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub scope_figures: Vec<ScopeFigure>,
    /// In any order; stored sorted by time.
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub timeline: Vec<TimelineEntry>,
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub follow_ups: Vec<FollowUpInput>,
    /// The summary and root cause in the page's other languages:
    /// `{"de": {"summary": ..., "root_cause": ...}}`.
    pub translations: Option<crate::services::incidents::GivenTranslations>,
}

/// A postmortem with its incident, timeline (oldest first) and follow-ups (in order).
#[derive(Debug, Clone, PartialEq)]
pub struct PostmortemDetail {
    pub incident: Incident,
    pub postmortem: Postmortem,
    pub timeline: Vec<TimelineEntryRow>,
    pub follow_ups: Vec<FollowUp>,
}

/// Saves the postmortem of a resolved incident (or one already in postmortem), replacing its
/// figures, timeline and follow-ups. A published postmortem stays published.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn save_postmortem(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    input: &PostmortemInput,
) -> AppResult<PostmortemDetail> {
    let draft = validate(input)?;
    write_tx(conn, |conn| {
        let incident = found(incidents::find(conn, incident_id), "incident")?;
        let status = incident.status;
        if !matches!(
            status,
            LifecycleStatus::Incident(IncidentStatus::Resolved | IncidentStatus::Postmortem)
        ) {
            return Err(AppError::Conflict(format!(
                "{} is {status}: only a resolved incident gets a postmortem; resolve it first",
                incident.reference
            )));
        }
        let postmortem = upsert(conn, incident_id, &draft)?;
        replace_children(conn, &postmortem.id, &draft)?;
        detail(conn, incident, postmortem)
    })
}

/// Saves only the report's text (the root cause, in markdown) of a resolved incident's
/// postmortem, keeping its summary, figures, timeline and follow-ups: Statuspage's postmortem
/// is one text, which is this one. A published postmortem stays published.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn save_postmortem_text(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    text: &str,
) -> AppResult<PostmortemDetail> {
    if text.chars().count() > MAX_TEXT_LEN {
        return Err(AppError::field(
            "body_draft",
            format!("must be at most {MAX_TEXT_LEN} characters"),
        ));
    }
    if text.contains('\0') {
        return Err(AppError::field(
            "body_draft",
            "must not contain the NUL character",
        ));
    }
    write_tx(conn, |conn| {
        let kept = match postmortems::find_by_incident(conn, incident_id)? {
            Some(existing) => get_postmortem(conn, incident_id).map(|d| (existing, d))?,
            None => {
                return save_postmortem(
                    conn,
                    incident_id,
                    &PostmortemInput {
                        root_cause: text.to_owned(),
                        ..PostmortemInput::default()
                    },
                );
            }
        };
        let (existing, before) = kept;
        let changes = PostmortemChanges {
            root_cause: Some(text),
            updated_at: now(),
            ..PostmortemChanges::default()
        };
        let postmortem = postmortems::update(conn, &existing.id, &changes)?;
        detail(conn, before.incident, postmortem)
    })
}

/// Writes the draft's own columns over the incident's postmortem, creating it (unpublished)
/// when there is none.
fn upsert(conn: &mut DbConn, incident_id: &IncidentId, draft: &Draft) -> AppResult<Postmortem> {
    let figures = serde_json::to_string(&draft.scope_figures).map_err(anyhow::Error::from)?;
    let at = now();
    let postmortem = match postmortems::find_by_incident(conn, incident_id)? {
        Some(existing) => {
            let changes = PostmortemChanges {
                summary: Some(&draft.summary),
                root_cause: Some(&draft.root_cause),
                scope_figures: Some(&figures),
                translations: draft.translations.as_deref(),
                updated_at: at,
                ..PostmortemChanges::default()
            };
            postmortems::update(conn, &existing.id, &changes)?
        }
        None => {
            let new = NewPostmortem {
                id: &new_id(),
                incident_id,
                summary: &draft.summary,
                root_cause: &draft.root_cause,
                scope_figures: &figures,
                published: false,
                published_at: None,
                created_at: at,
                updated_at: at,
            };
            let inserted = postmortems::insert(conn, &new)?;
            match &draft.translations {
                Some(translations) => {
                    let translated = PostmortemChanges {
                        translations: Some(translations),
                        updated_at: at,
                        ..PostmortemChanges::default()
                    };
                    postmortems::update(conn, &inserted.id, &translated)?
                }
                None => inserted,
            }
        }
    };
    Ok(postmortem)
}

/// Publishes the postmortem and moves its incident from resolved to postmortem. Publishing an
/// already published postmortem of an incident in postmortem changes nothing.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn publish_postmortem(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    now: DateTime<Utc>,
) -> AppResult<PostmortemDetail> {
    publish_postmortem_telling(conn, incident_id, now, true)
}

/// [`publish_postmortem`], telling the subscribers only when `notify` is set (Statuspage's
/// `notify_subscribers`).
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn publish_postmortem_telling(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    now: DateTime<Utc>,
    notify: bool,
) -> AppResult<PostmortemDetail> {
    write_tx(conn, |conn| {
        let incident = found(incidents::find(conn, incident_id), "incident")?;
        let postmortem = postmortems::find_by_incident(conn, incident_id)?.ok_or_else(|| {
            AppError::Conflict(format!(
                "{} has no postmortem yet; save one first",
                incident.reference
            ))
        })?;
        let status = incident.status;
        let target = LifecycleStatus::Incident(IncidentStatus::Postmortem);
        if postmortem.published && status == target {
            return detail(conn, incident, postmortem);
        }
        ensure_publishable(&incident, status, &postmortem)?;
        let at = row_time(now);
        let changes = PostmortemChanges {
            published: Some(true),
            published_at: Some(Some(postmortem.published_at.unwrap_or(at))),
            updated_at: at,
            ..PostmortemChanges::default()
        };
        let postmortem = postmortems::update(conn, &postmortem.id, &changes)?;
        let moved = IncidentChanges {
            status: Some(target),
            updated_at: at,
            ..IncidentChanges::default()
        };
        let incident = incidents::update(conn, incident_id, &moved)?;
        if notify {
            crate::services::outbox::postmortem_published(conn, &incident)?;
        }
        detail(conn, incident, postmortem)
    })
}

/// Takes a published postmortem back to a draft: it leaves the public page, and its incident
/// goes back from postmortem to resolved. A draft stays as it is.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn unpublish_postmortem(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    now: DateTime<Utc>,
) -> AppResult<PostmortemDetail> {
    write_tx(conn, |conn| {
        let incident = found(incidents::find(conn, incident_id), "incident")?;
        let postmortem = postmortems::find_by_incident(conn, incident_id)?
            .ok_or_else(|| AppError::NotFound(format!("postmortem of {}", incident.reference)))?;
        let at = row_time(now);
        let changes = PostmortemChanges {
            published: Some(false),
            published_at: Some(None),
            updated_at: at,
            ..PostmortemChanges::default()
        };
        let postmortem = postmortems::update(conn, &postmortem.id, &changes)?;
        let incident = back_to_resolved(conn, incident, at)?;
        detail(conn, incident, postmortem)
    })
}

/// Deletes the postmortem of an incident (its timeline and follow-ups too); an incident in
/// postmortem goes back to resolved.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn delete_postmortem(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    now: DateTime<Utc>,
) -> AppResult<()> {
    write_tx(conn, |conn| {
        let incident = found(incidents::find(conn, incident_id), "incident")?;
        let postmortem = postmortems::find_by_incident(conn, incident_id)?
            .ok_or_else(|| AppError::NotFound(format!("postmortem of {}", incident.reference)))?;
        postmortems::delete(conn, &postmortem.id)?;
        back_to_resolved(conn, incident, row_time(now))?;
        Ok(())
    })
}

/// An incident in postmortem moved back to resolved; any other as it is.
fn back_to_resolved(
    conn: &mut DbConn,
    incident: Incident,
    at: chrono::NaiveDateTime,
) -> AppResult<Incident> {
    if incident.status != LifecycleStatus::Incident(IncidentStatus::Postmortem) {
        return Ok(incident);
    }
    let moved = IncidentChanges {
        status: Some(LifecycleStatus::Incident(IncidentStatus::Resolved)),
        updated_at: at,
        ..IncidentChanges::default()
    };
    Ok(incidents::update(conn, &incident.id, &moved)?)
}

/// Refuses to publish unless the incident is resolved (or back in postmortem after a reopen)
/// and the root cause is written.
fn ensure_publishable(
    incident: &Incident,
    status: LifecycleStatus,
    postmortem: &Postmortem,
) -> AppResult<()> {
    let LifecycleStatus::Incident(from) = status else {
        return Err(AppError::Conflict(format!(
            "{} is a maintenance: maintenances have no postmortem",
            incident.reference
        )));
    };
    check_incident_transition(from, IncidentStatus::Postmortem, false)
        .map_err(|e| AppError::Conflict(format!("{}: {e}", incident.reference)))?;
    if postmortem.root_cause.trim().is_empty() {
        return Err(AppError::field(
            "root_cause",
            "write the root cause before publishing",
        ));
    }
    Ok(())
}

/// The postmortem of an incident.
pub fn get_postmortem(conn: &mut DbConn, incident_id: &IncidentId) -> AppResult<PostmortemDetail> {
    let incident = found(incidents::find(conn, incident_id), "incident")?;
    let postmortem = postmortems::find_by_incident(conn, incident_id)?
        .ok_or_else(|| AppError::NotFound(format!("postmortem of {}", incident.reference)))?;
    detail(conn, incident, postmortem)
}

/// A validated draft: texts trimmed, figures trimmed, timeline sorted.
struct Draft {
    summary: String,
    root_cause: String,
    /// As stored (JSON); `None` keeps those saved before (a save that does not give them).
    translations: Option<String>,
    scope_figures: Vec<ScopeFigure>,
    timeline: Vec<TimelineEntry>,
    follow_ups: Vec<ValidFollowUp>,
}

/// A translated summary or root cause, checked as they are (a translation is never blank).
fn translated_text(text: &str) -> Result<String, String> {
    crate::services::pages::required_text(text, MAX_TEXT_LEN)
}

/// A follow-up's description, owner and state.
type ValidFollowUp = (String, Option<String>, FollowUpState);

/// Checks every part of the input, answering all field errors at once.
fn validate(input: &PostmortemInput) -> AppResult<Draft> {
    let mut check = FieldCheck::default();
    let text = |v: &str| optional_text(Some(v), MAX_TEXT_LEN).map(Option::unwrap_or_default);
    let summary = check.check("summary", text(&input.summary));
    let root_cause = check.check("root_cause", text(&input.root_cause));
    let limits = [
        ("scope_figures", input.scope_figures.len(), MAX_FIGURES),
        ("timeline", input.timeline.len(), MAX_TIMELINE),
        ("follow_ups", input.follow_ups.len(), MAX_FOLLOW_UPS),
    ];
    for (field, len, max) in limits {
        if len > max {
            check.add(field, format!("at most {max} entries, got {len}"));
        }
    }
    let scope_figures = scope_figures(&mut check, &input.scope_figures);
    let timeline = timeline(&mut check, &input.timeline);
    let follow_ups = follow_ups(&mut check, &input.follow_ups);
    let fields: [(&str, crate::domain::translation::Check); 2] = [
        ("summary", translated_text),
        ("root_cause", translated_text),
    ];
    let translations = input
        .translations
        .as_ref()
        .map(|given| crate::domain::translation::parse(given, &fields))
        .transpose();
    let translations = check.check("translations", translations);
    let draft = (|| {
        Some(Draft {
            summary: summary?,
            root_cause: root_cause?,
            translations: translations?.map(|t| crate::domain::translation::stored(&t)),
            scope_figures,
            timeline,
            follow_ups,
        })
    })();
    check.done(draft)
}

/// The figures, trimmed; errors under `scope_figures[i].label` / `.value`.
fn scope_figures(check: &mut FieldCheck, figures: &[ScopeFigure]) -> Vec<ScopeFigure> {
    let mut valid = Vec::with_capacity(figures.len());
    for (i, figure) in figures.iter().enumerate() {
        match ScopeFigure::new(&figure.label, &figure.value) {
            Ok(figure) => valid.push(figure),
            Err(errors) => add_all(check, &format!("scope_figures[{i}]"), &errors),
        }
    }
    valid
}

/// The timeline, descriptions trimmed, sorted by time (ties keep their order); errors under
/// `timeline[i].description`.
fn timeline(check: &mut FieldCheck, entries: &[TimelineEntry]) -> Vec<TimelineEntry> {
    let mut valid = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        // Validated as sent (the length counts the spaces around it), kept trimmed.
        match entry.validate() {
            Ok(()) => valid.push(TimelineEntry {
                at: entry.at,
                description: entry.description.trim().to_owned(),
            }),
            Err(errors) => add_all(check, &format!("timeline[{i}]"), &errors),
        }
    }
    sort_timeline(&mut valid);
    valid
}

/// The follow-ups, open unless a state is given; errors under `follow_ups[i].description` /
/// `.owner`.
fn follow_ups(check: &mut FieldCheck, inputs: &[FollowUpInput]) -> Vec<ValidFollowUp> {
    let mut valid = Vec::with_capacity(inputs.len());
    for (i, f) in inputs.iter().enumerate() {
        let description = required_text(&f.description, MAX_FOLLOW_UP_LEN);
        let description = check.check(&format!("follow_ups[{i}].description"), description);
        let owner = optional_text(f.owner.as_deref(), MAX_OWNER_LEN);
        let owner = check.check(&format!("follow_ups[{i}].owner"), owner);
        if let (Some(description), Some(owner)) = (description, owner) {
            valid.push((description, owner, f.state.unwrap_or(FollowUpState::Open)));
        }
    }
    valid
}

/// Records validator errors under `prefix.field`.
fn add_all(check: &mut FieldCheck, prefix: &str, errors: &ValidationErrors) {
    for (field, errs) in errors.field_errors() {
        for e in errs {
            let message = e
                .message
                .as_ref()
                .map_or_else(|| format!("is invalid ({})", e.code), |m| m.to_string());
            check.add(format!("{prefix}.{field}"), message);
        }
    }
}

/// Replaces the timeline and follow-ups of a postmortem.
fn replace_children(conn: &mut DbConn, postmortem_id: &str, draft: &Draft) -> AppResult<()> {
    postmortems::delete_children(conn, postmortem_id)?;
    // Ids are UUIDv7, increasing in insertion order, so entries at the same time keep their order.
    for entry in &draft.timeline {
        let row = TimelineEntryRow {
            id: new_id(),
            postmortem_id: postmortem_id.to_owned(),
            occurred_at: row_time(entry.at),
            description: entry.description.clone(),
        };
        postmortems::insert_timeline_entry(conn, &row)?;
    }
    let at = now();
    for (position, (description, owner, state)) in draft.follow_ups.iter().enumerate() {
        let row = FollowUp {
            id: new_id(),
            postmortem_id: postmortem_id.to_owned(),
            description: description.clone(),
            owner: owner.clone(),
            state: *state,
            position: i32::try_from(position).map_err(anyhow::Error::from)?,
            created_at: at,
            updated_at: at,
        };
        postmortems::insert_follow_up(conn, &row)?;
    }
    Ok(())
}

/// Loads the children of a postmortem.
fn detail(
    conn: &mut DbConn,
    incident: Incident,
    postmortem: Postmortem,
) -> AppResult<PostmortemDetail> {
    let timeline = postmortems::timeline(conn, &postmortem.id)?;
    let follow_ups = postmortems::follow_ups(conn, &postmortem.id)?;
    Ok(PostmortemDetail {
        incident,
        postmortem,
        timeline,
        follow_ups,
    })
}
