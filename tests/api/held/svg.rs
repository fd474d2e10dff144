//! An uploaded SVG logo cannot read the server's files or another host (an external entity is
//! never expanded), cannot blow up (nested entities are not expanded), cannot be an HTML page
//! in disguise, and is served so that no browser runs it as a document: `image/svg+xml`,
//! `nosniff`, and a sandboxing CSP.

use std::time::{Duration, Instant};

use herald::domain::Role;
use serde_json::Value;

use super::{Tripwire, header};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    an_external_entity_in_an_svg_logo_is_never_expanded,
    nested_entities_in_an_svg_logo_are_not_expanded_and_the_answer_is_fast,
    an_html_page_wearing_an_svg_is_refused_or_served_only_as_an_svg,
    a_served_svg_logo_and_favicon_carry_nosniff_their_type_and_a_sandbox,
);

/// An owner's app with the page `acme`; answers the app and the token.
async fn owner_with_acme(db: TestDb) -> (TestApp, String) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme").through_api(&token).create().await;
    (app, token)
}

/// PUTs `svg` as the logo of `acme`; answers the status, the answer, and (when it was
/// stored) what the public site serves at its address.
async fn upload(app: &TestApp, token: &str, svg: &str) -> (u16, Value, Option<String>) {
    let (status, answer) = app
        .api(token)
        .put_bytes("/pages/acme/logo", "image/svg+xml", svg.into())
        .await;
    if status != 200 {
        return (status, answer, None);
    }
    app.refreshed().await;
    let url = answer["url"].as_str().unwrap();
    let res = app.get(url).await;
    assert_eq!(res.status(), 200, "{url}");
    (status, answer, Some(res.text().await.unwrap()))
}

/// Asserts the upload was refused as an image (422 on `image`) and nothing was stored.
async fn refused(app: &TestApp, token: &str, status: u16, answer: &Value) {
    assert_eq!(status, 422, "{answer}");
    assert!(answer["fields"]["image"].is_array(), "{answer}");
    let (status, logo) = app.api(token).get("/pages/acme/logo").await;
    assert_eq!(status, 404, "nothing stored: {logo}");
}

async fn an_external_entity_in_an_svg_logo_is_never_expanded(db: TestDb) {
    let (app, token) = owner_with_acme(db).await;
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let first_line = passwd.lines().next().unwrap().to_owned();
    assert!(first_line.contains(':'), "a passwd line to look for");
    let wire = Tripwire::start("127.0.0.1");

    for target in [
        "file:///etc/passwd".to_owned(),
        format!("http://127.0.0.1:{}/entity", wire.port),
    ] {
        let svg = format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [<!ENTITY xxe SYSTEM \"{target}\">]>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 40 10\">\
             <text x=\"0\" y=\"10\">&xxe;</text><rect width=\"4\" height=\"4\"/></svg>"
        );
        let (status, answer, served) = upload(&app, &token, &svg).await;
        match served {
            None => refused(&app, &token, status, &answer).await,
            Some(served) => {
                assert!(!served.contains(&first_line), "{target}: {served}");
                assert!(!served.contains("root:x:0:0"), "{target}: {served}");
                assert!(!served.contains("ENTITY"), "{target}: {served}");
                assert!(!served.contains("SYSTEM"), "{target}: {served}");
                let page = app.get("/status/acme").await.text().await.unwrap();
                assert!(!page.contains(&first_line), "{target}");
            }
        }
    }
    assert_eq!(wire.hits(), 0, "the entity's host was never contacted");
}

async fn nested_entities_in_an_svg_logo_are_not_expanded_and_the_answer_is_fast(db: TestDb) {
    let (app, token) = owner_with_acme(db).await;
    // Ten levels of ten: a billion "lol"s once expanded, 3 GB of text.
    let mut entities = String::from("<!ENTITY lol \"lol\">\n");
    let mut previous = "lol".to_owned();
    for level in 1..=9 {
        let name = format!("lol{level}");
        let refs = format!("&{previous};").repeat(10);
        entities.push_str(&format!("<!ENTITY {name} \"{refs}\">\n"));
        previous = name;
    }
    let svg = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n{entities}]>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 40 10\">\
         <text x=\"0\" y=\"10\">&{previous};</text><rect width=\"4\" height=\"4\"/></svg>"
    );
    let lols_sent = svg.matches("lol").count();

    let started = Instant::now();
    let (status, answer) = app
        .api(&token)
        .put_bytes("/pages/acme/logo", "image/svg+xml", svg.clone().into())
        .await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "the upload took {took:?}: {status}"
    );
    if status != 200 {
        refused(&app, &token, status, &answer).await;
        return;
    }
    let stored = answer["bytes"].as_u64().unwrap() as usize;
    assert!(
        stored <= svg.len(),
        "stored {stored} bytes of {}",
        svg.len()
    );
    app.refreshed().await;
    let res = app.get(answer["url"].as_str().unwrap()).await;
    let served = res.text().await.unwrap();
    assert!(served.len() <= svg.len(), "served {} bytes", served.len());
    assert!(
        served.matches("lol").count() <= lols_sent,
        "expanded: {served}"
    );
}

async fn an_html_page_wearing_an_svg_is_refused_or_served_only_as_an_svg(db: TestDb) {
    let (app, token) = owner_with_acme(db).await;
    for polyglot in [
        "<html><body><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 4\">\
         <rect width=\"4\" height=\"4\"/></svg><script>alert(document.domain)</script>\
         </body></html>",
        "<!DOCTYPE html><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 4\">\
         <rect width=\"4\" height=\"4\"/><script>alert(document.domain)</script></svg>",
        "<!DOCTYPE html><html><head><title>x</title></head><body>\
         <svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"4\" height=\"4\"/></svg>\
         <img src=x onerror=alert(1)></body></html>",
    ] {
        let (status, answer) = app
            .api(&token)
            .put_bytes("/pages/acme/logo", "image/svg+xml", polyglot.into())
            .await;
        if status != 200 {
            assert_eq!(status, 422, "{polyglot}: {answer}");
            assert!(answer["fields"]["image"].is_array(), "{answer}");
            continue;
        }
        assert_eq!(answer["content_type"], "image/svg+xml", "{answer}");
        app.refreshed().await;
        let res = app.get(answer["url"].as_str().unwrap()).await;
        assert_eq!(header(&res, "content-type"), "image/svg+xml", "{polyglot}");
        assert_eq!(header(&res, "x-content-type-options"), "nosniff");
        let served = res.text().await.unwrap();
        let lower = served.to_lowercase();
        let body = match lower.trim_start().strip_prefix("<?xml") {
            Some(rest) => rest.split_once("?>").map_or("", |(_, b)| b).trim_start(),
            None => lower.trim_start(),
        };
        assert!(body.starts_with("<svg"), "{polyglot} -> {served}");
        for gone in ["<html", "<body", "<!doctype", "<script", "onerror", "<img"] {
            assert!(!lower.contains(gone), "{gone} left: {polyglot} -> {served}");
        }
    }
}

async fn a_served_svg_logo_and_favicon_carry_nosniff_their_type_and_a_sandbox(db: TestDb) {
    let (app, token) = owner_with_acme(db).await;
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 4\">\
               <rect width=\"4\" height=\"4\" fill=\"#0b5fff\"/></svg>";
    for image in ["logo", "favicon"] {
        let (status, answer) = app
            .api(&token)
            .put_bytes(
                &format!("/pages/acme/{image}"),
                "application/octet-stream",
                svg.into(),
            )
            .await;
        assert_eq!(status, 200, "{image}: {answer}");
        app.refreshed().await;
        let url = answer["url"].as_str().unwrap().to_owned();
        for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
            let res = app
                .client
                .request(method.clone(), format!("{}{url}", app.address))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200, "{method} {url}");
            assert_eq!(header(&res, "content-type"), "image/svg+xml", "{url}");
            assert_eq!(header(&res, "x-content-type-options"), "nosniff", "{url}");
            let csp = header(&res, "content-security-policy");
            let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
            assert!(
                directives
                    .iter()
                    .any(|d| d.split_whitespace().next() == Some("sandbox")),
                "{method} {url}: {csp}"
            );
            assert!(
                directives.contains(&"default-src 'none'"),
                "{method} {url}: {csp}"
            );
        }
    }
}
