//! Bad bodies: 422 with a message per field, malformed JSON 400, and idempotent retries.

use serde_json::{Value, json};

use super::Api;
use crate::helpers::TestDb;

on_both_backends!(
    bad_bodies_answer_422_naming_each_field,
    malformed_json_is_a_400_in_the_api_error_shape,
    a_retried_post_with_the_same_idempotency_key_creates_one_incident,
    names_with_a_line_break_are_refused_and_nothing_is_written,
    a_field_the_route_does_not_take_is_refused_by_name_and_nothing_changes,
    a_wrong_method_is_a_405_that_says_what_the_path_takes,
    every_refusal_is_herald_s_json_error,
    a_taken_slug_is_a_409_conflict_naming_the_field_and_nothing_is_written,
    each_route_opens_its_own_kinds_and_a_status_is_named_exactly,
    a_time_out_of_reach_is_refused_on_its_field_and_nothing_is_written,
);

/// A maintenance window a month from now, as the API takes it.
fn window_ahead() -> (String, String) {
    let from = chrono::Utc::now() + chrono::Duration::days(30);
    (
        from.to_rfc3339(),
        (from + chrono::Duration::hours(1)).to_rfc3339(),
    )
}

fn fields(body: &Value) -> Vec<String> {
    body["fields"]
        .as_object()
        .map(|f| f.keys().cloned().collect())
        .unwrap_or_default()
}

async fn names_with_a_line_break_are_refused_and_nothing_is_written(db: TestDb) {
    let api = Api::spawn(db).await;
    let (soon, later) = window_ahead();
    let forged = "Upgrade\r\nBEGIN:VEVENT";
    let writes = [
        ("POST", "/pages", json!({"slug": "beta", "name": forged})),
        ("PATCH", "/pages/acme", json!({"name": forged})),
        ("POST", "/pages/acme/components", json!({"name": forged})),
        (
            "POST",
            "/pages/acme/incidents",
            json!({"name": forged, "body": "Y"}),
        ),
        (
            "POST",
            "/pages/acme/maintenances",
            json!({"name": "Line\nbreak", "body": "Y",
                   "scheduled_for": soon, "scheduled_until": later}),
        ),
    ];
    for (method, path, body) in writes {
        let (status, answer) = api.app.api(&api.owner).send(method, path, Some(body)).await;
        assert_eq!(status, 422, "{method} {path}: {answer}");
        assert_eq!(
            answer["fields"]["name"][0], "must be a single line (no line breaks)",
            "{method} {path}: {answer}"
        );
    }
    let (_, pages) = api.app.api(&api.owner).get("/pages").await;
    let names: Vec<&str> = pages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(!names.iter().any(|n| n.contains('\n')), "{pages}");
    assert_eq!(names.len(), 1, "no page was created: {pages}");
}

async fn bad_bodies_answer_422_naming_each_field(db: TestDb) {
    let api = Api::spawn(db).await;
    let token = api.responder.clone();
    let post = |body: Value| {
        let token = token.clone();
        let api = &api;
        async move {
            api.app
                .api(&token)
                .post("/pages/acme/incidents", body)
                .await
        }
    };
    let (status, body) = post(json!({"body": "No name."})).await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["name".to_owned()]),
        "{body}"
    );
    let (status, body) = post(json!({"name": "X", "body": "Y", "status": "exploding"})).await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["status".to_owned()]),
        "{body}"
    );
    let past = json!({"name": "X", "body": "Y", "next_update_by": "2020-01-01T00:00:00Z"});
    let (status, body) = post(past).await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["next_update_by".to_owned()]),
        "{body}"
    );
    let (_, beta) = api
        .app
        .api(&api.owner)
        .post("/pages", json!({"slug": "beta", "name": "Beta"}))
        .await;
    assert!(beta["id"].is_string());
    let (_, foreign) = api
        .app
        .api(&api.owner)
        .post("/pages/beta/components", json!({"name": "DB"}))
        .await;
    let foreign_id = foreign["id"].as_str().unwrap();
    let mut components = serde_json::Map::new();
    components.insert(foreign_id.to_owned(), json!("major_outage"));
    let (status, body) = post(json!({"name": "X", "body": "Y", "components": components})).await;
    assert_eq!(status, 422);
    assert_eq!(fields(&body), vec![format!("components.{foreign_id}")]);
    let bad_status = json!({"name": "X", "body": "Y", "components": {"c": "on_fire"}});
    let (status, body) = post(bad_status).await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["components".to_owned()]),
        "{body}"
    );
    let (status, body) = api
        .app
        .api(&api.owner)
        .post("/pages/acme/components", json!({"name": " "}))
        .await;
    assert_eq!(
        (status, fields(&body)),
        (422, vec!["name".to_owned()]),
        "{body}"
    );
    let (_, list) = api.app.api(&api.viewer).get("/pages/acme/incidents").await;
    assert_eq!(list.as_array().unwrap().len(), 0, "nothing was written");
}

async fn malformed_json_is_a_400_in_the_api_error_shape(db: TestDb) {
    let api = Api::spawn(db).await;
    let res = api
        .app
        .client
        .post(format!("{}/api/v1/pages/acme/incidents", api.app.address))
        .bearer_auth(&api.responder)
        .header("Content-Type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "bad_request");
    assert!(
        body["message"].as_str().unwrap().contains("not valid JSON"),
        "{body}"
    );
}

async fn a_retried_post_with_the_same_idempotency_key_creates_one_incident(db: TestDb) {
    let api = Api::spawn(db).await;
    let body = json!({"name": "Outage", "body": "Investigating."});
    let key = [("Idempotency-Key", "retry-1")];
    let path = "/pages/acme/incidents";
    let (first_status, first) = api
        .app
        .api(&api.responder)
        .with_headers(&key)
        .post(path, body.clone())
        .await;
    let (again_status, again) = api
        .app
        .api(&api.responder)
        .with_headers(&key)
        .post(path, body)
        .await;
    assert_eq!((first_status, again_status), (201, 201));
    assert_eq!(first, again, "the retry answers the first answer");
    let (_, list) = api.app.api(&api.viewer).get(path).await;
    assert_eq!(list.as_array().unwrap().len(), 1, "one incident");
    let other = json!({"name": "Another", "body": "Different."});
    let (status, body) = api
        .app
        .api(&api.responder)
        .with_headers(&key)
        .post(path, other.clone())
        .await;
    assert_eq!(status, 422);
    assert!(body["fields"]["idempotency_key"].is_array(), "{body}");
    let (status, _) = api
        .app
        .api(&api.owner)
        .with_headers(&key)
        .post(path, other)
        .await;
    assert_eq!(status, 201, "keys are per user");
}

on_both_backends!(oversized_bodies_are_refused_and_answers_are_compressed_on_request);

async fn oversized_bodies_are_refused_and_answers_are_compressed_on_request(db: TestDb) {
    let api = Api::spawn(db).await;
    let huge = json!({"name": "Big", "body": "x".repeat(300 * 1024)});
    let (status, body) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", huge)
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("larger than"),
        "{body}"
    );
    let res = api
        .app
        .client
        .get(format!("{}/api/v1/openapi.json", api.app.address))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers().get("content-encoding").unwrap(), "gzip");
}

async fn a_field_the_route_does_not_take_is_refused_by_name_and_nothing_changes(db: TestDb) {
    let api = Api::spawn(db).await;
    let component = format!("/pages/acme/components/{}", api.components[0]);
    let refused = [
        (
            "PATCH",
            "/pages/acme".to_owned(),
            json!({"visiblity": "private"}),
            "visiblity",
        ),
        (
            "PATCH",
            "/pages/acme".to_owned(),
            json!({"name": "Renamed", "brand_colour": "#0b5fff"}),
            "brand_colour",
        ),
        (
            "PATCH",
            component.clone(),
            json!({"name": "API 2", "stauts": "major_outage"}),
            "stauts",
        ),
        (
            "POST",
            "/pages/acme/incidents".to_owned(),
            json!({"name": "Down", "body": "Down.", "impcat": "major"}),
            "impcat",
        ),
    ];
    for (method, path, body, field) in refused {
        let (status, answer) = api
            .app
            .api(&api.owner)
            .send(method, &path, Some(body))
            .await;
        assert_eq!(status, 422, "{method} {path}: {answer}");
        assert_eq!(fields(&answer), [field], "{answer}");
        assert!(
            answer["fields"][field][0]
                .as_str()
                .unwrap()
                .contains("not a field"),
            "{answer}"
        );
    }
    // Nothing was written: the page keeps its name, the component its name, no incident opened.
    let (_, page) = api.app.api(&api.viewer).get("/pages/acme").await;
    assert_eq!(page["name"], "Acme", "{page}");
    let (_, listed) = api.app.api(&api.viewer).get("/pages/acme/components").await;
    assert!(
        listed.to_string().contains(r#""name":"API""#) && !listed.to_string().contains("API 2"),
        "{listed}"
    );
    let (_, incidents) = api.app.api(&api.viewer).get("/pages/acme/incidents").await;
    assert_eq!(incidents.as_array().map(Vec::len), Some(0), "{incidents}");
    // Fields read by different parts of one route are all known.
    let (status, answer) = api
        .app
        .api(&api.owner)
        .patch(
            &component,
            json!({"name": "API", "status": "degraded_performance"}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
}

async fn a_wrong_method_is_a_405_that_says_what_the_path_takes(db: TestDb) {
    let api = Api::spawn(db).await;
    let send = |method: &'static str, path: &str| {
        api.app
            .client
            .request(
                method.parse().unwrap(),
                format!("{}/api/v1{path}", api.app.address),
            )
            .bearer_auth(&api.owner)
            .send()
    };
    for (method, path, allow) in [
        ("TRACE", "/pages", "POST, GET"),
        ("PUT", "/pages/acme", "GET, PATCH, DELETE"),
        ("DELETE", "/pages/acme/incidents/abc", "GET, PATCH"),
        ("POST", "/me", "GET"),
    ] {
        let res = send(method, path).await.unwrap();
        assert_eq!(res.status(), 405, "{method} {path}");
        assert_eq!(res.headers()["allow"], allow, "{method} {path}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], "method_not_allowed", "{body}");
    }
    let res = send("GET", "/pages/acme/nothing").await.unwrap();
    assert_eq!(res.status(), 404, "a path no route has is still not found");
}

async fn every_refusal_is_herald_s_json_error(db: TestDb) {
    let api = Api::spawn(db).await;
    let url = |path: &str| format!("{}/api/v1{path}", api.app.address);
    // A body without a content type.
    let res = api
        .app
        .client
        .post(url("/pages/acme/incidents"))
        .bearer_auth(&api.owner)
        .body(r#"{"name": "Down", "body": "Down."}"#)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.expect("a JSON error");
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("JSON"), "{body}");
    // The same on the token routes, which are registered outside the API's scope.
    let res = api
        .app
        .client
        .post(url("/tokens"))
        .bearer_auth(&api.owner)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.expect("a JSON error from the token route");
    assert_eq!(body["error"], "bad_request", "{body}");
    // A path a route names literally is not an id of the pattern beside it.
    let res = api
        .app
        .client
        .request(
            reqwest::Method::OPTIONS,
            url("/pages/acme/subscribers/export"),
        )
        .bearer_auth(&api.owner)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    assert_eq!(res.headers()["allow"], "GET");
    // A query value out of range.
    let res = api
        .app
        .client
        .get(url("/pages/acme/incidents?offset=99999999999999999999999"))
        .bearer_auth(&api.owner)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let body: Value = res.json().await.expect("a JSON error");
    assert_eq!(fields(&body), ["offset"], "{body}");
    // Statuspage's name and Herald's for one switch, sent together and agreeing.
    let (status, body) = api
        .app
        .api(&api.owner)
        .post(
            "/pages/acme/incidents",
            json!({"name": "Down", "body": "Down.", "notify": false,
                        "deliver_notifications": false}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body["incident_update"]["deliver_notifications"], false,
        "{body}"
    );
    // ... and disagreeing: refused by name, not as a "duplicate field".
    let (status, body) = api
        .app
        .api(&api.owner)
        .post(
            "/pages/acme/incidents",
            json!({"name": "Down", "body": "Down.", "notify": false,
                        "deliver_notifications": true}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(fields(&body), ["deliver_notifications"], "{body}");
}

async fn a_taken_slug_is_a_409_conflict_naming_the_field_and_nothing_is_written(db: TestDb) {
    let api = Api::spawn(db).await;
    let (status, answer) = api
        .app
        .api(&api.owner)
        .post("/pages", json!({"slug": "acme", "name": "Another Acme"}))
        .await;
    assert_eq!(
        (status, &answer["error"]),
        (409, &json!("conflict")),
        "{answer}"
    );
    assert!(
        answer["fields"]["slug"][0]
            .as_str()
            .is_some_and(|m| m.contains("already used by another page")),
        "{answer}"
    );
    let (_, pages) = api.app.api(&api.owner).get("/pages").await;
    assert_eq!(pages.as_array().map(Vec::len), Some(1), "{pages}");
}

async fn each_route_opens_its_own_kinds_and_a_status_is_named_exactly(db: TestDb) {
    let api = Api::spawn(db).await;
    let client = api.app.api(&api.responder);
    let (soon, later) = window_ahead();
    let window = json!({"scheduled_for": soon, "scheduled_until": later});
    let mut maintenance = json!({"name": "Upgrade", "body": "Upgrading.", "kind": "maintenance"});
    maintenance
        .as_object_mut()
        .unwrap()
        .extend(window.as_object().unwrap().clone());
    let refused = [
        ("/pages/acme/incidents", maintenance.clone(), "kind"),
        (
            "/pages/acme/maintenances",
            json!({"name": "Upgrade", "body": "Upgrading.", "kind": "incident",
                   "scheduled_for": soon, "scheduled_until": later}),
            "kind",
        ),
        (
            "/pages/acme/incidents",
            json!({"name": "Slow", "body": "Looking.", "status": ""}),
            "status",
        ),
        (
            "/pages/acme/incidents",
            json!({"name": "Slow", "body": "Looking.", "status": " identified"}),
            "status",
        ),
    ];
    for (path, body, field) in refused {
        let (status, answer) = client.post(path, body.clone()).await;
        assert_eq!(status, 422, "{path} {body}: {answer}");
        assert_eq!(fields(&answer), [field], "{path} {body}: {answer}");
    }
    let (_, listed) = client.get("/pages/acme/incidents").await;
    assert_eq!(listed, json!([]), "nothing was opened");
    // The same maintenance through its own route, with kind or without it, is scheduled.
    let (status, answer) = client.post("/pages/acme/maintenances", maintenance).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["kind"], "maintenance");
    let (status, answer) = client.post("/pages/acme/maintenances", window).await;
    assert_eq!(
        status, 422,
        "a maintenance still needs its name and body: {answer}"
    );
    let named = json!({"name": "Slow", "body": "Looking.", "status": "identified"});
    let (status, answer) = client.post("/pages/acme/incidents", named).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["status"], "identified");
}

/// A year typed as 0226 for 2026 (or a window ending in 5329) would make the page's history
/// reach back centuries: such a time is refused on its field, on opening and on a change.
async fn a_time_out_of_reach_is_refused_on_its_field_and_nothing_is_written(db: TestDb) {
    let api = Api::spawn(db).await;
    let client = api.app.api(&api.responder);
    let (soon, later) = window_ahead();
    let refused = [
        (
            "/pages/acme/incidents",
            json!({"name": "Slow", "body": "Looking.", "started_at": "0226-12-02T08:00:00Z"}),
            "started_at",
        ),
        (
            "/pages/acme/maintenances",
            json!({"name": "Upgrade", "body": "Upgrading.",
                   "scheduled_for": "0147-11-11T10:30:05Z", "scheduled_until": later}),
            "scheduled_for",
        ),
        (
            "/pages/acme/maintenances",
            json!({"name": "Upgrade", "body": "Upgrading.",
                   "scheduled_for": soon, "scheduled_until": "5329-06-30T04:50:18Z"}),
            "scheduled_until",
        ),
    ];
    for (path, body, field) in refused {
        let (status, answer) = client.post(path, body.clone()).await;
        assert_eq!(status, 422, "{path} {body}: {answer}");
        assert_eq!(fields(&answer), [field], "{path} {body}: {answer}");
        let message = answer["fields"][field][0].as_str().unwrap_or_default();
        assert!(message.starts_with("must fall between "), "{answer}");
    }
    let (_, listed) = client.get("/pages/acme/incidents").await;
    assert_eq!(listed, json!([]), "nothing was opened");

    // Nine years back is within reach (an incident entered late).
    let nine_years = (chrono::Utc::now() - chrono::Duration::days(9 * 365)).to_rfc3339();
    let (status, old) = client
        .post(
            "/pages/acme/incidents",
            json!({"name": "Old", "body": "Entered late.", "started_at": nine_years}),
        )
        .await;
    assert_eq!(status, 201, "{old}");

    let (status, planned) = client
        .post(
            "/pages/acme/maintenances",
            json!({"name": "Upgrade", "body": "Upgrading.",
                   "scheduled_for": soon, "scheduled_until": later}),
        )
        .await;
    assert_eq!(status, 201, "{planned}");
    let path = format!(
        "/pages/acme/maintenances/{}",
        planned["id"].as_str().unwrap()
    );
    let (status, answer) = client
        .patch(&path, json!({"scheduled_for": "0147-11-11T10:30:05Z"}))
        .await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(fields(&answer), ["scheduled_for"], "{answer}");
    let read = format!("/pages/acme/incidents/{}", planned["id"].as_str().unwrap());
    let (_, stored) = client.get(&read).await;
    assert_eq!(
        stored["scheduled_for"], planned["scheduled_for"],
        "unchanged"
    );
}
