//! Every write through the API leaves an audit row that owners can read and filter.

use serde_json::json;

use super::Api;
use crate::helpers::TestDb;

on_both_backends!(writes_are_audited_with_actor_action_and_changed_fields);

async fn writes_are_audited_with_actor_action_and_changed_fields(db: TestDb) {
    let api = Api::spawn(db).await;
    let body = json!({"name": "Outage", "body": "Investigating.", "impact": "minor"});
    let (_, incident) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", body)
        .await;
    let (status, log) = api.app.api(&api.owner).get("/audit?page=acme").await;
    assert_eq!(status, 200, "{log}");
    let newest = &log[0];
    assert_eq!(newest["action"], "incident.create");
    assert_eq!(newest["actor_email"], "responder@example.com");
    assert_eq!(newest["entity_id"], incident["id"]);
    assert_eq!(newest["changes"]["impact"], "minor");
    let actions: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "incident.create",
            "component.create",
            "component.create",
            "page.create"
        ]
    );
    let (_, mine) = api
        .app
        .api(&api.owner)
        .get("/audit?actor=owner@example.com&limit=2")
        .await;
    assert_eq!(mine.as_array().unwrap().len(), 2);
    assert!(
        mine.as_array()
            .unwrap()
            .iter()
            .all(|e| e["actor_email"] == "owner@example.com")
    );
    let (status, _) = api.app.api(&api.owner).get("/audit?limit=0").await;
    assert_eq!(status, 422);
}
