//! Pages only some people may read: a private page refuses strangers on every representation
//! (HTML to sign in, the JSON, feeds, calendar and badge 401) and admits a holder of its
//! password, a reader with a mailed sign-in link (15 minutes, single use), a read token
//! (bearer or `?token=`) and a signed-in responder; an internal page admits responders and
//! read tokens only. Nothing of a restricted page reaches a public route or the public part
//! of the in-memory site, and its answers are never cached publicly.

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb, no_redirects, set_cookie_pair};
use crate::notify::Setup;

on_both_backends!(
    a_private_page_refuses_strangers_everywhere_and_admits_each_kind_of_reader,
    a_sign_in_link_works_once_and_not_after_it_expires,
    nothing_of_a_restricted_page_reaches_a_public_route,
    an_internal_page_admits_responders_and_read_tokens_only,
    the_support_form_of_a_private_page_is_open_to_everyone_unless_the_owner_says_otherwise,
    bad_access_settings_are_refused_by_field,
    the_console_makes_a_page_private_and_its_read_tokens,
    a_sign_in_link_is_mailed_in_the_language_it_was_asked_in,
    a_reader_signs_out_only_through_the_access_pages_own_form,
    a_readers_cookies_are_secure_when_a_trusted_proxy_says_the_request_came_over_https,
);

const PASSWORD: &str = "correct horse battery";
const SECRET: &str = "Database failover in Frankfurt";

/// Every representation of a page, and whether a browser reads it as HTML.
const REPRESENTATIONS: [(&str, bool); 9] = [
    ("", true),
    ("/history?page=1", true),
    ("/embed", true),
    ("/api/v2/summary.json", false),
    ("/api/v2/incidents.json", false),
    ("/history.atom", false),
    ("/history.rss", false),
    ("/maintenances.ics", false),
    ("/badge.svg", false),
];

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

/// Opens an incident on `slug` named `name`; answers its id.
async fn incident(app: &TestApp, token: &str, slug: &str, name: &str) -> String {
    let (status, body) = app
        .api(token)
        .post(
            &format!("/pages/{slug}/incidents"),
            json!({"name": name, "impact": "major", "body": "Investigating."}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

async fn patch(app: &TestApp, token: &str, slug: &str, body: Value) -> Value {
    let (status, answer) = app.api(token).patch(&format!("/pages/{slug}"), body).await;
    assert_eq!(status, 200, "{answer}");
    app.refreshed().await;
    answer
}

/// Asserts that a stranger (carrying `headers`) is refused every representation of `slug`:
/// HTML to `sign_in`, the rest 401, and never a byte of `secret`.
async fn refused_everywhere(
    app: &TestApp,
    slug: &str,
    headers: &[(&str, &str)],
    sign_in: &str,
    secret: &str,
) {
    for (tail, html) in REPRESENTATIONS {
        let path = format!("/status/{slug}{tail}");
        let res = get(app, &path, headers).await;
        let (status, location) = (res.status().as_u16(), header(&res, "location"));
        let cache = header(&res, "cache-control");
        let body = res.text().await.unwrap();
        assert!(!body.contains(secret), "{path} let the page's content out");
        assert_eq!(cache, "no-store", "{path}");
        if html {
            assert_eq!(status, 303, "{path}: {body}");
            assert!(location.starts_with(sign_in), "{path} -> {location}");
        } else {
            assert_eq!(status, 401, "{path}: {body}");
            let answer: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(answer["error"], "unauthorized", "{path}");
        }
    }
}

/// Asserts that a reader carrying `headers` reads every representation of `slug`, privately.
async fn admitted_everywhere(app: &TestApp, slug: &str, headers: &[(&str, &str)], secret: &str) {
    for (tail, _) in REPRESENTATIONS {
        let path = format!("/status/{slug}{tail}");
        let res = get(app, &path, headers).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(header(&res, "cache-control"), "private, no-cache", "{path}");
        if tail.is_empty() || tail.contains("summary") || tail.contains("atom") {
            let body = res.text().await.unwrap();
            assert!(body.contains(secret), "{path} shows the page");
        }
    }
}

/// A browser's visit to the access page: its nonce cookie and the forms' CSRF token.
async fn access_form(app: &TestApp, path: &str) -> (String, String, String) {
    let res = get(app, path, &[]).await;
    let status = res.status().as_u16();
    let cookie = set_cookie_pair(&res, "herald_access").expect("the access form's nonce");
    let body = res.text().await.unwrap();
    let marker = r#"name="csrf_token" value=""#;
    let start = body
        .find(marker)
        .unwrap_or_else(|| panic!("{status}: {body}"))
        + marker.len();
    let token = body[start..].split('"').next().unwrap().to_owned();
    (cookie, token, body)
}

async fn post_form(
    app: &TestApp,
    path: &str,
    cookie: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    no_redirects()
        .post(format!("{}{path}", app.address))
        .header("Cookie", cookie)
        .form(fields)
        .send()
        .await
        .unwrap()
}

/// Signs in with the page's password; answers the reader's cookie pair.
async fn sign_in_with_password(app: &TestApp, slug: &str, password: &str) -> reqwest::Response {
    let (cookie, token, _) = access_form(app, &format!("/status/{slug}/access")).await;
    post_form(
        app,
        &format!("/status/{slug}/access/password"),
        &cookie,
        &[
            ("password", password),
            ("next", &format!("/status/{slug}/history?page=1")),
            ("csrf_token", &token),
        ],
    )
    .await
}

/// Asks for a sign-in link for `email` on `slug`; answers the page shown.
async fn ask_for_link(app: &TestApp, slug: &str, email: &str) -> String {
    let (cookie, token, _) = access_form(app, &format!("/status/{slug}/access")).await;
    let res = post_form(
        app,
        &format!("/status/{slug}/access/email"),
        &cookie,
        &[("email", email), ("csrf_token", &token)],
    )
    .await;
    assert_eq!(res.status(), 200);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(&format!(
            "If {email} may read this page, a sign-in link is on its way"
        )),
        "{body}"
    );
    app.run_pending_jobs().await;
    body
}

/// Opens a mailed sign-in link as a browser does (GET, then the button's POST).
async fn use_link(app: &TestApp, link: &str) -> reqwest::Response {
    let path = url::Url::parse(link).unwrap().path().to_owned();
    let (cookie, token, page) = access_form(app, &path).await;
    assert!(page.contains("Continue to"), "{page}");
    post_form(app, &path, &cookie, &[("csrf_token", &token)]).await
}

async fn a_private_page_refuses_strangers_everywhere_and_admits_each_kind_of_reader(db: TestDb) {
    let s = Setup::spawn(db).await;
    let app = &s.app;
    let id = incident(app, &s.token, "acme", SECRET).await;
    let answer = patch(
        app,
        &s.token,
        "acme",
        json!({"visibility": "private", "password": PASSWORD,
               "allowed_email_domains": ["Contoso.com"]}),
    )
    .await;
    assert_eq!(answer["visibility"], "private");
    assert_eq!(answer["is_public"], false);
    assert_eq!(answer["allowed_email_domains"], json!(["contoso.com"]));
    assert!(answer.get("password").is_none(), "write-only: {answer}");

    // A stranger: every representation, the incident's page, the site root (acme is the
    // default page) and the subscription forms.
    let access = "/status/acme/access?next=";
    refused_everywhere(app, "acme", &[], access, SECRET).await;
    let res = get(app, &format!("/status/acme/incidents/{id}"), &[]).await;
    assert_eq!(res.status(), 303);
    assert_eq!(
        header(&res, "location"),
        format!("/status/acme/access?next=%2Fstatus%2Facme%2Fincidents%2F{id}")
    );
    let root = get(app, "/", &[]).await;
    assert_eq!(root.status(), 303, "the default page at / is private too");
    let subscribe = get(app, "/status/acme/subscribe", &[]).await;
    assert_eq!(subscribe.status(), 303);
    let (status, body) = s
        .subscribe(json!({"type": "email", "email": "eve@example.com"}))
        .await;
    assert_eq!(status, 401, "subscribing needs admission: {body}");
    // A token that is not the page's is refused, even for HTML.
    let wrong = [("Authorization", "Bearer hrt_not-a-token")];
    let res = get(app, "/status/acme", &wrong).await;
    assert_eq!(res.status(), 401);
    let res = get(app, "/status/acme/history.atom?token=hrt_nope", &[]).await;
    assert_eq!(res.status(), 401);

    // The access page says how to get in, and nothing of the page's state.
    let (_, _, page) = access_form(app, "/status/acme/access").await;
    assert!(page.contains("Page password") && page.contains("Email me a sign-in link"));
    assert!(!page.contains(SECRET));

    // The password: a wrong one is refused, the right one lets in.
    let wrong = sign_in_with_password(app, "acme", "not the password").await;
    assert_eq!(wrong.status(), 401);
    assert!(set_cookie_pair(&wrong, "herald_read_acme").is_none());
    assert!(
        wrong
            .text()
            .await
            .unwrap()
            .contains("That is not this page")
    );
    let right = sign_in_with_password(app, "acme", PASSWORD).await;
    assert_eq!(right.status(), 303);
    assert_eq!(header(&right, "location"), "/status/acme/history?page=1");
    let pass = set_cookie_pair(&right, "herald_read_acme").expect("the reader's pass");
    admitted_everywhere(app, "acme", &[("Cookie", &pass)], SECRET).await;
    let subscribe = get(app, "/status/acme/subscribe", &[("Cookie", &pass)]).await;
    assert_eq!(subscribe.status(), 200, "a reader may subscribe");

    // A sign-in link, for an address at an allowed domain only (the answer is the same).
    ask_for_link(app, "acme", "eve@fabrikam.com").await;
    ask_for_link(app, "acme", "ana@contoso.com").await;
    let mail = s.smtp.wait_for("ana@contoso.com", 1).await.remove(0);
    assert!(mail.header("Subject").unwrap().contains("Sign in to"));
    let link = mail.link("/access/link/").expect("a sign-in link");
    let used = use_link(app, &link).await;
    assert_eq!(used.status(), 303);
    let linked = set_cookie_pair(&used, "herald_read_acme").expect("a pass from the link");
    admitted_everywhere(app, "acme", &[("Cookie", &linked)], SECRET).await;
    assert!(
        s.smtp.to("eve@fabrikam.com").is_empty(),
        "no link for a domain the page does not allow"
    );

    // A read token, as a bearer token or in the query; revoked, it stops working.
    let (status, made) = app
        .api(&s.token)
        .post("/pages/acme/read-tokens", json!({"name": "Grafana"}))
        .await;
    assert_eq!(status, 201, "{made}");
    let token = made["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("hrt_"));
    let bearer = format!("Bearer {token}");
    admitted_everywhere(app, "acme", &[("Authorization", &bearer)], SECRET).await;
    let res = get(
        app,
        &format!("/status/acme/history.atom?token={token}"),
        &[],
    )
    .await;
    assert_eq!(res.status(), 200);
    let (_, listed) = app.api(&s.token).get("/pages/acme/read-tokens").await;
    assert_eq!(listed[0]["name"], "Grafana");
    assert!(listed[0].get("token").is_none(), "{listed}");
    let token_id = made["id"].as_str().unwrap();
    let (status, _) = app
        .api(&s.token)
        .delete(&format!("/pages/acme/read-tokens/{token_id}"))
        .await;
    assert_eq!(status, 200);
    let res = get(
        app,
        "/status/acme/api/v2/summary.json",
        &[("Authorization", &bearer)],
    )
    .await;
    assert_eq!(res.status(), 401, "a revoked token");

    // A signed-in responder reads it without a pass.
    let console = Console::sign_in(app, "responder@example.com", Role::Responder).await;
    admitted_everywhere(app, "acme", &[("Cookie", &console.cookie)], SECRET).await;

    // A new password signs every reader out; the new one works.
    patch(
        app,
        &s.token,
        "acme",
        json!({"password": "another long password"}),
    )
    .await;
    refused_everywhere(app, "acme", &[("Cookie", &pass)], access, SECRET).await;
    refused_everywhere(app, "acme", &[("Cookie", &linked)], access, SECRET).await;
    let again = sign_in_with_password(app, "acme", "another long password").await;
    assert_eq!(again.status(), 303);

    // The audit log says a password was set, never which.
    let (_, audit) = app.api(&s.token).get("/audit").await;
    let text = audit.to_string();
    assert!(!text.contains(PASSWORD) && !text.contains("another long password"));
    assert!(text.contains("[set]"), "{text}");

    // Public again: anyone reads it, cached publicly as before.
    patch(app, &s.token, "acme", json!({"visibility": "public"})).await;
    let res = get(app, "/status/acme", &[]).await;
    assert_eq!(res.status(), 200);
    assert!(header(&res, "cache-control").starts_with("public"));
}

async fn a_sign_in_link_works_once_and_not_after_it_expires(db: TestDb) {
    use diesel::prelude::*;
    use herald::db::schema::page_reader_links;

    let s = Setup::spawn(db).await;
    let app = &s.app;
    incident(app, &s.token, "acme", SECRET).await;
    patch(
        app,
        &s.token,
        "acme",
        json!({"visibility": "private", "allowed_email_domains": ["contoso.com"]}),
    )
    .await;

    ask_for_link(app, "acme", "ana@contoso.com").await;
    let first = s.smtp.wait_for("ana@contoso.com", 1).await.remove(0);
    let link = first.link("/access/link/").unwrap();
    assert_eq!(use_link(app, &link).await.status(), 303);
    let again = use_link(app, &link).await;
    assert_eq!(again.status(), 410, "single use");
    assert!(again.text().await.unwrap().contains("used already"));

    // A link whose 15 minutes are over (its row says so) is refused, and lets no one in.
    ask_for_link(app, "acme", "ana@contoso.com").await;
    let second = s.smtp.wait_for("ana@contoso.com", 2).await.remove(1);
    let link = second.link("/access/link/").unwrap();
    let past = chrono::Utc::now().naive_utc() - chrono::Duration::minutes(1);
    app.db
        .run(move |c| {
            diesel::update(page_reader_links::table.filter(page_reader_links::used_at.is_null()))
                .set(page_reader_links::expires_at.eq(past))
                .execute(c)
                .map_err(herald::error::AppError::from)
        })
        .await
        .unwrap();
    let expired = use_link(app, &link).await;
    assert_eq!(expired.status(), 410);
    assert!(set_cookie_pair(&expired, "herald_read_acme").is_none());

    // A link altered by hand is not one of Herald's.
    let forged = link.replace("/access/link/", "/access/link/x");
    let path = url::Url::parse(&forged).unwrap().path().to_owned();
    let res = get(app, &path, &[]).await;
    assert_eq!(res.status(), 400);
}

async fn nothing_of_a_restricted_page_reaches_a_public_route(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme")
        .with_components(&["API"])
        .through_api(&token)
        .create()
        .await;
    app.page("vault")
        .with_components(&["Vault"])
        .through_api(&token)
        .create()
        .await;
    incident(&app, &token, "vault", "Vault breach contained").await;
    patch(
        &app,
        &token,
        "vault",
        json!({"visibility": "private", "password": PASSWORD}),
    )
    .await;

    // The public part of the site holds nothing of it; the restricted part holds it.
    let snapshot = app.site.snapshot();
    assert!(!snapshot.pages.contains_key("vault"));
    assert!(snapshot.restricted.contains_key("vault"));
    for (slug, page) in &snapshot.pages {
        for (key, rep) in &page.reps {
            let text = String::from_utf8_lossy(&rep.identity);
            assert!(!text.contains("Vault breach"), "{slug}/{key}");
        }
    }
    let lines = &snapshot.home.lines;
    assert!(
        !lines.is_empty()
            && lines
                .values()
                .all(|l| l.href != "/status/vault" && l.name != "Vault"),
        "{lines:?}"
    );
    // The home page, rendered on its first read, lists the public page and not the other.
    let home = snapshot.home.clone();
    drop(snapshot);
    let home = home.render(&app.site).await.unwrap();
    let home = String::from_utf8_lossy(&home.identity).into_owned();
    assert!(home.contains("/status/acme"), "{home}");
    assert!(!home.contains("vault") && !home.contains("Vault"), "{home}");

    // Over HTTP: the public page, the root, the welcome guide and a custom-domain path.
    for path in [
        "/",
        "/status/acme",
        "/status/acme/api/v2/summary.json",
        "/welcome",
    ] {
        let res = get(&app, path, &[]).await;
        let body = res.text().await.unwrap();
        assert!(!body.contains("Vault breach"), "{path}");
    }
    refused_everywhere(&app, "vault", &[], "/status/vault/access", "Vault breach").await;
    // A preflight learns nothing either.
    let preflight = no_redirects()
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/status/vault/api/v2/summary.json", app.address),
        )
        .header("Origin", "https://elsewhere.example")
        .header("Access-Control-Request-Method", "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert!(preflight.text().await.unwrap().is_empty());
}

async fn an_internal_page_admits_responders_and_read_tokens_only(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("ops")
        .with_components(&["Queue"])
        .through_api(&token)
        .create()
        .await;
    incident(&app, &token, "ops", SECRET).await;
    patch(&app, &token, "ops", json!({"visibility": "internal"})).await;

    let sign_in = "/admin/login?next=";
    refused_everywhere(&app, "ops", &[], sign_in, SECRET).await;
    let access = get(&app, "/status/ops/access", &[]).await;
    assert_eq!(
        access.status(),
        303,
        "no reader's sign-in for an internal page"
    );
    assert!(header(&access, "location").starts_with(sign_in));
    // A password set on it lets no one in while it is internal.
    patch(&app, &token, "ops", json!({"password": PASSWORD})).await;
    let res = sign_in_with_password_refused(&app, "ops").await;
    assert_ne!(res, 303);

    let console = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    admitted_everywhere(&app, "ops", &[("Cookie", &console.cookie)], SECRET).await;
    let (_, made) = app
        .api(&token)
        .post("/pages/ops/read-tokens", json!({"name": "wallboard"}))
        .await;
    let bearer = format!("Bearer {}", made["token"].as_str().unwrap());
    admitted_everywhere(&app, "ops", &[("Authorization", &bearer)], SECRET).await;
    // An API token of a responder reads it too (not only the console's session).
    let api = format!("Bearer {token}");
    let res = get(
        &app,
        "/status/ops/api/v2/summary.json",
        &[("Authorization", &api)],
    )
    .await;
    assert_eq!(res.status(), 200);

    // Signing in to the console leads back to the page.
    let client = no_redirects();
    let (cookie, csrf) = app.sign_in_form(&client).await;
    let res = client
        .post(format!("{}/admin/login", app.address))
        .header("Cookie", cookie)
        .form(&[
            ("email", "viewer@example.com"),
            ("password", crate::helpers::PASSWORD),
            ("csrf_token", &csrf),
            ("next", "/status/ops/history?page=1"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(header(&res, "location"), "/status/ops/history?page=1");
}

/// Posts a password to an internal page's access form (which has none to show): answers the
/// status.
async fn sign_in_with_password_refused(app: &TestApp, slug: &str) -> u16 {
    // The form is not offered, so a browser could only post it by hand: with a nonce and
    // token of the private page flow it would still not be let in.
    let res = post_form(
        app,
        &format!("/status/{slug}/access/password"),
        "",
        &[("password", PASSWORD), ("csrf_token", "x")],
    )
    .await;
    assert!(set_cookie_pair(&res, &format!("herald_read_{slug}")).is_none());
    res.status().as_u16()
}

async fn the_support_form_of_a_private_page_is_open_to_everyone_unless_the_owner_says_otherwise(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.page("acme")
        .with_components(&["Billing engine"])
        .through_api(&token)
        .create()
        .await;
    incident(&app, &token, "acme", SECRET).await;
    patch(
        &app,
        &token,
        "acme",
        json!({"visibility": "private", "password": PASSWORD}),
    )
    .await;

    // By default anyone reaches it (it serves those who cannot sign in), seeing nothing of
    // the page's state: no incident, no component.
    let res = get(&app, "/status/acme/support", &[]).await;
    assert_eq!(res.status(), 200);
    let body = res.text().await.unwrap();
    assert!(
        !body.contains(SECRET) && !body.contains("Billing engine"),
        "{body}"
    );
    let res = get(&app, "/status/acme/api/support", &[]).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["components"], json!([]));

    // A reader sees the page's components there.
    let pass = sign_in_with_password(&app, "acme", PASSWORD).await;
    let pass = set_cookie_pair(&pass, "herald_read_acme").unwrap();
    let res = get(&app, "/status/acme/support", &[("Cookie", &pass)]).await;
    assert!(res.text().await.unwrap().contains("Billing engine"));

    // Only readers, when the owner says so.
    let answer = patch(&app, &token, "acme", json!({"support_reach": "readers"})).await;
    assert_eq!(answer["support_reach"], "readers");
    let res = get(&app, "/status/acme/support", &[]).await;
    assert_eq!(res.status(), 303);
    let res = get(&app, "/status/acme/api/support", &[]).await;
    assert_eq!(res.status(), 401);
    let res = get(&app, "/status/acme/support", &[("Cookie", &pass)]).await;
    assert_eq!(res.status(), 200);
}

async fn bad_access_settings_are_refused_by_field(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    app.acme().await;
    let (status, body) = app
        .api(&token)
        .patch(
            "/pages/acme",
            json!({"visibility": "secret", "password": "short",
                   "allowed_email_domains": ["not a domain"]}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = app
        .api(&token)
        .patch(
            "/pages/acme",
            json!({"password": "short", "allowed_email_domains": ["not a domain"]}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["fields"]["password"][0]
            .as_str()
            .unwrap()
            .contains("at least 12")
    );
    assert!(
        body["fields"]["allowed_email_domains"][0]
            .as_str()
            .unwrap()
            .contains("is not an e-mail domain")
    );
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["visibility"], "public", "nothing was changed");
    let (status, body) = app
        .api(&token)
        .post("/pages/acme/read-tokens", json!({"name": " "}))
        .await;
    assert_eq!(status, 422, "{body}");
}

async fn the_console_makes_a_page_private_and_its_read_tokens(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    app.page("acme")
        .with_components(&["API"])
        .through_api(&owner)
        .create()
        .await;
    incident(&app, &owner, "acme", SECRET).await;
    let console = Console::sign_in(&app, "admin@example.com", Role::Owner).await;
    let (status, form) = console.get("/admin/pages/acme/settings").await;
    assert_eq!(status, 200);
    assert!(
        form.contains(r#"<option value="public" selected>"#),
        "public by default"
    );
    let (status, location, body) = console
        .post(
            "/admin/pages/acme/settings",
            &[
                ("csrf_token", &console.csrf),
                ("name", "Acme"),
                ("slug", "acme"),
                ("time_zone", "UTC"),
                ("visibility", "private"),
                ("password", PASSWORD),
                ("allowed_email_domains", "contoso.com\nfabrikam.com"),
                ("support_reach", "everyone"),
            ],
        )
        .await;
    assert_eq!(status, 303, "{body}");
    assert_eq!(location, "/admin/pages/acme/settings");
    let (_, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(page["visibility"], "private");
    assert_eq!(
        page["allowed_email_domains"],
        json!(["contoso.com", "fabrikam.com"])
    );
    let (_, form) = console.get("/admin/pages/acme/settings").await;
    assert!(form.contains(r#"<option value="private" selected>"#));
    assert!(
        form.contains("one is set"),
        "the form says a password is set"
    );
    assert!(!form.contains(PASSWORD), "and never shows it");
    refused_everywhere(&app, "acme", &[], "/status/acme/access", SECRET).await;
    assert_eq!(
        sign_in_with_password(&app, "acme", PASSWORD).await.status(),
        303
    );

    let (_, location, made) = console
        .post(
            "/admin/pages/acme/read-tokens",
            &[("csrf_token", &console.csrf), ("name", "Wallboard")],
        )
        .await;
    assert!(location.is_empty(), "the token is shown on the answer");
    let start = made.find("hrt_").expect("the token, shown once");
    let token: String = made[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .collect();
    let bearer = format!("Bearer {token}");
    admitted_everywhere(&app, "acme", &[("Authorization", &bearer)], SECRET).await;
    let (_, list) = console.get("/admin/pages/acme/read-tokens").await;
    assert!(list.contains("Wallboard") && !list.contains(&token));
    let marker = "action=\"/admin/pages/acme/read-tokens/";
    let at = list.find(marker).unwrap() + "action=\"".len();
    let revoke = list[at..].split('"').next().unwrap().to_owned();
    let (status, _, _) = console
        .post(&revoke, &[("csrf_token", &console.csrf)])
        .await;
    assert_eq!(status, 303);
    let res = get(
        &app,
        "/status/acme/api/v2/summary.json",
        &[("Authorization", &bearer)],
    )
    .await;
    assert_eq!(res.status(), 401, "revoked in the console");
}

async fn a_sign_in_link_is_mailed_in_the_language_it_was_asked_in(db: TestDb) {
    let s = Setup::spawn(db).await;
    let app = &s.app;
    patch(
        app,
        &s.token,
        "acme",
        json!({"visibility": "private", "allowed_email_domains": ["contoso.com"],
               "languages": ["en", "de"]}),
    )
    .await;
    let (cookie, token, page) = access_form(app, "/status/acme/access?lang=de").await;
    assert!(page.contains("<html lang=\"de\""), "{page}");
    let res = post_form(
        app,
        "/status/acme/access/email?lang=de",
        &cookie,
        &[("email", "ana@contoso.com"), ("csrf_token", &token)],
    )
    .await;
    assert_eq!(res.status(), 200);
    let body = res.text().await.unwrap();
    assert!(
        body.contains("Wenn ana@contoso.com diese Seite lesen darf, ist ein Anmeldelink"),
        "{body}"
    );
    app.run_pending_jobs().await;
    let mail = s.smtp.wait_for("ana@contoso.com", 1).await.remove(0);
    assert_eq!(mail.subject().as_deref(), Some("Bei Acme anmelden"));
    assert!(
        mail.html().contains("<html lang=\"de\">"),
        "{}",
        mail.html()
    );
    assert!(!mail.text().contains("It works once"), "{}", mail.text());
    let link = mail.link("/access/link/").expect("a sign-in link");
    assert!(link.ends_with("?lang=de"), "{link}");
    let path = &url::Url::parse(&link).unwrap()[url::Position::BeforePath..];
    let (_, _, page) = access_form(app, path).await;
    assert!(
        page.contains("Weiter zu Acme"),
        "the link's page is German too: {page}"
    );

    // Asked in English, the mail is English.
    let (cookie, token, _) = access_form(app, "/status/acme/access").await;
    let form = [("email", "bo@contoso.com"), ("csrf_token", token.as_str())];
    let res = post_form(app, "/status/acme/access/email", &cookie, &form).await;
    assert_eq!(res.status(), 200);
    app.run_pending_jobs().await;
    let mail = s.smtp.wait_for("bo@contoso.com", 1).await.remove(0);
    assert_eq!(mail.subject().as_deref(), Some("Sign in to Acme"));
}

async fn a_reader_signs_out_only_through_the_access_pages_own_form(db: TestDb) {
    let s = Setup::spawn(db).await;
    let app = &s.app;
    incident(app, &s.token, "acme", SECRET).await;
    patch(
        app,
        &s.token,
        "acme",
        json!({"visibility": "private", "password": PASSWORD}),
    )
    .await;
    let signed_in = sign_in_with_password(app, "acme", PASSWORD).await;
    assert_eq!(signed_in.status(), 303);
    let pass = set_cookie_pair(&signed_in, "herald_read_acme").expect("the reader's pass");
    let reads = |cookie: String| async move {
        get(app, "/status/acme", &[("Cookie", cookie.as_str())])
            .await
            .status()
    };
    assert_eq!(reads(pass.clone()).await, 200);

    // Another site's form (no token, or a token of another nonce) signs nobody out.
    let (_, other_token, _) = access_form(app, "/status/acme/access").await;
    for fields in [vec![], vec![("csrf_token", other_token.as_str())]] {
        let res = post_form(app, "/status/acme/access/leave", &pass, &fields).await;
        assert_eq!(res.status(), 403);
        assert_eq!(set_cookie_pair(&res, "herald_read_acme"), None);
        assert!(res.text().await.unwrap().contains("This form has expired"));
    }
    assert_eq!(reads(pass.clone()).await, 200, "still signed in");

    // The access page, read with the pass, offers to sign out; its form does.
    let res = get(app, "/status/acme/access", &[("Cookie", pass.as_str())]).await;
    let nonce = set_cookie_pair(&res, "herald_access").expect("the access form's nonce");
    let page = res.text().await.unwrap();
    assert!(
        page.contains(r#"action="/status/acme/access/leave""#),
        "{page}"
    );
    assert!(page.contains("Sign out"), "{page}");
    let marker = r#"name="csrf_token" value=""#;
    let start = page.find(marker).unwrap() + marker.len();
    let token = page[start..].split('"').next().unwrap().to_owned();
    let both = format!("{nonce}; {pass}");
    let res = post_form(
        app,
        "/status/acme/access/leave",
        &both,
        &[("csrf_token", &token)],
    )
    .await;
    assert_eq!(res.status(), 303);
    assert_eq!(header(&res, "location"), "/status/acme/access");
    let removal = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("herald_read_acme="))
        .expect("the pass is removed")
        .to_owned();
    assert!(
        removal.starts_with("herald_read_acme=;") && removal.contains("Max-Age=0"),
        "{removal}"
    );
    // Without a pass the access page offers no sign-out.
    let (_, _, page) = access_form(app, "/status/acme/access").await;
    assert!(!page.contains("/access/leave"), "{page}");
}

/// The `Set-Cookie` line of `name` in `res`.
fn set_cookie_line(res: &reqwest::Response, name: &str) -> String {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} cookie"))
        .to_owned()
}

async fn a_readers_cookies_are_secure_when_a_trusted_proxy_says_the_request_came_over_https(
    db: TestDb,
) {
    // Herald's own address is http (its default); the page is served over https by a proxy.
    let shared = db.shared();
    let behind_proxy = TestApp::spawn_with(
        db,
        &[("HERALD_TRUSTED_PROXIES", "127.0.0.1/32")],
        herald::workers::Registry::standard(),
    )
    .await;
    let token = behind_proxy.token(Role::Owner).await;
    behind_proxy.page("acme").through_api(&token).create().await;
    patch(
        &behind_proxy,
        &token,
        "acme",
        json!({"visibility": "private", "password": PASSWORD}),
    )
    .await;
    let direct = TestApp::spawn(shared).await;
    direct.refreshed().await;

    let sign_in = |app: &TestApp, proto: Option<&'static str>| {
        let address = app.address.clone();
        async move {
            let with_proto = |req: reqwest::RequestBuilder| match proto {
                Some(proto) => req.header("X-Forwarded-Proto", proto),
                None => req,
            };
            let res = with_proto(no_redirects().get(format!("{address}/status/acme/access")))
                .send()
                .await
                .unwrap();
            let nonce_line = set_cookie_line(&res, "herald_access");
            let nonce = nonce_line.split(';').next().unwrap().to_owned();
            let body = res.text().await.unwrap();
            let marker = r#"name="csrf_token" value=""#;
            let start = body.find(marker).unwrap() + marker.len();
            let csrf = body[start..].split('"').next().unwrap().to_owned();
            let res = with_proto(
                no_redirects()
                    .post(format!("{address}/status/acme/access/password"))
                    .header("Cookie", nonce),
            )
            .form(&[("password", PASSWORD), ("csrf_token", &csrf)])
            .send()
            .await
            .unwrap();
            assert_eq!(res.status(), 303);
            (nonce_line, set_cookie_line(&res, "herald_read_acme"))
        }
    };
    let secure = |line: &str| line.split(';').any(|a| a.trim() == "Secure");
    // Behind the trusted proxy, its word makes both cookies Secure; over its http, not.
    let (nonce, pass) = sign_in(&behind_proxy, Some("https")).await;
    assert!(secure(&nonce) && secure(&pass), "{nonce} / {pass}");
    let (nonce, pass) = sign_in(&behind_proxy, Some("http")).await;
    assert!(!secure(&nonce) && !secure(&pass), "{nonce} / {pass}");
    let (nonce, pass) = sign_in(&behind_proxy, None).await;
    assert!(!secure(&nonce) && !secure(&pass), "{nonce} / {pass}");
    // From a peer that is not a trusted proxy, the header is anybody's word: not believed
    // (and, Herald's address being http, the default stays as it was).
    let (nonce, pass) = sign_in(&direct, Some("https")).await;
    assert!(!secure(&nonce) && !secure(&pass), "{nonce} / {pass}");
}
