//! Vendors' status, mirrored: a component of this Herald follows a component of a vendor's
//! page, served by a second real Herald process (`herald serve` on its own database, set up
//! through its own command line and API as its operator would).

use std::time::Duration;

use herald::domain::Role;
use herald::workers::runner::Registry;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb, Vendor};
use crate::notify::sinks::Receiver;

on_both_backends!(
    a_vendors_change_arrives_its_incidents_show_as_its_own_and_an_unreachable_vendor_keeps_the_last_status,
    only_subscribers_who_chose_a_mirrored_component_hear_of_its_vendors_changes,
    a_vendor_url_is_checked_at_once_and_private_addresses_are_refused_by_default,
    the_console_follows_a_vendor_and_stops_following,
);

/// Our Herald, reading vendors every second and allowed to reach loopback (the vendor runs
/// on this machine).
async fn ours(db: TestDb) -> TestApp {
    let extra = [
        ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
        ("HERALD_MIRROR_POLL_SECS", "1"),
    ];
    TestApp::spawn_with(db, &extra, Registry::standard()).await
}

/// The component named `name` in our `summary.json`.
async fn component(app: &TestApp, name: &str) -> Value {
    app.refreshed().await;
    let summary: Value = app
        .get("/status/acme/api/v2/summary.json")
        .await
        .json()
        .await
        .unwrap();
    summary["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no component {name} in {summary}"))
}

async fn a_vendors_change_arrives_its_incidents_show_as_its_own_and_an_unreachable_vendor_keeps_the_last_status(
    db: TestDb,
) {
    let mut vendor = Vendor::start().await;
    let app = ours(db).await;
    app.page("acme")
        .with_components(&["Checkout"])
        .create()
        .await;
    let owner = app.token(Role::Owner).await;
    let (status, mirror) = app
        .api(&owner)
        .post(
            "/pages/acme/mirrors",
            json!({"url": vendor.page_url(), "vendor_component": "api"}),
        )
        .await;
    assert_eq!(status, 201, "{mirror}");
    assert_eq!(mirror["vendor"], "Example Cloud");
    assert_eq!(mirror["vendor_component"], "API");
    assert_eq!(mirror["vendor_component_id"], vendor.api_id.as_str());
    assert_eq!(
        mirror["url"],
        format!("{}/api/v2/summary.json", vendor.page_url())
    );
    // Without a component of ours named, one is made, named as the vendor's.
    assert_eq!(mirror["component"], "API");
    assert_eq!(component(&app, "API").await["status"], "operational");

    vendor.set_api("major_outage").await;
    let incident = json!({
        "name": "Elevated API errors",
        "body": "We are looking into failing API requests.",
        "components": {vendor.api_id.clone(): "major_outage"},
    });
    let (status, opened) = vendor.api("POST", "/pages/cloud/incidents", incident).await;
    assert_eq!(status, 201, "{opened}");
    // The poller reads the vendor's summary and the change shows in ours.
    app.wait_for_text("/status/acme/api/v2/summary.json", "major_outage")
        .await;
    assert_eq!(component(&app, "API").await["status"], "major_outage");
    // The vendor's incident shows on the page as the vendor's, not in our own incidents.
    let page = app
        .wait_for_text("/status/acme", "Elevated API errors")
        .await;
    assert!(page.contains("Reported by our vendors"), "{page}");
    assert!(
        page.contains("Example Cloud&#39;s report, not ours"),
        "{page}"
    );
    assert!(page.contains("Status from"), "{page}");
    let unresolved = app
        .get("/status/acme/api/v2/incidents/unresolved.json")
        .await
        .text()
        .await
        .unwrap();
    assert!(!unresolved.contains("Elevated API errors"), "{unresolved}");
    // The change is in the audit log with the vendor as the actor.
    let (_, audit) = app.api(&owner).get("/audit?page=acme").await;
    let text = audit.to_string();
    assert!(text.contains("component.status_by_vendor"), "{text}");
    assert!(text.contains("mirror:Example Cloud"), "{text}");

    // The vendor goes away: the last known status stays, with since when it is unknown.
    vendor.stop();
    let page = app
        .wait_for_text("/status/acme", "could not be read since")
        .await;
    assert!(page.contains("Last known status"), "{page}");
    assert_eq!(component(&app, "API").await["status"], "major_outage");
    let id = mirror["component_id"].as_str().unwrap();
    let (status, state) = app
        .api(&owner)
        .get(&format!("/pages/acme/mirrors/{id}"))
        .await;
    assert_eq!(status, 200);
    assert!(state["failing_since"].is_string(), "{state}");
    assert!(
        state["last_error"]
            .as_str()
            .unwrap()
            .contains("could not connect"),
        "{state}"
    );
    assert_eq!(state["vendor_status"], "major_outage");

    // Stopping following leaves the component with its status, as a component like any other.
    let (status, _) = app
        .api(&owner)
        .delete(&format!("/pages/acme/mirrors/{id}"))
        .await;
    assert_eq!(status, 200);
    let (status, _) = app
        .api(&owner)
        .get(&format!("/pages/acme/mirrors/{id}"))
        .await;
    assert_eq!(status, 404);
    assert_eq!(component(&app, "API").await["status"], "major_outage");
    let page = app.get("/status/acme").await.text().await.unwrap();
    assert!(!page.contains("Status from"), "{page}");
}

async fn only_subscribers_who_chose_a_mirrored_component_hear_of_its_vendors_changes(db: TestDb) {
    let vendor = Vendor::start().await;
    let app = ours(db).await;
    let page = app
        .page("acme")
        .with_components(&["Payments"])
        .create()
        .await;
    let owner = app.token(Role::Owner).await;
    let payments = page.components[0].to_string();
    let (status, mirror) = app
        .api(&owner)
        .post(
            "/pages/acme/mirrors",
            json!({"url": vendor.page_url(), "vendor_component": vendor.api_id, "component_id": payments}),
        )
        .await;
    assert_eq!(status, 201, "{mirror}");
    assert_eq!(mirror["component"], "Payments");
    let receiver = Receiver::start();
    // Subscribed to the whole page, component updates included: not told of a vendor's
    // change. Chose the mirrored component: told.
    app.subscriber("acme")
        .webhook(&receiver.url("/whole"))
        .with(json!({"contact_email": "a@example.com", "component_updates": true}))
        .add(&owner)
        .await;
    app.subscriber("acme")
        .webhook(&receiver.url("/chose"))
        .with(
            json!({"contact_email": "b@example.com", "component_updates": true,
                     "components": [payments]}),
        )
        .add(&owner)
        .await;
    vendor.set_api("partial_outage").await;
    app.wait_for_text("/status/acme/api/v2/summary.json", "partial_outage")
        .await;
    app.deliver_pending().await;
    let told = receiver.wait_for("/chose", 1).await;
    assert_eq!(told[0].json()["event"], "component.vendor_status_changed");
    assert_eq!(
        told[0].json()["component_update"]["new_status"],
        "partial_outage"
    );
    assert_eq!(
        receiver.at("/whole").len(),
        0,
        "a whole-page subscriber is not told"
    );
    // A responder's own change still reaches everyone who asked for component updates.
    let (status, _) = app
        .api(&owner)
        .patch(
            &format!("/pages/acme/components/{payments}"),
            json!({"status": "operational"}),
        )
        .await;
    assert_eq!(status, 200);
    app.deliver_pending().await;
    receiver.wait_for("/whole", 1).await;
    // And the vendor's status, unchanged since, does not take it back: only a change of the
    // vendor's status moves a mirrored component.
    let id = mirror["component_id"].as_str().unwrap().to_owned();
    let before = last_read(&app, &owner, &id).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while last_read(&app, &owner, &id).await == before {
        assert!(
            std::time::Instant::now() < deadline,
            "the vendor was not read again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(component(&app, "Payments").await["status"], "operational");
}

/// When the vendor's page of the mirrored component `id` was last read.
async fn last_read(app: &TestApp, owner: &str, id: &str) -> String {
    let (_, state) = app
        .api(owner)
        .get(&format!("/pages/acme/mirrors/{id}"))
        .await;
    state["confirmed_at"].as_str().unwrap().to_owned()
}

async fn a_vendor_url_is_checked_at_once_and_private_addresses_are_refused_by_default(db: TestDb) {
    let vendor = Vendor::start().await;
    // The defaults: only public addresses, read every minute.
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let owner = app.token(Role::Owner).await;
    let body = json!({"url": vendor.page_url(), "vendor_component": "API"});
    let (status, refused) = app.api(&owner).post("/pages/acme/mirrors", body).await;
    assert_eq!(status, 422, "{refused}");
    let why = refused["fields"]["url"][0].as_str().unwrap();
    assert!(why.contains("loopback"), "{why}");
    assert!(why.contains("HERALD_ALLOW_PRIVATE_WEBHOOKS"), "{why}");
    let (_, listed) = app.api(&owner).get("/pages/acme/mirrors").await;
    assert_eq!(listed, json!([]), "nothing was written");

    let private = ours(TestDb::sqlite()).await;
    private.acme().await;
    let owner = private.token(Role::Owner).await;
    for (body, field, needle) in [
        (
            json!({"url": "ftp://example.com/", "vendor_component": "API"}),
            "url",
            "http",
        ),
        (
            json!({"url": vendor.page_url(), "vendor_component": "Billing"}),
            "vendor_component",
            "it has: API, Dashboard",
        ),
        (
            json!({"url": format!("{}/status/nowhere", vendor.base), "vendor_component": "API"}),
            "url",
            "HTTP 404",
        ),
        (
            json!({"url": format!("{}/healthz", vendor.base), "vendor_component": "API"}),
            "url",
            "HTTP 404",
        ),
    ] {
        let (status, refused) = private.api(&owner).post("/pages/acme/mirrors", body).await;
        assert_eq!(status, 422, "{refused}");
        let why = refused["fields"][field][0].as_str().unwrap_or_default();
        assert!(why.contains(needle), "{field}: {refused}");
    }
    let (status, refused) = private
        .api(&owner)
        .post(
            "/pages/acme/mirrors",
            json!({"url": vendor.page_url(), "vendor_component": "API", "extra": 1}),
        )
        .await;
    assert_eq!(status, 422, "{refused}");
    let responder = private.token(Role::Responder).await;
    let body = json!({"url": vendor.page_url(), "vendor_component": "API"});
    let (status, _) = private
        .api(&responder)
        .post("/pages/acme/mirrors", body)
        .await;
    assert_eq!(status, 403, "owners only");
    let (_, listed) = private.api(&owner).get("/pages/acme/mirrors").await;
    assert_eq!(listed, json!([]), "nothing was written");
    // At the defaults, a mirror's next read is a minute after its last.
    let body = json!({"url": vendor.page_url(), "vendor_component": "API"});
    let (status, made) = private.api(&owner).post("/pages/acme/mirrors", body).await;
    assert_eq!(status, 201, "{made}");
    let read =
        |field: &str| chrono::DateTime::parse_from_rfc3339(made[field].as_str().unwrap()).unwrap();
    assert_eq!(
        read("next_poll_at") - read("confirmed_at"),
        chrono::Duration::seconds(1),
        "this app reads every second"
    );
}

async fn the_console_follows_a_vendor_and_stops_following(db: TestDb) {
    let vendor = Vendor::start().await;
    let app = ours(db).await;
    app.acme().await;
    let owner = Console::sign_in(&app, "owner@example.com", Role::Owner).await;
    let csrf = owner.csrf("/admin/pages/acme/vendors").await;
    let (status, _, body) = owner
        .post(
            "/admin/pages/acme/vendors",
            &[
                ("csrf_token", csrf.as_str()),
                ("url", "not a url"),
                ("vendor_component", ""),
            ],
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("is not a valid URL"), "{body}");
    assert!(body.contains("name the vendor&#39;s component"), "{body}");
    let url = vendor.page_url();
    let (status, location, body) = owner
        .post(
            "/admin/pages/acme/vendors",
            &[
                ("csrf_token", csrf.as_str()),
                ("url", url.as_str()),
                ("vendor_component", "Dashboard"),
                ("component_id", ""),
            ],
        )
        .await;
    assert_eq!(status, 303, "{body}");
    assert_eq!(location, "/admin/pages/acme/vendors");
    let (status, listed) = owner.get("/admin/pages/acme/vendors").await;
    assert_eq!(status, 200);
    assert!(listed.contains("Example Cloud"), "{listed}");
    assert!(listed.contains("data-mirror"), "{listed}");
    let viewer = Console::sign_in(&app, "viewer@example.com", Role::Viewer).await;
    let (status, seen) = viewer.get("/admin/pages/acme/vendors").await;
    assert_eq!(status, 200);
    assert!(
        !seen.contains("Follow a vendor"),
        "viewers do not get the form"
    );
    let stop = listed
        .match_indices("/admin/pages/acme/vendors/")
        .map(|(i, _)| listed[i..].split('"').next().unwrap().to_owned())
        .find(|p| p.ends_with("/delete"))
        .expect("a stop-following button");
    assert_eq!(
        viewer
            .post(&stop, &[("csrf_token", viewer.csrf.as_str())])
            .await
            .0,
        403
    );
    let (status, location, _) = owner.post(&stop, &[("csrf_token", csrf.as_str())]).await;
    assert_eq!(status, 303);
    assert_eq!(location, "/admin/pages/acme/vendors");
    let (_, listed) = owner.get("/admin/pages/acme/vendors").await;
    assert!(!listed.contains("data-mirror"), "{listed}");
}
