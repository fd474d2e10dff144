//! The demo page in a real headless Chromium (Debian's `chromium`), driven over the DevTools
//! protocol: the countdown runs, the page reads with JavaScript off, it fits a 360 px screen,
//! and screenshots are saved for a person to look at.

mod accessibility;
mod brand;
pub(crate) mod cdp;
mod console;
pub(crate) mod embed;
mod keyboard;
mod languages;
mod subscribe;
mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::helpers::{TestApp, TestDb};
use crate::public::seed_demo;

/// Where the screenshots go (kept after the run).
fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The id of the demo page's latest incident (the page is seeded by `seed_demo`).
async fn demo_incident(app: &TestApp, token: &str) -> String {
    let (_, incidents) = app.api(token).get("/pages/demo/incidents").await;
    incidents
        .as_array()
        .or(incidents["items"].as_array())
        .and_then(|list| list.first())
        .and_then(|i| i["id"].as_str())
        .expect("the demo has incidents")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_page_counts_down_reads_without_javascript_and_fits_a_phone() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    seed_demo(&app).await;
    let url = format!("{}/status/demo", app.address);
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        page.goto(&url);
        let countdown = "document.querySelector('[data-countdown]').textContent";
        let first = page.eval(countdown);
        assert!(
            first.as_str().is_some_and(|t| !t.trim().is_empty()),
            "the countdown is filled in: {first}"
        );
        // The countdown runs: its text changes (it counts seconds) within a few seconds.
        let deadline = Instant::now() + Duration::from_secs(10);
        while page.eval(countdown) == first {
            assert!(Instant::now() < deadline, "the countdown runs: {first}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let localized = page.eval("document.querySelectorAll('time[data-local][title]').length");
        assert!(
            localized.as_u64().unwrap_or(0) > 0,
            "times are shown in the reader's zone"
        );
        let dir = screenshot_dir();
        std::fs::write(dir.join("demo-desktop.png"), page.screenshot()).unwrap();

        page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 360, "height": 800, "deviceScaleFactor": 1, "mobile": true}),
        );
        page.goto(&url);
        let overflow = page.eval("document.documentElement.scrollWidth - window.innerWidth");
        assert!(
            overflow.as_i64().is_some_and(|px| px <= 0),
            "no sideways scrolling at 360 px: {overflow}"
        );
        std::fs::write(dir.join("demo-360px.png"), page.screenshot()).unwrap();
        page.call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        );
        page.goto(&url);
        std::fs::write(dir.join("demo-360px-dark.png"), page.screenshot()).unwrap();

        page.call(
            "Emulation.setScriptExecutionDisabled",
            json!({"value": true}),
        );
        page.goto(&url);
        let html = page.html();
        assert!(
            html.contains("Next update by"),
            "the promise reads without JavaScript"
        );
        assert!(html.contains("Intermittent webhook delivery delays"));
        assert!(html.contains("Database failover drill"));
        assert!(html.contains("Degraded performance") || html.contains("Degraded Performance"));
        let countdown = html.split("data-countdown").nth(1).unwrap_or("");
        let countdown = countdown.trim_start_matches("=\"\"");
        assert!(
            countdown.starts_with("></span>"),
            "without JavaScript there is no countdown, only the time"
        );
        std::fs::write(dir.join("demo-no-js.png"), page.screenshot()).unwrap();
        eprintln!("screenshots in {}", dir.display());
    })
    .await
    .unwrap();
}
