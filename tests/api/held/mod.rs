//! Behaviours a security review listed as holding, each tested through the real application
//! over HTTP (and real receivers on loopback): uploaded SVGs that cannot reach files or blow
//! up ([`svg`]), links that cannot run script ([`links`]), outbound requests that cannot reach
//! inside ([`outbound`]), private pages that leak nowhere ([`private`]), oversized alert
//! bodies ([`alerts`]), an embed that shows names as text ([`embed`]), a subscriber export a
//! spreadsheet cannot run ([`csv`]), and the API's roles and page boundaries ([`roles`]).

mod alerts;
mod csv;
mod embed;
mod links;
mod outbound;
mod private;
pub(crate) mod roles;
mod svg;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::helpers::{TestApp, no_redirects};

/// A header's value, or `""` when it is absent.
fn header(res: &reqwest::Response, name: &str) -> String {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// GET `path` at the app with extra headers, without following redirects.
async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut req = no_redirects().get(format!("{}{path}", app.address));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.send().await.unwrap()
}

/// PATCHes the page `slug` (asserting 200) and waits until the public site shows the change.
async fn patch_page(app: &TestApp, token: &str, slug: &str, body: Value) -> Value {
    let (status, answer) = app.api(token).patch(&format!("/pages/{slug}"), body).await;
    assert_eq!(status, 200, "{answer}");
    app.refreshed().await;
    answer
}

/// Opens an incident named `name` with `body` on `slug`; answers its id.
async fn incident(app: &TestApp, token: &str, slug: &str, name: &str, body: &str) -> String {
    let (status, made) = app
        .api(token)
        .post(
            &format!("/pages/{slug}/incidents"),
            json!({"name": name, "impact": "major", "body": body}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    made["id"].as_str().unwrap().to_owned()
}

/// A TCP listener on loopback that accepts connections, counts them and closes them at once:
/// a destination that must never be reached.
struct Tripwire {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Tripwire {
    /// Listening on `ip` (`127.0.0.1` or `::`), on a port of its own.
    fn start(ip: &str) -> Self {
        let listener = TcpListener::bind((ip, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stream.is_ok() {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        Self { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// A one-document HTTP server on loopback: every request gets `answer(stream)` written after
/// its head is read. Counts the requests it saw.
struct Server {
    addr: SocketAddr,
    requests: Arc<AtomicUsize>,
}

impl Server {
    fn start(answer: impl Fn(&mut TcpStream) + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (answer, counted) = (answer.clone(), counted.clone());
                std::thread::spawn(move || {
                    if read_head(&mut stream) {
                        counted.fetch_add(1, Ordering::SeqCst);
                        answer(&mut stream);
                    }
                });
            }
        });
        Self { addr, requests }
    }

    /// A server answering every request 200 with `body` as `content_type`.
    fn document(content_type: &'static str, body: Vec<u8>) -> Self {
        Self::start(move |stream| {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        })
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Reads a request's head (up to the blank line); false when the peer went away first.
fn read_head(stream: &mut TcpStream) -> bool {
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !seen.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => seen.push(byte[0]),
            _ => return false,
        }
    }
    true
}
