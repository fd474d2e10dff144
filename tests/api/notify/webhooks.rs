//! Webhook subscribers: the Statuspage body and its Standard Webhooks signature, private destinations refused, and the subscribe limits.

use super::*;

on_both_backends!(
    webhooks_carry_the_statuspage_shape_and_a_standard_webhooks_signature,
    private_webhook_destinations_are_refused_and_subscribing_is_rate_limited,
    a_refused_webhook_url_does_not_use_up_the_limit_of_its_target,
);

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
