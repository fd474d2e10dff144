//! Links responders write cannot run anything: `vbscript:`, `data:`, entity-obfuscated and
//! mixed-case `javascript:` links in incident bodies (Markdown or raw HTML) and in a page's
//! footer lose their address on every public page that shows them, and header links with
//! such an address are refused by field with nothing stored.

use herald::domain::Role;
use serde_json::json;

use super::{incident, patch_page};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    script_links_in_incident_bodies_lose_their_address_on_every_page,
    script_links_in_the_footer_lose_their_address,
    script_addresses_as_header_links_are_refused_by_field,
);

/// Each hostile link with the label it is written under, in Markdown and in raw HTML.
const HOSTILE: [(&str, &str); 12] = [
    ("held-md-vbscript", "[held-md-vbscript](vbscript:msgbox(1))"),
    (
        "held-md-data",
        "[held-md-data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    ),
    ("held-md-hex", "[held-md-hex](jav&#x61;script:alert(1))"),
    ("held-md-dec", "[held-md-dec](&#106;avascript:alert(1))"),
    ("held-md-case", "[held-md-case](JaVaScRiPt:alert(1))"),
    ("held-md-auto", "<JaVaScRiPt:alert(1)> held-md-auto"),
    (
        "held-html-vbscript",
        "<a href=\"vbscript:msgbox(1)\">held-html-vbscript</a>",
    ),
    (
        "held-html-data",
        "<a href=\"data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;\">held-html-data</a>",
    ),
    (
        "held-html-hex",
        "<a href=\"jav&#x61;script:alert(1)\">held-html-hex</a>",
    ),
    (
        "held-html-dec",
        "<a href=\"&#106;avascript:alert(1)\">held-html-dec</a>",
    ),
    (
        "held-html-case",
        "<a href=\"JaVaScRiPt:alert(1)\">held-html-case</a>",
    ),
    (
        "held-html-tab",
        "<a href=\"java&#x09;script:alert(1)\">held-html-tab</a>",
    ),
];

/// A link that must survive: the check below would find it.
const SAFE: &str = "[held-safe](https://example.com/held-safe)";

/// The Markdown holding every hostile link and the safe one, a paragraph each.
fn hostile_markdown() -> String {
    let mut text: Vec<&str> = HOSTILE.iter().map(|(_, md)| *md).collect();
    text.push(SAFE);
    text.join("\n\n")
}

/// `s` with the character references a browser would decode in an attribute decoded.
fn decode_entities(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e <= 12);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = if let Some(hex) = name.strip_prefix("#x").or(name.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
            } else if let Some(dec) = name.strip_prefix('#') {
                dec.parse().ok().and_then(char::from_u32)
            } else {
                match name {
                    "amp" => Some('&'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "colon" => Some(':'),
                    "Tab" => Some('\t'),
                    "NewLine" => Some('\n'),
                    _ => None,
                }
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every `href`, `src`, `action`, `formaction` and `xlink:href` value in `html`, as a browser
/// would resolve its scheme: entities decoded, whitespace and control characters dropped,
/// lower-cased.
fn addresses(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attr in ["href=", "src=", "action=", "formaction="] {
        for (at, _) in html.match_indices(attr) {
            let value = &html[at + attr.len()..];
            let raw = match value.chars().next() {
                Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
                _ => value.split([' ', '>']).next().unwrap_or(""),
            };
            let decoded: String = decode_entities(raw)
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect();
            found.push(decoded.to_lowercase());
        }
    }
    found
}

/// Asserts `html` shows every hostile link's label and the safe link, and that no address in
/// it can run anything.
fn no_script_address(path: &str, html: &str) {
    let addresses = addresses(html);
    assert!(
        addresses
            .iter()
            .any(|a| a == "https://example.com/held-safe"),
        "{path}: the safe link is there"
    );
    for bad in ["javascript:", "vbscript:", "data:"] {
        let hit = addresses.iter().find(|a| a.starts_with(bad));
        assert!(hit.is_none(), "{path}: {hit:?}");
    }
    for (label, _) in HOSTILE {
        assert!(html.contains(label), "{path}: {label} is shown");
    }
}

async fn script_links_in_incident_bodies_lose_their_address_on_every_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let id = incident(&app, &token, "acme", "Login failures", &hostile_markdown()).await;
    // A later update carries them too.
    let (status, posted) = app
        .api(&token)
        .post(
            &format!("/pages/acme/incidents/{id}/updates"),
            json!({"status": "identified", "body": hostile_markdown()}),
        )
        .await;
    assert_eq!(status, 201, "{posted}");
    app.refreshed().await;
    for path in [
        "/status/acme".to_owned(),
        format!("/status/acme/incidents/{id}"),
        "/status/acme/history?page=1".to_owned(),
    ] {
        let res = app.get(&path).await;
        assert_eq!(res.status(), 200, "{path}");
        no_script_address(&path, &res.text().await.unwrap());
    }
}

async fn script_links_in_the_footer_lose_their_address(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let id = incident(&app, &token, "acme", "Login failures", "Investigating.").await;
    patch_page(&app, &token, "acme", json!({"footer": hostile_markdown()})).await;
    for path in [
        "/status/acme".to_owned(),
        format!("/status/acme/incidents/{id}"),
        "/status/acme/history?page=1".to_owned(),
        "/status/acme/subscribe".to_owned(),
    ] {
        let res = app.get(&path).await;
        assert_eq!(res.status(), 200, "{path}");
        no_script_address(&path, &res.text().await.unwrap());
    }
}

async fn script_addresses_as_header_links_are_refused_by_field(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    let good = json!({"label": "Help", "url": "https://help.example.com/"});
    patch_page(
        &app,
        &token,
        "acme",
        json!({"header_links": [good.clone()]}),
    )
    .await;
    for url in [
        "vbscript:msgbox(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "data:text/html,<script>alert(1)</script>",
        "jav&#x61;script:alert(1)",
        "&#106;avascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "javascript:alert(1)",
        "java\tscript:alert(1)",
        " javascript:alert(1)",
    ] {
        let links = json!([{"label": "Help", "url": url}]);
        let (status, answer) = app
            .api(&token)
            .patch("/pages/acme", json!({"header_links": links}))
            .await;
        assert_eq!(status, 422, "{url:?}: {answer}");
        assert!(
            answer["fields"]["header_links"].is_array(),
            "{url:?}: {answer}"
        );
    }
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["header_links"], json!([good]), "nothing stored");
    app.refreshed().await;
    let html = app.get("/status/acme").await.text().await.unwrap();
    let addresses = addresses(&html);
    assert!(addresses.iter().any(|a| a == "https://help.example.com/"));
    for bad in ["javascript:", "vbscript:", "data:"] {
        assert!(!addresses.iter().any(|a| a.starts_with(bad)), "{bad}");
    }
}

/// The check above is only as good as its reading of addresses: it finds a script address
/// however it is written, and reads a plain one as it is.
#[test]
fn the_address_reader_decodes_what_a_browser_decodes() {
    let html = "<a href=\"jav&#x61;script:a()\">1</a><a href='&#106;avascript:b()'>2</a>\
                <a href=java&#x09;script:c()>3</a><img src=\"JaVaScRiPt&colon;d()\">\
                <a href=\"https://example.com/?a=1&amp;b=2\">4</a>";
    assert_eq!(
        addresses(html),
        [
            "javascript:a()",
            "javascript:b()",
            "javascript:c()",
            "https://example.com/?a=1&b=2",
            "javascript:d()",
        ]
    );
}
