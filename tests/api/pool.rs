//! An exhausted pool answers 503 with Retry-After instead of hanging; a snapshot read does not
//! see a commit that lands between its queries.

use std::time::{Duration, Instant};

use herald::workers::Registry;

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    an_exhausted_pool_answers_503_with_retry_after,
    a_snapshot_read_does_not_see_a_commit_landing_between_its_queries,
);

async fn a_snapshot_read_does_not_see_a_commit_landing_between_its_queries(db: TestDb) {
    use herald::services::pages::{NewPageInput, create_page, list_pages};
    let mut app = TestApp::spawn(db).await;
    let page = |slug: &str| NewPageInput {
        slug: slug.into(),
        name: slug.into(),
        ..Default::default()
    };
    let first = page("first");
    app.db.run(move |c| create_page(c, &first)).await.unwrap();
    let (first_read_tx, first_read_rx) = std::sync::mpsc::channel();
    let (committed_tx, committed_rx) = std::sync::mpsc::channel::<()>();
    let reader = app.db.clone();
    let read = tokio::spawn(async move {
        reader
            .run(move |c| {
                herald::db::read_snapshot(c, |c| {
                    let before = list_pages(c)?.len();
                    first_read_tx.send(()).unwrap();
                    committed_rx.recv().unwrap();
                    let after = list_pages(c)?.len();
                    Ok::<_, herald::error::AppError>((before, after))
                })
            })
            .await
    });
    first_read_rx.recv().unwrap();
    let second = page("second");
    app.db.run(move |c| create_page(c, &second)).await.unwrap();
    committed_tx.send(()).unwrap();
    let (before, after) = read.await.unwrap().unwrap();
    assert_eq!(
        (before, after),
        (1, 1),
        "the snapshot stays at its first read"
    );
    let now = app.db.run(list_pages).await.unwrap().len();
    assert_eq!(now, 2, "the commit did land");
    app.stop().await.unwrap();
}

async fn an_exhausted_pool_answers_503_with_retry_after(db: TestDb) {
    let mut app = TestApp::spawn_with(
        db,
        &[
            ("HERALD_DB_POOL_SIZE", "1"),
            ("HERALD_DB_TIMEOUT_MS", "300"),
        ],
        Registry::standard(),
    )
    .await;
    // Hold the only connection, as a slow query would, until the test lets it go.
    let (held_tx, held_rx) = tokio::sync::oneshot::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let holder = app.db.clone();
    let hold = tokio::spawn(async move {
        holder
            .run(move |_conn| {
                let _ = held_tx.send(());
                let _ = released.recv();
                Ok(())
            })
            .await
    });
    held_rx.await.unwrap();
    let started = Instant::now();
    let res = tokio::time::timeout(Duration::from_secs(10), app.get("/readyz"))
        .await
        .expect("answered while the connection is held");
    let waited = started.elapsed();
    assert_eq!(res.status(), 503);
    assert!(res.headers().contains_key("retry-after"));
    assert!(
        waited < Duration::from_millis(1200),
        "answered after {waited:?}, not after the slow query"
    );
    // Health does not need the database and stays up.
    assert_eq!(app.get("/healthz").await.status(), 200);
    release.send(()).unwrap();
    hold.await.unwrap().unwrap();
    assert_eq!(
        app.get("/readyz").await.status(),
        200,
        "recovers once the connection is back"
    );

    // The same through Db::run directly: the error is Unavailable with a retry hint.
    let err = {
        let holder = app.db.clone();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let hold = tokio::spawn(async move {
            holder
                .run(move |_c| {
                    let _ = tx.send(());
                    let _ = released.recv();
                    Ok(())
                })
                .await
        });
        rx.await.unwrap();
        let err = tokio::time::timeout(Duration::from_secs(10), app.db.run(|_c| Ok(())))
            .await
            .expect("answered while the connection is held")
            .unwrap_err();
        release.send(()).unwrap();
        hold.await.unwrap().unwrap();
        err
    };
    assert!(
        matches!(err, herald::error::AppError::Unavailable { retry_after_secs, .. } if retry_after_secs > 0),
        "{err:?}"
    );
    app.stop().await.unwrap();
}
