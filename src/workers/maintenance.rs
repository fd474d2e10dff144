//! The maintenance clock: every few seconds, start and complete automatic maintenances whose
//! window edge has passed.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::db::Db;
use crate::render::site::PublicSite;
use crate::services::maintenance;

/// How often window edges are checked.
pub const TICK: Duration = Duration::from_secs(10);

/// Runs until `stop` is cancelled; wakes the public site after every step taken.
pub async fn run(db: Db, site: Arc<PublicSite>, stop: CancellationToken) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(TICK) => {}
        }
        match db
            .run(|c| maintenance::advance_due(c, chrono::Utc::now()))
            .await
        {
            Ok(steps) if !steps.is_empty() => {
                tracing::info!(?steps, "moved automatic maintenances");
                site.passes.wake();
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "advancing automatic maintenances failed"),
        }
    }
}
