//! atlassian-python-api's `StatusPage`, unchanged, against Herald (`client.py` runs it).

use herald::domain::Role;
use serde_json::Value;

use super::v1;
use crate::helpers::{TestApp, TestDb, tools};
use crate::notify::sinks::{Receiver, SmtpSink};
use herald::workers::Registry;

on_both_backends!(the_statuspage_python_client_drives_a_page_and_herald_shows_it);

/// Runs `client.py` against the app with `token` on the page `slug`, its webhook subscriber
/// at `hook`; what it printed.
async fn run_client(app: &TestApp, token: &str, slug: &str, hook: &str) -> Value {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/api/statuspage_v1/client.py"
    );
    let (base, token, slug) = (app.address.clone(), token.to_owned(), slug.to_owned());
    let hook = hook.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(tools::python_bin().join("python"))
            .args([script, &base, &token, &slug, &hook])
            .output()
            .expect("the test tools' python starts")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "the client failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the client prints JSON")
}

fn named<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list.as_array()?.iter().find(|item| item["name"] == name)
}

async fn the_statuspage_python_client_drives_a_page_and_herald_shows_it(db: TestDb) {
    // Herald mails a real SMTP server and posts to a real receiver.
    let smtp = SmtpSink::start();
    let hooks = Receiver::start();
    let settings = crate::helpers::test_settings(
        &db,
        &[
            ("HERALD_SMTP_URL", smtp.url().as_str()),
            ("HERALD_MAIL_FROM", "Acme status <status@example.com>"),
            ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
        ],
    );
    let app = TestApp::spawn_with_settings(db, settings, Registry::standard()).await;
    let owner = app.token(Role::Owner).await;
    app.page("acme").through_api(&owner).create().await;
    let out = run_client(&app, &owner, "acme", &hooks.url("/statuspage")).await;
    let page_id = out["page"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        out["page_by_slug"],
        page_id.as_str(),
        "a page is named by its slug too"
    );

    // The page as Herald's own API has it.
    let (status, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        (page["name"].as_str(), page["time_zone"].as_str()),
        (Some("Acme Cloud"), Some("Europe/Berlin"))
    );

    // The components: one deleted, one degraded, both others in the renamed group.
    let (_, components) = app.api(&owner).get("/pages/acme/components").await;
    let api = named(&components, "API").expect("API is a component");
    let db = named(&components, "Database").expect("Database is a component");
    assert!(
        named(&components, "Website").is_none(),
        "Website was deleted: {components}"
    );
    assert_eq!(api["status"], "degraded_performance");
    assert_eq!(db["status"], "operational", "resolving set it back");
    assert_eq!(api["description"], "The REST API");
    let (_, groups) = app.api(&owner).get("/pages/acme/component-groups").await;
    let group = named(&groups, "Core platform").expect("the group, renamed");
    assert_eq!(group["description"], "The core");
    assert_eq!(
        group["components"],
        serde_json::json!([api["id"], db["id"]])
    );
    assert_eq!(out["group_read"]["id"], group["id"]);
    assert_eq!(api["group_id"], group["id"]);
    assert_eq!(out["uptime"]["id"], api["id"]);
    assert!(
        out["uptime"]["uptime_percentage"].is_number(),
        "{}",
        out["uptime"]
    );

    // The incident: opened with component statuses, updated, corrected, resolved.
    let incident_id = out["incident"]["id"].as_str().unwrap();
    let (status, incident) = app
        .api(&owner)
        .get(&format!("/pages/acme/incidents/{incident_id}"))
        .await;
    assert_eq!(status, 200, "{incident}");
    assert_eq!(
        (incident["status"].as_str(), incident["impact"].as_str()),
        (Some("postmortem"), Some("major")),
        "resolved, and its postmortem published"
    );
    let bodies: Vec<&str> = incident["incident_updates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["body"].as_str().unwrap())
        .collect();
    assert_eq!(
        bodies,
        [
            "Space was freed; errors stopped.",
            "A full disk on the primary.",
            "We are looking into errors from the primary database.",
        ],
        "three updates, newest first, the first corrected"
    );
    assert_eq!(
        out["incident_read"]["metadata"]["jira"]["issue_id"],
        "OPS-12"
    );
    assert_eq!(
        out["incident"]["incident_updates"][0]["deliver_notifications"],
        true
    );
    let found: Vec<&Value> = out["search"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["id"])
        .collect();
    assert_eq!(found, [&out["incident"]["id"]], "q finds the update's text");
    assert_eq!(out["unresolved"], serde_json::json!([]));

    // Its postmortem: written, published, reverted, published again (without telling anyone).
    assert_eq!(
        out["postmortem_draft"]["body_draft"],
        "A full disk stopped the primary database."
    );
    assert!(
        out["postmortem_published"]["published_at"].is_string(),
        "{}",
        out["postmortem_published"]
    );
    assert!(
        out["postmortem_reverted"].get("published_at").is_none(),
        "{}",
        out["postmortem_reverted"]
    );
    assert!(
        out["postmortem_reverted"].get("body").is_none(),
        "a draft has no public body"
    );
    assert_eq!(
        out["postmortem_read"]["body"],
        "A full disk stopped the primary database."
    );
    let (status, postmortem) = app
        .api(&owner)
        .get(&format!("/pages/acme/incidents/{incident_id}/postmortem"))
        .await;
    assert_eq!(status, 200, "{postmortem}");
    assert_eq!(
        (
            postmortem["published"].as_bool(),
            postmortem["root_cause"].as_str()
        ),
        (
            Some(true),
            Some("A full disk stopped the primary database.")
        )
    );
    assert_eq!(out["postmortem_deleted"]["status"], 404);

    // The maintenance starts and completes by itself.
    let mid = out["maintenance"]["id"].as_str().unwrap();
    let (_, maintenance) = app
        .api(&owner)
        .get(&format!("/pages/acme/incidents/{mid}"))
        .await;
    assert_eq!(
        (
            maintenance["kind"].as_str(),
            maintenance["auto_transition"].as_bool()
        ),
        (Some("maintenance"), Some(true))
    );
    for list in ["scheduled", "upcoming"] {
        assert_eq!(out[list][0]["id"], mid, "{list}: {}", out[list]);
    }
    assert_eq!(out["active_maintenance"], serde_json::json!([]));
    // At its window's edges Herald's clock starts it (the database under maintenance), then
    // completes it (back to operational), as Statuspage's switches asked.
    let edge = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(out["maintenance"][field].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    // A second past each edge (the answer gives times to the millisecond).
    let past = |field: &str| edge(field) + chrono::Duration::seconds(1);
    let (start, end) = (past("scheduled_for"), past("scheduled_until"));
    let db_id = db["id"].as_str().unwrap().to_owned();
    for (at, status, component) in [
        (start, "in_progress", "under_maintenance"),
        (end, "completed", "operational"),
    ] {
        let steps = app
            .db
            .run(move |c| herald::services::maintenance::advance_due(c, at))
            .await
            .unwrap();
        assert_eq!(steps.len(), 1, "one step at {at}");
        let (_, moved) = v1(
            &app,
            "GET",
            &format!("/pages/acme/incidents/{mid}"),
            &owner,
            None,
        )
        .await;
        assert_eq!(moved["status"], status, "{moved}");
        let (_, database) = v1(
            &app,
            "GET",
            &format!("/pages/acme/components/{db_id}"),
            &owner,
            None,
        )
        .await;
        assert_eq!(database["status"], component, "{database}");
    }

    // The backfill happened on its own date and told nobody.
    let backfill = &out["backfill"];
    assert_eq!(backfill["status"], "resolved");
    assert_eq!(backfill["created_at"], "2026-04-02T00:00:00.000Z");
    assert_eq!(
        backfill["incident_updates"][0]["deliver_notifications"],
        false
    );

    // The public page shows all of it; the deleted incident is gone.
    app.refreshed().await;
    let res = app.get("/status/acme/api/v2/incidents.json").await;
    let public: Value = res.json().await.unwrap();
    let names: Vec<&str> = public["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    for name in ["Database errors", "Outage last spring"] {
        assert!(names.contains(&name), "{name} is public: {names:?}");
    }
    assert!(!names.contains(&"Opened by mistake"), "{names:?}");
    let res = app
        .get("/status/acme/api/v2/scheduled-maintenances.json")
        .await;
    let maintenances: Value = res.json().await.unwrap();
    let done = &maintenances["scheduled_maintenances"][0];
    assert_eq!(
        (done["name"].as_str(), done["status"].as_str()),
        (Some("Database upgrade"), Some("completed")),
        "{maintenances}"
    );
    assert_eq!(out["deleted"]["name"], "Opened by mistake");
    let res = app.get("/status/acme/api/v2/components.json").await;
    let public: Value = res.json().await.unwrap();
    let api_public = named(&public["components"], "API").expect("API is public");
    assert_eq!(api_public["status"], "degraded_performance");

    // Subscribers: the pending one was asked to confirm three times (made, and resent twice);
    // the confirmed one and the webhook heard of the incident; two who follow the API left.
    app.deliver_pending().await;
    let asked = smtp.wait_for("ops@example.com", 3).await;
    assert!(
        asked
            .iter()
            .all(|m| m.raw.to_lowercase().contains("confirm")),
        "confirmations"
    );
    let told = smtp.wait_for("direct@example.com", 1).await;
    assert!(
        told.iter().any(|m| m.raw.contains("Database errors")),
        "the incident's mail"
    );
    let posted = hooks.wait_for("/statuspage", 1).await;
    assert!(
        posted
            .iter()
            .any(|h| h.json().to_string().contains("Database errors")),
        "the incident's webhook"
    );
    assert_eq!(out["pending"]["state"], "unconfirmed");
    assert_eq!(out["direct"]["state"], "active");
    assert_eq!(
        (out["hook"]["mode"].as_str(), out["hook"]["email"].as_str()),
        (Some("webhook"), Some("hooks@example.com"))
    );
    assert!(
        out["hook"]["secret"]
            .as_str()
            .is_some_and(|s| s.starts_with("whsec_")),
        "a webhook's secret, once"
    );
    let reached: Vec<&Value> = out["incident_subscribers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["id"])
        .collect();
    for who in ["pending", "direct", "hook"] {
        assert!(
            reached.contains(&&out[who]["id"]),
            "{who} follows the database: {reached:?}"
        );
    }
    for who in ["leaving", "bulk"] {
        assert!(
            !reached.contains(&&out[who]["id"]),
            "{who} follows the API only: {reached:?}"
        );
    }
    assert_eq!(out["incident_subscriber"]["id"], out["direct"]["id"]);
    assert_eq!(out["incident_unsubscribe_refused"]["status"], 400);
    assert_eq!(out["incident_resend_refused"]["status"], 400);
    assert_eq!(out["spare_deleted"]["name"], "Spare");
    assert_eq!(out["incident_subscriber_refused"]["status"], 400);
    assert_eq!(out["count_active"], serde_json::json!({"email": 3}));
    assert_eq!(out["count_all"], serde_json::json!({"email": 4}));
    assert_eq!(out["count_webhooks"], serde_json::json!({"webhook": 1}));
    assert_eq!(
        out["histogram"]["email"],
        serde_json::json!({"active": 3, "unconfirmed": 1, "quarantined": 0, "total": 4})
    );
    assert_eq!(
        out["listed"].as_array().unwrap().len(),
        5,
        "{}",
        out["listed"]
    );
    assert_eq!(out["searched"][0]["email"], "direct@example.com");
    assert_eq!(out["searched"].as_array().unwrap().len(), 1);
    assert_eq!(out["read"]["id"], out["pending"]["id"]);
    assert_eq!(out["updated"]["components"].as_array().unwrap().len(), 2);
    assert_eq!(out["unsubscribed"]["state"], "unsubscribed");
    let gone: Vec<&Value> = out["unsubscribed_list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["id"])
        .collect();
    assert_eq!(gone.len(), 2, "{gone:?}");
    for who in ["leaving", "bulk"] {
        assert!(gone.contains(&&out[who]["id"]), "{who} left: {gone:?}");
    }
    assert_eq!(out["count_after"], serde_json::json!({"email": 1}));
    let (_, listed) = app.api(&owner).get("/pages/acme/subscribers").await;
    let states: Vec<(&str, &str)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let who = s["email"].as_str().or(s["url"].as_str()).unwrap();
            (who, s["state"].as_str().unwrap())
        })
        .collect();
    assert!(
        states.contains(&("ops@example.com", "pending")),
        "{states:?}"
    );
    assert!(
        states.contains(&("direct@example.com", "confirmed")),
        "{states:?}"
    );
    for who in ["leaving@example.com", "bulk@example.com"] {
        assert!(
            !states.iter().any(|(address, _)| *address == who),
            "{who} unsubscribed: {states:?}"
        );
    }

    // The embed's look: Herald's own by default, then the owner's, in widget.json.
    assert_eq!(out["embed_before"]["position"], "top-left");
    assert_eq!(out["embed"]["position"], "bottom-right");
    assert_eq!(out["embed"]["incident_background_color"], "#ffaa00");
    assert_eq!(out["embed"]["maintenance_text_color"], "#112233");
    app.refreshed().await;
    let widget: Value = app
        .get("/status/acme/widget.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(widget["look"]["position"], "bottom-right", "{widget}");
    assert_eq!(widget["look"]["incident_background_color"], "#ffaa00");

    // Templates; and what Herald does not have is refused, in the document's shape.
    assert_eq!(out["templates"][0]["name"], "DB down");
    assert_eq!(out["templates"][0]["components"][0]["id"], db["id"]);
    assert_eq!(out["metrics_refused"]["status"], 501);
    assert!(
        out["metrics_refused"]["body"]["message"]
            .as_str()
            .unwrap()
            .contains("metrics")
    );

    // Every write is audited as the token's owner.
    let (status, audit) = app.api(&owner).get("/audit?page=acme&limit=100").await;
    assert_eq!(status, 200, "{audit}");
    let actions: Vec<&str> = audit.as_array().map_or(vec![], |a| {
        a.iter().filter_map(|e| e["action"].as_str()).collect()
    });
    for action in [
        "page.update",
        "component.create",
        "component_group.create",
        "component_group.delete",
        "incident.create",
        "incident.update",
        "incident.update_edited",
        "incident.delete",
        "template.create",
        "postmortem.save",
        "postmortem.publish",
        "postmortem.revert",
        "postmortem.delete",
        "subscriber.create",
        "subscriber.update",
        "subscriber.unsubscribe",
        "subscriber.resend_confirmation",
        "subscriber.reactivate",
        "page.embed_look",
    ] {
        assert!(
            actions.contains(&action),
            "{action} is audited: {actions:?}"
        );
    }
}
