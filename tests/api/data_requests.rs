//! A subscriber's data on request: what Herald holds about an address, across pages, through
//! the API (owners) and the command line; and forgetting it, after which the address stands in
//! no table (a backup of the whole database is searched for it), the audit log records that it
//! happened without the address, and an account of the same address is untouched.

use herald::domain::Role;
use herald::workers::Registry;
use serde_json::json;

use crate::helpers::{TestApp, TestDb};
use crate::notify::sinks::Receiver;
use crate::process::run_on;
use crate::support::form_key;

on_both_backends!(an_address_is_exported_across_pages_then_forgotten_everywhere);

const ADDRESS: &str = "ada.lovelace@example.com";

/// Every row of the database as text, from a backup taken with the real command.
fn every_row(url: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("all.herald");
    let (code, _, stderr) = run_on(url, &["backup", "--out", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut herald::backup::seal::open(&file, None).unwrap(),
        &mut text,
    )
    .unwrap();
    text
}

async fn an_address_is_exported_across_pages_then_forgotten_everywhere(db: TestDb) {
    let extra = [("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
    let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
    let hooks = Receiver::start();
    let owner = app.token(Role::Owner).await;
    let viewer = app.token(Role::Viewer).await;
    let api = app.api(&owner);
    let acme = app
        .page("acme")
        .with_components(&["API"])
        .through_api(&owner)
        .create()
        .await;
    app.page("beta")
        .with_components(&["API"])
        .through_api(&owner)
        .create()
        .await;
    // On two pages, as a mail subscriber and as a webhook's contact (in another case).
    let (status, made) = api
        .post(
            "/pages/acme/subscribers",
            json!({"type": "email", "email": "Ada.Lovelace@Example.com"}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let (status, made) = api
        .post(
            "/pages/beta/subscribers",
            json!({"type": "webhook", "url": hooks.url("/herald"), "contact_email": ADDRESS}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    // Someone else, who stays.
    let (status, _) = api
        .post(
            "/pages/acme/subscribers",
            json!({"type": "email", "email": "grace@example.com"}),
        )
        .await;
    assert_eq!(status, 201);
    // A support message from the address, mentioning it in its text too.
    let form_token = form_key(&app).await.mint(
        acme.id.as_str(),
        chrono::Utc::now() - chrono::Duration::minutes(1),
    );
    let res = app
        .client
        .post(format!("{}/status/acme/api/support", app.address))
        .json(
            &json!({"name": "Ada Lovelace", "email": ADDRESS, "topic": "billing",
                      "message": "Please write to ADA.LOVELACE@example.com, not my work address.",
                      "account": "acct-1815", "form_token": form_token}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    // An incident, so that the subscriptions have deliveries.
    let (status, _) = api
        .post(
            "/pages/acme/incidents",
            json!({"name": "Slow API", "body": "Looking.", "impact": "minor"}),
        )
        .await;
    assert_eq!(status, 201);

    // Export: owners only; a malformed address is the caller's mistake.
    let path = format!("/subscribers?email={ADDRESS}");
    let (status, _) = app.api(&viewer).get(&path).await;
    assert_eq!(status, 403);
    let (status, bad) = api.get("/subscribers?email=not-an-address").await;
    assert_eq!(status, 422, "{bad}");
    assert!(bad["fields"]["email"].is_array(), "{bad}");
    let (status, held) = api.get(&path).await;
    assert_eq!(status, 200, "{held}");
    let pages: Vec<&str> = held["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["page"].as_str().unwrap())
        .collect();
    assert_eq!(pages, ["acme", "beta"], "{held}");
    assert!(
        held["subscriptions"][0]["deliveries"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{held}"
    );
    assert_eq!(held["support_submissions"][0]["account"], "acct-1815");
    // The command line says the same.
    let url = app.test_db.url();
    let (code, stdout, stderr) = run_on(&url, &["subscriber", "export", "--email", ADDRESS]);
    assert_eq!(code, Some(0), "{stderr}");
    let exported: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(exported, held);
    assert!(every_row(&url).to_lowercase().contains(ADDRESS));

    // Forget; an account of another address is untouched, and so is the other subscriber.
    let (status, forgotten) = api.delete(&path).await;
    assert_eq!(status, 200, "{forgotten}");
    assert_eq!(forgotten["subscriptions"], 2);
    assert_eq!(forgotten["support_submissions"], 1);
    let rows = every_row(&url).to_lowercase();
    assert!(!rows.contains(ADDRESS), "the address is still held");
    assert!(rows.contains("grace@example.com"));
    let (_, held) = api.get(&path).await;
    assert_eq!(held["subscriptions"], json!([]));
    assert_eq!(held["support_submissions"], json!([]));
    let (_, audit) = api.get("/audit").await;
    let entry = audit
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "subscriber.forget")
        .expect("the audit log records the forgetting");
    assert!(
        !entry.to_string().to_lowercase().contains(ADDRESS),
        "{entry}"
    );
    let (_, submissions) = api.get("/pages/acme/support").await;
    let message = submissions["items"][0]["message"].as_str().unwrap();
    assert_eq!(message, "Please write to [forgotten], not my work address.");

    // The command line forgets too.
    let forget = ["subscriber", "forget", "--email", "Grace@Example.com"];
    let (code, said, stderr) = run_on(&url, &forget);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(said.contains("subscriptions deleted: 1"), "{said}");
    assert!(!every_row(&url).to_lowercase().contains("grace@example.com"));
    let (code, _, _) = run_on(&url, &["subscriber", "forget", "--email", "not an address"]);
    assert_eq!(code, Some(2));
}
