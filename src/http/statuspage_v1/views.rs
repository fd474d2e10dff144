//! Herald's records as Statuspage's manage API (v1) gives them: its objects, its field names,
//! its status words. A field Herald has no value for is left out rather than `null` (the
//! document types every field without `null`); Herald's own extras (`next_update_by`,
//! `reference`) come after Statuspage's fields, which clients ignore.

use serde_json::{Map, Value, json};

use crate::db::models::components::{Component, ComponentGroup};
use crate::db::models::incidents::{Incident, IncidentUpdateComponent};
use crate::db::models::pages::StatusPage;
use crate::db::models::templates::IncidentTemplate;
use crate::domain::{IncidentKind, IncidentStatus, LifecycleStatus};
use crate::http::api::views::time;
use crate::services::incidents::{IncidentDetail, UpdateWithChanges};

/// `value` without its `null` fields (at the top level).
fn compact(value: Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .collect::<Map<_, _>>(),
        ),
        other => other,
    }
}

/// A page. `url` is where its public page is served.
pub fn page(p: &StatusPage, url: &str) -> Value {
    compact(json!({
        "id": p.id, "created_at": time(p.created_at), "updated_at": time(p.updated_at),
        "name": p.name, "page_description": p.description, "subdomain": p.slug,
        "domain": p.custom_domain, "url": url,
        "support_url": p.support_email.as_ref().map(|e| format!("mailto:{e}")),
        "hidden_from_search": p.visibility != crate::domain::Visibility::Public,
        "allow_page_subscribers": true, "allow_incident_subscribers": false,
        "allow_email_subscribers": true, "allow_sms_subscribers": false,
        "allow_rss_atom_feeds": true, "allow_webhook_subscribers": true,
        "viewers_must_be_team_members": p.visibility != crate::domain::Visibility::Public,
        "time_zone": p.time_zone,
        "css_link_color": p.brand_color,
        // Herald's own.
        "slug": p.slug,
    }))
}

/// A component.
pub fn component(c: &Component) -> Value {
    compact(json!({
        "id": c.id, "page_id": c.page_id, "group_id": c.group_id,
        "created_at": time(c.created_at), "updated_at": time(c.updated_at),
        "group": false, "name": c.name, "description": c.description,
        "position": c.position, "status": c.status, "showcase": c.showcase,
        "only_show_if_degraded": false,
    }))
}

/// A component group with its members' ids, in order.
pub fn group(g: &ComponentGroup, members: &[&Component]) -> Value {
    compact(json!({
        "id": g.id, "page_id": g.page_id, "name": g.name, "description": g.description,
        "components": members.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        "position": g.position,
        "created_at": time(g.created_at), "updated_at": time(g.updated_at),
    }))
}

/// A status in Statuspage's words: Herald's `postmortem` is a resolved incident whose
/// postmortem is published.
pub fn status(s: LifecycleStatus) -> &'static str {
    match s {
        LifecycleStatus::Incident(IncidentStatus::Postmortem) => "resolved",
        other => other.as_str(),
    }
}

/// An incident's impact in Statuspage's words: a maintenance's is `maintenance`.
fn impact(i: &Incident) -> &'static str {
    match i.kind {
        IncidentKind::Maintenance => "maintenance",
        _ => i.impact.as_str(),
    }
}

fn changes(rows: &[IncidentUpdateComponent], names: &dyn Fn(&str) -> Option<String>) -> Value {
    rows.iter()
        .map(|r| {
            compact(json!({
                "code": r.component_id, "name": names(r.component_id.as_str()),
                "old_status": r.old_status, "new_status": r.new_status,
            }))
        })
        .collect()
}

/// One posted update.
pub fn update(u: &UpdateWithChanges, names: &dyn Fn(&str) -> Option<String>) -> Value {
    let up = &u.update;
    compact(json!({
        "id": up.id, "incident_id": up.incident_id, "status": status(up.status),
        "body": up.body, "created_at": time(up.created_at), "updated_at": time(up.updated_at),
        "display_at": time(up.display_at.unwrap_or(up.created_at)),
        "deliver_notifications": up.notify, "wants_twitter_update": false,
        "affected_components": changes(&u.changes, names),
        "next_update_by": up.next_update_by.map(time),
    }))
}

/// An incident with its updates (newest first) and the components it affects. `url` is its
/// public page.
pub fn incident(d: &IncidentDetail, url: &str) -> Value {
    let i = &d.incident;
    let names = |id: &str| {
        d.affected
            .iter()
            .find(|c| c.id.as_str() == id)
            .map(|c| c.name.clone())
    };
    let maintenance = i.kind == IncidentKind::Maintenance;
    let switch = |on: bool| maintenance.then_some(on);
    let plan = crate::domain::maintenance_plan::Plan::read(&i.maintenance_plan);
    compact(json!({
        "id": i.id, "name": i.name, "status": status(i.status),
        "created_at": time(i.created_at), "updated_at": time(i.updated_at),
        "monitoring_at": i.monitoring_at.map(time), "resolved_at": i.resolved_at.map(time),
        "impact": impact(i), "impact_override": impact(i), "shortlink": url,
        "started_at": time(i.started_at), "page_id": i.page_id,
        "incident_updates": d.updates.iter().map(|u| update(u, &names)).collect::<Vec<_>>(),
        "components": d.affected.iter().map(component).collect::<Vec<_>>(),
        "scheduled_for": i.scheduled_for.map(time),
        "scheduled_until": i.scheduled_until.map(time),
        "scheduled_auto_in_progress": switch(i.auto_transition && plan.auto_start),
        "scheduled_auto_completed": switch(i.auto_transition && plan.auto_complete),
        "auto_transition_to_maintenance_state": switch(plan.to_maintenance_state),
        "auto_transition_to_operational_state": switch(plan.to_operational_state),
        "auto_transition_deliver_notifications_at_start": switch(plan.notify_at_start),
        "auto_transition_deliver_notifications_at_end": switch(plan.notify_at_end),
        "scheduled_remind_prior": switch(plan.remind_prior),
        "metadata": metadata(&i.metadata),
        // Herald's own.
        "reference": i.reference, "next_update_by": i.next_update_by.map(time),
        "user_impact": i.user_impact, "scope": i.scope, "root_cause": i.root_cause,
    }))
}

/// Stored metadata as its object (`{}` when none).
fn metadata(stored: &str) -> Value {
    serde_json::from_str(stored).unwrap_or_else(|_| json!({}))
}

/// An incident template, its components listed whole.
pub fn template(t: &IncidentTemplate, components: &[Component]) -> Value {
    let statuses: Map<String, Value> = serde_json::from_str(&t.components).unwrap_or_default();
    let affected: Vec<Value> = components
        .iter()
        .filter(|c| statuses.contains_key(c.id.as_str()))
        .map(component)
        .collect();
    compact(json!({
        "id": t.id, "name": t.name, "title": t.title, "body": t.body,
        "components": affected,
        "should_tweet": false, "should_send_notifications": true,
        // Herald's own.
        "impact": t.impact,
    }))
}

/// A postmortem: Statuspage's one text is Herald's report (its root cause); the draft is the
/// text, and the body is the same text once published (Herald's postmortem has no separate
/// published copy).
pub fn postmortem(d: &crate::services::postmortems::PostmortemDetail) -> Value {
    let p = &d.postmortem;
    compact(json!({
        "body_draft": p.root_cause,
        "body_draft_updated_at": time(p.updated_at),
        "body": p.published.then_some(&p.root_cause),
        "body_updated_at": p.published.then(|| time(p.updated_at)),
        "published_at": p.published_at.map(time),
        "notify_twitter": false,
        "created_at": time(p.created_at), "updated_at": time(p.updated_at),
        // Herald's own.
        "summary": (!p.summary.is_empty()).then_some(&p.summary),
    }))
}

/// A subscriber: `mode` is its kind; a webhook's `email` is where its failure notices go.
/// Herald's own: `state`.
pub fn subscriber(s: &crate::services::subscribers::SubscriberView) -> Value {
    use crate::db::states::{Channel, SubscriberState};
    let email = match s.kind {
        Channel::Email => s.email.as_ref(),
        Channel::Webhook => s.contact_email.as_ref(),
    };
    compact(json!({
        "id": s.id, "mode": s.kind, "email": email, "endpoint": s.url,
        "components": s.components,
        "quarantined_at": (s.state == SubscriberState::Quarantined)
            .then(|| s.confirmed_at.map(|t| time(t.naive_utc())))
            .flatten(),
        "created_at": time(s.created_at.naive_utc()),
        // Herald's own.
        "state": statuspage_state(s.state),
    }))
}

/// A subscriber's state in Statuspage's words.
pub fn statuspage_state(state: crate::db::states::SubscriberState) -> &'static str {
    use crate::db::states::SubscriberState;
    match state {
        SubscriberState::Confirmed => "active",
        SubscriberState::Pending => "unconfirmed",
        SubscriberState::Quarantined => "quarantined",
        SubscriberState::Unsubscribed => "unsubscribed",
    }
}
