//! Outcomes written back: delivered in one statement, the others by what the outcome policy
//! ([`super::outcome`]) decides, failures counted against subscribers and quarantine.

use super::outcome::{History, outcome, same_cause};
use super::*;
use crate::domain::SubscriberId;

impl Engine {
    /// Starts recording finished deliveries, in one transaction.
    pub(super) fn flush(&mut self) {
        let finished = std::mem::take(&mut self.finished);
        let notes = std::mem::take(&mut self.notes);
        let unparked = std::mem::take(&mut self.unparked);
        let config = self.config.clone();
        let db = self.db.clone();
        let worker = self.worker.clone();
        self.db_jobs.spawn(async move {
            let count = finished.len();
            let started = std::time::Instant::now();
            let result = db
                .run(move |c| {
                    write_tx(c, |c| {
                        for (ids, waiting, error) in &same_cause(notes) {
                            rows::note_waiting(c, ids, waiting.as_str(), error, &worker)?;
                        }
                        record(c, &finished, &config)?;
                        for ids in unparked.chunks(500) {
                            rows::due_now(c, ids, config.clock.now())?;
                        }
                        Ok(())
                    })
                })
                .await;
            tracing::debug!(
                count,
                took_us = started.elapsed().as_micros() as u64,
                "outcomes recorded"
            );
            if let Err(e) = result {
                // The claims run out and the deliveries are sent again, with the same ids.
                tracing::warn!(error = %e, count, "could not record delivery outcomes");
            }
            DbDone::Flushed
        });
    }
}

/// Records outcomes: delivered in one statement, the others one by one; counts failures
/// against subscribers and quarantines those failing for too long.
pub(super) fn record(
    conn: &mut DbConn,
    finished: &[Finished],
    config: &EngineConfig,
) -> AppResult<()> {
    let at = config.clock.now();
    let delivered: Vec<String> = finished
        .iter()
        .filter(|f| f.delivered())
        .map(|f| f.delivery.id.clone())
        .collect();
    if !delivered.is_empty() {
        rows::mark_delivered(conn, &delivered, at)?;
        // Only subscribers with failures counted (as claimed) need their count reset.
        let subscribers: Vec<SubscriberId> = finished
            .iter()
            .filter(|f| f.delivered() && f.counts && f.had_failures)
            .map(|f| f.delivery.subscriber_id.clone())
            .collect();
        if !subscribers.is_empty() {
            rows::reset_failures(conn, &subscribers)?;
        }
    }
    for f in finished.iter().filter(|f| !f.delivered()) {
        let outcome = outcome(f.attempt.as_ref(), &History::of(&f.delivery), config, at);
        rows::record_outcome(conn, &f.delivery.id, &outcome, at)?;
        // A counted attempt that did not deliver is a failure (retried, failed, dead).
        if outcome.counted && f.counts {
            count_failure(conn, &f.delivery.subscriber_id, config, at)?;
        }
    }
    metrics::counter!("herald_deliveries_total", "outcome" => "delivered")
        .increment(delivered.len() as u64);
    Ok(())
}

/// Counts a failure; quarantines a subscriber failing `quarantine_after` times in a row over
/// at least `quarantine_window`, and tells a webhook's contact address.
pub(super) fn count_failure(
    conn: &mut DbConn,
    subscriber_id: &SubscriberId,
    config: &EngineConfig,
    at: NaiveDateTime,
) -> AppResult<()> {
    let Some(s) = rows::count_failure(conn, subscriber_id, at)? else {
        return Ok(());
    };
    let long_enough = s
        .first_failure_at
        .is_some_and(|first| at - first >= config.quarantine_window);
    if s.state == SubscriberState::Confirmed
        && s.consecutive_failures >= config.quarantine_after
        && long_enough
    {
        rows::set_state(conn, &s.id, SubscriberState::Quarantined, at)?;
        rows::skip_pending_of(conn, &s.id, at)?;
        tracing::warn!(subscriber = %s.id, failures = s.consecutive_failures, "subscriber quarantined");
        if s.kind == Channel::Webhook && s.contact_email.is_some() {
            events::subscriber_notice(
                conn,
                &s.page_id,
                &s.id,
                events::kind::SUBSCRIBER_QUARANTINED,
            )?;
        }
    }
    Ok(())
}
