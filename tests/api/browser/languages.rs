//! The demo page read in English and in German in Chromium: the German reader's browser
//! (`Accept-Language`, set through the DevTools protocol) gets German words, dates in German
//! form and the incident's German name, the switcher leads back to English, the countdown
//! counts in German, and axe-core finds no serious or critical violation. Screenshots of both.

use serde_json::json;

use super::{cdp, screenshot_dir};
use crate::helpers::{TestApp, TestDb};
use crate::public::seed_demo;
use herald::domain::Role;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_page_reads_in_english_and_in_german() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let axe = tokio::task::spawn_blocking(cdp::axe).await.unwrap();
    let app = TestApp::spawn(TestDb::sqlite()).await;
    seed_demo(&app).await;
    let token = app.token(Role::Owner).await;
    let (status, answer) = app
        .api(&token)
        .patch("/pages/demo", json!({"languages": ["en", "de"]}))
        .await;
    assert_eq!(status, 200, "{answer}");
    let (_, listed) = app.api(&token).get("/pages/demo/incidents").await;
    let incident = listed
        .as_array()
        .into_iter()
        .flatten()
        .find(|i| i["name"] == "Intermittent webhook delivery delays")
        .and_then(|i| i["id"].as_str())
        .expect("the demo's open incident")
        .to_owned();
    let (status, answer) = app
        .api(&token)
        .patch(
            &format!("/pages/demo/incidents/{incident}"),
            json!({"translations": {"de": {"name": "Verzögerte Webhook-Zustellung"}}}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    app.refreshed().await;
    let url = format!("{}/status/demo", app.address);
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        let dir = screenshot_dir();
        page.goto(&url);
        assert_eq!(page.eval("document.documentElement.lang"), json!("en"));
        std::fs::write(dir.join("lang-en.png"), page.screenshot()).unwrap();

        page.call("Network.enable", json!({}));
        page.call(
            "Network.setExtraHTTPHeaders",
            json!({"headers": {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}}),
        );
        page.goto(&url);
        assert_eq!(page.eval("document.documentElement.lang"), json!("de"));
        let html = page.html();
        assert!(html.contains("Verzögerte Webhook-Zustellung"), "{html}");
        assert!(html.contains(">Verlauf</a>"), "{html}");
        let countdown = page.eval("document.querySelector('[data-countdown]').textContent");
        assert!(
            countdown
                .as_str()
                .is_some_and(|t| t.starts_with("(in ") && t.contains("Min")),
            "the countdown in German: {countdown}"
        );
        let found = page.serious_accessibility_violations(&axe);
        assert!(found.is_empty(), "German page: {found:#?}");
        std::fs::write(dir.join("lang-de.png"), page.screenshot()).unwrap();

        // The switcher leads back to English, whatever the browser asks for.
        let english = page.eval("document.querySelector('.lang-switch a[hreflang=en]').href");
        page.goto(english.as_str().expect("a link to English"));
        assert_eq!(page.eval("document.documentElement.lang"), json!("en"));
        let history = page.eval("document.querySelector('.site-nav a[href*=history]').href");
        assert!(
            history.as_str().is_some_and(|h| h.ends_with("lang=en")),
            "the choice is kept from link to link: {history}"
        );
    })
    .await
    .unwrap();
}
