//! A private page leaks nowhere: every representation (the ones `visibility` tests and the
//! widget, the embed script, and each Statuspage document) refuses a stranger, at its path,
//! at the root of its own domain, and at the site's root when it is the default page; what a
//! reader is given is never cached for someone else (`Vary` names the credentials).

use herald::domain::Role;
use serde_json::{Value, json};

use super::{get, header, incident, patch_page};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    every_representation_of_a_private_page_refuses_strangers_and_varies_for_readers,
    a_private_page_at_its_own_domain_refuses_strangers_everywhere,
    a_private_default_page_refuses_strangers_at_the_sites_root,
);

const PASSWORD: &str = "correct horse battery";
const SECRET: &str = "Vault breach contained";
const COMPONENT: &str = "Vault core";
const MAINTENANCE: &str = "Vault rekeying window";

/// Every representation of a page (below `/status/{slug}/`, or at a domain's root) and
/// whether a browser reads it as HTML.
const REPRESENTATIONS: [(&str, bool); 17] = [
    ("", true),
    ("history?page=1", true),
    ("embed", true),
    ("api/v2/summary.json", false),
    ("api/v2/status.json", false),
    ("api/v2/components.json", false),
    ("api/v2/incidents.json", false),
    ("api/v2/incidents/unresolved.json", false),
    ("api/v2/scheduled-maintenances.json", false),
    ("api/v2/scheduled-maintenances/upcoming.json", false),
    ("api/v2/scheduled-maintenances/active.json", false),
    ("history.atom", false),
    ("history.rss", false),
    ("maintenances.ics", false),
    ("badge.svg", false),
    ("widget.json", false),
    ("embed.js", false),
];

/// An app whose page `slugs[0]` is the default; the last one, `vault`, has a component, an
/// open incident and an upcoming maintenance (all named with the secrets above), and is made
/// private with [`PASSWORD`] and then `extra` settings. Answers the app and an owner's token.
async fn with_private_vault(db: TestDb, slugs: &[&str], extra: Value) -> (TestApp, String) {
    let app = TestApp::spawn(db).await;
    let token = app.token(Role::Owner).await;
    for slug in slugs {
        app.page(slug)
            .with_components(&[COMPONENT])
            .through_api(&token)
            .create()
            .await;
    }
    let vault = slugs.last().unwrap();
    incident(&app, &token, vault, SECRET, "Investigating.").await;
    let soon = chrono::Utc::now() + chrono::Duration::days(2);
    let (status, made) = app
        .api(&token)
        .post(
            &format!("/pages/{vault}/maintenances"),
            json!({"name": MAINTENANCE, "body": "Keys are rotated.",
                   "scheduled_for": soon.to_rfc3339(),
                   "scheduled_until": (soon + chrono::Duration::hours(1)).to_rfc3339()}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let mut settings = json!({"visibility": "private", "password": PASSWORD});
    settings
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    patch_page(&app, &token, vault, settings).await;
    (app, token)
}

/// A read token of `slug`.
async fn read_token(app: &TestApp, owner: &str, slug: &str) -> String {
    let (status, made) = app
        .api(owner)
        .post(
            &format!("/pages/{slug}/read-tokens"),
            json!({"name": "wallboard"}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    made["token"].as_str().unwrap().to_owned()
}

/// Asserts `path` (read with `headers`) is refused to a stranger, as HTML or as 401, and
/// shows nothing of the page.
async fn refused(app: &TestApp, path: &str, html: bool, headers: &[(&str, &str)], access: &str) {
    let res = get(app, path, headers).await;
    let status = res.status().as_u16();
    let (location, cache) = (header(&res, "location"), header(&res, "cache-control"));
    let body = res.text().await.unwrap();
    for secret in [SECRET, COMPONENT, MAINTENANCE] {
        assert!(
            !body.contains(secret),
            "{path} {headers:?} let {secret} out"
        );
    }
    assert_eq!(cache, "no-store", "{path} {headers:?}");
    if html {
        assert_eq!(status, 303, "{path} {headers:?}: {body}");
        assert!(location.starts_with(access), "{path} -> {location}");
    } else {
        assert_eq!(status, 401, "{path} {headers:?}: {body}");
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["error"], "unauthorized", "{path}");
    }
}

/// Asserts `path` (read with `headers`, a reader's credentials) is served privately, varying
/// with the credentials; answers the body.
async fn admitted(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> String {
    let res = get(app, path, headers).await;
    assert_eq!(res.status(), 200, "{path} {headers:?}");
    assert_eq!(header(&res, "cache-control"), "private, no-cache", "{path}");
    let vary: Vec<String> = res
        .headers()
        .get_all("vary")
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    for credential in ["authorization", "cookie"] {
        assert!(
            vary.iter().any(|v| v == credential || v == "*"),
            "{path}: Vary {vary:?}"
        );
    }
    res.text().await.unwrap()
}

/// The pass a reader gets by signing in with the page's password.
async fn password_pass(app: &TestApp, slug: &str) -> String {
    let res = get(app, &format!("/status/{slug}/access"), &[]).await;
    let cookie = crate::helpers::set_cookie_pair(&res, "herald_access").unwrap();
    let form = res.text().await.unwrap();
    let marker = r#"name="csrf_token" value=""#;
    let at = form.find(marker).unwrap() + marker.len();
    let csrf = form[at..].split('"').next().unwrap().to_owned();
    let res = crate::helpers::no_redirects()
        .post(format!("{}/status/{slug}/access/password", app.address))
        .header("Cookie", cookie)
        .form(&[("password", PASSWORD), ("csrf_token", &csrf)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    crate::helpers::set_cookie_pair(&res, &format!("herald_read_{slug}")).unwrap()
}

async fn every_representation_of_a_private_page_refuses_strangers_and_varies_for_readers(
    db: TestDb,
) {
    let (app, owner) = with_private_vault(db, &["acme", "vault"], json!({})).await;
    let access = "/status/vault/access?next=";
    for (tail, html) in REPRESENTATIONS {
        let path = format!("/status/vault/{tail}");
        let path = path.trim_end_matches('/');
        refused(&app, path, html, &[], access).await;
        // A token that is not the page's, or a pass of another page, is no better.
        refused(
            &app,
            path,
            false,
            &[("Authorization", "Bearer hrt_forged")],
            access,
        )
        .await;
    }

    let token = read_token(&app, &owner, "vault").await;
    let bearer = format!("Bearer {token}");
    let pass = password_pass(&app, "vault").await;
    for (tail, _) in REPRESENTATIONS {
        let path = format!("/status/vault/{tail}");
        let path = path.trim_end_matches('/');
        let by_token = admitted(&app, path, &[("Authorization", &bearer)]).await;
        let by_pass = admitted(&app, path, &[("Cookie", &pass)]).await;
        // The documents that name them show the page to its readers.
        let shows = match tail {
            "" | "api/v2/summary.json" | "api/v2/incidents.json" | "widget.json" => Some(SECRET),
            "api/v2/components.json" => Some(COMPONENT),
            "api/v2/scheduled-maintenances.json"
            | "api/v2/scheduled-maintenances/upcoming.json" => Some(MAINTENANCE),
            _ => None,
        };
        if let Some(secret) = shows {
            assert!(by_token.contains(secret), "{path}: {by_token}");
            assert!(by_pass.contains(secret), "{path}: {by_pass}");
        }
    }
    // The public page beside it shows nothing of it.
    let res = get(&app, "/status/acme/api/v2/summary.json", &[]).await;
    assert_eq!(res.status(), 200);
    assert!(!res.text().await.unwrap().contains(SECRET));
}

async fn a_private_page_at_its_own_domain_refuses_strangers_everywhere(db: TestDb) {
    let (app, owner) = with_private_vault(
        db,
        &["acme", "vault"],
        json!({"custom_domain": "status.vault.test"}),
    )
    .await;
    let access = "/status/vault/access?next=";
    for host in ["status.vault.test", "status.vault.test:8080"] {
        let on_domain = [("Host", host)];
        for (tail, html) in REPRESENTATIONS {
            refused(&app, &format!("/{tail}"), html, &on_domain, access).await;
            refused(
                &app,
                &format!("/status/vault/{tail}"),
                html,
                &on_domain,
                access,
            )
            .await;
        }
    }
    // The domain's root sends a browser to sign in and back to the root.
    let res = get(&app, "/", &[("Host", "status.vault.test")]).await;
    assert_eq!(header(&res, "location"), "/status/vault/access?next=%2F");

    // A reader of the page reads it there.
    let token = read_token(&app, &owner, "vault").await;
    let bearer = format!("Bearer {token}");
    let headers = [
        ("Host", "status.vault.test"),
        ("Authorization", bearer.as_str()),
    ];
    let summary = admitted(&app, "/api/v2/summary.json", &headers).await;
    assert!(summary.contains(SECRET), "{summary}");
    let overview = admitted(&app, "/", &headers).await;
    assert!(overview.contains(SECRET));
    // Another domain (the default page's) is not this page.
    let res = get(
        &app,
        "/api/v2/summary.json",
        &[("Host", "status.other.test")],
    )
    .await;
    assert_eq!(res.status(), 200);
    assert!(!res.text().await.unwrap().contains(SECRET));
}

async fn a_private_default_page_refuses_strangers_at_the_sites_root(db: TestDb) {
    // `vault` is the only page, so the default one, served at the site's root.
    let (app, owner) = with_private_vault(db, &["vault"], json!({})).await;
    let (_, page) = app.api(&owner).get("/pages/vault").await;
    assert_eq!(page["is_default"], true, "{page}");
    let access = "/status/vault/access?next=";
    for (tail, html) in REPRESENTATIONS {
        refused(&app, &format!("/{tail}"), html, &[], access).await;
    }
    let token = read_token(&app, &owner, "vault").await;
    let bearer = format!("Bearer {token}");
    let summary = admitted(&app, "/api/v2/summary.json", &[("Authorization", &bearer)]).await;
    assert!(summary.contains(SECRET), "{summary}");
    let pass = password_pass(&app, "vault").await;
    let summary = admitted(&app, "/api/v2/summary.json", &[("Cookie", &pass)]).await;
    assert!(summary.contains(SECRET), "{summary}");
}
