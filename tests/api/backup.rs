//! `herald backup` and `herald restore`, run as an operator runs them, against real databases:
//! a backup taken while writes go on restores into the other backend with every table's rows
//! equal, and a page moved that way reads the same, byte for byte; what must be refused (a
//! database that is not empty, an archive cut short or changed, a wrong passphrase) is refused
//! with exit 2 and nothing written.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use herald::backup::archive::Reader;
use herald::backup::seal;
use serde_json::json;

use herald::domain::Role;
use herald::workers::Registry;
use serde_json::Value;

use crate::delivery::webhooks::verified_by_the_reference_library;
use crate::held::roles::World;
use crate::helpers::{Console, TestApp, TestDb};
use crate::notify::sinks::{Receiver, SmtpSink};
use crate::process::run_on as run;

on_both_backends!(
    a_backup_taken_while_writes_go_on_restores_into_the_other_backend_row_for_row,
    what_a_restore_must_refuse_it_refuses_and_writes_nothing,
    after_a_move_in_one_step_links_tokens_sessions_and_signatures_still_work,
    an_archive_of_an_older_schema_is_restored_then_migrated,
);

/// A new database of the other backend than `url`'s (SQLite when there is no PostgreSQL).
fn other_backend(url: &str) -> TestDb {
    match url.starts_with("sqlite") {
        true => TestDb::postgres().unwrap_or_else(TestDb::sqlite),
        false => TestDb::sqlite(),
    }
}

/// The tables of data in the database at `url`, and whether it has Herald's record of
/// migrations: nothing of either in a database nothing was written to.
fn schema_in(url: &str) -> (Vec<String>, bool) {
    let url = herald::config::DatabaseUrl::parse(url).unwrap();
    let mut conn = herald::db::connection::establish(&url).unwrap();
    let tables = herald::db::archive::tables(&mut conn).unwrap();
    let migrated = herald::db::archive::schema_version(&mut conn).is_ok();
    (tables.into_iter().map(|t| t.name).collect(), migrated)
}

/// Each table's rows in the backup at `path`, sorted.
fn rows_of(path: &Path, passphrase: Option<&str>) -> BTreeMap<String, Vec<String>> {
    let passphrase = passphrase.map(|p| age::secrecy::SecretString::from(p.to_owned()));
    let mut reader = Reader::open(seal::open(path, passphrase).unwrap()).unwrap();
    let manifest = reader.manifest().clone();
    let mut tables = BTreeMap::new();
    for listed in &manifest.tables {
        let mut rows: Vec<String> = (0..listed.rows)
            .map(|_| reader.row(&listed.table).unwrap().to_owned())
            .map(|row| {
                // Both backends write JSON; only the spaces between values differ.
                let value: serde_json::Value = serde_json::from_str(&row).unwrap();
                value.to_string()
            })
            .collect();
        rows.sort();
        tables.insert(listed.table.name.clone(), rows);
    }
    reader.finish().unwrap();
    tables
}

/// The public representations of page `acme`: what a reader, a feed reader and a Statuspage
/// client are served.
pub(crate) async fn public_of(app: &TestApp) -> Vec<(String, String)> {
    let mut served = Vec::new();
    for path in [
        "/status/acme",
        "/status/acme/history",
        "/status/acme/api/v2/summary.json",
        "/status/acme/api/v2/incidents.json",
        "/status/acme/api/v2/scheduled-maintenances.json",
        "/status/acme/history.rss",
        "/status/acme/history.atom",
        "/status/acme/maintenances.ics",
        "/status/acme/badge.svg",
        "/status/acme/embed",
        "/status/acme/widget.json",
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        served.push((path.to_owned(), res.text().await.unwrap()));
    }
    // The logo, at the address the page gives it (where it has one).
    let page = served[0].1.clone();
    if let Some(at) = page.find("src=\"/status/acme/logo.") {
        let at = at + 5;
        let logo = &page[at..at + page[at..].find('"').unwrap()];
        let res = app.get(logo).await;
        assert_eq!(res.status(), 200, "{logo}");
        served.push((logo.to_owned(), res.text().await.unwrap()));
    }
    served
}

async fn a_backup_taken_while_writes_go_on_restores_into_the_other_backend_row_for_row(db: TestDb) {
    let w = World::spawn(db).await;
    w.page("acme").await;
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 4\"><rect width=\"4\" height=\"4\"/></svg>".to_vec();
    let (status, logo) = w
        .app
        .api(&w.owner)
        .put_bytes("/pages/acme/logo", "image/svg+xml", svg)
        .await;
    assert_eq!(status, 200, "{logo}");
    let source = w.app.test_db.url();
    let files = tempfile::tempdir().unwrap();
    let during = files.path().join("during.herald");

    // A responder keeps writing while the backup runs.
    let done = AtomicBool::new(false);
    let writing = async {
        let mut made = 0;
        while !done.load(Ordering::Acquire) {
            let body = json!({"name": format!("Edge {made}")});
            let (status, _) = w
                .app
                .api(&w.owner)
                .post("/pages/acme/components", body)
                .await;
            assert_eq!(status, 201);
            made += 1;
        }
        made
    };
    let backing_up = async {
        let (source, out) = (source.clone(), during.clone());
        let ran = tokio::task::spawn_blocking(move || {
            run(&source, &["backup", "--out", out.to_str().unwrap()])
        })
        .await
        .unwrap();
        done.store(true, Ordering::Release);
        ran
    };
    let (made, (code, stdout, stderr)) = tokio::join!(writing, backing_up);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(made > 0, "no write went on beside the backup");
    assert!(
        stderr.contains("deliveries: "),
        "progress on stderr: {stderr}"
    );
    assert!(
        stdout.contains("components: "),
        "counts on stdout: {stdout}"
    );
    assert!(stdout.contains("rows in "), "a total on stdout: {stdout}");

    let (code, stdout, stderr) = run(
        "",
        &["restore", "--verify", "--from", during.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("is a sound backup"), "{stdout}");

    // Restored into the other backend, every table holds the archive's rows: a backup of the
    // restored database has the same rows, table for table.
    let target = other_backend(&source);
    let (code, stdout, stderr) = run(
        &target.url(),
        &["restore", "--from", during.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("restored"), "{stdout}");
    let again = files.path().join("again.herald");
    let (code, _, stderr) = run(&target.url(), &["backup", "--out", again.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let (before, after) = (rows_of(&during, None), rows_of(&again, None));
    assert!(!before["deliveries"].is_empty() && before["page_images"].len() == 1);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (table, rows) in &before {
        assert_eq!(rows, &after[table], "table {table}");
    }
    // The snapshot is one moment: the components it holds are the page's first ones and some
    // of those written beside it, in the order they were written.
    let edges = before["components"]
        .iter()
        .filter(|r| r.contains("\"Edge "))
        .count();
    assert!(edges <= made, "{edges} of {made}");
    for n in 0..edges {
        let name = format!("\"Edge {n}\"");
        assert!(
            before["components"].iter().any(|r| r.contains(&name)),
            "Edge {n} is missing while a later one is there"
        );
    }

    // Once the writes are over, the page moved to the other backend reads the same.
    let quiet = files.path().join("quiet.herald");
    let (code, _, stderr) = run(&source, &["backup", "--out", quiet.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let moved = other_backend(&source);
    let (code, _, stderr) = run(
        &moved.url(),
        &["restore", "--from", quiet.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let there = TestApp::spawn(moved).await;
    there.wait_for_page("/status/acme").await;
    w.app.wait_for_page("/status/acme").await;
    let (here, there) = (public_of(&w.app).await, public_of(&there).await);
    assert!(
        here.iter().any(|(path, _)| path.contains("/logo.")),
        "the logo is compared"
    );
    for ((path, a), (_, b)) in here.iter().zip(&there) {
        assert_eq!(a, b, "{path} differs after the move");
    }
}

async fn what_a_restore_must_refuse_it_refuses_and_writes_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.acme().await;
    let source = app.test_db.url();
    let files = tempfile::tempdir().unwrap();
    let plain = files.path().join("plain.herald");
    let sealed = files.path().join("sealed.herald");
    let passphrase = files.path().join("passphrase");
    std::fs::write(&passphrase, "correct horse battery staple\n").unwrap();
    let (code, _, stderr) = run(&source, &["backup", "--out", plain.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, _, stderr) = run(
        &source,
        &[
            "backup",
            "--out",
            sealed.to_str().unwrap(),
            "--passphrase-file",
            passphrase.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    use std::os::unix::fs::PermissionsExt;
    for file in [&plain, &sealed] {
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }
    // An existing file is not overwritten.
    let (code, _, stderr) = run(&source, &["backup", "--out", plain.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");

    // Into the database it came from, which is not empty: refused, naming what it holds.
    let (code, _, stderr) = run(&source, &["restore", "--from", plain.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("not empty") && stderr.contains("status_pages"),
        "{stderr}"
    );

    let bytes = std::fs::read(&plain).unwrap();
    let cut = files.path().join("cut.herald");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    // A byte of the compressed stream changed: gzip's own check, or ours, sees it.
    let flipped = files.path().join("flipped.herald");
    let mut changed = bytes.clone();
    let middle = changed.len() / 2;
    changed[middle] ^= 0x20;
    std::fs::write(&flipped, &changed).unwrap();
    // The same archive, made by a newer Herald: its manifest names a schema this one lacks.
    let newer = files.path().join("newer.herald");
    {
        let mut reader = Reader::open(seal::open(&plain, None).unwrap()).unwrap();
        let mut manifest = reader.manifest().clone();
        manifest.schema = "29991231000001".to_owned();
        let out = seal::Output::create(&newer, None).unwrap();
        let mut writer = herald::backup::archive::Writer::new(out, &manifest).unwrap();
        for listed in &manifest.tables {
            for _ in 0..listed.rows {
                writer.row(reader.row(&listed.table).unwrap()).unwrap();
            }
        }
        reader.finish().unwrap();
        writer.finish().unwrap().finish().unwrap();
    }
    let wrong = files.path().join("wrong");
    std::fs::write(&wrong, "wrong horse\n").unwrap();
    let sealed_s = sealed.to_str().unwrap();
    let refusals: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--from", cut.to_str().unwrap()], "cut short"),
        (vec!["--from", flipped.to_str().unwrap()], "damaged"),
        (vec!["--from", sealed_s], "give its passphrase"),
        (
            vec![
                "--from",
                sealed_s,
                "--passphrase-file",
                wrong.to_str().unwrap(),
            ],
            "passphrase is wrong",
        ),
    ];
    for (args, why) in &refusals {
        for verify in [true, false] {
            let target = other_backend(&source);
            let mut all = vec!["restore"];
            all.extend(args);
            if verify {
                all.push("--verify");
            }
            let (code, _, stderr) = run(&target.url(), &all);
            assert_eq!(code, Some(2), "{all:?}: {stderr}");
            assert!(stderr.contains(why), "{all:?}: {stderr}");
            // Nothing was written: not even the schema.
            let (tables, migrated) = schema_in(&target.url());
            assert!(tables.is_empty() && !migrated, "{all:?} left {tables:?}");
        }
    }
    // A newer Herald's archive is sound (--verify says so) but is not restored by this one.
    let (code, _, stderr) = run(
        "",
        &["restore", "--verify", "--from", newer.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let target = other_backend(&source);
    let (code, _, stderr) = run(
        &target.url(),
        &["restore", "--from", newer.to_str().unwrap()],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("from a newer Herald"), "{stderr}");
    let (tables, migrated) = schema_in(&target.url());
    assert!(tables.is_empty() && !migrated, "{tables:?}");
    // The right passphrase opens it.
    let target = other_backend(&source);
    let pass = passphrase.to_str().unwrap();
    let (code, _, stderr) = run(
        &target.url(),
        &["restore", "--from", sealed_s, "--passphrase-file", pass],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        rows_of(&plain, None),
        rows_of(&sealed, Some("correct horse battery staple"))
    );
}

async fn after_a_move_in_one_step_links_tokens_sessions_and_signatures_still_work(db: TestDb) {
    let smtp = SmtpSink::start();
    let smtp_url = smtp.url();
    let mut w = World::spawn_with(db, &[("HERALD_SMTP_URL", smtp_url.as_str())]).await;
    let r = w.page("acme").await;
    let source = w.app.test_db.url();
    // A reader's webhook subscription: its signing secret and its manage link are the reader's.
    let hooks = Receiver::start();
    let res = w
        .app
        .client
        .post(format!("{}/status/acme/api/subscribe", w.app.address))
        .json(&json!({"type": "webhook", "url": hooks.url("/moved")}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let made: Value = res.json().await.unwrap();
    let secret = made["secret"].as_str().unwrap().to_owned();
    let manage = made["manage_url"].as_str().unwrap();
    let manage = manage[manage.find("/status/").unwrap()..].to_owned();
    // A private page and its read token; a responder signed in to the console.
    let (status, page) = w
        .app
        .api(&w.owner)
        .post(
            "/pages",
            json!({"slug": "inner", "name": "Inner", "visibility": "private"}),
        )
        .await;
    assert_eq!(status, 201, "{page}");
    let (status, made) = w
        .app
        .api(&w.owner)
        .post("/pages/inner/read-tokens", json!({"name": "Wallboard"}))
        .await;
    assert_eq!(status, 201, "{made}");
    let read_token = made["token"].as_str().unwrap().to_owned();
    let console = Console::sign_in(&w.app, "ops@example.com", Role::Responder).await;
    let session = |app: &TestApp| Console {
        client: console.client.clone(),
        cookie: console.cookie.clone(),
        csrf: console.csrf.clone(),
        base: app.address.clone(),
    };

    // A reader subscribes by mail, and is sent the link to confirm (followed after the move).
    let res = w
        .app
        .client
        .post(format!("{}/status/acme/api/subscribe", w.app.address))
        .json(&json!({"type": "email", "email": "reader@example.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let mail = smtp.wait_for("reader@example.com", 1).await;
    // A notification the reader's receiver cannot take yet: still trying when the source stops.
    hooks.answer(503);
    w.made(
        "/pages/acme/incidents",
        json!({"name": "Before the move", "body": "Looking.", "impact": "minor"}),
    )
    .await;
    hooks.wait_for("/moved", 1).await;
    let before_the_move = |hooks: &Receiver| {
        hooks
            .at("/moved")
            .iter()
            .filter(|h| String::from_utf8_lossy(&h.body).contains("Before the move"))
            .count()
    };
    w.app.stop().await.unwrap();
    let tried = before_the_move(&hooks);
    assert!(tried >= 1, "the source tried it");

    let target = other_backend(&source);
    let (code, stdout, stderr) = run(&source, &["copy", "--to", &target.url()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("copied"), "{stdout}");
    let extra = [
        ("HERALD_ALLOW_PRIVATE_WEBHOOKS", "true"),
        ("HERALD_SMTP_URL", smtp_url.as_str()),
    ];
    let there = TestApp::spawn_with(target, &extra, Registry::standard()).await;
    // The pending notification goes out from the new database, once.
    hooks.answer(200);
    there
        .clock
        .advance(std::time::Duration::from_secs(24 * 3600));
    there.deliver_pending().await;
    assert_eq!(
        before_the_move(&hooks),
        tried + 1,
        "sent once after the move"
    );
    there
        .clock
        .advance(std::time::Duration::from_secs(24 * 3600));
    there.deliver_pending().await;
    assert_eq!(before_the_move(&hooks), tried + 1, "and not again");

    // The link the reader was mailed before the move confirms them after it.
    let link = mail[0].link("/confirm/").expect("a confirmation link");
    let res = there.get(&link[link.find("/status/").unwrap()..]).await;
    assert_eq!(res.status(), 200);
    let (_, listed) = there.api(&w.owner).get("/pages/acme/subscribers").await;
    let reader = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["email"] == "reader@example.com")
        .expect("the reader");
    assert_eq!(reader["state"], "confirmed", "{reader}");
    // The integration's token still opens its endpoint.
    let (status, body) = there
        .api(&r.integration_token)
        .post(
            &r.integration_endpoint,
            json!({"component": "API", "status": "operational"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // The manage link opens the subscription; a made-up one does not.
    let res = there.get(&manage).await;
    assert_eq!(res.status(), 200, "{manage}");
    let res = there.get("/status/acme/unsubscribe/made-up").await;
    assert_eq!(res.status(), 404);
    // The read token opens the private page, which is closed without it.
    let summary = "/status/inner/api/v2/summary.json";
    let res = there.get(&format!("{summary}?token={read_token}")).await;
    assert_eq!(res.status(), 200);
    let res = there.get(summary).await;
    assert_eq!(res.status(), 401);
    // The session goes on; the API token opens an incident.
    let (status, _) = session(&there).get("/admin").await;
    assert_eq!(status, 200, "the session after the move");
    let (status, opened) = there
        .api(&w.owner)
        .post(
            "/pages/acme/incidents",
            json!({"name": "After the move", "body": "Checking.", "impact": "minor"}),
        )
        .await;
    assert_eq!(status, 201, "{opened}");
    // Its notification is signed with the secret the reader was given before the move.
    there.deliver_pending().await;
    let hit = hooks
        .at("/moved")
        .into_iter()
        .find(|h| String::from_utf8_lossy(&h.body).contains("After the move"))
        .expect("the subscriber's webhook after the move");
    let verdict = tokio::task::spawn_blocking(move || {
        verified_by_the_reference_library(&secret, &hit.headers, &hit.body)
    })
    .await
    .unwrap();
    assert_eq!(verdict, "valid");
}

async fn an_archive_of_an_older_schema_is_restored_then_migrated(db: TestDb) {
    // An older Herald's database: its schema as it was before the page languages
    // (2026-12-03-000003), with a page of that time.
    let url = db.url();
    let parsed = herald::config::DatabaseUrl::parse(&url).unwrap();
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("older.herald");
    let (older, out) = (String::from("20261203000002"), file.clone());
    let summary = tokio::task::spawn_blocking(move || {
        let mut conn = herald::db::connection::establish(&parsed).unwrap();
        herald::db::migrations::migrate_to(&mut conn, &older).unwrap();
        diesel::RunQueryDsl::execute(
            diesel::sql_query(
                "INSERT INTO status_pages (id, slug, name, created_at, updated_at) VALUES \
                 ('0193a0a0-0000-7000-8000-000000000001', 'older', 'The older page', \
                 '2026-12-02 09:00:00', '2026-12-02 09:00:00')",
            ),
            &mut conn,
        )
        .unwrap();
        let output = seal::Output::create(&out, None).unwrap();
        let (summary, output) = herald::backup::backup(&mut conn, output, &mut |_| {}).unwrap();
        output.finish().unwrap();
        summary
    })
    .await
    .unwrap();
    assert_eq!(summary.schema, "20261203000002");

    let target = other_backend(&url);
    let (code, stdout, stderr) = run(
        &target.url(),
        &["restore", "--from", file.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("schema 20261203000002"), "{stdout}");
    assert!(
        stderr.contains("applied migration 20261203000003"),
        "{stderr}"
    );
    let (_, status, _) = run(&target.url(), &["migrate", "--status"]);
    assert!(status.ends_with("0 pending\n"), "{status}");
    let there = TestApp::spawn(target).await;
    // Served by this Herald, whose queries read the columns the later migrations added.
    there.wait_for_text("/status/older", "The older page").await;
}
