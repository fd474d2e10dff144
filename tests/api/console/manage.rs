//! Owners manage a page through the console: components and groups, and the page's settings.
//! Responders and viewers are refused.

use herald::domain::Role;

use crate::helpers::Console;
use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    owners_manage_components_and_groups_and_the_public_page_follows,
    responders_cannot_restructure_components,
    owners_change_the_page_settings,
    a_template_made_in_the_console_prefills_the_incident_form,
    owners_create_a_page_from_the_console
);

async fn owners_manage_components_and_groups_and_the_public_page_follows(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let api = app.acme().await.components.remove(0);
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let csrf = owner.csrf.clone();
    let group = [
        ("csrf_token", csrf.as_str()),
        ("name", "Core services"),
        ("description", "What everything needs"),
    ];
    let list = "/admin/pages/acme/components";
    let (status, location, body) = owner.post("/admin/pages/acme/groups/new", &group).await;
    assert_eq!((status, location.as_str()), (303, list), "{body}");
    let (_, page) = owner.get(list).await;
    let group_path = page
        .match_indices("/admin/pages/acme/groups/")
        .map(|(i, _)| page[i..].split('"').next().unwrap().to_owned())
        .find(|p| !p.ends_with("/new"))
        .expect("group edit link");
    let group_id = group_path.rsplit('/').next().unwrap().to_owned();

    let blank = [
        ("csrf_token", csrf.as_str()),
        ("name", " "),
        ("region", "eu-west"),
        ("group_id", group_id.as_str()),
        ("position", "first"),
    ];
    let (status, _, body) = owner.post(&format!("{list}/new"), &blank).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains(r#"class="field-error" role="alert">must not be blank"#),
        "{body}"
    );
    assert!(body.contains("is not a whole number") && body.contains(r#"value="eu-west""#));
    assert!(body.contains(&format!(r#"<option value="{group_id}" selected>"#)));

    let new = [
        ("csrf_token", csrf.as_str()),
        ("name", "Database"),
        ("region", "eu-west"),
        ("group_id", group_id.as_str()),
        ("description", ""),
        ("position", ""),
    ];
    let (status, _, body) = owner.post(&format!("{list}/new"), &new).await;
    assert_eq!(status, 303, "{body}");
    let shown = app
        .wait_for_text("/status/acme/api/v2/components.json", "Database")
        .await;
    assert!(shown.contains("Core services"), "{shown}");

    let rename = [
        ("csrf_token", csrf.as_str()),
        ("name", "Public REST API"),
        ("description", "api.acme.example"),
        ("group_id", ""),
        ("region", "us-east"),
        ("position", "7"),
    ];
    let (status, _, body) = owner.post(&format!("{list}/{api}"), &rename).await;
    assert_eq!(status, 303, "{body}");
    let (_, form) = owner.get(&format!("{list}/{api}")).await;
    assert!(form.contains(r#"value="Public REST API""#) && form.contains(r#"value="7""#));
    app.wait_for_text("/status/acme/api/v2/components.json", "Public REST API")
        .await;

    let rename_group = [
        ("csrf_token", csrf.as_str()),
        ("name", "Core"),
        ("position", ""),
    ];
    assert_eq!(owner.post(&group_path, &rename_group).await.0, 303);
    let (_, page) = owner.get(list).await;
    assert!(
        page.contains(">Core<") || page.contains("<th scope=\"row\">Core</th>"),
        "{page}"
    );

    let delete = [("csrf_token", csrf.as_str())];
    let (status, _, _) = owner.post(&format!("{list}/{api}/delete"), &delete).await;
    assert_eq!(status, 303);
    app.wait_for_text_gone("/status/acme/api/v2/components.json", "Public REST API")
        .await;
    assert_eq!(
        owner.post(&format!("{group_path}/delete"), &delete).await.0,
        303
    );
    let (_, page) = owner.get(list).await;
    assert!(
        page.contains("This page has no component groups."),
        "{page}"
    );
    assert!(page.contains("Database"), "its components stay");
    assert_eq!(owner.post(&format!("{list}/{api}"), &rename).await.0, 404);
}

async fn responders_cannot_restructure_components(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let api = app.acme().await.components.remove(0);
    let list = "/admin/pages/acme/components";
    for role in [Role::Responder, Role::Viewer] {
        let email = format!("{}@example.com", role.as_str());
        let user = Console::sign_in(&app, &email, role).await;
        let (_, page) = user.get(list).await;
        assert!(!page.contains("Add a component"), "{page}");
        assert_eq!(user.get(&format!("{list}/new")).await.0, 403);
        assert_eq!(user.get(&format!("{list}/{api}")).await.0, 403);
        let fields = [("csrf_token", user.csrf.as_str()), ("name", "Sneaky")];
        for path in [
            format!("{list}/new"),
            format!("{list}/{api}"),
            format!("{list}/{api}/delete"),
            "/admin/pages/acme/groups/new".to_owned(),
            "/admin/pages/acme/settings".to_owned(),
        ] {
            assert_eq!(user.post(&path, &fields).await.0, 403, "{role:?} {path}");
        }
    }
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let no_token = [("name", "Forged")];
    assert_eq!(owner.post(&format!("{list}/new"), &no_token).await.0, 403);
}

async fn owners_change_the_page_settings(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let path = "/admin/pages/acme/settings";
    let (status, form) = owner.get(path).await;
    assert_eq!(status, 200);
    assert!(
        form.contains(r#"value="Acme""#) && form.contains(r#"value="UTC""#),
        "{form}"
    );
    let csrf = owner.csrf.clone();
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("name", "Acme Cloud"),
        ("slug", "acme"),
        ("description", ""),
        ("time_zone", "Mars/Olympus"),
        ("support_email", "help@acme.example"),
        ("custom_domain", "status.acme.example"),
        ("public_url", ""),
        ("interval_none", ""),
        ("interval_minor", "90"),
        ("interval_major", "2"),
        ("interval_critical", "15"),
        ("is_public", "yes"),
    ];
    let (status, _, body) = owner.post(path, &fields).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("must be between 5 and 1440 minutes"),
        "{body}"
    );
    assert!(body.contains(r#"value="Mars/Olympus""#) && body.contains(r#"value="Acme Cloud""#));
    fields[10] = ("interval_major", "30");
    let (status, _, body) = owner.post(path, &fields).await;
    assert_eq!(status, 422, "the zone is checked by the service: {body}");
    assert!(body.contains("Mars/Olympus") && body.contains(r#"value="30""#));
    fields[4] = ("time_zone", "Europe/Berlin");
    let (status, location, body) = owner.post(path, &fields).await;
    assert_eq!((status, location.as_str()), (303, path), "{body}");
    let (_, form) = owner.get(path).await;
    assert!(form.contains(r#"value="Europe/Berlin""#) && form.contains(r#"value="30""#));
    assert!(form.contains(r#"value="help@acme.example""#));
    app.wait_for_text("/status/acme", "Acme Cloud").await;
    let wrong = [("csrf_token", csrf.as_str()), ("confirm", "acm")];
    let (status, _, body) = owner.post("/admin/pages/acme/delete", &wrong).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("type acme to confirm") && body.contains(r#"value="acm""#));
    let responder = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    let theirs = [("csrf_token", responder.csrf.as_str()), ("confirm", "acme")];
    assert_eq!(
        responder.post("/admin/pages/acme/delete", &theirs).await.0,
        403
    );
    let right = [("csrf_token", csrf.as_str()), ("confirm", "acme")];
    let (status, location, _) = owner.post("/admin/pages/acme/delete", &right).await;
    assert_eq!((status, location.as_str()), (303, "/admin"));
    assert_eq!(owner.get(path).await.0, 404);
    let (_, log) = owner.get("/admin/audit").await;
    assert!(log.contains("<code>page.delete</code>"), "{log}");
}

async fn a_template_made_in_the_console_prefills_the_incident_form(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let api = app.acme().await.components.remove(0);
    let responder = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    let csrf = responder.csrf.clone();
    let list = "/admin/pages/acme/templates";
    let field = format!("component.{api}");
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("name", "API down"),
        ("title", ""),
        ("impact", "critical"),
        ("body", "The API is **unavailable**."),
        (field.as_str(), "major_outage"),
    ];
    let (status, _, body) = responder.post(&format!("{list}/new"), &fields).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("must not be blank") && body.contains(r#"value="API down""#));
    fields[2] = ("title", "API unavailable");
    let (status, location, body) = responder.post(&format!("{list}/new"), &fields).await;
    assert_eq!((status, location.as_str()), (303, list), "{body}");
    let (status, _, body) = responder.post(&format!("{list}/new"), &fields).await;
    assert_eq!(status, 422, "a taken name is a field message");
    assert!(
        body.contains("another template of this page has this name"),
        "{body}"
    );
    let (_, page) = responder.get(list).await;
    let start = page.find("incidents/new?template=").expect("a use link");
    let id = page[start..]
        .split('"')
        .next()
        .unwrap()
        .rsplit('=')
        .next()
        .unwrap();
    let (status, form) = responder
        .get(&format!("/admin/pages/acme/incidents/new?template={id}"))
        .await;
    assert_eq!(status, 200);
    assert!(form.contains(r#"value="API unavailable""#), "{form}");
    assert!(form.contains(r#"<option value="critical" selected>"#));
    assert!(
        form.contains(&format!(r#"name="{field}" value="major_outage" checked>"#)),
        "the template's status is chosen in the grid: {form}"
    );
    assert!(form.contains("The API is **unavailable**."));
    // One click away: the dashboard links each template of each page.
    let (_, dashboard) = responder.get("/admin").await;
    let link = format!(
        r#"<a class="chip" href="/admin/pages/acme/incidents/new?template={id}">API down</a>"#
    );
    assert!(dashboard.contains(&link), "{dashboard}");
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    assert_eq!(viewer.get(list).await.0, 403);
    let delete = format!("{list}/{id}/delete");
    let token = [("csrf_token", viewer.csrf.as_str())];
    assert_eq!(viewer.post(&delete, &token).await.0, 403);
    assert_eq!(
        responder
            .post(&delete, &[("csrf_token", csrf.as_str())])
            .await
            .0,
        303
    );
    let (_, page) = responder.get(list).await;
    assert!(page.contains("This page has no incident templates."));
}

async fn owners_create_a_page_from_the_console(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let (_, dashboard) = owner.get("/admin").await;
    assert!(dashboard.contains(r#"href="/admin/pages/new""#));
    let csrf = owner.csrf.clone();
    let taken = [
        ("csrf_token", csrf.as_str()),
        ("name", "Beta"),
        ("slug", "acme"),
        ("time_zone", "Asia/Tokyo"),
    ];
    let (status, _, body) = owner.post("/admin/pages/new", &taken).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("already used by another page") && body.contains("Asia/Tokyo"));
    let fresh = [
        ("csrf_token", csrf.as_str()),
        ("name", "Beta"),
        ("slug", "beta"),
        ("time_zone", "Asia/Tokyo"),
    ];
    let (status, location, body) = owner.post("/admin/pages/new", &fresh).await;
    assert_eq!(status, 303, "{body}");
    assert_eq!(location, "/admin/pages/beta/settings");
    app.wait_for_page("/status/beta").await;
    let (_, log) = owner.get("/admin/audit?page=beta").await;
    assert!(log.contains("<code>page.create</code>"), "{log}");
    let responder = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    assert_eq!(responder.get("/admin/pages/new").await.0, 403);
    let sneaky = [("csrf_token", responder.csrf.as_str()), ("slug", "gamma")];
    assert_eq!(responder.post("/admin/pages/new", &sneaky).await.0, 403);
}
