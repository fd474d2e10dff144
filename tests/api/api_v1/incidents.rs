//! An incident's life through the API, seen on the public API at each step; templates;
//! maintenances; overdue lists; postmortems.

use serde_json::{Value, json};

use super::Api;
use crate::helpers::TestDb;

const SUMMARY: &str = "/status/acme/api/v2/summary.json";

on_both_backends!(
    an_incident_lives_from_investigating_to_resolved_and_the_public_api_follows,
    a_template_prefills_an_incident_and_explicit_fields_win,
    maintenances_are_scheduled_and_listed_apart,
    a_resolved_incident_gets_a_published_postmortem,
    an_ended_incident_shows_the_statuses_it_set_not_todays,
);

async fn public_summary(api: &Api, needle: &str) -> Value {
    serde_json::from_str(&api.app.wait_for_text(SUMMARY, needle).await).unwrap()
}

fn component_status(summary: &Value, id: &str) -> String {
    let components = summary["components"].as_array().unwrap();
    let c = components
        .iter()
        .find(|c| c["id"] == id)
        .expect("component in summary");
    c["status"].as_str().unwrap().to_owned()
}

async fn an_incident_lives_from_investigating_to_resolved_and_the_public_api_follows(db: TestDb) {
    let api = Api::spawn(db).await;
    let (api_id, web_id) = (api.components[0].clone(), api.components[1].clone());
    let body = json!({
        "name": "Database down", "body": "We are investigating.", "status": "investigating",
        "components": {api_id.clone(): "major_outage", web_id.clone(): "degraded_performance"},
    });
    let (status, incident) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", body)
        .await;
    assert_eq!(status, 201, "{incident}");
    assert!(incident["reference"].as_str().unwrap().starts_with("INC-"));
    let id = incident["id"].as_str().unwrap().to_owned();
    let summary = public_summary(&api, "Database down").await;
    assert_eq!(summary["incidents"][0]["status"], "investigating");
    assert_eq!(component_status(&summary, &api_id), "major_outage");
    let updates = format!("/pages/acme/incidents/{id}/updates");
    for step in ["identified", "monitoring"] {
        let body = json!({"status": step, "body": format!("Now {step}.")});
        let (status, posted) = api.app.api(&api.responder).post(&updates, body).await;
        assert_eq!(status, 201, "{posted}");
        assert_eq!(posted["status"], step);
        let summary = public_summary(&api, &format!("Now {step}.")).await;
        assert_eq!(summary["incidents"][0]["status"], step);
    }
    let body = json!({"status": "resolved", "body": "Fixed."});
    let (status, posted) = api.app.api(&api.responder).post(&updates, body).await;
    assert_eq!(status, 201, "{posted}");
    let text = api.app.wait_for_text_gone(SUMMARY, "Database down").await;
    let summary: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(component_status(&summary, &api_id), "operational");
    assert_eq!(component_status(&summary, &web_id), "operational");
    let (_, detail) = api
        .app
        .api(&api.viewer)
        .get(&format!("/pages/acme/incidents/{id}"))
        .await;
    assert_eq!(detail["status"], "resolved");
    assert_eq!(detail["incident_updates"].as_array().unwrap().len(), 4);
    let reference = incident["reference"].as_str().unwrap();
    let (status, _) = api
        .app
        .api(&api.viewer)
        .get(&format!("/pages/acme/incidents/{reference}"))
        .await;
    assert_eq!(status, 200, "incidents are found by reference too");
}

async fn a_template_prefills_an_incident_and_explicit_fields_win(db: TestDb) {
    let api = Api::spawn(db).await;
    let template = json!({
        "name": "db", "title": "Database unavailable", "impact": "major",
        "body": "We are looking into database errors.",
        "components": {api.components[0].clone(): "major_outage"},
    });
    let (status, t) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/templates", template)
        .await;
    assert_eq!(status, 201, "{t}");
    let tid = t["id"].as_str().unwrap();
    let body = json!({"template_id": tid, "body": "Our own words."});
    let (status, incident) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", body)
        .await;
    assert_eq!(status, 201, "{incident}");
    assert_eq!(incident["name"], "Database unavailable");
    assert_eq!(incident["impact"], "major");
    assert_eq!(incident["incident_update"]["body"], "Our own words.");
    assert_eq!(
        incident["incident_update"]["affected_components"][0]["new_status"],
        "major_outage"
    );
    let (status, body) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", json!({"template_id": "nope"}))
        .await;
    assert_eq!(
        status, 404,
        "a template that is not the page's is not found: {body}"
    );
    assert_eq!(body["message"], "template nope (template_id) not found");
    let (_, list) = api.app.api(&api.viewer).get("/pages/acme/templates").await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let (status, _) = api
        .app
        .api(&api.responder)
        .delete(&format!("/pages/acme/templates/{tid}"))
        .await;
    assert_eq!(status, 200);
    let (status, _) = api
        .app
        .api(&api.viewer)
        .get(&format!("/pages/acme/templates/{tid}"))
        .await;
    assert_eq!(status, 404);
}

async fn maintenances_are_scheduled_and_listed_apart(db: TestDb) {
    let api = Api::spawn(db).await;
    let start = chrono::Utc::now() + chrono::Duration::days(1);
    let body = json!({
        "name": "Database upgrade", "body": "Planned work.",
        "scheduled_for": start.to_rfc3339(),
        "scheduled_until": (start + chrono::Duration::hours(2)).to_rfc3339(),
        "components": {api.components[0].clone(): "under_maintenance"},
    });
    let (status, m) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/maintenances", body)
        .await;
    assert_eq!(status, 201, "{m}");
    assert_eq!(
        (m["kind"].as_str(), m["status"].as_str()),
        (Some("maintenance"), Some("scheduled"))
    );
    let (_, list) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/maintenances")
        .await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let path = format!("/pages/acme/maintenances/{}", m["id"].as_str().unwrap());
    let (status, changed) = api
        .app
        .api(&api.responder)
        .patch(&path, json!({"auto_transition": true}))
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["auto_transition"], true);
    let body = json!({"name": "Outage", "body": "Investigating."});
    let (_, incident) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", body)
        .await;
    let path = format!(
        "/pages/acme/maintenances/{}",
        incident["id"].as_str().unwrap()
    );
    let (status, _) = api
        .app
        .api(&api.responder)
        .patch(&path, json!({"name": "X"}))
        .await;
    assert_eq!(status, 404, "an incident is not a maintenance");
    let (_, overdue) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/incidents?overdue=true")
        .await;
    assert_eq!(overdue.as_array().unwrap().len(), 0);
    let (status, _) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/incidents?status=sideways")
        .await;
    assert_eq!(status, 422);
}

async fn a_resolved_incident_gets_a_published_postmortem(db: TestDb) {
    let api = Api::spawn(db).await;
    let body = json!({"name": "Outage", "body": "Investigating."});
    let (_, incident) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", body)
        .await;
    let base = format!("/pages/acme/incidents/{}", incident["id"].as_str().unwrap());
    let draft = json!({"summary": "What happened.", "root_cause": "A bad deploy."});
    let (status, _) = api
        .app
        .api(&api.responder)
        .put(&format!("{base}/postmortem"), draft.clone())
        .await;
    assert_eq!(status, 409, "open incidents get no postmortem yet");
    let resolve = json!({"status": "resolved", "body": "Fixed."});
    api.app
        .api(&api.responder)
        .post(&format!("{base}/updates"), resolve)
        .await;
    let (status, pm) = api
        .app
        .api(&api.responder)
        .put(&format!("{base}/postmortem"), draft)
        .await;
    assert_eq!(status, 200, "{pm}");
    let (status, pm) = api
        .app
        .api(&api.responder)
        .send("POST", &format!("{base}/postmortem/publish"), None)
        .await;
    assert_eq!(status, 200, "{pm}");
    assert_eq!(pm["published"], true);
}

on_both_backends!(overdue_lists_only_open_incidents_past_their_promised_update);

async fn overdue_lists_only_open_incidents_past_their_promised_update(db: TestDb) {
    use diesel::prelude::*;
    use herald::db::schema::incidents;
    let api = Api::spawn(db).await;
    let mut ids = Vec::new();
    for name in ["Late", "On time"] {
        let body = json!({"name": name, "body": "Investigating."});
        let (_, incident) = api
            .app
            .api(&api.responder)
            .post("/pages/acme/incidents", body)
            .await;
        ids.push(incident["id"].as_str().unwrap().to_owned());
    }
    let late = ids[0].clone();
    api.app
        .db
        .run(move |c| {
            let past = herald::db::now() - chrono::Duration::minutes(5);
            diesel::update(incidents::table.find(late))
                .set(incidents::next_update_by.eq(Some(past)))
                .execute(c)?;
            Ok(())
        })
        .await
        .unwrap();
    let (status, overdue) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/incidents?overdue=true")
        .await;
    assert_eq!(status, 200, "{overdue}");
    let names: Vec<&str> = overdue
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Late"]);
    let path = "/pages/acme/incidents?due_within=1440";
    let (status, soon) = api.app.api(&api.viewer).get(path).await;
    assert_eq!(status, 200, "{soon}");
    let names: Vec<&str> = soon
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["On time"], "not yet overdue, due within a day");
    let (status, _) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/incidents?due_within=0")
        .await;
    assert_eq!(status, 422);
    let (status, p) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/punctuality")
        .await;
    assert_eq!(status, 200, "{p}");
    assert!(p["last_30_days"].is_object(), "{p}");
    let (_, open) = api
        .app
        .api(&api.viewer)
        .get("/pages/acme/incidents?status=open")
        .await;
    assert_eq!(open.as_array().unwrap().len(), 2);
}

async fn an_ended_incident_shows_the_statuses_it_set_not_todays(db: TestDb) {
    let api = Api::spawn(db).await;
    let (api_id, web_id) = (api.components[0].clone(), api.components[1].clone());
    let open = |name: &str, components: Value| json!({"name": name, "body": "Looking.", "components": components});
    let (status, last_week) = api
        .app
        .api(&api.responder)
        .post(
            "/pages/acme/incidents",
            open("Old outage", json!({api_id.clone(): "major_outage"})),
        )
        .await;
    assert_eq!(status, 201, "{last_week}");
    let old = last_week["id"].as_str().unwrap().to_owned();
    let body = json!({"status": "resolved", "body": "Fixed.",
                      "components": {api_id.clone(): "operational"}});
    let updates = format!("/pages/acme/incidents/{old}/updates");
    let (status, posted) = api.app.api(&api.responder).post(&updates, body).await;
    assert_eq!(status, 201, "{posted}");
    // Today another incident takes the same component down, and one more.
    let (status, today) = api
        .app
        .api(&api.responder)
        .post(
            "/pages/acme/incidents",
            open(
                "New outage",
                json!({api_id.clone(): "partial_outage", web_id.clone(): "degraded_performance"}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{today}");
    let new = today["id"].as_str().unwrap().to_owned();
    let summary = public_summary(&api, "New outage").await;
    assert_eq!(component_status(&summary, &api_id), "partial_outage");

    // The old incident's page lists the API as the incident left it: operational.
    let html = api
        .app
        .get(&format!("/status/acme/incidents/{old}"))
        .await
        .text()
        .await
        .unwrap();
    let affected = |html: &str| -> String {
        let from = html.find("id=\"h-affected\"").expect("an affected section");
        let to = from + html[from..].find("</section>").unwrap();
        html[from..to].to_owned()
    };
    let section = affected(&html);
    assert!(section.contains("API"), "{section}");
    assert!(section.contains("Operational"), "{section}");
    assert!(!section.contains("Partial Outage"), "{section}");
    // The open one shows what it set.
    let html = api
        .app
        .get(&format!("/status/acme/incidents/{new}"))
        .await
        .text()
        .await
        .unwrap();
    let section = affected(&html);
    assert!(section.contains("Partial Outage"), "{section}");
    assert!(section.contains("Degraded Performance"), "{section}");

    // So does the v2 JSON's incident object.
    let text = api
        .app
        .get("/status/acme/api/v2/incidents.json")
        .await
        .text()
        .await
        .unwrap();
    let incidents: Value = serde_json::from_str(&text).unwrap();
    let status_in = |incident: &str, component: &str| -> Value {
        let i = incidents["incidents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == incident)
            .unwrap_or_else(|| panic!("{incident} in {incidents}"));
        let c = i["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == component)
            .unwrap_or_else(|| panic!("{component} in {i}"));
        c["status"].clone()
    };
    assert_eq!(status_in(&old, &api_id), "operational");
    assert_eq!(status_in(&new, &api_id), "partial_outage");
    assert_eq!(status_in(&new, &web_id), "degraded_performance");
}
