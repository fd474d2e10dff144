//! The durable job queue and its runner, on real databases.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use herald::jobs::Backoff;
use herald::jobs::queue::{self, NewJob};
use herald::workers::Registry;
use serde_json::json;

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    a_job_runs_once_and_leaves_the_queue,
    a_failing_job_is_retried_then_dead_lettered,
    concurrent_claimers_never_get_the_same_job,
    an_expired_lease_is_taken_over,
    shutdown_hands_back_a_job_still_running_after_the_grace
);

async fn enqueue(app: &TestApp, job: NewJob<'static>) -> String {
    app.db
        .run(move |c| Ok(queue::enqueue(c, &job)?))
        .await
        .unwrap()
}

async fn job_row(app: &TestApp, id: &str) -> Option<queue::JobRow> {
    let id = id.to_owned();
    app.db.run(move |c| Ok(queue::get(c, &id)?)).await.unwrap()
}

async fn a_job_runs_once_and_leaves_the_queue(db: TestDb) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut registry = Registry::standard();
    let sink = seen.clone();
    registry.register("test.record", move |_ctx, payload| {
        let sink = sink.clone();
        async move {
            sink.lock().unwrap().push(payload["n"].as_i64().unwrap());
            Ok(())
        }
    });
    let mut app = TestApp::spawn_with(db, &[], registry).await;
    let id = enqueue(&app, NewJob::new("test.record", json!({"n": 7}))).await;
    app.run_pending_jobs().await;
    assert!(job_row(&app, &id).await.is_none(), "done and removed");
    assert_eq!(*seen.lock().unwrap(), vec![7]);
    app.stop().await.unwrap();
}

async fn a_failing_job_is_retried_then_dead_lettered(db: TestDb) {
    let tries = Arc::new(Mutex::new(0));
    let mut registry = Registry::standard();
    let counter = tries.clone();
    registry.register("test.fail", move |_ctx, _payload| {
        let counter = counter.clone();
        async move {
            *counter.lock().unwrap() += 1;
            anyhow::bail!("receiver said 500")
        }
    });
    let mut app = TestApp::spawn_with(db, &[], registry).await;
    let id = enqueue(&app, NewJob::new("test.fail", json!({})).max_attempts(3)).await;
    // The first failure schedules a retry in the future (backoff), not at once.
    app.run_pending_jobs().await;
    let row = job_row(&app, &id).await.unwrap();
    assert_eq!((row.attempts, row.locked_by.as_deref()), (1, None));
    assert_eq!(row.last_error.as_deref(), Some("receiver said 500"));
    assert!(
        row.run_at > herald::db::now(),
        "retry is scheduled with backoff"
    );
    assert!(row.dead_at.is_none());
    // Exhaust the attempts directly through the queue with a fast clock-free backoff. The
    // app's own runner is stopped first: once the retry is made due it would race this test
    // for the claim.
    app.stop().await.unwrap();
    let worker = "test-worker".to_owned();
    let fast = Backoff {
        base: std::time::Duration::from_millis(1),
        cap: std::time::Duration::from_millis(1),
        ..Backoff::jobs()
    };
    for _ in 0..2 {
        let (w, id2) = (worker.clone(), id.clone());
        app.db
            .run(move |c| {
                diesel_run_at_now(c, &id2);
                let claimed = queue::claim(c, &w, 10, chrono::Duration::seconds(30))?;
                let job = claimed
                    .into_iter()
                    .find(|j| j.id == id2)
                    .expect("claimable");
                queue::fail(c, &job, &w, "still 500", &fast, false)?;
                Ok(())
            })
            .await
            .unwrap();
    }
    let row = job_row(&app, &id).await.unwrap();
    assert_eq!(row.attempts, 3);
    assert!(
        row.dead_at.is_some(),
        "dead-lettered after the last attempt, not dropped"
    );
    assert_eq!(row.last_error.as_deref(), Some("still 500"));
}

/// Makes a scheduled retry due now (the test's stand-in for waiting out the backoff).
fn diesel_run_at_now(c: &mut herald::db::DbConn, id: &str) {
    use diesel::prelude::*;
    use herald::db::schema::jobs;
    diesel::update(jobs::table.find(id))
        .set(jobs::run_at.eq(herald::db::now()))
        .execute(c)
        .unwrap();
}

async fn concurrent_claimers_never_get_the_same_job(db: TestDb) {
    let mut app = TestApp::spawn_with(db, &[], Registry::standard()).await;
    // Stop the app's own runner first so only our claimers compete.
    app.stop().await.unwrap();
    let pool = app.db.clone();
    let stopped_db = pool.clone();
    for n in 0..60 {
        stopped_db
            .run(move |c| {
                Ok(queue::enqueue(
                    c,
                    &NewJob::new("test.none", json!({"n": n})),
                )?)
            })
            .await
            .unwrap();
    }
    let mut tasks = Vec::new();
    for w in 0..4 {
        let db = pool.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let worker = format!("w{w}");
                let got = db
                    .run(move |c| Ok(queue::claim(c, &worker, 3, chrono::Duration::seconds(60))?))
                    .await
                    .unwrap();
                if got.is_empty() {
                    break mine;
                }
                mine.extend(got.into_iter().map(|j| j.id));
            }
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let unique: HashSet<_> = all.iter().collect();
    assert_eq!(all.len(), 60, "every job claimed");
    assert_eq!(unique.len(), 60, "no job claimed twice");
}

async fn an_expired_lease_is_taken_over(db: TestDb) {
    let mut app = TestApp::spawn_with(db, &[], Registry::standard()).await;
    let pool = app.db.clone();
    app.stop().await.unwrap();
    let id = pool
        .run(|c| Ok(queue::enqueue(c, &NewJob::new("test.none", json!({})))?))
        .await
        .unwrap();
    let first = pool
        .run(|c| {
            Ok(queue::claim(
                c,
                "crashed-worker",
                10,
                chrono::Duration::milliseconds(200),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(first.len(), 1);
    let again = pool
        .run(|c| Ok(queue::claim(c, "other", 10, chrono::Duration::seconds(60))?))
        .await
        .unwrap();
    assert!(again.is_empty(), "a held lease is respected");
    // Once the 200 ms lease has run out, the next claim takes the job over.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let taken = loop {
        let taken = pool
            .run(|c| Ok(queue::claim(c, "other", 10, chrono::Duration::seconds(60))?))
            .await
            .unwrap();
        if !taken.is_empty() {
            break taken;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the expired lease was never taken over"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].id, id);
    assert_eq!(taken[0].attempts, 2, "the crashed try counts as an attempt");
    // The crashed worker can no longer complete what it lost.
    let id2 = id.clone();
    let removed = pool
        .run(move |c| Ok(queue::complete(c, &id2, "crashed-worker")?))
        .await
        .unwrap();
    assert_eq!(removed, 0);
}

async fn shutdown_hands_back_a_job_still_running_after_the_grace(db: TestDb) {
    let (started_tx, started_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let mut registry = Registry::standard();
    registry.register("test.slow", move |_ctx, _payload| {
        let started = started_tx.clone();
        async move {
            let _ = started.send(());
            // Not synchronisation: the job itself, one still running when the grace ends.
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(())
        }
    });
    let mut app = TestApp::spawn_with(db, &[("HERALD_SHUTDOWN_GRACE_SECS", "1")], registry).await;
    let pool = app.db.clone();
    let id = enqueue(&app, NewJob::new("test.slow", json!({}))).await;
    let mut started_rx = started_rx;
    started_rx.recv().await.expect("job started");
    let held = job_row(&app, &id).await.unwrap();
    assert!(held.locked_by.is_some());
    let begun = std::time::Instant::now();
    app.stop().await.unwrap();
    assert!(
        begun.elapsed() < Duration::from_secs(10),
        "the grace period bounds the drain"
    );
    let id2 = id.clone();
    let row = pool
        .run(move |c| Ok(queue::get(c, &id2)?))
        .await
        .unwrap()
        .expect("job kept, not lost");
    assert!(
        row.locked_by.is_none() && row.locked_until.is_none(),
        "handed back: {row:?}"
    );
    assert_eq!(
        row.attempts, 0,
        "an interrupted try is not held against the job"
    );
    assert!(row.dead_at.is_none());
}
