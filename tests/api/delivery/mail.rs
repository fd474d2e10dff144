//! Mail over real SMTP: both parts, threading, one-click unsubscribe, refusals and retries,
//! and TLS (implicit and STARTTLS) to a server whose private CA is configured.

use super::*;

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
