//! Opening an incident, advisory or maintenance with its first update.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, NaiveDateTime, Utc};
use serde::Deserialize;

use super::PostedUpdate;
use super::changes::{
    ComponentMap, Milestones, apply_changes, impact_of, next_update_by, page_components,
};
use crate::db::models::incidents::{self, Incident, NewIncidentUpdate};
use crate::db::models::pages;
use crate::db::{DbConn, new_id, savepoint, write_tx};
use crate::domain::translation::{self, Translations};
use crate::domain::{
    Impact, IncidentId, IncidentKind, IncidentStatus, LifecycleStatus, MaintenanceStatus, PageId,
    format_reference, within_reach,
};
use crate::error::{AppError, AppResult};
use crate::services::pages::{
    FieldCheck, found, optional_text, required_line, required_text, row_time,
};

/// The longest incident name, in characters.
pub(crate) const MAX_INCIDENT_NAME_LEN: usize = 200;
/// The longest update body (markdown), in characters.
pub(crate) const MAX_BODY_LEN: usize = 20_000;
/// The longest user impact, scope or root cause text, in characters.
pub(super) const MAX_FIELD_LEN: usize = 5_000;
/// How often a reference is allocated again after losing a race for it.
const REFERENCE_ATTEMPTS: u32 = 3;

/// A new incident, advisory or maintenance with its first update. Field names follow
/// Statuspage's manage API (`impact_override` and `deliver_notifications` are accepted too).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct OpenIncidentInput {
    pub name: String,
    /// Incident when absent.
    pub kind: Option<IncidentKind>,
    /// Inferred from the component statuses when absent (none without components).
    #[serde(alias = "impact_override")]
    pub impact: Option<Impact>,
    /// In the kind's vocabulary; investigating (incidents, advisories) or scheduled
    /// (maintenances) when absent.
    pub status: Option<String>,
    /// The first update's markdown.
    pub body: String,
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub components: ComponentMap,
    /// The page's interval for the impact when absent.
    pub next_update_by: Option<DateTime<Utc>>,
    pub user_impact: Option<String>,
    pub scope: Option<String>,
    pub root_cause: Option<String>,
    /// When the problem began, if before now (incidents and advisories); now when absent.
    pub started_at: Option<DateTime<Utc>>,
    /// Maintenances only, required: the window.
    pub scheduled_for: Option<DateTime<Utc>>,
    pub scheduled_until: Option<DateTime<Utc>>,
    /// Maintenances only: start and complete on their own at the window's edges.
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub auto_transition: bool,
    /// Whether subscribers are told; yes when absent.
    pub notify: Option<bool>,
    /// Statuspage's name for `notify` ([`super::notify_switch`]).
    pub deliver_notifications: Option<bool>,
    /// The name and first update in the page's other languages:
    /// `{"de": {"name": ..., "body": ...}}`.
    pub translations: Option<GivenTranslations>,
}

/// Translations as a request gives them: language code, then field, then text.
pub type GivenTranslations = BTreeMap<String, BTreeMap<String, String>>;

/// A translated name, checked as a name is.
pub(crate) fn translated_name(text: &str) -> Result<String, String> {
    required_line(text, MAX_INCIDENT_NAME_LEN)
}

/// A translated update body, checked as a body is.
pub(crate) fn translated_body(text: &str) -> Result<String, String> {
    required_text(text, MAX_BODY_LEN)
}

/// What an opening may translate.
const OPENING_TEXTS: &[(&str, translation::Check)] =
    &[("name", translated_name), ("body", translated_body)];

/// `given` checked as translations of `fields` (none when absent).
pub fn checked_translations(
    given: &Option<GivenTranslations>,
    fields: &[(&str, translation::Check)],
) -> Result<Translations, String> {
    match given {
        Some(given) => translation::parse(given, fields),
        None => Ok(Translations::new()),
    }
}

/// The validated parts of an [`OpenIncidentInput`].
struct Opening {
    name: String,
    kind: IncidentKind,
    status: LifecycleStatus,
    body: String,
    user_impact: Option<String>,
    scope: Option<String>,
    root_cause: Option<String>,
    started_at: NaiveDateTime,
    window: Option<(NaiveDateTime, NaiveDateTime)>,
    auto_transition: bool,
}

/// Opens an incident, advisory or maintenance on a page with its first update, allocating the
/// next reference of the page for its kind and year (e.g. `INC-2026-0042`).
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn open_incident(
    conn: &mut DbConn,
    page_id: &PageId,
    input: &OpenIncidentInput,
    author_id: Option<&str>,
    now: DateTime<Utc>,
) -> AppResult<PostedUpdate> {
    // Joins the caller's transaction, or is one: the reference's lock (PostgreSQL) is held
    // to the commit, and an opening is all of its writes or none.
    write_tx(conn, |conn| {
        let page = found(pages::find(conn, page_id), "page")?;
        let mut check = FieldCheck::default();
        let opening = opening(&mut check, input, now);
        let translations = check.check(
            "translations",
            checked_translations(&input.translations, OPENING_TEXTS),
        );
        let changes = page_components(conn, &mut check, page_id, &input.components)?;
        let (opening, translations) = check.done((|| Some((opening?, translations?)))())?;
        let impact = input.impact.unwrap_or_else(|| impact_of(&changes));
        let deadline = next_update_by(
            input.next_update_by,
            opening.status,
            impact,
            &page.intervals(),
            now,
        )
        .map_err(|message| AppError::field("next_update_by", message))?;
        let at = row_time(now);
        let names = translation::stored(&translation::only(&translations, &["name"]));
        let deadline = deadline.map(row_time);
        let incident = insert_incident(conn, page_id, &opening, impact, deadline, names, at)?;
        let update = NewIncidentUpdate {
            id: &new_id(),
            incident_id: &incident.id,
            status: opening.status,
            body: &opening.body,
            next_update_by: deadline,
            author_id,
            notify: super::notify_switch(input.notify, input.deliver_notifications)?,
            created_at: at,
            updated_at: at,
        };
        let mut update = incidents::insert_update(conn, &update)?;
        if !translations.is_empty() {
            let body = translation::stored(&translation::only(&translations, &["body"]));
            incidents::set_update_translations(conn, &update.id, &body)?;
            update.translations = body;
        }
        // A scheduled maintenance only names the components it will affect; their statuses change
        // when it starts.
        let changes = match opening.status {
            LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled) => {
                for (component, _) in &changes {
                    incidents::add_affected_component(conn, &incident.id, &component.id)?;
                }
                Vec::new()
            }
            _ => apply_changes(conn, &incident, &update.id, changes, at)?,
        };
        let posted = PostedUpdate {
            incident,
            update,
            changes,
        };
        crate::services::outbox::incident_posted(conn, &posted, None)?;
        Ok(posted)
    })
}

/// Inserts the incident row with the page's next reference for its kind and year. A concurrent
/// opening may take the same reference; the unique key refuses the second, which takes the next.
fn insert_incident(
    conn: &mut DbConn,
    page_id: &PageId,
    opening: &Opening,
    impact: Impact,
    next_update_by: Option<NaiveDateTime>,
    names: String,
    at: NaiveDateTime,
) -> AppResult<Incident> {
    let year = at.year();
    let start = Milestones {
        started_at: opening.started_at,
        identified_at: None,
        monitoring_at: None,
        resolved_at: None,
    };
    let times = start.reach(None, opening.status, at);
    let mut new = Incident {
        id: IncidentId::new(),
        page_id: page_id.clone(),
        reference: String::new(),
        name: opening.name.clone(),
        kind: opening.kind,
        impact,
        status: opening.status,
        user_impact: opening.user_impact.clone(),
        scope: opening.scope.clone(),
        root_cause: opening.root_cause.clone(),
        started_at: times.started_at,
        identified_at: times.identified_at,
        monitoring_at: times.monitoring_at,
        resolved_at: times.resolved_at,
        scheduled_for: opening.window.map(|w| w.0),
        scheduled_until: opening.window.map(|w| w.1),
        auto_transition: opening.auto_transition,
        next_update_by,
        created_at: at,
        updated_at: at,
        translations: names,
        metadata: crate::domain::metadata::NONE.to_owned(),
        maintenance_plan: crate::domain::maintenance_plan::HERALDS.to_owned(),
    };
    let mut attempt = 1;
    loop {
        let seq = incidents::max_reference_seq(conn, page_id, opening.kind, year)? + 1;
        new.reference = format_reference(opening.kind, year, seq);
        match savepoint(conn, |conn| Ok(incidents::insert(conn, &new)?)) {
            Err(AppError::Conflict(_)) if attempt < REFERENCE_ATTEMPTS => attempt += 1,
            result => return result,
        }
    }
}

/// Checks the input's own fields, recording every error in `check`.
fn opening(
    check: &mut FieldCheck,
    input: &OpenIncidentInput,
    now: DateTime<Utc>,
) -> Option<Opening> {
    let kind = input.kind.unwrap_or(IncidentKind::Incident);
    let name = check.check("name", required_line(&input.name, MAX_INCIDENT_NAME_LEN));
    let body = check.check("body", required_text(&input.body, MAX_BODY_LEN));
    let status = check.check("status", initial_status(kind, input.status.as_deref()));
    let text = |v: &Option<String>| optional_text(v.as_deref(), MAX_FIELD_LEN);
    let user_impact = check.check("user_impact", text(&input.user_impact));
    let scope = check.check("scope", text(&input.scope));
    let root_cause = check.check("root_cause", text(&input.root_cause));
    let window = window(check, kind, input, now);
    let started_at = match (kind, input.started_at, window) {
        (IncidentKind::Maintenance, None, Some(Some((from, _)))) => Some(from),
        (IncidentKind::Maintenance, Some(_), _) => {
            check.add(
                "started_at",
                "a maintenance starts at its scheduled_for time; leave started_at empty",
            );
            None
        }
        (_, Some(at), _) if at > now => {
            check.add("started_at", "must not be in the future");
            None
        }
        (_, Some(at), _) if within_reach(at, now).is_err() => {
            check.check("started_at", within_reach(at, now));
            None
        }
        (_, at, _) => Some(row_time(at.unwrap_or(now))),
    };
    Some(Opening {
        name: name?,
        kind,
        status: status?,
        body: body?,
        user_impact: user_impact?,
        scope: scope?,
        root_cause: root_cause?,
        started_at: started_at?,
        window: window?,
        auto_transition: input.auto_transition && kind == IncidentKind::Maintenance,
    })
}

/// The first status: the kind's default when absent; an incident may not open as postmortem.
fn initial_status(kind: IncidentKind, status: Option<&str>) -> Result<LifecycleStatus, String> {
    let default = match kind {
        IncidentKind::Maintenance => LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled),
        IncidentKind::Incident | IncidentKind::Advisory => {
            LifecycleStatus::Incident(IncidentStatus::Investigating)
        }
    };
    let Some(status) = status.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(default);
    };
    match LifecycleStatus::parse(kind, status).map_err(|e| e.to_string())? {
        LifecycleStatus::Incident(IncidentStatus::Postmortem) => Err(
            "an incident cannot open as postmortem; resolve it, then publish the postmortem"
                .to_owned(),
        ),
        parsed => Ok(parsed),
    }
}

/// The scheduled window: required for a maintenance, with `scheduled_until` after
/// `scheduled_for` and both within reach of `now`; refused for the other kinds. `None` when an
/// error was recorded.
fn window(
    check: &mut FieldCheck,
    kind: IncidentKind,
    input: &OpenIncidentInput,
    now: DateTime<Utc>,
) -> Option<Option<(NaiveDateTime, NaiveDateTime)>> {
    let (from, until) = (input.scheduled_for, input.scheduled_until);
    if kind != IncidentKind::Maintenance {
        for (field, value) in [("scheduled_for", from), ("scheduled_until", until)] {
            if value.is_some() {
                check.add(
                    field,
                    format!("only maintenances have a scheduled window, not a {kind}"),
                );
            }
        }
        return (from.is_none() && until.is_none()).then_some(None);
    }
    let reached = |field: &str, at: Option<DateTime<Utc>>, check: &mut FieldCheck| {
        at.map(|at| check.check(field, within_reach(at, now)).is_some())
            .unwrap_or(true)
    };
    // Both ends are checked (not `&&`), so each out of reach gets its message.
    let in_reach = reached("scheduled_for", from, check) & reached("scheduled_until", until, check);
    match (from, until) {
        (Some(_), Some(_)) if !in_reach => None,
        (Some(from), Some(until)) if until > from => Some(Some((row_time(from), row_time(until)))),
        (Some(_), Some(_)) => {
            check.add("scheduled_until", "must be after scheduled_for");
            None
        }
        (from, until) => {
            for (field, value) in [("scheduled_for", from), ("scheduled_until", until)] {
                if value.is_none() {
                    check.add(field, "a maintenance needs its scheduled window");
                }
            }
            None
        }
    }
}
