//! A background worker's wake-up and the passes it makes, so that a caller can wait until the
//! worker has seen a change it committed. The public site's refresher (a pass publishes what
//! the database holds), the notification engine (a pass ends when nothing is left to send now)
//! and the job runner (a pass ends when no job is due or running) each have one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, watch};

/// A worker's wake-up and its tickets. A caller takes a ticket after its commit
/// ([`Passes::request`], which also wakes the worker); a pass that read the tickets before it
/// read the database covers them once it finishes. A ticket taken after a commit is therefore
/// covered only by a pass that saw the commit.
#[derive(Debug)]
pub struct Passes {
    wake: Notify,
    /// Tickets handed out.
    requested: AtomicU64,
    /// The highest ticket a finished pass covers.
    covered: watch::Sender<u64>,
}

impl Default for Passes {
    fn default() -> Self {
        Self {
            wake: Notify::new(),
            requested: AtomicU64::new(0),
            covered: watch::Sender::new(0),
        }
    }
}

impl Passes {
    /// Wakes the worker (a change was committed) without asking to hear when it is seen.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Waits for a wake-up (the worker's side).
    pub async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Wakes the worker and answers a ticket, for a change committed before this call, that
    /// [`Passes::covered_past`] waits for.
    pub fn request(&self) -> u64 {
        let ticket = self.requested.fetch_add(1, Ordering::SeqCst) + 1;
        self.wake.notify_one();
        ticket
    }

    /// Wakes the worker and waits, at most `bound`, for a pass that sees everything committed
    /// before this call. False when the bound ran out first.
    pub async fn seen(&self, bound: Duration) -> bool {
        let ticket = self.request();
        self.covered_past(ticket, bound).await
    }

    /// A pass starts (before it reads the database): the tickets it will cover.
    pub fn pass_covers(&self) -> u64 {
        self.requested.load(Ordering::SeqCst)
    }

    /// A pass that started with `covers` finished.
    pub fn pass_done(&self, covers: u64) {
        self.covered.send_if_modified(|covered| {
            let newer = covers > *covered;
            if newer {
                *covered = covers;
            }
            newer
        });
    }

    /// Waits, at most `bound`, for a finished pass covering `ticket`. False when the bound ran
    /// out first.
    pub async fn covered_past(&self, ticket: u64, bound: Duration) -> bool {
        let mut covered = self.covered.subscribe();
        let reached = covered.wait_for(|&c| c >= ticket);
        matches!(tokio::time::timeout(bound, reached).await, Ok(Ok(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::Passes;

    #[tokio::test]
    async fn a_ticket_is_covered_only_by_a_pass_that_started_after_it() {
        let f = Passes::default();
        let early = f.pass_covers(); // a pass already reading the database
        let ticket = f.request(); // a write commits, then takes its ticket
        let short = std::time::Duration::from_millis(20);
        assert!(!f.covered_past(ticket, short).await, "nothing has run yet");
        f.pass_done(early);
        assert!(
            !f.covered_past(ticket, short).await,
            "the pass that was already running may have missed the write"
        );
        let next = f.pass_covers();
        let later = f.request();
        f.pass_done(next);
        assert!(f.covered_past(ticket, short).await);
        assert!(
            !f.covered_past(later, short).await,
            "taken after the pass began"
        );
        // A slow pass that finishes last cannot move the mark back.
        f.pass_done(early);
        assert!(f.covered_past(ticket, short).await);
    }

    #[tokio::test]
    async fn a_waiting_writer_is_released_by_the_pass_that_covers_it() {
        let f = std::sync::Arc::new(Passes::default());
        let ticket = f.request();
        let waiter = {
            let f = f.clone();
            tokio::spawn(async move {
                f.covered_past(ticket, std::time::Duration::from_secs(30))
                    .await
            })
        };
        let covers = f.pass_covers();
        f.pass_done(covers);
        assert!(waiter.await.unwrap());
    }
}
