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
        assert!(unsubscribe.status().is_client_error());
        let confirm = client
            .get(format!(
                "{base}/status/acme/confirm/SECRET-confirm-token?token=SECRET-query"
            ))
            .send()
            .unwrap();
        assert!(confirm.status().is_client_error());
        let deadline = Instant::now() + Duration::from_secs(10);
        let logs = loop {
            let logs = herald.log_text();
            let redacted = logs.lines().filter(|l| l.contains("/[redacted]")).count();
            if redacted >= 2 || Instant::now() > deadline {
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
        assert!(!logs.contains("SECRET"), "a token reached the log: {logs}");
    })
    .await
    .unwrap();
}
