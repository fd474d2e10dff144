//! The engine's timing, driven by its controllable clock (`app.clock`) against real receivers
//! on loopback: `Retry-After` honoured to the second, exponential backoff within full-jitter
//! bounds, 4xx not retried, dead letters retried through the API, quarantine after ten
//! failures spanning the window (the contact address told over real SMTP), and a circuit
//! open for one host while another keeps receiving.
//!
//! The clock only jumps while the engine is idle (nothing claimed, nothing due within a
//! second): a jump past a held delivery's lease would let it be claimed twice.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use chrono::NaiveDateTime;
use herald::db::models::notify::{self as rows, Delivery};
use herald::db::states::DeliveryState;
use serde_json::{Value, json};

use super::Setup;
use crate::helpers::TestDb;

on_both_backends!(
    a_retry_after_is_honoured_to_the_second_and_the_retry_keeps_the_webhook_id,
    retries_back_off_exponentially_with_full_jitter_and_a_410_is_not_retried,
    ten_failures_over_the_window_quarantine_a_subscriber_its_contact_is_told_and_dead_letters_can_be_retried,
    a_failing_host_s_circuit_opens_while_another_host_keeps_receiving_and_one_probe_goes_after_the_cool_down,
);

/// How long a condition is waited for.
const PATIENCE: Duration = Duration::from_secs(20);

/// One request a [`Scripted`] receiver got.
#[derive(Debug, Clone)]
struct Hit {
    port: u16,
    path: String,
    webhook_id: String,
    /// The status it was answered.
    status: u16,
}

#[derive(Clone)]
struct Script {
    hits: Arc<Mutex<Vec<Hit>>>,
    /// The status and `Retry-After` answered from now on.
    answer: Arc<Mutex<(u16, Option<String>)>>,
}

async fn scripted(req: HttpRequest, script: web::Data<Script>) -> HttpResponse {
    let (status, retry_after) = script.answer.lock().unwrap().clone();
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    script.hits.lock().unwrap().push(Hit {
        port: req.app_config().local_addr().port(),
        path: req.path().to_owned(),
        webhook_id: header("webhook-id"),
        status,
    });
    let mut answer = HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap());
    if let Some(wait) = retry_after {
        answer.insert_header(("Retry-After", wait));
    }
    answer.finish()
}

/// An HTTP receiver listening on `ports` ports of one loopback address, answering what it is
/// told (with a `Retry-After` if asked). Each port is its own destination host for Herald's
/// circuits and per-host caps.
struct Scripted {
    ip: &'static str,
    ports: Vec<u16>,
    script: Script,
}

impl Scripted {
    fn start(ip: &'static str, ports: usize) -> Self {
        let script = Script {
            hits: Arc::default(),
            answer: Arc::new(Mutex::new((200, None))),
        };
        let data = web::Data::new(script.clone());
        let mut server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .default_service(web::to(scripted))
        })
        .workers(1)
        .disable_signals();
        for _ in 0..ports {
            server = server.bind((ip, 0)).expect("bind a receiver port");
        }
        let ports = server.addrs().iter().map(|a| a.port()).collect();
        tokio::spawn(server.run());
        Self { ip, ports, script }
    }

    /// The URL of `path` on the `i`th port.
    fn url(&self, i: usize, path: &str) -> String {
        format!("http://{}:{}{path}", self.ip, self.ports[i])
    }

    fn answer(&self, status: u16, retry_after: Option<&str>) {
        *self.script.answer.lock().unwrap() = (status, retry_after.map(str::to_owned));
    }

    fn hits(&self) -> Vec<Hit> {
        self.script.hits.lock().unwrap().clone()
    }

    async fn wait_for_hits(&self, count: usize) -> Vec<Hit> {
        eventually(&format!("{count} requests at {}", self.ip), async || {
            let hits = self.hits();
            (hits.len() >= count).then_some(hits)
        })
        .await
    }
}

/// Polls `check` every 20 ms until it answers something, for up to [`PATIENCE`].
async fn eventually<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(done) = check().await {
            return done;
        }
        assert!(started.elapsed() < PATIENCE, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every delivery of page `acme`, read from the database (for `updated_at`, which the API
/// does not show: a retry's delay is `next_attempt_at - updated_at` exactly).
async fn deliveries(s: &Setup) -> Vec<Delivery> {
    s.app
        .db
        .run(|c| {
            let page = herald::services::pages::get_page_by_slug(c, "acme")?;
            let q = rows::DeliveryQuery {
                page_id: &page.id,
                state: None,
                limit: 500,
                offset: 0,
            };
            Ok(rows::list_deliveries(c, &q)?)
        })
        .await
        .unwrap()
}

/// The delivery `id` once `done` holds for it (and it is not held by the engine).
async fn wait_delivery(s: &Setup, id: &str, done: impl Fn(&Delivery) -> bool) -> Delivery {
    eventually(&format!("delivery {id}"), async || {
        deliveries(s)
            .await
            .into_iter()
            .find(|d| d.id == id && d.locked_until.is_none() && done(d))
    })
    .await
}

/// Waits until the engine is idle (every event expanded, no delivery claimed or due within a
/// second), then moves its clock forward by `by`.
async fn advance(s: &Setup, by: Duration) {
    eventually("the engine to be idle", async || {
        let soon = s.app.clock.now() + chrono::Duration::seconds(1);
        let busy = deliveries(s).await.into_iter().any(|d| {
            d.state == DeliveryState::Pending
                && (d.locked_until.is_some() || d.next_attempt_at <= soon)
        });
        let unexpanded = s
            .app
            .db
            .run(|c| Ok(rows::unexpanded_events(c, 1)?.len()))
            .await
            .unwrap();
        (!busy && unexpanded == 0).then_some(())
    })
    .await;
    s.app.clock.advance(by);
}

/// The scheduled wait before a pending delivery's next attempt.
fn delay(d: &Delivery) -> chrono::Duration {
    d.next_attempt_at - d.updated_at
}

/// A delivery as the responder API shows it.
async fn api_delivery(s: &Setup, id: &str) -> Value {
    let (status, list) = s
        .app
        .api(&s.token)
        .get("/pages/acme/deliveries?limit=500")
        .await;
    assert_eq!(status, 200, "{list}");
    list.as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == id)
        .unwrap_or_else(|| panic!("delivery {id} in {list}"))
        .clone()
}

/// A subscriber's state as the responder API shows it.
async fn subscriber_state(s: &Setup, id: &str) -> String {
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    let found = list.as_array().unwrap().iter().find(|x| x["id"] == id);
    found.unwrap_or_else(|| panic!("subscriber {id} in {list}"))["state"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The webhook deliveries of `subscriber`, oldest first.
async fn hooks_of(s: &Setup, subscriber: &str) -> Vec<Delivery> {
    let mut found: Vec<_> = deliveries(s)
        .await
        .into_iter()
        .filter(|d| {
            d.subscriber_id == subscriber && d.channel == herald::db::states::Channel::Webhook
        })
        .collect();
    found.sort_by_key(|d| d.created_at);
    found
}

fn api_time(value: &Value) -> NaiveDateTime {
    chrono::DateTime::parse_from_rfc3339(value.as_str().expect("a timestamp"))
        .unwrap()
        .naive_utc()
}

async fn a_retry_after_is_honoured_to_the_second_and_the_retry_keeps_the_webhook_id(db: TestDb) {
    let s = Setup::spawn(db).await;
    let rx = Scripted::start("127.0.0.1", 1);
    rx.answer(503, Some("120"));
    let hook = s
        .app
        .subscriber("acme")
        .webhook(&rx.url(0, "/busy"))
        .add(&s.token)
        .await;
    s.open(json!({"name": "API errors", "body": "Errors."}))
        .await;
    let first = rx.wait_for_hits(1).await.remove(0);
    let d = wait_delivery(&s, &first.webhook_id, |d| d.attempts == 1).await;
    assert_eq!(d.subscriber_id, hook["id"].as_str().unwrap());
    assert_eq!(d.state, DeliveryState::Pending);
    assert_eq!(
        delay(&d),
        chrono::Duration::seconds(120),
        "Retry-After: 120"
    );
    let shown = api_delivery(&s, &d.id).await;
    assert_eq!(
        (&shown["state"], &shown["attempts"]),
        (&json!("pending"), &json!(1))
    );
    assert!(
        shown["last_error"].as_str().unwrap().contains("503"),
        "{shown}"
    );
    let ahead = api_time(&shown["next_attempt_at"]) - s.app.clock.now();
    assert!(
        ahead > chrono::Duration::seconds(110) && ahead <= chrono::Duration::seconds(120),
        "next attempt {ahead} ahead"
    );

    // Half-way there: nothing.
    rx.answer(200, None);
    advance(&s, Duration::from_secs(60)).await;
    s.app.deliver_pending().await;
    assert_eq!(rx.hits().len(), 1, "no retry before the Retry-After");
    let d = wait_delivery(&s, &d.id, |d| d.state == DeliveryState::Pending).await;
    assert_eq!(d.attempts, 1);

    // Past it: the retry, with the same webhook-id, delivered.
    advance(&s, Duration::from_secs(61)).await;
    let hits = rx.wait_for_hits(2).await;
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[1].webhook_id, first.webhook_id);
    let done = wait_delivery(&s, &d.id, |d| d.state == DeliveryState::Delivered).await;
    assert_eq!(done.attempts, 2);
    s.app.deliver_pending().await;
    assert_eq!(rx.hits().len(), 2, "nothing after the delivery");
}

/// Subscribers at an always-failing receiver, each on its own port (so each has its own
/// circuit, which opens only after the fifth failure).
const BACKOFF_SUBSCRIBERS: usize = 10;
/// Failed attempts observed per delivery.
const BACKOFF_ATTEMPTS: i32 = 5;

async fn retries_back_off_exponentially_with_full_jitter_and_a_410_is_not_retried(db: TestDb) {
    let s = Setup::spawn(db).await;
    let failing = Scripted::start("127.0.0.1", BACKOFF_SUBSCRIBERS);
    failing.answer(500, None);
    let gone = Scripted::start("127.0.0.1", 1);
    gone.answer(410, None);
    let mut ids = HashSet::new();
    for i in 0..BACKOFF_SUBSCRIBERS {
        let hook = s
            .app
            .subscriber("acme")
            .webhook(&failing.url(i, "/down"))
            .add(&s.token)
            .await;
        ids.insert(hook["id"].as_str().unwrap().to_owned());
    }
    let gone_hook = s
        .app
        .subscriber("acme")
        .webhook(&gone.url(0, "/gone"))
        .add(&s.token)
        .await;
    s.open(json!({"name": "API errors", "body": "Errors."}))
        .await;

    // (delivery, attempts so far) -> the delay scheduled after that attempt, as first seen.
    let mut delays: HashMap<(String, i32), chrono::Duration> = HashMap::new();
    let base = chrono::Duration::seconds(30);
    for attempts in 1..=BACKOFF_ATTEMPTS {
        eventually(
            &format!("every delivery tried {attempts} times"),
            async || {
                let all: Vec<_> = deliveries(&s)
                    .await
                    .into_iter()
                    .filter(|d| ids.contains(d.subscriber_id.as_str()))
                    .collect();
                for d in all
                    .iter()
                    .filter(|d| d.state == DeliveryState::Pending && d.locked_until.is_none())
                {
                    delays
                        .entry((d.id.clone(), d.attempts))
                        .or_insert_with(|| delay(d));
                }
                let done = all.len() == BACKOFF_SUBSCRIBERS
                    && all
                        .iter()
                        .all(|d| d.state == DeliveryState::Pending && d.attempts >= attempts);
                done.then_some(())
            },
        )
        .await;
        if attempts < BACKOFF_ATTEMPTS {
            // Past the ceiling of this retry's delay: every one of them is due.
            let ceiling = base * 2i32.pow(attempts as u32 - 1);
            advance(
                &s,
                (ceiling + chrono::Duration::seconds(1)).to_std().unwrap(),
            )
            .await;
        }
    }
    // One request per counted attempt (a delivery whose last delay was tiny may be a step
    // ahead of the others).
    eventually("one request per attempt", async || {
        let all = deliveries(&s).await;
        let hits = failing.hits();
        let matched = all
            .iter()
            .filter(|d| ids.contains(d.subscriber_id.as_str()))
            .all(|d| {
                let sent = hits.iter().filter(|h| h.webhook_id == d.id).count();
                d.locked_until.is_none() && sent == d.attempts as usize
            });
        (matched && hits.len() >= BACKOFF_SUBSCRIBERS * BACKOFF_ATTEMPTS as usize).then_some(())
    })
    .await;
    for attempts in 1..=BACKOFF_ATTEMPTS {
        let ceiling = base * 2i32.pow(attempts as u32 - 1);
        let seen: Vec<_> = delays
            .iter()
            .filter(|((_, a), _)| *a == attempts)
            .map(|(_, d)| *d)
            .collect();
        // A retry due at once may be sent before it is seen; most are seen.
        assert!(
            seen.len() >= 6,
            "attempt {attempts}: only {} seen",
            seen.len()
        );
        for d in &seen {
            assert!(
                *d >= chrono::Duration::zero() && *d <= ceiling,
                "after attempt {attempts}: {d} is outside [0, {ceiling}]"
            );
        }
        let distinct: HashSet<_> = seen.iter().collect();
        assert!(
            distinct.len() > 1,
            "attempt {attempts}: no jitter in {seen:?}"
        );
        if attempts >= 3 {
            // The ceiling doubles each time: some delay exceeds what two attempts earlier
            // could ever wait (each one does with probability 3/4).
            let earlier = base * 2i32.pow(attempts as u32 - 3);
            let longest = seen.iter().max().unwrap();
            assert!(
                *longest > earlier,
                "after attempt {attempts} the longest delay {longest} is within {earlier}: {seen:?}"
            );
        }
    }

    // The 410 was tried once and failed for good, whatever time passed since.
    let gone_id = gone_hook["id"].as_str().unwrap();
    let failed = hooks_of(&s, gone_id).await.remove(0);
    advance(&s, Duration::from_secs(2 * 3600)).await;
    s.app.deliver_pending().await;
    assert_eq!(gone.hits().len(), 1, "a 410 is not retried");
    assert_eq!(gone.hits()[0].status, 410);
    let shown = api_delivery(&s, &failed.id).await;
    assert_eq!(shown["state"], "failed", "{shown}");
    assert_eq!(shown["attempts"], 1);
    assert!(shown["next_attempt_at"].is_null(), "{shown}");
    assert!(
        shown["last_error"].as_str().unwrap().contains("410"),
        "{shown}"
    );
}

async fn ten_failures_over_the_window_quarantine_a_subscriber_its_contact_is_told_and_dead_letters_can_be_retried(
    db: TestDb,
) {
    let s = Setup::spawn(db).await;
    let rx = Scripted::start("127.0.0.1", 1);
    rx.answer(503, Some("60"));
    let url = rx.url(0, "/flaky");
    let hook = s
        .app
        .subscriber("acme")
        .webhook(&url)
        .with(json!({"contact_email": "ops@example.com"}))
        .add(&s.token)
        .await;
    let sub = hook["id"].as_str().unwrap().to_owned();
    let incident = s
        .open(json!({"name": "API errors", "body": "Errors."}))
        .await;

    // Ten attempts a minute apart: the tenth is the last (dead-lettered). Ten consecutive
    // failures, but over nine minutes only: not quarantined.
    let first = rx.wait_for_hits(1).await.remove(0);
    let d1 = first.webhook_id.clone();
    wait_delivery(&s, &d1, |d| d.attempts == 1).await;
    for attempts in 2..=10 {
        advance(&s, Duration::from_secs(61)).await;
        wait_delivery(&s, &d1, |d| d.attempts == attempts).await;
        assert_eq!(rx.hits().len(), attempts as usize);
    }
    let dead = api_delivery(&s, &d1).await;
    assert_eq!(
        (&dead["state"], &dead["attempts"]),
        (&json!("dead"), &json!(10))
    );
    assert!(
        dead["last_error"].as_str().unwrap().contains("503"),
        "{dead}"
    );
    assert!(rx.hits().iter().all(|h| h.webhook_id == d1));
    assert_eq!(subscriber_state(&s, &sub).await, "confirmed");
    let failures = failures_of(&s, &sub).await;
    assert_eq!(failures, 10, "ten consecutive failures counted");

    // Another update (the circuit's cool-down over): it fails, to be retried in an hour.
    rx.answer(503, Some("3600"));
    advance(&s, Duration::from_secs(31)).await;
    assert_eq!(
        rx.hits().len(),
        10,
        "a dead letter is not retried on its own"
    );
    s.update(
        &incident,
        json!({"status": "identified", "body": "Found it."}),
    )
    .await;
    let hits = rx.wait_for_hits(11).await;
    let d2 = hits[10].webhook_id.clone();
    assert_ne!(d2, d1);
    wait_delivery(&s, &d2, |d| d.attempts == 1).await;

    // A responder retries the dead letter: sent again with its id (after the circuit's
    // cool-down), failing once more. Twelve failures over ten minutes: still confirmed.
    let (status, retried) = s
        .app
        .api(&s.token)
        .post(&format!("/pages/acme/deliveries/{d1}/retry"), json!({}))
        .await;
    assert_eq!(status, 200, "{retried}");
    assert_eq!(
        (&retried["state"], &retried["attempts"]),
        (&json!("pending"), &json!(0))
    );
    advance(&s, Duration::from_secs(31)).await;
    let hits = rx.wait_for_hits(12).await;
    assert_eq!(
        hits[11].webhook_id, d1,
        "the retry carries the same webhook-id"
    );
    wait_delivery(&s, &d1, |d| d.attempts == 1).await;
    assert_eq!(subscriber_state(&s, &sub).await, "confirmed");

    // An hour later the update's retry fails again: over fifty minutes now, quarantined.
    // Both pending deliveries are skipped and the contact address is told.
    let d2_row = wait_delivery(&s, &d2, |d| d.state == DeliveryState::Pending).await;
    let d1_row = wait_delivery(&s, &d1, |d| d.state == DeliveryState::Pending).await;
    assert!(d2_row.next_attempt_at < d1_row.next_attempt_at);
    let wait = d2_row.next_attempt_at - s.app.clock.now() + chrono::Duration::seconds(1);
    advance(&s, wait.to_std().unwrap()).await;
    let hits = rx.wait_for_hits(13).await;
    assert_eq!(hits[12].webhook_id, d2);
    eventually("the quarantine", async || {
        (subscriber_state(&s, &sub).await == "quarantined").then_some(())
    })
    .await;
    for id in [&d1, &d2] {
        let skipped = api_delivery(&s, id).await;
        assert_eq!(skipped["state"], "skipped", "{skipped}");
    }
    let notice = s.smtp.wait_for("ops@example.com", 1).await.remove(0);
    let subject = notice.header("Subject").unwrap();
    assert!(
        subject.contains("paused after repeated failures"),
        "{subject}"
    );
    let text = notice.text();
    assert!(text.contains(&url), "{text}");
    assert!(text.contains("13 consecutive failed attempts"), "{text}");

    // Nothing more to the quarantined receiver, however long.
    advance(&s, Duration::from_secs(3 * 3600)).await;
    s.update(&incident, json!({"status": "resolved", "body": "Fixed."}))
        .await;
    s.settle().await;
    assert_eq!(rx.hits().len(), 13);
    assert_eq!(s.smtp.to("ops@example.com").len(), 1, "told once");
}

/// A subscriber's consecutive failures, as stored.
async fn failures_of(s: &Setup, id: &str) -> i32 {
    let id = herald::domain::SubscriberId::from(id);
    s.app
        .db
        .run(move |c| Ok(rows::find_subscriber(c, &id)?.expect("subscriber")))
        .await
        .unwrap()
        .consecutive_failures
}

/// Subscribers at the failing host: as many as open its circuit (five failures).
const AT_FAILING_HOST: usize = 5;

async fn a_failing_host_s_circuit_opens_while_another_host_keeps_receiving_and_one_probe_goes_after_the_cool_down(
    db: TestDb,
) {
    let s = Setup::spawn(db).await;
    let failing = Scripted::start("127.0.0.1", 1);
    failing.answer(500, None);
    let healthy = Scripted::start("127.0.0.2", 1);
    let mut at_failing = HashSet::new();
    for i in 0..AT_FAILING_HOST {
        let hook = s
            .app
            .subscriber("acme")
            .webhook(&failing.url(0, &format!("/a{i}")))
            .add(&s.token)
            .await;
        at_failing.insert(hook["id"].as_str().unwrap().to_owned());
    }
    s.app
        .subscriber("acme")
        .webhook(&healthy.url(0, "/b"))
        .add(&s.token)
        .await;
    let failing_deliveries = async || -> Vec<Delivery> {
        deliveries(&s)
            .await
            .into_iter()
            .filter(|d| at_failing.contains(d.subscriber_id.as_str()))
            .collect()
    };

    // Five failures open the failing host's circuit.
    let incident = s
        .open(json!({"name": "API errors", "body": "Errors."}))
        .await;
    healthy.wait_for_hits(1).await;
    failing.wait_for_hits(AT_FAILING_HOST).await;
    eventually("the five failures recorded", async || {
        let all = failing_deliveries().await;
        let recorded = all
            .iter()
            .filter(|d| d.attempts == 1 && d.last_error.is_some())
            .count();
        (recorded == AT_FAILING_HOST).then_some(())
    })
    .await;

    // The next update: the healthy host gets it; the failing host's deliveries are deferred
    // without a request (no attempt counted, no error recorded).
    s.update(
        &incident,
        json!({"status": "identified", "body": "Found it."}),
    )
    .await;
    healthy.wait_for_hits(2).await;
    eventually("the failing host's deliveries deferred", async || {
        let deferred = failing_deliveries()
            .await
            .into_iter()
            .filter(|d| {
                d.state == DeliveryState::Pending
                    && d.attempts == 0
                    && d.last_error.is_none()
                    && d.locked_until.is_none()
                    && d.next_attempt_at > d.created_at
            })
            .count();
        (deferred == AT_FAILING_HOST).then_some(())
    })
    .await;
    assert_eq!(
        failing.hits().len(),
        AT_FAILING_HOST,
        "the open circuit sends nothing"
    );
    assert!(healthy.hits().iter().all(|h| h.status == 200));

    // Past the cool-down: all ten are due, exactly one probe reaches the host. It fails and
    // the circuit opens again.
    advance(&s, Duration::from_secs(31)).await;
    let hits = failing.wait_for_hits(AT_FAILING_HOST + 1).await;
    let ids: HashSet<_> = failing_deliveries()
        .await
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert!(ids.contains(&hits[AT_FAILING_HOST].webhook_id));
    // The engine has nothing left to send now: the probe's outcome is recorded, and the
    // others wait for the circuit.
    s.app.deliver_pending().await;
    assert_eq!(failing.hits().len(), AT_FAILING_HOST + 1, "one probe only");

    // The host recovers: the next probe closes the circuit and everything is delivered,
    // each delivery once.
    failing.answer(200, None);
    advance(&s, Duration::from_secs(31)).await;
    failing.wait_for_hits(AT_FAILING_HOST + 2).await;
    advance(&s, Duration::from_secs(61)).await;
    eventually("every delivery to the recovered host", async || {
        let all = failing_deliveries().await;
        (all.len() == 2 * AT_FAILING_HOST
            && all.iter().all(|d| d.state == DeliveryState::Delivered))
        .then_some(())
    })
    .await;
    let delivered: Vec<_> = failing
        .hits()
        .into_iter()
        .filter(|h| h.status == 200)
        .map(|h| h.webhook_id)
        .collect();
    assert_eq!(delivered.len(), 2 * AT_FAILING_HOST, "{delivered:?}");
    assert_eq!(
        delivered.iter().collect::<HashSet<_>>().len(),
        delivered.len()
    );
    assert!(failing.hits().iter().all(|h| h.port == failing.ports[0]));
    assert!(failing.hits().iter().all(|h| h.path.starts_with("/a")));
    assert_eq!(healthy.hits().len(), 2);
}
