//! Fair sending and shared outages, against real receivers on loopback: twenty hosts that
//! answer only after 8 s hold up neither a healthy host nor mail; a mail server that refuses
//! connections is one outage (its mail waits, says why, and is not counted against), and the
//! mail goes out once it answers; a webhook host that refuses connections likewise.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::{Value, json};

use super::Setup;
use super::sinks::{Receiver, SmtpSink, closed_port};
use crate::helpers::TestDb;

on_both_backends!(
    twenty_hosts_that_answer_after_8_s_hold_up_neither_a_healthy_host_nor_mail,
    a_mail_server_that_refuses_connections_is_one_outage_and_its_mail_goes_out_once_it_answers,
    a_webhook_host_that_refuses_connections_is_one_outage_and_its_webhooks_go_out_once_it_answers,
);

/// How long a receiver that is slow on purpose takes to answer.
const SLOW: Duration = Duration::from_secs(8);

/// What the slow receiver saw: per port, requests in flight now and at most; answers given.
#[derive(Clone, Default)]
struct Slow {
    in_flight: Arc<Mutex<std::collections::HashMap<u16, (usize, usize)>>>,
    answered: Arc<AtomicUsize>,
    received: Arc<AtomicUsize>,
}

async fn slow(req: HttpRequest, seen: web::Data<Slow>) -> HttpResponse {
    let port = req.app_config().local_addr().port();
    seen.received.fetch_add(1, Ordering::SeqCst);
    {
        let mut map = seen.in_flight.lock().unwrap();
        let (now, max) = map.entry(port).or_default();
        *now += 1;
        *max = (*max).max(*now);
    }
    // Not synchronisation: the receiver is slow on purpose; it is the peer under test.
    tokio::time::sleep(SLOW).await;
    seen.in_flight.lock().unwrap().entry(port).or_default().0 -= 1;
    seen.answered.fetch_add(1, Ordering::SeqCst);
    HttpResponse::NoContent().finish()
}

/// One receiver on `hosts` ports of 127.0.0.1 (each port its own destination host), answering
/// 204 after [`SLOW`].
fn start_slow(hosts: usize) -> (Vec<u16>, Slow) {
    let seen = Slow::default();
    let data = web::Data::new(seen.clone());
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .default_service(web::to(slow))
    })
    .workers(1)
    .max_connections(10_000)
    .disable_signals();
    for _ in 0..hosts {
        server = server.bind(("127.0.0.1", 0)).expect("bind a slow port");
    }
    let ports = server.addrs().iter().map(|a| a.port()).collect();
    tokio::spawn(server.run());
    (ports, seen)
}

/// Polls `check` every 20 ms until it holds, for up to `patience`.
async fn until(what: &str, patience: Duration, mut check: impl AsyncFnMut() -> bool) {
    let started = Instant::now();
    while !check().await {
        assert!(
            started.elapsed() < patience,
            "waited {patience:?} for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The page's deliveries as the responder API shows them.
async fn deliveries(s: &Setup) -> Vec<Value> {
    let (status, list) = s
        .app
        .api(&s.token)
        .get("/pages/acme/deliveries?limit=500")
        .await;
    assert_eq!(status, 200, "{list}");
    list.as_array().unwrap().clone()
}

async fn twenty_hosts_that_answer_after_8_s_hold_up_neither_a_healthy_host_nor_mail(db: TestDb) {
    let s = Setup::spawn(db).await;
    let (ports, seen) = start_slow(20);
    for i in 0..200 {
        let url = format!("http://127.0.0.1:{}/slow/{i}", ports[i % ports.len()]);
        s.app.subscriber("acme").webhook(&url).add(&s.token).await;
    }
    for i in 0..10 {
        s.app
            .subscriber("acme")
            .webhook(&s.hooks.url(&format!("/healthy/{i}")))
            .add(&s.token)
            .await;
        s.app
            .subscriber("acme")
            .email(&format!("reader{i}@example.com"))
            .add(&s.token)
            .await;
    }
    let opened = Instant::now();
    s.open(json!({"name": "Database failover", "status": "investigating", "body": "We are looking into it."}))
        .await;
    until(
        "the healthy host's webhooks and the mail",
        SLOW,
        async || {
            s.hooks.count() >= 10
                && (0..10).all(|i| !s.smtp.to(&format!("reader{i}@example.com")).is_empty())
        },
    )
    .await;
    let took = opened.elapsed();
    // All of it arrived while every slow host still held its first requests.
    assert_eq!(
        seen.answered.load(Ordering::SeqCst),
        0,
        "a slow host answered before the healthy deliveries were done"
    );
    assert!(
        took < Duration::from_secs(5),
        "the healthy host and mail took {took:?}"
    );
    // Each slow host gets as many requests at once as its cap, and never more.
    until(
        "every slow host to hold its cap of requests",
        SLOW,
        async || {
            let hosts = seen.in_flight.lock().unwrap();
            hosts.len() == 20 && hosts.values().all(|(_, max)| *max >= 8)
        },
    )
    .await;
    let most = seen
        .in_flight
        .lock()
        .unwrap()
        .values()
        .map(|(_, max)| *max)
        .max();
    assert_eq!(most, Some(8), "the per-host cap, filled but not passed");
    assert_eq!(s.hooks.count(), 10, "one webhook per healthy subscriber");
}

async fn a_mail_server_that_refuses_connections_is_one_outage_and_its_mail_goes_out_once_it_answers(
    db: TestDb,
) {
    let port = closed_port();
    let s = Setup::spawn_mailing_to(db, &format!("smtp://127.0.0.1:{port}")).await;
    let readers: Vec<String> = (0..30).map(|i| format!("reader{i}@example.com")).collect();
    for email in &readers {
        s.app.subscriber("acme").email(email).add(&s.token).await;
    }
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/hook"))
        .add(&s.token)
        .await;
    s.open(json!({"name": "Mail relay down", "status": "investigating", "body": "We are looking into it."}))
        .await;
    // The webhook goes; every mail waits, says why, and has no attempt counted.
    s.hooks.wait_for("/hook", 1).await;
    until(
        "every mail delivery to wait for the mail server",
        Duration::from_secs(20),
        async || {
            let mails: Vec<Value> = deliveries(&s)
                .await
                .into_iter()
                .filter(|d| d["channel"] == "email")
                .collect();
            mails.len() == readers.len()
                && mails.iter().all(|d| {
                    d["state"] == "pending"
                        && d["attempts"] == 0
                        && d["waiting_for"] == "mail_server_down"
                        && d["last_error"].as_str().is_some_and(|e| e.contains("SMTP"))
                })
        },
    )
    .await;
    // The mail server comes back on the same port.
    let smtp = SmtpSink::start_on(port);
    let back = Instant::now();
    for email in &readers {
        smtp.wait_for(email, 1).await;
    }
    let took = back.elapsed();
    assert!(
        took < Duration::from_secs(30),
        "the mail went out {took:?} after the server returned"
    );
    s.settle().await;
    for d in deliveries(&s).await {
        assert_eq!(d["state"], "delivered", "{d}");
        assert_eq!(d["attempts"], 1, "the outage counted against {d}");
        assert!(d["waiting_for"].is_null(), "{d}");
    }
    for email in &readers {
        assert_eq!(smtp.to(email).len(), 1, "one message to {email}");
    }
}

async fn a_webhook_host_that_refuses_connections_is_one_outage_and_its_webhooks_go_out_once_it_answers(
    db: TestDb,
) {
    let s = Setup::spawn(db).await;
    let port = closed_port();
    for i in 0..30 {
        let url = format!("http://127.0.0.1:{port}/down/{i}");
        s.app.subscriber("acme").webhook(&url).add(&s.token).await;
    }
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/up"))
        .add(&s.token)
        .await;
    s.app
        .subscriber("acme")
        .email("reader@example.com")
        .add(&s.token)
        .await;
    s.open(json!({"name": "Receiver down", "status": "investigating", "body": "We are looking into it."}))
        .await;
    // The healthy host and the mail go; the down host's webhooks wait, counted against none.
    s.hooks.wait_for("/up", 1).await;
    s.smtp.wait_for("reader@example.com", 1).await;
    until(
        "the down host's webhooks to wait for it",
        Duration::from_secs(20),
        async || {
            let down: Vec<Value> = deliveries(&s)
                .await
                .into_iter()
                .filter(|d| d["channel"] == "webhook" && d["state"] != "delivered")
                .collect();
            down.len() == 30
                && down.iter().all(|d| {
                    d["state"] == "pending" && d["attempts"] == 0 && d["waiting_for"] == "host_down"
                })
        },
    )
    .await;
    let receiver = Receiver::start_on(port);
    let back = Instant::now();
    for i in 0..30 {
        receiver.wait_for(&format!("/down/{i}"), 1).await;
    }
    let took = back.elapsed();
    assert!(
        took < Duration::from_secs(30),
        "the webhooks went out {took:?} after the host returned"
    );
    s.settle().await;
    for d in deliveries(&s).await {
        assert_eq!(d["state"], "delivered", "{d}");
        assert_eq!(d["attempts"], 1, "the outage counted against {d}");
    }
    assert_eq!(receiver.count(), 30, "one webhook per subscriber");
}
