//! Webhooks to a real HTTP/1.1 receiver: signatures an independent verifier accepts, kept
//! connections, TLS, retries and failures, redirects, circuits, private destinations refused,
//! and the chat formats.

use super::*;

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
pub(crate) fn verified_by_the_reference_library(
    secret: &str,
    headers: &HashMap<String, String>,
    body: &[u8],
) -> String {
    let script = "import json, os, sys\n\
        from standardwebhooks.webhooks import Webhook\n\
        headers = json.loads(os.environ['WH_HEADERS'])\n\
        body = sys.stdin.buffer.read().decode()\n\
        try:\n    Webhook(os.environ['WH_SECRET']).verify(body, headers)\n    print('valid')\n\
        except Exception as e:\n    print('invalid', e)\n";
    let headers = json!({
        "webhook-id": headers["webhook-id"],
        "webhook-timestamp": headers["webhook-timestamp"],
        "webhook-signature": headers["webhook-signature"],
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
        child.stdin.take().unwrap().write_all(body).unwrap();
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
            verified_by_the_reference_library(&secret, &genuine.headers, &genuine.body),
            verified_by_the_reference_library(&secret, &forged.headers, &forged.body),
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
