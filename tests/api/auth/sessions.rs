//! Console sessions: the sign-in page, the cookie and its flags, no user enumeration, rate
//! limits, CSRF on cookie-authenticated writes, renewal and sign-out.

use herald::domain::Role;
use herald::services::auth::jwt::{Claims, Kind};
use herald::workers::Registry;
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, RETRY_AFTER, SET_COOKIE};
use serde_json::json;

use crate::helpers::{PASSWORD, TestApp, TestDb, no_redirects};

on_both_backends!(
    signing_in_sets_a_strict_http_only_session_cookie_and_redirects_to_admin,
    an_unknown_email_and_a_wrong_password_get_the_same_answer,
    repeated_failures_on_an_account_get_429_with_retry_after_whether_or_not_it_exists,
    signing_out_revokes_the_session_so_the_old_cookie_stops_working,
    a_cookie_authenticated_post_needs_the_csrf_token,
    a_cookie_past_half_its_life_is_renewed_on_the_response,
);

/// POSTs the sign-in form; returns the response.
async fn sign_in(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    app.post_sign_in(&no_redirects(), email, password).await
}

/// A sign-in page with its form's CSRF token (a fresh one per form) left out.
fn without_form_token(html: &str) -> String {
    let marker = r#"name="csrf_token" value=""#;
    match html.find(marker) {
        Some(i) => {
            let start = i + marker.len();
            let end = start + html[start..].find('"').unwrap_or(0);
            format!("{}{}", &html[..start], &html[end..])
        }
        None => html.to_owned(),
    }
}

/// The `Set-Cookie` header for the session cookie, if any.
fn session_set_cookie(res: &reqwest::Response) -> Option<String> {
    res.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("herald_session="))
        .map(str::to_owned)
}

/// Signs in; returns the `herald_session=...` pair to send back.
async fn signed_in(app: &TestApp, email: &str) -> String {
    let res = sign_in(app, email, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let set = session_set_cookie(&res).expect("session cookie set");
    set.split(';').next().unwrap().to_owned()
}

async fn me_with_cookie(app: &TestApp, cookie: &str) -> StatusCode {
    app.client
        .get(format!("{}/api/v1/me", app.address))
        .header(COOKIE, cookie)
        .send()
        .await
        .unwrap()
        .status()
}

/// The CSRF token of the session in `cookie`, as the console embeds it.
async fn csrf_for(app: &TestApp, cookie: &str) -> String {
    let value = cookie.trim_start_matches("herald_session=");
    let claims = jsonwebtoken::dangerous::insecure_decode::<Claims>(value)
        .unwrap()
        .claims;
    herald::http::auth::csrf::token_for(&claims.jti, &app.server_key().await)
}

#[tokio::test]
async fn the_sign_in_page_is_a_plain_form_styled_as_the_public_forms_and_nothing_external() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let res = app.get("/admin/login").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let html = res.text().await.unwrap();
    assert!(
        html.contains(r#"<form class="subscribe-form" method="post" action="/admin/login">"#),
        "{html}"
    );
    assert!(html.contains(r#"name="email" type="email""#));
    assert!(html.contains(r#"name="password" type="password""#));
    for name in ["app.css", "forms.css"] {
        let css = app.site.renderer.assets.url(name);
        assert!(
            css.starts_with("/assets/") && css != format!("/assets/{name}") && html.contains(&css),
            "{css}"
        );
    }
    assert!(
        !html.contains("<script") && !html.contains("http"),
        "{html}"
    );
}

async fn signing_in_sets_a_strict_http_only_session_cookie_and_redirects_to_admin(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Responder).await;
    let res = sign_in(&app, "Ops@Example.com ", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(res.headers()[LOCATION], "/admin");
    let set = session_set_cookie(&res).expect("session cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(flag), "{flag} missing: {set}");
    }
    assert!(!set.contains("Secure"), "served over http: {set}");
    let cookie = set.split(';').next().unwrap();
    let me: serde_json::Value = app
        .client
        .get(format!("{}/api/v1/me", app.address))
        .header(COOKIE, cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["email"], "ops@example.com");
    assert_eq!(me["role"], "responder");
}

#[tokio::test]
async fn over_https_the_session_cookie_is_secure() {
    let db = TestDb::sqlite();
    let extra = [("HERALD_PUBLIC_URL", "https://status.example.com")];
    let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
    app.user("ops@example.com", Role::Viewer).await;
    let res = sign_in(&app, "ops@example.com", PASSWORD).await;
    let set = session_set_cookie(&res).expect("session cookie");
    assert!(set.contains("; Secure"), "{set}");
}

async fn an_unknown_email_and_a_wrong_password_get_the_same_answer(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let wrong_password = sign_in(&app, "ops@example.com", "not the password").await;
    let unknown = sign_in(&app, "nobody@example.com", PASSWORD).await;
    assert_eq!(wrong_password.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    assert!(
        session_set_cookie(&unknown).is_none() && session_set_cookie(&wrong_password).is_none()
    );
    let a = wrong_password.text().await.unwrap();
    let b = unknown.text().await.unwrap();
    assert!(a.contains("Incorrect email or password."), "{a}");
    assert_eq!(
        without_form_token(&a.replace("ops@example.com", "E")),
        without_form_token(&b.replace("nobody@example.com", "E"))
    );
}

async fn repeated_failures_on_an_account_get_429_with_retry_after_whether_or_not_it_exists(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let mut answers = Vec::new();
    for email in ["ops@example.com", "nobody@example.com"] {
        for _ in 0..5 {
            let res = sign_in(&app, email, "wrong").await;
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        }
        let res = sign_in(&app, email, PASSWORD).await;
        assert_eq!(
            res.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "even the right password waits"
        );
        let wait: u32 = res.headers()[RETRY_AFTER]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((890..=900).contains(&wait), "{wait}");
        let body = res.text().await.unwrap();
        assert!(
            body.contains("Too many sign-in attempts. Try again in 15 minutes."),
            "{body}"
        );
        answers.push(without_form_token(&body.replace(email, "E")));
    }
    assert_eq!(answers[0], answers[1]);
}

#[tokio::test]
async fn twenty_failures_from_one_ip_limit_every_account_from_it() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.user("ops@example.com", Role::Owner).await;
    for i in 0..20 {
        let res = sign_in(&app, &format!("user{i}@example.com"), "wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let res = sign_in(&app, "ops@example.com", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key(RETRY_AFTER));
}

async fn signing_out_revokes_the_session_so_the_old_cookie_stops_working(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Viewer).await;
    let cookie = signed_in(&app, "ops@example.com").await;
    assert_eq!(me_with_cookie(&app, &cookie).await, StatusCode::OK);
    let csrf = csrf_for(&app, &cookie).await;
    let res = no_redirects()
        .post(format!("{}/admin/logout", app.address))
        .header(COOKIE, &cookie)
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(res.headers()[LOCATION], "/admin/login");
    let cleared = session_set_cookie(&res).expect("cookie cleared");
    assert!(
        cleared.starts_with("herald_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    assert_eq!(
        me_with_cookie(&app, &cookie).await,
        StatusCode::UNAUTHORIZED
    );
}

async fn a_cookie_authenticated_post_needs_the_csrf_token(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let cookie = signed_in(&app, "ops@example.com").await;
    let csrf = csrf_for(&app, &cookie).await;
    let post_token = |header: Option<&str>| {
        let mut req = app
            .client
            .post(format!("{}/api/v1/tokens", app.address))
            .header(COOKIE, &cookie)
            .json(&json!({"name": "from the console"}));
        if let Some(value) = header {
            req = req.header("X-CSRF-Token", value);
        }
        req.send()
    };
    assert_eq!(
        post_token(None).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let wrong = "0".repeat(64);
    assert_eq!(
        post_token(Some(&wrong)).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        post_token(Some(&csrf)).await.unwrap().status(),
        StatusCode::CREATED
    );
    let logout = |fields: Vec<(&'static str, String)>| {
        no_redirects()
            .post(format!("{}/admin/logout", app.address))
            .header(COOKIE, &cookie)
            .form(&fields)
            .send()
    };
    let res = logout(vec![("other", "x".into())]).await.unwrap();
    assert_eq!(
        res.status(),
        StatusCode::FORBIDDEN,
        "a form without the token"
    );
    assert_eq!(
        me_with_cookie(&app, &cookie).await,
        StatusCode::OK,
        "still signed in"
    );
    let res = logout(vec![("csrf_token", csrf.clone())]).await.unwrap();
    assert_eq!(
        res.status(),
        StatusCode::SEE_OTHER,
        "the form body reached the handler too"
    );
}

async fn a_cookie_past_half_its_life_is_renewed_on_the_response(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let cookie = signed_in(&app, "ops@example.com").await;
    let res = app
        .client
        .get(format!("{}/api/v1/me", app.address))
        .header(COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert!(
        session_set_cookie(&res).is_none(),
        "a fresh cookie is left alone"
    );
    let value = cookie.trim_start_matches("herald_session=");
    let mut claims = jsonwebtoken::dangerous::insecure_decode::<Claims>(value)
        .unwrap()
        .claims;
    let now = chrono::Utc::now().timestamp();
    (claims.iat, claims.exp) = (now - 20 * 60, now + 10 * 60);
    assert_eq!(claims.typ, Kind::Session);
    let aged = herald::services::auth::jwt::sign(&claims, &app.server_key().await).unwrap();
    let res = app
        .client
        .get(format!("{}/api/v1/me", app.address))
        .header(COOKIE, format!("herald_session={aged}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let renewed = session_set_cookie(&res).expect("a renewed cookie");
    let new_value = renewed
        .split(';')
        .next()
        .unwrap()
        .trim_start_matches("herald_session=");
    let new_claims = jsonwebtoken::dangerous::insecure_decode::<Claims>(new_value)
        .unwrap()
        .claims;
    assert_eq!(new_claims.jti, claims.jti, "the same session");
    assert!(
        new_claims.exp >= now + 29 * 60,
        "{} vs {now}",
        new_claims.exp
    );
    assert!(renewed.contains("HttpOnly") && renewed.contains("SameSite=Strict"));
}
