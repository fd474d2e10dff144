//! The durable job queue: a job is a type (its payload) with the name it is stored under
//! ([`Job`]), added in the transaction of the write that causes it, so both commit or neither
//! does. Who runs each kind, and how, is `workers`' business: the use cases that add jobs
//! know nothing of mail servers or webhook clients.

pub mod queue;

use chrono::NaiveDateTime;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::db::DbConn;

pub use queue::{Backoff, DEFAULT_MAX_ATTEMPTS, JobRow, NewJob, enqueue};

/// A kind of job: the type is its payload (stored as JSON), `NAME` its stored kind.
pub trait Job: Serialize + DeserializeOwned + Send + 'static {
    /// The stored kind (`jobs.kind`). Jobs already queued keep it: never rename one.
    const NAME: &'static str;

    /// Adds this job, runnable now, in the caller's transaction.
    fn enqueue(&self, conn: &mut DbConn) -> diesel::QueryResult<String> {
        enqueue(conn, &self.new_job()?)
    }

    /// Adds this job, runnable from `at`, in the caller's transaction.
    fn enqueue_at(&self, conn: &mut DbConn, at: NaiveDateTime) -> diesel::QueryResult<String> {
        enqueue(conn, &self.new_job()?.run_at(at))
    }

    /// The row to add.
    fn new_job(&self) -> diesel::QueryResult<NewJob<'static>> {
        let payload = serde_json::to_value(self)
            .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
        Ok(NewJob::new(Self::NAME, payload))
    }
}

/// A failure that trying again cannot mend (a receiver that answered 410, say): a handler
/// returning it (`Err(Permanent(..).into())`) has its job dead-lettered at once.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Permanent(pub String);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Serialize, Deserialize)]
    struct Ping {
        to: String,
    }

    impl Job for Ping {
        const NAME: &'static str = "test.ping";
    }

    #[test]
    fn a_job_is_stored_under_its_name_with_its_fields_as_the_payload() {
        let job = Ping { to: "a".into() }.new_job().unwrap();
        assert_eq!(job.kind, "test.ping");
        assert_eq!(job.payload, serde_json::json!({"to": "a"}));
        assert_eq!(job.run_at, None);
        assert_eq!(job.max_attempts, DEFAULT_MAX_ATTEMPTS);
    }
}
