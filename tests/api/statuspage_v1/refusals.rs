//! What `/v1` refuses, in the document's error shape (`{"message": ...}`), writing nothing:
//! wrong or revoked keys, a role too low, another page, bodies that cannot be read or name a
//! field Statuspage does not have. And what it takes besides JSON: forms, `.json` paths, the
//! `api_key` query form.

use herald::domain::Role;
use serde_json::{Value, json};

use super::{Body, v1};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    keys_roles_pages_and_bodies_are_refused_in_the_documents_shape_and_nothing_is_written,
    forms_json_paths_and_the_query_key_are_taken_as_json_bodies_are,
);

fn message(body: &Value) -> &str {
    body["message"]
        .as_str()
        .unwrap_or_else(|| panic!("an ErrorEntity: {body}"))
}

async fn component_names(app: &TestApp, token: &str) -> Vec<String> {
    let (_, listed) = app.api(token).get("/pages/acme/components").await;
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn keys_roles_pages_and_bodies_are_refused_in_the_documents_shape_and_nothing_is_written(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let responder = app.token(Role::Responder).await;
    app.page("acme")
        .with_components(&["API"])
        .through_api(&owner)
        .create()
        .await;
    app.page("other").through_api(&owner).create().await;
    let before = component_names(&app, &owner).await;
    let create = || Some(Body::Json(json!({"component": {"name": "Edge"}})));

    // No key, a key that is not one, a key of another scheme, a revoked key: 401.
    for key in ["", "not-a-key"] {
        let (status, body) = v1(&app, "POST", "/pages/acme/components", key, create()).await;
        assert_eq!(status, 401, "{key:?}: {body}");
        assert!(message(&body).contains("API key"), "{body}");
    }
    let (status, _) = app
        .client
        .get(format!("{}/v1/pages", app.address))
        .header("Authorization", format!("Basic {owner}"))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 401, "another scheme is no key");
    let (status, made) = app
        .api(&owner)
        .post("/tokens", json!({"name": "bot", "expires_days": 1}))
        .await;
    assert_eq!(status, 201, "{made}");
    let bot = made["token_secret"].as_str().unwrap().to_owned();
    assert_eq!(v1(&app, "GET", "/pages", &bot, None).await.0, 200);
    let revoke = format!("/tokens/{}", made["id"].as_str().unwrap());
    assert_eq!(app.api(&owner).delete(&revoke).await.0, 200);
    assert_eq!(
        v1(&app, "GET", "/pages", &bot, None).await.0,
        401,
        "revoked"
    );

    // A responder's key for an owner's operation: 403; for a status change: taken.
    let (status, body) = v1(&app, "POST", "/pages/acme/components", &responder, create()).await;
    assert_eq!(status, 403, "{body}");
    message(&body);
    let (status, body) = v1(
        &app,
        "PATCH",
        "/pages/acme",
        &responder,
        Some(Body::Json(json!({"page": {"name": "Mine"}}))),
    )
    .await;
    assert_eq!(status, 403, "{body}");

    // A page, component or incident that is not there, or not on this page: 404.
    for path in [
        "/pages/nope/components",
        "/pages/01a00000-0000-7000-8000-000000000000",
        "/pages/other/components/01a00000-0000-7000-8000-000000000000",
        "/pages/acme/incidents/INC-2020-0001",
        "/pages/acme/no_such_thing",
    ] {
        let (status, body) = v1(&app, "GET", path, &owner, None).await;
        assert_eq!(status, 404, "{path}: {body}");
        message(&body);
    }
    let (_, components) = app.api(&owner).get("/pages/acme/components").await;
    let api_id = components[0]["id"].as_str().unwrap().to_owned();
    let (status, _) = v1(
        &app,
        "GET",
        &format!("/pages/other/components/{api_id}"),
        &owner,
        None,
    )
    .await;
    assert_eq!(
        status, 404,
        "a component of another page is not found on this one"
    );

    // Bodies: not JSON, misspelt fields, values of the wrong kind, a status that is none:
    // 400 or 422, naming the field.
    let cases: Vec<(Body, u16, &str)> = vec![
        (
            Body::Raw("application/json", b"{\"component\": ".to_vec()),
            400,
            "JSON",
        ),
        (Body::Raw("text/plain", b"name=Edge".to_vec()), 400, "form"),
        (
            Body::Json(json!({"component": {"name": "Edge", "nmae": "x"}})),
            422,
            "component[nmae]",
        ),
        (
            Body::Json(json!({"componnet": {"name": "Edge"}})),
            422,
            "componnet",
        ),
        (
            Body::Json(json!({"component": {"name": "Edge", "status": "melting"}})),
            422,
            "component[status]",
        ),
        (
            Body::Json(json!({"component": {"name": "Edge", "showcase": "maybe"}})),
            422,
            "component[showcase]",
        ),
        (
            Body::Json(json!({"component": {"name": "Edge", "only_show_if_degraded": true}})),
            422,
            "only_show_if_degraded",
        ),
        (
            Body::Json(json!({"component": {"description": "no name"}})),
            422,
            "component[name]",
        ),
        (
            Body::Form("component[name]=Edge&component[group_id]=nope".to_owned()),
            422,
            "group_id",
        ),
    ];
    for (body, expected, field) in cases {
        let (status, answer) = v1(&app, "POST", "/pages/acme/components", &owner, Some(body)).await;
        assert_eq!(status, expected, "{field}: {answer}");
        assert!(message(&answer).contains(field), "{field}: {answer}");
    }
    let incident_cases = [
        (
            json!({"incident": {"name": "X", "status": "melting"}}),
            "incident[status]",
        ),
        (
            json!({"incident": {"name": "X", "impact_override": "huge"}}),
            "incident[impact_override]",
        ),
        (
            json!({"incident": {"name": "X", "components": {api_id.clone(): "melting"}}}),
            "incident[components]",
        ),
        (
            json!({"incident": {"name": "X", "metadata": {"jira": "OPS-1"}}}),
            "incident[metadata]",
        ),
        (
            json!({"incident": {"name": "X", "scheduled_for": "tomorrow"}}),
            "incident[scheduled_for]",
        ),
        (
            json!({"incident": {"name": "X", "scheduled_remind_prior": "sometimes"}}),
            "incident[scheduled_remind_prior]",
        ),
        (
            json!({"incident": {"name": "X", "auto_tweet_on_creation": true}}),
            "auto_tweet_on_creation",
        ),
        (
            json!({"incident": {"name": "X", "backfilled": true}}),
            "incident[backfill_date]",
        ),
        (
            json!({"incident": {"name": "X", "component_ids": ["01a00000-0000-7000-8000-000000000000"]}}),
            "component_ids",
        ),
    ];
    for (body, field) in incident_cases {
        let (status, answer) = v1(
            &app,
            "POST",
            "/pages/acme/incidents",
            &owner,
            Some(Body::Json(body)),
        )
        .await;
        assert_eq!(status, 422, "{field}: {answer}");
        assert!(message(&answer).contains(field), "{field}: {answer}");
    }

    // Nothing was written by any of them.
    assert_eq!(component_names(&app, &owner).await, before);
    let (_, incidents) = app.api(&owner).get("/pages/acme/incidents").await;
    assert_eq!(incidents, json!([]), "no incident was opened");
}

async fn forms_json_paths_and_the_query_key_are_taken_as_json_bodies_are(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let page = app
        .page("acme")
        .with_components(&["API", "Website"])
        .through_api(&owner)
        .create()
        .await;
    let (api, web) = (page.components[0].as_str(), page.components[1].as_str());

    // A form as Rails reads it: nested names, a map of statuses, a list of ids.
    let form = format!(
        "incident%5Bname%5D=Edge+errors&incident[status]=identified&incident[body]=Fixing.\
         &incident[components][{api}]=major_outage&incident[component_ids][]={api}\
         &incident[component_ids][]={web}&incident[deliver_notifications]=false"
    );
    let (status, incident) = v1(
        &app,
        "POST",
        "/pages/acme/incidents.json",
        &owner,
        Some(Body::Form(form)),
    )
    .await;
    assert_eq!(status, 201, "{incident}");
    assert_eq!(
        (incident["name"].as_str(), incident["status"].as_str()),
        (Some("Edge errors"), Some("identified"))
    );
    assert_eq!(
        incident["incident_updates"][0]["deliver_notifications"],
        false
    );
    let mut affected: Vec<&str> = incident["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    affected.sort_unstable();
    let mut both = vec![api, web];
    both.sort_unstable();
    assert_eq!(affected, both, "component_ids are affected too");
    let (_, components) = app.api(&owner).get("/pages/acme/components").await;
    let status_of = |id: &str| {
        components
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status_of(api), "major_outage");
    assert_eq!(
        status_of(web),
        "operational",
        "listed without a status: unchanged"
    );

    // A .json path and the api_key query form read the same record.
    let id = incident["id"].as_str().unwrap();
    let url = format!(
        "{}/v1/pages/acme/incidents/{id}.json?api_key={owner}",
        app.address
    );
    let res = app.client.get(url).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let read: Value = res.json().await.unwrap();
    assert_eq!(read["id"], id);
    assert_eq!(read["incident_updates"], incident["incident_updates"]);

    // A form's switches and numbers are text; a component status change alone, in a form.
    let (status, component) = v1(
        &app,
        "PATCH",
        &format!("/pages/acme/components/{web}.json"),
        &owner,
        Some(Body::Form(
            "component[status]=under_maintenance&component[showcase]=false".to_owned(),
        )),
    )
    .await;
    assert_eq!(status, 200, "{component}");
    assert_eq!(
        (
            component["status"].as_str(),
            component["showcase"].as_bool()
        ),
        (Some("under_maintenance"), Some(false))
    );
    let (status, _) = v1(
        &app,
        "DELETE",
        &format!("/pages/acme/components/{web}"),
        &owner,
        None,
    )
    .await;
    assert_eq!(status, 204);
}
