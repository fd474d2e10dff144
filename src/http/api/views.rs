//! JSON views of Herald's records, with Statuspage's manage-API field names where one exists.
//! Times are RFC 3339 in UTC.

use chrono::{NaiveDateTime, SecondsFormat};
use serde_json::{Value, json};

use crate::db::models::audit::AuditEntry;
use crate::db::models::components::{Component, ComponentGroup};
use crate::db::models::incidents::{Incident, IncidentUpdateComponent};
use crate::db::models::pages::StatusPage;
use crate::db::models::templates::IncidentTemplate;
use crate::services::incidents::{IncidentDetail, PostedUpdate, UpdateWithChanges};
use crate::services::postmortems::PostmortemDetail;

/// A stored time as RFC 3339 UTC.
pub fn time(at: NaiveDateTime) -> String {
    // Milliseconds, as the v2 JSON and webhook bodies give the same instants (Statuspage's form).
    at.and_utc().to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn opt_time(at: Option<NaiveDateTime>) -> Option<String> {
    at.map(time)
}

/// A status page with its settings.
pub fn page(p: &StatusPage) -> Value {
    json!({
        "id": p.id, "slug": p.slug, "name": p.name, "description": p.description,
        "public_url": p.public_url, "custom_domain": p.custom_domain,
        "time_zone": p.time_zone, "support_email": p.support_email,
        "is_default": p.is_default,
        "visibility": p.visibility, "is_public": p.visibility == crate::domain::Visibility::Public,
        "allowed_email_domains": p.email_domains(), "support_reach": p.support_reach,
        "next_update_intervals": p.intervals(),
        "embed_origins": crate::domain::embed::listed(&p.embed_origins),
        "brand_color": p.brand_color, "theme": p.theme,
        "header_links": crate::domain::brand::read_links(&p.header_links),
        "footer": p.footer, "custom_css": p.custom_css,
        "languages": p.enabled_languages(), "default_language": p.default_language,
        "created_at": time(p.created_at), "updated_at": time(p.updated_at),
    })
}

/// A component.
pub fn component(c: &Component) -> Value {
    json!({
        "id": c.id, "page_id": c.page_id, "group_id": c.group_id, "name": c.name,
        "description": c.description, "position": c.position, "region": c.region,
        "status": c.status, "showcase": c.showcase, "signin": c.signin,
        "created_at": time(c.created_at), "updated_at": time(c.updated_at),
    })
}

/// A component group (its members listed by id).
pub fn group(g: &ComponentGroup, members: &[&Component]) -> Value {
    json!({
        "id": g.id, "page_id": g.page_id, "name": g.name, "description": g.description,
        "position": g.position,
        "components": members.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        "created_at": time(g.created_at), "updated_at": time(g.updated_at),
    })
}

/// Stored translations as the API gives them: `{"de": {"name": ...}}` (`{}` when none).
fn read_translations(stored: &str) -> Value {
    serde_json::to_value(crate::domain::translation::read(stored)).unwrap_or_else(|_| json!({}))
}

/// An incident's own fields, without its updates.
pub fn incident(i: &Incident) -> Value {
    json!({
        "id": i.id, "page_id": i.page_id, "reference": i.reference, "name": i.name,
        "kind": i.kind, "impact": i.impact, "status": i.status,
        "user_impact": i.user_impact, "scope": i.scope, "root_cause": i.root_cause,
        "started_at": time(i.started_at), "identified_at": opt_time(i.identified_at),
        "monitoring_at": opt_time(i.monitoring_at), "resolved_at": opt_time(i.resolved_at),
        "scheduled_for": opt_time(i.scheduled_for),
        "scheduled_until": opt_time(i.scheduled_until),
        "auto_transition": i.auto_transition, "next_update_by": opt_time(i.next_update_by),
        "translations": read_translations(&i.translations),
        "created_at": time(i.created_at), "updated_at": time(i.updated_at),
    })
}

/// The changes an update made; `null` when it made none, as the v2 JSON and webhook bodies
/// (and Statuspage) say for the same update.
fn changes(rows: &[IncidentUpdateComponent]) -> Value {
    if rows.is_empty() {
        return Value::Null;
    }
    rows.iter()
        .map(|r| {
            json!({"code": r.component_id, "old_status": r.old_status, "new_status": r.new_status})
        })
        .collect()
}

fn update(u: &UpdateWithChanges) -> Value {
    let up = &u.update;
    json!({
        "id": up.id, "incident_id": up.incident_id, "status": up.status, "body": up.body,
        "next_update_by": opt_time(up.next_update_by), "author_id": up.author_id,
        "deliver_notifications": up.notify,
        "translations": read_translations(&up.translations),
        "created_at": time(up.created_at), "display_at": time(up.created_at),
        "affected_components": changes(&u.changes),
    })
}

/// An incident with its updates (newest first) and affected components.
pub fn incident_detail(d: &IncidentDetail) -> Value {
    let mut value = incident(&d.incident);
    value["incident_updates"] = d.updates.iter().map(update).collect();
    value["components"] = d.affected.iter().map(component).collect();
    value
}

/// What opening an incident or posting an update wrote: the incident and the new update.
pub fn posted(p: &PostedUpdate) -> Value {
    let mut value = incident(&p.incident);
    value["incident_update"] = update(&UpdateWithChanges {
        update: p.update.clone(),
        changes: p.changes.clone(),
    });
    value
}

/// An incident template.
pub fn template(t: &IncidentTemplate) -> Value {
    let components: Value = serde_json::from_str(&t.components).unwrap_or_else(|_| json!({}));
    json!({
        "id": t.id, "page_id": t.page_id, "name": t.name, "title": t.title,
        "impact": t.impact, "body": t.body, "components": components,
        "created_at": time(t.created_at), "updated_at": time(t.updated_at),
    })
}

/// One audit row.
pub fn audit_entry(e: &AuditEntry) -> Value {
    let changes: Value = serde_json::from_str(&e.changes).unwrap_or(Value::Null);
    json!({
        "id": e.id, "at": time(e.at), "actor_id": e.actor_id, "actor_email": e.actor_email,
        "action": e.action, "entity_type": e.entity_type, "entity_id": e.entity_id,
        "page_id": e.page_id, "changes": changes,
    })
}

/// A postmortem with its timeline and follow-ups.
pub fn postmortem(d: &PostmortemDetail) -> Value {
    let p = &d.postmortem;
    let figures: Value = serde_json::from_str(&p.scope_figures).unwrap_or_else(|_| json!([]));
    json!({
        "id": p.id, "incident_id": p.incident_id, "reference": d.incident.reference,
        "summary": p.summary, "root_cause": p.root_cause, "scope_figures": figures,
        "translations": read_translations(&p.translations),
        "published": p.published, "published_at": opt_time(p.published_at),
        "timeline": d.timeline.iter().map(|t| json!({
            "at": time(t.occurred_at), "description": t.description,
        })).collect::<Vec<_>>(),
        "follow_ups": d.follow_ups.iter().map(|f| json!({
            "id": f.id, "description": f.description, "owner": f.owner, "state": f.state,
        })).collect::<Vec<_>>(),
        "created_at": time(p.created_at), "updated_at": time(p.updated_at),
    })
}
