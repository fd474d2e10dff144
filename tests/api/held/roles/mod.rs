//! Roles and page boundaries in the API. The README gives the roles in words (owner:
//! everything, pages, users; responder: incidents, maintenance, components' status,
//! postmortems, templates, subscribers; viewer: read only, deliveries included); the matrix
//! below gives each route of `/api/v1` the least role it needs, and every route the API
//! registers must be in it. A token of each role below that one gets 403; one of that role
//! gets past the role check. And a record of one page named under another page's slug is not
//! found there (404), and stays as it was.

use std::collections::BTreeSet;

use herald::domain::{ComponentId, Role};
use herald::workers::Registry;
use serde_json::{Value, json};

use super::Server;
use crate::helpers::{TestApp, TestDb};
use crate::notify::sinks::Receiver;
use matrix::{Body, Route, matrix};

mod matrix;

on_both_backends!(
    each_route_refuses_the_roles_below_its_own_and_admits_its_own,
    a_record_of_one_page_is_not_found_under_another_page,
);

/// A page's records, one (or two, where one is removed) of each kind.
pub(crate) struct Records {
    component: String,
    spare_component: String,
    mirrored_component: String,
    other_component: String,
    group: String,
    spare_group: String,
    incident: String,
    resolved: String,
    maintenance: String,
    template: String,
    spare_template: String,
    integration: String,
    pub(crate) integration_endpoint: String,
    pub(crate) integration_token: String,
    spare_integration: String,
    draft: String,
    spare_draft: String,
    pub(crate) subscriber: String,
    pub(crate) spare_subscriber: String,
    delivery: String,
    read_token: String,
    spare_read_token: String,
    pub(crate) support: String,
}

/// An app reaching loopback (a vendor's page and a webhook receiver run there), the three
/// roles' tokens, and the vendor's summary server.
pub(crate) struct World {
    pub(crate) app: TestApp,
    pub(crate) owner: String,
    responder: String,
    viewer: String,
    vendor: Server,
    hooks: Receiver,
}

impl World {
    pub(crate) async fn spawn(db: TestDb) -> Self {
        Self::spawn_with(db, &[]).await
    }

    /// [`World::spawn`] with settings added.
    pub(crate) async fn spawn_with(db: TestDb, settings: &[(&str, &str)]) -> Self {
        let mut extra = vec![("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
        extra.extend_from_slice(settings);
        let app = TestApp::spawn_with(db, &extra, Registry::standard()).await;
        let owner = app.token(Role::Owner).await;
        let responder = app.token(Role::Responder).await;
        let viewer = app.token(Role::Viewer).await;
        let summary = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/mirror/atlassian_summary.json"
        ))
        .unwrap();
        let vendor = Server::document("application/json", summary);
        let hooks = Receiver::start();
        // Every webhook delivery fails, so that there are deliveries to retry.
        hooks.answer(400);
        Self {
            app,
            owner,
            responder,
            viewer,
            vendor,
            hooks,
        }
    }

    /// POSTs `body` to `path` as the owner, asserting `201`; answers the record.
    pub(crate) async fn made(&self, path: &str, body: Value) -> Value {
        let (status, made) = self.app.api(&self.owner).post(path, body).await;
        assert_eq!(status, 201, "{path}: {made}");
        made
    }

    /// The page `slug` with one record of each kind (made through the API).
    pub(crate) async fn page(&self, slug: &str) -> Records {
        let page = self
            .app
            .page(slug)
            .with_components(&["API", "Spare", "Vendor API", "Website", "Queue"])
            .through_api(&self.owner)
            .create()
            .await;
        let id = |v: &Value| v["id"].as_str().unwrap().to_owned();
        let base = format!("/pages/{slug}");
        let group = id(&self
            .made(&format!("{base}/component-groups"), json!({"name": "Core"}))
            .await);
        let spare_group = id(&self
            .made(&format!("{base}/component-groups"), json!({"name": "Old"}))
            .await);
        let subscriber = self
            .made(
                &format!("{base}/subscribers"),
                json!({"type": "webhook", "url": self.hooks.url(&format!("/{slug}"))}),
            )
            .await;
        let spare_subscriber = self
            .made(
                &format!("{base}/subscribers"),
                json!({"type": "email", "email": format!("spare@{slug}.example.com")}),
            )
            .await;
        let incident = id(&self
            .made(
                &format!("{base}/incidents"),
                json!({"name": "Slow API", "body": "Looking.", "impact": "minor"}),
            )
            .await);
        let resolved = id(&self
            .made(
                &format!("{base}/incidents"),
                json!({"name": "Outage", "body": "Down.", "impact": "major"}),
            )
            .await);
        self.made(
            &format!("{base}/incidents/{resolved}/updates"),
            json!({"status": "resolved", "body": "Fixed."}),
        )
        .await;
        let (status, pm) = self
            .app
            .api(&self.owner)
            .put(
                &format!("{base}/incidents/{resolved}/postmortem"),
                json!({"summary": "What happened.", "root_cause": "A bad deploy."}),
            )
            .await;
        assert_eq!(status, 200, "{pm}");
        let soon = chrono::Utc::now() + chrono::Duration::days(2);
        let maintenance = id(&self
            .made(
                &format!("{base}/maintenances"),
                json!({"name": "Upgrade", "body": "Upgrading.",
                       "scheduled_for": soon.to_rfc3339(),
                       "scheduled_until": (soon + chrono::Duration::hours(1)).to_rfc3339()}),
            )
            .await);
        let template = json!({"name": "API down", "title": "The API is unavailable",
                              "body": "We are investigating.", "impact": "critical"});
        let template_id = id(&self
            .made(&format!("{base}/templates"), template.clone())
            .await);
        let spare_template = id(&self
            .made(
                &format!("{base}/templates"),
                json!({"name": "Old", "title": "Old", "body": "Old.", "impact": "minor"}),
            )
            .await);
        let integration = self
            .made(
                &format!("{base}/integrations"),
                json!({"kind": "generic", "name": "Monitor", "hold_seconds": 0,
                       "template_id": template_id, "incident_mode": "draft"}),
            )
            .await;
        let spare_integration = id(&self
            .made(
                &format!("{base}/integrations"),
                json!({"kind": "generic", "name": "Old"}),
            )
            .await);
        let endpoint = integration["endpoint"].as_str().unwrap().to_owned();
        let endpoint = endpoint.strip_prefix("/api/v1").unwrap().to_owned();
        let token = integration["token"].as_str().unwrap().to_owned();
        // Two proposed incidents: one to publish, one to dismiss.
        for component in ["API", "Queue"] {
            let (status, outcome) = self
                .app
                .api(&token)
                .post(
                    &endpoint,
                    json!({"component": component, "status": "major_outage", "summary": "Down"}),
                )
                .await;
            assert_eq!(status, 200, "{outcome}");
        }
        let (_, drafts) = self
            .app
            .api(&self.owner)
            .get(&format!("{base}/incident-drafts"))
            .await;
        let draft_of = |component: &ComponentId| -> String {
            drafts
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["component_id"] == component.to_string().as_str())
                .and_then(|d| d["id"].as_str())
                .unwrap_or_else(|| panic!("{drafts}"))
                .to_owned()
        };
        let draft = draft_of(&page.components[0]);
        let spare_draft = draft_of(&page.components[4]);
        let read_token = id(&self
            .made(&format!("{base}/read-tokens"), json!({"name": "Wall"}))
            .await);
        let spare_read_token = id(&self
            .made(&format!("{base}/read-tokens"), json!({"name": "Old"}))
            .await);
        let mirror = self
            .made(
                &format!("{base}/mirrors"),
                json!({"url": self.vendor.url("/"), "vendor_component": "API",
                       "component_id": page.components[2].to_string()}),
            )
            .await;
        // A message through the page's support form.
        let key = crate::support::form_key(&self.app).await;
        let form_token = key.mint(
            page.id.as_str(),
            chrono::Utc::now() - chrono::Duration::minutes(1),
        );
        let submitted = self
            .app
            .client
            .post(format!("{}/status/{slug}/api/support", self.app.address))
            .json(
                &json!({"name": "Ada", "email": "ada@example.com", "topic": "other",
                          "message": "I cannot sign in.", "form_token": form_token}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(submitted.status(), 201);
        let support: Value = submitted.json().await.unwrap();
        self.app.deliver_pending().await;
        let (_, deliveries) = self
            .app
            .api(&self.owner)
            .get(&format!("{base}/deliveries?state=failed"))
            .await;
        let delivery = deliveries[0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("a failed delivery: {deliveries}"))
            .to_owned();
        Records {
            component: page.components[0].to_string(),
            spare_component: page.components[1].to_string(),
            mirrored_component: mirror["component_id"].as_str().unwrap().to_owned(),
            other_component: page.components[3].to_string(),
            group,
            spare_group,
            incident,
            resolved,
            maintenance,
            template: template_id,
            spare_template,
            integration: integration["id"].as_str().unwrap().to_owned(),
            integration_endpoint: endpoint,
            integration_token: token,
            spare_integration,
            draft,
            spare_draft,
            subscriber: id(&subscriber),
            spare_subscriber: id(&spare_subscriber),
            delivery,
            read_token,
            spare_read_token,
            support: support["reference"].as_str().unwrap().to_owned(),
        }
    }
}

/// Sends `route`'s request as the holder of `token`; answers the status and the body.
async fn send(app: &TestApp, token: &str, route: &Route) -> (u16, Value) {
    let method = route.method.to_uppercase();
    match &route.body {
        Body::None => app.api(token).send(&method, &route.path, None).await,
        Body::Json(body) => {
            app.api(token)
                .send(&method, &route.path, Some(body.clone()))
                .await
        }
        Body::Raw(content_type, bytes) => {
            assert_eq!(method, "PUT");
            app.api(token)
                .put_bytes(&route.path, content_type, bytes.clone())
                .await
        }
    }
}

/// The one 2xx status the API document gives `method` on `template`.
fn documented_success(document: &Value, method: &str, template: &str) -> u16 {
    let path = format!("{}{template}", herald::http::api::PREFIX);
    let responses = document["paths"][path.as_str()][method]["responses"]
        .as_object()
        .unwrap_or_else(|| panic!("{method} {template} is not in the API document"));
    let successes: Vec<u16> = responses
        .keys()
        .filter_map(|code| code.parse().ok())
        .filter(|code| (200..300).contains(code))
        .collect();
    match successes[..] {
        [one] => one,
        _ => panic!("{method} {template} documents {successes:?} as success"),
    }
}

/// The roles in order of what they may do.
const ROLES: [Role; 3] = [Role::Viewer, Role::Responder, Role::Owner];

fn rank(role: Role) -> usize {
    ROLES.iter().position(|r| *r == role).unwrap()
}

async fn each_route_refuses_the_roles_below_its_own_and_admits_its_own(db: TestDb) {
    let w = World::spawn(db).await;
    let r = w.page("acme").await;
    w.app.page("spare").through_api(&w.owner).create().await;
    w.app.user("other@example.com", Role::Viewer).await;
    let (status, mine) = w
        .app
        .api(&w.viewer)
        .post("/tokens", json!({"name": "to revoke", "expires_days": 7}))
        .await;
    assert_eq!(status, 201, "{mine}");
    let matrix = matrix(&w, &r, mine["id"].as_str().unwrap());

    // The matrix holds every route the API registers (but the alert endpoints, which take an
    // integration's token and no account's, and the open OpenAPI document).
    let covered: BTreeSet<(&str, &str)> = matrix.iter().map(|r| (r.method, r.template)).collect();
    let alerts = ["alertmanager", "grafana", "generic"];
    for &(method, path) in herald::http::api::ROUTES
        .iter()
        .chain(herald::http::api::AUTH_ROUTES)
    {
        if path == "/openapi.json"
            || alerts
                .iter()
                .any(|k| path.ends_with(&format!("/{{id}}/{k}")))
        {
            continue;
        }
        assert!(
            covered.contains(&(method, path)),
            "{method} {path} is not in the matrix"
        );
    }

    let token = |role: Role| match role {
        Role::Owner => w.owner.as_str(),
        Role::Responder => w.responder.as_str(),
        Role::Viewer => w.viewer.as_str(),
    };
    // The role that may gets the one success the served API document gives the operation.
    let (status, document) = w.app.api("").get("/openapi.json").await;
    assert_eq!(status, 200, "{document}");
    for route in &matrix {
        let what = format!("{} {}", route.method, route.path);
        for below in ROLES.iter().filter(|r| rank(**r) < rank(route.least)) {
            let (status, body) = send(&w.app, token(*below), route).await;
            assert_eq!(status, 403, "{what} as {below:?}: {body}");
            assert_eq!(body["error"], "forbidden", "{what} as {below:?}: {body}");
        }
        let success = documented_success(&document, route.method, route.template);
        let (status, body) = send(&w.app, token(route.least), route).await;
        assert_eq!(status, success, "{what} as {:?}: {body}", route.least);
    }
    // And without a token, nothing.
    for route in &matrix {
        let (status, body) = send(&w.app, "", route).await;
        assert_eq!(
            status, 401,
            "{} {} without a token: {body}",
            route.method, route.path
        );
    }
}

async fn a_record_of_one_page_is_not_found_under_another_page(db: TestDb) {
    let w = World::spawn(db).await;
    let a = w.page("acme").await;
    w.app
        .page("beta")
        .with_components(&["API"])
        .through_api(&w.owner)
        .create()
        .await;
    let owner = w.app.api(&w.owner);
    let soon = chrono::Utc::now() + chrono::Duration::days(4);
    let tries: Vec<(&str, String, Option<Value>)> = vec![
        // Maintenances.
        (
            "PATCH",
            format!("/pages/beta/maintenances/{}", a.maintenance),
            Some(json!({"name": "Hijacked"})),
        ),
        (
            "PATCH",
            format!("/pages/beta/maintenances/{}", a.maintenance),
            Some(json!({"scheduled_for": soon.to_rfc3339(),
                     "scheduled_until": (soon + chrono::Duration::hours(1)).to_rfc3339()})),
        ),
        // Postmortems.
        (
            "GET",
            format!("/pages/beta/incidents/{}/postmortem", a.resolved),
            None,
        ),
        (
            "PUT",
            format!("/pages/beta/incidents/{}/postmortem", a.resolved),
            Some(json!({"summary": "Hijacked.", "root_cause": "Hijacked."})),
        ),
        (
            "POST",
            format!("/pages/beta/incidents/{}/postmortem/publish", a.resolved),
            None,
        ),
        // Templates.
        ("GET", format!("/pages/beta/templates/{}", a.template), None),
        (
            "PATCH",
            format!("/pages/beta/templates/{}", a.template),
            Some(
                json!({"name": "Hijacked", "title": "Hijacked", "body": "Hijacked.",
                        "impact": "critical"}),
            ),
        ),
        (
            "DELETE",
            format!("/pages/beta/templates/{}", a.template),
            None,
        ),
        // Integrations.
        (
            "GET",
            format!("/pages/beta/integrations/{}", a.integration),
            None,
        ),
        (
            "PATCH",
            format!("/pages/beta/integrations/{}", a.integration),
            Some(json!({"name": "Hijacked"})),
        ),
        (
            "POST",
            format!("/pages/beta/integrations/{}/token", a.integration),
            Some(json!({})),
        ),
        (
            "DELETE",
            format!("/pages/beta/integrations/{}", a.integration),
            None,
        ),
        (
            "POST",
            format!("/pages/beta/incident-drafts/{}/publish", a.draft),
            Some(json!({})),
        ),
        (
            "DELETE",
            format!("/pages/beta/incident-drafts/{}", a.spare_draft),
            None,
        ),
        // Subscribers.
        (
            "DELETE",
            format!("/pages/beta/subscribers/{}", a.subscriber),
            None,
        ),
        // Read tokens.
        (
            "DELETE",
            format!("/pages/beta/read-tokens/{}", a.read_token),
            None,
        ),
        // Mirrors.
        (
            "GET",
            format!("/pages/beta/mirrors/{}", a.mirrored_component),
            None,
        ),
        (
            "DELETE",
            format!("/pages/beta/mirrors/{}", a.mirrored_component),
            None,
        ),
        // Deliveries (a failed one, which its own page could retry).
        (
            "POST",
            format!("/pages/beta/deliveries/{}/retry", a.delivery),
            None,
        ),
        // Components, groups and incidents, for good measure.
        (
            "PATCH",
            format!("/pages/beta/components/{}", a.other_component),
            Some(json!({"status": "major_outage"})),
        ),
        (
            "DELETE",
            format!("/pages/beta/components/{}", a.spare_component),
            None,
        ),
        (
            "PATCH",
            format!("/pages/beta/component-groups/{}", a.group),
            Some(json!({"name": "Hijacked"})),
        ),
        (
            "DELETE",
            format!("/pages/beta/component-groups/{}", a.spare_group),
            None,
        ),
        (
            "PATCH",
            format!("/pages/beta/incidents/{}", a.incident),
            Some(json!({"name": "Hijacked"})),
        ),
        (
            "POST",
            format!("/pages/beta/incidents/{}/updates", a.incident),
            Some(json!({"status": "resolved", "body": "Hijacked."})),
        ),
    ];
    for (method, path, body) in &tries {
        let (status, answer) = owner.send(method, path, body.clone()).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
        assert_eq!(answer["error"], "not_found", "{method} {path}: {answer}");
    }

    // An integration's alert under the other page's slug, with its own token, is refused.
    let endpoint = a
        .integration_endpoint
        .replacen("/pages/acme/", "/pages/beta/", 1);
    let (status, answer) = w
        .app
        .api(&a.integration_token)
        .post(
            &endpoint,
            json!({"component": "Website", "status": "major_outage", "summary": "x"}),
        )
        .await;
    assert_eq!(status, 401, "{endpoint}: {answer}");

    // Page acme's records are all there, unchanged, under their own page.
    let checks = [
        (
            format!("/pages/acme/templates/{}", a.template),
            "name",
            "API down",
        ),
        (
            format!("/pages/acme/integrations/{}", a.integration),
            "name",
            "Monitor",
        ),
        (
            format!("/pages/acme/incidents/{}", a.incident),
            "name",
            "Slow API",
        ),
    ];
    for (path, field, value) in checks {
        let (status, record) = owner.get(&path).await;
        assert_eq!(
            (status, record[field].as_str()),
            (200, Some(value)),
            "{path}: {record}"
        );
    }
    let (status, mirror) = owner
        .get(&format!("/pages/acme/mirrors/{}", a.mirrored_component))
        .await;
    assert_eq!(status, 200, "{mirror}");
    let (status, pm) = owner
        .get(&format!("/pages/acme/incidents/{}/postmortem", a.resolved))
        .await;
    assert_eq!(status, 200, "{pm}");
    assert_eq!(pm["summary"], "What happened.", "{pm}");
    let listed = |list: &Value, id: &str| {
        list.as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .any(|x| x["id"] == id)
    };
    let (_, subscribers) = owner.get("/pages/acme/subscribers").await;
    assert!(listed(&subscribers, &a.subscriber), "{subscribers}");
    let (_, tokens) = owner.get("/pages/acme/read-tokens").await;
    assert!(listed(&tokens, &a.read_token), "{tokens}");
    let (_, drafts) = owner.get("/pages/acme/incident-drafts").await;
    assert!(
        listed(&drafts, &a.draft) && listed(&drafts, &a.spare_draft),
        "{drafts}"
    );
    let (_, maintenances) = owner.get("/pages/acme/maintenances").await;
    let kept = maintenances
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == a.maintenance.as_str())
        .unwrap_or_else(|| panic!("{maintenances}"));
    assert_eq!(kept["name"], "Upgrade", "{kept}");
    let (_, components) = owner.get("/pages/acme/components").await;
    assert!(listed(&components, &a.spare_component), "{components}");
    assert!(
        components
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == a.other_component.as_str() && c["status"] == "operational"),
        "{components}"
    );
    // The integration's token still works on its own page (it was not rotated).
    let (status, answer) = w
        .app
        .api(&a.integration_token)
        .post(
            &a.integration_endpoint,
            json!({"component": "Website", "status": "degraded_performance", "summary": "x"}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    // The failed delivery is still its page's to retry.
    let (status, retried) = owner
        .send(
            "POST",
            &format!("/pages/acme/deliveries/{}/retry", a.delivery),
            None,
        )
        .await;
    assert_eq!(status, 200, "{retried}");
}
