//! A page read in several languages: Herald's own words in the reader's language, chosen by
//! `?lang=` then `Accept-Language` among the page's languages; what responders wrote shown in
//! the reader's language where they translated it, and marked as the original where not; the
//! v2 JSON and the feeds in the default language unless `?lang=` asks; bad settings and bad
//! translations refused by field.

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb};
use crate::notify::Setup;

on_both_backends!(
    a_reader_gets_the_page_in_their_language,
    a_translated_incident_shows_per_accept_language_and_lang,
    machine_clients_get_the_default_language_unless_they_ask,
    a_page_in_one_language_ignores_the_readers,
    bad_language_settings_are_refused_by_field,
    bad_translations_are_refused_and_nothing_is_written,
    the_forms_follow_the_readers_language,
    the_console_sets_the_languages,
    the_mail_goes_out_in_the_subscribers_language,
    the_console_takes_translations,
);

/// `acme` in English and German (English the default), with an owner's token.
async fn bilingual(app: &TestApp) -> String {
    app.acme().await;
    let token = app.token(Role::Owner).await;
    let (status, body) = app
        .api(&token)
        .patch("/pages/acme", json!({"languages": ["en", "de"]}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["languages"], json!(["en", "de"]));
    assert_eq!(body["default_language"], "en");
    app.refreshed().await;
    token
}

/// GET `path` with an `Accept-Language`; the status, headers and body.
async fn read(app: &TestApp, path: &str, accept: Option<&str>) -> (u16, Headers, String) {
    let mut req = app.client.get(format!("{}{path}", app.address));
    if let Some(accept) = accept {
        req = req.header("accept-language", accept);
    }
    let res = req.send().await.expect("sent");
    let status = res.status().as_u16();
    let headers = Headers(res.headers().clone());
    (status, headers, res.text().await.expect("body"))
}

struct Headers(reqwest::header::HeaderMap);

impl Headers {
    fn get(&self, name: &str) -> &str {
        self.0
            .get(name)
            .map(|v| v.to_str().expect("text"))
            .unwrap_or("")
    }
}

async fn open_translated(app: &TestApp, token: &str) -> String {
    let (status, body) = app
        .api(token)
        .post(
            "/pages/acme/incidents",
            json!({
                "name": "Sign-in failures",
                "impact": "major",
                "body": "We are investigating failed sign-ins.",
                "translations": {"de": {
                    "name": "Anmeldefehler",
                    "body": "Wir untersuchen fehlgeschlagene Anmeldungen.",
                }},
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body["translations"],
        json!({"de": {"name": "Anmeldefehler"}})
    );
    assert_eq!(
        body["incident_update"]["translations"],
        json!({"de": {"body": "Wir untersuchen fehlgeschlagene Anmeldungen."}})
    );
    app.refreshed().await;
    body["id"].as_str().unwrap().to_owned()
}

async fn a_reader_gets_the_page_in_their_language(db: TestDb) {
    let app = TestApp::spawn(db).await;
    bilingual(&app).await;

    let (status, headers, html) = read(&app, "/status/acme", Some("de-DE,de;q=0.9,en;q=0.5")).await;
    assert_eq!(status, 200);
    assert!(
        html.starts_with("<!DOCTYPE html>\n<html lang=\"de\""),
        "{html}"
    );
    assert!(html.contains(">Verlauf</a>"), "German navigation: {html}");
    assert!(html.contains("<title>Status von Acme</title>"), "{html}");
    assert!(
        html.contains(">Betriebsbereit<"),
        "a German status word: {html}"
    );
    assert_eq!(headers.get("content-language"), "de");
    assert_eq!(headers.get("vary"), "Accept-Encoding, Accept-Language");
    // The page's links keep the choice, and the switcher offers each language of the page.
    assert!(
        html.contains(r#"href="/status/acme/history?page=1&amp;lang=de""#),
        "{html}"
    );
    assert!(
        html.contains(r#"<a href="/status/acme?lang=en" lang="en" hreflang="en">English</a>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<a href="/status/acme?lang=de" lang="de" hreflang="de" aria-current="true">Deutsch</a>"#),
        "{html}"
    );

    // `?lang=` wins over the browser; a language the page lacks falls back.
    let (_, headers, html) = read(&app, "/status/acme?lang=en", Some("de")).await;
    assert!(html.contains("<html lang=\"en\""), "{html}");
    assert!(html.contains(">History</a>"));
    assert_eq!(headers.get("content-language"), "en");
    for accept in [None, Some("fr-FR,fr;q=0.9"), Some("de;q=0, en")] {
        let (_, headers, html) = read(&app, "/status/acme", accept).await;
        assert!(html.contains("<html lang=\"en\""), "{accept:?}: {html}");
        assert_eq!(headers.get("content-language"), "en", "{accept:?}");
    }
    let (_, _, html) = read(&app, "/status/acme?lang=ja", Some("de")).await;
    assert!(
        html.contains("<html lang=\"de\""),
        "a language the page lacks: {html}"
    );

    // The history in German: its months and its title.
    let (status, _, html) = read(&app, "/status/acme/history?page=1&lang=de", None).await;
    assert_eq!(status, 200);
    assert!(html.contains("<html lang=\"de\""), "{html}");
    assert!(html.contains(">Störungsverlauf</h1>"), "{html}");
}

async fn a_translated_incident_shows_per_accept_language_and_lang(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = bilingual(&app).await;
    let id = open_translated(&app, &token).await;
    let (status, body) = app
        .api(&token)
        .post(
            &format!("/pages/acme/incidents/{id}/updates"),
            json!({"status": "identified", "body": "The cause is a full disk."}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    app.refreshed().await;

    let page = format!("/status/acme/incidents/{id}");
    let (_, _, german) = read(&app, &page, Some("de")).await;
    assert!(
        german.contains(">Anmeldefehler</h1>"),
        "the German name: {german}"
    );
    assert!(
        german.contains("Wir untersuchen fehlgeschlagene Anmeldungen."),
        "{german}"
    );
    assert!(
        !german.contains("We are investigating failed sign-ins."),
        "{german}"
    );
    // The update given in English only is shown in English, marked, in its language.
    assert!(
        german.contains("<div class=\"prose\" lang=\"en\"><p>The cause is a full disk.</p>"),
        "{german}"
    );
    assert!(
        german.contains("Nicht übersetzt: Anzeige in der Originalsprache."),
        "{german}"
    );

    let (_, _, by_query) = read(&app, &format!("{page}?lang=de"), None).await;
    assert_eq!(
        by_query, german,
        "?lang=de reads as Accept-Language: de does"
    );

    let (_, _, english) = read(&app, &page, Some("en-GB")).await;
    assert!(english.contains(">Sign-in failures</h1>"), "{english}");
    assert!(english.contains("We are investigating failed sign-ins."));
    assert!(!english.contains("Anmeldefehler"));
    assert!(
        !english.contains("class=\"untranslated\""),
        "nothing is marked in the original"
    );

    // The overview's card, in German, with the name translated.
    let (_, _, overview) = read(&app, "/status/acme", Some("de")).await;
    assert!(overview.contains(">Anmeldefehler</a>"), "{overview}");

    // Renaming replaces the translations of the name.
    let (status, body) = app
        .api(&token)
        .patch(
            &format!("/pages/acme/incidents/{id}"),
            json!({"translations": {"de": {"name": "Anmeldung gestört"}}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["translations"],
        json!({"de": {"name": "Anmeldung gestört"}})
    );
    app.refreshed().await;
    let (_, _, german) = read(&app, &page, Some("de")).await;
    assert!(german.contains(">Anmeldung gestört</h1>"), "{german}");
}

async fn machine_clients_get_the_default_language_unless_they_ask(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = bilingual(&app).await;
    open_translated(&app, &token).await;

    let name = |body: &str| -> String {
        let value: Value = serde_json::from_str(body).expect("json");
        value["incidents"][0]["name"].as_str().unwrap().to_owned()
    };
    let path = "/status/acme/api/v2/incidents.json";
    let (status, headers, body) = read(&app, path, Some("de")).await;
    assert_eq!(status, 200);
    assert_eq!(
        name(&body),
        "Sign-in failures",
        "a browser's language is not the JSON's"
    );
    assert_eq!(headers.get("content-language"), "");
    let (_, _, body) = read(&app, &format!("{path}?lang=de"), None).await;
    assert_eq!(name(&body), "Anmeldefehler");
    let value: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        value["incidents"][0]["incident_updates"][0]["body"],
        "Wir untersuchen fehlgeschlagene Anmeldungen."
    );

    let (_, _, atom) = read(&app, "/status/acme/history.atom?lang=de", None).await;
    assert!(atom.contains("Anmeldefehler"), "{atom}");
    let (_, _, atom) = read(&app, "/status/acme/history.atom", Some("de")).await;
    assert!(
        atom.contains("Sign-in failures") && !atom.contains("Anmeldefehler"),
        "{atom}"
    );

    // A German default: the JSON is German, English when asked.
    let (status, body) = app
        .api(&token)
        .patch("/pages/acme", json!({"default_language": "de"}))
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let (_, _, body) = read(&app, path, None).await;
    assert_eq!(name(&body), "Anmeldefehler");
    // The status is described in the page's words too; asked in English, Statuspage's.
    let description = |body: &str| -> String {
        let doc: serde_json::Value = serde_json::from_str(body).unwrap();
        doc["status"]["description"].as_str().unwrap().to_owned()
    };
    let (_, _, body) = read(&app, "/status/acme/api/v2/status.json", None).await;
    let german = herald::render::i18n::text(herald::domain::lang::Lang::De, "indicator-major");
    assert_eq!(description(&body), german, "{body}");
    let (_, _, body) = read(&app, "/status/acme/api/v2/status.json?lang=en", None).await;
    assert_eq!(description(&body), "Partial System Outage", "{body}");
    let (_, _, html) = read(&app, "/status/acme", None).await;
    assert!(
        html.contains("<html lang=\"de\""),
        "the default reader's language: {html}"
    );
}

async fn a_page_in_one_language_ignores_the_readers(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    app.refreshed().await;
    let (status, headers, html) = read(&app, "/status/acme?lang=de", Some("de")).await;
    assert_eq!(status, 200);
    assert!(html.contains("<html lang=\"en\""));
    assert!(html.contains(">History</a>"));
    assert!(
        !html.contains("lang-switch"),
        "no switcher for one language"
    );
    assert!(
        !html.contains("?lang=") && !html.contains("&amp;lang="),
        "no language in its links"
    );
    assert_eq!(headers.get("vary"), "Accept-Encoding");
    assert_eq!(headers.get("content-language"), "");

    // A page whose only language is German reads in German for everyone.
    let token = app.token(Role::Owner).await;
    let (status, body) = app
        .api(&token)
        .patch(
            "/pages/acme",
            json!({"languages": ["de"], "default_language": "de"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let (_, _, html) = read(&app, "/status/acme", Some("en")).await;
    assert!(html.contains("<html lang=\"de\""), "{html}");
    assert!(html.contains(">Verlauf</a>"));
}

async fn bad_language_settings_are_refused_by_field(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = bilingual(&app).await;
    let cases = [
        (
            json!({"languages": ["en", "xx"]}),
            "languages",
            "'xx' is not a valid language",
        ),
        (json!({"languages": ["en", "en"]}), "languages", "twice"),
        (
            json!({"languages": []}),
            "languages",
            "at least one language",
        ),
        (
            json!({"languages": ["de"]}),
            "languages",
            "default language 'en'",
        ),
        (
            json!({"default_language": "fr"}),
            "default_language",
            "must be one of the page's languages (en, de)",
        ),
        (
            json!({"default_language": "klingon"}),
            "default_language",
            "not a valid language",
        ),
        (
            json!({"languages": ["fr"], "default_language": "de"}),
            "default_language",
            "(fr)",
        ),
    ];
    for (patch, field, says) in cases {
        let (status, body) = app.api(&token).patch("/pages/acme", patch.clone()).await;
        assert_eq!(status, 422, "{patch}: {body}");
        let message = body["fields"][field][0].as_str().unwrap_or_default();
        assert!(message.contains(says), "{patch}: {body}");
    }
    let (_, page) = app.api(&token).get("/pages/acme").await;
    assert_eq!(page["languages"], json!(["en", "de"]), "nothing changed");
    assert_eq!(page["default_language"], "en");
}

async fn bad_translations_are_refused_and_nothing_is_written(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let token = bilingual(&app).await;
    let incident = |translations: Value| json!({"name": "Outage", "body": "Looking.", "translations": translations});
    let cases = [
        (
            incident(json!({"xx": {"name": "?"}})),
            "'xx' is not a valid language",
        ),
        (
            incident(json!({"de": {"title": "?"}})),
            "de.title: not a translatable field here (only name, body)",
        ),
        (
            incident(json!({"de": {"name": "  "}})),
            "de.name: must not be blank",
        ),
        (
            incident(json!({"de": {"name": "x".repeat(201)}})),
            "de.name: must be at most 200 characters long, got 201",
        ),
    ];
    for (body, says) in cases {
        let (status, answer) = app
            .api(&token)
            .post("/pages/acme/incidents", body.clone())
            .await;
        assert_eq!(status, 422, "{body}: {answer}");
        let message = answer["fields"]["translations"][0]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains(says), "{body}: {answer}");
    }
    let (_, listed) = app.api(&token).get("/pages/acme/incidents").await;
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(0),
        "no incident written: {listed}"
    );

    // An update takes a body only; a wrong shape is a 422 on the field.
    let id = open_translated(&app, &token).await;
    let (status, answer) = app
        .api(&token)
        .post(
            &format!("/pages/acme/incidents/{id}/updates"),
            json!({"body": "More.", "translations": {"de": {"name": "Nein"}}}),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["fields"]["translations"][0]
            .as_str()
            .unwrap()
            .contains("only body")
    );
    let (status, answer) = app
        .api(&token)
        .post(
            &format!("/pages/acme/incidents/{id}/updates"),
            json!({"body": "More.", "translations": {"de": "Mehr."}}),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    let message = answer["fields"]["translations"][0]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("expected a map"), "{answer}");
    let (_, detail) = app
        .api(&token)
        .get(&format!("/pages/acme/incidents/{id}"))
        .await;
    assert_eq!(
        detail["incident_updates"].as_array().map(Vec::len),
        Some(1),
        "{detail}"
    );
}

async fn the_forms_follow_the_readers_language(db: TestDb) {
    let app = TestApp::spawn(db).await;
    bilingual(&app).await;
    let (status, headers, html) = read(&app, "/status/acme/subscribe", Some("de")).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("<html lang=\"de\""), "{html}");
    assert!(html.contains(">Updates abonnieren</h1>"), "{html}");
    assert!(
        html.contains(r#"action="/status/acme/subscribe?lang=de""#),
        "{html}"
    );
    assert_eq!(headers.get("cache-control"), "no-store");

    let (status, _, html) = read(&app, "/status/acme/support?lang=de", None).await;
    assert_eq!(status, 200);
    assert!(html.contains(">Support kontaktieren</h1>"), "{html}");
    assert!(
        html.contains(r#"action="/status/acme/support?lang=de""#),
        "{html}"
    );
    assert!(
        html.contains(">Ich kann mich nicht anmelden</option>"),
        "{html}"
    );
    // What the forms answer is in the reader's language too.
    let refused = app
        .client
        .post(format!("{}/status/acme/subscribe?lang=de", app.address))
        .form(&[("type", "webhook"), ("url", "not a url")])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 422);
    let html = refused.text().await.unwrap();
    assert!(html.contains("<html lang=\"de\""), "{html}");
    assert!(
        html.contains("Bitte korrigieren Sie die markierten Felder.")
            || html.contains("kein Mailserver eingerichtet"),
        "{html}"
    );
    let german = |key| herald::render::i18n::text(herald::domain::lang::Lang::De, key);
    assert!(
        html.contains(&german("subscribe-error-url")),
        "the field's message: {html}"
    );
    let refused = app
        .client
        .post(format!("{}/status/acme/support?lang=de", app.address))
        .form(&[("email", "nobody"), ("message", "")])
        .send()
        .await
        .unwrap();
    let status = refused.status();
    let html = refused.text().await.unwrap();
    assert_eq!(status, 422, "the fields are refused: {html}");
    assert!(html.contains("<html lang=\"de\""), "{html}");
    assert!(!html.contains("Please "), "no English notice: {html}");
    assert!(html.contains(&german("form-error-email")), "{html}");
    assert!(
        html.contains(&german("support-error-message-empty")),
        "{html}"
    );

    // The blank form is kept per language: English readers still get English.
    let (_, _, html) = read(&app, "/status/acme/support", None).await;
    assert!(html.contains(">Contact support</h1>"), "{html}");
    assert!(html.contains(">I can&#39;t sign in</option>"), "{html}");
}

async fn the_console_sets_the_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    app.page("acme").through_api(&owner).create().await;
    let console = Console::sign_in(&app, "admin@example.com", Role::Owner).await;
    let (_, shown) = console.get("/admin/pages/acme/settings").await;
    assert!(
        shown.contains(r#"name="lang_en" type="checkbox" value="yes" checked>"#),
        "{shown}"
    );
    assert!(shown.contains(r#"name="lang_de" type="checkbox" value="yes">"#));
    let form = |langs: &[&'static str], default: &'static str| {
        let mut fields = vec![
            ("name", "Acme"),
            ("slug", "acme"),
            ("time_zone", "UTC"),
            ("visibility", "public"),
            ("support_reach", "everyone"),
            ("theme", "auto"),
            ("default_language", default),
        ];
        fields.extend(langs.iter().map(|l| (*l, "yes")));
        fields
    };
    let mut good = form(&["lang_en", "lang_de"], "de");
    good.push(("csrf_token", &console.csrf));
    let (status, _, body) = console.post("/admin/pages/acme/settings", &good).await;
    assert_eq!(status, 303, "{body}");
    let (_, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(page["languages"], json!(["en", "de"]));
    assert_eq!(page["default_language"], "de");
    let (_, shown) = console.get("/admin/pages/acme/settings").await;
    assert!(shown.contains(r#"name="lang_de" type="checkbox" value="yes" checked>"#));
    assert!(shown.contains(r#"<option value="de" selected>"#), "{shown}");

    // Unticking the default is refused on the field, with what was typed kept.
    let mut bad = form(&["lang_en"], "de");
    bad.push(("csrf_token", &console.csrf));
    let (status, _, body) = console.post("/admin/pages/acme/settings", &bad).await;
    assert_eq!(status, 422);
    assert!(
        body.contains(
            "the default language &#39;de&#39; must be one of the page&#39;s languages (en)"
        ),
        "{body}"
    );
    let (_, page) = app.api(&owner).get("/pages/acme").await;
    assert_eq!(page["languages"], json!(["en", "de"]), "nothing changed");
}

async fn the_mail_goes_out_in_the_subscribers_language(db: TestDb) {
    let s = Setup::spawn(db).await;
    let (status, body) = s
        .app
        .api(&s.token)
        .patch("/pages/acme", json!({"languages": ["en", "de"]}))
        .await;
    assert_eq!(status, 200, "{body}");
    s.app.refreshed().await;

    // A language the page is not read in is refused on the field.
    let (status, body) = s
        .subscribe(json!({"type": "email", "email": "fr@example.com", "language": "fr"}))
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["fields"]["language"][0],
        "'fr' is not a language of this page; it is read in en, de"
    );

    let mut confirmed = Vec::new();
    for (address, language) in [("de@example.com", Some("de")), ("en@example.com", None)] {
        let mut ask = json!({"type": "email", "email": address});
        if let Some(language) = language {
            ask["language"] = json!(language);
        }
        let (status, body) = s.subscribe(ask).await;
        assert_eq!(status, 202, "{body}");
        let confirmation = s.smtp.wait_for(address, 1).await.remove(0);
        let link = confirmation.link("/confirm/").expect("a confirmation link");
        let (status, page) = s.follow("GET", &link, "").await;
        assert_eq!(status, 200, "confirmed");
        // The link opens its page in the subscriber's language.
        let (lang, title) = match language {
            Some(_) => ("de", "Abonnement bestätigt"),
            None => ("en", "Subscription confirmed"),
        };
        assert!(page.contains(&format!("<html lang=\"{lang}\"")), "{page}");
        assert!(page.contains(title), "{page}");
        confirmed.push(confirmation);
    }
    let german = &confirmed[0];
    assert_eq!(
        german.subject().as_deref(),
        Some("Bestätigen Sie Ihr Abonnement der Status-Updates von Acme")
    );
    assert!(
        german.html().contains("<html lang=\"de\">"),
        "{}",
        german.html()
    );
    let english = &confirmed[1];
    assert_eq!(
        english.subject().as_deref(),
        Some("Confirm your subscription to Acme status updates")
    );

    let (status, body) = s
        .app
        .api(&s.token)
        .post(
            "/pages/acme/incidents",
            json!({
                "name": "Sign-in failures",
                "impact": "major",
                "body": "We are investigating failed sign-ins.",
                "translations": {"de": {
                    "name": "Anmeldefehler",
                    "body": "Wir untersuchen fehlgeschlagene Anmeldungen.",
                }},
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let german = s.smtp.wait_for("de@example.com", 2).await.remove(1);
    assert_eq!(
        german.subject().as_deref(),
        Some("[Acme] Anmeldefehler: Wird untersucht")
    );
    let text = german.text();
    assert!(text.starts_with("Neue Störung: Anmeldefehler"), "{text}");
    assert!(
        text.contains("Wir untersuchen fehlgeschlagene Anmeldungen."),
        "{text}"
    );
    assert!(!text.contains("We are investigating"), "{text}");
    assert!(
        text.contains(
            "Sie erhalten diese Nachricht, weil Sie die Status-Updates von Acme abonniert haben."
        ),
        "{text}"
    );
    let html = german.html();
    assert!(html.contains("<html lang=\"de\">"), "{html}");
    // Its manage link opens the page in German, and so does a link no longer valid.
    let manage = german.link("/unsubscribe/").expect("a manage link");
    assert!(manage.ends_with("?lang=de"), "{manage}");
    let (status, page) = s.follow("GET", &manage, "").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(">Ihr Abonnement<") && page.contains(">Abbestellen<"),
        "{page}"
    );
    assert!(
        page.contains("?lang=de\""),
        "the button keeps the language: {page}"
    );
    let dead = manage.replace("/unsubscribe/", "/unsubscribe/x");
    let (status, page) = s.follow("GET", &dead, "").await;
    assert_eq!(status, 404, "{page}");
    assert!(page.contains("Der Link ist nicht mehr gültig"), "{page}");
    assert!(
        html.contains(">Details auf der Statusseite ansehen</a>"),
        "{html}"
    );
    assert!(
        html.contains(r#"von <a href="http"#),
        "the page's name links to it inside the sentence: {html}"
    );

    let english = s.smtp.wait_for("en@example.com", 2).await.remove(1);
    assert_eq!(
        english.subject().as_deref(),
        Some("[Acme] Sign-in failures: Investigating")
    );
    assert!(english.text().starts_with("New incident: Sign-in failures"));
    assert!(
        english
            .text()
            .contains("We are investigating failed sign-ins.")
    );
}

async fn the_console_takes_translations(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = bilingual(&app).await;
    let console = Console::sign_in(&app, "admin@example.com", Role::Owner).await;
    let (_, form) = console.get("/admin/pages/acme/incidents/new").await;
    assert!(form.contains(r#"<fieldset lang="de">"#), "{form}");
    assert!(form.contains(r#"name="tr_de_name""#) && form.contains(r#"name="tr_de_body""#));
    let fields = vec![
        ("name", "Payments failing"),
        ("impact", "major"),
        ("status", "investigating"),
        ("body", "Card payments fail."),
        ("tr_de_name", "Zahlungen schlagen fehl"),
        ("tr_de_body", "Kartenzahlungen schlagen fehl."),
        ("csrf_token", &console.csrf),
    ];
    let (status, location, body) = console
        .post("/admin/pages/acme/incidents/new", &fields)
        .await;
    assert_eq!(status, 303, "{body}");
    app.refreshed().await;
    let id = location.rsplit('/').next().unwrap().to_owned();
    let (_, incident) = app
        .api(&owner)
        .get(&format!("/pages/acme/incidents/{id}"))
        .await;
    assert_eq!(
        incident["translations"]["de"]["name"],
        "Zahlungen schlagen fehl"
    );

    // An update's message in German, from the incident's page.
    let (_, page) = console.get(&format!("/admin/incidents/{id}")).await;
    assert!(page.contains(r#"name="tr_de_body""#), "{page}");
    let fields = vec![
        ("status", "identified"),
        ("body", "A certificate expired."),
        ("tr_de_body", "Ein Zertifikat ist abgelaufen."),
        ("csrf_token", &console.csrf),
    ];
    let (status, _, body) = console
        .post(&format!("/admin/incidents/{id}/updates"), &fields)
        .await;
    assert_eq!(status, 303, "{body}");
    app.refreshed().await;
    let (_, _, german) = read(&app, &format!("/status/acme/incidents/{id}"), Some("de")).await;
    assert!(german.contains(">Zahlungen schlagen fehl</h1>"), "{german}");
    assert!(
        german.contains("Ein Zertifikat ist abgelaufen."),
        "{german}"
    );
    assert!(
        german.contains("Kartenzahlungen schlagen fehl."),
        "{german}"
    );
    assert!(
        !german.contains("class=\"untranslated\""),
        "all of it is translated: {german}"
    );
}
