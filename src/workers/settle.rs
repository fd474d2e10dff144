//! The `alerts.settle` job: a component whose held status may now change is settled.

use chrono::Utc;

use super::runner::{Handle, JobContext};
use crate::services::alerts::{Settle, settle_later};

/// Settles components once their hold is over.
pub struct Settler;

impl Handle<Settle> for Settler {
    async fn run(&self, ctx: &JobContext, job: Settle) -> anyhow::Result<()> {
        let id = job.component_id;
        let named = id.clone();
        ctx.db
            .run(move |conn| settle_later(conn, &id, Utc::now()))
            .await
            .map_err(|e| anyhow::anyhow!("settling component {named}: {e}"))?;
        Ok(())
    }
}
