//! What follows a committed write, in one place for the console, the JSON API and the public
//! forms: the notification engine and the job runner are woken at once (a notification or a
//! support notice never waits for a poll),
//! and a write that changes what the public pages show waits, with a short bound, until this
//! process serves the change: its answer and every later public read show it.

use std::time::Duration;

use crate::state::AppState;

/// How long a write's answer waits for the public pages to show it. A re-render takes a few
/// milliseconds; past this (a database too busy to read back) the write answers anyway, and
/// the pages follow on the refresher's next pass.
pub const SHOWN_WITHIN: Duration = Duration::from_secs(2);

/// After a write that may change the public pages and may have queued notifications.
pub async fn public_change(state: &AppState) {
    state.notify.passes.wake();
    if !state.site.passes.seen(SHOWN_WITHIN).await {
        tracing::info!(
            bound_ms = SHOWN_WITHIN.as_millis() as u64,
            "answering a write before the public pages show it; they follow on the next refresh"
        );
    }
}

/// After a write that queued jobs (a support submission's notices): the runner claims them
/// at once instead of on its poll.
pub fn jobs_queued(state: &AppState) {
    state.jobs.wake();
}

/// After a write that changes only what the engine sends (subscriptions, a retried delivery).
pub fn notifications_queued(state: &AppState) {
    state.notify.passes.wake();
}
