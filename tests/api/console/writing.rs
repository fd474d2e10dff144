//! Writing through the console: resolving and reopening, moving a maintenance through its
//! statuses, the markdown preview, and a postmortem written and published.

use chrono::{Duration, Utc};
use herald::domain::Role;

use super::{NEW, open_at};
use crate::helpers::Console;
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    an_incident_is_resolved_and_reopened_only_explicitly,
    a_maintenance_moves_through_its_statuses_from_its_page,
    the_preview_renders_the_message_safely_and_keeps_the_form,
    a_postmortem_written_in_the_console_is_published_on_the_public_page,
    an_incident_s_details_are_corrected_without_an_update,
    an_update_holding_the_nul_character_is_refused_on_its_field_and_nothing_is_posted,
    the_next_update_is_promised_in_minutes_with_one_choice,
);

/// The first incident link of the dashboard.
pub async fn first_incident(console: &Console) -> String {
    let (_, dashboard) = console.get("/admin").await;
    let start = dashboard
        .find("/admin/incidents/")
        .expect("an incident listed");
    dashboard[start..].split('"').next().unwrap().to_owned()
}

async fn an_incident_is_resolved_and_reopened_only_explicitly(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Queue stuck", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = first_incident(&console).await;
    let updates = format!("{path}/updates");
    let csrf = console.csrf.clone();
    let resolve = [
        ("csrf_token", csrf.as_str()),
        ("status", "resolved"),
        ("body", "Drained."),
    ];
    assert_eq!(console.post(&updates, &resolve).await.0, 303);
    let (_, page) = console.get(&path).await;
    assert!(
        page.contains(r#"name="reopen""#),
        "the reopen box is offered"
    );
    let (_, dashboard) = console.get("/admin").await;
    assert!(!dashboard.contains("Queue stuck"), "no longer open");
    let (_, all) = console.get("/admin/pages/acme/incidents").await;
    assert!(
        all.contains(&format!(r#"href="{path}""#)),
        "found again: {all}"
    );
    let sneaky = [
        ("csrf_token", csrf.as_str()),
        ("status", "investigating"),
        ("body", "It is back."),
    ];
    let (status, _, body) = console.post(&updates, &sneaky).await;
    assert_eq!(status, 422, "reopening needs the explicit box");
    assert!(
        body.contains("reopen") && body.contains("It is back."),
        "{body}"
    );
    let reopen = [
        ("csrf_token", csrf.as_str()),
        ("status", "investigating"),
        ("reopen", "yes"),
        ("body", "It is back."),
    ];
    assert_eq!(console.post(&updates, &reopen).await.0, 303);
    let (_, page) = console.get(&path).await;
    assert!(
        page.contains(r#"<strong data-status>Investigating</strong>"#),
        "{page}"
    );
    app.wait_for_text(
        "/status/acme/api/v2/incidents/unresolved.json",
        "Queue stuck",
    )
    .await;
}

async fn a_maintenance_moves_through_its_statuses_from_its_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let at = |h| {
        (Utc::now() + Duration::hours(h))
            .format("%Y-%m-%dT%H:%M")
            .to_string()
    };
    let (from, until) = (at(1), at(3));
    let csrf = console.csrf.clone();
    let fields = [
        ("csrf_token", csrf.as_str()),
        ("name", "Network swap"),
        ("body", "Brief blips."),
        ("scheduled_for", from.as_str()),
        ("scheduled_until", until.as_str()),
    ];
    let (status, path, body) = console
        .post("/admin/pages/acme/maintenances/new", &fields)
        .await;
    assert_eq!(status, 303, "{body}");
    let (_, page) = console.get(&path).await;
    assert!(page.contains(r#"<option value="in_progress""#), "{page}");
    assert!(
        page.contains("data-window><strong>Window:</strong>"),
        "{page}"
    );
    for (next, label) in [
        ("in_progress", "In Progress"),
        ("verifying", "Verifying"),
        ("completed", "Completed"),
    ] {
        let update = [
            ("csrf_token", csrf.as_str()),
            ("status", next),
            ("body", "Moving on."),
        ];
        let (status, _, body) = console.post(&format!("{path}/updates"), &update).await;
        assert_eq!(status, 303, "{next}: {body}");
        let (_, page) = console.get(&path).await;
        assert!(
            page.contains(&format!("<strong data-status>{label}</strong>")),
            "{page}"
        );
    }
    app.wait_for_text(
        "/status/acme/api/v2/scheduled-maintenances.json",
        r#""status":"completed""#,
    )
    .await;
}

async fn the_preview_renders_the_message_safely_and_keeps_the_form(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let field = format!("component.{component}");
    let fields = [
        ("csrf_token", console.csrf.as_str()),
        ("name", "Slow pages"),
        ("impact", "minor"),
        ("body", "We are **on it**.<script>alert(1)</script>"),
        (field.as_str(), "degraded_performance"),
        ("scope", "Europe"),
        ("preview", "yes"),
    ];
    let (status, _, body) = console.post(NEW, &fields).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("We are <strong>on it</strong>."), "{body}");
    assert!(!body.contains("<script>alert"), "the preview is sanitized");
    assert!(body.contains(r#"value="Slow pages""#) && body.contains("Europe"));
    assert!(body.contains(&format!(
        r#"name="{field}" value="degraded_performance" checked>"#
    )));
    assert!(body.contains(r#"<option value="minor" selected>"#));
    let (_, dashboard) = console.get("/admin").await;
    assert!(!dashboard.contains("Slow pages"), "a preview opens nothing");
    let no_csrf: Vec<_> = fields[1..].to_vec();
    assert_eq!(console.post(NEW, &no_csrf).await.0, 403);
}

async fn a_postmortem_written_in_the_console_is_published_on_the_public_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Login outage", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = first_incident(&console).await;
    let postmortem = format!("{path}/postmortem");
    let (_, page) = console.get(&postmortem).await;
    assert!(page.contains("resolve it first"), "{page}");
    let csrf = console.csrf.clone();
    let early = [("csrf_token", csrf.as_str()), ("root_cause", "Too early")];
    let (status, _, body) = console.post(&postmortem, &early).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("only a resolved incident gets a postmortem"),
        "{body}"
    );
    let resolve = [
        ("csrf_token", csrf.as_str()),
        ("status", "resolved"),
        ("body", "Fixed."),
    ];
    assert_eq!(
        console.post(&format!("{path}/updates"), &resolve).await.0,
        303
    );
    let (_, page) = console.get(&path).await;
    assert!(
        page.contains(&postmortem),
        "the incident page links its postmortem"
    );
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("summary", "Sign-in failed for **40 minutes**."),
        ("root_cause", ""),
        ("scope_figures", "Duration: 40 minutes"),
        (
            "timeline",
            "2026-11-30 09:00 Alert fired\n2026-11-30 09:40 Certificate renewed",
        ),
        (
            "follow_ups",
            "Monitor certificate expiry | platform | in progress",
        ),
        ("action", "publish"),
    ];
    let (status, _, body) = console.post(&postmortem, &fields).await;
    assert_eq!(status, 422, "no root cause, no publication: {body}");
    assert!(
        body.contains("write the root cause before publishing"),
        "{body}"
    );
    assert!(body.contains("Monitor certificate expiry | platform | in progress"));
    let bad_line = [
        ("csrf_token", csrf.as_str()),
        ("timeline", "later that day it broke"),
        ("action", "save"),
    ];
    let (status, _, body) = console.post(&postmortem, &bad_line).await;
    assert_eq!(status, 422);
    assert!(body.contains("line 1: start with a UTC time"), "{body}");
    fields[2] = ("root_cause", "An **expired** certificate.");
    let (status, location, body) = console.post(&postmortem, &fields).await;
    assert_eq!(
        (status, location.as_str()),
        (303, postmortem.as_str()),
        "{body}"
    );
    let (_, page) = console.get(&postmortem).await;
    assert!(page.contains("data-postmortem-state>Published"), "{page}");
    let id = path.rsplit('/').next().unwrap();
    let public = format!("/status/acme/incidents/{id}");
    let shown = app.wait_for_text(&public, "Certificate renewed").await;
    assert!(shown.contains("<strong>expired</strong>"), "{shown}");
    assert!(shown.contains("Monitor certificate expiry") && shown.contains("40 minutes"));
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    assert_eq!(viewer.get(&postmortem).await.0, 403);
    let forged = [("csrf_token", viewer.csrf.as_str()), ("summary", "x")];
    assert_eq!(viewer.post(&postmortem, &forged).await.0, 403);
}

async fn an_incident_s_details_are_corrected_without_an_update(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Typo in nmae", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = first_incident(&console).await;
    let details = format!("{path}/details");
    let (_, page) = console.get(&path).await;
    assert!(
        page.contains(&details),
        "the incident page links its details form"
    );
    let csrf = console.csrf.clone();
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("name", ""),
        ("impact", "critical"),
        ("user_impact", "Nobody can pay"),
        ("scope", ""),
        ("root_cause", ""),
    ];
    let (status, _, body) = console.post(&details, &fields).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("must not be blank") && body.contains("Nobody can pay"));
    fields[1] = ("name", "Payments failing");
    let (status, location, body) = console.post(&details, &fields).await;
    assert_eq!((status, location.as_str()), (303, path.as_str()), "{body}");
    let (_, page) = console.get(&path).await;
    assert!(
        page.contains("Payments failing") && page.contains("Impact: Critical"),
        "{page}"
    );
    app.wait_for_text("/status/acme/api/v2/incidents.json", "Payments failing")
        .await;
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    assert_eq!(viewer.get(&details).await.0, 403);
    let forged = [
        ("csrf_token", viewer.csrf.as_str()),
        ("name", "x"),
        ("impact", "none"),
    ];
    assert_eq!(viewer.post(&details, &forged).await.0, 403);
}

async fn an_update_holding_the_nul_character_is_refused_on_its_field_and_nothing_is_posted(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Queue stuck", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = first_incident(&console).await;
    let csrf = console.csrf.clone();
    let pasted = [
        ("csrf_token", csrf.as_str()),
        ("status", "identified"),
        ("body", "Found it\0 in the logs."),
    ];
    let (status, _, page) = console.post(&format!("{path}/updates"), &pasted).await;
    assert_eq!(status, 422, "{page}");
    assert!(page.contains("Found it"), "what was typed is kept: {page}");
    let (_, detail) = console.get(&path).await;
    assert!(!detail.contains("in the logs"), "nothing was posted");
}

async fn the_next_update_is_promised_in_minutes_with_one_choice(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Queue stuck", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = first_incident(&console).await;
    let (_, page) = console.get(&path).await;
    for minutes in ["15", "30", "60"] {
        assert!(
            page.contains(&format!(r#"name="next_update_in" value="{minutes}">"#)),
            "{page}"
        );
    }
    assert!(
        page.contains(r#"name="next_update_in" value="" checked>"#),
        "as typed, by default"
    );
    let (_, form) = console.get("/admin/pages/acme/incidents/new").await;
    assert!(
        form.contains(r#"name="next_update_in" value="30">"#),
        "{form}"
    );

    let csrf = console.csrf.clone();
    let before = Utc::now();
    let update = [
        ("csrf_token", csrf.as_str()),
        ("status", "identified"),
        ("body", "Found it."),
        // The quick choice wins over a time typed in the field.
        ("next_update_by", "2030-01-01T00:00"),
        ("next_update_in", "30"),
    ];
    let (status, _, body) = console.post(&format!("{path}/updates"), &update).await;
    assert_eq!(status, 303, "{body}");
    let after = Utc::now();
    let token = app.token(Role::Owner).await;
    let id = path.rsplit('/').next().unwrap();
    let (_, incident) = app
        .api(&token)
        .get(&format!("/pages/acme/incidents/{id}"))
        .await;
    let promised: chrono::DateTime<Utc> = incident["next_update_by"]
        .as_str()
        .expect("a promise")
        .parse()
        .unwrap();
    let span = chrono::Duration::minutes(30);
    assert!(
        promised >= before + span - chrono::Duration::seconds(1) && promised <= after + span,
        "{promised} is 30 minutes after the post"
    );

    // Anything but the offered minutes is refused on the field, with what was typed kept.
    let odd = [
        ("csrf_token", csrf.as_str()),
        ("status", "identified"),
        ("body", "Still on it."),
        ("next_update_in", "45"),
    ];
    let (status, _, body) = console.post(&format!("{path}/updates"), &odd).await;
    assert_eq!(status, 422);
    assert!(
        body.contains("choose 15, 30 or 60 minutes from now"),
        "{body}"
    );
    assert!(body.contains("Still on it."), "{body}");
}
