//! Responders working the inbox: the API and the console.

use super::*;

on_both_backends!(
    responders_triage_submissions_through_the_api,
    the_console_lists_filters_and_marks_submissions_handled,
);

async fn responders_triage_submissions_through_the_api(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let responder = s.app.token(Role::Responder).await;
    let viewer = s.app.token(Role::Viewer).await;
    let mut references = Vec::new();
    for (topic, message) in [
        ("sign_in", "I cannot sign in since this morning."),
        ("billing", "I was charged twice this month."),
        ("sign_in", "The login page spins forever."),
    ] {
        let mut body = s.body(message);
        body["topic"] = json!(topic);
        let (status, answer, _) = s.post_json(&body).await;
        assert_eq!(status, 201);
        references.push(answer["reference"].as_str().unwrap().to_owned());
    }
    let (status, _) = s.app.api(&viewer).get("/pages/acme/support").await;
    assert_eq!(status, 403, "viewers do not read people's messages");
    let (status, list) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?topic=sign_in")
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    let (status, list) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?limit=1&offset=1")
        .await;
    assert_eq!(status, 200);
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    let (status, bad) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?topic=refunds&limit=0")
        .await;
    assert_eq!(status, 422, "{bad}");
    assert!(bad["fields"]["topic"].is_array() && bad["fields"]["limit"].is_array());
    // A NUL character (which PostgreSQL refuses in text) is the caller's mistake, not a 500.
    let (status, bad) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?incident=a%00b")
        .await;
    assert_eq!(status, 422, "{bad}");
    assert!(bad["fields"]["incident"].is_array(), "{bad}");

    let incident = json!({"name": "Sign-in failures", "body": "Investigating."});
    let (status, opened) = s
        .app
        .api(&responder)
        .post("/pages/acme/incidents", incident)
        .await;
    assert_eq!(status, 201, "{opened}");
    let incident_ref = opened["reference"].as_str().unwrap().to_owned();
    let path = format!("/pages/acme/support/{}", references[0]);
    let patch = json!({"status": "handled", "incident": incident_ref});
    let (status, row) = s.app.api(&responder).patch(&path, patch).await;
    assert_eq!(status, 200, "{row}");
    assert_eq!(row["status"], "handled");
    assert_eq!(row["handled_by"], "responder@example.com");
    assert_eq!(row["incident_id"], opened["id"]);
    let (_, linked) = s
        .app
        .api(&responder)
        .get(&format!(
            "/pages/acme/support?incident={incident_ref}&status=handled"
        ))
        .await;
    assert_eq!(linked["items"].as_array().unwrap().len(), 1);
    let (status, unknown) = s
        .app
        .api(&responder)
        .get("/pages/acme/support?incident=INC-1999-0001")
        .await;
    assert_eq!(
        status, 404,
        "a filter naming no incident of the page: {unknown}"
    );
    let (status, bad) = s
        .app
        .api(&responder)
        .patch(&path, json!({"incident": "INC-1999-0001"}))
        .await;
    assert_eq!(status, 422, "{bad}");
    let (status, _) = s
        .app
        .api(&responder)
        .patch("/pages/acme/support/nope", json!({"status": "open"}))
        .await;
    assert_eq!(status, 404);
    // A field the route does not take is refused by its name, as on every route.
    let (status, misspelt) = s
        .app
        .api(&responder)
        .patch(&path, json!({"statos": "open"}))
        .await;
    assert_eq!(status, 422, "{misspelt}");
    assert!(misspelt["fields"]["statos"].is_array(), "{misspelt}");
    // A patch that changes nothing (found by schemathesis: the document allows it) answers the
    // submission as it is, and records nothing.
    for nothing in [json!({}), json!({"status": null})] {
        let (status, same) = s.app.api(&responder).patch(&path, nothing).await;
        assert_eq!(status, 200, "{same}");
        assert_eq!(same, row, "unchanged");
    }

    let owner = s.app.token(Role::Owner).await;
    let (status, audit) = s.app.api(&owner).get("/audit?page=acme").await;
    assert_eq!(status, 200);
    let triaged = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "support.triage")
        .count();
    assert_eq!(
        triaged, 1,
        "one triage recorded, not the empty patches: {audit}"
    );
}

async fn the_console_lists_filters_and_marks_submissions_handled(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    for (topic, message) in [
        ("sign_in", "I cannot sign in since this morning."),
        ("billing", "I was charged twice <b>this</b> month."),
    ] {
        let mut body = s.body(message);
        body["topic"] = json!(topic);
        assert_eq!(s.post_json(&body).await.0, 201);
    }
    let console = Console::sign_in(&s.app, "ops@example.com", Role::Responder).await;
    let (status, dashboard) = console.get("/admin").await;
    assert_eq!(status, 200);
    assert!(
        dashboard.contains("Support messages, last hour"),
        "{dashboard}"
    );
    let sign_in_row = dashboard
        .split("I can&#39;t sign in</a></th><td>")
        .nth(1)
        .unwrap_or("");
    assert!(
        sign_in_row.starts_with("1<"),
        "one sign-in message counted: {dashboard}"
    );

    let (status, inbox) = console.get("/admin/support?topic=billing").await;
    assert_eq!(status, 200);
    assert!(
        inbox.contains("charged twice &lt;b&gt;this&lt;/b&gt; month"),
        "escaped: {inbox}"
    );
    assert!(!inbox.contains("cannot sign in since"), "filtered by topic");
    let action = inbox
        .split(r#"<form method="post" action="/admin/support/"#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|id| format!("/admin/support/{id}"))
        .unwrap();
    let (status, _, _) = console
        .post(
            &action,
            &[
                ("status", "handled"),
                ("incident", ""),
                ("back", "/admin/support"),
            ],
        )
        .await;
    assert_eq!(status, 403, "no CSRF token, no change");
    let (status, location, _) = console
        .post(
            &action,
            &[
                ("csrf_token", console.csrf.as_str()),
                ("status", "handled"),
                ("incident", ""),
                ("back", "/admin/support?topic=billing"),
            ],
        )
        .await;
    assert_eq!(status, 303);
    assert_eq!(location, "/admin/support?topic=billing");
    let billing = s
        .stored()
        .await
        .into_iter()
        .find(|r| r.topic == "billing")
        .unwrap();
    assert_eq!(billing.status, "handled");
    assert_eq!(billing.handled_by.as_deref(), Some("ops@example.com"));
    let (_, open) = console.get("/admin/support?status=open").await;
    assert!(
        !open.contains("charged twice"),
        "handled ones leave the open list"
    );

    let viewer = Console::sign_in(&s.app, "viewer@example.com", Role::Viewer).await;
    assert_eq!(viewer.get("/admin/support").await.0, 403);
}
