//! The subscribe form in a real headless Chromium: each way to subscribe shows its own fields
//! under its choice (CSS only, no script), and component updates sit apart from the list of
//! components. Screenshots are saved.

use super::support::click;
use super::{cdp, screenshot_dir};
use crate::helpers::{TestApp, TestDb};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_subscribe_form_shows_the_fields_of_the_chosen_way() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.page("acme")
        .with_components(&["API", "Website"])
        .create()
        .await;
    app.refreshed().await;
    let url = format!("{}/status/acme/subscribe", app.address);
    let seen = tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        page.goto(&url);
        let shown = |page: &mut cdp::Page, id: &str| {
            page.eval(&format!(
                "document.getElementById('{id}').getClientRects().length > 0"
            ))
        };
        let fields = ["f-email", "f-url", "f-contact"];
        let before: Vec<_> = fields.iter().map(|f| shown(&mut page, f)).collect();
        let dir = screenshot_dir();
        std::fs::write(dir.join("subscribe-email.png"), page.screenshot()).unwrap();
        click(&mut page, "#f-type-webhook");
        let after: Vec<_> = fields.iter().map(|f| shown(&mut page, f)).collect();
        std::fs::write(dir.join("subscribe-webhook.png"), page.screenshot()).unwrap();
        let legends = page.eval(
            "Array.from(document.querySelectorAll('legend')).map(l => l.textContent).join('|')",
        );
        let updates_apart = page.eval(
            "document.getElementById('f-cu').closest('fieldset') !== \
             document.querySelector('input[name=components]').closest('fieldset')",
        );
        (before, after, legends, updates_apart)
    })
    .await
    .unwrap();
    let (before, after, legends, updates_apart) = seen;
    let t = serde_json::Value::Bool(true);
    let f = serde_json::Value::Bool(false);
    assert_eq!(
        before,
        [t.clone(), f.clone(), f.clone()],
        "email is the default way"
    );
    assert_eq!(
        after,
        [f, t.clone(), t.clone()],
        "the webhook's fields once chosen"
    );
    assert_eq!(legends, "How|Which components|Status changes");
    assert_eq!(updates_apart, t);
}
