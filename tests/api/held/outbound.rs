//! Outbound requests cannot be pointed inside: loopback written in hex, octal or short form,
//! the unspecified addresses, IPv4 inside NAT64 and 6to4 addresses, the clouds' metadata
//! services and other schemes are refused by field, before any connection, on every route
//! that makes Herald reach a URL (a public webhook subscription, by JSON or by the form, a
//! responder's, a mirror, an import, a page's support and responder webhooks). And what is
//! read is bounded: an endless answer is cut at the import's 16 MiB, a trickling one ends at
//! the 10 s limit.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use herald::domain::Role;
use herald::workers::Registry;
use serde_json::{Value, json};

use super::{Server, Tripwire};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    inside_addresses_in_disguise_are_refused_by_field_before_any_connection,
    an_endless_answer_is_cut_at_16_mib_and_the_import_says_it_is_too_large,
    a_trickling_answer_ends_at_10_seconds_and_the_import_says_so,
);

/// The URLs of the review, as written.
const DISGUISED: [&str; 10] = [
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[2002:7f00:1::]/",
    "http://168.63.129.16/",
    "http://100.100.100.200/",
    "gopher://example.com/",
];

/// Each route that makes Herald reach a URL: its name, and the request's status and answer
/// for `url` (a public subscriber coming from client `n`).
async fn through_each_route(
    app: &TestApp,
    owner: &str,
    url: &str,
    n: usize,
) -> Vec<(&'static str, u16, Value, &'static str)> {
    let mut answers = Vec::new();
    let res = app
        .client
        .post(format!("{}/status/acme/api/subscribe", app.address))
        .header("X-Forwarded-For", format!("203.0.113.{}", n % 250 + 1))
        .json(&json!({"type": "webhook", "url": url, "contact_email": "ops@example.com"}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body = res.json().await.unwrap_or(Value::Null);
    answers.push(("public subscribe", status, body, "url"));
    // The HTML form: the form again, with the field's error, and no subscription.
    let res = app
        .client
        .post(format!("{}/status/acme/subscribe", app.address))
        .header("X-Forwarded-For", format!("203.0.113.{}", n % 250 + 1))
        .form(&[
            ("type", "webhook"),
            ("url", url),
            ("contact_email", "ops@example.com"),
        ])
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let html = res.text().await.unwrap();
    assert_eq!(status, 422, "subscribe form {url}: {html}");
    assert!(html.contains("name=\"url\""), "the form again: {html}");
    let (status, body) = app
        .api(owner)
        .post(
            "/pages/acme/subscribers",
            json!({"type": "webhook", "url": url}),
        )
        .await;
    answers.push(("responder's subscriber", status, body, "url"));
    let (status, body) = app
        .api(owner)
        .post(
            "/pages/acme/mirrors",
            json!({"url": url, "vendor_component": "API"}),
        )
        .await;
    answers.push(("mirror", status, body, "url"));
    let (status, body) = app
        .api(owner)
        .post(
            "/imports/statuspage",
            json!({"from": url, "page": "imported"}),
        )
        .await;
    answers.push(("import", status, body, "from"));
    for field in ["support_webhook_url", "responder_webhook_url"] {
        let (status, body) = app
            .api(owner)
            .patch("/pages/acme", json!({field: url}))
            .await;
        answers.push(("page webhook", status, body, field));
    }
    answers
}

async fn inside_addresses_in_disguise_are_refused_by_field_before_any_connection(db: TestDb) {
    // Public destinations only (the default); the test's client addresses are believed from
    // X-Forwarded-For, so that each URL is a new client to the subscribe limit.
    let extra = [("HERALD_TRUSTED_PROXIES", "127.0.0.1")];
    let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
    let owner = app.token(Role::Owner).await;
    app.page("acme")
        .with_components(&["API"])
        .through_api(&owner)
        .create()
        .await;

    // The same disguises with the port of a listener that must never see a connection.
    let v4 = Tripwire::start("127.0.0.1");
    let v6 = Tripwire::start("::");
    let mut urls: Vec<String> = DISGUISED.iter().map(|u| (*u).to_owned()).collect();
    for host in ["0x7f000001", "0177.0.0.1", "127.1", "0.0.0.0", "2130706433"] {
        urls.push(format!("http://{host}:{}/hook", v4.port));
    }
    for host in ["[::]", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"] {
        urls.push(format!("http://{host}:{}/hook", v6.port));
    }
    urls.push(format!("http://[64:ff9b::7f00:1]:{}/hook", v4.port));

    for (n, url) in urls.iter().enumerate() {
        for (route, status, body, field) in through_each_route(&app, &owner, url, n).await {
            assert_eq!(status, 422, "{route} {url}: {body}");
            let said = &body["fields"][field];
            assert!(said.is_array(), "{route} {url}: {body}");
            let message = said[0].as_str().unwrap_or_default();
            if url.starts_with("gopher:") {
                assert!(
                    message.contains("http://") || message.contains("gopher"),
                    "{route} {url}: {message}"
                );
            } else {
                assert!(message.contains("refused"), "{route} {url}: {message}");
            }
        }
    }
    assert_eq!(v4.hits(), 0, "no connection to the IPv4 listener");
    assert_eq!(v6.hits(), 0, "no connection to the IPv6 listener");

    // And nothing was kept of any of them.
    let (_, subscribers) = app.api(&owner).get("/pages/acme/subscribers").await;
    assert_eq!(subscribers, json!([]));
    let (_, mirrors) = app.api(&owner).get("/pages/acme/mirrors").await;
    assert_eq!(mirrors, json!([]));
    let (status, _) = app.api(&owner).get("/pages/imported").await;
    assert_eq!(status, 404, "no page was made by a refused import");
    let (_, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(page["support_webhook_url"], Value::Null, "{page}");
    assert_eq!(page["responder_webhook_url"], Value::Null, "{page}");
}

/// Our Herald, allowed to reach the loopback servers of the tests below.
async fn reaching_loopback(db: TestDb) -> (TestApp, String) {
    let extra = [("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
    let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
    let owner = app.token(Role::Owner).await;
    (app, owner)
}

async fn an_endless_answer_is_cut_at_16_mib_and_the_import_says_it_is_too_large(db: TestDb) {
    let (app, owner) = reaching_loopback(db).await;
    const ANSWER: usize = 300 * 1024 * 1024;
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    let server = Server::start(move |stream| {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {ANSWER}\r\n\r\n"
        );
        let _ = stream.write_all(head.as_bytes());
        let chunk = vec![b' '; 64 * 1024];
        let mut total = 0;
        while total < ANSWER {
            if stream.write_all(&chunk).is_err() {
                return;
            }
            total += chunk.len();
            counted.fetch_add(chunk.len(), Ordering::SeqCst);
        }
    });

    let (status, body) = app
        .api(&owner)
        .post(
            "/imports/statuspage",
            json!({"from": server.url("/"), "page": "imported"}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let message = body["fields"]["from"][0].as_str().unwrap_or_default();
    assert!(message.contains("larger than 16 MiB"), "{body}");
    assert_eq!(
        server.requests(),
        1,
        "one document asked for, then given up"
    );
    // Herald stopped reading: what the server could write is what Herald read (16 MiB) and
    // what the sockets' buffers hold, far from the 300 MiB it offered.
    let written = sent.load(Ordering::SeqCst);
    assert!(written >= 16 * 1024 * 1024, "read to the limit: {written}");
    assert!(written < 64 * 1024 * 1024, "{written} bytes were taken");
    let (status, _) = app.api(&owner).get("/pages/imported").await;
    assert_eq!(status, 404, "nothing written");
}

async fn a_trickling_answer_ends_at_10_seconds_and_the_import_says_so(db: TestDb) {
    let (app, owner) = reaching_loopback(db).await;
    let server = Server::start(|stream| {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
        let _ = stream.write_all(head.as_bytes());
        // A byte every half second, until Herald hangs up (the pace is the server's
        // behaviour under test, not a wait of the test's).
        for _ in 0..100_000 {
            if stream
                .write_all(b" ")
                .and_then(|()| stream.flush())
                .is_err()
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    });

    let started = Instant::now();
    let (status, body) = app
        .api(&owner)
        .post(
            "/imports/statuspage",
            json!({"from": server.url("/"), "page": "imported"}),
        )
        .await;
    let took = started.elapsed();
    assert_eq!(status, 422, "{body}");
    let message = body["fields"]["from"][0].as_str().unwrap_or_default();
    assert!(message.contains("no answer within 10 s"), "{body}");
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(20),
        "the import gave up after {took:?}"
    );
    assert_eq!(server.requests(), 1);
    let (status, _) = app.api(&owner).get("/pages/imported").await;
    assert_eq!(status, 404, "nothing written");
}
