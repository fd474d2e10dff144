//! Real receivers on loopback: an SMTP server (mailin-embedded, no TLS) that keeps every
//! message, and an HTTP server (actix-web) that keeps every webhook request.

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use mailin_embedded::{Handler, Response, Server, SslConfig, response};

/// One received message.
#[derive(Debug, Clone)]
pub struct Mail {
    pub to: Vec<String>,
    pub raw: String,
}

impl Mail {
    /// A top-level header, unfolded.
    pub fn header(&self, name: &str) -> Option<String> {
        header_of(head(&self.raw), name)
    }

    /// The Subject header, decoded (RFC 2047 encoded words, as a mail client shows it).
    pub fn subject(&self) -> Option<String> {
        mail_parser::MessageParser::default()
            .parse(self.raw.as_bytes())?
            .subject()
            .map(str::to_owned)
    }

    /// The decoded text/plain part.
    pub fn text(&self) -> String {
        self.part("text/plain")
    }

    /// The decoded text/html part.
    pub fn html(&self) -> String {
        self.part("text/html")
    }

    fn part(&self, content_type: &str) -> String {
        part_of(&self.raw, content_type).unwrap_or_default()
    }

    /// The headers of the first part of `content_type`, at any depth (e.g. an inline image
    /// in a `multipart/related` beside the HTML).
    pub fn part_headers(&self, content_type: &str) -> Option<String> {
        find_part(&self.raw, content_type).map(|chunk| head(chunk).to_owned())
    }

    /// The first `http...` link in the text part containing `needle`.
    pub fn link(&self, needle: &str) -> Option<String> {
        self.text()
            .split_whitespace()
            .find(|w| w.starts_with("http") && w.contains(needle))
            .map(str::to_owned)
    }
}

/// The first part of `content_type` in the MIME entity `raw` (headers and body), looking into
/// nested multiparts.
fn find_part<'a>(raw: &'a str, content_type: &str) -> Option<&'a str> {
    let ct = header_of(head(raw), "Content-Type")?;
    let lower = ct.to_ascii_lowercase();
    if lower.starts_with(content_type) {
        return Some(raw);
    }
    if !lower.starts_with("multipart/") {
        return None;
    }
    let boundary = ct.split("boundary=").nth(1)?.trim_matches('"').to_owned();
    let boundary = boundary
        .split(';')
        .next()
        .unwrap_or_default()
        .trim_matches('"');
    raw.split(&format!("\n--{boundary}"))
        .skip(1)
        .filter_map(|chunk| chunk.strip_prefix('\n'))
        .find_map(|chunk| find_part(chunk, content_type))
}

/// The decoded body of the first part of `content_type` in `raw`.
fn part_of(raw: &str, content_type: &str) -> Option<String> {
    let chunk = find_part(raw, content_type)?;
    let body = chunk.split_once("\n\n").map(|(_, b)| b).unwrap_or_default();
    let encoding = header_of(head(chunk), "Content-Transfer-Encoding")
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(decode(body, &encoding))
}

fn head(raw: &str) -> &str {
    raw.split_once("\n\n").map_or(raw, |(h, _)| h)
}

fn header_of(headers: &str, name: &str) -> Option<String> {
    let unfolded = headers.replace("\n ", " ").replace("\n\t", " ");
    unfolded.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

fn decode(body: &str, encoding: &str) -> String {
    match encoding {
        "base64" => {
            let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        }
        "quoted-printable" => {
            let joined = body.replace("=\n", "");
            let bytes = joined.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'='
                    && i + 2 < bytes.len()
                    && let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16)
                {
                    out.push(b);
                    i += 3;
                    continue;
                }
                out.push(bytes[i]);
                i += 1;
            }
            String::from_utf8_lossy(&out).into_owned()
        }
        _ => body.to_owned(),
    }
}

#[derive(Clone)]
struct Keeper {
    mails: Arc<Mutex<Vec<Mail>>>,
    to: Vec<String>,
    data: Vec<u8>,
}

impl Handler for Keeper {
    fn data_start(&mut self, _domain: &str, _from: &str, _is8bit: bool, to: &[String]) -> Response {
        self.to = to
            .iter()
            .map(|t| t.trim_matches(['<', '>']).to_ascii_lowercase())
            .collect();
        self.data.clear();
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.data.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        let mail = Mail {
            to: std::mem::take(&mut self.to),
            raw: String::from_utf8_lossy(&self.data).replace("\r\n", "\n"),
        };
        self.mails.lock().unwrap().push(mail);
        response::OK
    }
}

/// An SMTP server on a free loopback port.
pub struct SmtpSink {
    pub port: u16,
    mails: Arc<Mutex<Vec<Mail>>>,
}

impl SmtpSink {
    /// Starts the server in its own thread (it runs until the test process ends).
    pub fn start() -> Self {
        Self::start_on(0)
    }

    /// Starts the server on loopback port `port` (0: any free one).
    pub fn start_on(port: u16) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind smtp");
        let port = listener.local_addr().unwrap().port();
        let mails = Arc::new(Mutex::new(Vec::new()));
        let keeper = Keeper {
            mails: mails.clone(),
            to: Vec::new(),
            data: Vec::new(),
        };
        let mut server = Server::new(keeper);
        server
            .with_name("sink.test")
            .with_ssl(SslConfig::None)
            .expect("no tls")
            .with_num_threads(24)
            .with_tcp_listener(listener);
        std::thread::spawn(move || {
            let _ = server.serve();
        });
        Self { port, mails }
    }

    /// `smtp://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message to `address` so far.
    pub fn to(&self, address: &str) -> Vec<Mail> {
        self.mails
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.to.iter().any(|t| t == address))
            .cloned()
            .collect()
    }

    /// Waits (up to 15 s) until `address` has at least `count` messages; returns them.
    pub async fn wait_for(&self, address: &str, count: usize) -> Vec<Mail> {
        let started = Instant::now();
        loop {
            let mails = self.to(address);
            if mails.len() >= count {
                return mails;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{address} got {} messages, expected {count}",
                mails.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

/// One received webhook request.
#[derive(Debug, Clone)]
pub struct Hook {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Hook {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("webhook body is JSON")
    }
}

#[derive(Clone, Default)]
struct Shared {
    hooks: Arc<Mutex<Vec<Hook>>>,
    status: Arc<AtomicU16>,
    delay_ms: Arc<AtomicU64>,
}

async fn keep(req: HttpRequest, body: web::Bytes, shared: web::Data<Shared>) -> HttpResponse {
    let delay = shared.delay_ms.load(Ordering::Relaxed);
    if delay > 0 {
        // Not synchronisation: a receiver that is slow on purpose, the peer under test.
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let status = shared.status.load(Ordering::Relaxed);
    let hook = Hook {
        path: req.path().to_owned(),
        headers: req
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: body.to_vec(),
    };
    shared.hooks.lock().unwrap().push(hook);
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).finish()
}

/// An HTTP receiver on a free loopback port, answering `status` (200 unless changed).
pub struct Receiver {
    pub base: String,
    shared: Shared,
}

impl Receiver {
    /// Starts the receiver on the current Tokio runtime.
    pub fn start() -> Self {
        Self::start_on(0)
    }

    /// The URL of `path` at this receiver.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Starts the receiver on loopback port `port` (0: any free one).
    pub fn start_on(port: u16) -> Self {
        let shared = Shared::default();
        shared.status.store(200, Ordering::Relaxed);
        let data = web::Data::new(shared.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::PayloadConfig::new(4 * 1024 * 1024))
                .default_service(web::to(keep))
        })
        .workers(2)
        .disable_signals()
        .bind(("127.0.0.1", port))
        .expect("bind receiver");
        let port = server.addrs()[0].port();
        tokio::spawn(server.run());
        Self {
            base: format!("http://127.0.0.1:{port}"),
            shared,
        }
    }

    /// The status answered from now on.
    pub fn answer(&self, status: u16) {
        self.shared.status.store(status, Ordering::Relaxed);
    }

    /// How many requests so far.
    pub fn count(&self) -> usize {
        self.shared.hooks.lock().unwrap().len()
    }

    /// A delay before every answer from now on.
    pub fn delay(&self, ms: u64) {
        self.shared.delay_ms.store(ms, Ordering::Relaxed);
    }

    /// Every request so far.
    pub fn hooks(&self) -> Vec<Hook> {
        self.shared.hooks.lock().unwrap().clone()
    }

    /// Requests to `path` so far.
    pub fn at(&self, path: &str) -> Vec<Hook> {
        self.hooks()
            .into_iter()
            .filter(|h| h.path == path)
            .collect()
    }

    /// Waits (up to 15 s) until `path` got at least `count` requests; returns them.
    pub async fn wait_for(&self, path: &str, count: usize) -> Vec<Hook> {
        let started = Instant::now();
        loop {
            let hooks = self.at(path);
            if hooks.len() >= count {
                return hooks;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{path} got {} requests, expected {count}",
                hooks.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

/// A loopback port nothing listens on (bound and closed again): connections to it are refused
/// until a sink is started on it.
pub fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().unwrap().port()
}
