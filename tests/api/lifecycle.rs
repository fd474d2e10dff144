//! The drain: readiness fails at once, in-flight requests finish, no new connections after the
//! delay, exit status 0. Run against the real binary with real signals.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use diesel::Connection;
use diesel::connection::SimpleConnection;
use nix::sys::signal::Signal;

use crate::helpers::{TestApp, TestDb};
use crate::process::Serving;

on_both_backends!(
    sigterm_during_a_slow_request_fails_readiness_at_once_and_lets_it_finish,
    at_the_defaults_a_request_whose_head_is_still_arriving_at_sigterm_is_answered,
    sigint_closes_idle_connections_stops_accepting_and_exits_zero,
    draining_in_process_fails_readiness_and_closes_keep_alive_connections,
    an_upload_in_flight_at_sigterm_is_received_handled_and_answered,
    requests_sent_as_herald_starts_are_answered_when_sigterm_comes_at_once
);

/// What Herald logs once the drain has begun (readiness fails from then on).
const DRAIN_BEGUN: &str = "shutdown requested: readiness now fails";

/// What Herald logs once the listener is closing and the drain waits for the connections
/// still at work (after the shutdown delay).
const LISTENER_CLOSING: &str = "closing the listener";

/// Sends the first part of a request and leaves it in flight, as a slow client does.
fn start_slow_request(port: u16, path: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap();
    stream.flush().unwrap();
    stream
}

/// Finishes the request and reads the whole answer.
fn finish_slow_request(mut stream: TcpStream) -> String {
    stream.write_all(b"Connection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("the in-flight request gets its answer");
    answer
}

fn get_status(port: u16, path: &str) -> Result<u16, reqwest::Error> {
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    client
        .get(format!("http://127.0.0.1:{port}{path}"))
        .send()
        .map(|r| r.status().as_u16())
}

async fn sigterm_during_a_slow_request_fails_readiness_at_once_and_lets_it_finish(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    tokio::task::spawn_blocking(move || {
        let mut herald = Serving::start(
            dir.path(),
            &url,
            &[
                ("HERALD_SHUTDOWN_DELAY_SECS", "2"),
                ("HERALD_SHUTDOWN_GRACE_SECS", "10"),
            ],
        );
        let port = herald.port;
        assert_eq!(get_status(port, "/readyz").unwrap(), 200);
        let lost = reqwest::blocking::get(format!("http://127.0.0.1:{port}/nowhere")).unwrap();
        assert_eq!(lost.status(), 404);
        let request_id = lost.headers()["x-request-id"].to_str().unwrap().to_owned();
        let slow = start_slow_request(port, "/healthz");
        wait_until_accepted(port);
        let signalled = Instant::now();
        herald.signal(Signal::SIGTERM);
        herald.wait_for_log(DRAIN_BEGUN, Duration::from_secs(10));
        assert_eq!(
            get_status(port, "/readyz").unwrap(),
            503,
            "readiness fails at once"
        );
        assert_eq!(
            get_status(port, "/healthz").unwrap(),
            200,
            "liveness holds while draining"
        );
        let answer = finish_slow_request(slow);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains(r#"{"status":"ok"}"#), "{answer}");
        assert_eq!(
            herald.wait_exit(Duration::from_secs(15)),
            0,
            "{}",
            herald.log_text()
        );
        assert!(
            signalled.elapsed() >= Duration::from_secs(2),
            "the listener stayed open for the delay"
        );
        assert!(herald.log_text().contains("SIGTERM"));
        assert_request_id_is_logged(&herald, &request_id);
    })
    .await
    .unwrap();
}

/// Every log line of a request carries the id the response returned in `x-request-id`.
fn assert_request_id_is_logged(herald: &Serving, request_id: &str) {
    let logs = herald.log_text();
    let access = logs
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|l| l["message"] == "request" && l["route"] == "unmatched")
        .unwrap_or_else(|| panic!("no access line for the unmatched request: {logs}"));
    assert_eq!(
        access["span"]["request_id"].as_str(),
        Some(request_id),
        "{access}"
    );
}

async fn at_the_defaults_a_request_whose_head_is_still_arriving_at_sigterm_is_answered(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    tokio::task::spawn_blocking(move || {
        // No shutdown delay, the default grace: the listener closes at once.
        let mut herald = Serving::start(dir.path(), &url, &[]);
        let port = herald.port;
        let slow = start_slow_request(port, "/healthz");
        wait_until_accepted(port);
        herald.signal(Signal::SIGTERM);
        // The answer cannot come before the head is whole: once the drain is at the
        // connections, the process must still be there (watched for half a second: the
        // window is the assertion, not a wait).
        herald.wait_for_log(LISTENER_CLOSING, Duration::from_secs(10));
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            assert!(
                herald.child.try_wait().unwrap().is_none(),
                "exited with a request half received: {}",
                herald.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let answer = finish_slow_request(slow);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.to_ascii_lowercase().contains("connection: close"),
            "{answer}"
        );
        assert_eq!(
            herald.wait_exit(Duration::from_secs(15)),
            0,
            "{}",
            herald.log_text()
        );
    })
    .await
    .unwrap();
}

async fn requests_sent_as_herald_starts_are_answered_when_sigterm_comes_at_once(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    tokio::task::spawn_blocking(move || {
        // The socket is bound; the workers may still be starting. The requests wait in the
        // listener's accept queue, and the signal comes before any answer.
        let mut herald = Serving::listening(dir.path(), &url, &[]);
        let port = herald.port;
        let mut streams: Vec<TcpStream> = (0..8)
            .map(|_| {
                let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
                s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                s.write_all(
                    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                )
                .unwrap();
                s
            })
            .collect();
        herald.signal(Signal::SIGTERM);
        for stream in &mut streams {
            let mut answer = String::new();
            if let Err(e) = stream.read_to_string(&mut answer) {
                panic!(
                    "a request sent before the signal got no answer ({e}); logs: {}",
                    herald.log_text()
                );
            }
            assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        }
        assert_eq!(
            herald.wait_exit(Duration::from_secs(15)),
            0,
            "{}",
            herald.log_text()
        );
    })
    .await
    .unwrap();
}

/// Returns once the server has accepted the connections made before: a later connection is
/// served, and the accept loop takes connections in the order they came.
fn wait_until_accepted(port: u16) {
    assert_eq!(get_status(port, "/healthz").unwrap(), 200);
}

async fn sigint_closes_idle_connections_stops_accepting_and_exits_zero(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    tokio::task::spawn_blocking(move || {
        let mut herald = Serving::start(dir.path(), &url, &[]);
        let port = herald.port;
        // A request whose head is still arriving holds the drain open, so the process is
        // still there when a late client knocks.
        let slow = start_slow_request(port, "/healthz");
        // A client whose request was answered and that keeps its connection, and one that
        // connected and sent nothing: neither holds work, and both are closed at once. Both
        // are made just before the signal, so that only the drain can close them before
        // their own timers would (5 s at the defaults: the keep-alive after an answer, and
        // the wait for a request's head, which ends with a 408).
        let mut kept = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(kept, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
        let mut first = [0u8; 512];
        let n = kept.read(&mut first).unwrap();
        let answered = Instant::now();
        assert!(first[..n].starts_with(b"HTTP/1.1 200"));
        let mut silent = TcpStream::connect(("127.0.0.1", port)).unwrap();
        wait_until_accepted(port);
        herald.signal(Signal::SIGINT);
        for stream in [&mut silent, &mut kept] {
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest);
            assert!(rest.is_empty(), "closed without an answer: {rest:?}");
        }
        assert!(
            answered.elapsed() < Duration::from_secs(5),
            "idle connections are closed by the drain, not at their keep-alive timeout"
        );
        // Idle connections are closed only once the listener has stopped accepting: a client
        // that comes now is refused, though the process is still draining.
        let late = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.kind());
        assert_eq!(
            late.err(),
            Some(std::io::ErrorKind::ConnectionRefused),
            "a client that comes during the drain is refused"
        );
        let answer = finish_slow_request(slow);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert_eq!(
            herald.wait_exit(Duration::from_secs(15)),
            0,
            "{}",
            herald.log_text()
        );
        assert!(herald.log_text().contains("SIGINT"));
    })
    .await
    .unwrap();
}

async fn draining_in_process_fails_readiness_and_closes_keep_alive_connections(db: TestDb) {
    let mut app = TestApp::spawn_with(
        db,
        &[("HERALD_SHUTDOWN_DELAY_SECS", "1")],
        Default::default(),
    )
    .await;
    let first = app.get("/readyz").await;
    assert_eq!(first.status(), 200);
    assert_ne!(
        first
            .headers()
            .get("connection")
            .map(|v| v.to_str().unwrap()),
        Some("close")
    );
    let started = Instant::now();
    let stopping = {
        let client = app.client.clone();
        let address = app.address.clone();
        // Asks until readiness fails (the drain has begun): that answer is the one checked.
        tokio::spawn(async move {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let res = client
                    .get(format!("{address}/readyz"))
                    .send()
                    .await
                    .unwrap();
                if res.status() != 200 || Instant::now() > deadline {
                    return res;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let stop = app.stop();
    let (stopped, during) = tokio::join!(stop, stopping);
    stopped.unwrap();
    let during = during.unwrap();
    assert_eq!(during.status(), 503);
    assert_eq!(
        during.headers().get("connection").unwrap(),
        "close",
        "clients are told to reconnect elsewhere"
    );
    assert!(started.elapsed() >= Duration::from_secs(1));
}

/// A PostgreSQL-only case: the request is slow inside the handler (its query waits on a lock),
/// and still completes after SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_waiting_on_the_database_completes_after_sigterm() {
    let Some(db) = TestDb::postgres() else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    tokio::task::spawn_blocking(move || {
        let mut herald = Serving::start(dir.path(), &url, &[("HERALD_SHUTDOWN_GRACE_SECS", "20")]);
        let port = herald.port;
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let lock_url = url.clone();
        let locker = std::thread::spawn(move || {
            let mut conn = diesel::PgConnection::establish(&lock_url).unwrap();
            conn.batch_execute(
                "BEGIN; LOCK TABLE __diesel_schema_migrations IN ACCESS EXCLUSIVE MODE;",
            )
            .unwrap();
            locked_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            conn.batch_execute("COMMIT;").unwrap();
        });
        locked_rx.recv().unwrap();
        let slow = std::thread::spawn(move || get_status(port, "/readyz"));
        wait_for_a_query_waiting_on_a_lock(&url);
        assert!(!slow.is_finished(), "the readiness query waits on the lock");
        herald.signal(Signal::SIGTERM);
        herald.wait_for_log(LISTENER_CLOSING, Duration::from_secs(10));
        assert!(
            herald.child.try_wait().unwrap().is_none(),
            "the drain waits for the slow request"
        );
        release_tx.send(()).unwrap();
        locker.join().unwrap();
        assert_eq!(
            slow.join()
                .unwrap()
                .expect("the slow request got an answer"),
            200
        );
        assert_eq!(
            herald.wait_exit(Duration::from_secs(15)),
            0,
            "{}",
            herald.log_text()
        );
    })
    .await
    .unwrap();
    drop(db);
}

/// Waits (up to 10 s) until a session of the database at `url` waits on a lock.
fn wait_for_a_query_waiting_on_a_lock(url: &str) {
    use diesel::RunQueryDsl as _;
    #[derive(diesel::QueryableByName)]
    struct Waiting {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = diesel::PgConnection::establish(url).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let waiting: Waiting = diesel::sql_query(
            "SELECT count(*) AS n FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .get_result(&mut conn)
        .unwrap();
        if waiting.n > 0 {
            return;
        }
        assert!(Instant::now() < deadline, "no query waits on the lock");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A client still uploading a request body when SIGTERM arrives: the drain waits for the body,
/// the handler runs (a page is created), the answer goes out, and the process exits 0.
async fn an_upload_in_flight_at_sigterm_is_received_handled_and_answered(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    tokio::task::spawn_blocking(move || {
        crate::process::add_owner(dir.path(), &url, "ops@example.com");
        // The default settings: no shutdown delay, the default grace.
        let mut herald = Serving::start(dir.path(), &url, &[]);
        let token = crate::process::create_token(dir.path(), &url, "ops@example.com");
        let body = br#"{"slug": "drained", "name": "Created while draining"}"#;
        let mut stream = TcpStream::connect(("127.0.0.1", herald.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "POST /api/v1/pages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            token.trim(),
            body.len()
        )
        .unwrap();
        stream.write_all(&body[..10]).unwrap();
        stream.flush().unwrap();
        wait_until_accepted(herald.port);
        herald.signal(Signal::SIGTERM);
        herald.wait_for_log(LISTENER_CLOSING, Duration::from_secs(10));
        assert!(
            herald.child.try_wait().unwrap().is_none(),
            "the drain waits for the upload"
        );
        stream.write_all(&body[10..]).unwrap();
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("the upload gets its answer");
        assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
        assert!(answer.contains("Created while draining"), "{answer}");
        assert_eq!(
            herald.wait_exit(Duration::from_secs(15)),
            0,
            "{}",
            herald.log_text()
        );
    })
    .await
    .unwrap();
}
