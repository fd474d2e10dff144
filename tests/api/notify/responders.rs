//! What responders see and do: the subscriber list, export, removal and retried deliveries in the API and the console, reminders before a promised update, and writes that wake the engine at once.

use super::*;

on_both_backends!(
    responders_list_export_remove_subscribers_and_retry_failed_deliveries,
    responders_are_reminded_before_a_promised_update_and_told_once_it_is_overdue,
    the_console_lists_subscribers_and_deliveries_and_retries_a_failed_one,
    console_and_api_writes_wake_the_engine_without_waiting_for_its_poll,
);

async fn responders_list_export_remove_subscribers_and_retry_failed_deliveries(db: TestDb) {
    let s = Setup::spawn(db).await;
    let api = s.components[0].clone();
    let email = s
        .app
        .subscriber("acme")
        .email("=cmd@example.com")
        .with(json!({"components": [api]}))
        .add(&s.token)
        .await;
    assert_eq!(email["state"], "confirmed");
    assert_eq!(email["components"], json!([api]));
    let hook = s
        .app
        .subscriber("acme")
        .webhook(&s.hooks.url("/flaky"))
        .add(&s.token)
        .await;
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    let csv = s
        .app
        .client
        .get(format!(
            "{}/api/v1/pages/acme/subscribers/export",
            s.app.address
        ))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    assert_eq!(csv.status(), 200);
    assert!(
        csv.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let csv = csv.text().await.unwrap();
    assert!(csv.starts_with("id,type,email"), "{csv}");
    assert!(
        csv.contains("'=cmd@example.com"),
        "formula cells are defused: {csv}"
    );
    let (status, same) = s
        .app
        .api(&s.token)
        .get("/pages/acme/subscribers?format=csv")
        .await;
    assert_eq!(
        (status, same.as_str().map(|t| t.lines().count())),
        (200, Some(3))
    );

    // A receiver refusing with 400 is not retried: the delivery fails, a responder retries it.
    s.hooks.answer(400);
    s.open(json!({"name": "API errors", "body": "Errors."}))
        .await;
    s.hooks.wait_for("/flaky", 1).await;
    s.settle().await;
    let (_, failed) = s
        .app
        .api(&s.token)
        .get("/pages/acme/deliveries?state=failed")
        .await;
    let failed = failed.as_array().unwrap().clone();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["attempts"], 1);
    assert!(failed[0]["last_error"].as_str().unwrap().contains("400"));
    s.hooks.answer(200);
    let id = failed[0]["id"].as_str().unwrap();
    let (status, retried) = s
        .app
        .api(&s.token)
        .post(&format!("/pages/acme/deliveries/{id}/retry"), json!({}))
        .await;
    assert_eq!(status, 200, "{retried}");
    let again = s.hooks.wait_for("/flaky", 2).await;
    assert_eq!(
        again[0].headers["webhook-id"],
        again[1].headers["webhook-id"]
    );
    s.settle().await;
    let (status, _) = s
        .app
        .api(&s.token)
        .post(&format!("/pages/acme/deliveries/{id}/retry"), json!({}))
        .await;
    assert_eq!(status, 409, "a delivered one is not retried");

    let (status, _) = s
        .app
        .api(&s.token)
        .delete(&format!(
            "/pages/acme/subscribers/{}",
            hook["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 200);
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let (_, audit) = s.app.api(&s.token).get("/audit?page=acme").await;
    let actions: Vec<_> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect();
    for action in ["subscriber.create", "subscriber.delete", "delivery.retry"] {
        assert!(
            actions.iter().any(|a| a == action),
            "{action} in {actions:?}"
        );
    }
}

async fn responders_are_reminded_before_a_promised_update_and_told_once_it_is_overdue(db: TestDb) {
    let s = Setup::spawn(db).await;
    let deadline = chrono::Utc::now() + chrono::Duration::seconds(8);
    s.open(json!({"name": "Queue backlog", "body": "Draining.", "next_update_by": deadline}))
        .await;
    let due = s.smtp.wait_for("owner@example.com", 1).await.remove(0);
    let subject = due.header("Subject").unwrap();
    assert!(
        subject.contains("Update due") && subject.contains("Queue backlog"),
        "{subject}"
    );
    assert!(due.text().contains("/admin/incidents/"), "{}", due.text());
    let overdue = s.smtp.wait_for("owner@example.com", 2).await.remove(1);
    let subject = overdue.header("Subject").unwrap();
    assert!(subject.contains("Update overdue"), "{subject}");
    // A pass that looks for reminders again finds none to send.
    s.app.deliver_pending().await;
    assert_eq!(
        s.smtp.to("owner@example.com").len(),
        2,
        "each reminder once"
    );
}

async fn the_console_lists_subscribers_and_deliveries_and_retries_a_failed_one(db: TestDb) {
    let s = Setup::spawn(db).await;
    s.app
        .subscriber("acme")
        .email("dee@example.com")
        .add(&s.token)
        .await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/console-hook"))
        .add(&s.token)
        .await;
    s.hooks.answer(410);
    s.open(json!({"name": "API errors", "body": "Errors."}))
        .await;
    s.hooks.wait_for("/console-hook", 1).await;
    s.settle().await;
    let console = Console::sign_in(&s.app, "responder@example.com", Role::Responder).await;
    let (status, page) = console.get("/admin/pages/acme/subscribers").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("dee@example.com") && page.contains("/console-hook"),
        "{page}"
    );
    assert!(page.contains("410"), "the last error shows: {page}");
    let marker = "/deliveries/";
    let start = page.find(marker).expect("a retry button") + marker.len();
    let id = page[start..].split('/').next().unwrap().to_owned();
    s.hooks.answer(200);
    let (status, location, _) = console
        .post(
            &format!("/admin/pages/acme/deliveries/{id}/retry"),
            &[("csrf_token", console.csrf.as_str())],
        )
        .await;
    assert_eq!(
        (status, location.as_str()),
        (303, "/admin/pages/acme/subscribers")
    );
    s.hooks.wait_for("/console-hook", 2).await;
    let (status, _, _) = console
        .post(&format!("/admin/pages/acme/deliveries/{id}/retry"), &[])
        .await;
    assert_ne!(status, 303, "no CSRF token, no retry");
    let viewer = Console::sign_in(&s.app, "viewer@example.com", Role::Viewer).await;
    let (status, page) = viewer.get("/admin/pages/acme/subscribers").await;
    assert_eq!(status, 200);
    assert!(
        !page.contains("dee@example.com"),
        "viewers do not see addresses"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_that_waits_for_a_mail_server_says_so_in_the_api_and_the_console() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.acme().await;
    let token = app.token(Role::Owner).await;
    app.subscriber("acme")
        .email("ann@example.com")
        .add(&token)
        .await;
    let (status, body) = app
        .api(&token)
        .post(
            "/pages/acme/incidents",
            json!({"name": "API errors", "body": "Looking into it."}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let started = std::time::Instant::now();
    let delivery = loop {
        let (_, list) = app.api(&token).get("/pages/acme/deliveries").await;
        if let Some(d) = list
            .as_array()
            .and_then(|l| l.iter().find(|d| d["waiting_for"] == "mail_server"))
        {
            break d.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(15), "{list}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(delivery["state"], "pending");
    assert_eq!(delivery["attempts"], 0, "waiting is not an attempt");
    assert_eq!(
        delivery["waiting"],
        "waiting for a mail server: HERALD_SMTP_URL is not set"
    );
    let console = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    let (status, page) = console.get("/admin/pages/acme/subscribers").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("waiting for a mail server: HERALD_SMTP_URL is not set"),
        "{page}"
    );
}

async fn console_and_api_writes_wake_the_engine_without_waiting_for_its_poll(db: TestDb) {
    // The engine would find new events only after an hour: each notification below arrives
    // within the receiver's patience only because the write that made it woke the engine.
    let s = Setup::spawn_polling_every(db, Duration::from_secs(3600)).await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/hook"))
        .with(json!({"contact_email": "ops@example.com"}))
        .add(&s.token)
        .await;
    s.open(json!({"name": "Through the API", "body": "Looking."}))
        .await;
    let got = s.hooks.wait_for("/hook", 1).await;
    assert_eq!(got[0].json()["incident"]["name"], "Through the API");

    let console = Console::sign_in(&s.app, "responder@example.com", Role::Responder).await;
    let csrf = console.csrf(crate::console::NEW).await;
    let (status, location, body) = console
        .post(
            crate::console::NEW,
            &[
                ("csrf_token", csrf.as_str()),
                ("name", "Through the console"),
                ("impact", "minor"),
                ("status", "investigating"),
                ("body", "Looking from the console."),
                ("next_update_by", ""),
            ],
        )
        .await;
    assert_eq!(status, 303, "{body}");
    assert!(location.starts_with("/admin/incidents/"), "{location}");
    let got = s.hooks.wait_for("/hook", 2).await;
    assert_eq!(got[1].json()["incident"]["name"], "Through the console");
}
