//! The status embed shows an incident's name as text: in a real headless Chromium, a name
//! written as markup is the banner's text (on a host page of another origin, and in the framed
//! embed), and no element is made of it. The script has no way to make elements of text: it
//! never uses `innerHTML`, `outerHTML`, `insertAdjacentHTML` or `document.write`.

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb};

use crate::browser::cdp;
use crate::browser::embed::{HostSite, wait_for_value};

/// The incident's name: markup that runs a handler if it ever becomes an element.
const MARKUP: &str = "<img src=x onerror=alert(1)>";

/// The ways a script turns text into elements.
const HTML_SINKS: [&str; 4] = [
    "innerHTML",
    "outerHTML",
    "insertAdjacentHTML",
    "document.write",
];

/// Asserts `script` uses none of [`HTML_SINKS`].
fn no_html_sinks(what: &str, script: &str) {
    for sink in HTML_SINKS {
        assert!(!script.contains(sink), "{what} uses {sink}");
    }
}

#[test]
fn the_embed_script_never_turns_text_into_markup() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/embed.js");
    let script = std::fs::read_to_string(path).unwrap();
    assert!(script.contains("textContent"), "the script writes text");
    no_html_sinks(path, &script);
}

const EMBED: &str = "document.querySelector('[data-herald-embed]')";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incident_named_in_markup_shows_as_text_in_the_embed_and_makes_no_element() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    let herald = app.address.clone();
    // The host page counts any alert() instead of showing it.
    let host = HostSite::start(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>Host app</title>\
         <script>window.heldAlerts = 0; window.alert = function () {{ window.heldAlerts++; }};</script>\
         </head><body><h1>Our app</h1>\
         <script src=\"{herald}/status/acme/embed.js\" async></script>\
         <iframe id=\"framed\" title=\"Acme status\" src=\"{herald}/status/acme/embed\"></iframe>\
         </body></html>"
    ));
    let (status, page) = app
        .api(&owner)
        .patch(
            "/pages/acme",
            json!({"embed_origins": [host.origin.clone()]}),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    let (status, opened) = app
        .api(&owner)
        .post(
            "/pages/acme/incidents",
            json!({"name": MARKUP, "impact": "major", "body": "Investigating."}),
        )
        .await;
    assert_eq!(status, 201, "{opened}");
    assert_eq!(opened["name"], MARKUP, "stored as written");
    app.refreshed().await;

    // The script as served: the same rule.
    let served = app.get("/status/acme/embed.js").await.text().await.unwrap();
    no_html_sinks("/status/acme/embed.js", &served);
    let widget: Value = app
        .get("/status/acme/widget.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(widget["incidents"][0]["name"], MARKUP, "{widget}");

    let url = format!("{}/app", host.origin);
    let frame_url = format!("{herald}/status/acme/embed");
    let (banner, framed) = tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        page.goto(&url);
        wait_for_value(
            &mut page,
            &format!("(s => s && s !== 'none' ? s : null)({EMBED}?.dataset.status)"),
        );
        let root = format!("{EMBED}.shadowRoot");
        let banner = page.eval(&format!(
            "({{hidden: {EMBED}.hidden, name: {root}.querySelector('.bar strong').textContent, \
              text: {root}.querySelector('.bar').textContent, \
              shadowImgs: {root}.querySelectorAll('img').length, \
              docImgs: document.querySelectorAll('img').length, \
              elements: [...{root}.querySelectorAll('.bar strong *')].length, \
              alerts: window.heldAlerts}})"
        ));
        let mut frame = browser
            .frame(&frame_url)
            .expect("the framed embed is a target of its own");
        let framed = wait_for_value(
            &mut frame,
            "document.body && document.body.textContent.includes('<img') ? \
             ({text: document.body.textContent, imgs: document.querySelectorAll('img').length, \
               handlers: document.querySelectorAll('[onerror]').length}) : null",
        );
        // Whatever an error handler would have done, it had its chance by now: the host page
        // reads its counter again after the frame was read.
        let alerts = page.eval("window.heldAlerts");
        let mut banner = banner;
        banner["alerts_after"] = alerts;
        (banner, framed)
    })
    .await
    .unwrap();

    assert_eq!(banner["hidden"], false, "{banner}");
    assert_eq!(banner["name"], MARKUP, "the name, as text: {banner}");
    assert!(
        banner["text"].as_str().unwrap().contains(MARKUP),
        "{banner}"
    );
    assert_eq!(banner["shadowImgs"], 0, "no img made of the name: {banner}");
    assert_eq!(banner["docImgs"], 0, "{banner}");
    assert_eq!(banner["elements"], 0, "{banner}");
    assert_eq!(banner["alerts"], 0, "{banner}");
    assert_eq!(banner["alerts_after"], 0, "{banner}");
    assert!(
        framed["text"].as_str().unwrap().contains(MARKUP),
        "{framed}"
    );
    assert_eq!(framed["imgs"], 0, "{framed}");
    assert_eq!(framed["handlers"], 0, "{framed}");
}
