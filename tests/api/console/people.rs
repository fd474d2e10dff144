//! Owners manage accounts; everyone manages their API tokens; owners read the audit log of
//! console writes.

use chrono::Utc;
use herald::domain::Role;

use super::{NEW, open_at};
use crate::helpers::Console;
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    owners_add_accounts_change_roles_and_remove_them,
    a_token_is_shown_once_works_and_is_revoked,
    console_writes_are_in_the_audit_log_for_owners
);

async fn owners_add_accounts_change_roles_and_remove_them(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let csrf = owner.csrf.clone();
    let short = [
        ("csrf_token", csrf.as_str()),
        ("email", "new@example.com"),
        ("role", "viewer"),
        ("password", "short"),
    ];
    let (status, _, body) = owner.post("/admin/users", &short).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("at least 12 characters") && body.contains(r#"value="new@example.com""#));
    assert!(body.contains(r#"<option value="viewer" selected>"#) && !body.contains("short\""));
    let add = [
        ("csrf_token", csrf.as_str()),
        ("email", "new@example.com"),
        ("role", "responder"),
        ("password", ""),
    ];
    let (status, _, body) = owner.post("/admin/users", &add).await;
    assert_eq!(status, 200, "{body}");
    let marker = "<code data-secret>";
    let start = body.find(marker).expect("the generated password is shown") + marker.len();
    let password = body[start..].split('<').next().unwrap().to_owned();
    let (status, _, _) = owner.post("/admin/users", &add).await;
    assert_eq!(status, 422, "a taken email is a field error");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = app
        .post_sign_in(&client, "new@example.com", &password)
        .await;
    assert_eq!(res.status(), 303, "the new account signs in");

    let (_, list) = owner.get("/admin/users").await;
    let ids: Vec<String> = list
        .match_indices("/admin/users/")
        .map(|(i, _)| list[i..].split('"').next().unwrap().to_owned())
        .filter(|p| p.ends_with("/role"))
        .collect();
    assert_eq!(ids.len(), 2);
    // Each row names the account before its forms: the first role form after "(you)" is mine.
    let own = list.find("(you)").unwrap();
    let (mine, theirs) = if list.find(&ids[0]).unwrap() > own {
        (&ids[0], &ids[1])
    } else {
        (&ids[1], &ids[0])
    };
    let demote = [("csrf_token", csrf.as_str()), ("role", "viewer")];
    let (status, _, body) = owner.post(mine, &demote).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("the last owner cannot lose the owner role"),
        "{body}"
    );
    assert_eq!(owner.post(theirs, &demote).await.0, 303);
    let (_, list) = owner.get("/admin/users").await;
    assert_eq!(
        list.matches(r#"<option value="viewer" selected>"#).count(),
        1
    );

    let responder = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    assert_eq!(responder.get("/admin/users").await.0, 403);
    let sneaky = [("csrf_token", responder.csrf.as_str()), ("role", "owner")];
    assert_eq!(responder.post(theirs, &sneaky).await.0, 403);

    let delete = [("csrf_token", csrf.as_str())];
    let remove = theirs.replace("/role", "/delete");
    assert_eq!(owner.post(&remove, &delete).await.0, 303);
    let (_, list) = owner.get("/admin/users").await;
    assert!(!list.contains("new@example.com"), "{list}");
    assert_eq!(
        owner
            .post(&mine.replace("/role", "/delete"), &delete)
            .await
            .0,
        422
    );
}

async fn a_token_is_shown_once_works_and_is_revoked(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let csrf = viewer.csrf.clone();
    let bad = [
        ("csrf_token", csrf.as_str()),
        ("name", "ci"),
        ("expires_days", "0"),
    ];
    let (status, _, body) = viewer.post("/admin/tokens", &bad).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("must be between 1 and") && body.contains(r#"value="ci""#));
    let fields = [
        ("csrf_token", csrf.as_str()),
        ("name", "ci"),
        ("expires_days", "30"),
    ];
    let (status, _, body) = viewer.post("/admin/tokens", &fields).await;
    assert_eq!(status, 200, "{body}");
    let marker = "<code data-secret class=\"console-secret\">";
    let start = body.find(marker).expect("the secret is shown") + marker.len();
    let secret = body[start..].split('<').next().unwrap().to_owned();
    let me = async |token: &str| app.api(token).get("/me").await.0;
    assert_eq!(me(&secret).await, 200);
    let (_, list) = viewer.get("/admin/tokens").await;
    assert!(!list.contains(&secret), "the secret is shown only once");
    let start = list.find("/admin/tokens/").expect("a revoke form");
    let revoke = list[start..].split('"').next().unwrap().to_owned();
    assert_eq!(viewer.post(&revoke, &[("name", "x")]).await.0, 403, "CSRF");
    let (status, location, _) = viewer.post(&revoke, &[("csrf_token", csrf.as_str())]).await;
    assert_eq!((status, location.as_str()), (303, "/admin/tokens"));
    assert_eq!(me(&secret).await, 401);
    let (_, list) = viewer.get("/admin/tokens").await;
    assert!(list.contains("Revoked"));
    let for_owner = [
        ("csrf_token", csrf.as_str()),
        ("name", "theirs"),
        ("email", "owner@example.com"),
    ];
    assert_eq!(viewer.post("/admin/tokens", &for_owner).await.0, 403);
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let for_viewer = [
        ("csrf_token", owner.csrf.as_str()),
        ("name", "for the viewer"),
        ("email", "viewer@example.com"),
    ];
    let (status, _, body) = owner.post("/admin/tokens", &for_viewer).await;
    assert_eq!(status, 200, "{body}");
    let (_, list) = viewer.get("/admin/tokens").await;
    assert!(
        list.contains("for the viewer"),
        "the viewer sees the token made for them"
    );
    let nobody = [
        ("csrf_token", owner.csrf.as_str()),
        ("name", "x"),
        ("email", "nobody@example.com"),
    ];
    let (status, _, body) = owner.post("/admin/tokens", &nobody).await;
    assert_eq!(status, 422);
    assert!(body.contains("no account has this email") && body.contains("nobody@example.com"));
}

async fn console_writes_are_in_the_audit_log_for_owners(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let acme = app.acme().await;
    let (page_id, component) = (acme.id, acme.components[0].clone());
    open_at(&app, &page_id, "Old trouble", Utc::now()).await;
    let responder = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    let csrf = responder.csrf.clone();
    let open = [
        ("csrf_token", csrf.as_str()),
        ("name", "Audited incident"),
        ("body", "Opened in the console."),
    ];
    let (status, incident, _) = responder.post(NEW, &open).await;
    assert_eq!(status, 303);
    let update = [
        ("csrf_token", csrf.as_str()),
        ("status", "identified"),
        ("body", "Found it."),
    ];
    assert_eq!(
        responder
            .post(&format!("{incident}/updates"), &update)
            .await
            .0,
        303
    );
    let status_form = [("csrf_token", csrf.as_str()), ("status", "major_outage")];
    let action = format!("/admin/pages/acme/components/{component}/status");
    assert_eq!(responder.post(&action, &status_form).await.0, 303);
    assert_eq!(responder.get("/admin/audit").await.0, 403);

    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let (status, log) = owner.get("/admin/audit").await;
    assert_eq!(status, 200, "{log}");
    for action in [
        "incident.create",
        "incident.update_posted",
        "component.update",
    ] {
        assert!(
            log.contains(&format!("<code>{action}</code>")),
            "{action}: {log}"
        );
    }
    assert!(log.contains("responder@example.com") && log.contains("Audited incident"));
    assert!(
        log.contains("major_outage") && !log.contains(&csrf),
        "no token in the log"
    );
    let (_, mine) = owner.get("/admin/audit?actor=owner%40example.com").await;
    assert!(mine.contains("No recorded changes match."), "{mine}");
    let (_, theirs) = owner
        .get("/admin/audit?page=acme&actor=responder%40example.com")
        .await;
    assert_eq!(theirs.matches("data-audit-row").count(), 3, "{theirs}");
}
