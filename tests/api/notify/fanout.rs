//! Who is told what: component filters and the critical override, `notify: false`, and every update threaded under its incident's first message.

use super::*;

on_both_backends!(
    component_filters_apply_except_that_a_critical_incident_reaches_everyone,
    an_update_posted_with_notify_false_sends_nothing,
    every_update_of_an_incident_threads_under_its_first_message,
);

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
