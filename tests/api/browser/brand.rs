//! A branded page in Chromium: its colour is what links are drawn in (a lighter shade in the
//! dark theme), its logo shows, a forced theme holds whatever the reader prefers, and axe-core
//! finds no serious or critical violation in either theme. Screenshots are saved.

use serde_json::json;

use super::{cdp, screenshot_dir};
use crate::helpers::{TestApp, TestDb};
use crate::public::seed_demo;
use herald::domain::Role;

/// `#rrggbb` as the browser's computed `rgb(r, g, b)`.
fn rgb(hex: &str) -> String {
    let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    format!("rgb({}, {}, {})", channel(1), channel(3), channel(5))
}

const LOGO: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 30"><rect width="30" height="30" rx="6" fill="#6f42c1"/><path d="M8 22 L15 8 L22 22 Z" fill="#ffffff"/><rect x="38" y="9" width="74" height="12" rx="3" fill="#6f42c1"/><script>alert(1)</script></svg>"##;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_branded_page_draws_its_colour_and_logo_and_passes_axe_in_both_themes() {
    let Some(chromium) = cdp::chromium_or_skip() else {
        return;
    };
    let axe = tokio::task::spawn_blocking(cdp::axe).await.unwrap();
    let app = TestApp::spawn(TestDb::sqlite()).await;
    seed_demo(&app).await;
    let token = app.token(Role::Owner).await;
    let (status, answer) = app
        .api(&token)
        .put_bytes("/pages/demo/logo", "image/svg+xml", LOGO.into())
        .await;
    assert_eq!(status, 200, "{answer}");
    let brand = "#6f42c1";
    let (status, answer) = app
        .api(&token)
        .patch(
            "/pages/demo",
            json!({
                "brand_color": brand,
                "header_links": [{"label": "Help centre", "url": "https://help.example.com/"}],
                "footer": "© Example Ltd · [Privacy](https://example.com/privacy)",
            }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    app.refreshed().await;
    let dark_shade = herald::domain::brand::BrandColor::parse(brand)
        .unwrap()
        .dark()
        .to_string();
    let url = format!("{}/status/demo", app.address);
    let incident = format!(
        "{url}/incidents/{}",
        super::demo_incident(&app, &token).await
    );
    let link_colour = "getComputedStyle(document.querySelector('.header-link a')).color";
    let logo_drawn = "(() => { const i = document.querySelector('img.brand-logo'); return !!i && i.complete && i.naturalWidth > 0; })()";

    let (url2, incident2, axe2, shade2) = (
        url.clone(),
        incident.clone(),
        axe.clone(),
        dark_shade.clone(),
    );
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&chromium);
        let mut page = browser.new_page();
        let dir = screenshot_dir();
        for (scheme, colour) in [("light", brand.to_owned()), ("dark", shade2.clone())] {
            page.call(
                "Emulation.setEmulatedMedia",
                json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
            );
            page.goto(&url2);
            assert_eq!(page.eval(link_colour), json!(rgb(&colour)), "{scheme}");
            assert_eq!(
                page.eval(logo_drawn),
                json!(true),
                "the logo is drawn ({scheme})"
            );
            std::fs::write(dir.join(format!("brand-{scheme}.png")), page.screenshot()).unwrap();
            for target in [&url2, &incident2] {
                page.goto(target);
                let found = page.serious_accessibility_violations(&axe2);
                assert!(found.is_empty(), "{target} ({scheme}): {found:#?}");
            }
        }
    })
    .await
    .unwrap();

    // A page always drawn light stays light for a reader who prefers dark.
    let (status, answer) = app
        .api(&token)
        .patch("/pages/demo", json!({"theme": "light"}))
        .await;
    assert_eq!(status, 200, "{answer}");
    app.refreshed().await;
    tokio::task::spawn_blocking(move || {
        let browser = cdp::Browser::launch(&cdp::chromium_path().unwrap());
        let mut page = browser.new_page();
        page.call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        );
        page.goto(&url);
        assert_eq!(page.eval(link_colour), json!(rgb(brand)));
        assert_eq!(
            page.eval("getComputedStyle(document.body).backgroundColor"),
            json!("rgb(255, 255, 255)")
        );
        std::fs::write(
            screenshot_dir().join("brand-forced-light.png"),
            page.screenshot(),
        )
        .unwrap();
        let found = page.serious_accessibility_violations(&axe);
        assert!(found.is_empty(), "{found:#?}");
    })
    .await
    .unwrap();
}
