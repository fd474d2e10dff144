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
    let (status, _) = api.app.api("").get("/pages/acme/incidents").await;
    assert_eq!(status, 401, "no token");
    let (status, _) = api.app.api("not.a.jwt").get("/pages/acme/incidents").await;
    assert_eq!(status, 401, "garbage token");
    let (status, _) = api.app.api(&api.viewer).get("/pages/acme/incidents").await;
    assert_eq!(status, 200, "viewers read");
    let (status, body) = api
        .app
        .api(&api.viewer)
        .post("/pages/acme/incidents", incident.clone())
        .await;
    assert_eq!(status, 403, "viewers cannot write: {body}");
    assert_eq!(body["error"], "forbidden");
    let (status, _) = api
        .app
        .api(&api.responder)
        .post("/pages/acme/incidents", incident)
        .await;
    assert_eq!(status, 201, "responders open incidents");
    let page = json!({"slug": "other", "name": "Other"});
    let (status, _) = api
        .app
        .api(&api.responder)
        .post("/pages", page.clone())
        .await;
    assert_eq!(status, 403, "only owners create pages");
    let (status, _) = api
        .app
        .api(&api.responder)
        .patch("/pages/acme", json!({"name": "X"}))
        .await;
    assert_eq!(status, 403, "only owners change page settings");
    let (status, _) = api.app.api(&api.owner).post("/pages", page).await;
    assert_eq!(status, 201);
    let (status, _) = api.app.api(&api.responder).get("/audit").await;
    assert_eq!(status, 403, "only owners read the audit log");
    let (status, _) = api.app.api(&api.owner).get("/audit").await;
    assert_eq!(status, 200);
}

async fn records_of_another_page_and_unknown_slugs_are_not_found(db: TestDb) {
    let api = Api::spawn(db).await;
    let (status, _) = api
        .app
        .api(&api.owner)
        .post("/pages", json!({"slug": "beta", "name": "Beta"}))
        .await;
    assert_eq!(status, 201);
    let path = format!("/pages/beta/components/{}", api.components[0]);
    let (status, body) = api
        .app
        .api(&api.owner)
        .patch(&path, json!({"name": "Hijack"}))
        .await;
    assert_eq!(status, 404, "{body}");
    let body = json!({"name": "Down", "body": "Down."});
    let (_, incident) = api
        .app
        .api(&api.owner)
        .post("/pages/acme/incidents", body)
        .await;
    let path = format!("/pages/beta/incidents/{}", incident["id"].as_str().unwrap());
    let (status, _) = api.app.api(&api.owner).get(&path).await;
    assert_eq!(status, 404);
    let (status, body) = api.app.api(&api.owner).get("/pages/nope/incidents").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"], "not_found");
}

async fn every_documented_route_is_served(db: TestDb) {
    let api = Api::spawn(db).await;
    let (status, doc) = api.app.api("").get("/openapi.json").await;
    assert_eq!(status, 200);
    for (path, item) in doc["paths"].as_object().unwrap() {
        let path = path
            .strip_prefix("/api/v1")
            .unwrap()
            .replace("{slug}", "acme")
            .replace("{id}", "x");
        for method in item.as_object().unwrap().keys() {
            let (status, body) = api
                .app
                .api("")
                .send(&method.to_uppercase(), &path, Some(json!({})))
                .await;
            let expected = if path == "/openapi.json" { 200 } else { 401 };
            assert_eq!(status, expected, "{method} {path}: {body}");
        }
    }
}
