//! The frozen key sets: every object of the v2 API has exactly Statuspage's keys, in
//! Statuspage's order, followed by Herald's extras. A change here is a compatibility change.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{doc, find, rendered};
use crate::services::public::fixtures::records::{
    self as fixture, ACTIVE_ID, API_ID, GROUP_ID, OPEN_ID, RESOLVED_ID, UPCOMING_ID, WEB_ID,
};

// Statuspage's keys, in Statuspage's order (from its published responses); then Herald's extras.
const PAGE_KEYS: &[&str] = &["id", "name", "url", "time_zone", "updated_at"];
const STATUS_KEYS: &[&str] = &["indicator", "description"];
const COMPONENT_KEYS: &[&str] = &[
    "id",
    "name",
    "status",
    "created_at",
    "updated_at",
    "position",
    "description",
    "showcase",
    "start_date",
    "group_id",
    "page_id",
    "group",
    "only_show_if_degraded",
];
const GROUP_EXTRA_STANDARD_KEYS: &[&str] = &["components"];
const COMPONENT_HERALD_KEYS: &[&str] = &["region"];
const INCIDENT_KEYS: &[&str] = &[
    "id",
    "name",
    "status",
    "created_at",
    "updated_at",
    "monitoring_at",
    "resolved_at",
    "impact",
    "shortlink",
    "started_at",
    "page_id",
    "incident_updates",
    "components",
];
const MAINTENANCE_EXTRA_STANDARD_KEYS: &[&str] = &["scheduled_for", "scheduled_until"];
const INCIDENT_HERALD_KEYS: &[&str] = &[
    "reference",
    "kind",
    "identified_at",
    "next_update_by",
    "user_impact",
    "scope",
    "root_cause",
    "url",
    "postmortem",
];
const UPDATE_KEYS: &[&str] = &[
    "id",
    "status",
    "body",
    "incident_id",
    "created_at",
    "updated_at",
    "display_at",
    "affected_components",
    "deliver_notifications",
    "custom_tweet",
    "tweet_id",
];
const UPDATE_HERALD_KEYS: &[&str] = &["next_update_by", "body_html"];
const AFFECTED_KEYS: &[&str] = &["code", "name", "old_status", "new_status"];
const POSTMORTEM_KEYS: &[&str] = &[
    "published_at",
    "summary",
    "summary_html",
    "root_cause",
    "root_cause_html",
    "scope_figures",
    "timeline",
    "follow_ups",
];

/// Every document's top-level keys.
const DOCUMENTS: &[(&str, &[&str])] = &[
    (
        "api/v2/summary.json",
        &[
            "page",
            "components",
            "incidents",
            "scheduled_maintenances",
            "status",
        ],
    ),
    ("api/v2/status.json", &["page", "status"]),
    ("api/v2/components.json", &["page", "components"]),
    ("api/v2/incidents.json", &["page", "incidents"]),
    ("api/v2/incidents/unresolved.json", &["page", "incidents"]),
    (
        "api/v2/scheduled-maintenances.json",
        &["page", "scheduled_maintenances"],
    ),
    (
        "api/v2/scheduled-maintenances/upcoming.json",
        &["page", "scheduled_maintenances"],
    ),
    (
        "api/v2/scheduled-maintenances/active.json",
        &["page", "scheduled_maintenances"],
    ),
];

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

fn set(parts: &[&[&'static str]]) -> BTreeSet<&'static str> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

#[test]
fn every_endpoint_is_rendered_as_json_with_cors() {
    let out = rendered(&fixture::page());
    let mut expected: Vec<&str> = DOCUMENTS.iter().map(|(key, _)| *key).collect();
    let mut actual: Vec<&str> = out.keys().map(String::as_str).collect();
    expected.sort_unstable();
    actual.sort_unstable();
    assert_eq!(actual, expected);
    for rep in out.values() {
        assert_eq!(rep.content_type, "application/json");
        assert!(rep.cors);
    }
}

#[test]
fn documents_have_exactly_statuspages_top_level_keys() {
    let data = fixture::page();
    for (key, expected) in DOCUMENTS {
        let value = doc(&data, key);
        assert_eq!(keys(&value), set(&[expected]), "{key}");
        assert_eq!(keys(&value["page"]), set(&[PAGE_KEYS]), "{key} page");
    }
    assert_eq!(
        keys(&doc(&data, "api/v2/status.json")["status"]),
        set(&[STATUS_KEYS])
    );
}

#[test]
fn components_and_groups_have_the_frozen_key_sets() {
    let value = doc(&fixture::page(), "api/v2/components.json");
    let components = &value["components"];
    let component = set(&[COMPONENT_KEYS, COMPONENT_HERALD_KEYS]);
    assert_eq!(keys(find(components, API_ID)), component);
    assert_eq!(keys(find(components, WEB_ID)), component);
    let group = set(&[
        COMPONENT_KEYS,
        GROUP_EXTRA_STANDARD_KEYS,
        COMPONENT_HERALD_KEYS,
    ]);
    assert_eq!(keys(find(components, GROUP_ID)), group);
}

#[test]
fn incidents_updates_and_changes_have_the_frozen_key_sets() {
    let value = doc(&fixture::page(), "api/v2/incidents.json");
    let incidents = &value["incidents"];
    for id in [OPEN_ID, RESOLVED_ID] {
        let incident = find(incidents, id);
        assert_eq!(
            keys(incident),
            set(&[INCIDENT_KEYS, INCIDENT_HERALD_KEYS]),
            "{id}"
        );
        for update in incident["incident_updates"].as_array().expect("updates") {
            assert_eq!(keys(update), set(&[UPDATE_KEYS, UPDATE_HERALD_KEYS]));
        }
        for component in incident["components"].as_array().expect("components") {
            assert_eq!(
                keys(component),
                set(&[COMPONENT_KEYS, COMPONENT_HERALD_KEYS])
            );
        }
    }
    let change = &find(incidents, OPEN_ID)["incident_updates"][0]["affected_components"][0];
    assert_eq!(keys(change), set(&[AFFECTED_KEYS]));
    let postmortem = &find(incidents, RESOLVED_ID)["postmortem"];
    assert_eq!(keys(postmortem), set(&[POSTMORTEM_KEYS]));
}

#[test]
fn scheduled_maintenances_have_the_frozen_key_set() {
    let value = doc(&fixture::page(), "api/v2/scheduled-maintenances.json");
    let expected = set(&[
        INCIDENT_KEYS,
        MAINTENANCE_EXTRA_STANDARD_KEYS,
        INCIDENT_HERALD_KEYS,
    ]);
    for id in [UPCOMING_ID, ACTIVE_ID] {
        assert_eq!(
            keys(find(&value["scheduled_maintenances"], id)),
            expected,
            "{id}"
        );
    }
}

/// The keys of a JSON object, in the order they are written.
struct KeysInOrder(Vec<String>);

impl<'de> serde::Deserialize<'de> for KeysInOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = KeysInOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<KeysInOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(KeysInOrder(keys))
            }
        }
        d.deserialize_map(Visitor)
    }
}

fn keys_in_order(object: &impl serde::Serialize) -> Vec<String> {
    let text = serde_json::to_string(object).expect("serializes");
    serde_json::from_str::<KeysInOrder>(&text)
        .expect("an object")
        .0
}

fn concat(parts: &[&[&str]]) -> Vec<String> {
    parts
        .iter()
        .flat_map(|p| p.iter().map(|k| (*k).to_owned()))
        .collect()
}

#[test]
fn standard_keys_come_first_in_statuspages_order_then_heralds_extras() {
    use crate::render::api_v2::incident::{Incident, Update};
    use crate::render::api_v2::model::{Component, Page, Status};
    let data = fixture::page();
    assert_eq!(keys_in_order(&Page::new(&data)), concat(&[PAGE_KEYS]));
    assert_eq!(
        keys_in_order(&Status::new(&data, crate::domain::lang::Lang::En)),
        concat(&[STATUS_KEYS])
    );
    let component = Component::of_component(&data, &data.components[0]);
    assert_eq!(
        keys_in_order(&component),
        concat(&[COMPONENT_KEYS, COMPONENT_HERALD_KEYS])
    );
    let group = Component::of_group(&data, &data.groups[0]);
    let group_keys = concat(&[
        COMPONENT_KEYS,
        GROUP_EXTRA_STANDARD_KEYS,
        COMPONENT_HERALD_KEYS,
    ]);
    assert_eq!(keys_in_order(&group), group_keys);
    let incident = Incident::new(&data, &data.incidents[0]);
    assert_eq!(
        keys_in_order(&incident),
        concat(&[INCIDENT_KEYS, INCIDENT_HERALD_KEYS])
    );
    let maintenance = Incident::new(&data, &data.maintenances[0]);
    let maintenance_keys = concat(&[
        INCIDENT_KEYS,
        MAINTENANCE_EXTRA_STANDARD_KEYS,
        INCIDENT_HERALD_KEYS,
    ]);
    assert_eq!(keys_in_order(&maintenance), maintenance_keys);
    let update = Update::new(&data, &data.incidents[0], &data.incidents[0].updates[0]);
    assert_eq!(
        keys_in_order(&update),
        concat(&[UPDATE_KEYS, UPDATE_HERALD_KEYS])
    );
}
