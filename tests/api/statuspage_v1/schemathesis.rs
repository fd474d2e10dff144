//! Atlassian's own OpenAPI document of Statuspage's manage API (read from
//! `../shared/reference/`, not copied here) against Herald's `/v1`: schemathesis (PyPI) sends
//! requests generated from it, with an owner's key, to a page holding components, a group,
//! incidents (one resolved with its postmortem), a maintenance and subscribers, and checks
//! every answer: no 5xx but the 501 of what Herald does not have yet, and every answer the
//! document describes matching its schema. The document's errata and the expected refusals
//! are stated in `tests/schemathesis/statuspage_hooks.py`.

use std::path::Path;
use std::time::Duration;

use herald::domain::Role;
use serde_json::json;

use super::{Body, v1};
use crate::helpers::{TestApp, TestDb, tools};

on_both_backends!(schemathesis_finds_no_5xx_and_no_answer_outside_statuspages_document);

/// How long the run may take.
const RUN_BOUND: Duration = Duration::from_secs(300);

/// Atlassian's document, beside the project.
const DOCUMENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/reference/statuspage-v1-openapi.yaml"
);

async fn schemathesis_finds_no_5xx_and_no_answer_outside_statuspages_document(db: TestDb) {
    if !Path::new(DOCUMENT).exists() {
        tools::missing(
            "Statuspage's OpenAPI document",
            "it is read from ../shared/reference/statuspage-v1-openapi.yaml",
        );
        return;
    }
    let bin = tokio::task::spawn_blocking(tools::python_bin)
        .await
        .unwrap();
    let app = TestApp::spawn_with(
        db,
        &[("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")],
        herald::workers::Registry::standard(),
    )
    .await;
    let token = app.token(Role::Owner).await;
    let page = app
        .page("acme")
        .with_components(&["API", "Website"])
        .through_api(&token)
        .create()
        .await;
    let (api, web) = (page.components[0].as_str(), page.components[1].as_str());
    let made = [
        (
            "/pages/acme/component-groups",
            json!({"component_group": {"name": "Core", "components": [api]}}),
        ),
        (
            "/pages/acme/incidents",
            json!({"incident": {"name": "Open", "body": "Looking.", "components": {web: "partial_outage"}}}),
        ),
        (
            "/pages/acme/incidents",
            json!({"incident": {"name": "Past", "status": "resolved", "body": "Fixed."}}),
        ),
        (
            "/pages/acme/subscribers",
            json!({"subscriber": {"email": "ops@example.com", "skip_confirmation_notification": true}}),
        ),
    ];
    for (path, body) in made {
        let (status, answer) = v1(&app, "POST", path, &token, Some(Body::Json(body))).await;
        assert_eq!(status, 201, "{path}: {answer}");
    }
    let (_, incidents) = v1(&app, "GET", "/pages/acme/incidents", &token, None).await;
    let past = incidents
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Past")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let written = json!({"postmortem": {"body_draft": "A disk filled up."}});
    let path = format!("/pages/acme/incidents/{past}/postmortem");
    assert_eq!(
        v1(&app, "PUT", &path, &token, Some(Body::Json(written)))
            .await
            .0,
        200
    );
    let (_, read) = v1(&app, "GET", "/pages/acme", &token, None).await;
    let page_id = read["id"].as_str().unwrap().to_owned();

    let hooks = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis");
    let workdir = tempfile::tempdir().unwrap();
    let run = tokio::process::Command::new(bin.join("st"))
        .args(["run", DOCUMENT])
        .args(["--url", &format!("{}/v1", app.address)])
        .args([
            "--checks",
            "herald_no_server_error,response_schema_conformance",
        ])
        .args(["--header", &format!("Authorization: OAuth {token}")])
        .args(["--max-examples", "10", "--seed", "1"])
        .args(["--phases", "examples,fuzzing"])
        .args(["--rate-limit", "1000/s"])
        .args(["--no-color"])
        .current_dir(workdir.path())
        .env("PYTHONPATH", hooks)
        .env("SCHEMATHESIS_HOOKS", "statuspage_hooks")
        .env("HERALD_ST_BASE", &app.address)
        .env("HERALD_ST_TOKEN", &token)
        .env("HERALD_ST_PAGE", &page_id)
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(RUN_BOUND, run).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => panic!("schemathesis could not be started: {e}"),
        Err(_) => panic!("schemathesis did not finish within {RUN_BOUND:?}"),
    };
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "schemathesis found failures ({}):\n{report}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        report.contains("112 passed") || report.contains("Tested: 112"),
        "every operation of the document was tested:\n{report}"
    );
    assert!(
        !report.contains(" 0 generated"),
        "the run tested nothing:\n{report}"
    );
}
