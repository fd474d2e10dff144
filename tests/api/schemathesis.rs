//! The API against its own OpenAPI document, which openapi-spec-validator (PyPI) finds valid
//! OpenAPI 3.0 (a thing schemathesis does not check). schemathesis (PyPI) sends a few thousand
//! requests generated from the served document to a Herald holding the demo page, with an
//! owner's token, and checks every answer: no 5xx, every status, header, content type
//! and body as the document declares, 405 with `Allow` for a wrong method, 401 without the
//! token, nothing readable after a delete. `DELETE /tokens/{id}` is left out (the run would
//! revoke its own token).
//!
//! Every check runs, the acceptance checks included (every request the document allows is
//! accepted, every one it forbids refused), in the examples and fuzzing phases. The
//! rules no schema can state are stated in the document's words and followed by the hooks
//! (`tests/schemathesis/herald_hooks.py`). Routes with the id of a record in their path reach
//! the records the run itself creates (components, groups, templates, incidents), the demo's
//! resolved incidents (for their postmortems), and the records this test makes first for the
//! rest: a template, a webhook subscriber, its deliveries and a support submission. A delete
//! acts on a record the hooks make for it, so that deletes never use the others up; the run
//! must leave no route without a record to act on.
//!
//! Both tools come from the test tools' virtual environment, installed on first use
//! ([`tools::python_bin`]).

use std::time::Duration;

use herald::domain::Role;
use serde_json::json;

use crate::helpers::{TestApp, TestDb, tools};
use crate::notify::sinks::Receiver;

on_both_backends!(schemathesis_finds_no_5xx_and_no_answer_outside_the_document);

/// The document as served (the time zones filled in) is valid OpenAPI 3.0. It does not depend
/// on the database, so SQLite's half is enough.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_openapi_document_is_valid_openapi_3_0() {
    let bin = tokio::task::spawn_blocking(tools::python_bin)
        .await
        .unwrap();
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let served = app.get("/api/v1/openapi.json").await;
    assert_eq!(served.status(), 200);
    let dir = tempfile::tempdir().unwrap();
    let document = dir.path().join("openapi.json");
    std::fs::write(&document, served.bytes().await.unwrap()).unwrap();
    let checked = tokio::process::Command::new(bin.join("openapi-spec-validator"))
        .args(["--schema", "3.0", "--validation-errors", "all"])
        .arg(&document)
        .output()
        .await
        .expect("openapi-spec-validator starts");
    assert!(
        checked.status.success(),
        "openapi-spec-validator refuses the served document ({}):\n{}{}",
        checked.status,
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

/// How long the run may take (about 20 s here on each backend).
const RUN_BOUND: Duration = Duration::from_secs(300);

async fn schemathesis_finds_no_5xx_and_no_answer_outside_the_document(db: TestDb) {
    let bin = tokio::task::spawn_blocking(tools::python_bin)
        .await
        .unwrap();
    let app = TestApp::spawn_with(
        db,
        &[("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")],
        herald::workers::Registry::standard(),
    )
    .await;
    app.db
        .run(|c| herald::services::demo::seed(c, chrono::Utc::now()))
        .await
        .unwrap();
    // As long-lived as a token may be: the run asks for tokens of up to 3650 days.
    let token = app.token_lasting(Role::Owner, 3650).await;
    let _receiver = records_the_run_does_not_make(&app, &token).await;
    let hooks = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis");
    // schemathesis keeps a cache in its working folder: a folder of the test's own, not the
    // checkout.
    let workdir = tempfile::tempdir().unwrap();
    let run = tokio::process::Command::new(bin.join("st"))
        .args(["run", &format!("{}/api/v1/openapi.json", app.address)])
        .args(["--checks", "all"])
        .args(["--header", &format!("Authorization: Bearer {token}")])
        .args(["--max-examples", "10", "--seed", "1"])
        // Not the coverage phase (every boundary value of every field): it passes by hand, but
        // takes about six minutes per backend on a debug build, because each of its writes to
        // the demo page re-renders that page's whole site (issue 18's closing note).
        .args(["--phases", "examples,fuzzing"])
        // A 429 (subscribing is limited per client) is answered and checked, not waited out.
        .args(["--rate-limit", "1000/s"])
        .args(["--exclude-path-regex", "/tokens/"])
        .args(["--no-color"])
        .current_dir(workdir.path())
        .env("PYTHONPATH", hooks)
        .env("SCHEMATHESIS_HOOKS", "herald_hooks")
        .env("HERALD_ST_BASE", &app.address)
        .env("HERALD_ST_TOKEN", &token)
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
        report.contains("passed") && !report.contains(" 0 generated"),
        "the run tested nothing:\n{report}"
    );
    assert!(
        !report.contains("Missing test data"),
        "some routes never reached a record:\n{report}"
    );
}

/// An incident template of the demo page, a webhook subscriber, its delivery of an incident
/// opened for it (refused for good by the receiver: a failed delivery, which may be retried),
/// and a support submission: the records of the routes that act on one the run does not make itself. The
/// receiver answers for as long as the run lasts.
async fn records_the_run_does_not_make(app: &TestApp, token: &str) -> Receiver {
    let receiver = Receiver::start();
    receiver.answer(410);
    app.subscriber("demo")
        .webhook(&receiver.url("/hook"))
        .add(token)
        .await;
    let client = app.api(token);
    let template = json!({"name": "Database", "title": "Database slow", "body": "Looking."});
    let (status, made) = client.post("/pages/demo/templates", template).await;
    assert_eq!(status, 201, "{made}");
    let (status, opened) = client
        .post(
            "/pages/demo/incidents",
            json!({"name": "Records for the run", "body": "Opened by the test."}),
        )
        .await;
    assert_eq!(status, 201, "{opened}");
    app.deliver_pending().await;
    let (_, deliveries) = client.get("/pages/demo/deliveries").await;
    assert!(
        deliveries.as_array().is_some_and(|d| !d.is_empty()),
        "{deliveries}"
    );
    let (_, page) = client.get("/pages/demo").await;
    let page_id = page["id"].as_str().unwrap().to_owned();
    let submission = herald::support::Submission {
        id: herald::db::new_id(),
        page_id,
        reference: herald::support::reference::new_reference(),
        name: "Ada Lovelace".into(),
        email: "ada@example.com".into(),
        topic: herald::support::Topic::SignIn,
        component_id: None,
        account: None,
        message: "I cannot sign in.".into(),
        wants_copy: false,
        client_ip: None,
        submitted_at: chrono::Utc::now(),
        language: None,
    };
    let stored = app
        .db
        .run(move |c| herald::support::store::insert_submission(c, &submission, false))
        .await
        .unwrap();
    assert!(stored, "the submission is stored");
    receiver
}
