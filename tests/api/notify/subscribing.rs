//! Subscribing and leaving: double opt-in without enumeration, one-click unsubscribe, links that die with their subscription, the form without JavaScript, and a Herald without a mail server.

use super::*;

on_both_backends!(
    email_subscribers_confirm_first_and_the_answer_never_tells_whether_an_address_was_known,
    a_one_click_post_to_the_list_unsubscribe_link_stops_the_mail,
    a_cancelled_subscriptions_links_stop_working_and_a_renewed_one_gets_new_ones,
    the_subscribe_form_works_without_javascript,
);

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
    let expired = herald::services::subscribers::token::sign(
        &s.app.server_key().await,
        herald::services::subscribers::token::Purpose::Confirm,
        &herald::services::subscribers::token::Claims {
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
    assert_eq!(
        body["fields"]["email"][0],
        herald::http::subscribers::NO_MAIL
    );
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
