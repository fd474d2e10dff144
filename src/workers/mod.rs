//! The background work of a process, in one place: the job runner (`runner`), the one list of
//! the jobs Herald runs, each a type with its name and payload (`crate::jobs::Job`) and its
//! handler here, and the clocks that need no queue (`maintenance`: automatic maintenance
//! windows; `mirrors`: each vendor's summary read once per interval by one process).
//!
//! The other long-running workers belong to what they keep: the public site's refresher
//! (`render::refresh`), the notification engine (`notify::engine`) and the support replay
//! (`support::replay`). Their wake-ups and passes, and the drain at shutdown, are
//! `runtime`'s.

pub mod maintenance;
pub mod mirrors;
pub mod reader_link;
pub mod retention;
pub mod runner;
pub mod settle;
pub mod support_notice;

pub use runner::{Handle, JobContext, Registry, RunnerConfig};

use crate::config::Settings;
use crate::services::signing_key::SigningKey;

/// Adds every job Herald runs to `registry`. Must be called inside a Tokio runtime (the mail
/// pools).
pub fn add_jobs(
    registry: &mut Registry,
    settings: &Settings,
    key: &SigningKey,
) -> anyhow::Result<()> {
    registry.add(settle::Settler);
    registry.add(reader_link::LinkMailer::new(settings, key.clone())?);
    registry.add(support_notice::Notifier::new(settings)?);
    Ok(())
}
