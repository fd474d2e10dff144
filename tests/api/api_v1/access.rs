//! Roles: viewers read, responders write, owners manage pages; no token is 401; every route of
//! the OpenAPI document is registered.

use serde_json::json;

use super::Api;
use crate::helpers::TestDb;

on_both_backends!(
    each_role_is_allowed_and_refused_where_it_should_be,
    records_of_another_page_and_unknown_slugs_are_not_found,
    every_documented_route_is_served,
);

async fn each_role_is_allowed_and_refused_where_it_should_be(db: TestDb) {
    let api = Api::spawn(db).await;
    let incident = json!({"name": "Slow API", "body": "Looking into it."});
    let (status, _) = api.send("GET", "/pages/acme/incidents", "", None).await;
    assert_eq!(status, 401, "no token");
    let (status, _) = api
        .send("GET", "/pages/acme/incidents", "not.a.jwt", None)
        .await;
    assert_eq!(status, 401, "garbage token");
    let (status, _) = api
        .send("GET", "/pages/acme/incidents", &api.viewer, None)
        .await;
    assert_eq!(status, 200, "viewers read");
    let (status, body) = api
        .send(
            "POST",
            "/pages/acme/incidents",
            &api.viewer,
            Some(incident.clone()),
        )
        .await;
    assert_eq!(status, 403, "viewers cannot write: {body}");
    assert_eq!(body["error"], "forbidden");
    let (status, _) = api
        .send(
            "POST",
            "/pages/acme/incidents",
            &api.responder,
            Some(incident),
        )
        .await;
    assert_eq!(status, 201, "responders open incidents");
    let page = json!({"slug": "other", "name": "Other"});
    let (status, _) = api
        .send("POST", "/pages", &api.responder, Some(page.clone()))
        .await;
    assert_eq!(status, 403, "only owners create pages");
    let (status, _) = api
        .send(
            "PATCH",
            "/pages/acme",
            &api.responder,
            Some(json!({"name": "X"})),
        )
        .await;
    assert_eq!(status, 403, "only owners change page settings");
    let (status, _) = api.send("POST", "/pages", &api.owner, Some(page)).await;
    assert_eq!(status, 201);
    let (status, _) = api.send("GET", "/audit", &api.responder, None).await;
    assert_eq!(status, 403, "only owners read the audit log");
    let (status, _) = api.send("GET", "/audit", &api.owner, None).await;
    assert_eq!(status, 200);
}

async fn records_of_another_page_and_unknown_slugs_are_not_found(db: TestDb) {
    let api = Api::spawn(db).await;
    let (status, _) = api
        .send(
            "POST",
            "/pages",
            &api.owner,
            Some(json!({"slug": "beta", "name": "Beta"})),
        )
        .await;
    assert_eq!(status, 201);
    let path = format!("/pages/beta/components/{}", api.components[0]);
    let (status, body) = api
        .send("PATCH", &path, &api.owner, Some(json!({"name": "Hijack"})))
        .await;
    assert_eq!(status, 404, "{body}");
    let body = json!({"name": "Down", "body": "Down."});
    let (_, incident) = api
        .send("POST", "/pages/acme/incidents", &api.owner, Some(body))
        .await;
    let path = format!("/pages/beta/incidents/{}", incident["id"].as_str().unwrap());
    let (status, _) = api.send("GET", &path, &api.owner, None).await;
    assert_eq!(status, 404);
    let (status, body) = api
        .send("GET", "/pages/nope/incidents", &api.owner, None)
        .await;
    assert_eq!(status, 404);
    assert_eq!(body["error"], "not_found");
}

async fn every_documented_route_is_served(db: TestDb) {
    let api = Api::spawn(db).await;
    let (status, doc) = api.send("GET", "/openapi.json", "", None).await;
    assert_eq!(status, 200);
    for (path, item) in doc["paths"].as_object().unwrap() {
        let path = path
            .strip_prefix("/api/v1")
            .unwrap()
            .replace("{slug}", "acme")
            .replace("{id}", "x");
        for method in item.as_object().unwrap().keys() {
            let (status, body) = api
                .send(&method.to_uppercase(), &path, "", Some(json!({})))
                .await;
            let expected = if path == "/openapi.json" { 200 } else { 401 };
            assert_eq!(status, expected, "{method} {path}: {body}");
        }
    }
}
