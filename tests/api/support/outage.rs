//! The form while other things are down: sign-in broken, the database unreachable (the spool keeps every submission, once), a full spool, a damaged spool tail, and a form token sent again.

use super::*;

on_both_backends!(
    submissions_still_succeed_when_sign_in_is_broken,
    a_form_token_makes_one_submission_however_often_it_is_sent,
    a_full_spool_answers_503_and_loses_nothing_it_accepted,
    submissions_survive_a_database_outage_and_are_stored_exactly_once,
    a_damaged_spool_tail_is_set_aside_and_the_rest_replayed,
);

async fn submissions_still_succeed_when_sign_in_is_broken(db: TestDb) {
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    // Sign-in is broken for good: the tables it reads are gone.
    s.app
        .db
        .run(|c| {
            let drop = match c.backend() {
                herald::db::Backend::Postgres => {
                    "DROP TABLE sessions CASCADE; DROP TABLE api_tokens CASCADE; DROP TABLE users CASCADE;"
                }
                herald::db::Backend::Sqlite => {
                    "PRAGMA foreign_keys = OFF; DROP TABLE sessions; DROP TABLE api_tokens; DROP TABLE users; PRAGMA foreign_keys = ON;"
                }
            };
            Ok(c.batch_execute(drop)?)
        })
        .await
        .unwrap();
    let (status, _) = s.app.api("eyJhbGciOiJIUzI1NiJ9.e30.x").get("/me").await;
    assert_ne!(status, 200, "sign-in is indeed broken");

    // With a stale session cookie and a bearer header for good measure: neither is looked at.
    let res = s
        .app
        .client
        .post(format!("{}/status/acme/api/support", s.app.address))
        .header("cookie", "herald_session=eyJhbGciOiJIUzI1NiJ9.e30.garbage")
        .bearer_auth("not-a-token")
        .json(&s.body("I cannot sign in, the login page errors."))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let token = s.token(5);
    let (status, location, _) = s.post_form(&form_fields(&token, &s.component)).await;
    assert_eq!(status, 303, "the HTML form too");
    assert!(location.contains("reference=SUP-"));
    assert_eq!(s.stored().await.len(), 2);
}

/// Writes a file whole under a temporary name, then renames it into place (the replay task
/// must never see it half written).
fn put_in_place(path: &std::path::Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Waits (up to 20 s) until `n` submissions are stored; returns them.
async fn wait_for_stored(s: &Support, n: usize) -> Vec<rows::SupportSubmission> {
    let started = Instant::now();
    loop {
        let stored = s.try_stored().await.unwrap_or_default();
        if stored.len() >= n {
            return stored;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "only {} of {n} submissions stored",
            stored.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits (up to 20 s) until the replay has nothing left to do: no file waits for replay and
/// the live spool is empty. Nothing can be stored from the spool after that.
async fn wait_for_spool_drained(s: &Support) {
    let started = Instant::now();
    loop {
        let waiting: Vec<String> = std::fs::read_dir(s.spool_dir())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".replay")
                    || (name == "support-spool.log" && e.metadata().is_ok_and(|m| m.len() > 0))
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if waiting.is_empty() {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the spool still holds {waiting:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_form_token_makes_one_submission_however_often_it_is_sent(db: TestDb) {
    let s = Support::spawn(db, OUTAGE_READY).await;
    let first = s.body("The first message.");
    let (status, answer, _) = s.post_json(&first).await;
    assert_eq!(status, 201, "{answer}");
    let reference = answer["reference"].as_str().unwrap().to_owned();
    // A double click, and the same token with another message.
    let (status, again, _) = s.post_json(&first).await;
    assert_eq!(
        (status, again["reference"].as_str()),
        (201, Some(reference.as_str()))
    );
    let mut other = first.clone();
    other["message"] = json!("Another message on the same token.");
    let (status, again, _) = s.post_json(&other).await;
    assert_eq!(
        (status, again["reference"].as_str()),
        (201, Some(reference.as_str()))
    );
    // The HTML form: the same token twice redirects to the same reference.
    let token = s.token(5);
    let (_, location, _) = s.post_form(&form_fields(&token, &s.component)).await;
    let (_, second, _) = s.post_form(&form_fields(&token, &s.component)).await;
    assert!(location.contains("reference=SUP-"), "{location}");
    assert_eq!(location, second);
    let stored = wait_for_stored(&s, 2).await;
    assert_eq!(stored.len(), 2, "one per token: {stored:?}");
    let row = stored.iter().find(|r| r.reference == reference).unwrap();
    assert_eq!(row.message, "The first message.");

    // While the database is unreachable the spool takes it; the replay stores it once.
    let outage = s.app.break_database().await;
    let spooled = s.body("Sent during the outage, twice.");
    let (_, a, _) = s.post_json(&spooled).await;
    let (_, b, _) = s.post_json(&spooled).await;
    assert_eq!(a["reference"], b["reference"], "{a} {b}");
    outage.restore().await;
    let stored = wait_for_stored(&s, 3).await;
    let copies = stored
        .iter()
        .filter(|r| r.reference == a["reference"])
        .count();
    assert_eq!((stored.len(), copies), (3, 1), "{stored:?}");
}

async fn a_full_spool_answers_503_and_loses_nothing_it_accepted(db: TestDb) {
    let s = Support::spawn(
        db,
        &[
            ("HERALD_DB_POOL_SIZE", "1"),
            ("HERALD_DB_TIMEOUT_MS", "300"),
            ("HERALD_SUPPORT_RATE_PER_MIN", "100000"),
            ("HERALD_SUPPORT_SPOOL_MAX_MB", "1"),
        ],
    )
    .await;
    let outage = s.app.break_database().await;
    let long = "I cannot sign in. ".repeat(200); // about 3.6 KB a record
    let mut accepted = 0;
    let mut refusal = None;
    for _ in 0..1000 {
        let (status, body, headers) = s.post_json(&s.body(&long)).await;
        match status {
            201 => accepted += 1,
            _ => {
                refusal = Some((status, body, headers));
                break;
            }
        }
    }
    let (status, body, headers) = refusal.expect("the spool filled up");
    assert_eq!(status, 503, "{body}");
    assert_eq!(headers["retry-after"], "60");
    assert!(
        (200..=300).contains(&accepted),
        "1 MiB holds about 280: {accepted}"
    );
    let spooled: u64 = std::fs::read_dir(s.spool_dir())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(spooled <= 1024 * 1024, "the bound holds on disk: {spooled}");
    // The HTML form says so in words, keeping what was typed.
    let token = s.token(5);
    let mut fields = form_fields(&token, &s.component);
    fields.retain(|(k, _)| *k != "message");
    fields.push(("message", long.as_str()));
    let (status, _, page) = s.post_form(&fields).await;
    assert_eq!(status, 503);
    assert!(page.contains("more messages than we can keep"), "{page}");
    assert!(
        page.contains("I cannot sign in."),
        "what was typed is kept: {page}"
    );

    outage.restore().await;
    let stored = wait_for_stored(&s, accepted).await;
    assert_eq!(stored.len(), accepted, "every accepted message, once");
}

async fn submissions_survive_a_database_outage_and_are_stored_exactly_once(db: TestDb) {
    let s = Support::spawn(db, OUTAGE_READY).await;
    let (status, before, _) = s
        .post_json(&s.body("Sent while the database was fine."))
        .await;
    assert_eq!(status, 201, "{before}");
    let outage = s.app.break_database().await;
    let mut references = vec![before["reference"].as_str().unwrap().to_owned()];
    for n in 0..8 {
        let (status, body, _) = s
            .post_json(&s.body(&format!("Sent during the outage, number {n}.")))
            .await;
        assert_eq!(status, 201, "accepted into the spool: {body}");
        references.push(body["reference"].as_str().unwrap().to_owned());
    }
    let token = s.token(5);
    let (status, location, _) = s.post_form(&form_fields(&token, &s.component)).await;
    assert_eq!(status, 303);
    references.push(location.split("reference=").nth(1).unwrap().to_owned());
    let form = s.app.get("/status/acme/support").await;
    assert_eq!(form.status(), 200, "the form loads during the outage");
    let spooled: Vec<_> = std::fs::read_dir(s.spool_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        spooled.iter().any(|n| n.starts_with("support-spool.")),
        "{spooled:?}"
    );

    outage.restore().await;
    let stored = wait_for_stored(&s, references.len()).await;
    wait_for_spool_drained(&s).await;
    let stored_again = s.stored().await;
    assert_eq!(
        stored_again.len(),
        stored.len(),
        "nothing stored twice later"
    );
    for reference in &references {
        let n = stored_again
            .iter()
            .filter(|r| &r.reference == reference)
            .count();
        assert_eq!(n, 1, "{reference} stored exactly once");
    }
    assert_eq!(
        stored_again.iter().filter(|r| r.spooled).count(),
        references.len() - 1,
        "all but the first came through the spool"
    );

    // A replay that runs again (a crash after the insert, before the file was deleted) changes
    // nothing: the ids are already there.
    let row = stored_again.iter().find(|r| r.spooled).unwrap().clone();
    let again = Submission {
        id: row.id.clone(),
        page_id: row.page_id.clone(),
        reference: row.reference.clone(),
        name: row.name.clone(),
        email: row.email.clone(),
        topic: Topic::SignIn,
        component_id: None,
        account: None,
        message: row.message.clone(),
        wants_copy: false,
        client_ip: None,
        submitted_at: row.submitted_at.and_utc(),
        language: None,
    };
    let payload = serde_json::to_vec(&again).unwrap();
    put_in_place(
        &s.spool_dir()
            .join("support-spool.19990101T000000.000000-000001.replay"),
        &spool::encode(&payload),
    );
    let started = Instant::now();
    while std::fs::read_dir(s.spool_dir()).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".replay")
    }) {
        assert!(started.elapsed() < Duration::from_secs(15), "replayed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(s.stored().await.len(), references.len());
}

async fn a_damaged_spool_tail_is_set_aside_and_the_rest_replayed(db: TestDb) {
    let s = Support::spawn(db, &[]).await;
    let good: Vec<Submission> = (0..3)
        .map(|n| Submission {
            id: uuid::Uuid::now_v7().to_string(),
            page_id: s.page_id.clone(),
            reference: format!("SUP-0000000{n}"),
            name: "Spooled Person".into(),
            email: "spooled@example.com".into(),
            topic: Topic::Outage,
            component_id: None,
            account: None,
            message: format!("Spooled before a crash, number {n}."),
            wants_copy: false,
            client_ip: None,
            submitted_at: chrono::Utc::now(),
            language: None,
        })
        .collect();
    let mut bytes = Vec::new();
    for g in &good {
        bytes.extend(spool::encode(&serde_json::to_vec(g).unwrap()));
    }
    let cut = spool::encode(b"{\"id\": \"cut short by a crash\"");
    let tail = &cut[..cut.len() - 7];
    bytes.extend_from_slice(tail);
    put_in_place(&s.spool_dir().join("support-spool.log"), &bytes);

    let stored = wait_for_stored(&s, 3).await;
    assert_eq!(stored.len(), 3);
    assert!(
        stored
            .iter()
            .all(|r| r.spooled && r.name == "Spooled Person")
    );
    let corrupt = s.spool_dir().join("support-spool.corrupt");
    let started = Instant::now();
    while !corrupt.exists() {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        std::fs::read(&corrupt).unwrap(),
        tail,
        "the damaged tail, kept for a person"
    );
    let (status, body, _) = s
        .post_json(&s.body("Still working after the damaged spool."))
        .await;
    assert_eq!(status, 201, "{body}");
}
