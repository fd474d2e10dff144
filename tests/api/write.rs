//! The one owner of a write (`services::write`): one transaction for the use case, its audit
//! row, its events and its jobs; a service's own `write_tx` joins it; and what must follow
//! the commit is read from what the transaction did.

use herald::db::{DbConn, savepoint, write_tx};
use herald::error::{AppError, AppResult};
use herald::jobs::queue::{self, NewJob};
use herald::services::audit::{Actor, Change};
use herald::services::components::{UpdateComponentInput, update_component};
use herald::services::write::{self, AfterCommit, Written};
use serde_json::json;

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    what_follows_a_write_is_read_from_what_it_did,
    a_refused_write_leaves_nothing_and_asks_for_nothing,
    a_service_transaction_inside_a_write_joins_it,
    a_write_cannot_start_inside_another
);

fn owner() -> Actor {
    Actor {
        user_id: "u-1".into(),
        email: "owner@example.com".into(),
    }
}

fn change(action: &'static str) -> Change {
    Change {
        action,
        entity_type: "test",
        entity_id: None,
        page_id: None,
        changes: json!({}),
    }
}

async fn audit_rows(app: &TestApp, action: &'static str) -> i64 {
    app.db
        .run(move |c| {
            use diesel::prelude::*;
            use herald::db::schema::audit_log;
            Ok(audit_log::table
                .filter(audit_log::action.eq(action))
                .count()
                .get_result::<i64>(c)?)
        })
        .await
        .unwrap()
}

async fn run<T: Send + 'static>(
    app: &TestApp,
    use_case: impl FnOnce(&mut DbConn) -> AppResult<(T, Change)> + Send + 'static,
) -> AppResult<Written<T>> {
    app.db
        .run(move |c| write::audited(c, &owner(), use_case))
        .await
}

async fn what_follows_a_write_is_read_from_what_it_did(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.acme().await;
    // A change of what the page shows: the public site must show it before the answer.
    let component = page.components[0].clone();
    let renamed = run(&app, move |c| {
        let input = UpdateComponentInput {
            name: Some("Public API v2".into()),
            ..UpdateComponentInput::default()
        };
        Ok((
            update_component(c, &component, &input)?,
            change("test.rename"),
        ))
    })
    .await
    .unwrap();
    let public = AfterCommit {
        public: true,
        ..AfterCommit::default()
    };
    assert_eq!(renamed.after, public);
    assert_eq!(renamed.value.name, "Public API v2");
    assert_eq!(audit_rows(&app, "test.rename").await, 1);
    // A queued job: the runner is woken, and nothing on the page moved.
    let queued = run(&app, |c| {
        let id = queue::enqueue(c, &NewJob::new("test.nothing", json!({})))?;
        Ok((id, change("test.queue")))
    })
    .await
    .unwrap();
    let jobs = AfterCommit {
        jobs: true,
        ..AfterCommit::default()
    };
    assert_eq!(queued.after, jobs);
    // An audit row alone asks for nothing.
    let quiet = run(&app, |_| Ok(((), change("test.quiet")))).await.unwrap();
    assert_eq!(quiet.after, AfterCommit::default());
    assert_eq!(audit_rows(&app, "test.quiet").await, 1);
}

async fn a_refused_write_leaves_nothing_and_asks_for_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let refused = run(&app, |c| -> AppResult<((), Change)> {
        queue::enqueue(c, &NewJob::new("test.nothing", json!({})))?;
        Err(AppError::field("name", "is refused"))
    })
    .await;
    assert!(
        matches!(refused, Err(AppError::Validation(_))),
        "{refused:?}"
    );
    let jobs = app
        .db
        .run(|c| {
            use diesel::prelude::*;
            use herald::db::schema::jobs;
            Ok(jobs::table.count().get_result::<i64>(c)?)
        })
        .await
        .unwrap();
    assert_eq!(jobs, 0, "the refused write's job was rolled back with it");
    // The refused write's notes do not leak into the next write on the pool's threads.
    for _ in 0..4 {
        let quiet = run(&app, |_| Ok(((), change("test.after")))).await.unwrap();
        assert_eq!(quiet.after, AfterCommit::default());
    }
}

async fn a_service_transaction_inside_a_write_joins_it(db: TestDb) {
    let app = TestApp::spawn(db).await;
    // The use case ignores its inner write_tx's failure: joined, the inner write stays (no
    // savepoint undid it); a savepoint's failure undoes its own write alone.
    let written = run(&app, |c| {
        let joined: AppResult<()> = write_tx(c, |c| {
            queue::enqueue(c, &NewJob::new("test.joined", json!({})))?;
            Err(AppError::Conflict("refused".into()))
        });
        assert!(joined.is_err());
        let alone: AppResult<()> = savepoint(c, |c| {
            queue::enqueue(c, &NewJob::new("test.alone", json!({})))?;
            Err(AppError::Conflict("refused".into()))
        });
        assert!(alone.is_err());
        Ok(((), change("test.nested")))
    })
    .await
    .unwrap();
    assert!(written.after.jobs);
    let kinds = app
        .db
        .run(|c| {
            use diesel::prelude::*;
            use herald::db::schema::jobs;
            Ok(jobs::table.select(jobs::kind).load::<String>(c)?)
        })
        .await
        .unwrap();
    assert_eq!(kinds, ["test.joined"]);
}

async fn a_write_cannot_start_inside_another(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let inner = app
        .db
        .run(|c| {
            write_tx(c, |c| {
                Ok::<_, AppError>(write::run(c, |_| Ok(())).map(|w| w.value))
            })
        })
        .await
        .unwrap();
    assert!(matches!(inner, Err(AppError::Internal(_))), "{inner:?}");
}
