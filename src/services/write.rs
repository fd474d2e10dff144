//! One owner for a write. Every write of a use case, from the console, the JSON API, the
//! public forms, the alert integrations and the imports, runs through [`run`] (or its audited
//! forms): one transaction holding the change, its audit row, its outbox events and its jobs,
//! and then an [`AfterCommit`] saying what must follow, read from what the transaction did.
//!
//! A service's own `write_tx` inside it joins that transaction; only a part that may fail
//! alone while the rest goes on is a savepoint (`db::savepoint`).

use crate::db::models::public::site_seq;
use crate::db::{DbConn, in_transaction, pending, write_tx};
use crate::error::{AppError, AppResult};
use crate::services::audit::{self, Actor, Change};
use crate::services::idempotency::{Answer, IdempotencyKey, idempotent};

/// What must follow a committed write, so that its answer and what the workers do show it.
#[must_use]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AfterCommit {
    /// Notification events were written or deliveries queued again: wake the engine.
    pub notifications: bool,
    /// Jobs were queued: wake the job runner.
    pub jobs: bool,
    /// What a public page shows moved: the answer waits until the site serves it.
    pub public: bool,
}

/// A committed write: what the use case answered, and what must follow.
#[derive(Debug)]
pub struct Written<T> {
    pub value: T,
    pub after: AfterCommit,
}

/// Runs `use_case` in one write transaction and says what must follow its commit. For use
/// cases that write their own audit rows (an alert's, one per component it moves; an import's,
/// one per part) or none (a reader's or a subscriber's form).
pub fn run<T>(
    conn: &mut DbConn,
    use_case: impl FnOnce(&mut DbConn) -> AppResult<T>,
) -> AppResult<Written<T>> {
    if in_transaction(conn)? {
        return Err(AppError::Internal(anyhow::anyhow!(
            "a write was started inside another one's transaction"
        )));
    }
    pending::take();
    let (value, before) = write_tx(conn, |conn| {
        let before = site_seq(conn)?;
        Ok::<_, AppError>((use_case(conn)?, before))
    })?;
    // Read once committed: on PostgreSQL some moves of the counter are made at the commit
    // (deferred triggers). Another writer's commit in between only makes the answer wait for
    // the site needlessly, and so does a failed read: the write is committed, and must not be
    // answered as an error.
    let public = site_seq(conn).ok() != Some(before);
    let noted = pending::take();
    Ok(Written {
        value,
        after: AfterCommit {
            notifications: noted.notifications,
            jobs: noted.jobs,
            public,
        },
    })
}

/// [`run`] for an account's write: `use_case` answers its value and the audit row's change,
/// recorded under `actor` in the same transaction.
pub fn audited<T>(
    conn: &mut DbConn,
    actor: &Actor,
    use_case: impl FnOnce(&mut DbConn) -> AppResult<(T, Change)>,
) -> AppResult<Written<T>> {
    run(conn, |conn| {
        let (value, change) = use_case(conn)?;
        audit::record(conn, actor, &change)?;
        Ok(value)
    })
}

/// [`audited`] with the answer stored under the request's `Idempotency-Key`, if it has one, in
/// the same transaction: the same request again gets the first answer and writes nothing.
pub fn audited_once(
    conn: &mut DbConn,
    actor: &Actor,
    key: Option<&IdempotencyKey>,
    use_case: impl FnOnce(&mut DbConn) -> AppResult<(Answer, Change)>,
) -> AppResult<Written<Answer>> {
    run(conn, |conn| {
        idempotent(conn, key, |conn| {
            let (answer, change) = use_case(conn)?;
            audit::record(conn, actor, &change)?;
            Ok(answer)
        })
    })
}
