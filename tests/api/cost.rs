//! A write costs what it changes: each kind of change renders again exactly the documents the
//! map names (`render::change`) and keeps the others; documents rendered on demand are the
//! same bytes as rendered ahead, are dropped from their cache when their data changes, and are
//! rendered from memory while the database is down.

use std::collections::BTreeSet;
use std::sync::Arc;

use herald::domain::Role;
use herald::domain::lang::Lang;
use herald::render::change::{self, Doc};
use herald::render::site::PageSnapshot;
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb};
use crate::public::seed_demo;

on_both_backends!(
    each_kind_of_write_renders_again_exactly_what_the_map_names,
    a_document_rendered_on_demand_is_the_same_bytes_as_one_rendered_ahead,
    a_cached_document_is_dropped_when_its_data_changes_and_the_others_stay,
    a_cold_read_while_the_database_is_down_is_rendered_from_memory,
    a_page_in_several_languages_renders_its_default_ahead_and_the_others_on_first_read,
);

fn demo(app: &TestApp) -> Arc<PageSnapshot> {
    app.site.snapshot().pages["demo"].clone()
}

/// The documents the map says the change from `before` to `after` touches that are held
/// ahead, against what the refresh rendered: the same, and every other one kept as it was.
fn rendered_as_the_map_says(before: &PageSnapshot, after: &PageSnapshot) -> BTreeSet<Doc> {
    let changes = change::changes(&before.data, &after.data);
    let touched = change::touched_by_all(&changes, &before.data, &after.data);
    let ahead: BTreeSet<Doc> = touched.into_iter().filter(Doc::ahead).collect();
    let rendered: BTreeSet<Doc> = after.rendered.iter().map(|(_, d)| d.clone()).collect();
    assert_eq!(rendered, ahead, "changes: {changes:?}");
    assert_eq!(
        after.rendered.len(),
        ahead.len(),
        "once each (one language)"
    );
    for (key, rep) in &after.reps {
        let doc = Doc::parse(key);
        if doc.as_ref().is_some_and(|d| !rendered.contains(d)) {
            assert!(
                Arc::ptr_eq(rep, &before.reps[key]),
                "{key} was rendered again though the map leaves it"
            );
        }
    }
    rendered
}

fn docs(list: &[Doc]) -> BTreeSet<Doc> {
    list.iter().cloned().collect()
}

async fn each_kind_of_write_renders_again_exactly_what_the_map_names(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let token = app.token(Role::Owner).await;
    let api = app.api(&token);
    let id = |name: &str| -> String {
        let page = demo(&app);
        let found = page.data.components.iter().find(|c| c.name == name);
        found.map(|c| c.id.clone()).unwrap()
    };
    let (email, api_id) = (id("Email notifications"), id("REST API"));

    // A component's status: what shows components, and the page's status where it moved.
    let before = demo(&app);
    let (status, body) = api
        .patch(
            &format!("/pages/demo/components/{email}"),
            json!({"status": "major_outage"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let after = demo(&app);
    let rendered = rendered_as_the_map_says(&before, &after);
    assert_eq!(
        rendered,
        docs(&[
            Doc::Overview,
            Doc::Summary,
            Doc::Status,
            Doc::Badge,
            Doc::Embed,
            Doc::Widget
        ]),
        "a major outage moves the page's status, so the badge and embed too"
    );
    assert!(
        after
            .stamps
            .iter()
            .filter(|(d, _)| matches!(d, Doc::Incident(_) | Doc::History(_)))
            .all(|(d, stamp)| before.stamps.get(d) == Some(stamp)),
        "no incident or history page is touched"
    );

    // An update of the open incident: its page, the present, its lists.
    let open = after
        .data
        .open_incidents()
        .next()
        .map(|i| i.id.clone())
        .unwrap();
    let before = after;
    let (status, body) = api
        .post(
            &format!("/pages/demo/incidents/{open}/updates"),
            json!({"status": "monitoring", "body": "A fix is out; we are watching.", "notify": false}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let after = demo(&app);
    let rendered = rendered_as_the_map_says(&before, &after);
    assert!(rendered.contains(&Doc::Overview) && rendered.contains(&Doc::Summary));
    assert!(
        !rendered.contains(&Doc::Badge),
        "the page's status did not move"
    );
    assert_ne!(
        after.stamps[&Doc::Incident(open.clone())],
        before.stamps[&Doc::Incident(open.clone())],
        "the incident's own page is made again on its next read"
    );
    let old = before
        .data
        .incidents
        .iter()
        .find(|i| !i.status.is_open())
        .map(|i| Doc::Incident(i.id.clone()))
        .unwrap();
    assert_eq!(
        after.stamps[&old], before.stamps[&old],
        "a resolved one is kept"
    );

    // An incident opened: the present, its page, its lists.
    let before = after;
    let (status, body) = api
        .post(
            "/pages/demo/incidents",
            json!({
                "name": "API latency", "body": "Slow answers.", "notify": false,
                "components": {api_id.clone(): "degraded_performance"},
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let after = demo(&app);
    let rendered = rendered_as_the_map_says(&before, &after);
    assert!(rendered.contains(&Doc::Overview) && rendered.contains(&Doc::Summary));
    let new_id = body["id"].as_str().unwrap();
    assert!(after.stamps.contains_key(&Doc::Incident(new_id.to_owned())));
}

/// Every document of the demo page, in English and German: its bytes over HTTP (held ahead or
/// rendered on demand) against the renderer's, from the same data.
async fn a_document_rendered_on_demand_is_the_same_bytes_as_one_rendered_ahead(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let token = app.token(Role::Owner).await;
    let (status, body) = app
        .api(&token)
        .patch("/pages/demo", json!({"languages": ["en", "de"]}))
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let page = demo(&app);
    let all = change::all(&page.data);
    assert!(
        all.iter().any(|d| !d.ahead()),
        "some are rendered on demand"
    );
    for lang in [Lang::En, Lang::De] {
        for doc in &all {
            let key = doc.key();
            let (page_, snapshot) = (page.clone(), app.site.clone());
            let doc_ = doc.clone();
            let expected = tokio::task::spawn_blocking(move || {
                let rendered = snapshot
                    .renderer
                    .render_doc(&page_.data, lang, &doc_, &mut None);
                rendered.unwrap().unwrap().identity
            })
            .await
            .unwrap();
            let path = match key.split_once('?') {
                Some((path, query)) => {
                    format!("/status/demo/{path}?{query}&lang={}", lang.as_str())
                }
                None if key.is_empty() => format!("/status/demo?lang={}", lang.as_str()),
                None => format!("/status/demo/{key}?lang={}", lang.as_str()),
            };
            let res = app
                .client
                .get(format!("{}{path}", app.address))
                .header("Accept-Encoding", "identity")
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200, "{path}");
            let got = res.bytes().await.unwrap();
            assert_eq!(got, expected, "{path} ({doc:?}, ahead: {})", doc.ahead());
        }
    }
    assert!(
        !app.site.on_demand.is_empty(),
        "what was read on demand is kept"
    );
}

/// A write on a page read in English and German renders the documents held ahead in English
/// only; a German read of the overview renders it then (and keeps it) until the next change.
async fn a_page_in_several_languages_renders_its_default_ahead_and_the_others_on_first_read(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let token = app.token(Role::Owner).await;
    let api = app.api(&token);
    let (status, body) = api
        .patch("/pages/demo", json!({"languages": ["en", "de"]}))
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let email = demo(&app)
        .data
        .components
        .iter()
        .find(|c| c.name == "Email notifications")
        .map(|c| c.id.clone())
        .unwrap();
    let german = |page: &PageSnapshot| page.on_demand_key(Lang::De, "").unwrap();
    let read_german = || async {
        let res = app.get("/status/demo?lang=de").await;
        assert_eq!(res.status(), 200);
        res.text().await.unwrap()
    };
    for (round, status) in ["major_outage", "operational"].into_iter().enumerate() {
        let before = demo(&app);
        let (code, body) = api
            .patch(
                &format!("/pages/demo/components/{email}"),
                json!({"status": status}),
            )
            .await;
        assert_eq!(code, 200, "{body}");
        let after = demo(&app);
        assert!(!after.rendered.is_empty(), "round {round}");
        assert!(
            after.rendered.iter().all(|(lang, _)| *lang == Lang::En),
            "only the default language is rendered ahead: {:?}",
            after.rendered
        );
        assert_ne!(
            german(&before),
            german(&after),
            "a new stamp for the change"
        );
        assert!(
            app.site.on_demand.get(&german(&before)).is_none(),
            "the German overview of the data before is dropped"
        );
        assert!(app.site.on_demand.get(&german(&after)).is_none());
        let html = read_german().await;
        assert!(html.contains(r#"<html lang="de""#), "{html}");
        let shown = match status {
            "major_outage" => "Schwerer Ausfall",
            _ => "Betriebsbereit",
        };
        let row = html
            .split_once(r#"Email notifications</p>"#)
            .and_then(|(_, rest)| rest.split_once("</span>"))
            .map(|(row, _)| row)
            .expect("the component's row");
        assert!(row.ends_with(shown), "round {round}: {row}");
        assert!(
            app.site.on_demand.get(&german(&after)).is_some(),
            "kept after its first read"
        );
        assert_eq!(read_german().await, html, "the kept bytes");
    }
}

async fn a_cached_document_is_dropped_when_its_data_changes_and_the_others_stay(db: TestDb) {
    let app = TestApp::spawn(db).await;
    seed_demo(&app).await;
    let token = app.token(Role::Owner).await;
    let page = demo(&app);
    let mut resolved = page.data.incidents.iter().filter(|i| !i.status.is_open());
    let (first, second) = (resolved.next().unwrap(), resolved.next().unwrap());
    let (first, second) = (first.id.clone(), second.id.clone());
    for id in [&first, &second] {
        let html = app.get(&format!("/status/demo/incidents/{id}")).await;
        assert_eq!(html.status(), 200);
    }
    let lang = page.data.page.default_language;
    let key = |page: &PageSnapshot, id: &str| {
        page.on_demand_key(lang, &format!("incidents/{id}"))
            .unwrap()
    };
    let (first_key, second_key) = (key(&page, &first), key(&page, &second));
    assert!(
        app.site.on_demand.get(&first_key).is_some(),
        "kept after its read"
    );
    assert!(app.site.on_demand.get(&second_key).is_some());

    let (status, body) = app
        .api(&token)
        .patch(
            &format!("/pages/demo/incidents/{first}"),
            json!({"name": "Renamed after the review"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        app.site.on_demand.get(&first_key).is_none(),
        "dropped when its data changed"
    );
    assert!(
        app.site.on_demand.get(&second_key).is_some(),
        "another incident's page stays"
    );
    assert_eq!(key(&demo(&app), &second), second_key);
    let html = app
        .get(&format!("/status/demo/incidents/{first}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Renamed after the review"), "{html}");
}

async fn a_cold_read_while_the_database_is_down_is_rendered_from_memory(db: TestDb) {
    // As `public::pages_stay_up_while_the_database_is_unreachable`: a small pool and a short
    // wait, so the refresher learns of the outage within a poll.
    let app = TestApp::spawn_with(
        db,
        &[
            ("HERALD_DB_POOL_SIZE", "1"),
            ("HERALD_DB_TIMEOUT_MS", "200"),
        ],
        herald::workers::Registry::standard(),
    )
    .await;
    seed_demo(&app).await;
    let page = demo(&app);
    let old = page
        .data
        .incidents
        .iter()
        .find(|i| !i.status.is_open())
        .unwrap();
    let (id, name) = (old.id.clone(), old.name.clone());
    let outage = app.break_database().await;
    app.wait_for_text("/status/demo", "temporarily unavailable")
        .await;
    assert!(app.site.on_demand.is_empty(), "never read before");
    for path in [
        format!("/status/demo/incidents/{id}"),
        "/status/demo/history".to_owned(),
        "/status/demo/history.atom".to_owned(),
        "/status/demo/api/v2/incidents.json".to_owned(),
    ] {
        let res = app.get(&path).await;
        assert_eq!(res.status(), 200, "{path} during the outage");
        let text = res.text().await.unwrap();
        let shown: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(
            text.contains(&name) || shown != Value::Null,
            "{path} shows the page's data"
        );
    }
    outage.restore().await;
}
