//! A delivery sink for `bench/fanout.sh`: a real SMTP server (mailin-embedded) and a real HTTP
//! webhook receiver (actix-web) that accept everything and count what arrives, with the time of
//! the first and the last arrival per channel. `GET /stats` on the HTTP port answers
//!
//! ```json
//! {"emails": 10000, "webhooks": 10000, "email_first_ms": ..., "email_last_ms": ...,
//!  "webhook_first_ms": ..., "webhook_last_ms": ..., "webhook_ids": 10000,
//!  "webhook_connections": 8}
//! ```
//!
//! with times in Unix milliseconds; `webhook_ids` counts distinct `webhook-id` headers, so a
//! resend with the same id is visible as such; `webhook_connections` counts the distinct client
//! sockets webhooks came over. `POST /reset` zeroes everything; `GET /last`
//! answers the last webhook body received (for driving the receiver directly with wrk).
//!
//! The HTTP receiver listens on 127.0.0.1 through 127.0.0.HOSTS (all loopback on Linux), so a
//! benchmark can spread its webhook subscribers over several destination hosts, as real ones are.
//!
//!     cargo run --release --example notify_sink -- SMTP_PORT HTTP_PORT HOSTS
//!     cargo run --release --example notify_sink -- 2525 18090 16

// A measuring tool: it prints its figures, and stops on what it cannot measure.
#![allow(clippy::print_stdout, clippy::expect_used)]
#![allow(clippy::unwrap_used)] // A bench tool: a poisoned lock may end the run.

use std::collections::HashSet;
use std::net::{IpAddr, TcpListener};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use mailin_embedded::{Handler, Response, Server, response};

/// Arrivals of one channel.
#[derive(Default)]
struct Arrivals {
    count: AtomicU64,
    first_ms: AtomicI64,
    last_ms: AtomicI64,
}

impl Arrivals {
    fn record(&self) {
        let now = chrono::Utc::now().timestamp_millis();
        self.count.fetch_add(1, Ordering::Relaxed);
        let _ = self
            .first_ms
            .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
        self.last_ms.fetch_max(now, Ordering::Relaxed);
    }

    fn reset(&self) {
        self.count.store(0, Ordering::Relaxed);
        self.first_ms.store(0, Ordering::Relaxed);
        self.last_ms.store(0, Ordering::Relaxed);
    }
}

#[derive(Default)]
struct Sink {
    emails: Arrivals,
    webhooks: Arrivals,
    webhook_ids: Mutex<HashSet<String>>,
    webhook_peers: Mutex<HashSet<std::net::SocketAddr>>,
    last_body: Mutex<web::Bytes>,
}

/// The SMTP side: accepts every message and counts it when its data ends.
#[derive(Clone)]
struct Smtp(Arc<Sink>);

impl Handler for Smtp {
    fn helo(&mut self, _ip: IpAddr, _domain: &str) -> Response {
        response::OK
    }
    fn mail(&mut self, _ip: IpAddr, _domain: &str, _from: &str) -> Response {
        response::OK
    }
    fn rcpt(&mut self, _to: &str) -> Response {
        response::OK
    }
    fn data_end(&mut self) -> Response {
        self.0.emails.record();
        response::OK
    }
}

async fn hook(req: HttpRequest, sink: web::Data<Arc<Sink>>, body: web::Bytes) -> HttpResponse {
    if let Some(id) = req
        .headers()
        .get("webhook-id")
        .and_then(|v| v.to_str().ok())
    {
        sink.webhook_ids.lock().unwrap().insert(id.to_owned());
    }
    if let Some(peer) = req.peer_addr() {
        sink.webhook_peers.lock().unwrap().insert(peer);
    }
    *sink.last_body.lock().unwrap() = body;
    sink.webhooks.record();
    HttpResponse::Ok().finish()
}

async fn last(sink: web::Data<Arc<Sink>>) -> HttpResponse {
    let body = sink.last_body.lock().unwrap().clone();
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body)
}

async fn stats(sink: web::Data<Arc<Sink>>) -> HttpResponse {
    let ids = sink.webhook_ids.lock().unwrap().len();
    HttpResponse::Ok().json(serde_json::json!({
        "emails": sink.emails.count.load(Ordering::Relaxed),
        "email_first_ms": sink.emails.first_ms.load(Ordering::Relaxed),
        "email_last_ms": sink.emails.last_ms.load(Ordering::Relaxed),
        "webhooks": sink.webhooks.count.load(Ordering::Relaxed),
        "webhook_first_ms": sink.webhooks.first_ms.load(Ordering::Relaxed),
        "webhook_last_ms": sink.webhooks.last_ms.load(Ordering::Relaxed),
        "webhook_ids": ids,
        "webhook_connections": sink.webhook_peers.lock().unwrap().len(),
    }))
}

async fn reset(sink: web::Data<Arc<Sink>>) -> HttpResponse {
    sink.emails.reset();
    sink.webhooks.reset();
    sink.webhook_ids.lock().unwrap().clear();
    sink.webhook_peers.lock().unwrap().clear();
    HttpResponse::NoContent().finish()
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let smtp_port: u16 = args.next().and_then(|a| a.parse().ok()).unwrap_or(2525);
    let http_port: u16 = args.next().and_then(|a| a.parse().ok()).unwrap_or(18090);
    let hosts: u8 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let sink = Arc::new(Sink::default());

    let listener = TcpListener::bind(("127.0.0.1", smtp_port))?;
    let mut smtp = Server::new(Smtp(sink.clone()));
    smtp.with_name("sink.localhost")
        .with_num_threads(64)
        .with_tcp_listener(listener);
    std::thread::spawn(move || {
        if let Err(e) = smtp.serve() {
            eprintln!("smtp sink stopped: {e}");
        }
    });

    let data = web::Data::new(sink);
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PayloadConfig::new(4 * 1024 * 1024))
            .route("/stats", web::get().to(stats))
            .route("/last", web::get().to(last))
            .route("/reset", web::post().to(reset))
            .default_service(web::post().to(hook))
    })
    .workers(2)
    .backlog(4096);
    for host in 1..=hosts {
        server = server.bind((format!("127.0.0.{host}"), http_port))?;
    }
    actix_web::rt::System::new().block_on(server.run())
}
