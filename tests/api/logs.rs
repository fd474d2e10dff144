//! What the log says about requests, read from the real binary's stderr: subscribers' link
//! tokens never appear in it, whichever way a request goes.

use std::time::{Duration, Instant};

use crate::helpers::TestDb;
use crate::process::Serving;

#[tokio::test]
async fn link_tokens_in_paths_and_queries_are_redacted_in_every_log_line() {
    let db = TestDb::sqlite();
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    tokio::task::spawn_blocking(move || {
        let herald = Serving::start(dir.path(), &url, &[]);
        let base = format!("http://127.0.0.1:{}", herald.port);
        let client = reqwest::blocking::Client::new();
        // Writes and errors are logged at the default level: each of these is one line.
        let unsubscribe = client
            .post(format!(
                "{base}/status/acme/unsubscribe/SECRET-unsubscribe-token"
            ))
            .send()
            .unwrap();
        assert_eq!(unsubscribe.status(), 404);
        let confirm = client
            .get(format!(
                "{base}/status/acme/confirm/SECRET-confirm-token?token=SECRET-query"
            ))
            .send()
            .unwrap();
        assert_eq!(confirm.status(), 404);
        // The same, with the route's name and the query's name percent-encoded, as a reader
        // decodes them.
        let encoded = client
            .get(format!(
                "{base}/status/acme/%63onfirm/SECRET-encoded-path?t%6Fken=SECRET-encoded-query"
            ))
            .send()
            .unwrap();
        assert_eq!(encoded.status(), 404);
        let deadline = Instant::now() + Duration::from_secs(10);
        let logs = loop {
            let logs = herald.log_text();
            let redacted = logs.lines().filter(|l| l.contains("/[redacted]")).count();
            if redacted >= 3 || Instant::now() > deadline {
                break logs;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(
            logs.contains(r#""http.target":"/status/acme/unsubscribe/[redacted]""#),
            "{logs}"
        );
        assert!(
            logs.contains(r#""http.target":"/status/acme/confirm/[redacted]?token=[redacted]""#),
            "{logs}"
        );
        assert!(
            logs.contains(
                r#""http.target":"/status/acme/%63onfirm/[redacted]?t%6Fken=[redacted]""#
            ),
            "{logs}"
        );
        assert!(!logs.contains("SECRET"), "a token reached the log: {logs}");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_secret_given_with_the_wrong_type_is_not_repeated_in_the_log() {
    let db = TestDb::sqlite();
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    tokio::task::spawn_blocking(move || {
        crate::process::add_owner(dir.path(), &url, "ops@example.com");
        let herald = Serving::start(dir.path(), &url, &[]);
        let token = crate::process::create_token(dir.path(), &url, "ops@example.com");
        let api = format!("http://127.0.0.1:{}/api/v1", herald.port);
        let client = reqwest::blocking::Client::new();
        let made = client
            .post(format!("{api}/pages"))
            .bearer_auth(&token)
            .json(&serde_json::json!({"slug": "acme", "name": "Acme"}))
            .send()
            .unwrap();
        assert_eq!(made.status(), 201);
        // A page password sent as a number: refused, naming the field and the type only.
        let answer = client
            .patch(format!("{api}/pages/acme"))
            .bearer_auth(&token)
            .json(&serde_json::json!({"visibility": "private", "password": 918273645}))
            .send()
            .unwrap();
        assert_eq!(answer.status(), 422);
        let body: serde_json::Value = answer.json().unwrap();
        let message = body["fields"]["password"][0].as_str().unwrap().to_owned();
        assert!(message.contains("invalid type: integer"), "{body}");
        assert!(!message.contains("918273645"), "{body}");
        let deadline = Instant::now() + Duration::from_secs(10);
        let logs = loop {
            let logs = herald.log_text();
            if logs.contains(r#""status":422"#) || Instant::now() > deadline {
                break logs;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(logs.contains(r#""status":422"#), "{logs}");
        assert!(
            !logs.contains("918273645"),
            "the password reached the log: {logs}"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_failed_public_read_is_logged_with_its_request_id_and_a_good_one_is_not() {
    let db = TestDb::sqlite();
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    tokio::task::spawn_blocking(move || {
        let herald = Serving::start(dir.path(), &url, &[]);
        let base = format!("http://127.0.0.1:{}", herald.port);
        // One keep-alive connection, so one worker answers both, in order.
        let client = reqwest::blocking::Client::new();
        let good = client.get(format!("{base}/?quiet=1")).send().unwrap();
        assert_eq!(good.status(), 200);
        assert!(
            good.headers().get("x-request-id").is_none(),
            "a good read is not logged, so it has no id to look up"
        );
        assert_eq!(good.headers()["x-content-type-options"], "nosniff");
        let lost = client
            .get(format!("{base}/status/nowhere/history.atom?token=SECRET"))
            .send()
            .unwrap();
        assert_eq!(lost.status(), 404);
        let id = lost.headers()["x-request-id"].to_str().unwrap().to_owned();
        let deadline = Instant::now() + Duration::from_secs(10);
        let line = loop {
            let found = herald
                .log_text()
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .find(|l| l["request_id"] == id.as_str());
            if let Some(line) = found {
                break line;
            }
            assert!(Instant::now() < deadline, "{}", herald.log_text());
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(line["level"], "INFO", "{line}");
        assert_eq!(line["message"], "request", "{line}");
        assert_eq!(line["status"], 404, "{line}");
        assert_eq!(line["route"], "/status/{slug}/{tail:.*}", "{line}");
        assert_eq!(
            line["http.target"], "/status/nowhere/history.atom?token=[redacted]",
            "{line}"
        );
        let logs = herald.log_text();
        assert!(!logs.contains("quiet=1"), "a good read at info: {logs}");
        assert!(!logs.contains("SECRET"), "a token reached the log: {logs}");
    })
    .await
    .unwrap();
}
