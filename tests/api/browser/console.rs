//! The console in a real headless Chromium: a responder signs in, opens an incident and posts
//! an update through the forms (previewing the message first), and the public page shows it.
//! Screenshots are saved.

use std::time::{Duration, Instant};

use herald::domain::Role;

use super::{cdp, screenshot_dir};
use crate::helpers::{PASSWORD, TestApp, TestDb};

/// Fills the fields of the page's form `selector` (by name) and submits it like a person would.
fn submit(page: &mut cdp::Page, selector: &str, fields: &[(&str, &str)]) {
    let fields = serde_json::to_string(fields).unwrap();
    let script = format!(
        "(() => {{ const f = document.querySelector({sel}); \
         for (const [k, v] of {fields}) {{ f.elements[k].value = v; }} \
         f.requestSubmit(); return true; }})()",
        sel = serde_json::to_string(selector).unwrap()
    );
    assert_eq!(
        page.eval(&script),
        serde_json::json!(true),
        "form {selector} found"
    );
    page.wait_for("Page.loadEventFired");
}

/// Fills the console form and presses its "Preview" button.
fn preview(page: &mut cdp::Page, fields: &[(&str, &str)]) {
    let fields = serde_json::to_string(fields).unwrap();
    let script = format!(
        "(() => {{ const f = document.querySelector('form.console-form'); \
         for (const [k, v] of {fields}) {{ f.elements[k].value = v; }} \
         f.requestSubmit(f.querySelector('button[name=preview]')); return true; }})()"
    );
    assert_eq!(
        page.eval(&script),
        serde_json::json!(true),
        "preview pressed"
    );
    page.wait_for("Page.loadEventFired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signs_in_opens_an_incident_and_posts_an_update_through_the_console() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let component = app.acme().await.components.remove(0);
    app.user("ops@example.com", Role::Responder).await;
    let base = app.address.clone();
    let site = app.site.clone();
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        let dir = screenshot_dir();
        page.goto(&format!("{base}/admin"));
        let login = [("email", "ops@example.com"), ("password", PASSWORD)];
        submit(&mut page, "form[action='/admin/login']", &login);
        let html = page.html();
        assert!(html.contains("Open an incident"), "signed in: {html}");
        std::fs::write(dir.join("console-dashboard.png"), page.screenshot()).unwrap();

        page.goto(&format!("{base}/admin/pages/acme/incidents/new"));
        let field = format!("component.{component}");
        let opening = [
            ("name", "Checkout is failing"),
            ("impact", "major"),
            ("body", "Payments fail for **some** users."),
            (field.as_str(), "partial_outage"),
        ];
        preview(&mut page, &opening);
        let html = page.html();
        assert!(
            html.contains("Payments fail for <strong>some</strong> users."),
            "{html}"
        );
        assert!(
            html.contains(r#"value="Checkout is failing""#),
            "the form is kept"
        );
        std::fs::write(dir.join("console-preview.png"), page.screenshot()).unwrap();
        submit(&mut page, "form.console-form", &opening);
        let html = page.html();
        assert!(html.contains("Checkout is failing"), "{html}");
        assert!(html.contains("Next update by"), "the deadline is shown");

        let update = [
            ("status", "identified"),
            ("body", "A bad deploy; rolling back."),
        ];
        submit(&mut page, "form.console-form", &update);
        let html = page.html();
        assert!(html.contains("A bad deploy; rolling back."), "{html}");
        assert!(html.contains(r#"data-status="">Identified<"#), "{html}");
        std::fs::write(dir.join("console-incident.png"), page.screenshot()).unwrap();

        let started = Instant::now();
        loop {
            page.goto(&format!("{base}/status/acme"));
            let html = page.html();
            if html.contains("A bad deploy; rolling back.") {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the public page shows the update: {html}"
            );
            site.passes.wake();
            std::thread::sleep(Duration::from_millis(200));
        }
        std::fs::write(dir.join("console-public-page.png"), page.screenshot()).unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_fits_a_phone_at_390_px() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.acme().await;
    app.user("ops@example.com", Role::Responder).await;
    let base = app.address.clone();
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        let dir = screenshot_dir();
        page.call(
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}),
        );
        page.goto(&format!("{base}/admin"));
        let login = [("email", "ops@example.com"), ("password", PASSWORD)];
        submit(&mut page, "form[action='/admin/login']", &login);
        assert!(page.html().contains("Open an incident"), "signed in");
        let overflow = "document.documentElement.scrollWidth - window.innerWidth";
        for (path, shot) in [
            ("/admin", "console-390px-dashboard.png"),
            ("/admin/pages/acme/incidents/new", "console-390px-new-incident.png"),
            ("/admin/pages/acme/components", "console-390px-components.png"),
        ] {
            page.goto(&format!("{base}{path}"));
            let sideways = page.eval(overflow);
            std::fs::write(dir.join(shot), page.screenshot()).unwrap();
            assert!(
                sideways.as_i64().is_some_and(|px| px <= 0),
                "no sideways scrolling at 390 px on {path}: {sideways}"
            );
        }
        // The status grid on a phone: each component a block, its statuses named.
        page.goto(&format!("{base}/admin/pages/acme/incidents/new"));
        let named = page.eval(
            "(() => { const grid = document.querySelector('.status-grid'); \
              grid.scrollIntoView(); \
              return getComputedStyle(grid.querySelector('.status-grid-cell')).position; })()",
        );
        assert_eq!(named, serde_json::json!("static"), "the statuses are named");
        std::fs::write(dir.join("console-390px-status-grid.png"), page.screenshot()).unwrap();
    })
    .await
    .unwrap();
}

/// Waits (up to 10 s, for a change of the page, not a timer) until the live preview holds
/// `wanted`, and answers its HTML.
fn preview_showing(page: &mut cdp::Page, wanted: &str) -> String {
    let wanted = serde_json::to_string(wanted).unwrap();
    let script = format!(
        "new Promise((resolve, reject) => {{ \
           const out = document.querySelector('#live-preview [data-preview-body]'); \
           const done = () => out.innerHTML.includes({wanted}); \
           if (done()) return resolve(out.innerHTML); \
           const seen = new MutationObserver(() => {{ if (done()) {{ seen.disconnect(); resolve(out.innerHTML); }} }}); \
           seen.observe(out, {{childList: true, subtree: true, characterData: true}}); \
           setTimeout(() => reject(new Error('the preview shows: ' + out.innerHTML)), 10000); \
         }})"
    );
    page.eval_async(&script)
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_previews_as_you_type_and_works_from_the_keyboard() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.page("acme")
        .with_components(&["API", "Web"])
        .create()
        .await;
    app.user("ops@example.com", Role::Responder).await;
    let base = app.address.clone();
    tokio::task::spawn_blocking(move || {
        let axe = cdp::axe();
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        let dir = screenshot_dir();
        page.goto(&format!("{base}/admin"));
        let login = [("email", "ops@example.com"), ("password", PASSWORD)];
        submit(&mut page, "form[action='/admin/login']", &login);

        // The first Tab reaches the skip link, drawn with the focus ring.
        page.goto(&format!("{base}/admin/pages/acme/incidents/new"));
        page.press("Tab", 9, 0);
        let focused = page.eval(
            "[document.activeElement.className, getComputedStyle(document.activeElement).outlineStyle]",
        );
        assert_eq!(focused, serde_json::json!(["skip-link", "solid"]));

        // The preview follows what is typed, rendered and sanitized by the server.
        assert_eq!(
            page.eval("document.getElementById('live-preview').hidden"),
            serde_json::json!(false),
            "the live preview shows when the script runs"
        );
        page.eval("document.getElementById('body').focus()");
        page.type_text("Payments fail for **some** users. <b onclick=alert(1)>Now.</b>");
        let shown = preview_showing(&mut page, "<strong>some</strong>");
        assert!(!shown.contains("onclick"), "{shown}");
        page.type_text(" Retry in _ten_ minutes.");
        preview_showing(&mut page, "<em>ten</em>");

        // The grid from the keyboard: arrows move along a row, checking as they go.
        page.eval("document.querySelector('.status-grid tbody input').focus()");
        page.press("ArrowRight", 39, 0);
        page.press("ArrowRight", 39, 0);
        page.press("ArrowRight", 39, 0);
        let chosen = page.eval(
            "[document.activeElement.value, document.activeElement.checked, \
              getComputedStyle(document.activeElement.closest('td')).outlineStyle]",
        );
        assert_eq!(chosen, serde_json::json!(["partial_outage", true, "solid"]));
        std::fs::write(dir.join("console-compose.png"), page.screenshot()).unwrap();
        let found = page.serious_accessibility_violations(&axe);
        assert!(found.is_empty(), "the incident form: {found:?}");

        // Ctrl+Enter in the message sends the form.
        page.eval("document.getElementById('name').value = 'Checkout is failing'");
        page.eval("document.getElementById('body').focus()");
        page.press("Enter", 13, 2);
        page.wait_for("Page.loadEventFired");
        let html = page.html();
        assert!(
            html.contains("Checkout is failing") && html.contains("Retry in <em>ten</em> minutes."),
            "opened with Ctrl+Enter: {html}"
        );
        assert!(html.contains("Partial Outage"), "the grid's choice was sent: {html}");

        // The components page sets every status in one form.
        page.goto(&format!("{base}/admin/pages/acme/components"));
        std::fs::write(dir.join("console-components-grid.png"), page.screenshot()).unwrap();
        let found = page.serious_accessibility_violations(&axe);
        assert!(found.is_empty(), "the components grid: {found:?}");
    })
    .await
    .unwrap();
}
