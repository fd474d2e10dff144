//! Tests of the v2 API documents; `keys` freezes the key sets that keep them compatible with
//! Statuspage's.

mod keys;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::{LIST_LIMIT, documents, render};
use crate::domain::lang::Lang;
use crate::domain::{IncidentStatus, LifecycleStatus};
use crate::render::Representation;
use crate::services::public::data::PageData;
use crate::services::public::fixtures::records::{
    self as fixture, ACTIVE_ID, API_ID, GROUP_ID, OPEN_ID, RESOLVED_ID, UPCOMING_ID, WEB_ID,
};

pub(super) fn rendered(data: &PageData) -> HashMap<String, Arc<Representation>> {
    let mut out = HashMap::new();
    render(data, Lang::En, &mut out).expect("renders");
    out
}

pub(super) fn doc(data: &PageData, key: &str) -> Value {
    let out = rendered(data);
    let rep = out.get(key).unwrap_or_else(|| panic!("{key} is rendered"));
    serde_json::from_slice(&rep.identity).expect("valid JSON")
}

pub(super) fn find<'a>(list: &'a Value, id: &str) -> &'a Value {
    let items = list.as_array().expect("a list");
    items
        .iter()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {list}"))
}

#[test]
fn summary_holds_status_components_unresolved_incidents_and_current_maintenances() {
    let summary = doc(&fixture::page(), "api/v2/summary.json");
    assert_eq!(summary["status"]["indicator"], "critical");
    assert_eq!(summary["status"]["description"], "Major System Outage");
    // In another language, the page's own words for it; the indicator stays.
    let mut out = HashMap::new();
    render(&fixture::page(), Lang::De, &mut out).expect("renders");
    let german: Value = serde_json::from_slice(&out["api/v2/summary.json"].identity).unwrap();
    assert_eq!(german["status"]["indicator"], "critical");
    assert_eq!(
        german["status"]["description"],
        crate::render::i18n::text(Lang::De, "indicator-critical")
    );
    assert_ne!(german["status"]["description"], "Major System Outage");
    let ids = |list: &Value| -> Vec<String> {
        let items = list.as_array().expect("a list");
        items
            .iter()
            .map(|v| v["id"].as_str().expect("id").to_owned())
            .collect()
    };
    assert_eq!(ids(&summary["incidents"]), [OPEN_ID]);
    assert_eq!(
        ids(&summary["scheduled_maintenances"]),
        [ACTIVE_ID, UPCOMING_ID]
    );
    assert_eq!(ids(&summary["components"]), [GROUP_ID, API_ID, WEB_ID]);
    assert_eq!(summary["page"]["time_zone"], "Europe/Berlin");
    assert_eq!(summary["page"]["url"], "https://status.acme.test");
}

#[test]
fn list_endpoints_filter_by_status() {
    let data = fixture::page();
    let ids = |key: &str, field: &str| -> Vec<String> {
        let value = doc(&data, key);
        let items = value[field].as_array().expect("a list").clone();
        items
            .iter()
            .map(|v| v["id"].as_str().expect("id").to_owned())
            .collect()
    };
    assert_eq!(
        ids("api/v2/incidents.json", "incidents"),
        [OPEN_ID, RESOLVED_ID]
    );
    assert_eq!(
        ids("api/v2/incidents/unresolved.json", "incidents"),
        [OPEN_ID]
    );
    let all = ids(
        "api/v2/scheduled-maintenances.json",
        "scheduled_maintenances",
    );
    assert_eq!(all, [UPCOMING_ID, ACTIVE_ID]);
    let upcoming = ids(
        "api/v2/scheduled-maintenances/upcoming.json",
        "scheduled_maintenances",
    );
    assert_eq!(upcoming, [UPCOMING_ID]);
    let active = ids(
        "api/v2/scheduled-maintenances/active.json",
        "scheduled_maintenances",
    );
    assert_eq!(active, [ACTIVE_ID]);
}

#[test]
fn groups_list_their_members_and_take_the_worst_status() {
    let components = doc(&fixture::page(), "api/v2/components.json")["components"].clone();
    let group = find(&components, GROUP_ID);
    assert_eq!(group["group"], true);
    assert_eq!(group["components"], serde_json::json!([API_ID]));
    assert_eq!(group["status"], "major_outage");
    assert_eq!(group["group_id"], Value::Null);
    let api = find(&components, API_ID);
    assert_eq!(api["group"], false);
    assert_eq!(api["group_id"], GROUP_ID);
    assert_eq!(api["page_id"], fixture::PAGE_ID);
    assert_eq!(api["region"], "eu-central-1");
    assert_eq!(api["showcase"], true);
    assert_eq!(api["only_show_if_degraded"], false);
    assert_eq!(api["start_date"], Value::Null);
    let web = find(&components, WEB_ID);
    assert_eq!(web["status"], "under_maintenance");
    assert_eq!(web["group_id"], Value::Null);
    assert_eq!(web["description"], Value::Null);
}

#[test]
fn incidents_carry_statuspages_values_and_heralds_extras() {
    let incidents = doc(&fixture::page(), "api/v2/incidents.json")["incidents"].clone();
    let open = find(&incidents, OPEN_ID);
    assert_eq!(open["status"], "identified");
    assert_eq!(open["impact"], "critical");
    assert_eq!(open["shortlink"], open["url"]);
    assert_eq!(open["started_at"], "2026-03-14T10:00:00.000Z");
    assert_eq!(open["resolved_at"], Value::Null);
    assert_eq!(open["next_update_by"], "2026-03-14T11:30:00.000Z");
    assert_eq!(open["reference"], "INC-2026-0002");
    assert_eq!(open["kind"], "incident");
    assert_eq!(open["user_impact"], "API calls fail with 502");
    assert_eq!(open["postmortem"], Value::Null);
    assert_eq!(open["components"][0]["id"], API_ID);
    assert_eq!(open["components"][0]["status"], "major_outage");
    let resolved = find(&incidents, RESOLVED_ID);
    assert_eq!(resolved["status"], "postmortem");
    assert_eq!(resolved["impact"], "minor");
    assert_eq!(resolved["next_update_by"], Value::Null);
    assert_eq!(resolved["resolved_at"], "2026-03-11T08:47:00.000Z");
    assert_eq!(
        resolved["postmortem"]["scope_figures"][0]["value"],
        "47 minutes"
    );
    assert_eq!(
        resolved["postmortem"]["timeline"][0]["at"],
        "2026-03-11T08:00:00.000Z"
    );
    assert_eq!(
        resolved["postmortem"]["follow_ups"][0]["state"],
        "in_progress"
    );
}

#[test]
fn updates_are_newest_first_with_their_component_changes() {
    let incidents = doc(&fixture::page(), "api/v2/incidents.json")["incidents"].clone();
    let updates = &find(&incidents, OPEN_ID)["incident_updates"];
    assert_eq!(updates[0]["id"], "u-open-2");
    assert_eq!(updates[0]["status"], "identified");
    assert_eq!(updates[0]["incident_id"], OPEN_ID);
    assert_eq!(updates[0]["display_at"], updates[0]["created_at"]);
    assert_eq!(updates[0]["next_update_by"], "2026-03-14T11:30:00.000Z");
    // The newest was posted silently, the first told subscribers.
    assert_eq!(updates[0]["deliver_notifications"], false);
    assert_eq!(updates[1]["deliver_notifications"], true);
    assert_eq!(updates[0]["custom_tweet"], Value::Null);
    assert_eq!(
        updates[0]["affected_components"],
        serde_json::json!([{
            "code": API_ID, "name": "Europe - API",
            "old_status": "partial_outage", "new_status": "major_outage"
        }])
    );
    assert_eq!(updates[1]["id"], "u-open-1");
    assert_eq!(updates[1]["body"], "We see **errors** on the API.");
    assert!(
        updates[1]["body_html"]
            .as_str()
            .expect("html")
            .contains("<strong>errors</strong>")
    );
    let resolved = &find(&incidents, RESOLVED_ID)["incident_updates"];
    assert_eq!(
        resolved[1]["affected_components"],
        Value::Null,
        "no change is null"
    );
}

#[test]
fn maintenances_use_statuspages_maintenance_values() {
    let value = doc(&fixture::page(), "api/v2/scheduled-maintenances.json");
    let list = &value["scheduled_maintenances"];
    let upcoming = find(list, UPCOMING_ID);
    assert_eq!(upcoming["status"], "scheduled");
    assert_eq!(upcoming["impact"], "maintenance");
    assert_eq!(upcoming["kind"], "maintenance");
    assert_eq!(upcoming["scheduled_for"], "2026-03-20T02:00:00.000Z");
    assert_eq!(upcoming["scheduled_until"], "2026-03-20T04:00:00.000Z");
    let active = find(list, ACTIVE_ID);
    assert_eq!(active["status"], "in_progress");
    assert_eq!(
        active["incident_updates"][0]["affected_components"][0]["new_status"],
        "under_maintenance"
    );
}

/// Every string under a time-like key.
fn times(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let timely = key.ends_with("_at") || key.starts_with("scheduled_") || key == "at";
                match v {
                    Value::String(s) if timely => out.push(s.clone()),
                    _ => times(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| times(v, out)),
        _ => {}
    }
}

#[test]
fn every_time_is_utc_iso_8601_with_milliseconds() {
    let summary = doc(&fixture::page(), "api/v2/summary.json");
    let all = doc(&fixture::page(), "api/v2/incidents.json");
    let mut found = Vec::new();
    times(&summary, &mut found);
    times(&all, &mut found);
    assert!(found.len() > 30, "{found:?}");
    for t in found {
        let parsed = chrono::DateTime::parse_from_rfc3339(&t).expect("RFC 3339");
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[19] == b'.', "{t}");
        assert_eq!(parsed.offset().local_minus_utc(), 0);
    }
}

#[test]
fn page_updated_at_is_the_latest_change_not_the_read_time() {
    let data = fixture::page();
    let page = &doc(&data, "api/v2/status.json")["page"];
    assert_eq!(page["updated_at"], "2026-03-14T11:00:00.000Z");
}

#[test]
fn output_depends_only_on_the_data() {
    let data = fixture::page();
    let first = documents(&data, Lang::En).expect("renders");
    let mut later = data.clone();
    later.as_of += chrono::Duration::hours(5);
    later.stale_since = Some(later.as_of);
    assert_eq!(first, documents(&later, Lang::En).expect("renders"));
    assert_eq!(first, documents(&data, Lang::En).expect("renders"));
}

#[test]
fn user_text_is_held_literally_in_json() {
    let data = fixture::hostile();
    let value = doc(&data, "api/v2/summary.json");
    let evil = "<script>alert(1)</script>";
    assert_eq!(value["page"]["name"], "<script>");
    assert_eq!(value["incidents"][0]["name"], evil);
    assert_eq!(
        value["incidents"][0]["incident_updates"][0]["body"],
        format!("{evil} & more")
    );
    let html = value["incidents"][0]["incident_updates"][0]["body_html"]
        .as_str()
        .expect("html");
    assert!(!html.contains("<script"), "{html}");
    assert_eq!(find(&value["components"], API_ID)["name"], evil);
}

#[test]
fn list_endpoints_keep_fifty_closed_records_and_every_open_one() {
    let mut data = fixture::page();
    let resolved = data.incidents[1].clone();
    let open = data.incidents[0].clone();
    data.incidents = (0..60)
        .map(|n| {
            let mut i = resolved.clone();
            i.id = format!("closed-{n}");
            i
        })
        .collect();
    let mut old_open = open;
    old_open.id = "old-open".into();
    data.incidents.push(old_open);
    let value = doc(&data, "api/v2/incidents.json");
    let list = value["incidents"].as_array().expect("a list");
    assert_eq!(list.len(), LIST_LIMIT + 1);
    assert_eq!(list[LIST_LIMIT]["id"], "old-open");
    assert_eq!(
        list[LIST_LIMIT]["status"],
        LifecycleStatus::Incident(IncidentStatus::Identified).as_str()
    );
}
