//! Group commit: submissions arriving together go into the database in one transaction, one
//! batch at a time. SQLite takes one writer at a time anyway; batching turns many small
//! contended transactions into few larger ones (and on PostgreSQL saves round trips). Each
//! submission keeps its own savepoint, so one that fails does not take the others with it.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::oneshot;

use super::{Submission, store};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::services;

/// How long a batch may take before its submissions go to the spool instead.
const INSERT_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The most submissions written in one transaction.
const MAX_BATCH: usize = 256;

type Waiting = (Submission, oneshot::Sender<AppResult<()>>);

/// The queue in front of the database, and whether a flush is under way.
#[derive(Default)]
pub struct Batcher {
    queue: Mutex<Vec<Waiting>>,
    flushing: AtomicBool,
}

impl Batcher {
    /// Stores `s` with whatever else is waiting; returns once its transaction committed (or
    /// failed: then the caller spools it).
    pub async fn insert(self: &Arc<Self>, db: &Db, s: Submission) -> AppResult<()> {
        let (tx, rx) = oneshot::channel();
        self.queue
            .lock()
            .map_err(|_| AppError::Internal(anyhow::anyhow!("support queue poisoned")))?
            .push((s, tx));
        if !self.flushing.swap(true, Ordering::AcqRel) {
            let (me, db) = (self.clone(), db.clone());
            tokio::spawn(async move { me.flush(db).await });
        }
        rx.await
            .map_err(|_| AppError::Internal(anyhow::anyhow!("support batch dropped")))?
    }

    /// Writes batches until the queue is empty.
    async fn flush(self: Arc<Self>, db: Db) {
        loop {
            let batch = self.take();
            if batch.is_empty() {
                self.flushing.store(false, Ordering::Release);
                // Someone may have queued between the take and the store above.
                if self.is_empty() || self.flushing.swap(true, Ordering::AcqRel) {
                    return;
                }
                continue;
            }
            let rows: Vec<Submission> = batch.iter().map(|(s, _)| s.clone()).collect();
            // A short bound: during an outage the sender is answered from the spool within
            // seconds, not after the general limit.
            let outcome = db
                .run_within(INSERT_LIMIT, move |c| {
                    services::write::run(c, |c| {
                        Ok(rows
                            .iter()
                            .map(|s| store::insert_submission(c, s, false).map(|_| ()))
                            .collect::<Vec<_>>())
                    })
                    .map(|written| written.value)
                })
                .await;
            match outcome {
                Ok(results) => {
                    for ((_, reply), result) in batch.into_iter().zip(results) {
                        let _ = reply.send(result);
                    }
                }
                Err(e) => {
                    let reason = e.to_string();
                    for (_, reply) in batch {
                        let _ = reply.send(Err(AppError::Unavailable {
                            reason: reason.clone(),
                            retry_after_secs: 2,
                        }));
                    }
                }
            }
        }
    }

    fn take(&self) -> Vec<Waiting> {
        match self.queue.lock() {
            Ok(mut queue) => {
                let n = queue.len().min(MAX_BATCH);
                queue.drain(..n).collect()
            }
            Err(_) => Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.queue.lock().map(|q| q.is_empty()).unwrap_or(true)
    }
}
