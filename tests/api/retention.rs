//! Retention: with the clock set ahead, each kind of history is deleted once past its own
//! time and not before (dead jobs and resolved alerts after 30 days, finished deliveries and
//! the events left without any after 90, handled support submissions after 365), while what
//! is still going on (a delivery still trying, a firing alert, an open submission) and what
//! the pages show stay; `/metrics` shows the tables' sizes.

use chrono::{Duration, Utc};
use herald::jobs::queue::{self, NewJob};
use herald::workers::retention::pass;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::backup::public_of;
use crate::held::roles::World;
use crate::helpers::TestApp;
use crate::helpers::TestDb;
use crate::notify::sinks::Receiver;

on_both_backends!(
    history_is_deleted_once_past_its_own_time_and_what_pages_need_stays,
    metrics_show_rows_per_table_and_the_oldest_history_kept,
    the_command_line_deletes_what_is_past_its_time_now,
);

/// Rows of each table.
async fn counts(app: &TestApp) -> std::collections::BTreeMap<String, i64> {
    let sizes = app
        .db
        .run(herald::services::retention::sizes)
        .await
        .unwrap();
    sizes.rows.into_iter().collect()
}

/// Events fully expanded that have no delivery (left).
async fn spent_events(app: &TestApp) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let sql = "SELECT COUNT(*) AS n FROM notification_events e WHERE e.expanded_at IS NOT NULL \
               AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)";
    app.db
        .run(move |c| Ok(diesel::RunQueryDsl::get_result::<Count>(diesel::sql_query(sql), c)?.n))
        .await
        .unwrap()
}

async fn history_is_deleted_once_past_its_own_time_and_what_pages_need_stays(db: TestDb) {
    let w = World::spawn(db).await;
    let r = w.page("acme").await;
    let owner = w.app.api(&w.owner);
    // A subscriber whose receiver is down: its delivery is still trying.
    let down = Receiver::start();
    down.answer(503);
    w.made(
        "/pages/acme/subscribers",
        json!({"type": "webhook", "url": down.url("/down")}),
    )
    .await;
    w.made(
        "/pages/acme/incidents",
        json!({"name": "Retained", "body": "Looking.", "impact": "minor"}),
    )
    .await;
    w.app.deliver_pending().await;
    // The Queue's alert is resolved; the API's still fires.
    let (status, body) = w
        .app
        .api(&r.integration_token)
        .post(
            &r.integration_endpoint,
            json!({"component": "Queue", "status": "operational"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // The page's support submission is handled.
    let (status, body) = owner
        .patch(
            &format!("/pages/acme/support/{}", r.support),
            json!({"status": "handled"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // A job of a kind no handler takes dies at its only attempt.
    w.app
        .db
        .run(|c| {
            let job = NewJob::new("retired-kind", json!({})).max_attempts(1);
            Ok(queue::enqueue(c, &job)?)
        })
        .await
        .unwrap();
    w.app.run_pending_jobs().await;
    w.app.deliver_pending().await;

    let (_, pending) = owner.get("/pages/acme/deliveries?state=pending").await;
    let pending = pending.as_array().map_or(0, Vec::len) as i64;
    assert!(pending >= 1, "a delivery is still trying");
    let before = counts(&w.app).await;
    let shown = public_of(&w.app).await;
    // The defaults, as a Herald started with no retention setting has them.
    let retention = crate::helpers::test_settings(&w.app.test_db, &[]).retention;
    let stop = CancellationToken::new();
    let now = Utc::now();
    let at = |days: i64| move || now + Duration::days(days);

    // 29 days on: nothing is past its time.
    let deleted = pass(&w.app.db, &retention, at(29), &stop).await.unwrap();
    assert_eq!(deleted, 0);
    assert_eq!(counts(&w.app).await, before);

    // 31 days on: the dead job and the resolved alert.
    pass(&w.app.db, &retention, at(31), &stop).await.unwrap();
    let after = counts(&w.app).await;
    assert_eq!(after["jobs"], before["jobs"] - 1);
    assert_eq!(after["alert_states"], before["alert_states"] - 1);
    assert_eq!(after["deliveries"], before["deliveries"]);
    assert_eq!(after["support_submissions"], before["support_submissions"]);

    // 91 days on: every finished delivery; the deliveries still trying stay.
    pass(&w.app.db, &retention, at(91), &stop).await.unwrap();
    let after = counts(&w.app).await;
    assert_eq!(after["deliveries"], pending);
    let (_, still) = owner.get("/pages/acme/deliveries?state=pending").await;
    assert_eq!(still.as_array().map_or(0, Vec::len) as i64, pending);
    // Every event still has a delivery trying (the mail ones wait for a mail server): none
    // is spent. Once the subscribers those wait for are gone, the events only they had go.
    assert_eq!(after["notification_events"], before["notification_events"]);
    for id in [&r.subscriber, &r.spare_subscriber] {
        let (status, body) = owner.delete(&format!("/pages/acme/subscribers/{id}")).await;
        assert_eq!(status, 200, "{body}");
    }
    pass(&w.app.db, &retention, at(91), &stop).await.unwrap();
    let after = counts(&w.app).await;
    assert!(
        after["notification_events"] >= 1,
        "the event still trying stays"
    );
    assert!(after["notification_events"] < before["notification_events"]);
    assert_eq!(
        spent_events(&w.app).await,
        0,
        "an expanded event without deliveries"
    );
    assert_eq!(after["support_submissions"], before["support_submissions"]);

    // 366 days on: the handled submission.
    pass(&w.app.db, &retention, at(366), &stop).await.unwrap();
    let after = counts(&w.app).await;
    assert_eq!(
        after["support_submissions"],
        before["support_submissions"] - 1
    );
    let (_, listed) = owner.get("/pages/acme/support").await;
    assert_eq!(listed["items"], json!([]), "{listed}");

    // What the pages show was never history.
    for table in [
        "incidents",
        "incident_updates",
        "components",
        "component_status_changes",
    ] {
        assert_eq!(after[table], before[table], "{table}");
    }
    assert_eq!(public_of(&w.app).await, shown);
}

async fn metrics_show_rows_per_table_and_the_oldest_history_kept(db: TestDb) {
    let extra = [("HERALD_METRICS_BIND", "127.0.0.1:0")];
    let app = TestApp::spawn_with(db, &extra, herald::workers::Registry::standard()).await;
    app.acme().await;
    let retention = crate::helpers::test_settings(&app.test_db, &[]).retention;
    let stop = CancellationToken::new();
    pass(&app.db, &retention, Utc::now, &stop).await.unwrap();
    let metrics = app.metrics_address.clone().expect("a metrics listener");
    let text = app
        .client
        .get(format!("{metrics}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for line in [
        r#"herald_table_rows{table="status_pages"}"#,
        r#"herald_table_rows{table="deliveries"}"#,
        r#"herald_history_oldest_age_seconds{table="deliveries"}"#,
        r#"herald_history_oldest_age_seconds{table="support_submissions"}"#,
    ] {
        assert!(text.contains(line), "{line} missing: {text}");
    }
}

async fn the_command_line_deletes_what_is_past_its_time_now(db: TestDb) {
    let app = TestApp::spawn(db).await;
    // Two jobs that died: one 31 days ago (its death moved back, as time would have), one now.
    for _ in 0..2 {
        app.db
            .run(|c| {
                let job = NewJob::new("retired-kind", json!({})).max_attempts(1);
                Ok(queue::enqueue(c, &job)?)
            })
            .await
            .unwrap();
    }
    app.run_pending_jobs().await;
    let long_ago = herald::db::now() - Duration::days(31);
    app.db
        .run(move |c| {
            use diesel::prelude::*;
            use herald::db::schema::jobs;
            let first: String = jobs::table
                .filter(jobs::dead_at.is_not_null())
                .select(jobs::id)
                .order(jobs::id.asc())
                .first(c)?;
            Ok(diesel::update(jobs::table.find(first))
                .set(jobs::dead_at.eq(Some(long_ago)))
                .execute(c)?)
        })
        .await
        .unwrap();
    let (code, said, stderr) = crate::process::run_on(&app.test_db.url(), &["retention"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(said.contains("jobs: 1 deleted"), "{said}");
    assert_eq!(
        counts(&app).await["jobs"],
        1,
        "the job that died today stays"
    );
}
