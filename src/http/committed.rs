//! What follows a committed write (`services::write::AfterCommit`), in one place for the
//! console, the JSON API, the public forms, the integrations and the imports: the engine and
//! the job runner are woken at once when the write left them work (a notification or a
//! support notice never waits for a poll), and a write that moved what the public pages show
//! waits, with a short bound, until this process serves the change: its answer and every
//! later public read show it.

use std::time::Duration;

use crate::services::write::AfterCommit;
use crate::state::AppState;

/// How long a write's answer waits for the public pages to show it. A re-render takes a few
/// milliseconds; past this (a database too busy to read back) the write answers anyway, and
/// the pages follow on the refresher's next pass.
pub const SHOWN_WITHIN: Duration = Duration::from_secs(2);

/// Does what `after` asks of this process once its write committed.
pub async fn follow(state: &AppState, after: AfterCommit) {
    if after.notifications {
        state.notify.passes.wake();
    }
    if after.jobs {
        state.jobs.wake();
    }
    if after.public && !state.site.passes.seen(SHOWN_WITHIN).await {
        tracing::info!(
            bound_ms = SHOWN_WITHIN.as_millis() as u64,
            "answering a write before the public pages show it; they follow on the next refresh"
        );
    }
}
