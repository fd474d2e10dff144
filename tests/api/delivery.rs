//! The delivery layer against real receivers on loopback: an SMTP server (mailin-embedded)
//! and a small HTTP/1.1 server, both speaking the real protocols.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use herald::delivery::Attempt;
use herald::delivery::breaker::BreakerConfig;
use herald::delivery::chat::{Author, ChatMessage};
use herald::delivery::mail::{EmailMessage, Mailer};
use herald::delivery::outbound::{self, Policy, UrlRefusal};
use herald::delivery::signature;
use herald::delivery::webhook::{WebhookClient, WebhookRequest};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::helpers::tools;

// ---------------------------------------------------------------- SMTP receiver

/// One message as the SMTP server received it.
#[derive(Debug, Clone)]
struct Received {
    to: Vec<String>,
    data: String,
}

/// Accepts everyone except `reject*@` (550, permanent) and `busy*@` (451, temporary).
#[derive(Clone)]
struct Inbox {
    received: Arc<Mutex<Vec<Received>>>,
    to: Vec<String>,
    data: Vec<u8>,
}

impl mailin_embedded::Handler for Inbox {
    fn rcpt(&mut self, to: &str) -> mailin_embedded::Response {
        if to.starts_with("reject") {
            mailin_embedded::response::NO_MAILBOX
        } else if to.starts_with("busy") {
            mailin_embedded::response::INTERNAL_ERROR
        } else {
            self.to.push(to.to_owned());
            mailin_embedded::response::OK
        }
    }

    fn data_start(
        &mut self,
        _domain: &str,
        _from: &str,
        _is8bit: bool,
        _to: &[String],
    ) -> mailin_embedded::Response {
        self.data.clear();
        mailin_embedded::response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.data.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> mailin_embedded::Response {
        self.received.lock().unwrap().push(Received {
            to: std::mem::take(&mut self.to),
            data: String::from_utf8_lossy(&self.data).into_owned(),
        });
        self.data.clear();
        mailin_embedded::response::OK
    }
}

/// Starts an SMTP server on a free loopback port (in a thread of its own).
fn smtp_server() -> (String, Arc<Mutex<Vec<Received>>>) {
    smtp_server_with(mailin_embedded::SslConfig::None)
}

/// [`smtp_server`] offering STARTTLS as `ssl` says.
fn smtp_server_with(ssl: mailin_embedded::SslConfig) -> (String, Arc<Mutex<Vec<Received>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut server = mailin_embedded::Server::new(Inbox {
        received: Arc::clone(&received),
        to: Vec::new(),
        data: Vec::new(),
    });
    server
        .with_name("smtp.test")
        .with_ssl(ssl)
        .unwrap()
        .with_num_threads(4)
        .with_tcp_listener(listener);
    std::thread::spawn(move || {
        let _ = server.serve();
    });
    (format!("smtp://127.0.0.1:{port}"), received)
}

fn email(to: &str) -> EmailMessage {
    EmailMessage {
        to: to.into(),
        subject: "[Acme] API errors: identified".into(),
        text: "We found the cause. Plain part.".into(),
        html: "<p>We found the cause. <b>HTML part.</b></p>".into(),
        message_id: "inc-7.d2@status.test".into(),
        in_reply_to: Some("inc-7.d1@status.test".into()),
        references: vec!["inc-7.d1@status.test".into()],
        list_id: "Acme status <acme.status.test>".into(),
        unsubscribe_url: "https://status.test/status/acme/unsubscribe?token=t0k3n".into(),
        manage_url: Some("https://status.test/status/acme/subscription?token=t0k3n".into()),
        inline: None,
    }
}

/// The header block of a raw message, unfolded: one entry per header.
fn headers(raw: &str) -> Vec<String> {
    let head = raw.split("\r\n\r\n").next().unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    for line in head.split("\r\n") {
        match out.last_mut() {
            Some(last) if line.starts_with([' ', '\t']) => last.push_str(line),
            _ => out.push(line.to_owned()),
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_arrives_over_smtp_with_both_parts_threading_and_one_click_unsubscribe() {
    let (url, received) = smtp_server();
    let mailer = Mailer::new(&url, "Herald <herald@status.test>").unwrap();
    assert_eq!(
        mailer.send(&email("jo@example.com")).await,
        Attempt::Delivered
    );

    let got = received.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].to, vec!["jo@example.com".to_owned()]);
    let h = headers(&got[0].data);
    for expected in [
        "From: Herald <herald@status.test>",
        "To: jo@example.com",
        "Subject: [Acme] API errors: identified",
        "Message-ID: <inc-7.d2@status.test>",
        "In-Reply-To: <inc-7.d1@status.test>",
        "References: <inc-7.d1@status.test>",
        "List-Id: Acme status <acme.status.test>",
        "List-Unsubscribe: <https://status.test/status/acme/unsubscribe?token=t0k3n>",
        "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
    ] {
        assert!(
            h.iter().any(|l| l == expected),
            "missing {expected:?} in {h:#?}"
        );
    }
    assert!(
        h.iter()
            .any(|l| l.starts_with("Content-Type: multipart/alternative")),
        "{h:#?}"
    );
    let data = &got[0].data;
    assert!(data.contains("Content-Type: text/plain"), "{data}");
    assert!(data.contains("Content-Type: text/html"), "{data}");
    assert!(data.contains("We found the cause. Plain part."), "{data}");
    assert!(data.contains("<b>HTML part.</b>"), "{data}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_breaks_in_fields_never_reach_the_wire_as_headers() {
    let (url, received) = smtp_server();
    let mailer = Mailer::new(&url, "Herald <herald@status.test>").unwrap();

    let mut msg = email("jo@example.com");
    msg.subject = "Outage\r\nBcc: victim@example.com\r\nX-Injected: yes".into();
    assert_eq!(mailer.send(&msg).await, Attempt::Delivered);
    let got = received.lock().unwrap().clone();
    assert_eq!(
        got[0].to,
        vec!["jo@example.com".to_owned()],
        "no extra recipient"
    );
    let h = headers(&got[0].data);
    assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
    assert!(!h.iter().any(|l| l.starts_with("X-Injected:")), "{h:#?}");

    // Ids with line breaks are refused before any SMTP exchange.
    let mut bad = email("jo@example.com");
    bad.message_id = "inc-7.d3@status.test\r\nBcc: victim@example.com".into();
    assert!(matches!(mailer.send(&bad).await, Attempt::Failed { .. }));
    let mut bad = email("jo@example.com");
    bad.references = vec!["a@b>\nBcc: <victim@example.com".into()];
    assert!(matches!(mailer.send(&bad).await, Attempt::Failed { .. }));
    let bad = email("jo@example.com\r\nBcc: victim@example.com");
    assert!(matches!(mailer.send(&bad).await, Attempt::Failed { .. }));
    assert_eq!(received.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_smtp_rejection_fails_and_a_temporary_one_is_retried() {
    let (url, received) = smtp_server();
    let mailer = Mailer::new(&url, "Herald <herald@status.test>").unwrap();
    match mailer.send(&email("reject@example.com")).await {
        Attempt::Failed { error } => assert!(error.contains("550"), "{error}"),
        other => panic!("550 should fail: {other:?}"),
    }
    match mailer.send(&email("busy@example.com")).await {
        Attempt::Retry { error, .. } => assert!(error.contains("451"), "{error}"),
        other => panic!("451 should be retried: {other:?}"),
    }
    // The pool still works after rejections.
    assert_eq!(
        mailer.send(&email("jo@example.com")).await,
        Attempt::Delivered
    );
    assert_eq!(received.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_smtp_server_is_unreachable_and_its_password_not_shown() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("smtp://127.0.0.1:{port}");
    let mailer = Mailer::new(&url, "Herald <herald@status.test>").unwrap();
    assert!(matches!(
        mailer.send(&email("jo@example.com")).await,
        Attempt::Unreachable { .. }
    ));
    let secret = Mailer::new(
        "smtp+starttls://me:hunter2@127.0.0.1:1",
        "Herald <herald@status.test>",
    )
    .unwrap();
    assert!(!secret.server().contains("hunter2"));
    assert!(!format!("{secret:?}").contains("hunter2"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_is_never_sent_to_a_server_that_offers_no_starttls() {
    let (url, received) = smtp_server();
    let opportunistic = url.replace("smtp://", "smtp://me:hunter2@") + "?tls=opportunistic";
    let mailer = Mailer::new(&opportunistic, "Herald <herald@status.test>").unwrap();
    match mailer.send(&email("jo@example.com")).await {
        Attempt::Unreachable { error } => {
            assert!(error.contains("offered no STARTTLS"), "{error}");
            assert!(!error.contains("hunter2"), "{error}");
        }
        other => panic!("should be unreachable: {other:?}"),
    }
    assert!(received.lock().unwrap().is_empty());
    let clear = url.replace("smtp://", "smtp://me:hunter2@");
    let refused = Mailer::new(&clear, "Herald <herald@status.test>")
        .err()
        .unwrap();
    assert!(refused.to_string().contains("clear text"), "{refused}");
    assert!(!refused.to_string().contains("hunter2"), "{refused}");
}

/// A CA made for one test and a certificate it issued for "localhost", as PEM files in `dir`.
struct TestPki {
    ca_file: std::path::PathBuf,
    cert_file: std::path::PathBuf,
    key_file: std::path::PathBuf,
    cert: rcgen::Certificate,
    key: rcgen::KeyPair,
}

impl TestPki {
    fn new(dir: &std::path::Path) -> Self {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Herald test CA");
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
            .unwrap()
            .signed_by(&key, &ca, &ca_key)
            .unwrap();
        let pki = Self {
            ca_file: dir.join("ca.pem"),
            cert_file: dir.join("cert.pem"),
            key_file: dir.join("key.pem"),
            cert,
            key,
        };
        std::fs::write(&pki.ca_file, ca.pem()).unwrap();
        std::fs::write(&pki.cert_file, pki.cert.pem()).unwrap();
        std::fs::write(&pki.key_file, pki.key.serialize_pem()).unwrap();
        pki
    }
}

/// A TLS front for the plain server at `backend` (SMTP for `smtps://`, or HTTP for `https://`),
/// with `pki`'s certificate, forwarding the bytes as they are. Answers its port.
async fn smtps_front(backend: SocketAddr, pki: &TestPki) -> u16 {
    use tokio_rustls::rustls::{self, pki_types};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![pki.cert.der().clone()],
            pki_types::PrivateKeyDer::Pkcs8(pki.key.serialize_der().into()),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    port
}

/// Sends through `url` without the CA (refused: the certificate is not trusted, nothing sent,
/// the server is unreachable until the operator fixes the settings), then with it, twice (the second
/// message reuses the pooled session).
async fn delivers_only_with_the_private_ca(
    url: &str,
    pki: &TestPki,
    received: &Mutex<Vec<Received>>,
) {
    let from = "Herald <herald@status.test>";
    let untrusted = Mailer::new(url, from).unwrap();
    match untrusted.send(&email("tls@example.com")).await {
        Attempt::Unreachable { error } => {
            assert!(error.to_lowercase().contains("certificate"), "{error}")
        }
        other => panic!("an untrusted certificate must not deliver: {other:?}"),
    }
    assert!(received.lock().unwrap().is_empty());

    let separator = if url.contains('?') { '&' } else { '?' };
    let trusted = format!("{url}{separator}tls_ca_file={}", pki.ca_file.display());
    let mailer = Mailer::new(&trusted, from).unwrap();
    for _ in 0..2 {
        assert_eq!(
            mailer.send(&email("tls@example.com")).await,
            Attempt::Delivered
        );
    }
    let got = received.lock().unwrap().clone();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].to, vec!["tls@example.com".to_owned()]);
    assert!(got[1].data.contains("We found the cause. Plain part."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_goes_out_over_implicit_tls_to_a_server_whose_private_ca_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let (url, received) = smtp_server();
    let backend: SocketAddr = url.trim_start_matches("smtp://").parse().unwrap();
    let port = smtps_front(backend, &pki).await;
    delivers_only_with_the_private_ca(&format!("smtps://localhost:{port}"), &pki, &received).await;

    // A CA file that is not there is the operator's mistake, said at start.
    let missing = Mailer::new(
        &format!("smtps://localhost:{port}?tls_ca_file=/nonexistent/ca.pem"),
        "Herald <herald@status.test>",
    );
    assert!(
        missing
            .err()
            .is_some_and(|e| e.to_string().contains("tls_ca_file")),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_goes_out_over_starttls_to_a_server_whose_private_ca_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let (url, received) = smtp_server_with(mailin_embedded::SslConfig::SelfSigned {
        cert_path: pki.cert_file.display().to_string(),
        key_path: pki.key_file.display().to_string(),
    });
    let port = url.rsplit(':').next().unwrap();
    let url = format!("smtp+starttls://localhost:{port}");
    delivers_only_with_the_private_ca(&url, &pki, &received).await;
}

// ---------------------------------------------------------------- HTTP receiver

/// One request as the receiver saw it.
#[derive(Debug, Clone)]
struct Hit {
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// A loopback HTTP/1.1 server (keep-alive) answering by path:
/// `/ok` 200, `/429` 429 with `Retry-After: 7`, `/503` 503 with an HTTP-date `Retry-After`,
/// `/500` 500, `/410` 410, `/400` 400, `/408` 408, `/redirect` 302 to `/ok`, `/close` 200,
/// then closes the connection (without saying so) when [`Receiver::close_kept`] is called.
struct Receiver {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
    /// Connections accepted.
    connections: Arc<std::sync::atomic::AtomicUsize>,
    /// Connections the receiver has closed.
    closed: Arc<std::sync::atomic::AtomicUsize>,
    /// Tells the connection that answered `/close` to close.
    close: Arc<tokio::sync::Notify>,
}

impl Receiver {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let closed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let close = Arc::new(tokio::sync::Notify::new());
        let (shared, accepted) = (Arc::clone(&hits), Arc::clone(&connections));
        let (ended, told) = (Arc::clone(&closed), Arc::clone(&close));
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                accepted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let (shared, ended, told) = (Arc::clone(&shared), ended.clone(), told.clone());
                tokio::spawn(async move {
                    serve_connection(stream, shared, told).await;
                    ended.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
        });
        Self {
            addr,
            hits,
            connections,
            closed,
            close,
        }
    }

    /// Closes the connection that answered `/close`, and waits (up to 10 s) until it is closed.
    async fn close_kept(&self) {
        self.close.notify_one();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.closed.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the kept connection was not closed"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn connections(&self) -> usize {
        self.connections.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    fn count(&self, path: &str) -> usize {
        self.hits().iter().filter(|h| h.path == path).count()
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    hits: Arc<Mutex<Vec<Hit>>>,
    close: Arc<tokio::sync::Notify>,
) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).await.unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("/")
            .to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let length: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        hits.lock().unwrap().push(Hit {
            path: path.clone(),
            headers,
            body,
        });
        let (status, extra) = match path.as_str() {
            "/429" => ("429 Too Many Requests", "Retry-After: 7\r\n".to_owned()),
            "/503" => {
                let later = chrono::Utc::now() + chrono::Duration::seconds(120);
                let date = later.format("%a, %d %b %Y %H:%M:%S GMT");
                (
                    "503 Service Unavailable",
                    format!("Retry-After: {date}\r\n"),
                )
            }
            "/500" => ("500 Internal Server Error", String::new()),
            "/410" => ("410 Gone", String::new()),
            "/400" => ("400 Bad Request", String::new()),
            "/408" => ("408 Request Timeout", String::new()),
            "/redirect" => ("302 Found", "Location: /ok\r\n".to_owned()),
            _ => ("200 OK", String::new()),
        };
        let answer = "thanks";
        let response = format!(
            "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nContent-Type: text/plain\r\n\r\n{answer}",
            answer.len()
        );
        if reader
            .get_mut()
            .write_all(response.as_bytes())
            .await
            .is_err()
        {
            return;
        }
        if path == "/close" {
            close.notified().await;
            return;
        }
    }
}

fn open_policy() -> Policy {
    Policy {
        allow_private: true,
        ..Policy::default()
    }
}

fn webhook(url: &str) -> WebhookRequest {
    WebhookRequest {
        id: "msg_2bQx9w7Vd3".into(),
        url: url.into(),
        secret: signature::new_secret(),
        body: json!({
            "meta": {"unsubscribe": "https://status.test/u/1", "generated_at": "2026-11-30T07:00:00Z"},
            "page": {"id": "acme", "status_indicator": "major", "status_description": "Partial System Outage"},
            "incident": {"name": "API errors", "status": "identified", "incident_updates": []}
        })
        .into(),
        summary: ChatMessage {
            title: "Acme: API errors".into(),
            text: "We found the cause.".into(),
            url: "https://status.test/status/acme/incidents/1".into(),
            status: "identified".into(),
            author: Author::Responder,
        }.into(),
    }
}

/// Verifies a Standard Webhooks signature without the signing code: HMAC-SHA256 over
/// `id.timestamp.body` with the base64-decoded secret, compared with each `v1,` signature.
fn independently_verified(secret: &str, hit: &Hit) -> bool {
    use base64::Engine as _;
    use hmac::Mac as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = b64.decode(secret.trim_start_matches("whsec_")).unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    let signed = [
        hit.headers["webhook-id"].as_bytes(),
        b".",
        hit.headers["webhook-timestamp"].as_bytes(),
        b".",
        &hit.body,
    ]
    .concat();
    mac.update(&signed);
    let expected = b64.encode(mac.finalize().into_bytes());
    hit.headers["webhook-signature"]
        .split(' ')
        .any(|s| s.strip_prefix("v1,") == Some(expected.as_str()))
}

/// Verifies with the specification's own Python library, `standardwebhooks`, from the test
/// tools' virtual environment (installed on first use: [`tools::python_bin`]): `valid`, or
/// `invalid` and why. Blocking.
fn verified_by_the_reference_library(secret: &str, hit: &Hit) -> String {
    let script = "import json, os, sys\n\
        from standardwebhooks.webhooks import Webhook\n\
        headers = json.loads(os.environ['WH_HEADERS'])\n\
        body = sys.stdin.buffer.read().decode()\n\
        try:\n    Webhook(os.environ['WH_SECRET']).verify(body, headers)\n    print('valid')\n\
        except Exception as e:\n    print('invalid', e)\n";
    let headers = json!({
        "webhook-id": hit.headers["webhook-id"],
        "webhook-timestamp": hit.headers["webhook-timestamp"],
        "webhook-signature": hit.headers["webhook-signature"],
    });
    let mut child = std::process::Command::new(tools::python_bin().join("python"))
        .args(["-c", script])
        .env("WH_SECRET", secret)
        .env("WH_HEADERS", headers.to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the test tools' python starts");
    {
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(&hit.body).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the reference library did not run ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_so_that_an_independent_verifier_accepts_them() {
    let receiver = Receiver::start().await;
    let client = WebhookClient::new(open_policy());
    let req = webhook(&receiver.url("/ok"));
    assert_eq!(client.send(&req).await, Attempt::Delivered);

    let hit = receiver.hits().pop().unwrap();
    assert_eq!(hit.headers["webhook-id"], "msg_2bQx9w7Vd3");
    assert_eq!(hit.headers["content-type"], "application/json");
    assert!(hit.headers["user-agent"].starts_with("Herald-Webhooks/"));
    let ts: i64 = hit.headers["webhook-timestamp"].parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - ts).abs() < 60);
    let body: serde_json::Value = serde_json::from_slice(&hit.body).unwrap();
    assert_eq!(
        body,
        req.body.to_value(),
        "standard receivers get the Statuspage body"
    );
    assert!(independently_verified(&req.secret, &hit));

    let mut tampered = hit.clone();
    tampered.body.push(b' ');
    assert!(!independently_verified(&req.secret, &tampered));

    let (secret, genuine, forged) = (req.secret.clone(), hit.clone(), tampered.clone());
    let (genuine, forged) = tokio::task::spawn_blocking(move || {
        (
            verified_by_the_reference_library(&secret, &genuine),
            verified_by_the_reference_library(&secret, &forged),
        )
    })
    .await
    .unwrap();
    assert_eq!(
        genuine, "valid",
        "the standardwebhooks library rejected the signature"
    );
    assert!(
        forged.starts_with("invalid"),
        "the standardwebhooks library accepted a changed body: {forged}"
    );

    // A retry of the same message carries the same id (receivers deduplicate on it).
    assert_eq!(client.send(&req).await, Attempt::Delivered);
    let ids: Vec<String> = receiver
        .hits()
        .iter()
        .map(|h| h.headers["webhook-id"].clone())
        .collect();
    assert_eq!(ids, vec!["msg_2bQx9w7Vd3".to_owned(); 2]);
}

/// https receivers are reached over TLS and their certificate is verified against the public
/// roots: one issued by a private CA is refused (the host is unreachable until it is fixed)
/// and nothing reaches the receiver.
/// Webhooks to one receiver share a kept-alive connection, asking for the path alone and naming
/// the host; a connection the receiver closed while idle is replaced and nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_kept_alive_and_one_closed_by_the_receiver_is_replaced() {
    let receiver = Receiver::start().await;
    let client = WebhookClient::new(open_policy());
    for _ in 0..3 {
        assert_eq!(
            client.send(&webhook(&receiver.url("/ok?a=1"))).await,
            Attempt::Delivered
        );
    }
    assert_eq!(
        receiver.connections(),
        1,
        "one connection for three webhooks"
    );
    let hits = receiver.hits();
    assert!(hits.iter().all(|h| h.path == "/ok?a=1"), "{hits:?}");
    assert_eq!(hits[0].headers["host"], receiver.addr.to_string());

    // The receiver closes this one after answering (and once it is idle), without saying so
    // beforehand.
    assert_eq!(
        client.send(&webhook(&receiver.url("/close"))).await,
        Attempt::Delivered
    );
    receiver.close_kept().await;
    assert_eq!(
        client.send(&webhook(&receiver.url("/ok"))).await,
        Attempt::Delivered
    );
    assert_eq!(
        receiver.connections(),
        2,
        "a new connection once the kept one closed"
    );
    assert_eq!(receiver.count("/ok"), 1);
    assert_eq!(receiver.count("/ok?a=1"), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_receivers_must_present_a_trusted_certificate() {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let port = smtps_front(receiver.addr, &pki).await;
    let client = WebhookClient::with_pinned_hosts(
        open_policy(),
        Arc::new(herald::delivery::breaker::SystemClock),
        &[("localhost", "127.0.0.1".parse().unwrap())],
    );
    match client
        .send(&webhook(&format!("https://localhost:{port}/ok")))
        .await
    {
        Attempt::Unreachable { error } => assert!(
            error.contains("certificate"),
            "the error names the certificate: {error}"
        ),
        other => panic!("an untrusted certificate must not deliver: {other:?}"),
    }
    assert!(receiver.hits().is_empty());
}

/// An on-premises receiver whose certificate comes from the operator's own CA is reached
/// once that CA is given (`HERALD_WEBHOOK_CA_FILE`): the signed body arrives over TLS, twice
/// (the second time over the pooled connection or a new one, either way verified).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_receivers_signed_by_a_configured_ca_are_reached() {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let port = smtps_front(receiver.addr, &pki).await;
    let policy = Policy {
        extra_roots: outbound::read_ca_file(&pki.ca_file).unwrap().into(),
        ..open_policy()
    };
    let client = WebhookClient::with_pinned_hosts(
        policy,
        Arc::new(herald::delivery::breaker::SystemClock),
        &[("localhost", "127.0.0.1".parse().unwrap())],
    );
    let req = webhook(&format!("https://localhost:{port}/ok"));
    assert_eq!(client.send(&req).await, Attempt::Delivered);
    assert_eq!(client.send(&req).await, Attempt::Delivered);
    let hits = receiver.hits();
    assert_eq!(hits.len(), 2);
    assert!(independently_verified(&req.secret, &hits[0]));
    assert_eq!(hits[0].headers["webhook-id"], req.id);
    // A CA file that cannot be read is refused, naming it.
    let err = outbound::read_ca_file(&pki.key_file.with_extension("missing")).unwrap_err();
    assert!(err.contains("cannot read the CA file"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receivers_answers_decide_between_retry_and_failure() {
    let receiver = Receiver::start().await;
    let client = WebhookClient::new(open_policy());
    let send = |path: &str| {
        let req = webhook(&receiver.url(path));
        let client = client.clone();
        async move { client.send(&req).await }
    };
    assert_eq!(
        send("/429").await,
        Attempt::Retry {
            retry_after: Some(Duration::from_secs(7)),
            error: "the receiver answered 429 Too Many Requests: thanks".into()
        }
    );
    match send("/503").await {
        Attempt::Retry {
            retry_after: Some(wait),
            ..
        } => assert!(
            (Duration::from_secs(110)..=Duration::from_secs(121)).contains(&wait),
            "{wait:?}"
        ),
        other => panic!("503 with an HTTP date: {other:?}"),
    }
    assert!(matches!(
        send("/500").await,
        Attempt::Retry {
            retry_after: None,
            ..
        }
    ));
    assert!(matches!(send("/408").await, Attempt::Retry { .. }));
    for gone in ["/410", "/400"] {
        match send(gone).await {
            Attempt::Failed { error } => assert!(error.contains(&gone[1..]), "{error}"),
            other => panic!("{gone} must not be retried: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_not_followed() {
    let receiver = Receiver::start().await;
    let client = WebhookClient::new(open_policy());
    match client.send(&webhook(&receiver.url("/redirect"))).await {
        Attempt::Failed { error } => assert!(error.contains("redirect"), "{error}"),
        other => panic!("a redirect must not count as delivered: {other:?}"),
    }
    assert_eq!(receiver.count("/redirect"), 1);
    assert_eq!(receiver.count("/ok"), 0, "the redirect was followed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_host_opens_its_circuit_while_another_host_keeps_receiving() {
    let failing = Receiver::start().await;
    let healthy = Receiver::start().await;
    let client = WebhookClient::new(Policy {
        breaker: BreakerConfig {
            failure_threshold: 3,
            cool_down: Duration::from_secs(60),
        },
        ..open_policy()
    });
    for _ in 0..3 {
        assert!(matches!(
            client.send(&webhook(&failing.url("/500"))).await,
            Attempt::Retry { .. }
        ));
    }
    for _ in 0..5 {
        match client.send(&webhook(&failing.url("/500"))).await {
            Attempt::Deferred { after, .. } => {
                assert!(after > Duration::from_secs(50) && after <= Duration::from_secs(60))
            }
            other => panic!("the circuit should be open: {other:?}"),
        }
    }
    assert_eq!(failing.count("/500"), 3, "an open circuit sends nothing");
    for _ in 0..3 {
        assert_eq!(
            client.send(&webhook(&healthy.url("/ok"))).await,
            Attempt::Delivered
        );
    }
    assert_eq!(healthy.count("/ok"), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_destinations_are_refused_at_check_time_and_at_delivery_time() {
    let receiver = Receiver::start().await;
    let strict = Policy::default();
    let port = receiver.addr.port();

    for url in [
        format!("http://127.0.0.1:{port}/ok"),
        "http://10.1.2.3/hook".to_owned(),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://[::1]/hook".to_owned(),
        // IPv4-translated (::ffff:0:0/96) reaches its IPv4 address as IPv4-mapped does.
        format!("http://[::ffff:0:127.0.0.1]:{port}/ok"),
    ] {
        let err = outbound::check_url(&url, &strict).unwrap_err();
        assert!(matches!(err, UrlRefusal::NotPublic { .. }), "{url}: {err}");
    }
    // A name that resolves to loopback passes the syntax check but not the destination check.
    let by_name = format!("http://localhost:{port}/ok");
    let parsed = outbound::check_url(&by_name, &strict).unwrap();
    let err = outbound::check_destination(&parsed, &strict)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("loopback"), "{err}");

    // At delivery time too (DNS may have changed since the subscription).
    let client = WebhookClient::new(strict);
    for url in [
        format!("http://127.0.0.1:{port}/ok"),
        by_name.clone(),
        "http://10.1.2.3/hook".to_owned(),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://[::ffff:127.0.0.1]/hook".to_owned(),
        format!("http://[::ffff:0:127.0.0.1]:{port}/ok"),
    ] {
        match client.send(&webhook(&url)).await {
            Attempt::Failed { error } => {
                assert!(error.contains("public addresses only"), "{url}: {error}")
            }
            other => panic!("{url} must be refused: {other:?}"),
        }
    }
    assert!(receiver.hits().is_empty(), "a refused request got through");

    // HERALD_ALLOW_PRIVATE_WEBHOOKS lifts the rule.
    let open = WebhookClient::new(open_policy());
    assert_eq!(open.send(&webhook(&by_name)).await, Attempt::Delivered);
    assert_eq!(receiver.count("/ok"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_cool_down_one_probe_reaches_the_host_and_its_success_closes_the_circuit() {
    let receiver = Receiver::start().await;
    let clock = herald::delivery::breaker::ManualClock::default();
    let client = WebhookClient::with_clock(
        Policy {
            breaker: BreakerConfig {
                failure_threshold: 2,
                cool_down: Duration::from_secs(30),
            },
            ..open_policy()
        },
        Arc::new(clock.clone()),
    );
    for _ in 0..2 {
        assert!(matches!(
            client.send(&webhook(&receiver.url("/500"))).await,
            Attempt::Retry { .. }
        ));
    }
    // Open: even a request that would succeed waits, without reaching the host.
    match client.send(&webhook(&receiver.url("/ok"))).await {
        Attempt::Deferred { after, .. } => assert_eq!(after, Duration::from_secs(30)),
        other => panic!("the circuit should be open: {other:?}"),
    }
    clock.advance(Duration::from_secs(29));
    assert!(matches!(
        client.send(&webhook(&receiver.url("/ok"))).await,
        Attempt::Deferred { .. }
    ));
    assert_eq!(receiver.count("/ok"), 0);

    // Half-open: one probe goes; it fails, so the circuit opens again for a whole cool-down.
    clock.advance(Duration::from_secs(1));
    assert!(matches!(
        client.send(&webhook(&receiver.url("/500"))).await,
        Attempt::Retry { .. }
    ));
    assert_eq!(receiver.count("/500"), 3);
    assert!(matches!(
        client.send(&webhook(&receiver.url("/ok"))).await,
        Attempt::Deferred { .. }
    ));

    // The next probe succeeds and the circuit closes: everything flows again.
    clock.advance(Duration::from_secs(30));
    for _ in 0..4 {
        assert_eq!(
            client.send(&webhook(&receiver.url("/ok"))).await,
            Attempt::Delivered
        );
    }
    assert_eq!(receiver.count("/ok"), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_discord_and_teams_urls_receive_their_own_formats_over_http() {
    let receiver = Receiver::start().await;
    let loopback = "127.0.0.1".parse().unwrap();
    let client = WebhookClient::with_pinned_hosts(
        open_policy(),
        Arc::new(herald::delivery::breaker::SystemClock),
        &[
            ("hooks.slack.com", loopback),
            ("discord.com", loopback),
            ("acme.webhook.office.com", loopback),
        ],
    );
    let port = receiver.addr.port();
    let cases = [
        format!("http://hooks.slack.com:{port}/services/T0/B0/token"),
        format!("http://discord.com:{port}/api/webhooks/1/token"),
        format!("http://acme.webhook.office.com:{port}/webhookb2/x/IncomingWebhook/y/z"),
    ];
    for url in &cases {
        assert_eq!(
            client.send(&webhook(url)).await,
            Attempt::Delivered,
            "{url}"
        );
    }
    let bodies: Vec<serde_json::Value> = receiver
        .hits()
        .iter()
        .map(|h| serde_json::from_slice(&h.body).unwrap())
        .collect();
    assert_eq!(bodies.len(), 3);
    let slack = &bodies[0];
    assert!(slack["text"].as_str().unwrap().contains("Acme: API errors"));
    assert_eq!(slack["blocks"][0]["type"], "section");
    let discord = &bodies[1];
    assert_eq!(discord["embeds"][0]["title"], "Acme: API errors");
    assert_eq!(discord["allowed_mentions"]["parse"], json!([]));
    let teams = &bodies[2];
    assert_eq!(teams["type"], "message");
    assert_eq!(teams["attachments"][0]["content"]["type"], "AdaptiveCard");
    // Pinned names are still subject to the policy.
    let strict = WebhookClient::with_pinned_hosts(
        Policy::default(),
        Arc::new(herald::delivery::breaker::SystemClock),
        &[("hooks.slack.com", loopback)],
    );
    assert!(matches!(
        strict.send(&webhook(&cases[0])).await,
        Attempt::Failed { .. }
    ));
    assert_eq!(receiver.hits().len(), 3);
}
