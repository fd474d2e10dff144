//! What an integration does with the alerts it hears: each alert's last word is stored by
//! fingerprint (a repeat changes nothing), and each component an alert says something new
//! about is settled by [`crate::domain::alerts::decide`]. A resolve held back by the hold time
//! is settled later by the `alerts.settle` job. A component that goes to major outage may open
//! an incident from the integration's template, or propose one (a draft a responder
//! publishes). Everything an integration changes is in the audit log with the integration as
//! the actor, in the transaction of the change.

use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::db::models::components::{self, Component};
use crate::db::models::integrations::{self as rows, AlertMark, AlertState, IncidentDraft};
use crate::db::models::{incidents, templates};
use crate::db::{DbConn, new_id, write_tx};
use crate::domain::alerts::{self, Alert, Candidate, Decision};
use crate::domain::{ComponentId, ComponentStatus, IncidentMode, IntegrationId, PageId};
use crate::error::{AppError, AppResult};
use crate::jobs::Job;
use crate::services::audit::{self, Actor, Change};
use crate::services::incidents::{OpenIncidentInput, PostedUpdate, open_incident};
use crate::services::integrations::IntegrationView;
use crate::services::pages::{found, row_time};

/// The job that settles a component once a held status may change ([`settle_later`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct Settle {
    pub component_id: ComponentId,
}

impl Job for Settle {
    const NAME: &'static str = "alerts.settle";
}

/// What a notification did, answered to the sender (and kept in the audit log).
#[derive(Debug, Default, Serialize)]
pub struct Outcome {
    /// Alerts in the notification.
    pub received: usize,
    /// Alerts that said nothing new (a repeated notification).
    pub unchanged: usize,
    pub changed: Vec<Changed>,
    pub kept: Vec<Kept>,
    pub held: Vec<Held>,
    pub ignored: Vec<Ignored>,
    /// Incidents opened (their references).
    pub incidents: Vec<String>,
    /// Incidents proposed to responders (the drafts' ids).
    pub drafts: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Changed {
    pub component_id: ComponentId,
    pub component: String,
    pub from: ComponentStatus,
    pub to: ComponentStatus,
    pub alert: String,
}

#[derive(Debug, Serialize)]
pub struct Kept {
    pub component_id: ComponentId,
    pub component: String,
    pub status: ComponentStatus,
    pub reason: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Held {
    pub component_id: ComponentId,
    pub component: String,
    pub status: ComponentStatus,
    pub until: String,
}

#[derive(Debug, Serialize)]
pub struct Ignored {
    pub fingerprint: String,
    pub alert: String,
    pub reason: String,
}

impl Outcome {
    /// Whether the notification changed anything stored.
    fn touched_anything(&self) -> bool {
        self.received > self.unchanged + self.ignored.len()
    }
}

/// The actor of everything an integration does.
fn actor(integration_id: Option<&IntegrationId>, name: &str) -> Actor {
    Actor {
        user_id: integration_id.map(ToString::to_string).unwrap_or_default(),
        email: format!("integration:{name}"),
    }
}

/// Takes a notification's alerts in one transaction.
#[tracing::instrument(skip_all, fields(integration_id = %integration.row.id, alerts = alerts.len()))]
pub fn receive(
    conn: &mut DbConn,
    integration: &IntegrationView,
    alerts: &[Alert],
    now: DateTime<Utc>,
) -> AppResult<Outcome> {
    write_tx(conn, |conn| {
        let row = &integration.row;
        let at = row_time(now);
        let page_components = components::list_for_page(conn, &row.page_id)?;
        let candidates: Vec<Candidate<'_>> = page_components
            .iter()
            .map(|c| Candidate {
                id: c.id.as_str(),
                name: &c.name,
                region: c.region.as_deref(),
            })
            .collect();
        let mut outcome = Outcome {
            received: alerts.len(),
            ..Outcome::default()
        };
        // The components something new was said about, with the alert that said it last.
        let mut touched: BTreeMap<ComponentId, &Alert> = BTreeMap::new();
        for alert in alerts {
            let ignore = |reason: String| Ignored {
                fingerprint: alert.fingerprint.clone(),
                alert: alert.name.clone(),
                reason,
            };
            let Some(value) = alert.component.as_deref() else {
                let reason = format!("has no {:?} label", integration.mapping.component_label);
                outcome.ignored.push(ignore(reason));
                continue;
            };
            let component_id =
                match alerts::pick_component(value, &integration.components, &candidates) {
                    Ok(id) => ComponentId::from(id),
                    Err(reason) => {
                        outcome.ignored.push(ignore(reason));
                        continue;
                    }
                };
            let fingerprint = alert.fingerprint_on(&component_id);
            let state = AlertState {
                integration_id: row.id.clone(),
                fingerprint: fingerprint.clone(),
                component_id: component_id.clone(),
                alert_name: alert.name.clone(),
                summary: alert.summary.clone(),
                status: integration.mapping.status_of(&alert.asks),
                firing: alert.firing,
                starts_at: row_time(alert.starts_at),
                updated_at: at,
            };
            let before = rows::find_state(conn, &row.id, &fingerprint)?;
            if before.as_ref().is_some_and(|b| says_the_same(b, &state)) {
                outcome.unchanged += 1;
                continue;
            }
            rows::put_state(conn, &state)?;
            // An alert that now names another component (a generic key moved) leaves the
            // one it named before: that one is settled too.
            if let Some(before) = before.filter(|b| b.component_id != component_id) {
                touched.insert(before.component_id, alert);
            }
            touched.insert(component_id, alert);
        }
        // Each component is settled once, so the statuses read above are still its own.
        for (component_id, alert) in touched {
            if let Some(component) = page_components.iter().find(|c| c.id == component_id) {
                settle(
                    conn,
                    component,
                    Some((integration, alert)),
                    now,
                    &mut outcome,
                )?;
            }
        }
        if outcome.touched_anything() {
            rows::touch(conn, &row.id, at)?;
            let change = Change {
                action: "integration.notified",
                entity_type: "integration",
                entity_id: Some(row.id.to_string()),
                page_id: Some(row.page_id.clone()),
                changes: serde_json::to_value(&outcome).map_err(anyhow::Error::from)?,
            };
            audit::record(conn, &actor(Some(&row.id), &row.name), &change)?;
        }
        Ok(outcome)
    })
}

/// Whether a stored alert and a new word of it say the same.
fn says_the_same(before: &AlertState, now: &AlertState) -> bool {
    before.firing == now.firing
        && before.status == now.status
        && before.starts_at == now.starts_at
        && before.component_id == now.component_id
}

/// Settles one component: the status its firing alerts ask for, applied or kept as
/// [`alerts::decide`] says. `by` is the integration and alert that said something new (none
/// when the settle job runs; the mark's integration is then asked for the hold).
fn settle(
    conn: &mut DbConn,
    component: &Component,
    by: Option<(&IntegrationView, &Alert)>,
    now: DateTime<Utc>,
    outcome: &mut Outcome,
) -> AppResult<()> {
    let wanted = alerts::desired(rows::firing_statuses(conn, &component.id)?);
    let mark = rows::find_mark(conn, &component.id)?;
    let marked_by = match (&by, &mark) {
        (Some((integration, _)), _) => Some(Cow::Borrowed(*integration)),
        (
            None,
            Some(AlertMark {
                integration_id: Some(id),
                ..
            }),
        ) => match rows::find(conn, id) {
            Ok(row) => Some(Cow::Owned(IntegrationView::of(row)?)),
            Err(diesel::result::Error::NotFound) => None,
            Err(e) => return Err(e.into()),
        },
        (None, _) => None,
    };
    let hold = marked_by
        .as_ref()
        .map_or(chrono::Duration::zero(), |i| i.hold());
    let set_by_alert = mark.as_ref().map(|m| m.set_at.and_utc());
    let name = component.name.clone();
    match alerts::decide(component.status, set_by_alert, wanted, hold, now) {
        Decision::Same => {}
        decision @ (Decision::KeptByResponder | Decision::KeptForMaintenance) => {
            let reason = match decision {
                Decision::KeptForMaintenance => "the component is under maintenance",
                _ => "a responder set the status since the alert did",
            };
            outcome.kept.push(Kept {
                component_id: component.id.clone(),
                component: name,
                status: component.status,
                reason,
            });
        }
        Decision::HeldUntil(until) => {
            Settle {
                component_id: component.id.clone(),
            }
            .enqueue_at(conn, row_time(until))?;
            outcome.held.push(Held {
                component_id: component.id.clone(),
                component: name,
                status: component.status,
                until: until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            });
        }
        Decision::Apply(status) => {
            let Some(integration) = marked_by else {
                // A held status whose integration is gone: nothing says how it should end.
                return Ok(());
            };
            let alert_name = match (&by, &mark) {
                (Some((_, alert)), _) => alert.name.clone(),
                (None, Some(mark)) => mark.alert_name.clone(),
                (None, None) => "alert".to_owned(),
            };
            apply(
                conn,
                &integration,
                component,
                status,
                &alert_name,
                now,
                outcome,
            )?;
            if status == ComponentStatus::MajorOutage
                && let Some((_, alert)) = by
            {
                propose(conn, &integration, &component.id, alert, now, outcome)?;
            }
        }
    }
    Ok(())
}

/// Sets the status as the integration, with its mark, audit row and (when the owner turned it
/// on) the subscribers' notification.
fn apply(
    conn: &mut DbConn,
    integration: &IntegrationView,
    component: &Component,
    status: ComponentStatus,
    alert_name: &str,
    now: DateTime<Utc>,
    outcome: &mut Outcome,
) -> AppResult<()> {
    let row = &integration.row;
    let at = row_time(now);
    let from = component.status;
    crate::services::components::apply_status(conn, component, status, None, at)?;
    if status != ComponentStatus::Operational {
        rows::put_mark(
            conn,
            &AlertMark {
                component_id: component.id.clone(),
                integration_id: Some(row.id.clone()),
                integration: row.name.clone(),
                alert_name: alert_name.to_owned(),
                set_at: at,
            },
        )?;
    }
    if row.notify_subscribers {
        crate::services::outbox::component_status_changed(conn, component, at)?;
    }
    let change = Change {
        action: "component.status_by_alert",
        entity_type: "component",
        entity_id: Some(component.id.to_string()),
        page_id: Some(component.page_id.clone()),
        changes: json!({"from": from, "status": status, "alert": alert_name}),
    };
    audit::record(conn, &actor(Some(&row.id), &row.name), &change)?;
    outcome.changed.push(Changed {
        component_id: component.id.clone(),
        component: component.name.clone(),
        from,
        to: status,
        alert: alert_name.to_owned(),
    });
    Ok(())
}

/// Opens (or proposes) the integration's incident for a component that went to major outage,
/// unless one is open for it or proposed already.
fn propose(
    conn: &mut DbConn,
    integration: &IntegrationView,
    component_id: &ComponentId,
    alert: &Alert,
    now: DateTime<Utc>,
    outcome: &mut Outcome,
) -> AppResult<()> {
    let row = &integration.row;
    let Some(template_id) = row.template_id.as_deref() else {
        return Ok(());
    };
    if row.incident_mode == IncidentMode::Off
        || rows::draft_waits(conn, component_id)?
        // (No incident has an empty id: every open incident counts.)
        || incidents::affected_by_other_open(conn, &row.page_id, component_id, "")?
    {
        return Ok(());
    }
    match row.incident_mode {
        IncidentMode::Off => {}
        IncidentMode::Draft => {
            let draft = IncidentDraft {
                id: new_id(),
                page_id: row.page_id.clone(),
                integration_id: Some(row.id.clone()),
                template_id: Some(template_id.to_owned()),
                component_id: component_id.clone(),
                alert_name: alert.name.clone(),
                summary: alert.summary.clone(),
                created_at: row_time(now),
            };
            rows::insert_draft(conn, &draft)?;
            outcome.drafts.push(draft.id);
        }
        IncidentMode::Publish => {
            let input = opening(
                conn,
                template_id,
                component_id,
                Some(row.notify_subscribers),
            )?;
            let posted = open_incident(conn, &row.page_id, &input, None, now)?;
            let change = Change {
                action: "incident.create",
                entity_type: "incident",
                entity_id: Some(posted.incident.id.to_string()),
                page_id: Some(row.page_id.clone()),
                changes: json!({"template_id": template_id, "alert": alert.name}),
            };
            audit::record(conn, &actor(Some(&row.id), &row.name), &change)?;
            outcome.incidents.push(posted.incident.reference);
        }
    }
    Ok(())
}

/// The opening of an incident from a template, with the component in major outage.
fn opening(
    conn: &mut DbConn,
    template_id: &str,
    component_id: &ComponentId,
    notify: Option<bool>,
) -> AppResult<OpenIncidentInput> {
    let template = found(templates::find(conn, template_id), "incident template")?;
    let mut fields = json!({"notify": notify});
    crate::services::templates::prefill(&template, &mut fields)?;
    if let Some(map) = fields.get_mut("components").and_then(Value::as_object_mut) {
        map.insert(component_id.to_string(), json!("major_outage"));
    }
    serde_json::from_value(fields)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("template {template_id}: {e}")))
}

/// Settles a component whose held status may now change (the `alerts.settle` job).
pub fn settle_later(
    conn: &mut DbConn,
    component_id: &ComponentId,
    now: DateTime<Utc>,
) -> AppResult<Outcome> {
    write_tx(conn, |conn| {
        let mut outcome = Outcome::default();
        match components::find(conn, component_id) {
            Ok(component) => settle(conn, &component, None, now, &mut outcome)?,
            // The component was deleted meanwhile: nothing to settle.
            Err(diesel::result::Error::NotFound) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(outcome)
    })
}

/// The page's proposed incidents.
pub fn list_drafts(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<IncidentDraft>> {
    Ok(rows::list_drafts(conn, page_id)?)
}

/// How many proposed incidents wait on the page.
pub fn count_drafts(conn: &mut DbConn, page_id: &PageId) -> AppResult<i64> {
    Ok(rows::count_drafts(conn, page_id)?)
}

/// The proposal of the page with this id (404 otherwise).
fn get_draft(conn: &mut DbConn, page_id: &PageId, id: &str) -> AppResult<IncidentDraft> {
    match rows::find_draft(conn, id) {
        Ok(d) if d.page_id == page_id => Ok(d),
        Ok(_) | Err(diesel::result::Error::NotFound) => {
            Err(AppError::NotFound("incident draft".into()))
        }
        Err(e) => Err(e.into()),
    }
}

/// Publishes a proposal as an incident (the page's usual deadline and notification), by a
/// responder.
pub fn publish_draft(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &str,
    author_id: Option<&str>,
    now: DateTime<Utc>,
) -> AppResult<PostedUpdate> {
    write_tx(conn, |conn| {
        let draft = get_draft(conn, page_id, id)?;
        let Some(template_id) = draft.template_id.as_deref() else {
            return Err(AppError::Conflict(
                "the draft's incident template was deleted; open the incident by hand".into(),
            ));
        };
        let input = opening(conn, template_id, &draft.component_id, None)?;
        let posted = open_incident(conn, page_id, &input, author_id, now)?;
        rows::remove_draft(conn, id)?;
        Ok(posted)
    })
}

/// Dismisses a proposal.
pub fn dismiss_draft(conn: &mut DbConn, page_id: &PageId, id: &str) -> AppResult<IncidentDraft> {
    write_tx(conn, |conn| {
        let draft = get_draft(conn, page_id, id)?;
        rows::remove_draft(conn, id)?;
        Ok(draft)
    })
}

/// Which alert set the status of each of the page's components that an alert set.
pub fn marks_of_page(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<AlertMark>> {
    Ok(rows::page_marks(conn, page_id)?)
}
