//! The job table as a queue. Claiming is `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several
//! Herald processes share one queue; on SQLite an immediate transaction serialises claimers.

use chrono::{Duration, NaiveDateTime};
use diesel::prelude::*;

pub use crate::domain::backoff::Backoff;

use crate::db::schema::jobs;
use crate::db::{DbConn, new_id, now, write_tx};

/// A job as stored.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = jobs)]
pub struct JobRow {
    pub id: String,
    pub kind: String,
    pub payload: String,
    pub run_at: NaiveDateTime,
    pub attempts: i32,
    pub max_attempts: i32,
    pub locked_by: Option<String>,
    pub locked_until: Option<NaiveDateTime>,
    pub last_error: Option<String>,
    pub dead_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
}

/// Default number of attempts before a job is dead-lettered.
pub const DEFAULT_MAX_ATTEMPTS: i32 = 10;

/// A job to add: its kind, JSON payload, when it may run, and how many attempts it gets.
#[derive(Debug, Clone)]
pub struct NewJob<'a> {
    pub kind: &'a str,
    pub payload: serde_json::Value,
    pub run_at: Option<NaiveDateTime>,
    pub max_attempts: i32,
}

impl<'a> NewJob<'a> {
    /// A job runnable now with the default number of attempts.
    pub fn new(kind: &'a str, payload: serde_json::Value) -> Self {
        Self {
            kind,
            payload,
            run_at: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
        }
    }

    /// Runnable from `at` instead of now.
    pub fn run_at(mut self, at: NaiveDateTime) -> Self {
        self.run_at = Some(at);
        self
    }

    /// Dead-lettered after `attempts` tries.
    pub fn max_attempts(mut self, attempts: i32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }
}

/// Adds a job. Call it inside the transaction of the write that causes the job, so both commit
/// or neither does.
pub fn enqueue(conn: &mut DbConn, job: &NewJob<'_>) -> QueryResult<String> {
    let id = new_id();
    let at = now();
    diesel::insert_into(jobs::table)
        .values((
            jobs::id.eq(&id),
            jobs::kind.eq(job.kind),
            jobs::payload.eq(job.payload.to_string()),
            jobs::run_at.eq(job.run_at.unwrap_or(at)),
            jobs::attempts.eq(0),
            jobs::max_attempts.eq(job.max_attempts),
            jobs::created_at.eq(at),
        ))
        .execute(conn)?;
    crate::db::pending::jobs();
    Ok(id)
}

/// A job by id (tests and the console's dead-letter view).
pub fn get(conn: &mut DbConn, id: &str) -> QueryResult<Option<JobRow>> {
    jobs::table
        .find(id)
        .select(JobRow::as_select())
        .first(conn)
        .optional()
}

/// Claims up to `limit` runnable jobs for `worker` with a lease of `lease`; each claim counts as
/// an attempt, so a job that kills its worker still ends up dead-lettered.
pub fn claim(
    conn: &mut DbConn,
    worker: &str,
    limit: i64,
    lease: Duration,
) -> QueryResult<Vec<JobRow>> {
    let at = now();
    // One statement on both backends: the runnable ids are chosen and leased at once (in an
    // immediate transaction on SQLite, which has one writer; PostgreSQL skips the rows another
    // worker is claiming instead of waiting for them).
    let lock = match conn {
        DbConn::Postgres(_) => "FOR UPDATE SKIP LOCKED",
        DbConn::Sqlite(_) => "",
    };
    let sql = format!(
        "UPDATE jobs SET locked_by = $1, locked_until = $2, attempts = attempts + 1 \
         WHERE id IN (SELECT id FROM jobs WHERE dead_at IS NULL AND run_at <= $3 \
           AND (locked_until IS NULL OR locked_until < $3) ORDER BY run_at LIMIT $4 {lock}) \
         RETURNING id"
    );
    #[derive(QueryableByName)]
    struct Claimed {
        #[diesel(sql_type = diesel::sql_types::Text)]
        id: String,
    }
    let ids: Vec<String> = write_tx(conn, |c| {
        diesel::sql_query(&sql)
            .bind::<diesel::sql_types::Text, _>(worker)
            .bind::<diesel::sql_types::Timestamp, _>(at + lease)
            .bind::<diesel::sql_types::Timestamp, _>(at)
            .bind::<diesel::sql_types::BigInt, _>(limit)
            .load::<Claimed>(c)
    })?
    .into_iter()
    .map(|row| row.id)
    .collect();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    jobs::table
        .filter(jobs::id.eq_any(&ids))
        .order(jobs::run_at)
        .select(JobRow::as_select())
        .load(conn)
}

/// Removes a finished job (only if `worker` still holds it).
pub fn complete(conn: &mut DbConn, id: &str, worker: &str) -> QueryResult<usize> {
    diesel::delete(
        jobs::table
            .filter(jobs::id.eq(id))
            .filter(jobs::locked_by.eq(worker)),
    )
    .execute(conn)
}

/// Records a failure: retried later with backoff, or dead-lettered after the last attempt or
/// when `dead` (a failure that trying again cannot mend).
pub fn fail(
    conn: &mut DbConn,
    job: &JobRow,
    worker: &str,
    error: &str,
    backoff: &Backoff,
    dead: bool,
) -> QueryResult<usize> {
    let at = now();
    let target = jobs::table
        .filter(jobs::id.eq(&job.id))
        .filter(jobs::locked_by.eq(worker));
    let error: String = error.chars().take(2000).collect();
    if dead || job.attempts >= job.max_attempts {
        diesel::update(target)
            .set((
                jobs::dead_at.eq(Some(at)),
                jobs::last_error.eq(Some(error)),
                jobs::locked_by.eq(None::<String>),
                jobs::locked_until.eq(None::<NaiveDateTime>),
            ))
            .execute(conn)
    } else {
        diesel::update(target)
            .set((
                jobs::run_at.eq(at + retry_delay(backoff, job.attempts)),
                jobs::last_error.eq(Some(error)),
                jobs::locked_by.eq(None::<String>),
                jobs::locked_until.eq(None::<NaiveDateTime>),
            ))
            .execute(conn)
    }
}

/// The wait before trying a job again after its `attempts`-th try.
fn retry_delay(backoff: &Backoff, attempts: i32) -> Duration {
    let attempt = u32::try_from(attempts.saturating_sub(1)).unwrap_or(0);
    Duration::from_std(backoff.next(attempt, None)).unwrap_or(Duration::hours(1))
}

/// Hands jobs back to the queue, runnable at once, without counting the attempt.
pub fn release(conn: &mut DbConn, ids: &[String], worker: &str) -> QueryResult<usize> {
    diesel::update(
        jobs::table
            .filter(jobs::id.eq_any(ids))
            .filter(jobs::locked_by.eq(worker)),
    )
    .set((
        jobs::locked_by.eq(None::<String>),
        jobs::locked_until.eq(None::<NaiveDateTime>),
        jobs::attempts.eq(jobs::attempts - 1),
    ))
    .execute(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_waits_a_doubling_delay_after_each_try() {
        let jobs = Backoff::jobs();
        for (attempts, expected) in [(1, 5_000), (2, 10_000), (3, 20_000), (30, 3_600_000)] {
            let ms = retry_delay(&jobs, attempts).num_milliseconds();
            assert!(
                (expected * 3 / 4..=expected * 5 / 4).contains(&ms),
                "after try {attempts}: {ms} ms"
            );
        }
    }
}
