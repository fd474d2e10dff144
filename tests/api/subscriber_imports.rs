//! Moving subscribers: a subscriber file in Statuspage's layout (`tests/fixtures/subscribers`)
//! imported through the API and with `herald import subscribers`, against a real SMTP server
//! and a real webhook receiver: each new address gets one mail to confirm (none with
//! `--confirmed`), components follow, a re-import changes nothing, and what cannot be taken is
//! refused by line with the reason.

use herald::domain::Role;
use serde_json::{Value, json};

use crate::helpers::TestDb;
use crate::notify::Setup;
use crate::process::herald;

on_both_backends!(
    a_statuspage_subscriber_file_subscribes_each_once_with_their_components,
    the_command_line_imports_confirmed_lists_without_mail_and_others_with_one,
    a_file_or_endpoint_that_cannot_be_taken_is_refused_with_the_reason,
    a_large_file_is_written_in_parts_while_other_writes_go_on,
    herald_s_own_export_comes_back_as_it_was,
);

/// The fixture with the receiver's address in it.
fn fixture(s: &Setup) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/subscribers/statuspage_import.csv"
    ))
    .unwrap();
    text.replace("{hooks}/sp", &s.hooks.url("/sp"))
}

/// The page's subscribers by address (email, or URL for webhooks).
async fn subscribers(s: &Setup) -> std::collections::BTreeMap<String, Value> {
    let (status, list) = s.app.api(&s.token).get("/pages/acme/subscribers").await;
    assert_eq!(status, 200, "{list}");
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let key = v["email"].as_str().or(v["url"].as_str()).unwrap();
            (key.to_owned(), v.clone())
        })
        .collect()
}

fn component_ids(s: &Setup, indexes: &[usize]) -> Value {
    let mut ids: Vec<String> = indexes
        .iter()
        .map(|i| s.components[*i].to_string())
        .collect();
    ids.sort();
    json!(ids)
}

async fn a_statuspage_subscriber_file_subscribes_each_once_with_their_components(db: TestDb) {
    let s = Setup::spawn(db).await;
    let (status, kept) = s
        .app
        .api(&s.token)
        .post(
            "/pages/acme/subscribers",
            json!({"type": "email", "email": "kept@example.com"}),
        )
        .await;
    assert_eq!(status, 201, "{kept}");
    let body = json!({"page": "acme", "csv": fixture(&s)});
    let (status, report) = s
        .app
        .api(&s.token)
        .post("/imports/subscribers", body.clone())
        .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        report["created"],
        json!({"email subscribers": 3, "webhook subscribers": 1})
    );
    assert_eq!(report["skipped"], json!({"email subscribers": 1}));
    let refused: Vec<(String, String)> = report["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source_id"].as_str().unwrap().to_owned(),
                r["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let lines: Vec<&str> = refused.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(lines, ["line 5", "line 6", "line 7", "line 8", "line 9"]);
    assert!(
        refused[0]
            .1
            .starts_with("SMS subscribers are not carried over"),
        "{refused:?}"
    );
    assert!(refused[1].1.starts_with("Slack subscribers"), "{refused:?}");
    assert!(refused[2].1.starts_with("email "), "{refused:?}");
    assert_eq!(refused[3].1, "no component 'Billing' on this page");
    assert_eq!(refused[4].1, "the same subscriber as line 1");

    // Each as the file chose: components by name, the whole page when none are named; email
    // pending, the webhook subscribed at once.
    let list = subscribers(&s).await;
    assert_eq!(list.len(), 5, "{list:?}");
    assert_eq!(
        list["ann@example.com"]["components"],
        component_ids(&s, &[0])
    );
    assert_eq!(
        list["bob@example.com"]["components"],
        component_ids(&s, &[0, 1])
    );
    assert_eq!(list["carol@example.com"]["components"], Value::Null);
    for address in ["ann@example.com", "bob@example.com", "carol@example.com"] {
        assert_eq!(list[address]["state"], "pending", "{address}");
    }
    let hook = &list[&s.hooks.url("/sp")];
    assert_eq!(hook["state"], "confirmed");
    assert_eq!(hook["contact_email"], "ops@example.com");
    assert_eq!(hook["components"], component_ids(&s, &[1]));

    // One mail each, saying the page moved; its link confirms.
    let mail = s.smtp.wait_for("ann@example.com", 1).await.remove(0);
    let subject = mail.header("Subject").unwrap();
    assert!(
        subject.contains("have moved: confirm to keep them"),
        "{subject}"
    );
    let link = mail.link("/confirm/").expect("a confirmation link");
    let (status, page) = s.follow("GET", &link, "").await;
    assert_eq!(status, 200);
    assert!(page.contains("Subscription confirmed"), "{page}");
    s.smtp.wait_for("bob@example.com", 1).await;
    s.smtp.wait_for("carol@example.com", 1).await;
    s.settle().await;

    // The same file again changes nothing and sends nothing.
    let (status, again) = s.app.api(&s.token).post("/imports/subscribers", body).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["created"], json!({}));
    assert_eq!(
        again["skipped"],
        json!({"email subscribers": 4, "webhook subscribers": 1})
    );
    assert_eq!(again["refused"].as_array().unwrap().len(), 5);
    s.settle().await;
    for address in ["ann@example.com", "bob@example.com", "carol@example.com"] {
        assert_eq!(s.smtp.to(address).len(), 1, "{address} got one mail in all");
    }
    assert!(s.smtp.to("kept@example.com").is_empty());
    let after = subscribers(&s).await;
    assert_eq!(after.len(), 5);
    assert_eq!(after["ann@example.com"]["state"], "confirmed");

    // The subscriptions work: an incident on API reaches Ann (API) and Bob (still pending, so
    // not him); the webhook chose Website and hears nothing of it.
    s.open(json!({
        "name": "API errors", "body": "Looking into it.", "impact": "minor",
        "components": {s.components[0].to_string(): "partial_outage"},
    }))
    .await;
    let update = s.smtp.wait_for("ann@example.com", 2).await;
    assert!(
        update[1].text().contains("Looking into it."),
        "{}",
        update[1].text()
    );
    s.settle().await;
    assert_eq!(s.smtp.to("bob@example.com").len(), 1, "pending: no update");
    assert_eq!(s.hooks.count(), 0, "the webhook chose Website only");

    let (_, audit) = s.app.api(&s.token).get("/audit?page=acme").await;
    assert!(audit.to_string().contains("import.subscribers"), "{audit}");
    assert!(
        !audit.to_string().contains("bob@example.com"),
        "the audit keeps counts, not addresses"
    );
}

/// Runs `herald import subscribers` on the app's database; (exit code, stdout, stderr).
async fn cli(s: &Setup, args: Vec<String>) -> (Option<i32>, String, String) {
    let url = s.app.test_db.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let out = herald(dir.path())
            .args(["import", "subscribers"])
            .args(&args)
            .env("DATABASE_URL", &url)
            .env("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    })
    .await
    .unwrap()
}

async fn the_command_line_imports_confirmed_lists_without_mail_and_others_with_one(db: TestDb) {
    let s = Setup::spawn(db).await;
    let dir = tempfile::tempdir().unwrap();
    // A headed export, as Statuspage's and Herald's own are.
    let confirmed = dir.path().join("confirmed.csv");
    std::fs::write(
        &confirmed,
        "Email Address,Mode,Components\r\nEve@Example.com,email,Website\r\nfay@example.com,email,\r\n",
    )
    .unwrap();
    let args = |file: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "--page".to_owned(),
            "acme".to_owned(),
            "--csv".to_owned(),
            file.display().to_string(),
        ];
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        args
    };
    let (code, out, err) = cli(&s, args(&confirmed, &["--confirmed"])).await;
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains("read 2 rows from"), "{err}");
    assert!(
        err.contains("subscribers: 2/2"),
        "progress on stderr: {err}"
    );
    assert!(out.contains("created: 2 email subscribers"), "{out}");
    assert!(out.contains("refused: 0"), "{out}");
    let list = subscribers(&s).await;
    assert_eq!(list["eve@example.com"]["state"], "confirmed");
    assert_eq!(
        list["eve@example.com"]["components"],
        component_ids(&s, &[1])
    );
    s.settle().await;
    assert!(
        s.smtp.to("eve@example.com").is_empty(),
        "--confirmed: no mail"
    );

    let (code, out, err) = cli(&s, args(&confirmed, &["--confirmed"])).await;
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("created: nothing"), "{out}");
    assert!(
        out.contains("skipped (already there): 2 email subscribers"),
        "{out}"
    );

    // Without --confirmed, the running server sends the mail the command queued.
    let pending = dir.path().join("pending.csv");
    std::fs::write(&pending, "email,gus@example.com,no,API\n").unwrap();
    let (code, out, err) = cli(&s, args(&pending, &[])).await;
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("each new email subscriber gets one mail"),
        "{out}"
    );
    let mail = s.smtp.wait_for("gus@example.com", 1).await.remove(0);
    assert!(mail.link("/confirm/").is_some());

    // Bad input: a clear message, exit 2, nothing written.
    let binary = dir.path().join("binary.csv");
    std::fs::write(&binary, b"\xff\xfe\x00e\x00m").unwrap();
    let missing = dir.path().join("missing.csv");
    let cases = [
        (args(&missing, &[]), "--csv: cannot read"),
        (args(&binary, &[]), "not UTF-8"),
        (
            vec![
                "--page".into(),
                "nowhere".into(),
                "--csv".into(),
                pending.display().to_string(),
            ],
            "--page: there is no page 'nowhere'",
        ),
    ];
    for (args, expected) in cases {
        let (code, out, err) = cli(&s, args).await;
        assert_eq!(code, Some(2), "{out}\n{err}");
        assert!(err.contains(expected), "{expected}: {err}");
    }
    assert_eq!(subscribers(&s).await.len(), 3);
}

async fn a_file_or_endpoint_that_cannot_be_taken_is_refused_with_the_reason(db: TestDb) {
    // At the defaults, a webhook on a private address is refused like a subscribing one.
    let s = Setup::spawn_with(db, false).await;
    let csv = format!(
        "webhook,{},,\nemail,hal@example.com,no,\n",
        s.hooks.url("/private")
    );
    let body = json!({"page": "acme", "csv": csv});
    let (status, report) = s.app.api(&s.token).post("/imports/subscribers", body).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["created"], json!({"email subscribers": 1}));
    let reason = report["refused"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("endpoint: ") && reason.contains("loopback"),
        "{reason}"
    );

    for (body, field) in [
        (
            json!({"page": "acme", "csv": "name,phone\nAnn,555\n"}),
            "csv",
        ),
        (json!({"page": "acme", "csv": ""}), "csv"),
        (
            json!({"page": "nowhere", "csv": "email,a@example.com\n"}),
            "page",
        ),
        (json!({"page": "acme"}), "csv"),
        (
            json!({"page": "acme", "csv": "email,a@example.com", "confirmed": "yes"}),
            "confirmed",
        ),
    ] {
        let (status, refused) = s.app.api(&s.token).post("/imports/subscribers", body).await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused["fields"][field].is_array(), "{field}: {refused}");
    }
    let responder = s.app.token(Role::Responder).await;
    let body = json!({"page": "acme", "csv": "email,zed@example.com\n"});
    let (status, _) = s
        .app
        .api(&responder)
        .post("/imports/subscribers", body)
        .await;
    assert_eq!(status, 403, "owners only");
    assert_eq!(subscribers(&s).await.len(), 1, "only hal");
}

/// The rows of the page's subscriber export (its header left out).
async fn exported(s: &Setup, slug: &str) -> Vec<String> {
    let res = s
        .app
        .client
        .get(format!(
            "{}/api/v1/pages/{slug}/subscribers/export",
            s.app.address
        ))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    text.lines().skip(1).map(str::to_owned).collect()
}

async fn a_large_file_is_written_in_parts_while_other_writes_go_on(db: TestDb) {
    let s = Setup::spawn(db).await;
    // 5,000 rows: five transactions. Row 4,502 repeats row 12's address, in another part.
    let mut csv = String::from("email\n");
    for n in 0..5_000 {
        let n = if n == 4_500 { 10 } else { n };
        csv.push_str(&format!("reader{n}@example.com\n"));
    }
    let body = json!({"page": "acme", "csv": csv, "confirmed": true});
    let importing = tokio::spawn({
        let client = s.app.client.clone();
        let url = format!("{}/api/v1/imports/subscribers", s.app.address);
        let token = s.token.clone();
        async move {
            let res = client
                .post(url)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            (status, res.json::<Value>().await.unwrap())
        }
    });
    // A responder keeps writing meanwhile: every answer is a success, or a 503 that says
    // when to come back; never a 500. Its writes go in between the import's transactions
    // (SQLite's writers wait in its busy handler, which an import beginning its next
    // transaction at once would keep out until it ended).
    let mut writes = 0;
    let mut written_while_importing = 0;
    while !importing.is_finished() || writes == 0 {
        let res = s
            .app
            .client
            .post(format!("{}/api/v1/pages/acme/components", s.app.address))
            .bearer_auth(&s.token)
            .json(&json!({"name": format!("Edge {writes}")}))
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        assert!(
            status == 201 || (status == 503 && res.headers().contains_key("retry-after")),
            "a write beside the import got {status}: {}",
            res.text().await.unwrap()
        );
        writes += 1;
        if status == 201 && !importing.is_finished() {
            written_while_importing += 1;
        }
    }
    assert!(
        written_while_importing >= 2,
        "{written_while_importing} writes were made while the import ran"
    );
    let (status, report) = importing.await.unwrap();
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["created"], json!({"email subscribers": 4_999}));
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{report}");
    assert_eq!(refused[0]["source_id"], "line 4502");
    assert_eq!(refused[0]["reason"], "the same subscriber as line 12");
    // The answer is what was stored.
    assert_eq!(exported(&s, "acme").await.len(), 4_999);
    let mut parts = Vec::new();
    for offset in (0..).step_by(100) {
        let path = format!("/audit?limit=100&offset={offset}");
        let (status, audit) = s.app.api(&s.token).get(&path).await;
        assert_eq!(status, 200, "{audit}");
        let entries = audit.as_array().unwrap();
        if entries.is_empty() {
            break;
        }
        parts.extend(
            entries
                .iter()
                .filter(|e| e["action"] == "import.subscribers")
                .map(|e| e["changes"]["rows"].clone()),
        );
    }
    parts.sort_by_key(|rows| {
        rows.as_str()
            .unwrap()
            .split('-')
            .next()
            .unwrap()
            .parse::<u32>()
            .unwrap()
    });
    assert_eq!(
        parts,
        [
            "1-1000 of 5000",
            "1001-2000 of 5000",
            "2001-3000 of 5000",
            "3001-4000 of 5000",
            "4001-5000 of 5000"
        ],
        "one audit row per transaction"
    );
}

async fn herald_s_own_export_comes_back_as_it_was(db: TestDb) {
    let s = Setup::spawn(db).await;
    // A confirmed address that a spreadsheet would run as a formula, and one that never
    // confirmed (subscribed on the public page, its link not opened).
    let (status, made) = s
        .app
        .api(&s.token)
        .post(
            "/pages/acme/subscribers",
            json!({"type": "email", "email": "=1+2@example.com"}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let (status, body) = s
        .subscribe(json!({"type": "email", "email": "pat@example.com"}))
        .await;
    assert_eq!(status, 202, "an address to confirm: {body}");
    let rows = exported(&s, "acme").await;
    assert!(
        rows.iter().any(|r| r.contains(",'=1+2@example.com,")),
        "the export guards the formula: {rows:?}"
    );
    let (status, _) = s
        .app
        .api(&s.token)
        .post("/pages", json!({"slug": "beta", "name": "Beta"}))
        .await;
    assert_eq!(status, 201);
    let res = s
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
    let csv = res.text().await.unwrap();
    // The operator vouches for the list: confirmed.
    let (status, report) = s
        .app
        .api(&s.token)
        .post(
            "/imports/subscribers",
            json!({"page": "beta", "csv": csv, "confirmed": true}),
        )
        .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["created"], json!({"email subscribers": 2}));
    let (status, list) = s.app.api(&s.token).get("/pages/beta/subscribers").await;
    assert_eq!(status, 200, "{list}");
    let state_of = |email: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|v| v["email"] == email)
            .unwrap_or_else(|| panic!("{email} in {list}"))["state"]
            .clone()
    };
    assert_eq!(
        state_of("=1+2@example.com"),
        "confirmed",
        "without its guard"
    );
    assert_eq!(
        state_of("pat@example.com"),
        "pending",
        "an address that never confirmed does not become confirmed by a file"
    );
}
