//! The ceiling of Herald's webhook sending, for `bench/fanout.sh`: the same body posted to the
//! sink with no database in the way, at the engine's concurrency (64 in flight, 8 per host), so
//! a fan-out's rate can be read against what its HTTP path alone reaches on this machine.
//!
//!     cargo run --release --example webhook_blast -- MODE COUNT HTTP_PORT HOSTS BODY_FILE
//!
//! MODE `bare`: plain reqwest POSTs of the body (no signature, no checks). MODE `pooled`:
//! the same through hyper-util's pooled client, the one Herald's webhooks use. MODE `hyper`:
//! hyper's bare connection API, one kept-alive connection per worker (no pool at all), the
//! cheapest an HTTP/1 sender in Rust gets. MODE `herald`: Herald's own
//! `WebhookClient::send`: a signed Standard Webhooks request per recipient with its own
//! `meta.unsubscribe`, through the SSRF guard, the per-host caps and circuit breakers. Prints
//! one line of JSON:
//! `{"mode": "...", "count": N, "per_second": R, "cpu_us_per_request": C}`.

// A measuring tool: it prints its figures, and stops on what it cannot measure.
#![allow(clippy::print_stdout, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use herald::delivery::Attempt;
use herald::delivery::body::{SharedBody, WebhookBody};
use herald::delivery::chat::ChatMessage;
use herald::delivery::outbound::Policy;
use herald::delivery::signature::new_secret;
use herald::delivery::webhook::{WebhookClient, WebhookRequest};

/// Requests in flight at once (the engine's default `max_in_flight`).
const IN_FLIGHT: usize = 64;

/// This process's CPU time (user + system), in microseconds.
fn cpu_us() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15 of the whole line: 12th and 13th after ')'.
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    ticks * 1_000_000 / 100
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, count, port, hosts, body_file] = args.as_slice() else {
        anyhow::bail!(
            "usage: webhook_blast bare|pooled|hyper|herald COUNT HTTP_PORT HOSTS BODY_FILE"
        );
    };
    let count: usize = count.parse()?;
    let hosts: usize = hosts.parse()?;
    let body: serde_json::Value = serde_json::from_slice(&std::fs::read(body_file)?)?;
    let shared = Arc::new(SharedBody::new(body));
    // Each worker keeps to one host (64 workers over 16 hosts: 4 each, under the cap of 8).
    let port = port.clone();
    let url_port = port.clone();
    let url = move |worker: usize, i: usize| {
        format!(
            "http://127.0.0.{}:{url_port}/hook/blast{i}",
            1 + worker % hosts
        )
    };

    let policy = Policy {
        allow_private: true,
        ..Policy::default()
    };
    let client = WebhookClient::new(policy.clone());
    let bare = reqwest::Client::builder()
        .pool_max_idle_per_host(policy.per_host_concurrency)
        .build()?;
    let secret = new_secret();
    let legacy: hyper_util::client::legacy::Client<_, http_body_util::Full<bytes::Bytes>> =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .pool_max_idle_per_host(policy.per_host_concurrency)
            .build_http();
    let next = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));

    let cpu0 = cpu_us();
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..IN_FLIGHT {
        let (mode, next, failed) = (mode.clone(), next.clone(), failed.clone());
        let (client, bare, shared, secret) =
            (client.clone(), bare.clone(), shared.clone(), secret.clone());
        let legacy = legacy.clone();
        let url = url.clone();
        let port = port.clone();
        workers.spawn(async move {
            let mut conn: Option<
                hyper::client::conn::http1::SendRequest<http_body_util::Full<bytes::Bytes>>,
            > = None;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let body = WebhookBody::with_unsubscribe(shared.clone(), format!("http://x/u/{i}"));
                let ok = if mode == "pooled" {
                    let bytes = body.to_bytes().unwrap_or_default();
                    let req = hyper::Request::post(url(worker, i))
                        .header("content-type", "application/json")
                        .body(http_body_util::Full::new(bytes::Bytes::from(bytes)))
                        .expect("a valid request");
                    match legacy.request(req).await {
                        Ok(answer) if answer.status().is_success() => {
                            use http_body_util::BodyExt;
                            answer.into_body().collect().await.is_ok()
                        }
                        _ => false,
                    }
                } else if mode == "hyper" {
                    // One connection per worker, kept open: hyper's HTTP/1 connection API.
                    if conn.is_none() {
                        let addr = format!("127.0.0.{}:{}", 1 + worker % hosts, port);
                        let Ok(stream) = tokio::net::TcpStream::connect(&addr).await else {
                            failed.fetch_add(1, Ordering::Relaxed);
                            continue;
                        };
                        let _ = stream.set_nodelay(true);
                        let io = hyper_util::rt::TokioIo::new(stream);
                        let Ok((send, driver)) = hyper::client::conn::http1::handshake(io).await
                        else {
                            failed.fetch_add(1, Ordering::Relaxed);
                            continue;
                        };
                        tokio::spawn(driver);
                        conn = Some(send);
                    }
                    let send = conn.as_mut().expect("connected above");
                    let bytes = body.to_bytes().unwrap_or_default();
                    let req = hyper::Request::post(format!("/hook/blast{i}"))
                        .header("host", "127.0.0.1")
                        .header("content-type", "application/json")
                        .body(http_body_util::Full::new(bytes::Bytes::from(bytes)))
                        .expect("a valid request");
                    match send.send_request(req).await {
                        Ok(answer) if answer.status().is_success() => {
                            use http_body_util::BodyExt;
                            answer.into_body().collect().await.is_ok()
                        }
                        _ => {
                            conn = None;
                            false
                        }
                    }
                } else if mode == "bare" {
                    let bytes = body.to_bytes().unwrap_or_default();
                    let sent = bare
                        .post(url(worker, i))
                        .header("content-type", "application/json")
                        .body(bytes)
                        .send()
                        .await;
                    match sent {
                        Ok(answer) if answer.status().is_success() => answer.bytes().await.is_ok(),
                        _ => false,
                    }
                } else {
                    let req = WebhookRequest {
                        id: format!("blast_{i}"),
                        url: url(worker, i),
                        secret: secret.clone(),
                        body,
                        summary: ChatMessage::default().into(),
                    };
                    client.send(&req).await == Attempt::Delivered
                };
                if !ok {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while workers.join_next().await.is_some() {}
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_us() - cpu0;
    let failed = failed.load(Ordering::Relaxed);
    anyhow::ensure!(failed == 0, "{failed} of {count} requests failed");
    println!(
        "{}",
        serde_json::json!({
            "mode": mode,
            "count": count,
            "per_second": (count as f64 / elapsed).round(),
            "cpu_us_per_request": (cpu as f64 / count as f64 * 10.0).round() / 10.0,
        })
    );
    Ok(())
}
