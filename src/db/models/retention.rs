//! Deleting what is only history once past its time, a small batch at a time: finished
//! deliveries, the notification events none of whose deliveries is left, dead jobs, handled
//! support submissions and resolved alerts. What pages and the audit log show (incidents,
//! updates, postmortems, component history) is never touched here.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};

use crate::db::DbConn;

/// What is kept for a time, each with the table it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Deliveries in a final state (delivered, failed, dead, skipped), by their last change;
    /// then the notification events left with no delivery.
    Deliveries,
    /// Jobs that ran out of attempts, by when they did.
    Jobs,
    /// Support submissions marked handled, by when they were.
    Support,
    /// Alerts that stopped firing, by their last change.
    Alerts,
}

impl History {
    pub const ALL: [Self; 4] = [Self::Deliveries, Self::Jobs, Self::Support, Self::Alerts];

    /// The table the kind is kept in.
    pub fn table(self) -> &'static str {
        match self {
            Self::Deliveries => "deliveries",
            Self::Jobs => "jobs",
            Self::Support => "support_submissions",
            Self::Alerts => "alert_states",
        }
    }

    /// The rows of this kind past `before`, and the column that says when they became history.
    fn past(self) -> (&'static str, &'static str) {
        match self {
            Self::Deliveries => ("state <> 'pending'", "updated_at"),
            Self::Jobs => ("dead_at IS NOT NULL", "dead_at"),
            Self::Support => (
                "status = 'handled' AND handled_at IS NOT NULL",
                "handled_at",
            ),
            Self::Alerts => ("firing = false", "updated_at"),
        }
    }

    /// How the table names one row in a batch (alerts have a key of two columns).
    fn key(self) -> &'static str {
        match self {
            Self::Alerts => "integration_id || ' ' || fingerprint",
            _ => "id",
        }
    }
}

/// Deletes at most `limit` rows of `kind` that became history before `before`, the oldest
/// first; answers how many. The caller runs it in a transaction of its own, batch after batch.
pub fn delete_batch(
    conn: &mut DbConn,
    kind: History,
    before: NaiveDateTime,
    limit: i64,
) -> QueryResult<usize> {
    let (table, (past, at), key) = (kind.table(), kind.past(), kind.key());
    let placeholders = match conn {
        DbConn::Sqlite(_) => ("?", "?"),
        DbConn::Postgres(_) => ("$1", "$2"),
    };
    let sql = format!(
        "DELETE FROM {table} WHERE {key} IN (SELECT {key} FROM {table} \
         WHERE {past} AND {at} < {} ORDER BY {at} LIMIT {})",
        placeholders.0, placeholders.1
    );
    diesel::sql_query(sql)
        .bind::<Timestamp, _>(before)
        .bind::<BigInt, _>(limit)
        .execute(conn)
}

/// Deletes at most `limit` notification events made before `before` that are fully expanded
/// and have no delivery left (their deliveries went by [`History::Deliveries`]).
pub fn delete_spent_events(
    conn: &mut DbConn,
    before: NaiveDateTime,
    limit: i64,
) -> QueryResult<usize> {
    let (p1, p2) = match conn {
        DbConn::Sqlite(_) => ("?", "?"),
        DbConn::Postgres(_) => ("$1", "$2"),
    };
    let sql = format!(
        "DELETE FROM notification_events WHERE id IN (SELECT e.id FROM notification_events e \
         WHERE e.expanded_at IS NOT NULL AND e.expanded_at < {p1} \
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id) \
         ORDER BY e.expanded_at LIMIT {p2})"
    );
    diesel::sql_query(sql)
        .bind::<Timestamp, _>(before)
        .bind::<BigInt, _>(limit)
        .execute(conn)
}

#[derive(QueryableByName)]
struct Oldest {
    #[diesel(sql_type = Nullable<Timestamp>)]
    at: Option<NaiveDateTime>,
}

/// When the oldest row of `kind` that is already history became so (`None`: there is none).
pub fn oldest(conn: &mut DbConn, kind: History) -> QueryResult<Option<NaiveDateTime>> {
    let (table, (past, at)) = (kind.table(), kind.past());
    let sql = format!("SELECT MIN({at}) AS at FROM {table} WHERE {past}");
    Ok(diesel::sql_query(sql).get_result::<Oldest>(conn)?.at)
}

/// Whether this process may delete now: on PostgreSQL, the transaction takes the retention's
/// advisory lock if no other process holds it (so processes sharing the database do not delete
/// side by side); SQLite's writers take turns anyway.
pub fn take_turn(conn: &mut DbConn) -> QueryResult<bool> {
    #[derive(QueryableByName)]
    struct Taken {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        taken: bool,
    }
    match conn {
        DbConn::Sqlite(_) => Ok(true),
        DbConn::Postgres(_) => Ok(diesel::sql_query(
            "SELECT pg_try_advisory_xact_lock(hashtext($1)) AS taken",
        )
        .bind::<Text, _>("herald:retention")
        .get_result::<Taken>(conn)?
        .taken),
    }
}
