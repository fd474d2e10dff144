//! The responder console over HTTP: the dashboard (overdue first), opening an incident and
//! posting an update through the forms, CSRF and roles, and forms that keep what was typed.

use chrono::{Duration, Utc};
use herald::domain::{PageId, Role};
use herald::services::incidents::{OpenIncidentInput, open_incident};

use crate::helpers::{Console, TestApp, TestDb};

mod incident_tools;
mod manage;
mod people;
mod writing;

on_both_backends!(
    the_dashboard_lists_overdue_incidents_first_and_marks_them,
    opening_an_incident_through_the_form_publishes_it,
    posting_an_update_through_the_form_resolves_the_incident,
    a_form_post_without_its_csrf_token_is_refused,
    a_viewer_reads_the_console_but_cannot_post,
    a_refused_form_keeps_what_was_typed,
    a_browser_without_a_session_is_sent_to_sign_in,
    maintenance_is_scheduled_through_the_form,
    a_component_status_is_changed_from_the_components_page,
    an_overdue_update_is_announced_on_every_console_page,
);

pub const NEW: &str = "/admin/pages/acme/incidents/new";

pub async fn open_at(app: &TestApp, page_id: &PageId, name: &str, at: chrono::DateTime<Utc>) {
    let (page_id, name) = (page_id.clone(), name.to_owned());
    app.db
        .run(move |c| {
            let input = OpenIncidentInput {
                name,
                body: "Looking into it.".into(),
                ..OpenIncidentInput::default()
            };
            open_incident(c, &page_id, &input, None, at)
        })
        .await
        .expect("incident opened");
}

async fn the_dashboard_lists_overdue_incidents_first_and_marks_them(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Fresh trouble", Utc::now()).await;
    open_at(
        &app,
        &page_id,
        "Forgotten trouble",
        Utc::now() - Duration::days(2),
    )
    .await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let (status, body) = console.get("/admin").await;
    assert_eq!(status, 200, "{body}");
    let forgotten = body.find("Forgotten trouble").expect("overdue listed");
    let fresh = body.find("Fresh trouble").expect("upcoming listed");
    assert!(forgotten < fresh, "the overdue incident comes first");
    assert!(body.contains("Update overdue by 1 d"), "{body}");
    assert!(body.contains("Deadlines met, 30 days"));
    // Each time names one zone, its own: no page zone in brackets after it.
    let line = body.split("Last update ").nth(1).expect("a last update");
    let line = &line[..line.find("</p>").unwrap()];
    assert!(line.ends_with("</time>") && !line.contains('('), "{line}");
    let (status, list) = console.get("/admin/pages/acme/incidents").await;
    assert_eq!(status, 200, "{list}");
    assert!(list.contains(r#"<th scope="col">Started</th>"#), "{list}");
}

async fn opening_an_incident_through_the_form_publishes_it(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let csrf = console.csrf(NEW).await;
    let field = format!("component.{component}");
    let (status, location, body) = console
        .post(
            NEW,
            &[
                ("csrf_token", &csrf),
                ("name", "Checkout errors"),
                ("impact", "major"),
                ("status", "investigating"),
                ("body", "Payments fail for some users."),
                (field.as_str(), "partial_outage"),
                ("next_update_by", ""),
                ("user_impact", "Some payments fail"),
            ],
        )
        .await;
    assert_eq!(status, 303, "{body}");
    assert!(location.starts_with("/admin/incidents/"), "{location}");
    let (status, page) = console.get(&location).await;
    assert_eq!(status, 200);
    assert!(page.contains("Checkout errors") && page.contains("Payments fail for some users."));
    let summary = app
        .wait_for_text("/status/acme/api/v2/summary.json", "Checkout errors")
        .await;
    assert!(summary.contains("partial_outage"), "{summary}");
}

async fn posting_an_update_through_the_form_resolves_the_incident(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Slow search", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Owner).await;
    let (_, dashboard) = console.get("/admin").await;
    let start = dashboard.find("/admin/incidents/").unwrap();
    let path = dashboard[start..].split('"').next().unwrap().to_owned();
    let csrf = console.csrf(&path).await;
    let updates = format!("{path}/updates");
    let fields = [
        ("csrf_token", csrf.as_str()),
        ("status", "resolved"),
        ("body", "Search is fast again."),
    ];
    let (status, location, body) = console.post(&updates, &fields).await;
    assert_eq!((status, location.as_str()), (303, path.as_str()), "{body}");
    let (_, page) = console.get(&path).await;
    assert!(page.contains("Search is fast again.") && page.contains("Reopen"));
    app.wait_for_text("/status/acme/api/v2/summary.json", r#""incidents":[]"#)
        .await;
}

async fn a_form_post_without_its_csrf_token_is_refused(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Owner).await;
    let fields = [("name", "Forged"), ("body", "Forged")];
    let (status, _, _) = console.post(NEW, &fields).await;
    assert_eq!(status, 403);
    let forged = [("csrf_token", "0".repeat(64)), ("name", "Forged".into())];
    let forged: Vec<(&str, &str)> = forged.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(console.post(NEW, &forged).await.0, 403);
}

async fn a_viewer_reads_the_console_but_cannot_post(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Flaky logins", Utc::now()).await;
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let (status, body) = viewer.get("/admin").await;
    assert_eq!(status, 200);
    assert!(body.contains("Flaky logins") && !body.contains("Open an incident"));
    let start = body.find("/admin/incidents/").unwrap();
    let path = body[start..].split('"').next().unwrap().to_owned();
    let (status, page) = viewer.get(&path).await;
    assert_eq!(status, 200);
    assert!(!page.contains("Post update"), "read-only for viewers");
    let csrf = viewer.csrf.clone();
    let fields = [("csrf_token", csrf.as_str()), ("name", "x"), ("body", "x")];
    assert_eq!(viewer.post(NEW, &fields).await.0, 403);
    let update = [("csrf_token", csrf.as_str()), ("body", "x")];
    assert_eq!(
        viewer.post(&format!("{path}/updates"), &update).await.0,
        403
    );
}

async fn a_refused_form_keeps_what_was_typed(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let csrf = console.csrf(NEW).await;
    let field = format!("component.{component}");
    let past = (Utc::now() - Duration::hours(3))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let fields = [
        ("csrf_token", csrf.as_str()),
        ("name", ""),
        ("body", "Typed <with care> & kept"),
        (field.as_str(), "major_outage"),
        ("next_update_by", past.as_str()),
        ("scope", "EU customers"),
    ];
    let (status, _, body) = console.post(NEW, &fields).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("Typed &lt;with care&gt; &amp; kept"),
        "{body}"
    );
    assert!(body.contains("EU customers"));
    assert!(body.contains(&format!(r#"value="{past}""#)));
    assert!(body.contains(&format!(r#"name="{field}" value="major_outage" checked>"#)));
    assert!(
        body.contains(r#"class="field-error" role="alert">must not be blank"#),
        "{body}"
    );
}

async fn a_browser_without_a_session_is_sent_to_sign_in(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let back_to_the_form = "/admin/login?next=%2Fadmin%2Fpages%2Facme%2Fincidents%2Fnew";
    for (path, to) in [("/admin", "/admin/login"), (NEW, back_to_the_form)] {
        let res = client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 303, "{path}");
        assert_eq!(res.headers()["location"], to);
    }
}

async fn maintenance_is_scheduled_through_the_form(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let path = "/admin/pages/acme/maintenances/new";
    let csrf = console.csrf(path).await;
    let field = format!("component.{component}");
    let at = |h| {
        (Utc::now() + Duration::hours(h))
            .format("%Y-%m-%dT%H:%M")
            .to_string()
    };
    let (from, until) = (at(24), at(26));
    let fields = [
        ("csrf_token", csrf.as_str()),
        ("name", "Database upgrade"),
        ("body", "Short read-only window."),
        ("scheduled_for", from.as_str()),
        ("scheduled_until", until.as_str()),
        (field.as_str(), "under_maintenance"),
        ("auto_transition", "yes"),
    ];
    let (status, location, body) = console.post(path, &fields).await;
    assert_eq!(status, 303, "{body}");
    let (_, page) = console.get(&location).await;
    assert!(page.contains("Database upgrade") && page.contains("Scheduled"));
    app.wait_for_text(
        "/status/acme/api/v2/scheduled-maintenances/upcoming.json",
        "Database upgrade",
    )
    .await;
    let backwards = [
        ("csrf_token", csrf.as_str()),
        ("name", "x"),
        ("body", "x"),
        ("scheduled_for", until.as_str()),
        ("scheduled_until", from.as_str()),
    ];
    assert_eq!(console.post(path, &backwards).await.0, 422);
}

async fn a_component_status_is_changed_from_the_components_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let component = app.acme().await.components.remove(0);
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let list = "/admin/pages/acme/components";
    let csrf = console.csrf(list).await;
    let action = format!("{list}/{component}/status");
    let fields = [("csrf_token", csrf.as_str()), ("status", "major_outage")];
    let (status, location, _) = console.post(&action, &fields).await;
    assert_eq!((status, location.as_str()), (303, list));
    let (_, page) = console.get(list).await;
    assert!(
        page.contains(&format!(
            r#"name="component.{component}" value="major_outage" checked>"#
        )),
        "{page}"
    );
    app.wait_for_text("/status/acme/api/v2/components.json", "major_outage")
        .await;
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let fields = [
        ("csrf_token", viewer.csrf.as_str()),
        ("status", "operational"),
    ];
    assert_eq!(viewer.post(&action, &fields).await.0, 403);
}

async fn an_overdue_update_is_announced_on_every_console_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page_id = app.acme().await.id;
    open_at(&app, &page_id, "Fresh trouble", Utc::now()).await;
    let console = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    app.refreshed().await;
    let (_, tokens) = console.get("/admin/tokens").await;
    assert!(
        !tokens.contains("console-overdue-banner"),
        "nothing is overdue yet: {tokens}"
    );

    open_at(
        &app,
        &page_id,
        "Forgotten trouble",
        Utc::now() - Duration::days(2),
    )
    .await;
    app.refreshed().await;
    for path in ["/admin", "/admin/tokens", "/admin/pages/acme/incidents/new"] {
        let (status, body) = console.get(path).await;
        assert_eq!(status, 200, "{path}");
        let banner = body
            .split(r#"<section class="console-overdue-banner""#)
            .nth(1)
            .unwrap_or_else(|| panic!("the banner on {path}: {body}"));
        let banner = &banner[..banner.find("</section>").unwrap()];
        assert!(
            banner.contains("Update overdue: post an update now"),
            "{banner}"
        );
        assert!(
            banner.contains("Forgotten trouble</a> (Acme): the promised update is 1 d"),
            "{banner}"
        );
        assert!(banner.contains(r#"<a href="/admin/incidents/"#), "{banner}");
        assert!(
            !banner.contains("Fresh trouble"),
            "only the late one: {banner}"
        );
    }

    // An update with a new promise takes it off.
    let (_, dashboard) = console.get("/admin").await;
    let banner = &dashboard[dashboard.find("console-overdue-banner").unwrap()..];
    let start = banner.find("/admin/incidents/").unwrap();
    let path = banner[start..].split('"').next().unwrap().to_owned();
    let csrf = console.csrf.clone();
    let update = [
        ("csrf_token", csrf.as_str()),
        ("status", "identified"),
        ("body", "Back on it."),
        ("next_update_in", "30"),
    ];
    let (status, _, body) = console.post(&format!("{path}/updates"), &update).await;
    assert_eq!(status, 303, "{body}");
    app.refreshed().await;
    let (_, tokens) = console.get("/admin/tokens").await;
    assert!(!tokens.contains("console-overdue-banner"), "{tokens}");
}
