//! The status embed in a real headless Chromium: a host page on another origin loads
//! `embed.js` with one `<script>` tag and frames `/status/{slug}/embed`. No banner while all is
//! well; a banner naming the incident (and pointing to support when signing in is affected)
//! while one is open; dismissed, it stays away for the visit; the framed embed renders where
//! the page allows it, and is refused where it does not.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use herald::domain::Role;
use serde_json::{Value, json};

use super::{cdp, screenshot_dir};
use crate::helpers::{TestApp, TestDb};

/// A site on another origin (`http://localhost:PORT`; Herald is `http://127.0.0.1:PORT`)
/// serving one HTML page at every path.
pub(crate) struct HostSite {
    pub(crate) origin: String,
}

impl HostSite {
    pub(crate) fn start(html: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = [0u8; 4096];
                let _ = stream.read(&mut head);
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{html}",
                    html.len()
                );
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Self {
            origin: format!("http://localhost:{port}"),
        }
    }
}

/// Waits until `expression` evaluates to something other than `null` (or 15 s pass).
pub(crate) fn wait_for_value(page: &mut cdp::Page, expression: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let value = page.eval(expression);
        if !value.is_null() {
            return value;
        }
        assert!(Instant::now() < deadline, "{expression} stayed null");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the frame of `url` shows the embed (the browser shows its own error page in a
/// frame it refuses to render).
fn shows_embed(browser: &cdp::Browser, url: &str) -> bool {
    let mut frame = browser
        .frame(url)
        .expect("the frame is a target of its own");
    frame.eval("document.querySelector('body.embed .banner') !== null") == json!(true)
}

const EMBED: &str = "document.querySelector('[data-herald-embed]')";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_page_on_another_origin_shows_the_banner_only_while_something_is_on_and_frames_the_embed()
 {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let acme = app.acme().await;
    app.page("beta").create().await;
    let owner = app.token(Role::Owner).await;
    let herald = app.address.clone();
    let host = HostSite::start(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>Host app</title></head><body>\
         <h1>Our app</h1>\
         <script src=\"{herald}/status/acme/embed.js\" async></script>\
         <iframe id=\"allowed\" title=\"Acme status\" src=\"{herald}/status/acme/embed\"></iframe>\
         <iframe id=\"refused\" title=\"Beta status\" src=\"{herald}/status/beta/embed\"></iframe>\
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
    assert_eq!(page["embed_origins"], json!([host.origin.clone()]));
    app.refreshed().await;
    let url = format!("{}/app", host.origin);

    // All is well: the script reads the status and shows nothing.
    let (quiet, frames) = {
        let (url, herald, chromium) = (url.clone(), herald.clone(), chromium.clone());
        tokio::task::spawn_blocking(move || {
            let browser = cdp::Browser::launch(&chromium);
            let mut page = browser.new_page();
            page.goto(&url);
            let status = wait_for_value(&mut page, &format!("{EMBED}?.dataset.status ?? null"));
            let hidden = page.eval(&format!("{EMBED}.hidden"));
            let bars = page.eval(&format!(
                "{EMBED}.shadowRoot.querySelectorAll('.bar').length"
            ));
            let frames = [
                shows_embed(&browser, &format!("{herald}/status/acme/embed")),
                shows_embed(&browser, &format!("{herald}/status/beta/embed")),
            ];
            std::fs::write(screenshot_dir().join("embed-quiet.png"), page.screenshot()).unwrap();
            ((status, hidden, bars), frames)
        })
        .await
        .unwrap()
    };
    assert_eq!(quiet, (json!("none"), json!(true), json!(0)));
    // The embed renders in the frame the page allows; the other page's is refused.
    assert_eq!(
        frames,
        [true, false],
        "only the page that allows this site is framed"
    );

    // An incident on the sign-in component: the banner names it and points to support.
    let signin = acme.components[0].to_string();
    let (status, _) = app
        .api(&owner)
        .patch(
            &format!("/pages/acme/components/{signin}"),
            json!({"signin": true}),
        )
        .await;
    assert_eq!(status, 200);
    let incident = json!({
        "name": "Sign-in failures",
        "body": "Some people cannot sign in.",
        "impact": "major",
        "components": {signin.clone(): "major_outage"},
    });
    let (status, opened) = app
        .api(&owner)
        .post("/pages/acme/incidents", incident)
        .await;
    assert_eq!(status, 201, "{opened}");
    app.refreshed().await;
    let shown = tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        page.goto(&url);
        wait_for_value(
            &mut page,
            &format!("(s => s && s !== 'none' ? s : null)({EMBED}?.dataset.status)"),
        );
        let bar = format!("{EMBED}.shadowRoot.querySelector('.bar')");
        let banner = page.eval(&format!(
            "({{hidden: {EMBED}.hidden, role: {bar}.getAttribute('role'), \
              label: {bar}.getAttribute('aria-label'), text: {bar}.textContent, \
              links: [...{bar}.querySelectorAll('a')].map(a => a.href), \
              dismiss: {bar}.querySelector('button').getAttribute('aria-label'), \
              cookies: document.cookie}})"
        ));
        std::fs::write(
            screenshot_dir().join("embed-incident.png"),
            page.screenshot(),
        )
        .unwrap();
        // Dismissed, it goes, and stays away on the next page of the visit.
        page.eval(&format!("{bar}.querySelector('button').click()"));
        let dismissed = page.eval(&format!("{EMBED}.hidden"));
        page.goto(&url);
        wait_for_value(
            &mut page,
            &format!("(s => s && s !== 'none' ? s : null)({EMBED}?.dataset.status)"),
        );
        let after_reload = page.eval(&format!("{EMBED}.hidden"));
        (banner, dismissed, after_reload)
    })
    .await
    .unwrap();
    let (banner, dismissed, after_reload) = shown;
    assert_eq!(banner["hidden"], false, "{banner}");
    assert_eq!(banner["role"], "region");
    assert_eq!(banner["label"], "Acme status");
    let text = banner["text"].as_str().unwrap();
    assert!(text.contains("Sign-in failures"), "{text}");
    assert!(text.contains("Can't sign in? Contact support"), "{text}");
    // The links are the widget's: the incident's page and the support form.
    let widget = app.get("/status/acme/widget.json").await;
    assert_eq!(
        widget.headers()["access-control-allow-origin"],
        "*",
        "any site may read the widget"
    );
    let widget: Value = widget.json().await.unwrap();
    let links = banner["links"].as_array().unwrap();
    assert_eq!(links[0], widget["incidents"][0]["url"], "{links:?}");
    assert!(
        links[0]
            .as_str()
            .unwrap()
            .contains("/status/acme/incidents/"),
        "{links:?}"
    );
    assert_eq!(links[1], widget["support_url"]);
    assert!(links[1].as_str().unwrap().ends_with("/status/acme/support"));
    assert_eq!(banner["dismiss"], "Dismiss the status message");
    assert_eq!(banner["cookies"], "", "no cookie is set");
    assert_eq!(dismissed, true);
    assert_eq!(
        after_reload, true,
        "a dismissed banner stays away for the visit"
    );
}

/// The look an owner set through Statuspage's status embed config: the banner is a card in the
/// bottom right corner, in the owner's incident colours (the host page set no CSS of its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owners_look_puts_the_banner_in_its_corner_in_its_colours() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let acme = app.acme().await;
    let owner = app.token(Role::Owner).await;
    let look = json!({"status_embed_config": {
        "position": "bottom-right",
        "incident_background_color": "#112233",
        "incident_text_color": "#fefefe",
    }});
    let set = app
        .client
        .patch(format!("{}/v1/pages/acme/status_embed_config", app.address))
        .header("Authorization", format!("OAuth {owner}"))
        .json(&look)
        .send()
        .await
        .unwrap();
    assert_eq!(set.status(), 200);
    let component = acme.components[0].to_string();
    let incident = json!({
        "name": "Slow pages",
        "body": "Pages load slowly.",
        "impact": "major",
        "components": {component: "partial_outage"},
    });
    let (status, opened) = app
        .api(&owner)
        .post("/pages/acme/incidents", incident)
        .await;
    assert_eq!(status, 201, "{opened}");
    app.refreshed().await;
    let herald = app.address.clone();
    let host = HostSite::start(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>Host app</title></head><body>\
         <h1>Our app</h1><script src=\"{herald}/status/acme/embed.js\" async></script>\
         </body></html>"
    ));
    let url = format!("{}/app", host.origin);
    let drawn = tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        page.goto(&url);
        wait_for_value(
            &mut page,
            &format!("(s => s && s !== 'none' ? s : null)({EMBED}?.dataset.status)"),
        );
        let bar = format!("{EMBED}.shadowRoot.querySelector('.bar')");
        let drawn = page.eval(&format!(
            "((s, r) => ({{position: s.position, background: s.backgroundColor, \
              color: s.color, right: innerWidth - r.right, bottom: innerHeight - r.bottom, \
              width: r.width, link: getComputedStyle({bar}.querySelector('a')).color}}))\
              (getComputedStyle({bar}), {bar}.getBoundingClientRect())"
        ));
        std::fs::write(screenshot_dir().join("embed-look.png"), page.screenshot()).unwrap();
        drawn
    })
    .await
    .unwrap();
    assert_eq!(drawn["position"], "fixed", "{drawn}");
    // A card a little off the bottom right corner, narrower than the window.
    for edge in ["right", "bottom"] {
        let off = drawn[edge].as_f64().unwrap();
        assert!((1.0..=40.0).contains(&off), "{edge}: {drawn}");
    }
    assert!(drawn["width"].as_f64().unwrap() < 500.0, "a card: {drawn}");
    assert_eq!(drawn["background"], "rgb(17, 34, 51)", "{drawn}");
    assert_eq!(drawn["color"], "rgb(254, 254, 254)", "{drawn}");
    assert_eq!(
        drawn["link"], "rgb(254, 254, 254)",
        "links in the text colour: {drawn}"
    );
}
