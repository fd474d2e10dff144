//! Subscribers and the notification fan-out, against a real SMTP server and a real HTTP
//! receiver on loopback: double opt-in, no enumeration, one-click unsubscribe, component
//! filters and the critical override, `notify: false`, threading headers, the webhook body and
//! its signature, SSRF refusals, rate limits, the responder API, and a crash mid fan-out.

mod crash;
mod expansion;
mod outages;
pub mod sinks;
mod timing;

use std::time::Duration;

use base64::Engine;
use herald::domain::{PageId, Role};
use herald::workers::Registry;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb};
use sinks::{Receiver, SmtpSink};

on_both_backends!(
    email_subscribers_confirm_first_and_the_answer_never_tells_whether_an_address_was_known,
    a_one_click_post_to_the_list_unsubscribe_link_stops_the_mail,
    a_cancelled_subscriptions_links_stop_working_and_a_renewed_one_gets_new_ones,
    component_filters_apply_except_that_a_critical_incident_reaches_everyone,
    an_update_posted_with_notify_false_sends_nothing,
    every_update_of_an_incident_threads_under_its_first_message,
    webhooks_carry_the_statuspage_shape_and_a_standard_webhooks_signature,
    private_webhook_destinations_are_refused_and_subscribing_is_rate_limited,
    a_refused_webhook_url_does_not_use_up_the_limit_of_its_target,
    responders_list_export_remove_subscribers_and_retry_failed_deliveries,
    responders_are_reminded_before_a_promised_update_and_told_once_it_is_overdue,
    the_subscribe_form_works_without_javascript,
    the_console_lists_subscribers_and_deliveries_and_retries_a_failed_one,
    console_and_api_writes_wake_the_engine_without_waiting_for_its_poll,
);

/// An app with an SMTP sink and a webhook receiver, a token and a page `acme` with the
/// components API and Website.
pub struct Setup {
    pub app: TestApp,
    pub token: String,
    pub components: Vec<herald::domain::ComponentId>,
    pub smtp: SmtpSink,
    pub hooks: Receiver,
}

impl Setup {
    pub async fn spawn(db: TestDb) -> Self {
        Self::spawn_with(db, true).await
    }

    pub async fn spawn_with(db: TestDb, allow_private: bool) -> Self {
        let smtp = SmtpSink::start();
        let smtp_url = smtp.url();
        Self::build(db, allow_private, smtp, &smtp_url).await
    }

    /// A setup whose Herald sends mail to `smtp_url` (not necessarily the sink's).
    pub async fn spawn_mailing_to(db: TestDb, smtp_url: &str) -> Self {
        Self::build(db, true, SmtpSink::start(), smtp_url).await
    }

    /// A setup whose engine polls the database only every `poll` (so that only a wake-up
    /// makes it send sooner).
    pub async fn spawn_polling_every(db: TestDb, poll: Duration) -> Self {
        let smtp = SmtpSink::start();
        let smtp_url = smtp.url();
        Self::build_with(db, true, smtp, &smtp_url, Some(poll)).await
    }

    async fn build(db: TestDb, allow_private: bool, smtp: SmtpSink, smtp_url: &str) -> Self {
        Self::build_with(db, allow_private, smtp, smtp_url, None).await
    }

    async fn build_with(
        db: TestDb,
        allow_private: bool,
        smtp: SmtpSink,
        smtp_url: &str,
        poll: Option<Duration>,
    ) -> Self {
        let hooks = Receiver::start();
        let allow = if allow_private { "true" } else { "false" };
        let mut settings = crate::helpers::test_settings(
            &db,
            &[
                ("HERALD_SMTP_URL", smtp_url),
                ("HERALD_MAIL_FROM", "Acme status <status@example.com>"),
                ("HERALD_ALLOW_PRIVATE_WEBHOOKS", allow),
            ],
        );
        // The default is what every other test runs with.
        assert_eq!(settings.notify_poll, herald::config::NOTIFY_POLL);
        if let Some(poll) = poll {
            settings.notify_poll = poll;
        }
        let app = TestApp::spawn_with_settings(db, settings, Registry::standard()).await;
        let token = app.token(Role::Owner).await;
        let page = app
            .page("acme")
            .with_components(&["API", "Website"])
            .through_api(&token)
            .create()
            .await;
        app.wait_for_text("/status/acme", "Website").await;
        Self {
            app,
            token,
            components: page.components,
            smtp,
            hooks,
        }
    }

    /// The public JSON subscribe API.
    pub async fn subscribe(&self, body: Value) -> (u16, Value) {
        let res = self
            .app
            .client
            .post(format!("{}/status/acme/api/subscribe", self.app.address))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// Opens an incident; answers its id.
    pub async fn open(&self, body: Value) -> String {
        let (status, posted) = self
            .app
            .api(&self.token)
            .post("/pages/acme/incidents", body)
            .await;
        assert_eq!(status, 201, "{posted}");
        posted["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{posted}"))
            .to_owned()
    }

    /// Posts an update of incident `id`.
    pub async fn update(&self, id: &str, body: Value) {
        let path = format!("/pages/acme/incidents/{id}/updates");
        let (status, posted) = self.app.api(&self.token).post(&path, body).await;
        assert_eq!(status, 201, "{posted}");
    }

    /// GET or POST a link Herald made (its host may be the configured public URL): the path
    /// and query are requested at the app.
    pub async fn follow(&self, method: &str, link: &str, body: &str) -> (u16, String) {
        let link = url::Url::parse(link).unwrap();
        let path = &link[url::Position::BeforePath..];
        let res = self
            .app
            .client
            .request(
                method.parse().unwrap(),
                format!("{}{path}", self.app.address),
            )
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.text().await.unwrap())
    }

    /// Has the engine send everything due, and checks that nothing is left pending: every
    /// event expanded, every delivery delivered, failed or dead.
    pub async fn settle(&self) {
        self.app.deliver_pending().await;
        let (_, pending) = self
            .app
            .api(&self.token)
            .get("/pages/acme/deliveries?state=pending")
            .await;
        assert_eq!(pending, json!([]), "nothing is left pending");
        let unexpanded = self
            .app
            .db
            .run(|c| Ok(herald::db::models::notify::unexpanded_events(c, 1)?.len()))
            .await
            .unwrap();
        assert_eq!(unexpanded, 0, "every event is expanded");
    }
}

async fn email_subscribers_confirm_first_and_the_answer_never_tells_whether_an_address_was_known(
    db: TestDb,
) {
    let s = Setup::spawn(db).await;
    let (status, first) = s
        .subscribe(json!({"type": "email", "email": "Jo@Example.com"}))
        .await;
    assert_eq!(status, 202, "{first}");
    let (status, again) = s
        .subscribe(json!({"type": "email", "email": "jo@example.com"}))
        .await;
    assert_eq!(
        (status, &again),
        (202, &first),
        "a known address answers the same"
    );
    let confirmation = s.smtp.wait_for("jo@example.com", 1).await.remove(0);
    assert!(confirmation.header("Subject").unwrap().contains("Confirm"));
    let link = confirmation.link("/confirm/").expect("a confirmation link");

    // Nothing but confirmations before the link is opened.
    let incident = s
        .open(json!({"name": "API errors", "impact": "major", "body": "Investigating."}))
        .await;
    s.settle().await;
    let before: Vec<_> = s.smtp.to("jo@example.com");
    assert!(
        before
            .iter()
            .all(|m| m.header("Subject").unwrap().contains("Confirm")),
        "only confirmations before confirming"
    );

    // A forged link and an expired one are refused.
    let (status, _) = s.follow("GET", &format!("{link}x"), "").await;
    assert_eq!(status, 404);
    let subscriber = s
        .app
        .db
        .run(|c| {
            let page = herald::services::pages::get_page_by_slug(c, "acme")?;
            Ok(herald::db::models::notify::find_by_email(c, &page.id, "jo@example.com")?.unwrap())
        })
        .await
        .unwrap();
    assert_eq!(
        subscriber.state,
        herald::db::states::SubscriberState::Pending
    );
    let expired = herald::services::subscriptions::token::sign(
        &s.app.server_key().await,
        herald::services::subscriptions::token::Purpose::Confirm,
        &herald::services::subscriptions::token::Claims {
            subscriber_id: subscriber.id.clone(),
            token_id: subscriber.manage_token_id.clone(),
            expires: chrono::Utc::now().timestamp() - 60,
        },
    );
    let (status, body) = s
        .follow(
            "GET",
            &format!("http://x/status/acme/confirm/{expired}"),
            "",
        )
        .await;
    assert_eq!(status, 404);
    assert!(body.contains("expired or is not valid"), "{body}");

    // The real link confirms; the next update arrives.
    let (status, body) = s.follow("GET", &link, "").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Subscription confirmed"));
    let (status, same) = s
        .subscribe(json!({"type": "email", "email": "jo@example.com"}))
        .await;
    assert_eq!(
        (status, same),
        (202, first),
        "a confirmed address answers the same too"
    );
    s.update(
        &incident,
        json!({"status": "identified", "body": "Found it."}),
    )
    .await;
    let started = std::time::Instant::now();
    loop {
        let mails = s.smtp.to("jo@example.com");
        if mails
            .iter()
            .any(|m| m.header("Subject").unwrap().contains("API errors"))
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no update mail"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // Only the update after confirming, not the incident opened before.
    let updates: Vec<_> = s
        .smtp
        .to("jo@example.com")
        .into_iter()
        .filter(|m| m.header("Subject").unwrap().contains("API errors"))
        .collect();
    assert_eq!(updates.len(), 1);
    assert!(updates[0].text().contains("Found it."));
}

async fn a_one_click_post_to_the_list_unsubscribe_link_stops_the_mail(db: TestDb) {
    let s = Setup::spawn(db).await;
    s.app
        .subscriber("acme")
        .email("ann@example.com")
        .add(&s.token)
        .await;
    let incident = s
        .open(json!({"name": "Slow pages", "body": "Looking into it."}))
        .await;
    let mail = s.smtp.wait_for("ann@example.com", 1).await.remove(0);
    assert_eq!(
        mail.header("List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    let unsubscribe = mail.header("List-Unsubscribe").unwrap();
    let unsubscribe = unsubscribe.trim_matches(['<', '>']).to_owned();
    let manage = mail
        .link("/unsubscribe/")
        .unwrap_or_else(|| panic!("a manage link in the text: {}", mail.raw));
    let (status, page) = s.follow("GET", &manage, "").await;
    assert_eq!(status, 200);
    assert!(page.contains("Unsubscribe"), "{page}");
    // RFC 8058: a POST with that body, no cookie, no CSRF token.
    let (status, _) = s
        .follow("POST", &unsubscribe, "List-Unsubscribe=One-Click")
        .await;
    assert_eq!(status, 200);
    s.update(&incident, json!({"status": "resolved", "body": "Fixed."}))
        .await;
    s.settle().await;
    assert_eq!(
        s.smtp.to("ann@example.com").len(),
        1,
        "nothing after unsubscribing"
    );
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(list.as_array().unwrap().len(), 0, "{list}");
}

async fn a_cancelled_subscriptions_links_stop_working_and_a_renewed_one_gets_new_ones(db: TestDb) {
    let s = Setup::spawn(db).await;
    let (status, _) = s
        .subscribe(json!({"type": "email", "email": "ann@example.com"}))
        .await;
    assert_eq!(status, 202);
    let first = s.smtp.wait_for("ann@example.com", 1).await.remove(0);
    let confirm = first.link("/confirm/").expect("a confirmation link");
    assert_eq!(s.follow("GET", &confirm, "").await.0, 200);
    let manage = first.header("List-Unsubscribe").expect("a manage link");
    let manage = manage.trim_matches(['<', '>']).to_owned();
    assert_eq!(s.follow("POST", &manage, "").await.0, 200, "unsubscribed");
    let (status, page) = s.follow("GET", &manage, "").await;
    assert_eq!(
        status, 404,
        "the cancelled subscription's link is dead: {page}"
    );
    assert_eq!(s.follow("POST", &manage, "").await.0, 404);
    assert_eq!(s.follow("GET", &confirm, "").await.0, 404);

    let (status, _) = s
        .subscribe(json!({"type": "email", "email": "ann@example.com"}))
        .await;
    assert_eq!(status, 202, "subscribing again");
    let second = s.smtp.wait_for("ann@example.com", 2).await.remove(1);
    let renewed = second
        .header("List-Unsubscribe")
        .expect("a new manage link");
    let renewed = renewed.trim_matches(['<', '>']).to_owned();
    assert_ne!(renewed, manage);
    assert_eq!(
        s.follow("GET", &manage, "").await.0,
        404,
        "the old link stays dead"
    );
    assert_eq!(
        s.follow("GET", &second.link("/confirm/").unwrap(), "")
            .await
            .0,
        200
    );
    assert_eq!(s.follow("GET", &renewed, "").await.0, 200);
}

async fn component_filters_apply_except_that_a_critical_incident_reaches_everyone(db: TestDb) {
    let s = Setup::spawn(db).await;
    let (api, website) = (s.components[0].clone(), s.components[1].clone());
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/all"))
        .add(&s.token)
        .await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/api"))
        .with(json!({"components": [api]}))
        .add(&s.token)
        .await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/website"))
        .with(json!({"components": [website]}))
        .add(&s.token)
        .await;
    s.open(
        json!({"name": "API errors", "impact": "minor", "body": "Errors.",
                  "components": {api.clone(): "partial_outage"}}),
    )
    .await;
    s.hooks.wait_for("/all", 1).await;
    s.hooks.wait_for("/api", 1).await;
    s.settle().await;
    assert!(
        s.hooks.at("/website").is_empty(),
        "the filter keeps Website's subscriber out"
    );
    s.open(
        json!({"name": "Everything is down", "impact": "critical", "body": "Down.",
                  "components": {api.clone(): "major_outage"}}),
    )
    .await;
    s.hooks.wait_for("/all", 2).await;
    s.hooks.wait_for("/api", 2).await;
    let website_hooks = s.hooks.wait_for("/website", 1).await;
    assert_eq!(
        website_hooks[0].json()["incident"]["name"],
        "Everything is down",
        "a critical incident reaches every subscriber"
    );
}

async fn an_update_posted_with_notify_false_sends_nothing(db: TestDb) {
    let s = Setup::spawn(db).await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/all"))
        .add(&s.token)
        .await;
    s.app
        .subscriber("acme")
        .email("bo@example.com")
        .add(&s.token)
        .await;
    let incident = s
        .open(json!({"name": "API errors", "body": "Errors.", "notify": false}))
        .await;
    s.update(&incident, json!({"body": "Typo fix.", "notify": false}))
        .await;
    s.settle().await;
    assert!(s.hooks.at("/all").is_empty());
    assert!(s.smtp.to("bo@example.com").is_empty());
    s.update(&incident, json!({"body": "A real update."})).await;
    let hooks = s.hooks.wait_for("/all", 1).await;
    assert_eq!(hooks[0].json()["event"], "incident.updated");
    s.smtp.wait_for("bo@example.com", 1).await;
}

async fn every_update_of_an_incident_threads_under_its_first_message(db: TestDb) {
    let s = Setup::spawn(db).await;
    s.app
        .subscriber("acme")
        .email("cy@example.com")
        .add(&s.token)
        .await;
    let incident = s
        .open(json!({"name": "Login failures", "impact": "major", "body": "We are investigating."}))
        .await;
    s.smtp.wait_for("cy@example.com", 1).await;
    s.update(
        &incident,
        json!({"status": "identified", "body": "A bad deploy."}),
    )
    .await;
    s.smtp.wait_for("cy@example.com", 2).await;
    s.update(
        &incident,
        json!({"status": "resolved", "body": "Rolled back."}),
    )
    .await;
    let mails = s.smtp.wait_for("cy@example.com", 3).await;
    let first_id = mails[0].header("Message-ID").unwrap();
    for (mail, status) in mails
        .iter()
        .zip(["Investigating", "Identified", "Resolved"])
    {
        let subject = mail.header("Subject").unwrap();
        assert!(
            subject.contains("Acme")
                && subject.contains("Login failures")
                && subject.contains(status),
            "{subject}"
        );
        let list_id = mail.header("List-Id").unwrap();
        assert!(list_id.contains("acme."), "{list_id}");
        assert!(mail.html().contains("Login failures"));
    }
    for later in &mails[1..] {
        assert_eq!(
            later.header("In-Reply-To").as_deref(),
            Some(first_id.as_str())
        );
        assert!(later.header("References").unwrap().contains(&first_id));
        assert_ne!(later.header("Message-ID").unwrap(), first_id);
    }
    assert!(mails[0].header("In-Reply-To").is_none());
    assert!(mails[2].text().contains("Rolled back."));
}

/// Standard Webhooks, written from the specification, independently of Herald's signer:
/// base64(HMAC-SHA256(base64-decoded secret after `whsec_`, "id.timestamp.body")).
fn standard_webhooks_signature(secret: &str, id: &str, timestamp: &str, body: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
        .expect("secret is base64");
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

async fn webhooks_carry_the_statuspage_shape_and_a_standard_webhooks_signature(db: TestDb) {
    let s = Setup::spawn(db).await;
    let api = s.components[0].clone();
    let hook = s
        .app
        .subscriber("acme")
        .webhook(&s.hooks.url("/hook"))
        .with(json!({"contact_email": "ops@example.com", "component_updates": true}))
        .add(&s.token)
        .await;
    let secret = hook["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"));
    assert!(
        hook["manage_url"]
            .as_str()
            .unwrap()
            .contains("/unsubscribe/")
    );
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert!(
        list[0].get("secret").is_none(),
        "the secret is shown once only"
    );

    let posted = std::time::Instant::now();
    s.open(
        json!({"name": "API errors", "impact": "major", "body": "Errors.",
                  "components": {api.clone(): "partial_outage"}}),
    )
    .await;
    let got = s.hooks.wait_for("/hook", 1).await.remove(0);
    eprintln!(
        "first webhook {} ms after the POST",
        posted.elapsed().as_millis()
    );
    let body = got.json();
    assert!(
        body["meta"]["unsubscribe"]
            .as_str()
            .unwrap()
            .contains("/unsubscribe/")
    );
    assert!(body["meta"]["generated_at"].is_string());
    let indicator = body["page"]["status_indicator"].as_str().unwrap();
    assert!(["minor", "major"].contains(&indicator), "{indicator}");
    assert!(body["page"]["status_description"].is_string());
    assert!(body["page"]["id"].is_string());
    assert_eq!(body["incident"]["name"], "API errors");
    assert_eq!(body["incident"]["incident_updates"][0]["body"], "Errors.");
    // The update told subscribers, and the body says so (as the API does).
    assert_eq!(
        body["incident"]["incident_updates"][0]["deliver_notifications"],
        true
    );
    assert_eq!(body["event"], "incident.opened");
    assert!(body.get("next_update_by").is_some());
    let incident_id = body["incident"]["id"].as_str().unwrap().to_owned();
    the_webhook_update_agrees_with_the_api(&s, &incident_id, &body).await;

    let id = &got.headers["webhook-id"];
    let ts = &got.headers["webhook-timestamp"];
    let expected = standard_webhooks_signature(&secret, id, ts, &got.body);
    assert!(
        got.headers["webhook-signature"]
            .split(' ')
            .any(|sig| sig == expected),
        "signature {} is not {expected}",
        got.headers["webhook-signature"]
    );
    s.settle().await;
    let (_, deliveries) = s.app.api(&s.token).get("/pages/acme/deliveries").await;
    assert_eq!(
        deliveries[0]["id"], *id,
        "the webhook-id is the delivery's id"
    );
    assert_eq!(deliveries[0]["state"], "delivered");

    // An update that changes no component: both say `null`, as Statuspage does.
    s.update(
        &incident_id,
        json!({"status": "identified", "body": "Found it."}),
    )
    .await;
    let body = s.hooks.wait_for("/hook", 2).await.remove(1).json();
    assert_eq!(body["incident"]["incident_updates"][0]["body"], "Found it.");
    assert!(body["incident"]["incident_updates"][0]["affected_components"].is_null());
    the_webhook_update_agrees_with_the_api(&s, &incident_id, &body).await;

    // A component status set directly goes to subscribers who asked for component updates.
    let (status, _) = s
        .app
        .api(&s.token)
        .patch(
            &format!("/pages/acme/components/{api}"),
            json!({"status": "operational"}),
        )
        .await;
    assert_eq!(status, 200);
    let got = s.hooks.wait_for("/hook", 3).await.remove(2);
    let body = got.json();
    assert_eq!(body["event"], "component.status_changed");
    assert_eq!(body["component"]["id"], *api);
    assert_eq!(body["component_update"]["new_status"], "operational");
    assert_eq!(body["component_update"]["old_status"], "partial_outage");
}

/// The incident in a webhook `body`, the same incident in the v2 JSON, and `/api/v1` agree on
/// every field they share, its newest update's too (the v2 change objects add the component's
/// display `name`).
async fn the_webhook_update_agrees_with_the_api(s: &Setup, incident_id: &str, body: &Value) {
    let path = format!("/pages/acme/incidents/{incident_id}");
    let (status, incident) = s.app.api(&s.token).get(&path).await;
    assert_eq!(status, 200, "{incident}");
    let text = s
        .app
        .get("/status/acme/api/v2/incidents.json")
        .await
        .text()
        .await
        .unwrap();
    let v2: Value = serde_json::from_str(&text).unwrap();
    let public = v2["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == incident_id)
        .unwrap_or_else(|| panic!("{incident_id} in {v2}"))
        .clone();
    for other in [&body["incident"], &public] {
        same_incident_and_update(other, &incident);
    }
}

fn same_incident_and_update(other: &Value, api: &Value) {
    for field in [
        "id",
        "name",
        "status",
        "impact",
        "created_at",
        "started_at",
        "monitoring_at",
        "resolved_at",
    ] {
        assert_eq!(other[field], api[field], "{field}: {other} against {api}");
    }
    let sent = &other["incident_updates"][0];
    let api = &api["incident_updates"][0];
    for field in [
        "id",
        "incident_id",
        "status",
        "body",
        "deliver_notifications",
        "created_at",
        "display_at",
    ] {
        assert_eq!(sent[field], api[field], "{field}: {sent} against {api}");
    }
    let shared = |changes: &Value| -> Value {
        if changes.is_null() {
            return Value::Null;
        }
        changes
            .as_array()
            .unwrap_or_else(|| panic!("{changes}"))
            .iter()
            .map(|c| json!([c["code"], c["old_status"], c["new_status"]]))
            .collect()
    };
    assert_eq!(
        shared(&sent["affected_components"]),
        shared(&api["affected_components"]),
        "{sent} against {api}"
    );
}

async fn private_webhook_destinations_are_refused_and_subscribing_is_rate_limited(db: TestDb) {
    let s = Setup::spawn_with(db, false).await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/x",
        "ftp://example.com/x",
        "http://localhost:8080/x",
    ] {
        let (status, body) = s
            .subscribe(json!({"type": "webhook", "url": url, "contact_email": "ops@example.com"}))
            .await;
        assert_eq!(status, 422, "{url}: {body}");
        assert!(body["fields"]["url"].is_array(), "{url}: {body}");
    }
    let (status, body) = s
        .subscribe(json!({"type": "pigeon", "email": "x@example.com"}))
        .await;
    assert_eq!(status, 422);
    assert!(body["fields"]["type"].is_array(), "{body}");
    // The per-address limit: a burst of 3.
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let (status, _) = s
            .subscribe(json!({"type": "email", "email": "flood@example.com"}))
            .await;
        statuses.push(status);
    }
    assert_eq!(statuses, [202, 202, 202, 429]);
    // The per-client limit.
    let mut limited = None;
    for i in 0..12 {
        let res = s
            .app
            .client
            .post(format!("{}/status/acme/api/subscribe", s.app.address))
            .json(&json!({"type": "email", "email": format!("p{i}@example.com")}))
            .send()
            .await
            .unwrap();
        if res.status() == 429 {
            limited = res
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_owned());
            break;
        }
    }
    let retry_after: u64 = limited.expect("a 429").parse().unwrap();
    assert!(retry_after >= 1);
}

async fn a_refused_webhook_url_does_not_use_up_the_limit_of_its_target(db: TestDb) {
    let s = Setup::spawn_with(db, false).await;
    // The per-target limit is a burst of 3: a URL refused four times was never counted.
    for attempt in 1..=4 {
        let (status, body) = s
            .subscribe(json!({"type": "webhook", "url": "http://10.0.0.1/x", "contact_email": "ops@example.com"}))
            .await;
        assert_eq!(status, 422, "attempt {attempt}: {body}");
        assert!(body["fields"]["url"].is_array(), "{body}");
    }
}

async fn responders_list_export_remove_subscribers_and_retry_failed_deliveries(db: TestDb) {
    let s = Setup::spawn(db).await;
    let api = s.components[0].clone();
    let email = s
        .app
        .subscriber("acme")
        .email("=cmd@example.com")
        .with(json!({"components": [api]}))
        .add(&s.token)
        .await;
    assert_eq!(email["state"], "confirmed");
    assert_eq!(email["components"], json!([api]));
    let hook = s
        .app
        .subscriber("acme")
        .webhook(&s.hooks.url("/flaky"))
        .add(&s.token)
        .await;
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    let csv = s
        .app
        .client
        .get(format!(
            "{}/api/v1/pages/acme/subscribers/export",
            s.app.address
        ))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    assert_eq!(csv.status(), 200);
    assert!(
        csv.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let csv = csv.text().await.unwrap();
    assert!(csv.starts_with("id,type,email"), "{csv}");
    assert!(
        csv.contains("'=cmd@example.com"),
        "formula cells are defused: {csv}"
    );
    let (status, same) = s
        .app
        .api(&s.token)
        .get("/pages/acme/subscribers?format=csv")
        .await;
    assert_eq!(
        (status, same.as_str().map(|t| t.lines().count())),
        (200, Some(3))
    );

    // A receiver refusing with 400 is not retried: the delivery fails, a responder retries it.
    s.hooks.answer(400);
    s.open(json!({"name": "API errors", "body": "Errors."}))
        .await;
    s.hooks.wait_for("/flaky", 1).await;
    s.settle().await;
    let (_, failed) = s
        .app
        .api(&s.token)
        .get("/pages/acme/deliveries?state=failed")
        .await;
    let failed = failed.as_array().unwrap().clone();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["attempts"], 1);
    assert!(failed[0]["last_error"].as_str().unwrap().contains("400"));
    s.hooks.answer(200);
    let id = failed[0]["id"].as_str().unwrap();
    let (status, retried) = s
        .app
        .api(&s.token)
        .post(&format!("/pages/acme/deliveries/{id}/retry"), json!({}))
        .await;
    assert_eq!(status, 200, "{retried}");
    let again = s.hooks.wait_for("/flaky", 2).await;
    assert_eq!(
        again[0].headers["webhook-id"],
        again[1].headers["webhook-id"]
    );
    s.settle().await;
    let (status, _) = s
        .app
        .api(&s.token)
        .post(&format!("/pages/acme/deliveries/{id}/retry"), json!({}))
        .await;
    assert_eq!(status, 409, "a delivered one is not retried");

    let (status, _) = s
        .app
        .api(&s.token)
        .delete(&format!(
            "/pages/acme/subscribers/{}",
            hook["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 200);
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let (_, audit) = s.app.api(&s.token).get("/audit?page=acme").await;
    let actions: Vec<_> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect();
    for action in ["subscriber.create", "subscriber.delete", "delivery.retry"] {
        assert!(
            actions.iter().any(|a| a == action),
            "{action} in {actions:?}"
        );
    }
}

async fn responders_are_reminded_before_a_promised_update_and_told_once_it_is_overdue(db: TestDb) {
    let s = Setup::spawn(db).await;
    let deadline = chrono::Utc::now() + chrono::Duration::seconds(8);
    s.open(json!({"name": "Queue backlog", "body": "Draining.", "next_update_by": deadline}))
        .await;
    let due = s.smtp.wait_for("owner@example.com", 1).await.remove(0);
    let subject = due.header("Subject").unwrap();
    assert!(
        subject.contains("Update due") && subject.contains("Queue backlog"),
        "{subject}"
    );
    assert!(due.text().contains("/admin/incidents/"), "{}", due.text());
    let overdue = s.smtp.wait_for("owner@example.com", 2).await.remove(1);
    let subject = overdue.header("Subject").unwrap();
    assert!(subject.contains("Update overdue"), "{subject}");
    // A pass that looks for reminders again finds none to send.
    s.app.deliver_pending().await;
    assert_eq!(
        s.smtp.to("owner@example.com").len(),
        2,
        "each reminder once"
    );
}

async fn the_subscribe_form_works_without_javascript(db: TestDb) {
    let s = Setup::spawn(db).await;
    let form = s.app.get("/status/acme/subscribe").await;
    assert_eq!(form.status(), 200);
    let form = form.text().await.unwrap();
    assert!(
        form.contains("<form") && form.contains("name=\"components\""),
        "{form}"
    );
    assert!(form.contains(s.components[0].as_str()) && form.contains("Website"));
    let post = |body: String| {
        let client = s.app.client.clone();
        let url = format!("{}/status/acme/subscribe", s.app.address);
        async move {
            let res = client
                .post(url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.text().await.unwrap())
        }
    };
    let (status, page) = post("type=email&email=not-an-address%3Cb%3E".into()).await;
    assert_eq!(status, 422);
    assert!(page.contains("not a valid email address"), "{page}");
    assert!(
        page.contains("not-an-address&lt;b&gt;") && !page.contains("<b>"),
        "escaped"
    );
    let api = &s.components[0];
    let (status, page) = post(format!(
        "type=email&email=form%40example.com&components={api}&component_updates=true"
    ))
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("Check your inbox"), "{page}");
    let mail = s.smtp.wait_for("form@example.com", 1).await.remove(0);
    let (status, page) = s.follow("GET", &mail.link("/confirm/").unwrap(), "").await;
    assert_eq!(status, 200, "{page}");
    let (_, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(list[0]["components"], json!([api]));
    assert_eq!(list[0]["component_updates"], true);
    assert_eq!(list[0]["state"], "confirmed");
    let hook = format!("{}/form-hook", s.hooks.base);
    let (status, page) = post(format!(
        "type=webhook&url={}&contact_email=ops%40example.com",
        url::form_urlencoded::byte_serialize(hook.as_bytes()).collect::<String>()
    ))
    .await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("whsec_"), "the secret is shown once: {page}");
}

async fn the_console_lists_subscribers_and_deliveries_and_retries_a_failed_one(db: TestDb) {
    let s = Setup::spawn(db).await;
    s.app
        .subscriber("acme")
        .email("dee@example.com")
        .add(&s.token)
        .await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/console-hook"))
        .add(&s.token)
        .await;
    s.hooks.answer(410);
    s.open(json!({"name": "API errors", "body": "Errors."}))
        .await;
    s.hooks.wait_for("/console-hook", 1).await;
    s.settle().await;
    let console = Console::sign_in(&s.app, "responder@example.com", Role::Responder).await;
    let (status, page) = console.get("/admin/pages/acme/subscribers").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("dee@example.com") && page.contains("/console-hook"),
        "{page}"
    );
    assert!(page.contains("410"), "the last error shows: {page}");
    let marker = "/deliveries/";
    let start = page.find(marker).expect("a retry button") + marker.len();
    let id = page[start..].split('/').next().unwrap().to_owned();
    s.hooks.answer(200);
    let (status, location, _) = console
        .post(
            &format!("/admin/pages/acme/deliveries/{id}/retry"),
            &[("csrf_token", console.csrf.as_str())],
        )
        .await;
    assert_eq!(
        (status, location.as_str()),
        (303, "/admin/pages/acme/subscribers")
    );
    s.hooks.wait_for("/console-hook", 2).await;
    let (status, _, _) = console
        .post(&format!("/admin/pages/acme/deliveries/{id}/retry"), &[])
        .await;
    assert_ne!(status, 303, "no CSRF token, no retry");
    let viewer = Console::sign_in(&s.app, "viewer@example.com", Role::Viewer).await;
    let (status, page) = viewer.get("/admin/pages/acme/subscribers").await;
    assert_eq!(status, 200);
    assert!(
        !page.contains("dee@example.com"),
        "viewers do not see addresses"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_mail_server_email_subscription_says_so_and_webhooks_still_work() {
    let extra = [("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")];
    let app = TestApp::spawn_with(TestDb::sqlite(), &extra, Registry::standard()).await;
    app.acme().await;
    app.wait_for_page("/status/acme").await;
    let form = app
        .get("/status/acme/subscribe")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        form.contains("Email notifications are not available here"),
        "{form}"
    );
    let post = |body: Value| {
        let app = &app;
        async move {
            let res = app
                .client
                .post(format!("{}/status/acme/api/subscribe", app.address))
                .json(&body)
                .send()
                .await
                .unwrap();
            (
                res.status().as_u16(),
                res.json::<Value>().await.unwrap_or_default(),
            )
        }
    };
    let (status, body) = post(json!({"type": "email", "email": "ann@example.com"})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["fields"]["email"][0], herald::http::subscribe::NO_MAIL);
    let hooks = Receiver::start();
    let url = format!("{}/hook", hooks.base);
    let (status, body) = post(json!({"type": "webhook", "url": url})).await;
    assert_eq!(status, 201, "webhooks still subscribe: {body}");
    let page_id = app
        .site
        .snapshot()
        .pages
        .get("acme")
        .map(|p| PageId::from(p.data.page.id.as_str()))
        .expect("the page");
    let stored = app
        .db
        .run(move |c| Ok(herald::db::models::notify::list_subscribers(c, &page_id)?))
        .await
        .unwrap();
    let kinds: Vec<&str> = stored.iter().map(|s| s.kind.as_str()).collect();
    assert_eq!(kinds, ["webhook"], "the email subscriber was not stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_that_waits_for_a_mail_server_says_so_in_the_api_and_the_console() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    app.acme().await;
    let token = app.token(Role::Owner).await;
    app.subscriber("acme")
        .email("ann@example.com")
        .add(&token)
        .await;
    let (status, body) = app
        .api(&token)
        .post(
            "/pages/acme/incidents",
            json!({"name": "API errors", "body": "Looking into it."}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let started = std::time::Instant::now();
    let delivery = loop {
        let (_, list) = app.api(&token).get("/pages/acme/deliveries").await;
        if let Some(d) = list
            .as_array()
            .and_then(|l| l.iter().find(|d| d["waiting_for"] == "mail_server"))
        {
            break d.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(15), "{list}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(delivery["state"], "pending");
    assert_eq!(delivery["attempts"], 0, "waiting is not an attempt");
    assert_eq!(
        delivery["waiting"],
        "waiting for a mail server: HERALD_SMTP_URL is not set"
    );
    let console = Console::sign_in(&app, "responder@example.com", Role::Responder).await;
    let (status, page) = console.get("/admin/pages/acme/subscribers").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("waiting for a mail server: HERALD_SMTP_URL is not set"),
        "{page}"
    );
}

async fn console_and_api_writes_wake_the_engine_without_waiting_for_its_poll(db: TestDb) {
    // The engine would find new events only after an hour: each notification below arrives
    // within the receiver's patience only because the write that made it woke the engine.
    let s = Setup::spawn_polling_every(db, Duration::from_secs(3600)).await;
    s.app
        .subscriber("acme")
        .webhook(&s.hooks.url("/hook"))
        .with(json!({"contact_email": "ops@example.com"}))
        .add(&s.token)
        .await;
    s.open(json!({"name": "Through the API", "body": "Looking."}))
        .await;
    let got = s.hooks.wait_for("/hook", 1).await;
    assert_eq!(got[0].json()["incident"]["name"], "Through the API");

    let console = Console::sign_in(&s.app, "responder@example.com", Role::Responder).await;
    let csrf = console.csrf(crate::console::NEW).await;
    let (status, location, body) = console
        .post(
            crate::console::NEW,
            &[
                ("csrf_token", csrf.as_str()),
                ("name", "Through the console"),
                ("impact", "minor"),
                ("status", "investigating"),
                ("body", "Looking from the console."),
                ("next_update_by", ""),
            ],
        )
        .await;
    assert_eq!(status, 303, "{body}");
    assert!(location.starts_with("/admin/incidents/"), "{location}");
    let got = s.hooks.wait_for("/hook", 2).await;
    assert_eq!(got[1].json()["incident"]["name"], "Through the console");
}
