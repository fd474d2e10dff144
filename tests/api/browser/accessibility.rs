//! axe-core on the screens people use, in both colour schemes: the public page, its history
//! and an incident, subscribe, support, sign-in, and the console's main screens (dashboard,
//! opening an incident, an incident, components, settings). No serious or critical violation
//! of WCAG 2.1 A or AA.

use herald::domain::Role;
use serde_json::json;

use super::cdp;
use crate::helpers::{PASSWORD, TestApp, TestDb};
use crate::public::seed_demo;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_pages_flows_and_console_pass_axe_in_both_schemes() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let axe = tokio::task::spawn_blocking(cdp::axe).await.unwrap();
    let app = TestApp::spawn(TestDb::sqlite()).await;
    seed_demo(&app).await;
    app.user("admin@example.com", Role::Owner).await;
    let token = app.token(Role::Owner).await;
    let incident = super::demo_incident(&app, &token).await;
    let base = app.address.clone();
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        // The check itself finds what it should: an image without a text alternative and a
        // control without a name.
        page.goto("data:text/html,<html lang=en><title>t</title><main><img src=x.png><button></button></main></html>");
        let broken = page.serious_accessibility_violations(&axe).join("\n");
        assert!(
            broken.contains("image-alt") && broken.contains("button-name"),
            "{broken}"
        );
        let public = [
            "/status/demo".to_owned(),
            "/status/demo/history?page=1".to_owned(),
            format!("/status/demo/incidents/{incident}"),
            "/status/demo/subscribe".to_owned(),
            "/status/demo/support".to_owned(),
            "/admin/login".to_owned(),
        ];
        let console = [
            "/admin".to_owned(),
            "/admin/pages/demo/incidents/new".to_owned(),
            format!("/admin/pages/demo/incidents/{incident}"),
            "/admin/pages/demo/components".to_owned(),
            "/admin/pages/demo/settings".to_owned(),
        ];
        let mut found = Vec::new();
        let mut check = |page: &mut cdp::Page, paths: &[String]| {
            for scheme in ["light", "dark"] {
                page.call(
                    "Emulation.setEmulatedMedia",
                    json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
                );
                for path in paths {
                    page.goto(&format!("{base}{path}"));
                    for violation in page.serious_accessibility_violations(&axe) {
                        found.push(format!("{path} ({scheme}): {violation}"));
                    }
                }
            }
        };
        check(&mut page, &public);
        page.call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "light"}]}),
        );
        page.goto(&format!("{base}/admin/login"));
        std::fs::write(super::screenshot_dir().join("sign-in.png"), page.screenshot()).unwrap();
        let sign_in = format!(
            "(() => {{ const f = document.querySelector(\"form[action='/admin/login']\"); \
             f.elements.email.value = 'admin@example.com'; f.elements.password.value = {}; \
             f.requestSubmit(); return true; }})()",
            serde_json::to_string(PASSWORD).unwrap()
        );
        assert_eq!(page.eval(&sign_in), json!(true));
        page.wait_for("Page.loadEventFired");
        assert!(page.html().contains("Sign out"), "signed in");
        check(&mut page, &console);
        assert!(found.is_empty(), "{found:#?}");
    })
    .await
    .unwrap();
}
