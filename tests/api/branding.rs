//! A page's own look: its brand colour (refused when it does not read on white), theme,
//! header links, footer and custom CSS on every public page; its logo and favicon uploaded,
//! checked, an SVG's script filtered out, served from memory under names that change with
//! them, and only to those the page admits.

use std::io::Cursor;

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb, no_redirects};
use crate::notify::Setup;

on_both_backends!(
    a_page_without_a_brand_looks_as_herald_does,
    a_brand_is_drawn_on_every_public_page,
    a_colour_that_does_not_read_on_white_is_refused_and_nothing_changes,
    bad_looks_are_refused_by_field,
    an_svg_logo_loses_its_script_and_is_served_fingerprinted,
    a_raster_favicon_is_checked_and_served,
    a_restricted_pages_brand_files_are_its_readers_only,
    the_console_sets_the_look,
    mail_carries_the_logo_and_the_brand_colour,
    the_console_uploads_and_removes_the_logo,
    an_svg_nested_to_grow_a_thousandfold_is_refused_and_stores_nothing,
    an_image_check_never_waits_behind_sign_ins,
    a_stored_image_is_compressed_once_not_on_every_render,
);

const EVIL_SVG: &str = r##"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10" onload="alert('onload')">
  <script>alert(document.cookie)</script>
  <rect width="40" height="10" fill="#0b5fff" onclick="alert('click')"/>
  <a href="javascript:alert('link')"><circle r="2"/></a>
  <image href="https://tracker.example/pixel.png" width="1" height="1"/>
</svg>"##;

fn header(res: &reqwest::Response, name: &str) -> String {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

async fn patch(app: &TestApp, token: &str, body: Value) -> Value {
    let (status, answer) = app.api(token).patch("/pages/acme", body).await;
    assert_eq!(status, 200, "{answer}");
    app.refreshed().await;
    answer
}

async fn html(app: &TestApp, path: &str) -> String {
    let res = app.get(path).await;
    assert_eq!(res.status(), 200, "{path}");
    res.text().await.unwrap()
}

/// The value of the first `attr="..."` after `after` in `html`.
fn attr_after(html: &str, after: &str, attr: &str) -> Option<String> {
    let rest = &html[html.find(after)?..];
    let rest = &rest[rest.find(&format!("{attr}=\""))? + attr.len() + 2..];
    Some(rest[..rest.find('"')?].to_owned())
}

/// A PNG of `width`×`height` pixels.
fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(width, height, image::Rgba([11, 95, 255, 255]));
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

async fn open_incident(app: &TestApp, token: &str) -> String {
    let (status, body) = app
        .api(token)
        .post(
            "/pages/acme/incidents",
            json!({"name": "Slow sign-in", "impact": "minor", "body": "Investigating."}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    app.refreshed().await;
    body["id"].as_str().unwrap().to_owned()
}

async fn a_page_without_a_brand_looks_as_herald_does(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["brand_color"], Value::Null);
    assert_eq!(page["theme"], "auto");
    assert_eq!(page["header_links"], json!([]));
    assert_eq!(page["footer"], Value::Null);
    assert_eq!(page["custom_css"], Value::Null);
    let body = html(&app, "/status/acme").await;
    assert!(!body.contains("data-theme"), "follows the reader's theme");
    assert!(body.contains(r#"<meta name="color-scheme" content="light dark">"#));
    assert!(
        !body.contains("/status/acme/brand."),
        "no stylesheet of its own"
    );
    assert!(body.contains(r#"<a class="brand" href="/status/acme">Acme</a>"#));
    let icon = attr_after(&body, r#"<link rel="icon""#, "href").unwrap();
    assert!(
        icon.starts_with("/assets/favicon."),
        "Herald's icon: {icon}"
    );
    let (status, _) = app.api(&token).get("/pages/acme/logo").await;
    assert_eq!(status, 404, "no logo yet");
}

async fn a_brand_is_drawn_on_every_public_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let incident = open_incident(&app, &token).await;
    let answer = patch(
        &app,
        &token,
        json!({
            "brand_color": "#0B5FFF",
            "theme": "dark",
            "header_links": [
                {"label": "Help centre", "url": "https://help.acme.test/"},
                {"label": "Write to us", "url": "mailto:Support@Acme.test"}
            ],
            "footer": "© Acme Ltd · [Privacy](https://acme.test/privacy) <script>alert(1)</script>",
            "custom_css": ".brand { letter-spacing: 0.02em; }"
        }),
    )
    .await;
    assert_eq!(answer["brand_color"], "#0b5fff", "stored in one form");
    assert_eq!(answer["theme"], "dark");
    assert_eq!(answer["header_links"][1]["url"], "mailto:support@acme.test");

    let mut stylesheet = None;
    for path in [
        "/status/acme".to_owned(),
        "/status/acme/history?page=1".to_owned(),
        format!("/status/acme/incidents/{incident}"),
        "/status/acme/subscribe".to_owned(),
        "/status/acme/support".to_owned(),
    ] {
        let body = html(&app, &path).await;
        assert!(
            body.contains(r#"<html lang="en" data-theme="dark">"#),
            "{path}"
        );
        assert!(
            body.contains(r#"<meta name="color-scheme" content="dark">"#),
            "{path}"
        );
        assert!(
            body.contains(r#"<a href="https://help.acme.test/" rel="noopener">Help centre</a>"#),
            "{path}"
        );
        assert!(
            body.contains(r#"href="mailto:support@acme.test""#),
            "{path}"
        );
        assert!(
            body.contains(r#"<a href="https://acme.test/privacy" rel="noopener noreferrer nofollow">Privacy</a>"#),
            "the footer's Markdown: {path}"
        );
        assert!(!body.contains("<script>alert"), "sanitised: {path}");
        let css = attr_after(
            &body,
            r#"<link rel="stylesheet" href="/assets/app."#,
            "href",
        );
        let own = body
            .split(r#"<link rel="stylesheet" href=""#)
            .filter_map(|s| s.split('"').next())
            .find(|href| href.starts_with("/status/acme/brand."))
            .map(str::to_owned);
        assert!(css.is_some() && own.is_some(), "{path}");
        assert!(
            body.find("/assets/app.").unwrap() < body.find("/status/acme/brand.").unwrap(),
            "the page's stylesheet comes after Herald's: {path}"
        );
        stylesheet.get_or_insert(own.unwrap());
    }
    let stylesheet = stylesheet.unwrap();
    let res = app.get(&stylesheet).await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "content-type"), "text/css; charset=utf-8");
    assert!(header(&res, "cache-control").contains("immutable"));
    let css = res.text().await.unwrap();
    assert!(css.contains("--link: #0b5fff"), "{css}");
    let dark = herald::domain::brand::BrandColor::parse("#0b5fff")
        .unwrap()
        .dark()
        .to_string();
    assert!(
        css.contains(&format!("--link: {dark}")),
        "the dark shade: {css}"
    );
    assert!(css.contains(".brand { letter-spacing: 0.02em; }"), "{css}");

    // A change of look is a new name; the old one is gone with it.
    patch(&app, &token, json!({"brand_color": "#6f42c1"})).await;
    let body = html(&app, "/status/acme").await;
    assert!(!body.contains(&stylesheet), "a new stylesheet, a new name");
    assert_eq!(app.get(&stylesheet).await.status(), 404);

    // Everything back to Herald's own.
    patch(
        &app,
        &token,
        json!({"brand_color": null, "theme": "auto", "header_links": [], "footer": null, "custom_css": ""}),
    )
    .await;
    let body = html(&app, "/status/acme").await;
    assert!(!body.contains("data-theme") && !body.contains("/status/acme/brand."));
    assert!(!body.contains("Help centre") && !body.contains("Privacy"));
}

async fn a_colour_that_does_not_read_on_white_is_refused_and_nothing_changes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let (status, body) = app
        .api(&token)
        .patch(
            "/pages/acme",
            json!({"name": "Acme Corp", "brand_color": "#ffcc00"}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let message = body["fields"]["brand_color"][0].as_str().unwrap();
    assert!(
        message.contains("#ffcc00 has a contrast of 1.") && message.contains("4.5:1"),
        "{message}"
    );
    assert!(
        message.contains("such as #"),
        "a darker shade to try: {message}"
    );
    assert!(
        body["fields"].get("name").is_none(),
        "only the colour: {body}"
    );
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["name"], "Acme", "nothing changed");
    assert_eq!(page["brand_color"], Value::Null);
    // The shade it suggests is taken.
    let suggested = message.rsplit("such as ").next().unwrap();
    let suggested = &suggested[..7];
    let answer = patch(&app, &token, json!({"brand_color": suggested})).await;
    assert_eq!(answer["brand_color"], suggested);
}

async fn bad_looks_are_refused_by_field(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    for (body, field, needle) in [
        (json!({"brand_color": "blue"}), "brand_color", "#rrggbb"),
        (json!({"theme": "neon"}), "theme", "expected one of"),
        (
            json!({"header_links": [{"label": "x", "url": "javascript:alert(1)"}]}),
            "header_links",
            "not an absolute",
        ),
        (
            json!({"header_links": [{"label": "", "url": "https://acme.test"}]}),
            "header_links",
            "label",
        ),
        (
            json!({"header_links": vec![json!({"label": "x", "url": "https://acme.test"}); 6]}),
            "header_links",
            "at most 5",
        ),
        (
            json!({"footer": "x".repeat(1001)}),
            "footer",
            "at most 1000",
        ),
        (
            json!({"custom_css": "@import url(https://evil.test/x.css);"}),
            "custom_css",
            "@import",
        ),
        (
            json!({"custom_css": "body { background: url(https://evil.test/x.png) }"}),
            "custom_css",
            "another site",
        ),
        (
            json!({"custom_css": "a { color: red"}),
            "custom_css",
            "not closed",
        ),
    ] {
        let (status, answer) = app.api(&token).patch("/pages/acme", body.clone()).await;
        assert_eq!(status, 422, "{body}: {answer}");
        let text = answer.to_string();
        assert!(
            text.contains(field) && text.contains(needle),
            "{body}: {answer}"
        );
    }
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["theme"], "auto");
    assert_eq!(page["header_links"], json!([]));
    assert_eq!(page["custom_css"], Value::Null);
}

async fn an_svg_logo_loses_its_script_and_is_served_fingerprinted(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let (status, answer) = app
        .api(&token)
        .put_bytes("/pages/acme/logo", "image/svg+xml", EVIL_SVG.into())
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["content_type"], "image/svg+xml");
    assert_eq!(answer["sanitised"], true, "{answer}");
    let url = answer["url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with("/status/acme/logo.") && url.ends_with(".svg"),
        "{url}"
    );
    app.refreshed().await;

    let body = html(&app, "/status/acme").await;
    assert!(
        body.contains(&format!(
            r#"<a class="brand" href="/status/acme"><img class="brand-logo" src="{url}" alt="Acme"></a>"#
        )),
        "the logo, with the page's name as its text"
    );
    let res = app.get(&url).await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "content-type"), "image/svg+xml");
    assert!(header(&res, "cache-control").contains("immutable"));
    let csp = header(&res, "content-security-policy");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("sandbox"),
        "{csp}"
    );
    let served = res.text().await.unwrap().to_lowercase();
    for gone in [
        "<script",
        "onload",
        "onclick",
        "javascript:",
        "tracker.example",
    ] {
        assert!(!served.contains(gone), "{gone} is left in {served}");
    }
    assert!(
        served.contains("<rect") && served.contains("#0b5fff"),
        "{served}"
    );

    let (status, described) = app.api(&token).get("/pages/acme/logo").await;
    assert_eq!(status, 200);
    assert_eq!(described["url"], url.as_str());
    assert_eq!(described["bytes"].as_u64().unwrap() as usize, served.len());

    // Not an image, however it is labelled; too large; nothing stored by either.
    for (bytes, needle) in [
        (
            b"<html><script>alert(1)</script></html>".to_vec(),
            "not a PNG, SVG or WebP",
        ),
        (b"\x89PNG\r\n\x1a\nnot really".to_vec(), "cannot be read"),
        (vec![b'a'; 300 * 1024], "larger than 256 KiB"),
    ] {
        let (status, answer) = app
            .api(&token)
            .put_bytes("/pages/acme/logo", "image/png", bytes)
            .await;
        assert_eq!(status, 422, "{answer}");
        let message = answer["fields"]["image"][0].as_str().unwrap();
        assert!(message.contains(needle), "{message}");
    }
    let (_, described) = app.api(&token).get("/pages/acme/logo").await;
    assert_eq!(described["url"], url.as_str(), "the logo before stays");

    // Removed: the name again, and the old address answers nothing.
    let (status, _) = app.api(&token).delete("/pages/acme/logo").await;
    assert_eq!(status, 200);
    app.refreshed().await;
    let body = html(&app, "/status/acme").await;
    assert!(body.contains(r#"<a class="brand" href="/status/acme">Acme</a>"#));
    assert_eq!(app.get(&url).await.status(), 404);
    let (status, _) = app.api(&token).delete("/pages/acme/logo").await;
    assert_eq!(status, 404, "nothing left to remove");

    // Responders who are not owners cannot change it.
    let responder = app.token(Role::Responder).await;
    let (status, _) = app
        .api(&responder)
        .put_bytes("/pages/acme/logo", "image/svg+xml", EVIL_SVG.into())
        .await;
    assert_eq!(status, 403);
}

async fn a_raster_favicon_is_checked_and_served(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let icon = png(32, 32);
    // The media type sent is not relied on: the bytes are a PNG.
    let (status, answer) = app
        .api(&token)
        .put_bytes(
            "/pages/acme/favicon",
            "application/octet-stream",
            icon.clone(),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["content_type"], "image/png");
    assert_eq!(answer["sanitised"], false);
    app.refreshed().await;
    let body = html(&app, "/status/acme").await;
    let href = attr_after(&body, r#"<link rel="icon" type="image/png""#, "href").unwrap();
    assert_eq!(href, answer["url"].as_str().unwrap());
    let res = app.get(&href).await;
    assert_eq!(header(&res, "content-type"), "image/png");
    assert_eq!(
        res.bytes().await.unwrap().to_vec(),
        icon,
        "served as uploaded"
    );

    let (status, answer) = app
        .api(&token)
        .put_bytes("/pages/acme/favicon", "image/png", png(4097, 1))
        .await;
    assert_eq!(status, 422);
    assert!(answer.to_string().contains("4097×1 pixels"), "{answer}");
}

async fn a_restricted_pages_brand_files_are_its_readers_only(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let (_, logo) = app
        .api(&token)
        .put_bytes("/pages/acme/logo", "image/png", png(8, 8))
        .await;
    patch(
        &app,
        &token,
        json!({"visibility": "internal", "custom_css": ".x { color: red }"}),
    )
    .await;
    let (status, made) = app
        .api(&token)
        .post("/pages/acme/read-tokens", json!({"name": "wallboard"}))
        .await;
    assert_eq!(status, 201);
    let read = made["token"].as_str().unwrap();
    let body = no_redirects()
        .get(format!("{}/status/acme", app.address))
        .bearer_auth(read)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let css = body
        .split('"')
        .find(|s| s.starts_with("/status/acme/brand."))
        .expect("the page's stylesheet")
        .to_owned();
    let logo = logo["url"].as_str().unwrap().to_owned();
    for path in [&css, &logo] {
        let stranger = no_redirects()
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(
            stranger.status(),
            401,
            "{path}: not a page, so not sent to sign in"
        );
        let reader = no_redirects()
            .get(format!("{}{path}", app.address))
            .bearer_auth(read)
            .send()
            .await
            .unwrap();
        assert_eq!(reader.status(), 200, "{path}");
        assert!(
            header(&reader, "cache-control").starts_with("private"),
            "{path}"
        );
    }
}

async fn the_console_sets_the_look(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    app.page("acme").through_api(&owner).create().await;
    let console = Console::sign_in(&app, "admin@example.com", Role::Owner).await;
    let form = |color: &'static str| {
        vec![
            ("name", "Acme"),
            ("slug", "acme"),
            ("time_zone", "UTC"),
            ("visibility", "public"),
            ("support_reach", "everyone"),
            ("brand_color", color),
            ("theme", "light"),
            (
                "header_links",
                "Help | https://help.acme.test/\r\n\r\nStatus API | https://acme.test/api",
            ),
            ("footer", "Acme Ltd"),
            ("custom_css", ".brand { font-weight: 800; }"),
        ]
    };
    let mut refused = form("#ffcc00");
    refused.push(("csrf_token", &console.csrf));
    let (status, _, body) = console.post("/admin/pages/acme/settings", &refused).await;
    assert_eq!(status, 422);
    assert!(
        body.contains("has a contrast of 1."),
        "the reason on the form"
    );
    assert!(
        body.contains("Status API | https://acme.test/api"),
        "what was typed is kept"
    );

    let mut good = form("#0b5fff");
    good.push(("csrf_token", &console.csrf));
    let (status, location, body) = console.post("/admin/pages/acme/settings", &good).await;
    assert_eq!(status, 303, "{body}");
    assert_eq!(location, "/admin/pages/acme/settings");
    let (_, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(page["brand_color"], "#0b5fff");
    assert_eq!(page["theme"], "light");
    assert_eq!(page["header_links"][1]["label"], "Status API");
    assert_eq!(page["footer"], "Acme Ltd");
    let (_, shown) = console.get("/admin/pages/acme/settings").await;
    assert!(shown.contains("Help | https://help.acme.test/\nStatus API | https://acme.test/api"));
    assert!(shown.contains(r#"<option value="light" selected>"#));

    let mut bad_link = form("#0b5fff");
    bad_link[7].1 = "just some words";
    bad_link.push(("csrf_token", &console.csrf));
    let (status, _, body) = console.post("/admin/pages/acme/settings", &bad_link).await;
    assert_eq!(status, 422);
    assert!(
        body.contains("line 1: write each link as Label | https://"),
        "{body}"
    );
}

async fn mail_carries_the_logo_and_the_brand_colour(db: TestDb) {
    let s = Setup::spawn(db).await;
    // Herald's own colour and the page's name before a brand is set.
    s.subscribe(json!({"type": "email", "email": "jo@example.com"}))
        .await;
    let plain = s.smtp.wait_for("jo@example.com", 1).await.remove(0);
    assert!(
        plain.html().contains("border-top: 4px solid #0550ae"),
        "{}",
        plain.html()
    );
    assert!(
        plain
            .html()
            .contains("<strong style=\"font-size: 1.1em;\">Acme</strong>")
    );
    assert!(
        plain.part_headers("image/").is_none(),
        "no image without a logo"
    );

    let logo = png(64, 16);
    let (status, answer) = s
        .app
        .api(&s.token)
        .put_bytes("/pages/acme/logo", "image/png", logo.clone())
        .await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = s
        .app
        .api(&s.token)
        .patch("/pages/acme", json!({"brand_color": "#6f42c1"}))
        .await;
    assert_eq!(status, 200, "{answer}");
    s.subscribe(json!({"type": "email", "email": "ana@example.com"}))
        .await;
    let confirmation = s.smtp.wait_for("ana@example.com", 1).await.remove(0);
    let link = confirmation.link("/confirm/").expect("a confirmation link");
    let (status, _) = s.follow("GET", &link, "").await;
    assert_eq!(status, 200, "confirmed");
    let html = confirmation.html();
    assert!(html.contains("border-top: 4px solid #6f42c1"), "{html}");
    assert!(html.contains("background: #6f42c1"), "the button: {html}");
    let cid = html
        .split("src=\"cid:")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the logo, by its Content-ID")
        .to_owned();
    assert!(html.contains("alt=\"Acme\""), "its text alternative");
    let image = confirmation
        .part_headers("image/png")
        .expect("the logo inside the message");
    assert!(image.contains(&format!("Content-ID: <{cid}>")), "{image}");
    assert!(
        confirmation.text().contains("Acme"),
        "the text alternative stays"
    );

    // An incident's mail carries them too.
    s.open(json!({"name": "API errors", "impact": "major", "body": "Investigating."}))
        .await;
    s.settle().await;
    let mails = s.smtp.to("ana@example.com");
    let notice = mails
        .iter()
        .find(|m| m.header("Subject").unwrap().contains("API errors"))
        .expect("the incident's mail");
    assert!(
        notice.html().contains(&format!("src=\"cid:{cid}\"")),
        "{}",
        notice.html()
    );
    assert!(notice.html().contains("color: #6f42c1"));
    assert!(notice.part_headers("image/png").is_some());

    // An SVG logo is not sent: mail clients do not draw it; the name is shown instead.
    let (status, _) = s
        .app
        .api(&s.token)
        .put_bytes("/pages/acme/logo", "image/svg+xml", EVIL_SVG.into())
        .await;
    assert_eq!(status, 200);
    s.subscribe(json!({"type": "email", "email": "li@example.com"}))
        .await;
    let svg_page = s.smtp.wait_for("li@example.com", 1).await.remove(0);
    assert!(svg_page.part_headers("image/").is_none());
    assert!(
        svg_page
            .html()
            .contains("<strong style=\"font-size: 1.1em;\">Acme</strong>")
    );
}

/// Uploads `bytes` as `file_name` to the console's image form at `path`, with `csrf` when
/// given; answers the status, Location and body.
async fn upload(
    console: &Console,
    path: &str,
    csrf: Option<&str>,
    file_name: &str,
    bytes: Vec<u8>,
) -> (u16, String, String) {
    let mut form = reqwest::multipart::Form::new();
    if let Some(csrf) = csrf {
        form = form.text("csrf_token", csrf.to_owned());
    }
    let part = reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_owned());
    let res = console
        .client
        .post(format!("{}{path}", console.base))
        .header("Cookie", &console.cookie)
        .multipart(form.part("image", part))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let location = res
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, location, res.text().await.unwrap())
}

async fn the_console_uploads_and_removes_the_logo(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    app.page("acme").through_api(&owner).create().await;
    let console = Console::sign_in(&app, "admin@example.com", Role::Owner).await;
    let settings = "/admin/pages/acme/settings";
    let (_, page) = console.get(settings).await;
    assert!(page.contains(r#"enctype="multipart/form-data""#), "{page}");
    let logo = "/admin/pages/acme/images/logo";

    let csrf = console.csrf.clone();
    let svg = EVIL_SVG.as_bytes().to_vec();
    let (status, location, body) = upload(&console, logo, Some(&csrf), "logo.svg", svg).await;
    assert_eq!((status, location.as_str()), (303, settings), "{body}");
    let (_, described) = app.api(&owner).get("/pages/acme/logo").await;
    let url = described["url"].as_str().expect("a logo").to_owned();
    let served = app.get(&url).await.text().await.unwrap();
    assert!(
        !served.contains("<script") && !served.contains("javascript:"),
        "{served}"
    );
    let (_, page) = console.get(settings).await;
    assert!(page.contains(&format!(r#"<img src="{url}""#)), "{page}");
    let (_, public) = console.get("/status/acme").await;
    assert!(public.contains(&url), "the public page shows it");

    // Not an image: the error names the field; the logo before stays.
    let html = b"<html><script>alert(1)</script></html>".to_vec();
    let (status, _, body) = upload(&console, logo, Some(&csrf), "logo.png", html).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("image"), "{body}");
    let (_, described) = app.api(&owner).get("/pages/acme/logo").await;
    assert_eq!(described["url"], url.as_str());
    // No file chosen, no CSRF token, a responder: refused.
    let (status, _, body) = upload(&console, logo, Some(&csrf), "empty.png", Vec::new()).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("choose a PNG, SVG or WebP file"), "{body}");
    let (status, _, _) = upload(&console, logo, None, "logo.png", png(8, 8)).await;
    assert_eq!(status, 403);
    let responder = Console::sign_in(&app, "ops@example.com", Role::Responder).await;
    let theirs = responder.csrf.clone();
    let (status, _, _) = upload(&responder, logo, Some(&theirs), "logo.png", png(8, 8)).await;
    assert_eq!(status, 403);

    // A PNG favicon, then the logo removed.
    let favicon = "/admin/pages/acme/images/favicon";
    let (status, _, body) = upload(&console, favicon, Some(&csrf), "f.png", png(32, 32)).await;
    assert_eq!(status, 303, "{body}");
    let (status, _) = app.api(&owner).get("/pages/acme/favicon").await;
    assert_eq!(status, 200);
    let remove = [("csrf_token", csrf.as_str())];
    let (status, _, _) = console.post(&format!("{logo}/delete"), &remove).await;
    assert_eq!(status, 303);
    let (status, _) = app.api(&owner).get("/pages/acme/logo").await;
    assert_eq!(status, 404, "removed");
    let (_, log) = console.get("/admin/audit").await;
    for action in ["page.logo", "page.favicon", "page.logo_delete"] {
        assert!(
            log.contains(&format!("<code>{action}</code>")),
            "{action}: {log}"
        );
    }
}

/// `<svg>` with `depth` nested `<g>` elements: 70 KB at 10,000, which the SVG filter, indenting
/// by depth, once grew to 200 MB stored and served.
fn nested_svg(depth: usize) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg">{}<rect/>{}</svg>"#,
        "<g>".repeat(depth),
        "</g>".repeat(depth)
    )
}

async fn an_svg_nested_to_grow_a_thousandfold_is_refused_and_stores_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let svg = nested_svg(10_000);
    assert!(svg.len() < 80_000);
    let (status, answer) = app
        .api(&token)
        .put_bytes("/pages/acme/logo", "image/svg+xml", svg.into_bytes())
        .await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(
        answer["fields"]["image"][0],
        "the SVG nests its elements more than 100 deep"
    );
    let (status, _) = app.api(&token).get("/pages/acme/logo").await;
    assert_eq!(status, 404, "nothing was stored");
    // A drawing nested as deep as editors make them is taken.
    let (status, answer) = app
        .api(&token)
        .put_bytes(
            "/pages/acme/logo",
            "image/svg+xml",
            nested_svg(40).into_bytes(),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer["bytes"].as_u64().unwrap() < 8_000, "{answer}");
}

async fn an_image_check_never_waits_behind_sign_ins(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    // Every password checker busy, as in a flood of sign-ins: an upload is checked anyway
    // (on the password pool, it waited 3 s and was answered 503).
    let busy = app.password_checks.hold_all().await;
    let (status, answer) = app
        .api(&token)
        .put_bytes("/pages/acme/favicon", "image/png", png(16, 16))
        .await;
    assert_eq!(status, 200, "{answer}");
    drop(busy);
}

async fn a_stored_image_is_compressed_once_not_on_every_render(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let rects: String = (0..100)
        .map(|i| format!(r##"<rect x="{i}" width="1" height="10" fill="#0b5fff"/>"##))
        .collect();
    let svg =
        format!(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 10">{rects}</svg>"#);
    let (status, logo) = app
        .api(&token)
        .put_bytes("/pages/acme/logo", "image/svg+xml", svg.into_bytes())
        .await;
    assert_eq!(status, 200, "{logo}");
    let (status, icon) = app
        .api(&token)
        .put_bytes("/pages/acme/favicon", "image/png", png(64, 64))
        .await;
    assert_eq!(status, 200, "{icon}");
    app.refreshed().await;
    let file = |answer: &Value| {
        let url = answer["url"].as_str().unwrap();
        url.rsplit('/').next().unwrap().to_owned()
    };
    let (logo, icon) = (file(&logo), file(&icon));
    let held = |name: &str| {
        app.site.snapshot().pages["acme"]
            .get(name)
            .cloned()
            .unwrap()
    };
    let (logo_before, icon_before) = (held(&logo), held(&icon));
    assert!(logo_before.brotli.is_some(), "an SVG is compressed");
    assert!(
        icon_before.brotli.is_none() && icon_before.gzip.is_none(),
        "a PNG is compressed already and is served as it is"
    );
    // A write on the page, and a change of its look that leaves the images as they are.
    patch(&app, &token, json!({"custom_css": ".x { color: red }"})).await;
    open_incident(&app, &token).await;
    assert!(
        std::sync::Arc::ptr_eq(&logo_before, &held(&logo))
            && std::sync::Arc::ptr_eq(&icon_before, &held(&icon)),
        "the images are the ones made at upload's first render, not made again"
    );
}

/// The peak resident memory of process `pid`, in KiB (`VmHWM`).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn the_svg_that_grew_to_200_mb_costs_the_real_server_no_memory() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("herald.db").display());
    crate::process::add_owner(dir.path(), &url, "ops@example.com");
    let serving = crate::process::Serving::start(dir.path(), &url, &[]);
    let token = crate::process::create_token(dir.path(), &url, "ops@example.com");
    let api = format!("http://127.0.0.1:{}/api/v1", serving.port);
    let client = reqwest::blocking::Client::new();
    let made = client
        .post(format!("{api}/pages"))
        .bearer_auth(&token)
        .json(&json!({"slug": "acme", "name": "Acme"}))
        .send()
        .unwrap();
    assert_eq!(made.status(), 201);
    let put = |svg: String| {
        client
            .put(format!("{api}/pages/acme/logo"))
            .bearer_auth(&token)
            .header("Content-Type", "image/svg+xml")
            .body(svg)
            .send()
            .unwrap()
    };
    // A logo first, so that what checking and storing one costs anyway is paid before.
    assert_eq!(put(nested_svg(40)).status(), 200);
    let pid = serving.child.id();
    let before = peak_kib(pid);
    let refused = put(nested_svg(10_000));
    assert_eq!(refused.status(), 422);
    let grown = peak_kib(pid).saturating_sub(before);
    assert!(
        grown < 50 * 1024,
        "checking the upload took {grown} KiB more at the peak"
    );
}
