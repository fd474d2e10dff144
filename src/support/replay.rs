//! The replay task: moves spooled submissions into the database once it answers again, each
//! exactly once (insert-if-absent by the id made before spooling), and deletes a spool file
//! only when all its submissions are in.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{Support, store};
use crate::db::Db;
use crate::services;

/// How often the spool is looked at.
pub const INTERVAL: Duration = Duration::from_secs(1);
/// Submissions inserted per database transaction during replay.
const CHUNK: usize = 200;
/// Passes between two clean-ups of the rate limiter's memory.
const LIMITER_UPKEEP_EVERY: u32 = 60;

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    pub files: usize,
    pub inserted: usize,
    /// Already in the database (an earlier, interrupted replay got them in).
    pub present: usize,
}

/// Replays every [`INTERVAL`] until `stop` is cancelled. Whatever is not replayed by then stays
/// on disk for the next start.
pub async fn run(support: Arc<Support>, db: Db, stop: CancellationToken) {
    let mut passes: u32 = 0;
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(INTERVAL) => {}
        }
        match replay_once(&support, &db).await {
            Ok(done) if done.files > 0 => {
                tracing::info!(?done, "replayed spooled support submissions");
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "support spool replay failed; will retry"),
        }
        passes = passes.wrapping_add(1);
        if passes.is_multiple_of(LIMITER_UPKEEP_EVERY) {
            support.forget_idle_addresses();
        }
    }
}

/// One pass: rotates the live spool when no older file waits, then inserts each waiting file's
/// submissions and deletes the file.
pub async fn replay_once(support: &Arc<Support>, db: &Db) -> anyhow::Result<Replayed> {
    let mut done = Replayed::default();
    let mut files = blocking(support, |s| s.spool.pending_files()).await?;
    if files.is_empty() {
        support.spool.rotate().await?;
        files = blocking(support, |s| s.spool.pending_files()).await?;
    }
    if files.is_empty() && support.database_is_down() {
        db.run(|c| {
            use diesel::connection::SimpleConnection;
            Ok(c.batch_execute("SELECT 1")?)
        })
        .await?;
        support.database_is_back();
    }
    for file in files {
        let path = file.clone();
        let mut reader = Some(blocking(support, move |s| s.spool.reader(&path)).await?);
        loop {
            let taken = reader.take();
            let (back, chunk) = blocking(support, move |s| {
                let mut r = taken.ok_or_else(|| std::io::Error::other("no spool reader"))?;
                let chunk = s.spool.read_chunk(&mut r, CHUNK)?;
                Ok((r, chunk))
            })
            .await?;
            reader = Some(back);
            if chunk.is_empty() {
                break;
            }
            // One transaction per chunk (a savepoint per submission inside): one commit for
            // many rows, which is what makes replay fast on PostgreSQL.
            let (inserted, present) = db
                .run(move |c| {
                    services::write::run(c, |c| {
                        let (mut inserted, mut present) = (0, 0);
                        for s in &chunk {
                            if store::insert_submission(c, s, true)? {
                                inserted += 1;
                            } else {
                                present += 1;
                            }
                        }
                        Ok((inserted, present))
                    })
                    .map(|written| written.value)
                })
                .await?;
            done.inserted += inserted;
            done.present += present;
            support.database_is_back();
        }
        drop(reader);
        blocking(support, move |s| s.spool.remove(&file)).await?;
        done.files += 1;
    }
    if done.inserted > 0 {
        metrics::counter!("herald_support_replayed_total").increment(done.inserted as u64);
    }
    Ok(done)
}

async fn blocking<T, F>(support: &Arc<Support>, f: F) -> anyhow::Result<T>
where
    F: FnOnce(&Support) -> std::io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    let support = support.clone();
    Ok(tokio::task::spawn_blocking(move || f(&support)).await??)
}
