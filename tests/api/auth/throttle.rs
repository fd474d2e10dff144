//! Sign-in under attack: the throttle counts an attempt before it checks it, keys per account
//! and network (IPv6 by /64) so guessers never lock the owner out, the form has its own CSRF
//! token, and a flood of sign-ins holds no database connection while it waits.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use herald::domain::Role;
use herald::workers::Registry;
use reqwest::StatusCode;
use reqwest::header::SET_COOKIE;

use crate::helpers::{PASSWORD, TestApp, TestDb, no_redirects};

on_both_backends!(
    forty_concurrent_guesses_on_one_account_are_five_answers_and_thirty_five_refusals,
    guesses_from_another_network_do_not_lock_the_owner_out,
    an_ipv6_guesser_counts_as_its_64,
    a_sign_in_flood_leaves_the_database_pool_to_everyone_else,
);

/// An app that believes `X-Forwarded-For` from the test (a trusted proxy on loopback).
async fn behind_proxy(db: TestDb, extra: &[(&str, &str)]) -> TestApp {
    let mut settings = vec![("HERALD_TRUSTED_PROXIES", "127.0.0.1")];
    settings.extend_from_slice(extra);
    TestApp::spawn_with(db, &settings, Registry::standard()).await
}

/// One sign-in form's cookie and token, POSTed with `email` and `password` as if from `from`.
struct Form {
    cookie: String,
    token: String,
}

impl Form {
    async fn get(app: &TestApp) -> Self {
        let (cookie, token) = app.sign_in_form(&no_redirects()).await;
        Self { cookie, token }
    }

    async fn post(&self, app: &TestApp, email: &str, password: &str, from: &str) -> StatusCode {
        self.send(app, email, password, from).await.status()
    }

    /// The sign-in's whole answer.
    async fn send(
        &self,
        app: &TestApp,
        email: &str,
        password: &str,
        from: &str,
    ) -> reqwest::Response {
        no_redirects()
            .post(format!("{}/admin/login", app.address))
            .header("Cookie", &self.cookie)
            .header("X-Forwarded-For", from)
            .form(&[
                ("email", email),
                ("password", password),
                ("csrf_token", &self.token),
            ])
            .send()
            .await
            .expect("request sent")
    }
}

async fn forty_concurrent_guesses_on_one_account_are_five_answers_and_thirty_five_refusals(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let form = Form::get(&app).await;
    let guesses = (0..40).map(|i| {
        let (app, form) = (&app, &form);
        async move {
            form.post(app, "ops@example.com", &format!("wrong {i}"), "")
                .await
        }
    });
    let statuses = futures_util::future::join_all(guesses).await;
    let verified = statuses.iter().filter(|s| **s == 401).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!((verified, refused), (5, 35), "{statuses:?}");
}

async fn guesses_from_another_network_do_not_lock_the_owner_out(db: TestDb) {
    let app = behind_proxy(db, &[]).await;
    app.user("ops@example.com", Role::Owner).await;
    let form = Form::get(&app).await;
    let guesser = "203.0.113.9";
    for _ in 0..5 {
        let status = form.post(&app, "ops@example.com", "guess", guesser).await;
        assert_eq!(status, 401);
    }
    let status = form.post(&app, "ops@example.com", "guess", guesser).await;
    assert_eq!(status, 429, "the guessing network is throttled");
    let owner = form
        .post(&app, "ops@example.com", PASSWORD, "192.0.2.10")
        .await;
    assert_eq!(owner, 303, "the owner signs in from their own network");
    let status = form.post(&app, "ops@example.com", PASSWORD, guesser).await;
    assert_eq!(
        status, 429,
        "the guessing network stays throttled, right password or not"
    );
}

async fn an_ipv6_guesser_counts_as_its_64(db: TestDb) {
    let app = behind_proxy(db, &[]).await;
    app.user("ops@example.com", Role::Owner).await;
    let form = Form::get(&app).await;
    for i in 1..=5 {
        let from = format!("2001:db8:1:2::{i:x}");
        let status = form.post(&app, "ops@example.com", "guess", &from).await;
        assert_eq!(status, 401, "{from}");
    }
    let next = form
        .post(&app, "ops@example.com", "guess", "2001:db8:1:2:ffff::1")
        .await;
    assert_eq!(
        next, 429,
        "another address in the same /64 is the same client"
    );
    let other = form
        .post(&app, "ops@example.com", PASSWORD, "2001:db8:1:3::1")
        .await;
    assert_eq!(other, 303, "the next /64 is another client");
}

async fn a_sign_in_flood_leaves_the_database_pool_to_everyone_else(db: TestDb) {
    // One connection, and a pool wait of 250 ms: a flood whose password checks held the
    // connection (tens of milliseconds of argon2 each) makes the API below wait past it (on
    // SQLite it answered 503 to half its requests when the check ran on the pool).
    let extra = [
        ("HERALD_DB_POOL_SIZE", "1"),
        ("HERALD_DB_TIMEOUT_MS", "250"),
    ];
    let app = behind_proxy(db, &extra).await;
    let user = app.user("ops@example.com", Role::Owner).await;
    let token = app.token_for(&user).await;
    let form = Form::get(&app).await;
    // 48 senders, each signing in again as soon as it is answered, until the responder is done.
    let done = AtomicBool::new(false);
    let sent = AtomicUsize::new(0);
    let sender = |_| async {
        let mut statuses = Vec::new();
        while !done.load(Ordering::Acquire) {
            let i = sent.fetch_add(1, Ordering::AcqRel);
            let from = format!("198.51.{}.{}", i / 250 % 250, i % 250 + 1);
            let email = format!("user{i}@example.com");
            let answer = form.send(&app, &email, "guess", &from).await;
            let waits = answer.headers().contains_key("retry-after");
            statuses.push((answer.status(), waits));
        }
        statuses
    };
    let responder = async {
        let mut statuses = Vec::new();
        for _ in 0..30 {
            statuses.push(app.api(&token).get("/me").await.0);
        }
        done.store(true, Ordering::Release);
        statuses
    };
    let (flooded, api) = tokio::join!(
        futures_util::future::join_all((0..48).map(sender)),
        responder
    );
    let flooded: Vec<(StatusCode, bool)> = flooded.into_iter().flatten().collect();
    assert!(
        api.iter().all(|s| *s == 200),
        "the API during the flood: {api:?}"
    );
    // A sign-in the pool could take in time is checked and refused; one it could not is told
    // when to come back. Which of the two each gets depends on the machine's speed, so each
    // is held to the answer that goes with it, and the flood must have reached the check.
    let (refused, told_to_wait): (Vec<_>, Vec<_>) =
        flooded.iter().partition(|(status, _)| *status == 401);
    assert!(
        told_to_wait
            .iter()
            .all(|(status, waits)| *status == 503 && *waits),
        "a sign-in not refused must be told to wait (503 with Retry-After): {told_to_wait:?}"
    );
    assert!(
        !refused.is_empty(),
        "no sign-in of the flood reached the password check: {flooded:?}"
    );
}

#[tokio::test]
async fn the_sign_in_form_needs_its_own_csrf_token() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.user("ops@example.com", Role::Owner).await;
    let page = no_redirects()
        .get(format!("{}/admin/login", app.address))
        .send()
        .await
        .unwrap();
    let set = page
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("herald_login="))
        .expect("the form sets its cookie")
        .to_owned();
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/admin/login"] {
        assert!(set.contains(flag), "{flag} missing: {set}");
    }

    let without = no_redirects()
        .post(format!("{}/admin/login", app.address))
        .form(&[("email", "ops@example.com"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(without.status(), 403);
    let no_session = !without
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .any(|v| v.to_str().unwrap().starts_with("herald_session="));
    assert!(no_session, "no session without the token");
    let html = without.text().await.unwrap();
    assert!(
        html.contains(herald::http::auth::login::FORM_EXPIRED),
        "{html}"
    );
    assert!(
        html.contains(r#"value="ops@example.com""#),
        "the email is kept: {html}"
    );
    assert!(
        html.contains(r#"name="csrf_token" value=""#),
        "a fresh form: {html}"
    );

    // A token from one browser's form does not go with another browser's cookie.
    let mine = Form::get(&app).await;
    let theirs = Form::get(&app).await;
    let crossed = Form {
        cookie: mine.cookie.clone(),
        token: theirs.token.clone(),
    };
    assert_eq!(
        crossed.post(&app, "ops@example.com", PASSWORD, "").await,
        403
    );
    assert_eq!(mine.post(&app, "ops@example.com", PASSWORD, "").await, 303);
}
