//! The console's tools for an incident: every component's status set in one place from a
//! status grid, and the live preview's rendering of a message as it is typed.

use herald::domain::Role;

use super::NEW;
use crate::helpers::{Console, TestApp, TestDb};

on_both_backends!(
    every_component_is_set_in_one_place_from_the_status_grid,
    a_refused_grid_sets_nothing_and_says_which_row,
    the_live_preview_renders_a_message_as_the_public_page_will,
    the_incident_forms_offer_the_grid_with_no_change_chosen,
);

const LIST: &str = "/admin/pages/acme/components";
const STATUSES: &str = "/admin/pages/acme/components/statuses";

async fn every_component_is_set_in_one_place_from_the_status_grid(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let acme = app
        .page("acme")
        .with_components(&["API", "Web", "Mail"])
        .create()
        .await;
    let [api, web, mail] = [0, 1, 2].map(|i| format!("component.{}", acme.components[i]));
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let (status, page) = console.get(LIST).await;
    assert_eq!(status, 200, "{page}");
    for field in [&api, &web, &mail] {
        assert!(
            page.contains(&format!(r#"name="{field}" value="operational" checked>"#)),
            "each row starts at its current status: {page}"
        );
    }
    assert!(
        !page.contains("No change"),
        "the components page sets statuses"
    );
    let grid = [
        ("csrf_token", console.csrf.as_str()),
        (api.as_str(), "major_outage"),
        (web.as_str(), "degraded_performance"),
        (mail.as_str(), "operational"),
    ];
    let (status, location, body) = console.post(STATUSES, &grid).await;
    assert_eq!((status, location.as_str()), (303, LIST), "{body}");
    app.wait_for_text(
        "/status/acme/api/v2/components.json",
        "degraded_performance",
    )
    .await;
    let json: serde_json::Value = app
        .get("/status/acme/api/v2/components.json")
        .await
        .json()
        .await
        .unwrap();
    let statuses: Vec<(&str, &str)> = json["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("API", "major_outage"),
            ("Web", "degraded_performance"),
            ("Mail", "operational")
        ]
    );
    let (_, page) = console.get(LIST).await;
    assert!(page.contains(&format!(r#"name="{api}" value="major_outage" checked>"#)));

    // Saved again as it stands, nothing is written.
    let (status, location, _) = console.post(STATUSES, &grid).await;
    assert_eq!((status, location.as_str()), (303, LIST));

    // One audit row names what changed, and only that.
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let (_, log) = owner.get("/admin/audit").await;
    assert_eq!(
        log.matches("<code>component.statuses</code>").count(),
        1,
        "{log}"
    );
    assert!(log.contains("major_outage") && log.contains("degraded_performance"));

    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let (_, read_only) = viewer.get(LIST).await;
    assert!(
        !read_only.contains(STATUSES),
        "viewers get no grid: {read_only}"
    );
    let grid = [
        ("csrf_token", viewer.csrf.as_str()),
        (api.as_str(), "operational"),
    ];
    assert_eq!(viewer.post(STATUSES, &grid).await.0, 403);
}

async fn a_refused_grid_sets_nothing_and_says_which_row(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let acme = app.page("acme").with_components(&["API"]).create().await;
    let other = app.page("other").with_components(&["Vault"]).create().await;
    let api = format!("component.{}", acme.components[0]);
    let vault = format!("component.{}", other.components[0]);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let csrf = console.csrf.as_str();

    let bad = [
        ("csrf_token", csrf),
        (api.as_str(), "major_outage"),
        (vault.as_str(), "on_fire"),
    ];
    let (status, _, body) = console.post(STATUSES, &bad).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("The statuses were not saved."), "{body}");
    assert!(body.contains("is not a component status"), "{body}");
    assert!(
        body.contains(&format!(r#"name="{api}" value="major_outage" checked>"#)),
        "the grid keeps what was chosen: {body}"
    );

    // Another page's component refuses the whole grid: the first row is not set either.
    let across = [
        ("csrf_token", csrf),
        (api.as_str(), "major_outage"),
        (vault.as_str(), "major_outage"),
    ];
    let (status, _, body) = console.post(STATUSES, &across).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("is not a component of this page"), "{body}");
    // The components page reads the database.
    for (slug, field) in [("acme", &api), ("other", &vault)] {
        let (_, page) = console
            .get(&format!("/admin/pages/{slug}/components"))
            .await;
        let unchanged = format!(r#"name="{field}" value="operational" checked>"#);
        assert!(page.contains(&unchanged), "nothing was set: {page}");
    }

    let no_token = [(api.as_str(), "major_outage")];
    assert_eq!(console.post(STATUSES, &no_token).await.0, 403);
}

async fn the_live_preview_renders_a_message_as_the_public_page_will(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let csrf = console.csrf.as_str();
    let text = "Payments fail for **some** users. <script>alert(1)</script>";
    let (status, _, html) = console
        .post("/admin/preview", &[("csrf_token", csrf), ("body", text)])
        .await;
    assert_eq!(status, 200, "{html}");
    assert!(
        html.contains("Payments fail for <strong>some</strong> users."),
        "{html}"
    );
    assert!(
        !html.contains("<script"),
        "sanitized as the public page is: {html}"
    );

    let (status, _, html) = console
        .post("/admin/preview", &[("csrf_token", csrf), ("body", " ")])
        .await;
    assert_eq!((status, html.as_str()), (200, ""), "nothing to show");

    let long = "a".repeat(20_001);
    let (status, _, html) = console
        .post("/admin/preview", &[("csrf_token", csrf), ("body", &long)])
        .await;
    assert_eq!(status, 422);
    assert!(
        html.contains("The message must be at most 20000 characters long, got 20001."),
        "{html}"
    );

    assert_eq!(
        console.post("/admin/preview", &[("body", text)]).await.0,
        403
    );
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let form = [("csrf_token", viewer.csrf.as_str()), ("body", text)];
    assert_eq!(viewer.post("/admin/preview", &form).await.0, 403);
}

async fn the_incident_forms_offer_the_grid_with_no_change_chosen(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let api = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let field = format!("component.{api}");
    let (_, form) = console.get(NEW).await;
    assert!(
        form.contains(&format!(r#"name="{field}" value="" checked>"#)),
        "no change by default: {form}"
    );
    assert!(
        form.contains("data-live-preview=\"live-preview\""),
        "{form}"
    );
    let opening = [
        ("csrf_token", console.csrf.as_str()),
        ("name", "Checkout is failing"),
        ("body", "Looking into it."),
        (field.as_str(), "bogus"),
    ];
    let (status, _, body) = console.post(NEW, &opening).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("is not a component status"), "{body}");
    assert!(
        body.contains(r#"class="has-error""#),
        "the row is marked: {body}"
    );
}
