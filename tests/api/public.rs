//! The public site: served from memory with strong ETags and precompressed bodies, 404s in the
//! right format, custom domains and the default page, and pages that stay up while the database
//! is unreachable.

use std::io::Read;
use std::time::{Duration, Instant};

use herald::services::{demo, pages};
use herald::workers::Registry;
use serde_json::json;

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    every_public_endpoint_of_the_demo_page_answers,
    a_matching_etag_gets_304_and_bodies_come_precompressed,
    unknown_slugs_get_404_as_html_or_json,
    a_hostile_incident_name_is_inert_everywhere,
    custom_domains_and_the_default_page_are_served_at_the_root,
    a_fresh_install_welcomes_the_operator,
    pages_stay_up_while_the_database_is_unreachable,
    a_change_made_through_another_process_shows_within_two_seconds,
    the_same_data_renders_to_the_same_bytes_all_day,
    seeding_the_demo_twice_changes_nothing,
    a_cross_origin_preflight_of_the_json_feeds_and_badge_is_answered_and_of_a_page_is_not,
    a_write_s_answer_comes_once_the_public_pages_show_it,
    components_of_one_name_are_told_apart_by_region_everywhere,
);

async fn a_cross_origin_preflight_of_the_json_feeds_and_badge_is_answered_and_of_a_page_is_not(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let preflight = |path: &str| {
        app.client
            .request(reqwest::Method::OPTIONS, format!("{}{path}", app.address))
            .header("Origin", "https://dashboard.example")
            .header("Access-Control-Request-Method", "GET")
            .header(
                "Access-Control-Request-Headers",
                "x-requested-with, authorization",
            )
            .send()
    };
    // Every JSON, feed and embed representation.
    for path in [
        "/status/demo/api/v2/summary.json",
        "/status/demo/api/v2/incidents/unresolved.json",
        "/status/demo/history.atom",
        "/status/demo/history.rss",
        "/status/demo/maintenances.ics",
        "/status/demo/badge.svg",
    ] {
        let res = preflight(path).await.unwrap();
        assert_eq!(res.status(), 204, "{path}");
        let header = |name: &str| {
            res.headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default()
        };
        assert_eq!(header("access-control-allow-origin"), "*");
        assert_eq!(header("access-control-allow-methods"), "GET, HEAD, OPTIONS");
        assert_eq!(
            header("access-control-allow-headers"),
            "x-requested-with, authorization"
        );
        assert_eq!(header("access-control-max-age"), "86400");
        // The read it announces is then shared with the origin.
        let read = app.get(path).await;
        assert_eq!(read.status(), 200);
        assert_eq!(read.headers()["access-control-allow-origin"], "*");
    }
    // The HTML page and unknown paths are not shared across origins.
    assert_eq!(preflight("/status/demo").await.unwrap().status(), 404);
    assert_eq!(
        preflight("/status/demo/history").await.unwrap().status(),
        404
    );
    assert_eq!(
        preflight("/status/demo/api/v2/nothing.json")
            .await
            .unwrap()
            .status(),
        404
    );
}

/// Seeds the demo page and waits until the site shows it.
pub async fn seed_demo(app: &TestApp) {
    app.db
        .run(|c| demo::seed(c, chrono::Utc::now()))
        .await
        .unwrap();
    app.wait_for_page("/status/demo").await;
}

async fn every_public_endpoint_of_the_demo_page_answers(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let json_paths = [
        "summary.json",
        "status.json",
        "components.json",
        "incidents.json",
        "incidents/unresolved.json",
        "scheduled-maintenances.json",
        "scheduled-maintenances/upcoming.json",
        "scheduled-maintenances/active.json",
    ];
    for path in json_paths {
        let res = app.get(&format!("/status/demo/api/v2/{path}")).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["access-control-allow-origin"], "*", "{path}");
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["page"]["name"], "Herald Demo", "{path}");
    }
    let summary: serde_json::Value = app
        .get("/status/demo/api/v2/summary.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        summary["status"]["indicator"], "minor",
        "the open webhook incident is minor"
    );
    assert_eq!(summary["incidents"].as_array().unwrap().len(), 1);
    assert_eq!(
        summary["scheduled_maintenances"].as_array().unwrap().len(),
        1
    );
    let incident_id = summary["incidents"][0]["id"].as_str().unwrap().to_owned();
    for (path, kind) in [
        ("/status/demo", "text/html"),
        ("/status/demo/history", "text/html"),
        (
            &format!("/status/demo/incidents/{incident_id}") as &str,
            "text/html",
        ),
        ("/status/demo/history.atom", "application/atom+xml"),
        ("/status/demo/history.rss", "application/rss+xml"),
        ("/status/demo/maintenances.ics", "text/calendar"),
        ("/status/demo/badge.svg", "image/svg+xml"),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with(kind),
            "{path}"
        );
        assert!(
            res.headers()["cache-control"]
                .to_str()
                .unwrap()
                .contains("stale-while-revalidate"),
            "{path}"
        );
    }
    let head = app
        .client
        .head(format!("{}/status/demo", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    let length = app.get("/status/demo").await.bytes().await.unwrap().len();
    assert_eq!(
        head.headers()["content-length"],
        length.to_string().as_str(),
        "HEAD tells the real length"
    );
    let html = app.get("/status/demo").await.text().await.unwrap();
    assert!(html.contains("Intermittent webhook delivery delays"));
    assert!(html.contains("Database failover drill"));
    let csp = app.get("/status/demo").await.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    // One policy for every HTML answer: the page's forms and sign-in carry the same.
    for path in [
        "/status/demo/subscribe",
        "/status/demo/support",
        "/admin/login",
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(
            res.headers()["content-security-policy"],
            csp.as_str(),
            "{path}"
        );
    }
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
}

async fn a_matching_etag_gets_304_and_bodies_come_precompressed(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let raw = reqwest::Client::builder()
        .no_gzip()
        .no_brotli()
        .no_deflate()
        .build()
        .unwrap();
    for path in ["/status/demo", "/status/demo/api/v2/summary.json"] {
        let url = format!("{}{path}", app.address);
        let plain = raw.get(&url).send().await.unwrap();
        let etag = plain.headers()["etag"].to_str().unwrap().to_owned();
        let identity = plain.bytes().await.unwrap();
        let again = raw
            .get(&url)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert!(again.bytes().await.unwrap().is_empty());
        let br = raw
            .get(&url)
            .header("accept-encoding", "gzip, br")
            .send()
            .await
            .unwrap();
        assert_eq!(br.headers()["content-encoding"], "br");
        assert_eq!(br.headers()["vary"], "Accept-Encoding");
        let br_tag = br.headers()["etag"].to_str().unwrap().to_owned();
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&br.bytes().await.unwrap()[..], 4096)
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, identity, "brotli body decodes to the same bytes");
        let gz = raw
            .get(&url)
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(gz.headers()["content-encoding"], "gzip");
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&gz.bytes().await.unwrap()[..])
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, identity);
        let revalidate = raw
            .get(&url)
            .header("accept-encoding", "br")
            .header("if-none-match", &br_tag)
            .send()
            .await;
        assert_eq!(revalidate.unwrap().status(), 304);
    }
}

async fn unknown_slugs_get_404_as_html_or_json(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let page = app.get("/status/nope").await;
    assert_eq!(page.status(), 404);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let api = app.get("/status/nope/api/v2/summary.json").await;
    assert_eq!(api.status(), 404);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"], "not_found");
    assert_eq!(
        app.get("/status/demo/incidents/not-an-incident")
            .await
            .status(),
        404
    );
    assert_eq!(
        app.get("/status/demo/api/v2/nothing.json").await.status(),
        404
    );
    assert_eq!(app.get("/assets/app.0000.css").await.status(), 404);
}

async fn a_hostile_incident_name_is_inert_everywhere(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let hostile = "<script>alert(1)</script>";
    let page_id = app
        .db
        .run(|c| herald::services::public::page_id_by_slug(c, "demo"))
        .await
        .unwrap();
    let input: herald::services::incidents::OpenIncidentInput =
        serde_json::from_value(serde_json::json!({
            "name": hostile, "body": format!("{hostile} **bold** <img src=x onerror=alert(2)>"),
            "user_impact": hostile,
        }))
        .unwrap();
    app.db
        .run(move |c| {
            herald::services::incidents::open_incident(
                c,
                &page_id,
                &input,
                None,
                chrono::Utc::now(),
            )
        })
        .await
        .unwrap();
    app.site_wake();
    let summary = app
        .wait_for_text("/status/demo/api/v2/summary.json", "alert(1)")
        .await;
    let json: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert!(
        json["incidents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == hostile),
        "JSON keeps the literal"
    );
    for path in [
        "/status/demo",
        "/status/demo/history",
        "/status/demo/history.atom",
        "/status/demo/history.rss",
    ] {
        let text = app.get(path).await.text().await.unwrap();
        assert!(text.contains("alert(1)"), "{path} shows the name");
        assert!(
            !text.contains("<script>alert"),
            "{path} must not contain a live script tag"
        );
        assert!(
            !text.contains("onerror=alert"),
            "{path} must not contain a live handler"
        );
    }
}

async fn custom_domains_and_the_default_page_are_served_at_the_root(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let input: pages::NewPageInput = serde_json::from_value(serde_json::json!({
        "slug": "acme", "name": "Acme Status", "custom_domain": "status.acme.test"
    }))
    .unwrap();
    app.db
        .run(move |c| pages::create_page(c, &input))
        .await
        .unwrap();
    app.site_wake();
    app.wait_for_page("/status/acme").await;
    let on_domain = |path: &str| {
        app.client
            .get(format!("{}{path}", app.address))
            .header("host", "status.acme.test:8080")
            .send()
    };
    let root = on_domain("/").await.unwrap().text().await.unwrap();
    assert!(root.contains("Acme Status"), "{root}");
    let summary: serde_json::Value = on_domain("/api/v2/summary.json")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(summary["page"]["name"], "Acme Status");
    // A cross-origin preflight at the domain's root is answered as at the page's path.
    let preflight = app
        .client
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/api/v2/summary.json", app.address),
        )
        .header("host", "status.acme.test:8080")
        .header("Access-Control-Request-Method", "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
    // The first page became the default page: the plain root serves it, API included.
    let root = app.get("/").await.text().await.unwrap();
    assert!(
        root.contains("Herald Demo") && !root.contains("Acme Status"),
        "{root}"
    );
    let summary: serde_json::Value = app.get("/api/v2/summary.json").await.json().await.unwrap();
    assert_eq!(summary["page"]["name"], "Herald Demo");
    // Without a default page, the plain root lists the public pages.
    let update: pages::UpdatePageInput =
        serde_json::from_value(serde_json::json!({"is_default": false})).unwrap();
    let demo_id = app
        .db
        .run(|c| herald::services::public::page_id_by_slug(c, "demo"))
        .await
        .unwrap();
    app.db
        .run(move |c| pages::update_page(c, &demo_id, &update))
        .await
        .unwrap();
    let home = app.wait_for_text("/", "Acme Status").await;
    assert!(home.contains("Herald Demo"), "{home}");
    assert_eq!(app.get("/api/v2/summary.json").await.status(), 404);
}

async fn a_fresh_install_welcomes_the_operator(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let home = app.get("/").await;
    assert_eq!(home.status(), 200);
    let text = home.text().await.unwrap();
    for needle in [
        "cargo run --release -- user add --email you@example.com --role owner",
        "herald user add --email you@example.com --role owner",
        r#"<a href="/admin/login">the console's sign-in page</a>"#,
        r#"<a href="/admin/pages/new">create a status page</a>"#,
        "cargo run --release -- demo",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    // The links lead somewhere: the sign-in page, and (after signing in) the new page form.
    let sign_in = app.get("/admin/login").await;
    assert_eq!(sign_in.status(), 200);

    // Once the demo exists it is the site's default page, served at `/`; the guide stays at
    // /welcome.
    seed_demo(&app).await;
    app.refreshed().await;
    let home = app.get("/").await.text().await.unwrap();
    assert!(
        home.contains(r#"<a class="brand" href="/status/demo">"#),
        "{home}"
    );
    let welcome = app.get("/welcome").await;
    assert_eq!(welcome.status(), 200);
    let welcome = welcome.text().await.unwrap();
    assert!(
        welcome.contains("herald user add") && welcome.contains("<title>Welcome to Herald"),
        "{welcome}"
    );
}

async fn pages_stay_up_while_the_database_is_unreachable(db: TestDb) {
    let app = TestApp::spawn_with(
        db,
        &[
            ("HERALD_DB_POOL_SIZE", "1"),
            ("HERALD_DB_TIMEOUT_MS", "200"),
        ],
        Registry::standard(),
    )
    .await;
    seed_demo(&app).await;
    let before = app.get("/status/demo").await.text().await.unwrap();
    assert!(!before.contains("temporarily unavailable"));
    let outage = app.break_database().await;
    // The refresher notices within a poll and re-renders from memory with a notice.
    let during = app
        .wait_for_text("/status/demo", "temporarily unavailable")
        .await;
    assert!(
        during.contains("Intermittent webhook delivery delays"),
        "the last data is still shown"
    );
    for path in [
        "/status/demo",
        "/status/demo/api/v2/summary.json",
        "/status/demo/badge.svg",
        "/",
    ] {
        let started = Instant::now();
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path} during the outage");
        assert!(
            started.elapsed() < Duration::from_millis(150),
            "{path} never waits on the pool"
        );
    }
    assert_eq!(
        app.get("/readyz").await.status(),
        503,
        "readiness tells the truth"
    );
    outage.restore().await;
    let after = app
        .wait_for_text_gone("/status/demo", "temporarily unavailable")
        .await;
    assert!(after.contains("Intermittent webhook delivery delays"));
}

async fn a_change_made_through_another_process_shows_within_two_seconds(db: TestDb) {
    let first = TestApp::spawn(db).await;
    seed_demo(&first).await;
    let second = first.spawn_sibling().await;
    second.wait_for_page("/status/demo").await;
    let input: pages::UpdatePageInput =
        serde_json::from_value(serde_json::json!({"name": "Renamed Demo"})).unwrap();
    let id = first
        .db
        .run(|c| herald::services::public::page_id_by_slug(c, "demo"))
        .await
        .unwrap();
    let changed = Instant::now();
    first
        .db
        .run(move |c| pages::update_page(c, &id, &input))
        .await
        .unwrap();
    // Nothing tells the second process: only its refresher's poll of the database can.
    second
        .watch_for_text("/status/demo/api/v2/status.json", "Renamed Demo")
        .await;
    assert!(
        changed.elapsed() < Duration::from_secs(2),
        "took {:?}",
        changed.elapsed()
    );
}

async fn the_same_data_renders_to_the_same_bytes_all_day(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let now = chrono::Utc::now();
    let later = now + chrono::Duration::minutes(3);
    let (first, second) = if later.date_naive() == now.date_naive() {
        (now, later)
    } else {
        (now - chrono::Duration::minutes(3), now)
    };
    let id = app
        .db
        .run(|c| herald::services::public::page_id_by_slug(c, "demo"))
        .await
        .unwrap();
    let mut renders = Vec::new();
    for at in [first, second] {
        let (id, site) = (id.clone(), app.site.clone());
        let access = std::sync::Arc::new(herald::services::access::PageAccess::public(id.clone()));
        let data = app
            .db
            .run(move |c| herald::services::public::load_page_data(c, &id, at, "http://h.test"))
            .await
            .unwrap();
        renders.push(
            tokio::task::spawn_blocking(move || {
                let lang = data.page.default_language;
                let mut tags = std::collections::BTreeMap::new();
                for doc in herald::render::change::all(&data) {
                    let rep = site.renderer.render_doc(&data, lang, &doc, &mut None);
                    tags.insert(doc.key(), rep.unwrap().unwrap().tag);
                }
                let (snapshot, _) = site.renderer.render_page(data, access, None, 1).unwrap();
                for (key, rep) in &snapshot.reps {
                    tags.insert(key.clone(), rep.tag.clone());
                }
                tags
            })
            .await
            .unwrap(),
        );
    }
    let (a, b) = (&renders[0], &renders[1]);
    assert!(a.len() > 10);
    for (key, tag) in a {
        assert_eq!(
            tag, &b[key],
            "{key} differs between two renders the same day"
        );
    }
}

async fn seeding_the_demo_twice_changes_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let before = app
        .get("/status/demo/api/v2/summary.json")
        .await
        .text()
        .await
        .unwrap();
    let history_before = app
        .get("/status/demo/api/v2/incidents.json")
        .await
        .text()
        .await
        .unwrap();
    let again = app
        .db
        .run(|c| demo::seed(c, chrono::Utc::now()))
        .await
        .unwrap();
    assert_eq!(again, demo::Seeded::AlreadyThere);
    // A refresh that read the database after the second seed: had it changed anything, the
    // answers below would show it.
    app.refreshed().await;
    assert_eq!(
        app.get("/status/demo/api/v2/summary.json")
            .await
            .text()
            .await
            .unwrap(),
        before
    );
    assert_eq!(
        app.get("/status/demo/api/v2/incidents.json")
            .await
            .text()
            .await
            .unwrap(),
        history_before
    );
    let summary: serde_json::Value = serde_json::from_str(&before).unwrap();
    let components = summary["components"].as_array().unwrap();
    assert_eq!(
        components.iter().filter(|c| c["group"] == false).count(),
        7,
        "seven components"
    );
    assert_eq!(
        components.iter().filter(|c| c["group"] == true).count(),
        3,
        "three groups"
    );
    let regions: Vec<_> = components
        .iter()
        .filter_map(|c| c["region"].as_str())
        .collect();
    assert_eq!(regions, ["eu-central-1", "us-east-1"]);
    let incidents: serde_json::Value = serde_json::from_str(&history_before).unwrap();
    let postmortems = incidents["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["postmortem"].is_object())
        .count();
    assert_eq!(postmortems, 1, "one published postmortem");
}

async fn a_write_s_answer_comes_once_the_public_pages_show_it(db: TestDb) {
    let s = crate::notify::Setup::spawn(db).await;
    let (status, page) = s
        .app
        .api(&s.token)
        .post(
            "/pages",
            serde_json::json!({"slug": "fresh", "name": "Fresh"}),
        )
        .await;
    assert_eq!(status, 201, "{page}");
    // At once, no waiting: the page is served and takes subscriptions.
    let res = s.app.get("/status/fresh").await;
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("Fresh"));
    let res = s
        .app
        .client
        .post(format!("{}/status/fresh/api/subscribe", s.app.address))
        .json(&serde_json::json!({"type": "email", "email": "reader@example.com"}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    assert_eq!(
        status,
        202,
        "an address to confirm: {}",
        res.text().await.unwrap()
    );
    let res = s.app.get("/status/fresh/support").await;
    assert_eq!(res.status(), 200, "the support form finds the page");

    // An update shows in summary.json as soon as its POST has answered.
    let (status, component) = s
        .app
        .api(&s.token)
        .post(
            "/pages/fresh/components",
            serde_json::json!({"name": "Checkout"}),
        )
        .await;
    assert_eq!(status, 201, "{component}");
    let (status, incident) = s
        .app
        .api(&s.token)
        .post(
            "/pages/fresh/incidents",
            serde_json::json!({"name": "Checkout errors", "body": "Looking.",
                               "components": {component["id"].as_str().unwrap(): "major_outage"}}),
        )
        .await;
    assert_eq!(status, 201, "{incident}");
    let id = incident["id"].as_str().unwrap().to_owned();
    for step in ["identified", "monitoring"] {
        let body = format!("Now {step}.");
        let (status, posted) = s
            .app
            .api(&s.token)
            .post(
                &format!("/pages/fresh/incidents/{id}/updates"),
                serde_json::json!({"status": step, "body": body}),
            )
            .await;
        assert_eq!(status, 201, "{posted}");
        let summary: serde_json::Value = s
            .app
            .get("/status/fresh/api/v2/summary.json")
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(summary["incidents"][0]["status"], step, "{summary}");
        assert_eq!(
            summary["incidents"][0]["incident_updates"][0]["body"], body,
            "{summary}"
        );
        assert_eq!(summary["components"][0]["status"], "major_outage");
    }
}

/// Two components of one name in two regions: every place a person picks or reads one names
/// its region (the v2 JSON keeps the plain name).
async fn components_of_one_name_are_told_apart_by_region_everywhere(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(herald::domain::Role::Owner).await;
    let page = app
        .page("acme")
        .with_components(&["API", "API"])
        .through_api(&token)
        .create()
        .await;
    for (id, region) in page.components.iter().zip(["eu-west", "us-east"]) {
        let path = format!("/pages/acme/components/{id}");
        let (status, body) = app
            .api(&token)
            .patch(&path, json!({"region": region}))
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = app
        .api(&token)
        .post(
            "/pages/acme/incidents",
            json!({"name": "Slow API", "body": "Looking.", "impact": "minor",
                   "components": {page.components[1].to_string(): "degraded_performance"}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    app.refreshed().await;
    let overview = app.get("/status/acme").await.text().await.unwrap();
    assert!(
        overview
            .contains(r#"<span class="affected-item">API (us-east) (Degraded Performance)</span>"#),
        "{overview}"
    );
    assert!(overview.contains(r#"aria-label="Uptime of API (eu-west) over the last 90 days""#));
    let subscribe = app
        .get("/status/acme/subscribe")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        subscribe.contains(">API (eu-west)</label>")
            && subscribe.contains(">API (us-east)</label>"),
        "{subscribe}"
    );
    let support = app.get("/status/acme/support").await.text().await.unwrap();
    assert!(
        support.contains(">API (eu-west)</option>") && support.contains(">API (us-east)</option>"),
        "{support}"
    );
    let feed = app
        .get("/status/acme/history.atom")
        .await
        .text()
        .await
        .unwrap();
    assert!(feed.contains("API (us-east)"), "{feed}");
    let v2: serde_json::Value = app
        .get("/status/acme/api/v2/incidents.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v2["incidents"][0]["components"][0]["name"], "API");
}
