//! Alerts in: integrations made through the API, and the payloads Prometheus Alertmanager and
//! Grafana send (fixtures in `tests/fixtures/alerts`, as their documentation gives them)
//! setting component statuses that `summary.json` then shows.

use herald::domain::Role;
use serde_json::{Value, json};

use herald::workers::runner::Registry;

use crate::helpers::{Console, TestApp, TestDb};
use crate::notify::sinks::Receiver;

on_both_backends!(
    alertmanager_alerts_set_a_status_a_repeat_changes_nothing_and_a_resolve_restores_it,
    a_grouped_notification_sets_each_component_to_its_worst_alert,
    a_responder_s_status_is_kept_across_a_resolve,
    the_default_hold_keeps_an_alert_s_status_and_a_short_one_lets_it_go_later,
    a_bad_token_gets_401_and_changes_nothing,
    a_malformed_body_gets_422_with_the_field_named,
    grafana_and_generic_bodies_set_statuses_too,
    integrations_are_owners_and_their_settings_are_checked,
    a_major_outage_opens_or_proposes_the_template_s_incident,
    the_console_adds_integrations_shows_what_alerts_set_and_publishes_proposals,
    subscribers_hear_of_statuses_alerts_set_only_when_the_owner_says_so,
);

/// A notification as the tool sends it, from `tests/fixtures/alerts`.
fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/alerts/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// An integration of `kind` on `acme` with `settings`; answers its endpoint and token.
async fn integration(app: &TestApp, owner: &str, kind: &str, settings: Value) -> (String, String) {
    let mut body = json!({"kind": kind, "name": "Prometheus prod"});
    body.as_object_mut()
        .unwrap()
        .extend(settings.as_object().unwrap().clone());
    let (status, made) = app.api(owner).post("/pages/acme/integrations", body).await;
    assert_eq!(status, 201, "{made}");
    let endpoint = made["endpoint"].as_str().unwrap();
    let endpoint = endpoint.strip_prefix("/api/v1").unwrap().to_owned();
    (endpoint, made["token"].as_str().unwrap().to_owned())
}

/// The status `summary.json` shows for the component named `name`.
async fn shown(app: &TestApp, name: &str) -> String {
    app.refreshed().await;
    let summary: Value = app
        .get("/status/acme/api/v2/summary.json")
        .await
        .json()
        .await
        .unwrap();
    let component = summary["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no component {name} in {summary}"));
    component["status"].as_str().unwrap().to_owned()
}

/// The audit log of `acme`, newest first.
async fn audit(app: &TestApp, owner: &str) -> Vec<Value> {
    let (status, log) = app.api(owner).get("/audit?page=acme&limit=100").await;
    assert_eq!(status, 200, "{log}");
    log.as_array().unwrap().clone()
}

async fn alertmanager_alerts_set_a_status_a_repeat_changes_nothing_and_a_resolve_restores_it(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    let (endpoint, token) =
        integration(&app, &owner, "alertmanager", json!({"hold_seconds": 0})).await;
    assert_eq!(shown(&app, "Public API").await, "operational");

    let (status, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_firing"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["changed"][0]["to"], "major_outage", "{outcome}");
    assert_eq!(outcome["changed"][0]["alert"], "HighErrorRate");
    assert_eq!(shown(&app, "Public API").await, "major_outage");
    let logged = audit(&app, &owner).await.len();

    // Alertmanager repeats a firing alert every repeat_interval: nothing changes, nothing logged.
    let (status, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_duplicate"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(
        (
            outcome["unchanged"].as_u64(),
            outcome["changed"].as_array().map(Vec::len)
        ),
        (Some(1), Some(0))
    );
    assert_eq!(audit(&app, &owner).await.len(), logged);

    let (status, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_resolved"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["changed"][0]["to"], "operational", "{outcome}");
    assert_eq!(shown(&app, "Public API").await, "operational");

    // Everything the integration did is in the audit log, with the integration as the actor.
    let log = audit(&app, &owner).await;
    let by_alert: Vec<&Value> = log
        .iter()
        .filter(|e| e["action"] == "component.status_by_alert")
        .collect();
    assert_eq!(by_alert.len(), 2, "{log:?}");
    assert!(
        by_alert
            .iter()
            .all(|e| e["actor_email"] == "integration:Prometheus prod"),
        "{by_alert:?}"
    );
    assert_eq!(by_alert[0]["changes"]["status"], "operational");
}

async fn a_grouped_notification_sets_each_component_to_its_worst_alert(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.page("acme")
        .with_components(&["Public API", "Dashboard", "Billing"])
        .create()
        .await;
    let owner = app.token(Role::Owner).await;
    let (endpoint, token) = integration(&app, &owner, "alertmanager", json!({})).await;
    let (status, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_grouped"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["received"], 3);
    assert_eq!(
        shown(&app, "Public API").await,
        "major_outage",
        "critical beats warning"
    );
    assert_eq!(shown(&app, "Dashboard").await, "partial_outage");
    assert_eq!(shown(&app, "Billing").await, "operational");
}

async fn a_responder_s_status_is_kept_across_a_resolve(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.acme().await;
    let owner = app.token(Role::Owner).await;
    let responder = app.token(Role::Responder).await;
    let (endpoint, token) =
        integration(&app, &owner, "alertmanager", json!({"hold_seconds": 0})).await;
    app.api(&token)
        .post(&endpoint, fixture("alertmanager_firing"))
        .await;
    assert_eq!(shown(&app, "Public API").await, "major_outage");
    let path = format!("/pages/acme/components/{}", page.components[0]);
    let (status, body) = app
        .api(&responder)
        .patch(&path, json!({"status": "partial_outage"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_resolved"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["changed"], json!([]), "{outcome}");
    assert_eq!(outcome["kept"][0]["status"], "partial_outage", "{outcome}");
    assert!(
        outcome["kept"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("responder")
    );
    assert_eq!(shown(&app, "Public API").await, "partial_outage");
}

async fn the_default_hold_keeps_an_alert_s_status_and_a_short_one_lets_it_go_later(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    // At the defaults, a status an alert set holds five minutes: a resolve at once is held.
    let (endpoint, token) = integration(&app, &owner, "alertmanager", json!({})).await;
    let (_, made) = app.api(&owner).get("/pages/acme/integrations").await;
    assert_eq!(made[0]["hold_seconds"], 300);
    let (_, fired) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_firing"))
        .await;
    assert_eq!(fired["changed"][0]["to"], "major_outage", "{fired}");
    let (status, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_resolved"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["changed"], json!([]), "{outcome}");
    let until = chrono::DateTime::parse_from_rfc3339(outcome["held"][0]["until"].as_str().unwrap())
        .unwrap();
    let ahead = until
        .signed_duration_since(chrono::Utc::now())
        .num_seconds();
    assert!((290..=300).contains(&ahead), "held {ahead} s");
    assert_eq!(shown(&app, "Public API").await, "major_outage");

    // With a one-second hold the settle job restores it once the second has passed.
    let path = endpoint.trim_end_matches("/alertmanager");
    let (status, body) = app
        .api(&owner)
        .patch(path, json!({"hold_seconds": 1}))
        .await;
    assert_eq!(status, 200, "{body}");
    let mut firing = fixture("alertmanager_firing");
    firing["alerts"][0]["startsAt"] = json!("2026-12-02T09:30:00Z");
    let (_, fired) = app.api(&token).post(&endpoint, firing.clone()).await;
    assert_eq!(
        fired["changed"],
        json!([]),
        "still major: nothing to change {fired}"
    );
    let mut resolved = firing;
    resolved["status"] = json!("resolved");
    resolved["alerts"][0]["status"] = json!("resolved");
    let (_, outcome) = app.api(&token).post(&endpoint, resolved).await;
    assert!(
        outcome["held"].as_array().unwrap().len() + outcome["changed"].as_array().unwrap().len()
            == 1,
        "{outcome}"
    );
    app.wait_for_text(
        "/status/acme/api/v2/summary.json",
        "\"status\":\"operational\"",
    )
    .await;
    assert_eq!(shown(&app, "Public API").await, "operational");
}

async fn a_bad_token_gets_401_and_changes_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    app.page("other")
        .with_components(&["Public API"])
        .create()
        .await;
    let owner = app.token(Role::Owner).await;
    let (endpoint, token) = integration(&app, &owner, "alertmanager", json!({})).await;
    let (status, other) = app
        .api(&owner)
        .post(
            "/pages/other/integrations",
            json!({"kind": "alertmanager", "name": "Other"}),
        )
        .await;
    assert_eq!(status, 201, "{other}");
    let other_token = other["token"].as_str().unwrap();
    let id = endpoint.split('/').nth(4).unwrap().to_owned();
    let firing = fixture("alertmanager_firing");
    let cases = [
        ("no token", endpoint.clone(), String::new()),
        ("a wrong token", endpoint.clone(), format!("{token}x")),
        (
            "another page's integration's token",
            endpoint.clone(),
            other_token.to_owned(),
        ),
        ("the owner's API token", endpoint.clone(), owner.clone()),
        (
            "the right token on the wrong kind's endpoint",
            endpoint.replace("/alertmanager", "/grafana"),
            token.clone(),
        ),
        (
            "the right token under another page's slug",
            endpoint.replace("/pages/acme/", "/pages/other/"),
            token.clone(),
        ),
    ];
    for (what, path, bearer) in cases {
        let (status, body) = app.api(&bearer).post(&path, firing.clone()).await;
        assert_eq!(status, 401, "{what}: {body}");
    }
    assert_eq!(shown(&app, "Public API").await, "operational");

    // A tool that cannot send headers puts the token in the URL.
    let (status, body) = app
        .api("")
        .post(&format!("{endpoint}?token={token}"), firing.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(shown(&app, "Public API").await, "major_outage");

    // A new token revokes the old one; deleting the integration revokes its token.
    let (status, rotated) = app
        .api(&owner)
        .post(&format!("/pages/acme/integrations/{id}/token"), json!({}))
        .await;
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["token"].as_str().unwrap();
    assert_ne!(new, token);
    let (status, _) = app.api(&token).post(&endpoint, firing.clone()).await;
    assert_eq!(status, 401);
    let (status, _) = app.api(new).post(&endpoint, firing.clone()).await;
    assert_eq!(status, 200);
    let (status, _) = app
        .api(&owner)
        .delete(&format!("/pages/acme/integrations/{id}"))
        .await;
    assert_eq!(status, 200);
    let (status, _) = app.api(new).post(&endpoint, firing).await;
    assert_eq!(status, 401);
    // No token is ever written to the audit log.
    let log = serde_json::to_string(&audit(&app, &owner).await).unwrap();
    assert!(!log.contains(&token) && !log.contains(new), "{log}");
}

async fn a_malformed_body_gets_422_with_the_field_named(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    let (endpoint, token) = integration(&app, &owner, "alertmanager", json!({})).await;
    let mut bad_time = fixture("alertmanager_firing");
    bad_time["alerts"][0]["startsAt"] = json!("soon");
    let mut no_status = fixture("alertmanager_firing");
    no_status["alerts"][0]
        .as_object_mut()
        .unwrap()
        .remove("status");
    let mut version = fixture("alertmanager_firing");
    version["version"] = json!("3");
    let cases = [
        (bad_time, "alerts[0].startsAt"),
        (no_status, "alerts[0].status"),
        (version, "version"),
        (json!({"status": "firing"}), "alerts"),
        (json!([1, 2]), "body"),
    ];
    for (body, field) in cases {
        let (status, answer) = app.api(&token).post(&endpoint, body).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer["fields"][field].is_array(), "{field}: {answer}");
    }
    let (generic, token) = integration(&app, &owner, "generic", json!({})).await;
    for (body, field) in [
        (
            json!({"component": "Public API", "status": "melting"}),
            "status",
        ),
        (json!({"status": "major_outage"}), "component"),
        (
            json!({"component": "Public API", "status": "major_outage", "colour": "red"}),
            "colour",
        ),
    ] {
        let (status, answer) = app.api(&token).post(&generic, body).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer["fields"][field].is_array(), "{field}: {answer}");
    }
    assert_eq!(shown(&app, "Public API").await, "operational");
}

async fn grafana_and_generic_bodies_set_statuses_too(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.page("acme")
        .with_components(&["Public API", "Dashboard"])
        .create()
        .await;
    let owner = app.token(Role::Owner).await;
    let (grafana, token) = integration(&app, &owner, "grafana", json!({"hold_seconds": 0})).await;
    let (status, outcome) = app
        .api(&token)
        .post(&grafana, fixture("grafana_firing"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(shown(&app, "Dashboard").await, "partial_outage");
    let (status, outcome) = app
        .api(&token)
        .post(&grafana, fixture("grafana_resolved"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(shown(&app, "Dashboard").await, "operational");

    let (generic, token) = integration(&app, &owner, "generic", json!({"hold_seconds": 0})).await;
    let slow =
        json!({"component": "public api", "status": "degraded_performance", "summary": "p99 up"});
    let (status, outcome) = app.api(&token).post(&generic, slow).await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(shown(&app, "Public API").await, "degraded_performance");
    let (status, outcome) = app
        .api(&token)
        .post(
            &generic,
            json!({"component": "Billing", "status": "major_outage"}),
        )
        .await;
    assert_eq!(
        status, 200,
        "an unknown component is reported, not retried: {outcome}"
    );
    assert!(
        outcome["ignored"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("Billing")
    );
    let ok = json!({"component": "Public API", "status": "operational"});
    app.api(&token).post(&generic, ok).await;
    assert_eq!(shown(&app, "Public API").await, "operational");
    // A keyed alert that moves to another component leaves the one it named.
    let disk = json!({"component": "Public API", "status": "major_outage", "key": "disk"});
    app.api(&token).post(&generic, disk).await;
    assert_eq!(shown(&app, "Public API").await, "major_outage");
    let moved = json!({"component": "Dashboard", "status": "major_outage", "key": "disk"});
    let (status, outcome) = app.api(&token).post(&generic, moved).await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(shown(&app, "Public API").await, "operational", "{outcome}");
    assert_eq!(shown(&app, "Dashboard").await, "major_outage");
}

async fn integrations_are_owners_and_their_settings_are_checked(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.acme().await;
    let owner = app.token(Role::Owner).await;
    let responder = app.token(Role::Responder).await;
    let body = json!({"kind": "alertmanager", "name": "Prometheus"});
    let (status, _) = app
        .api(&responder)
        .post("/pages/acme/integrations", body)
        .await;
    assert_eq!(status, 403);
    for (body, field) in [
        (json!({"kind": "nagios", "name": "x"}), "kind"),
        (json!({"kind": "generic", "name": " "}), "name"),
        (
            json!({"kind": "generic", "name": "x", "component_label": "my-label"}),
            "component_label",
        ),
        (
            json!({"kind": "generic", "name": "x", "components": {"api": "nope"}}),
            "components",
        ),
        (
            json!({"kind": "generic", "name": "x", "severities": {"page": "under_maintenance"}}),
            "severities",
        ),
        (
            json!({"kind": "generic", "name": "x", "hold_seconds": -1}),
            "hold_seconds",
        ),
        (
            json!({"kind": "generic", "name": "x", "incident_mode": "draft"}),
            "template_id",
        ),
        (
            json!({"kind": "generic", "name": "x", "template_id": "nope"}),
            "template_id",
        ),
        (
            json!({"kind": "generic", "name": "x", "colour": "red"}),
            "colour",
        ),
    ] {
        let (status, answer) = app.api(&owner).post("/pages/acme/integrations", body).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer["fields"][field].is_array(), "{field}: {answer}");
    }
    let (_, list) = app.api(&owner).get("/pages/acme/integrations").await;
    assert_eq!(list, json!([]), "nothing made by a refused request");

    let body = json!({
        "kind": "alertmanager", "name": "Prometheus",
        "component_label": "service",
        "components": {"api-prod": page.components[0]},
        "severities": {"page": "major_outage", "ticket": "degraded_performance"},
    });
    let (status, made) = app.api(&owner).post("/pages/acme/integrations", body).await;
    assert_eq!(status, 201, "{made}");
    let (_, list) = app.api(&responder).get("/pages/acme/integrations").await;
    assert_eq!(list[0]["severities"]["ticket"], "degraded_performance");
    assert!(
        list[0].get("token").is_none(),
        "a token is shown once: {list}"
    );
    let token = made["token"].as_str().unwrap();
    let endpoint = made["endpoint"]
        .as_str()
        .unwrap()
        .strip_prefix("/api/v1")
        .unwrap();
    let mut firing = fixture("alertmanager_firing");
    firing["alerts"][0]["labels"] =
        json!({"alertname": "Slow", "service": "api-prod", "severity": "ticket"});
    let (status, outcome) = app.api(token).post(endpoint, firing).await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(shown(&app, "Public API").await, "degraded_performance");
    let (_, list) = app.api(&owner).get("/pages/acme/integrations").await;
    assert!(list[0]["last_used_at"].is_string(), "{list}");
}

async fn a_major_outage_opens_or_proposes_the_template_s_incident(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.page("acme")
        .with_components(&["Public API", "Dashboard"])
        .create()
        .await;
    let owner = app.token(Role::Owner).await;
    let responder = app.token(Role::Responder).await;
    let template = json!({"name": "API down", "title": "The API is unavailable", "body": "We are investigating.", "impact": "critical"});
    let (status, template) = app
        .api(&owner)
        .post("/pages/acme/templates", template)
        .await;
    assert_eq!(status, 201, "{template}");
    let settings =
        json!({"hold_seconds": 0, "template_id": template["id"], "incident_mode": "draft"});
    let (endpoint, token) = integration(&app, &owner, "alertmanager", settings).await;
    let (_, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("alertmanager_firing"))
        .await;
    assert_eq!(outcome["drafts"].as_array().unwrap().len(), 1, "{outcome}");
    let (_, drafts) = app.api(&responder).get("/pages/acme/incident-drafts").await;
    assert_eq!(drafts[0]["alert"], "HighErrorRate", "{drafts}");
    let (_, open) = app
        .api(&responder)
        .get("/pages/acme/incidents?status=open")
        .await;
    assert_eq!(
        open.as_array().map(Vec::len),
        Some(0),
        "a draft is not published: {open}"
    );
    let id = drafts[0]["id"].as_str().unwrap();
    let (status, posted) = app
        .api(&responder)
        .post(
            &format!("/pages/acme/incident-drafts/{id}/publish"),
            json!({}),
        )
        .await;
    assert_eq!(status, 201, "{posted}");
    assert_eq!(posted["name"], "The API is unavailable", "{posted}");
    assert!(
        posted["next_update_by"].is_string(),
        "the usual deadline: {posted}"
    );
    let (_, drafts) = app.api(&responder).get("/pages/acme/incident-drafts").await;
    assert_eq!(drafts, json!([]));
    app.wait_for_text(
        "/status/acme/api/v2/incidents/unresolved.json",
        "The API is unavailable",
    )
    .await;

    // Published at once: the Grafana alert on the Dashboard opens its incident.
    let template = json!({"name": "Dash down", "title": "The dashboard is unavailable", "body": "Looking.", "impact": "major"});
    let (_, template) = app
        .api(&owner)
        .post("/pages/acme/templates", template)
        .await;
    let settings = json!({"hold_seconds": 0, "template_id": template["id"], "incident_mode": "publish", "severities": {"warning": "major_outage"}});
    let (endpoint, token) = integration(&app, &owner, "grafana", settings).await;
    let (_, outcome) = app
        .api(&token)
        .post(&endpoint, fixture("grafana_firing"))
        .await;
    assert_eq!(
        outcome["incidents"].as_array().unwrap().len(),
        1,
        "{outcome}"
    );
    app.wait_for_text(
        "/status/acme/api/v2/incidents/unresolved.json",
        "The dashboard is unavailable",
    )
    .await;
    // A repeat opens nothing more.
    let mut again = fixture("grafana_firing");
    again["alerts"][0]["startsAt"] = json!("2026-12-02T09:40:00Z");
    let (_, outcome) = app.api(&token).post(&endpoint, again).await;
    assert_eq!(outcome["incidents"], json!([]), "{outcome}");
}

async fn the_console_adds_integrations_shows_what_alerts_set_and_publishes_proposals(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = Console::sign_in(&app, "console-owner@example.com", Role::Owner).await;
    let api_owner = app.token(Role::Owner).await;
    let template =
        json!({"name": "API down", "title": "The API is unavailable", "body": "Looking."});
    let (_, template) = app
        .api(&api_owner)
        .post("/pages/acme/templates", template)
        .await;
    let page = "/admin/pages/acme/integrations";
    let csrf = owner.csrf.clone();
    let template_id = template["id"].as_str().unwrap();
    // A refused form keeps what was typed and names the field.
    let refused = [
        ("csrf_token", csrf.as_str()),
        ("kind", "alertmanager"),
        ("name", "Prometheus"),
        ("hold_seconds", "soon"),
    ];
    let (status, _, body) = owner.post(page, &refused).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("is not a whole number") && body.contains("value=\"Prometheus\""),
        "{body}"
    );
    let form = [
        ("csrf_token", csrf.as_str()),
        ("kind", "alertmanager"),
        ("name", "Prometheus"),
        ("hold_seconds", "0"),
        ("template_id", template_id),
        ("incident_mode", "draft"),
    ];
    let (status, _, body) = owner.post(page, &form).await;
    assert_eq!(status, 200, "{body}");
    let token = body
        .split("data-secret class=\"console-secret\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .expect("the token is shown once")
        .to_owned();
    let endpoint = body
        .split("<code>")
        .filter_map(|c| c.split('<').next())
        .find(|c| c.ends_with("/alertmanager"))
        .expect("the endpoint is shown")
        .to_owned();
    let path = endpoint.split("/api/v1").nth(1).unwrap();
    let (_, listed) = owner.get(page).await;
    assert!(!listed.contains(&token), "shown once only");

    let (status, outcome) = app
        .api(&token)
        .post(path, fixture("alertmanager_firing"))
        .await;
    assert_eq!(status, 200, "{outcome}");
    let (_, dashboard) = owner.get("/admin").await;
    assert!(
        dashboard.contains("1 incident proposed by alerts"),
        "{dashboard}"
    );
    let (_, listed) = owner.get(page).await;
    assert!(
        listed.contains("HighErrorRate") && listed.contains("Major Outage"),
        "{listed}"
    );
    let publish = listed
        .match_indices("/admin/pages/acme/incident-drafts/")
        .map(|(i, _)| listed[i..].split('"').next().unwrap().to_owned())
        .find(|p| p.ends_with("/publish"))
        .expect("a publish button");
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let fields = [("csrf_token", viewer.csrf.as_str())];
    assert_eq!(viewer.post(&publish, &fields).await.0, 403);
    let (status, location, body) = owner.post(&publish, &[("csrf_token", csrf.as_str())]).await;
    assert_eq!(status, 303, "{body}");
    assert!(location.starts_with("/admin/incidents/"), "{location}");
    app.wait_for_text(
        "/status/acme/api/v2/incidents/unresolved.json",
        "The API is unavailable",
    )
    .await;
}

async fn subscribers_hear_of_statuses_alerts_set_only_when_the_owner_says_so(db: TestDb) {
    let extra = [("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
    let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    let receiver = Receiver::start();
    app.subscriber("acme")
        .webhook(&receiver.url("/hook"))
        .with(json!({"contact_email": "ops@example.com", "component_updates": true}))
        .add(&owner)
        .await;
    let (endpoint, token) = integration(&app, &owner, "generic", json!({"hold_seconds": 0})).await;
    let down = json!({"component": "Public API", "status": "major_outage"});
    let (status, outcome) = app.api(&token).post(&endpoint, down).await;
    assert_eq!(status, 200, "{outcome}");
    app.deliver_pending().await;
    assert_eq!(receiver.count(), 0, "not told by default");
    let id = endpoint.split('/').nth(4).unwrap();
    let (status, _) = app
        .api(&owner)
        .patch(
            &format!("/pages/acme/integrations/{id}"),
            json!({"notify_subscribers": true}),
        )
        .await;
    assert_eq!(status, 200);
    let up = json!({"component": "Public API", "status": "operational"});
    app.api(&token).post(&endpoint, up).await;
    app.deliver_pending().await;
    assert_eq!(receiver.count(), 1, "told once the owner turned it on");
}
