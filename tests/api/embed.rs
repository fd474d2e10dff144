//! The status embed over HTTP: `widget.json` readable from any origin, `embed.js` served below
//! every page, and `/status/{slug}/embed` framable only by the sites the page lists (set with
//! `PATCH /api/v1/pages/{slug}` or the console's settings). The browser's side is
//! `browser::embed`.

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb};

on_both_backends!(
    the_embed_is_framable_only_by_the_sites_a_page_lists_and_the_widget_is_open_to_all,
    the_console_sets_the_sites_that_may_frame_the_embed,
);

fn header(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
}

async fn the_embed_is_framable_only_by_the_sites_a_page_lists_and_the_widget_is_open_to_all(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    app.refreshed().await;

    let embed = app.get("/status/acme/embed").await;
    assert_eq!(embed.status(), 200);
    let policy = header(&embed, "content-security-policy").unwrap();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert_eq!(header(&embed, "x-frame-options").as_deref(), Some("DENY"));

    let widget = app.get("/status/acme/widget.json").await;
    assert_eq!(widget.status(), 200);
    assert_eq!(
        header(&widget, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    let widget: Value = widget.json().await.unwrap();
    assert_eq!(widget["page"]["name"], "Acme");
    assert_eq!(widget["status"]["indicator"], "none");
    assert_eq!(widget["incidents"], json!([]));
    assert_eq!(widget["signin_affected"], false);
    let preflight = app
        .client
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/status/acme/widget.json", app.address),
        )
        .header("Origin", "https://app.example.com")
        .header("Access-Control-Request-Method", "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    let script = app.get("/status/acme/embed.js").await;
    assert_eq!(script.status(), 200);
    assert!(
        header(&script, "content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(header(&script, "set-cookie").is_none());

    // Anything but a site's origin is refused, and nothing is written.
    for bad in [
        json!(["*"]),
        json!(["https://app.example.com/path"]),
        json!(["app.example.com"]),
        json!("https://app.example.com"),
    ] {
        let (status, refused) = app
            .api(&owner)
            .patch("/pages/acme", json!({"embed_origins": bad}))
            .await;
        assert_eq!(status, 422, "{bad}: {refused}");
        assert!(refused["fields"]["embed_origins"].is_array(), "{refused}");
    }
    let (_, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(page["embed_origins"], json!([]));
    let responder = app.token(Role::Responder).await;
    let (status, _) = app
        .api(&responder)
        .patch(
            "/pages/acme",
            json!({"embed_origins": ["https://app.example.com"]}),
        )
        .await;
    assert_eq!(status, 403, "owners only");

    let (status, page) = app
        .api(&owner)
        .patch(
            "/pages/acme",
            json!({"embed_origins": ["https://App.Example.com/", "https://*.example.org"]}),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        page["embed_origins"],
        json!(["https://app.example.com", "https://*.example.org"])
    );
    app.refreshed().await;
    let embed = app.get("/status/acme/embed").await;
    let policy = header(&embed, "content-security-policy").unwrap();
    assert!(
        policy.ends_with("frame-ancestors https://app.example.com https://*.example.org"),
        "{policy}"
    );
    assert_eq!(header(&embed, "x-frame-options"), None);
    // Every other page of the site stays unframable.
    let overview = app.get("/status/acme").await;
    assert_eq!(
        header(&overview, "x-frame-options").as_deref(),
        Some("DENY")
    );

    // An open incident is in the widget at once.
    let incident = json!({"name": "Slow API", "body": "Looking.", "impact": "minor"});
    let (status, _) = app
        .api(&owner)
        .post("/pages/acme/incidents", incident)
        .await;
    assert_eq!(status, 201);
    let widget: Value = app
        .get("/status/acme/widget.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(widget["incidents"][0]["name"], "Slow API");
    assert_eq!(widget["incidents"][0]["impact"], "minor");

    // [] lets no site frame it again.
    let (status, _) = app
        .api(&owner)
        .patch("/pages/acme", json!({"embed_origins": []}))
        .await;
    assert_eq!(status, 200);
    app.refreshed().await;
    let embed = app.get("/status/acme/embed").await;
    assert_eq!(header(&embed, "x-frame-options").as_deref(), Some("DENY"));
}

async fn the_console_sets_the_sites_that_may_frame_the_embed(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let (status, form) = owner.get("/admin/pages/acme/settings").await;
    assert_eq!(status, 200);
    assert!(form.contains("name=\"embed_origins\""), "{form}");
    let csrf = owner.csrf("/admin/pages/acme/settings").await;
    let fields = |origins: &'static str| {
        vec![
            ("name", "Acme"),
            ("slug", "acme"),
            ("time_zone", "UTC"),
            ("is_public", "yes"),
            ("embed_origins", origins),
        ]
    };
    let mut bad = fields("https://app.example.com/path");
    bad.push(("csrf_token", csrf.as_str()));
    let (status, _, body) = owner.post("/admin/pages/acme/settings", &bad).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("is not a site"), "{body}");
    let mut good = fields("https://app.example.com\r\nhttp://localhost:3000");
    good.push(("csrf_token", csrf.as_str()));
    let (status, _, body) = owner.post("/admin/pages/acme/settings", &good).await;
    assert_eq!(status, 303, "saved, and back to the settings: {body}");
    app.refreshed().await;
    let embed = app.get("/status/acme/embed").await;
    let policy = header(&embed, "content-security-policy").unwrap();
    assert!(
        policy.ends_with("frame-ancestors https://app.example.com http://localhost:3000"),
        "{policy}"
    );
}
