//! Moving from Statuspage: a page served by a second real Herald process (the vendor helper)
//! is imported through the API and with `herald import statuspage`, with its groups,
//! components, incidents, updates and maintenance, keeping their times; a second run adds only
//! what is new.

use herald::domain::Role;
use herald::workers::runner::Registry;
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb, Vendor};
use crate::process::herald;

on_both_backends!(
    a_statuspage_page_is_copied_with_its_history_and_a_second_run_adds_only_what_is_new,
    the_command_line_imports_with_progress_and_a_summary,
    a_source_that_cannot_be_read_is_refused_and_nothing_is_written,
);

/// The vendor's page with a group, an incident with three updates and a maintenance.
async fn history(vendor: &Vendor) {
    let (status, group) = vendor
        .api(
            "POST",
            "/pages/cloud/component-groups",
            json!({"name": "Regions"}),
        )
        .await;
    assert_eq!(status, 201, "{group}");
    let (status, _) = vendor
        .api(
            "POST",
            "/pages/cloud/components",
            json!({"name": "EU West", "group_id": group["id"]}),
        )
        .await;
    assert_eq!(status, 201);
    let incident = json!({
        "name": "Elevated API errors",
        "body": "We are looking into failing API requests.",
        "impact": "major",
        "components": {vendor.api_id.clone(): "major_outage"},
    });
    let (status, opened) = vendor.api("POST", "/pages/cloud/incidents", incident).await;
    assert_eq!(status, 201, "{opened}");
    let id = opened["id"].as_str().unwrap().to_owned();
    for (status, body) in [
        ("identified", "A bad deploy; rolling back."),
        ("resolved", "Rolled back; errors are gone."),
    ] {
        let path = format!("/pages/cloud/incidents/{id}/updates");
        let (code, posted) = vendor
            .api("POST", &path, json!({"status": status, "body": body}))
            .await;
        assert_eq!(code, 201, "{posted}");
    }
    let soon = chrono::Utc::now() + chrono::Duration::days(3);
    let maintenance = json!({
        "name": "Database upgrade",
        "body": "Writes pause for a few minutes.",
        "scheduled_for": soon.to_rfc3339(),
        "scheduled_until": (soon + chrono::Duration::hours(2)).to_rfc3339(),
        "components": {vendor.api_id.clone(): "under_maintenance"},
    });
    let (status, made) = vendor
        .api("POST", "/pages/cloud/maintenances", maintenance)
        .await;
    assert_eq!(status, 201, "{made}");
}

async fn ours(db: TestDb) -> TestApp {
    let extra = [("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
    TestApp::spawn_with(db, &extra, Registry::standard()).await
}

/// The vendor's public v2 document `name` of page `cloud`.
async fn source(vendor: &Vendor, name: &str) -> Value {
    reqwest::get(format!("{}/status/cloud/api/v2/{name}", vendor.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn a_statuspage_page_is_copied_with_its_history_and_a_second_run_adds_only_what_is_new(
    db: TestDb,
) {
    let vendor = Vendor::start().await;
    history(&vendor).await;
    let app = ours(db).await;
    let owner = app.token(Role::Owner).await;
    let body = json!({"from": vendor.page_url(), "page": "moved"});
    let (status, report) = app
        .api(&owner)
        .post("/imports/statuspage", body.clone())
        .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        report["created"],
        json!({"page": 1, "groups": 1, "components": 3, "incidents": 1,
               "maintenances": 1, "updates": 4})
    );
    assert_eq!(report["refused"], json!([]));

    // The page reads as the source's: components in their group with their statuses, the
    // incident with its updates at their own times, the maintenance in its window.
    app.refreshed().await;
    let theirs = source(&vendor, "summary.json").await;
    let mine: Value = app
        .get("/status/moved/api/v2/summary.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(mine["page"]["name"], "Example Cloud");
    let statuses = |doc: &Value| {
        let mut list: Vec<(String, String)> = doc["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_owned(),
                    c["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        list.sort();
        list
    };
    assert_eq!(statuses(&mine), statuses(&theirs));
    let theirs = source(&vendor, "incidents.json").await;
    let mine: Value = app
        .get("/status/moved/api/v2/incidents.json")
        .await
        .json()
        .await
        .unwrap();
    let story = |doc: &Value| {
        let incident = doc["incidents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == "Elevated API errors")
            .cloned()
            .unwrap();
        let updates: Vec<(String, String, String)> = incident["incident_updates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                (
                    u["status"].as_str().unwrap().to_owned(),
                    u["body"].as_str().unwrap().to_owned(),
                    u["created_at"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (
            incident["status"].clone(),
            incident["impact"].clone(),
            incident["resolved_at"].clone(),
            updates,
        )
    };
    assert_eq!(story(&mine), story(&theirs));
    let maintenance: Value = app
        .get("/status/moved/api/v2/scheduled-maintenances/upcoming.json")
        .await
        .json()
        .await
        .unwrap();
    let listed = maintenance["scheduled_maintenances"].to_string();
    assert!(listed.contains("Database upgrade"), "{listed}");

    // A second run adds nothing.
    let (status, again) = app
        .api(&owner)
        .post("/imports/statuspage", body.clone())
        .await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["created"], json!({}));
    assert_eq!(again["skipped"]["components"], 3);
    assert_eq!(again["skipped"]["updates"], 4);
    // A new incident at the source is all a third run adds.
    let (code, _) = vendor
        .api(
            "POST",
            "/pages/cloud/incidents",
            json!({"name": "Slow dashboard", "body": "Looking."}),
        )
        .await;
    assert_eq!(code, 201);
    let (status, third) = app.api(&owner).post("/imports/statuspage", body).await;
    assert_eq!(status, 200, "{third}");
    assert_eq!(
        third["created"],
        json!({"incidents": 1, "updates": 1}),
        "{third}"
    );
    let (_, audit) = app.api(&owner).get("/audit?page=moved").await;
    assert!(audit.to_string().contains("import.statuspage"), "{audit}");
}

async fn the_command_line_imports_with_progress_and_a_summary(db: TestDb) {
    let vendor = Vendor::start().await;
    history(&vendor).await;
    let url = db.url();
    let from = vendor.page_url();
    let run = move || {
        let dir = tempfile::tempdir().unwrap();
        let out = herald(dir.path())
            .args(["import", "statuspage", "--from", &from, "--page", "moved"])
            .env("DATABASE_URL", &url)
            .env("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let first = run.clone();
    let (code, out, err) = tokio::task::spawn_blocking(first).await.unwrap();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains("reading http://"), "progress on stderr: {err}");
    assert!(err.contains("incidents: 1/1"), "{err}");
    assert!(
        out.contains(
            "created: 3 components, 1 groups, 1 incidents, 1 maintenances, 1 page, 4 updates"
        ),
        "{out}"
    );
    assert!(out.contains("refused: 0"), "{out}");
    let (code, out, err) = tokio::task::spawn_blocking(run).await.unwrap();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("created: nothing"), "{out}");
    // Bad input: a clear message and a non-zero exit.
    let dir = tempfile::tempdir().unwrap();
    let out = herald(dir.path())
        .args([
            "import",
            "statuspage",
            "--from",
            "ftp://x",
            "--page",
            "moved",
        ])
        .env("DATABASE_URL", db.url())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--from must start with http"), "{err}");
}

async fn a_source_that_cannot_be_read_is_refused_and_nothing_is_written(db: TestDb) {
    let vendor = Vendor::start().await;
    // At the defaults, a loopback source is refused (the outbound rules).
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let body = json!({"from": vendor.page_url(), "page": "moved"});
    let (status, refused) = app.api(&owner).post("/imports/statuspage", body).await;
    assert_eq!(status, 422, "{refused}");
    let why = refused["fields"]["from"][0].as_str().unwrap();
    assert!(why.contains("loopback"), "{why}");
    let (status, _) = app.api(&owner).get("/pages/moved").await;
    assert_eq!(status, 404, "no page was made");
    for (body, field) in [
        (json!({"from": "nonsense", "page": "moved"}), "from"),
        (
            json!({"from": vendor.page_url(), "page": "Not A Slug"}),
            "page",
        ),
        (json!({"from": vendor.page_url()}), "page"),
    ] {
        let (status, refused) = app.api(&owner).post("/imports/statuspage", body).await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused["fields"][field].is_array(), "{field}: {refused}");
    }
    let responder = app.token(Role::Responder).await;
    let body = json!({"from": vendor.page_url(), "page": "moved"});
    let (status, _) = app.api(&responder).post("/imports/statuspage", body).await;
    assert_eq!(status, 403, "owners only");
}
