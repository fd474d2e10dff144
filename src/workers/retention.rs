//! The retention clock: every [`EVERY`] (the first one after start), deletes what is past its time
//! (`services::retention`), batch after batch with a pause between, so that writes go on
//! beside it; then reads the database's size for `/metrics`.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::Retention;
use crate::db::Db;
use crate::error::AppResult;
use crate::services::retention::{self, Batch, Sizes};

/// How often a pass runs.
pub const EVERY: Duration = Duration::from_secs(600);
/// The pause between two batches: writers waiting for the database go first.
pub const PAUSE: Duration = Duration::from_millis(20);

/// Runs until `stop` is cancelled: the sizes at start, then a pass every [`EVERY`].
pub async fn run(db: Db, retention: Retention, stop: CancellationToken) {
    match db.run(retention::sizes).await {
        Ok(sizes) => publish(&sizes, chrono::Utc::now()),
        Err(e) => tracing::warn!(error = %e, "reading the database's size failed"),
    }
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(EVERY) => {}
        }
        match pass(&db, &retention, chrono::Utc::now, &stop).await {
            Ok(deleted) if deleted > 0 => tracing::info!(deleted, "deleted history past its time"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "retention pass failed"),
        }
    }
}

/// One pass: batches until nothing past its time is left (or another process has the turn,
/// or `stop`), then the sizes. Answers how many rows were deleted. `now` is the clock (tests
/// set it).
pub async fn pass(
    db: &Db,
    retention: &Retention,
    now: impl Fn() -> chrono::DateTime<chrono::Utc>,
    stop: &CancellationToken,
) -> AppResult<usize> {
    let mut deleted = 0;
    loop {
        let (retention, at) = (*retention, now());
        let batch = db
            .run(move |c| retention::delete_batch(c, &retention, at))
            .await?;
        if let Batch::Deleted(counts) = &batch {
            for (table, n) in counts {
                metrics::counter!("herald_retention_deleted_total", "table" => *table)
                    .increment(*n as u64);
                deleted += n;
            }
        }
        if !batch.more() || stop.is_cancelled() {
            break;
        }
        tokio::time::sleep(PAUSE).await;
    }
    let sizes = db.run(retention::sizes).await?;
    publish(&sizes, now());
    Ok(deleted)
}

fn publish(sizes: &Sizes, now: chrono::DateTime<chrono::Utc>) {
    for (table, n) in &sizes.rows {
        metrics::gauge!("herald_table_rows", "table" => table.clone()).set(*n as f64);
    }
    for (table, at) in &sizes.oldest {
        let age = at.map_or(0.0, |at| (now - at).num_seconds().max(0) as f64);
        metrics::gauge!("herald_history_oldest_age_seconds", "table" => *table).set(age);
    }
}
