//! The public pages, their forms and the console with the keyboard alone, in a real headless
//! Chromium: Tab reaches every control in order, each drawn with a visible focus ring, the
//! forms' fields and buttons are among them, and Enter follows a link.

use herald::domain::Role;

use super::cdp;
use crate::helpers::{PASSWORD, TestApp, TestDb};

/// The element that has the focus, described, and whether a focus ring is drawn around it
/// (its own outline or shadow, or its table cell's, as the status grid draws it).
const FOCUSED: &str = "(() => { const e = document.activeElement; \
    if (!e || e === document.body) return null; \
    const drawn = (x) => { const s = getComputedStyle(x); \
      return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none'; }; \
    const cell = e.closest('td'); \
    const text = (e.getAttribute('aria-label') || e.textContent || e.name || e.id || '').trim().replace(/\\s+/g, ' ').slice(0, 40); \
    return [e.tagName.toLowerCase() + (e.name ? '[' + e.name + ']' : '') + ' ' + text, drawn(e) || (cell !== null && drawn(cell))]; })()";

/// Presses Tab from the top of the page until the focus leaves the page or comes back to the
/// first stop (at most `limit` presses); answers each stop and whether its ring shows.
fn tab_through(page: &mut cdp::Page, limit: usize) -> Vec<(String, bool)> {
    let mut stops: Vec<(String, bool)> = Vec::new();
    for _ in 0..limit {
        page.press("Tab", 9, 0);
        let value = page.eval(FOCUSED);
        let Some([what, ring]) = value.as_array().map(|a| [a[0].clone(), a[1].clone()]) else {
            break;
        };
        let what = what.as_str().unwrap_or_default().to_owned();
        if stops.first().is_some_and(|(first, _)| *first == what) {
            break;
        }
        stops.push((what, ring.as_bool().unwrap_or(false)));
    }
    stops
}

fn assert_reaches(stops: &[(String, bool)], wanted: &[&str], at: &str) {
    let without: Vec<&String> = stops
        .iter()
        .filter(|(_, ring)| !ring)
        .map(|(w, _)| w)
        .collect();
    assert!(without.is_empty(), "{at}: no focus ring on {without:?}");
    for want in wanted {
        assert!(
            stops.iter().any(|(what, _)| what.contains(want)),
            "{at}: Tab never reaches {want}: {stops:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_pages_forms_and_console_work_with_the_keyboard_alone() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.acme().await;
    app.user("ops@example.com", Role::Responder).await;
    app.refreshed().await;
    let base = app.address.clone();
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        let checks: [(&str, &[&str]); 4] = [
            (
                "/status/acme",
                &["a Skip to main content", "a Subscribe", "a Support"],
            ),
            (
                "/status/acme/subscribe",
                &["input[email]", "input[components]", "button"],
            ),
            (
                "/status/acme/support",
                &[
                    "input[name]",
                    "input[email]",
                    "select[topic]",
                    "textarea[message]",
                    "button",
                ],
            ),
            (
                "/admin/login",
                &["input[email]", "input[password]", "button Sign in"],
            ),
        ];
        for (path, wanted) in checks {
            page.goto(&format!("{base}{path}"));
            let stops = tab_through(&mut page, 120);
            assert_reaches(&stops, wanted, path);
        }

        // Enter on a focused link follows it: from the status page to the support form.
        page.goto(&format!("{base}/status/acme"));
        let mut reached = false;
        for _ in 0..60 {
            page.press("Tab", 9, 0);
            let text = page.eval("document.activeElement.textContent.trim()");
            if text.as_str() == Some("Support") {
                reached = true;
                break;
            }
        }
        assert!(reached, "Tab reaches the Support link");
        page.press("Enter", 13, 0);
        page.wait_for("Page.loadEventFired");
        let url = page.eval("location.pathname");
        assert_eq!(url, serde_json::json!("/status/acme/support"));

        // Signed in with the keyboard: type into the focused fields, Enter sends the form.
        page.goto(&format!("{base}/admin/login"));
        page.eval("document.querySelector('input[name=email]').focus()");
        page.type_text("ops@example.com");
        page.press("Tab", 9, 0);
        page.type_text(PASSWORD);
        page.press("Enter", 13, 0);
        page.wait_for("Page.loadEventFired");
        assert_eq!(page.eval("location.pathname"), serde_json::json!("/admin"));
        let stops = tab_through(&mut page, 120);
        assert_reaches(
            &stops,
            &["Open an incident", "Components", "Sign out"],
            "/admin",
        );
        page.goto(&format!("{base}/admin/pages/acme/incidents/new"));
        let stops = tab_through(&mut page, 200);
        assert_reaches(
            &stops,
            &[
                "input[name]",
                "textarea[body]",
                "input[component.",
                "button Open incident",
            ],
            "the incident form",
        );
    })
    .await
    .unwrap();
}
