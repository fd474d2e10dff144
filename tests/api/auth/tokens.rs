//! API tokens: issued by the CLI and the API, accepted only when genuine, current and unrevoked.

use herald::domain::Role;
use herald::services::auth::jwt::{Claims, Kind};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb};
use crate::process::herald;

on_both_backends!(
    a_token_created_by_the_cli_authenticates_its_user,
    the_cli_refuses_an_unknown_email_and_bad_flags_with_exit_2,
    forged_none_wrong_algorithm_wrong_key_and_expired_tokens_get_401,
    a_revoked_token_gets_401_at_once,
    a_demoted_user_loses_rights_at_once,
    owners_list_every_token_and_others_only_their_own,
    a_token_cannot_make_one_that_outlives_it_and_each_creation_and_revocation_is_audited,
);

fn cli_token(app: &TestApp, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = herald(dir.path())
        .args(["token", "create"])
        .args(args)
        .env("DATABASE_URL", app.test_db.url())
        .output()
        .expect("herald runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

async fn token_for(app: &TestApp, email: &str) -> String {
    let (code, out, err) = cli_token(app, &["--email", email, "--name", "test"]);
    assert_eq!(code, 0, "{err}");
    out.trim().to_owned()
}

async fn a_token_created_by_the_cli_authenticates_its_user(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let id = app.user("ops@example.com", Role::Owner).await;
    let (code, out, err) = cli_token(&app, &["--email", "Ops@Example.com"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1, "the token alone on stdout: {out}");
    assert!(
        !err.contains(out.trim()),
        "the token never reaches the logs"
    );
    let (status, body) = app.api(out.trim()).get("/me").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"id": id, "email": "ops@example.com", "role": "owner"})
    );
}

async fn the_cli_refuses_an_unknown_email_and_bad_flags_with_exit_2(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let (code, out, err) = cli_token(&app, &["--email", "nobody@example.com"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("no account has the email nobody@example.com"),
        "{err}"
    );
    let (code, _, err) = cli_token(&app, &["--email", "ops@example.com", "--expires-days", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--expires-days"), "{err}");
    let (code, _, _) = cli_token(&app, &["--email", "ops@example.com", "--expires-days", "x"]);
    assert_eq!(code, 2);
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

async fn forged_none_wrong_algorithm_wrong_key_and_expired_tokens_get_401(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let user_id = app.user("ops@example.com", Role::Owner).await;
    let genuine = token_for(&app, "ops@example.com").await;
    assert_eq!(app.api(&genuine).get("/me").await.0, 200);
    let jti = jsonwebtoken::dangerous::insecure_decode::<Claims>(&genuine)
        .unwrap()
        .claims
        .jti;
    let key = app.server_key().await;
    let now = chrono::Utc::now().timestamp();
    let claims = |exp: i64| Claims {
        sub: user_id.clone(),
        jti: jti.clone(),
        exp,
        iat: now,
        typ: Kind::Api,
    };
    let sign = |alg, key: &[u8], c: &Claims| {
        jsonwebtoken::encode(&Header::new(alg), c, &EncodingKey::from_secret(key)).unwrap()
    };
    let payload = b64(&serde_json::to_vec(&claims(now + 600)).unwrap());
    let none = format!("{}.{payload}.", b64(br#"{"alg":"none","typ":"JWT"}"#));
    let rs256_header = format!("{}.{payload}", b64(br#"{"alg":"RS256","typ":"JWT"}"#));
    let (_, signature) = genuine.rsplit_once('.').unwrap();
    let refused = [
        ("alg none", none),
        (
            "HS512 with the right key",
            sign(Algorithm::HS512, &key, &claims(now + 600)),
        ),
        ("RS256 header", format!("{rs256_header}.{signature}")),
        (
            "HS256 with another key",
            sign(Algorithm::HS256, b"not the key", &claims(now + 600)),
        ),
        ("expired", sign(Algorithm::HS256, &key, &claims(now - 10))),
        (
            "tampered payload",
            format!(
                "{}.{payload}.{signature}",
                b64(br#"{"alg":"HS256","typ":"JWT"}"#)
            ),
        ),
        ("garbage", "not.a.token".to_owned()),
    ];
    for (what, token) in refused {
        let (status, body) = app.api(&token).get("/me").await;
        assert_eq!(status, 401, "{what}: {body}");
        assert_eq!(body["error"], "unauthorized", "{what}");
    }
    let fresh = sign(Algorithm::HS256, &key, &claims(now + 600));
    assert_eq!(
        app.api(&fresh).get("/me").await.0,
        200,
        "a genuine re-signing works"
    );
}

async fn a_revoked_token_gets_401_at_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Responder).await;
    let admin = token_for(&app, "ops@example.com").await;
    let (status, created) = app
        .api(&admin)
        .post("/tokens", json!({"name": "deploy bot"}))
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["name"], "deploy bot");
    let secret = created["token_secret"].as_str().unwrap();
    assert_eq!(app.api(secret).get("/me").await.0, 200);
    let path = format!("/tokens/{}", created["id"].as_str().unwrap());
    let (status, revoked) = app.api(&admin).delete(&path).await;
    assert_eq!(status, 200);
    assert!(revoked["revoked_at"].is_string(), "{revoked}");
    assert_eq!(app.api(secret).get("/me").await.0, 401);
    assert_eq!(
        app.api(&admin).get("/me").await.0,
        200,
        "other tokens still work"
    );
}

async fn a_demoted_user_loses_rights_at_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let id = app.user("ops@example.com", Role::Owner).await;
    app.user("bob@example.com", Role::Viewer).await;
    let token = token_for(&app, "ops@example.com").await;
    let for_bob = json!({"email": "bob@example.com"});
    assert_eq!(
        app.api(&token).post("/tokens", for_bob.clone()).await.0,
        201
    );
    app.db
        .run(move |c| {
            use diesel::prelude::*;
            use herald::db::schema::users;
            diesel::update(users::table.find(id))
                .set(users::role.eq("viewer"))
                .execute(c)
                .map_err(Into::into)
        })
        .await
        .unwrap();
    let (status, body) = app.api(&token).post("/tokens", for_bob).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")));
    assert_eq!(app.api(&token).get("/me").await.1["role"], "viewer");
}

async fn owners_list_every_token_and_others_only_their_own(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.user("owner@example.com", Role::Owner).await;
    let bob_id = app.user("bob@example.com", Role::Responder).await;
    let owner = token_for(&app, "owner@example.com").await;
    let bob = token_for(&app, "bob@example.com").await;
    let list = async |token: &str| {
        let (status, tokens) = app.api(token).get("/tokens").await;
        assert_eq!(status, 200);
        tokens.as_array().unwrap().clone()
    };
    assert_eq!(list(&owner).await.len(), 2);
    let own = list(&bob).await;
    assert_eq!(own.len(), 1);
    assert_eq!(own[0]["user_id"], bob_id.as_str());
    assert!(
        own[0]["last_used_at"].is_string(),
        "use is recorded: {}",
        own[0]
    );
    assert!(
        own[0].get("token_secret").is_none(),
        "secrets are shown once only"
    );
    let (status, _) = app
        .api(&bob)
        .post("/tokens", json!({"email": "owner@example.com"}))
        .await;
    assert_eq!(status, 403, "a responder cannot issue tokens for others");
    let owner_token_id = list(&owner)
        .await
        .into_iter()
        .find(|t| t["user_id"] != bob_id.as_str())
        .unwrap()["id"]
        .clone();
    let path = format!("/tokens/{}", owner_token_id.as_str().unwrap());
    let (status, _) = app.api(&bob).delete(&path).await;
    assert_eq!(status, 404, "another user's token is not found");
}

#[test]
fn an_operator_adds_a_user_then_a_cli_token_works_against_herald_serve() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("herald.db").display());
    crate::process::add_owner(dir.path(), &url, "ops@example.com");
    let serving = crate::process::Serving::start(dir.path(), &url, &[]);
    let token = crate::process::create_token(dir.path(), &url, "ops@example.com");
    let me: Value = reqwest::blocking::Client::new()
        .get(format!("http://127.0.0.1:{}/api/v1/me", serving.port))
        .bearer_auth(token.trim())
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(me["email"], "ops@example.com");
    assert_eq!(me["role"], "owner");
    assert!(
        !serving.log_text().contains(token.trim()),
        "the token is never logged"
    );
}

async fn a_token_cannot_make_one_that_outlives_it_and_each_creation_and_revocation_is_audited(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    app.user("ops@example.com", Role::Owner).await;
    let (code, out, err) = cli_token(
        &app,
        &[
            "--email",
            "ops@example.com",
            "--name",
            "weekly",
            "--expires-days",
            "7",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let weekly = out.trim().to_owned();
    let (status, body) = app
        .api(&weekly)
        .post("/tokens", json!({"name": "forever", "expires_days": 3650}))
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["fields"]["expires_days"][0],
        "must not outlive the token making this request (7 days at most)"
    );
    // A misspelt field is refused by its name, as on every route, and makes no token.
    let (status, body) = app
        .api(&weekly)
        .post("/tokens", json!({"name": "typo", "expires_dayz": 1}))
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(body["fields"]["expires_dayz"].is_array(), "{body}");
    let (status, created) = app
        .api(&weekly)
        .post("/tokens", json!({"name": "bot", "expires_days": 7}))
        .await;
    assert_eq!(status, 201, "{created}");
    let (_, list) = app.api(&weekly).get("/tokens").await;
    let tokens = list.as_array().unwrap();
    assert!(tokens.iter().all(|t| t["name"] != "typo"), "{list}");
    let expiry = |name: &str| {
        tokens.iter().find(|t| t["name"] == name).unwrap()["expires_at"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(
        expiry("bot") <= expiry("weekly"),
        "it ends with its maker: {list}"
    );
    let id = created["id"].as_str().unwrap();
    let (status, _) = app.api(&weekly).delete(&format!("/tokens/{id}")).await;
    assert_eq!(status, 200);
    let (status, audit) = app.api(&weekly).get("/audit").await;
    assert_eq!(status, 200, "{audit}");
    let actions: Vec<(&str, &str)> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["entity_id"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [("token.revoke", id), ("token.create", id)],
        "{audit}"
    );
    assert_eq!(audit[1]["changes"]["expires_days"], 7, "{audit}");
    assert_eq!(audit[1]["actor_email"], "ops@example.com", "{audit}");
}
