//! The support form itself: stored and referenced, each field refused with its message, bots refused without saying why, the rate limit, and the status page pointing to it.

use super::*;

on_both_backends!(
    valid_submissions_are_stored_and_referenced,
    each_invalid_field_is_answered_with_its_message,
    honeypot_and_hasty_submissions_are_refused_without_saying_why,
    the_status_page_points_to_support_strongest_when_sign_in_is_affected,
);

async fn valid_submissions_are_stored_and_referenced(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let res = s.app.get("/status/acme/support").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let html = res.text().await.unwrap();
    assert!(html.contains(r#"name="form_token" value=""#), "{html}");
    assert!(html.contains(r#"name="website""#), "the honeypot is there");
    assert!(html.contains("Public API"), "components are offered");
    assert!(
        html.contains(r#"<input id="f-copy" name="copy" type="checkbox" value="on">"#)
            && html.contains(r#"<label for="f-copy">Send me a copy by email</label>"#),
        "the 'send me a copy' box, not ticked: {html}"
    );
    let first_token = html.split(r#"name="form_token" value=""#).nth(1).unwrap();
    let again = s
        .app
        .get("/status/acme/support")
        .await
        .text()
        .await
        .unwrap();
    let second_token = again.split(r#"name="form_token" value=""#).nth(1).unwrap();
    assert_ne!(
        &first_token[..20],
        &second_token[..20],
        "a fresh token per request, though the page is rendered once"
    );

    // The HTML form: 303 to the reference page.
    let token = s.token(5);
    let mut fields = form_fields(&token, &s.component);
    fields.push(("copy", "on"));
    let (status, location, _) = s.post_form(&fields).await;
    assert_eq!(status, 303);
    assert!(
        location.starts_with("/status/acme/support/sent?reference=SUP-"),
        "{location}"
    );
    let reference = location.split("reference=").nth(1).unwrap().to_owned();
    let sent = s.app.get(&location).await;
    assert_eq!(sent.status(), 200);
    let sent = sent.text().await.unwrap();
    assert!(
        sent.contains(&reference) && sent.contains("What happens next"),
        "{sent}"
    );

    // JSON: 201 with the reference.
    let (status, body, _) = s
        .post_json(&s.body("I cannot sign in since this morning."))
        .await;
    assert_eq!(status, 201, "{body}");
    let json_reference = body["reference"].as_str().unwrap().to_owned();
    assert!(json_reference.starts_with("SUP-") && json_reference.len() == 12);

    let stored = s.stored().await;
    assert_eq!(stored.len(), 2);
    let html_row = stored.iter().find(|r| r.reference == reference).unwrap();
    assert_eq!(html_row.email, "grace@example.com");
    assert!(html_row.wants_copy, "the ticked box asks for a copy");
    assert_eq!(html_row.topic, "outage");
    assert!(
        html_row.message.contains("<script>"),
        "stored as typed; escaped when shown"
    );
    assert!(!html_row.spooled);
    let json_row = stored
        .iter()
        .find(|r| r.reference == json_reference)
        .unwrap();
    assert_eq!(json_row.topic, "sign_in");
    assert_eq!(json_row.component_id.as_deref(), Some(s.component.as_str()));
    assert_eq!(json_row.account.as_deref(), Some("acct-42"));
    assert!(json_row.wants_copy);
    assert_eq!(json_row.client_ip.as_deref(), Some("127.0.0.1"));

    // The token endpoint for scripts.
    let res = s.app.get("/status/acme/api/support").await;
    assert_eq!(res.status(), 200);
    let info: Value = res.json().await.unwrap();
    assert!(info["form_token"].as_str().is_some_and(|t| t.len() > 20));
    assert_eq!(info["min_fill_seconds"], MIN_FILL_SECS);
    assert_eq!(s.app.get("/status/nope/support").await.status(), 404);
}

async fn each_invalid_field_is_answered_with_its_message(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let cases = [
        ("name", json!("")),
        ("name", json!("x".repeat(101))),
        ("name", json!("Eve\r\nBcc: everyone@example.com")),
        ("email", json!("not-an-address")),
        ("topic", json!("refunds")),
        ("component", json!("no-such-component")),
        ("account", json!("a".repeat(201))),
        ("message", json!("short")),
        ("message", json!("m".repeat(5001))),
    ];
    for (field, value) in cases {
        let mut body = s.body("A message long enough to pass.");
        body[field] = value;
        let (status, answer, _) = s.post_json(&body).await;
        assert_eq!(status, 422, "{field}: {answer}");
        assert_eq!(answer["error"], "validation_failed");
        let fields = answer["fields"].as_object().unwrap();
        assert_eq!(fields.keys().collect::<Vec<_>>(), [field], "{answer}");
        assert!(fields[field][0].as_str().is_some_and(|m| !m.is_empty()));
    }
    let (status, answer, _) = s.post_json(&json!({})).await;
    assert_eq!(status, 422);
    for field in ["name", "email", "topic", "message"] {
        assert!(answer["fields"][field].is_array(), "{field}: {answer}");
    }
    // A field the form does not take is refused by its name, and nothing is stored.
    let mut misspelt = s.body("Everything is down.");
    misspelt["mesage"] = json!("Everything is down.");
    let (status, answer, _) = s.post_json(&misspelt).await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer["fields"]["mesage"].is_array(), "{answer}");
    let mut mistyped = s.body("Everything is down.");
    mistyped["copy"] = json!("yes");
    let (status, answer, _) = s.post_json(&mistyped).await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer["fields"]["copy"].is_array(), "{answer}");
    assert!(s.stored().await.is_empty(), "nothing stored");

    // The HTML form answers with the form again: messages next to fields, what was typed kept.
    let token = s.token(5);
    let mut fields = form_fields(&token, &s.component);
    fields[1] = ("email", "grace at example");
    fields[5] = ("message", "<b>hi");
    fields.push(("copy", "on"));
    let (status, _, html) = s.post_form(&fields).await;
    assert_eq!(status, 422);
    assert!(
        html.contains(r#"id="e-email""#) && html.contains(r#"id="e-message""#),
        "{html}"
    );
    assert!(html.contains(r#"value="Grace Hopper""#), "the name is kept");
    assert!(
        html.contains(r#"name="copy" type="checkbox" value="on" checked>"#),
        "the ticked box stays ticked"
    );
    assert!(
        html.contains(r#"value="grace at example""#),
        "the wrong email is kept to fix"
    );
    assert!(
        html.contains("&lt;b&gt;hi</textarea>"),
        "typed text kept, escaped"
    );
    assert!(
        html.contains(&format!(r#"value="{token}""#)),
        "the same token, so a quick fix is not 'too fast'"
    );
    // A control character (U+0000 here) is refused on its field and shown again as U+FFFD
    // where it was: HTML cannot carry it, and the reader sees what to remove.
    let mut fields = form_fields(&token, &s.component);
    fields[5] = ("message", "Down\u{0}since nine.");
    let (status, _, html) = s.post_form(&fields).await;
    assert_eq!(status, 422);
    assert!(html.contains(r#"id="e-message""#), "{html}");
    assert!(!html.contains('\u{0}'), "no NUL in the page");
    assert!(
        html.contains("Down\u{FFFD}since nine.</textarea>"),
        "{html}"
    );
    let selected = format!(r#"<option value="{}" selected>"#, s.component);
    assert!(
        html.contains(&selected),
        "the chosen component stays chosen"
    );
    assert!(s.stored().await.is_empty(), "nothing stored");

    // Oversized bodies are refused before they are read whole.
    let mut body = s.body("big");
    body["message"] = json!("x".repeat(100 * 1024));
    let (status, _, _) = s.post_json(&body).await;
    assert_eq!(status, 400);
}

async fn honeypot_and_hasty_submissions_are_refused_without_saying_why(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let mut trapped = s.body("Buy cheap watches at our site today.");
    trapped["website"] = json!("http://spam.example");
    let (status, trap_answer, _) = s.post_json(&trapped).await;
    assert_eq!(status, 400);
    let mut hasty = s.body("I cannot sign in since this morning.");
    hasty["form_token"] = json!(s.token(0));
    let (status, hasty_answer, _) = s.post_json(&hasty).await;
    assert_eq!(status, 400);
    let mut forged = s.body("I cannot sign in since this morning.");
    forged["form_token"] = json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    let (status, forged_answer, _) = s.post_json(&forged).await;
    assert_eq!(status, 400);
    assert_eq!(
        trap_answer, hasty_answer,
        "the same answer whatever gave it away"
    );
    assert_eq!(trap_answer, forged_answer);
    let message = trap_answer["message"].as_str().unwrap().to_lowercase();
    for word in ["honeypot", "website", "fast", "token", "robot", "bot"] {
        assert!(
            !message.contains(word),
            "the answer names no reason: {message}"
        );
    }

    // A token from the form page, sent at once: refused; the same token after the fill time: fine.
    let info: Value = s
        .app
        .get("/status/acme/api/support")
        .await
        .json()
        .await
        .unwrap();
    let mut body = s.body("I cannot sign in since this morning.");
    body["form_token"] = info["form_token"].clone();
    assert_eq!(s.post_json(&body).await.0, 400);

    let token = s.token(0);
    let mut fields = form_fields(&token, &s.component);
    let (status, _, html) = s.post_form(&fields).await;
    assert_eq!(status, 400);
    assert!(html.contains("We could not accept this message"), "{html}");
    assert!(
        html.contains(r#"value="Grace Hopper""#),
        "what was typed is kept"
    );
    fields[6] = ("website", "http://spam.example");
    let (status, _, trap_html) = s.post_form(&fields).await;
    assert_eq!(status, 400);
    assert!(trap_html.contains("We could not accept this message"));
    assert!(s.stored().await.is_empty(), "nothing refused is stored");

    // Not synchronisation: the product's minimum fill time, waited out as a person would.
    tokio::time::sleep(Duration::from_secs(MIN_FILL_SECS as u64)).await;
    let (status, answer, _) = s.post_json(&body).await;
    assert_eq!(
        status, 201,
        "after the fill time the same token works: {answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_answers_429_with_retry_after() {
    let s = Support::spawn(TestDb::sqlite(), &[("HERALD_SUPPORT_RATE_PER_MIN", "2")]).await;
    for _ in 0..2 {
        let (status, body, _) = s
            .post_json(&s.body("I cannot sign in since this morning."))
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body, headers) = s
        .post_json(&s.body("I cannot sign in since this morning."))
        .await;
    assert_eq!(status, 429, "{body}");
    let wait: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(body["error"], "rate_limited");
    let token = s.token(5);
    let (status, _, html) = s.post_form(&form_fields(&token, &s.component)).await;
    assert_eq!(status, 429);
    assert!(html.contains("Too many messages"), "{html}");
    assert!(html.contains(r#"value="Grace Hopper""#));
    assert_eq!(s.stored().await.len(), 2);
    assert_eq!(
        s.app.get("/status/acme/support").await.status(),
        200,
        "the form still loads"
    );
}

async fn the_status_page_points_to_support_strongest_when_sign_in_is_affected(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let owner = s.app.token(Role::Owner).await;
    let page = s.app.get("/status/acme").await.text().await.unwrap();
    assert!(
        !page.contains("Can&#39;t sign in?"),
        "nothing wrong, no prompt"
    );
    let api = s.app.api(&owner);
    let component = format!("/pages/acme/components/{}", s.component);
    let patch = |body: Value| api.patch(&component, body);
    let (status, component) = patch(json!({"signin": true})).await;
    assert_eq!(status, 200, "{component}");
    assert_eq!(component["signin"], true);
    let (status, _) = patch(json!({"status": "major_outage"})).await;
    assert_eq!(status, 200);
    let page = s
        .app
        .wait_for_text("/status/acme", "Signing in is affected")
        .await;
    assert!(page.contains(r#"class="signin-help is-urgent""#), "{page}");
    assert!(page.contains(r#"href="/status/acme/support">Can&#39;t sign in? Contact support"#));

    // An open incident shows at the top of the form.
    let incident = json!({"name": "Login failures", "body": "We are looking into it."});
    let (status, _) = api.post("/pages/acme/incidents", incident).await;
    assert_eq!(status, 201);
    let form = s
        .app
        .wait_for_text("/status/acme/support", "Login failures")
        .await;
    assert!(form.contains("We know about"), "{form}");
    assert!(form.contains("We are looking into it."));

    // The default page's form is also at the site root.
    let (status, _) = api.patch("/pages/acme", json!({"is_default": true})).await;
    assert_eq!(status, 200);
    let root = s
        .app
        .wait_for_text("/support", r#"action="/support""#)
        .await;
    assert!(root.contains("Contact support"));
    let res = s
        .app
        .client
        .post(format!("{}/api/support", s.app.address))
        .json(&s.body("Sent through the default page at the root."))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(
        s.app
            .get("/support/sent?reference=SUP-7K3Q9M2X")
            .await
            .status(),
        200
    );
}
