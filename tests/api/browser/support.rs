//! The support form in a real headless Chromium with JavaScript disabled: a person fills it in,
//! sends it, and reads their reference. Screenshots are saved.

use std::time::Duration;

use serde_json::json;

use super::{cdp, screenshot_dir};
use crate::helpers::TestDb;
use crate::support::Support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_without_javascript_sends_the_support_form_and_reads_the_reference() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let s = Support::spawn(TestDb::sqlite(), &[]).await;
    let url = format!("{}/status/acme/support", s.app.address);
    let html = tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        page.call(
            "Emulation.setScriptExecutionDisabled",
            json!({"value": true}),
        );
        page.goto(&url);
        let dir = screenshot_dir();
        std::fs::write(dir.join("support-form.png"), page.screenshot()).unwrap();
        // Scripts are off in the page, so type through the DevTools input domain, as a person
        // would: focus each field by clicking it, then insert the text.
        for (selector, text) in [
            ("#f-name", "Ada Lovelace"),
            ("#f-email", "ada@example.com"),
            ("#f-account", "acct-42"),
            (
                "#f-message",
                "I cannot sign in since this morning; the page says 'try again'.",
            ),
        ] {
            click(&mut page, selector);
            page.call("Input.insertText", json!({"text": text}));
        }
        choose(&mut page, "#f-topic", "sign_in");
        // The minimum fill time: people take longer than robots. Not synchronisation: the
        // product's own window, waited out as a person would.
        std::thread::sleep(Duration::from_millis(3200));
        click(&mut page, ".support-form button[type=submit]");
        page.wait_for("Page.loadEventFired");
        std::fs::write(dir.join("support-sent.png"), page.screenshot()).unwrap();
        page.html()
    })
    .await
    .unwrap();
    assert!(html.contains("Message received"), "{html}");
    let reference = html
        .split("data-reference=\"\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_default()
        .to_owned();
    assert!(reference.starts_with("SUP-"), "{html}");
    let stored = s.stored().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].reference, reference);
    assert_eq!(stored[0].topic, "sign_in");
    assert_eq!(stored[0].name, "Ada Lovelace");
}

/// Clicks the middle of the element `selector` with the mouse.
pub(super) fn click(page: &mut cdp::Page, selector: &str) {
    let doc = page.call("DOM.getDocument", json!({"depth": 0}));
    let node = page.call(
        "DOM.querySelector",
        json!({"nodeId": doc["root"]["nodeId"], "selector": selector}),
    );
    let node_id = node["nodeId"].clone();
    assert_ne!(node_id, json!(0), "{selector} found");
    page.call("DOM.scrollIntoViewIfNeeded", json!({"nodeId": node_id}));
    let model = page.call("DOM.getBoxModel", json!({"nodeId": node_id}));
    let quad = model["model"]["content"].as_array().unwrap();
    let x = (quad[0].as_f64().unwrap() + quad[4].as_f64().unwrap()) / 2.0;
    let y = (quad[1].as_f64().unwrap() + quad[5].as_f64().unwrap()) / 2.0;
    for kind in ["mousePressed", "mouseReleased"] {
        page.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        );
    }
}

/// Chooses `value` in the select `selector` with the keyboard (scripts are off).
fn choose(page: &mut cdp::Page, selector: &str, value: &str) {
    let doc = page.call("DOM.getDocument", json!({"depth": 0}));
    let node = page.call(
        "DOM.querySelector",
        json!({"nodeId": doc["root"]["nodeId"], "selector": selector}),
    );
    // DOM.setAttributeValue on the option works without running page scripts.
    let option = page.call(
        "DOM.querySelector",
        json!({"nodeId": node["nodeId"], "selector": format!("option[value='{value}']")}),
    );
    page.call(
        "DOM.setAttributeValue",
        json!({"nodeId": option["nodeId"], "name": "selected", "value": "selected"}),
    );
}
