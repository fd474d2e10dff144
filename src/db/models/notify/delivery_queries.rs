//! Deliveries: claiming due ones under a lease, recording outcomes, listing and requeueing.

use super::*;
use crate::domain::{IncidentId, PageId, SubscriberId};

/// Claims up to `limit` due deliveries of `channel` for `worker` until `lease_until`. PostgreSQL skips rows
/// other processes hold (`FOR UPDATE SKIP LOCKED`); SQLite serialises claimers with an
/// immediate transaction. A claim whose lease ran out (a crashed process) is taken over.
pub fn claim_deliveries(
    conn: &mut DbConn,
    worker: &str,
    channel: &str,
    limit: i64,
    at: NaiveDateTime,
    lease_until: NaiveDateTime,
) -> QueryResult<Vec<ClaimedDelivery>> {
    // One statement: the due ids are chosen, leased and answered (what the engine reads) at
    // once (in an immediate transaction on SQLite, so it waits its turn to write instead of
    // failing).
    // The next attempt moves to the lease's end: a held delivery leaves the due range of the
    // due index (pending deliveries by channel and next_attempt_at), so the next claim does not
    // walk past every delivery in flight, and comes back into it when the lease runs out (its
    // holder crashed).
    let lock = match conn {
        DbConn::Postgres(_) => "FOR UPDATE SKIP LOCKED",
        DbConn::Sqlite(_) => "",
    };
    if !any_due(conn, channel, at)? {
        return Ok(Vec::new());
    }
    let sql = format!(
        "UPDATE deliveries SET locked_by = $1, locked_until = $2, next_attempt_at = $2 \
         WHERE id IN (SELECT id FROM deliveries WHERE state = '{pending}' AND channel = $3 \
           AND next_attempt_at <= $4 AND (locked_until IS NULL OR locked_until < $4) \
           ORDER BY next_attempt_at LIMIT $5 {lock}) \
         RETURNING id, event_id, subscriber_id, channel, attempts, last_error",
        pending = DeliveryState::Pending.as_str(),
    );
    write_tx(conn, |conn| {
        diesel::sql_query(sql)
            .bind::<Text, _>(worker)
            .bind::<Timestamp, _>(lease_until)
            .bind::<Text, _>(channel)
            .bind::<Timestamp, _>(at)
            .bind::<BigInt, _>(limit)
            .load::<ClaimedDelivery>(conn)
    })
}

/// Whether a delivery of `channel` is due at `at` and held by no lease. Every write wakes the
/// engine, and most of its claims then find nothing: this read (a prepared statement kept by
/// the connection) spares them the claim's statement, prepared anew each time, and on SQLite
/// its immediate transaction, which waits for the one writer's lock.
fn any_due(conn: &mut DbConn, channel: &str, at: NaiveDateTime) -> QueryResult<bool> {
    // The state as a literal, so that SQLite's planner can use the due index (partial, on
    // pending deliveries); a bound value could be anything.
    let pending = format!("state = '{}'", DeliveryState::Pending.as_str());
    let due = deliveries::table
        .filter(diesel::dsl::sql::<Bool>(&pending))
        .filter(deliveries::channel.eq(channel))
        .filter(deliveries::next_attempt_at.le(at))
        .filter(
            deliveries::locked_until
                .is_null()
                .or(deliveries::locked_until.lt(at)),
        )
        .select(deliveries::id)
        .first::<String>(conn)
        .optional()?;
    Ok(due.is_some())
}

/// `state = 'pending'`, written so that SQLite's planner cannot use the due index (the
/// partial index of pending deliveries) for it: beside `id IN (...)` it would (it guesses an
/// index matches about ten rows), and every statement on a batch of ids would walk all pending
/// deliveries (O(n) per batch at 100,000 subscribers; `EXPLAIN QUERY PLAN` shows the primary
/// key used this way).
fn still_pending() -> diesel::dsl::not<diesel::dsl::EqAny<deliveries::state, [DeliveryState; 4]>> {
    diesel::dsl::not(deliveries::state.eq_any(DeliveryState::FINAL))
}

/// Marks deliveries delivered (each one attempt more).
pub fn mark_delivered(conn: &mut DbConn, ids: &[String], at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(still_pending()),
    )
    .set((
        deliveries::state.eq(DeliveryState::Delivered),
        deliveries::attempts.eq(deliveries::attempts + 1),
        deliveries::delivered_at.eq(Some(at)),
        deliveries::last_error.eq(None::<String>),
        deliveries::waiting_for.eq(None::<String>),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// What happens to a delivery after an attempt that did not deliver it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `Pending` (tried again at `next_attempt_at`), `Dead`, `Failed` or `Skipped`.
    pub state: DeliveryState,
    pub next_attempt_at: NaiveDateTime,
    /// Whether the attempt counts (a deferral does not).
    pub counted: bool,
    pub error: Option<String>,
    /// What a deferred delivery waits for.
    pub waiting: Option<crate::domain::waiting::Waiting>,
}

/// Records an outcome other than delivered and releases the claim.
pub fn record_outcome(
    conn: &mut DbConn,
    id: &str,
    outcome: &Outcome,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    let error = outcome
        .error
        .as_ref()
        .map(|e| e.chars().take(2000).collect::<String>());
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq(id))
            .filter(deliveries::state.eq(DeliveryState::Pending)),
    )
    .set((
        deliveries::state.eq(outcome.state),
        deliveries::attempts.eq(deliveries::attempts + i32::from(outcome.counted)),
        deliveries::next_attempt_at.eq(outcome.next_attempt_at),
        deliveries::last_error.eq(error),
        deliveries::waiting_for.eq(outcome.waiting.map(|w| w.as_str())),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// Notes why held deliveries wait (their destination cannot be reached), and the error that
/// says so, without releasing them: the console and the API show it while the engine holds them.
pub fn note_waiting(
    conn: &mut DbConn,
    ids: &[String],
    waiting: &str,
    error: &str,
    worker: &str,
) -> QueryResult<usize> {
    let error: String = error.chars().take(2000).collect();
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.eq(worker))
            .filter(still_pending()),
    )
    .set((
        deliveries::waiting_for.eq(waiting),
        deliveries::last_error.eq(error),
    ))
    .execute(conn)
}

/// Makes deliveries that wait unclaimed due at `at` (their host answers again).
pub fn due_now(conn: &mut DbConn, ids: &[String], at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.is_null())
            .filter(still_pending()),
    )
    .set(deliveries::next_attempt_at.eq(at))
    .execute(conn)
}

/// Hands claims back, due at once, without counting an attempt (shutdown).
pub fn release(conn: &mut DbConn, ids: &[String], worker: &str) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.eq(worker))
            .filter(still_pending()),
    )
    .set((
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::next_attempt_at.eq(crate::db::now()),
    ))
    .execute(conn)
}

/// Which deliveries of a page to list, newest first.
#[derive(Debug, Clone)]
pub struct DeliveryQuery<'a> {
    pub page_id: &'a PageId,
    pub state: Option<DeliveryState>,
    pub limit: i64,
    pub offset: i64,
}

/// A page's deliveries, newest first.
pub fn list_deliveries(conn: &mut DbConn, q: &DeliveryQuery<'_>) -> QueryResult<Vec<Delivery>> {
    let mut query = deliveries::table
        .filter(deliveries::page_id.eq(q.page_id))
        .into_boxed();
    if let Some(state) = q.state {
        query = query.filter(deliveries::state.eq(state));
    }
    query
        .order((deliveries::created_at.desc(), deliveries::id.desc()))
        .limit(q.limit)
        .offset(q.offset)
        .select(Delivery::as_select())
        .load(conn)
}

/// A delivery of a page by id.
pub fn find_delivery(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &str,
) -> QueryResult<Option<Delivery>> {
    deliveries::table
        .filter(deliveries::id.eq(id))
        .filter(deliveries::page_id.eq(page_id))
        .select(Delivery::as_select())
        .first(conn)
        .optional()
}

/// Puts a dead or failed delivery back in the queue with a fresh count of attempts.
pub fn requeue(conn: &mut DbConn, id: &str, at: NaiveDateTime) -> QueryResult<usize> {
    let requeued = diesel::update(
        deliveries::table
            .filter(deliveries::id.eq(id))
            .filter(deliveries::state.eq_any([DeliveryState::Dead, DeliveryState::Failed])),
    )
    .set((
        deliveries::state.eq(DeliveryState::Pending),
        deliveries::attempts.eq(0),
        deliveries::next_attempt_at.eq(at),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)?;
    if requeued > 0 {
        crate::db::pending::notifications();
    }
    Ok(requeued)
}

/// Skips the pending deliveries of a subscriber that stopped receiving (unsubscribed,
/// quarantined, deleted).
pub fn skip_pending_of(
    conn: &mut DbConn,
    subscriber_id: &SubscriberId,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::subscriber_id.eq(subscriber_id))
            .filter(deliveries::state.eq(DeliveryState::Pending)),
    )
    .set((
        deliveries::state.eq(DeliveryState::Skipped),
        deliveries::locked_by.eq(None::<String>),
        deliveries::locked_until.eq(None::<NaiveDateTime>),
        deliveries::updated_at.eq(at),
    ))
    .execute(conn)
}

/// Extends the lease on deliveries `worker` still holds.
pub fn renew(
    conn: &mut DbConn,
    ids: &[String],
    worker: &str,
    lease_until: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq_any(ids))
            .filter(deliveries::locked_by.eq(worker))
            .filter(still_pending()),
    )
    .set((
        deliveries::locked_until.eq(Some(lease_until)),
        deliveries::next_attempt_at.eq(lease_until),
    ))
    .execute(conn)
}

/// Records that the `kind` reminder of an incident's `deadline` is being sent; `false` when it
/// already was (by this or another process).
pub fn claim_reminder(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    deadline: NaiveDateTime,
    kind: &str,
    at: NaiveDateTime,
) -> QueryResult<bool> {
    let inserted = diesel::sql_query(
        "INSERT INTO responder_reminders (incident_id, deadline, kind, created_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind::<Text, _>(incident_id)
    .bind::<Timestamp, _>(deadline)
    .bind::<Text, _>(kind)
    .bind::<Timestamp, _>(at)
    .execute(conn)?;
    Ok(inserted == 1)
}

/// Pending deliveries per channel, with the creation time of the oldest (for `/metrics`).
pub fn pending_by_channel(
    conn: &mut DbConn,
) -> QueryResult<Vec<(String, i64, Option<NaiveDateTime>)>> {
    use diesel::dsl::{count_star, min};
    deliveries::table
        .filter(deliveries::state.eq(DeliveryState::Pending))
        .group_by(deliveries::channel)
        .select((
            deliveries::channel,
            count_star(),
            min(deliveries::created_at),
        ))
        .load(conn)
}
