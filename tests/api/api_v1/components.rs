//! Components, groups and pages: changing and deleting them, each within its page.

use serde_json::json;

use super::Api;
use crate::helpers::TestDb;

on_both_backends!(
    components_and_groups_are_changed_and_deleted_within_their_page,
    only_owners_delete_pages_and_a_deleted_page_is_gone,
);

async fn components_and_groups_are_changed_and_deleted_within_their_page(db: TestDb) {
    let api = Api::spawn(db).await;
    let token = api.owner.clone();
    let cid = api.components[0].clone();
    let path = format!("/pages/acme/components/{cid}");
    // Responders change a component's status, nothing else of the page's structure.
    let responder = api.responder.clone();
    let (status, c) = api
        .app
        .api(&responder)
        .patch(&path, json!({"status": "degraded_performance"}))
        .await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["status"], "degraded_performance");
    // The answer is the component as stored (the write does not read it back).
    assert_eq!(c, listed(&api, &token, cid.as_str()).await);
    for (method, route, body) in [
        (
            "PATCH",
            path.clone(),
            Some(json!({"status": "operational", "name": "X"})),
        ),
        ("DELETE", path.clone(), None),
        (
            "POST",
            "/pages/acme/components".to_owned(),
            Some(json!({"name": "Edge"})),
        ),
        (
            "POST",
            "/pages/acme/component-groups".to_owned(),
            Some(json!({"name": "Core"})),
        ),
    ] {
        let (status, body) = api.app.api(&responder).send(method, &route, body).await;
        assert_eq!(status, 403, "{method} {route} by a responder: {body}");
    }
    let (status, group) = api
        .app
        .api(&token)
        .post("/pages/acme/component-groups", json!({"name": "Core"}))
        .await;
    assert_eq!(status, 201, "{group}");
    let gid = group["id"].as_str().unwrap();
    let patch = json!({"group_id": gid, "status": "partial_outage", "region": "eu"});
    let (status, c) = api.app.api(&token).patch(&path, patch).await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(
        (c["group_id"].as_str(), c["status"].as_str()),
        (Some(gid), Some("partial_outage"))
    );
    assert_eq!(c, listed(&api, &token, cid.as_str()).await);
    let (status, body) = api
        .app
        .api(&token)
        .patch(&path, json!({"status": "melting"}))
        .await;
    assert_eq!(status, 422);
    assert!(body["fields"]["status"].is_array(), "{body}");
    let gpath = format!("/pages/acme/component-groups/{gid}");
    let (status, g) = api
        .app
        .api(&token)
        .patch(&gpath, json!({"name": "Core services"}))
        .await;
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["name"], "Core services");
    assert_eq!(g["components"][0], cid.as_str());
    let (status, _) = api.app.api(&token).patch(&gpath, json!({"name": ""})).await;
    assert_eq!(status, 422);
    let (status, _) = api.app.api(&token).delete(&gpath).await;
    assert_eq!(status, 200);
    let (_, groups) = api
        .app
        .api(&token)
        .get("/pages/acme/component-groups")
        .await;
    assert_eq!(groups.as_array().unwrap().len(), 0);
    let (status, _) = api.app.api(&api.viewer).delete(&path).await;
    assert_eq!(status, 403);
    let (status, _) = api.app.api(&token).delete(&path).await;
    assert_eq!(status, 200);
    let (status, _) = api.app.api(&token).delete(&path).await;
    assert_eq!(status, 404);
    let (_, list) = api.app.api(&token).get("/pages/acme/components").await;
    assert_eq!(list.as_array().unwrap().len(), 1);
}

/// The component `id` as `GET /pages/acme/components` lists it.
async fn listed(api: &Api, token: &str, id: &str) -> serde_json::Value {
    let (status, all) = api.app.api(token).get("/pages/acme/components").await;
    assert_eq!(status, 200, "{all}");
    let all = all.as_array().expect("a list of components");
    let found = all.iter().find(|c| c["id"] == id);
    found.cloned().expect("the component is listed")
}

async fn only_owners_delete_pages_and_a_deleted_page_is_gone(db: TestDb) {
    let api = Api::spawn(db).await;
    let body = json!({"name": "Outage", "body": "Investigating."});
    api.app
        .api(&api.responder)
        .post("/pages/acme/incidents", body)
        .await;
    let (status, _) = api.app.api(&api.responder).delete("/pages/acme").await;
    assert_eq!(status, 403);
    let (status, body) = api.app.api(&api.owner).delete("/pages/acme").await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = api.app.api(&api.viewer).get("/pages/acme").await;
    assert_eq!(status, 404);
    let (_, log) = api.app.api(&api.owner).get("/audit").await;
    assert_eq!(log[0]["action"], "page.delete");
}
