//! A `kill -9` in the middle of a fan-out loses nothing: after a restart every recipient gets
//! the notification (a resend, if any, carries the same webhook-id). The real binary, a real
//! receiver.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use herald::config::DatabaseUrl;
use herald::db::Db;
use herald::domain::{EmailAddress, Role};
use herald::services::subscribers::{self as subscribe, Origin, SubscribeInput};
use serde_json::json;

use super::sinks::Receiver;
use crate::helpers::TestDb;
use crate::process::Serving;

on_both_backends!(a_kill_during_fan_out_loses_no_notification);

/// Subscribers in the fan-out.
const RECIPIENTS: usize = 300;

async fn a_kill_during_fan_out_loses_no_notification(db: TestDb) {
    let receiver = Receiver::start();
    receiver.delay(50);
    let base = receiver.base.clone();
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    let envs = [
        ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
        ("HERALD_SHUTDOWN_GRACE_SECS", "1"),
    ];
    let mut first = {
        let (dir, url) = (dir.path().to_owned(), url.clone());
        tokio::task::spawn_blocking(move || Serving::start(&dir, &url, &envs))
            .await
            .unwrap()
    };
    let port = first.port;
    let token = prepare(&url, &base).await;

    start_fan_out(port, &token, &receiver).await;
    first.child.kill().expect("kill -9");
    first.child.wait().unwrap();
    let at_kill = distinct(&receiver);
    assert!(
        at_kill < RECIPIENTS,
        "the kill came after the fan-out had finished ({at_kill})"
    );

    let _second = {
        let (dir, url) = (dir.path().to_owned(), url.clone());
        tokio::task::spawn_blocking(move || Serving::start(&dir, &url, &envs))
            .await
            .unwrap()
    };
    let restarted = Instant::now();
    while distinct(&receiver) < RECIPIENTS {
        assert!(
            restarted.elapsed() < Duration::from_secs(120),
            "after the restart only {} of {RECIPIENTS} recipients were notified",
            distinct(&receiver)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_one_id_per_recipient(&receiver);
    eprintln!(
        "crash test: {at_kill} of {RECIPIENTS} notified before the kill, {} requests in all",
        receiver.hooks().len()
    );
}

/// Opens an incident on the Herald at `port` and waits until its fan-out has begun.
async fn start_fan_out(port: u16, token: &str, receiver: &Receiver) {
    let res = reqwest::Client::new()
        .post(format!(
            "http://127.0.0.1:{port}/api/v1/pages/acme/incidents"
        ))
        .bearer_auth(token)
        .json(&json!({"name": "Database down", "impact": "major", "body": "Investigating."}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let posted = Instant::now();
    while distinct(receiver) < 20 {
        assert!(
            posted.elapsed() < Duration::from_secs(20),
            "the fan-out did not start"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Every recipient was reached, each under one `webhook-id` however often it was sent.
fn assert_one_id_per_recipient(receiver: &Receiver) {
    let mut ids: HashMap<String, HashSet<String>> = HashMap::new();
    for hook in receiver.hooks() {
        ids.entry(hook.path.clone())
            .or_default()
            .insert(hook.headers["webhook-id"].clone());
    }
    assert_eq!(ids.len(), RECIPIENTS);
    for (path, seen) in &ids {
        assert_eq!(seen.len(), 1, "{path} got different ids: {seen:?}");
    }
}

fn distinct(receiver: &Receiver) -> usize {
    receiver
        .hooks()
        .into_iter()
        .map(|h| h.path)
        .collect::<HashSet<_>>()
        .len()
}

/// An owner's token, the page `acme` and [`RECIPIENTS`] webhook subscribers, written straight
/// to the database the server uses.
async fn prepare(url: &str, base: &str) -> String {
    let db = Db::connect_url(
        &DatabaseUrl::parse(url).unwrap(),
        2,
        Duration::from_secs(10),
    )
    .unwrap();
    let base = base.to_owned();
    db.run(move |c| {
        let key = herald::services::signing_key::load_or_create(c, None)?;
        let email = EmailAddress::parse("owner@example.com").unwrap();
        let user =
            herald::services::users::create_user(c, &email, Role::Owner, "a long password 1")?;
        let token = herald::services::auth::issue_token(c, key.expose(), &user, "test", 30)?.secret;
        let input: herald::services::pages::NewPageInput =
            serde_json::from_value(json!({"slug": "acme", "name": "Acme"})).unwrap();
        let page = herald::services::pages::create_page(c, &input)?;
        for i in 0..RECIPIENTS {
            let input = SubscribeInput {
                kind: Some("webhook".into()),
                url: Some(format!("{base}/r/{i}")),
                ..SubscribeInput::default()
            };
            let subscription = input.check()?;
            subscribe::subscribe(
                c,
                &page.id,
                &subscription,
                Origin::Responder,
                herald::delivery::signature::new_secret,
            )?;
        }
        Ok(token)
    })
    .await
    .unwrap()
}

/// Two Herald processes share one PostgreSQL and one fan-out; one is killed -9 halfway: the
/// other serves every subscriber, and any resend carries the same `webhook-id`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_share_a_fan_out_and_one_killed_midway_loses_nothing() {
    let Some(db) = TestDb::postgres() else { return };
    let receiver = Receiver::start();
    receiver.delay(50);
    let base = receiver.base.clone();
    let url = db.url();
    let envs = [
        ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
        ("HERALD_SHUTDOWN_GRACE_SECS", "1"),
    ];
    let start = |dir: std::path::PathBuf| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || Serving::start(&dir, &url, &envs))
    };
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut doomed = start(dir_a.path().to_owned()).await.unwrap();
    let token = prepare(&url, &base).await;
    let _survivor = start(dir_b.path().to_owned()).await.unwrap();

    start_fan_out(doomed.port, &token, &receiver).await;
    doomed.child.kill().expect("kill -9");
    doomed.child.wait().unwrap();
    let at_kill = distinct(&receiver);
    assert!(
        at_kill < RECIPIENTS,
        "the kill came after the fan-out ({at_kill})"
    );

    let killed = Instant::now();
    while distinct(&receiver) < RECIPIENTS {
        assert!(
            killed.elapsed() < Duration::from_secs(120),
            "the other process served only {} of {RECIPIENTS}",
            distinct(&receiver)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_one_id_per_recipient(&receiver);
    drop(db);
}
