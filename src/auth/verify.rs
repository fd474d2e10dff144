//! Password verification on a small pool of its own. argon2 is meant to be expensive (tens of
//! milliseconds of one core each), so a flood of sign-ins must wait here, holding nothing else:
//! not a database connection, not an HTTP worker, not more than its share of the CPU. At most
//! half the cores verify at once; a bounded number of attempts wait their turn, each for a
//! bounded time; past either bound the answer is 503 with `Retry-After`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::error::{AppError, AppResult};
use crate::services;

/// How long an attempt waits for a verifier before it is answered 503.
const WAIT: Duration = Duration::from_secs(3);
/// Attempts that may wait per verifier thread (about a second's worth at ~20 ms each).
const WAITING_PER_THREAD: usize = 32;
/// What a 503 asks the client to wait, in seconds.
const RETRY_AFTER_SECS: u32 = 2;

/// The verifiers of one process.
pub struct PasswordChecks {
    permits: Arc<Semaphore>,
    queued: AtomicUsize,
    max_queued: usize,
    wait: Duration,
}

impl Default for PasswordChecks {
    /// Half this machine's cores (at least one) verify at once.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (cores / 2).max(1);
        Self::new(threads, threads * WAITING_PER_THREAD, WAIT)
    }
}

/// Counts an attempt as queued while it lives.
struct Queued<'a>(&'a AtomicUsize);

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl PasswordChecks {
    /// `threads` verifications at once, at most `max_queued` attempts waiting or verifying,
    /// each waiting at most `wait` for its turn.
    pub fn new(threads: usize, max_queued: usize, wait: Duration) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            queued: AtomicUsize::new(0),
            max_queued: max_queued.max(1),
            wait,
        }
    }

    /// Whether `password` matches `hash` (an account's stored argon2 hash; `None` for an
    /// unknown account, which costs the same verification against a dummy hash).
    pub async fn verify(&self, hash: Option<String>, password: String) -> AppResult<bool> {
        self.run("password verification", move || {
            services::auth::verify_password(hash.as_deref(), &password)
        })
        .await?
    }

    /// Runs other expensive work of the same kind on these threads, under the same bounds
    /// (an uploaded image decoded to check it): `what` names it in a 503.
    pub async fn run<T: Send + 'static>(
        &self,
        what: &'static str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> AppResult<T> {
        let busy = |why: &str| AppError::Unavailable {
            reason: format!("{what} {why}"),
            retry_after_secs: RETRY_AFTER_SECS,
        };
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.max_queued {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            metrics::counter!("herald_sign_in_verifications_refused_total").increment(1);
            return Err(busy("queue is full"));
        }
        let _queued = Queued(&self.queued);
        let permit = tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| {
                metrics::counter!("herald_sign_in_verifications_refused_total").increment(1);
                busy("waited too long")
            })?
            .map_err(|_| busy("is closed"))?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("{what} task: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::users::hash_password;

    #[tokio::test]
    async fn the_right_password_matches_and_a_wrong_one_or_no_account_does_not() {
        let checks = PasswordChecks::new(1, 4, WAIT);
        let hash = hash_password("correct horse battery staple").unwrap();
        let right = checks
            .verify(Some(hash.clone()), "correct horse battery staple".into())
            .await;
        assert!(right.unwrap());
        assert!(!checks.verify(Some(hash), "wrong".into()).await.unwrap());
        assert!(!checks.verify(None, "anything".into()).await.unwrap());
    }

    #[tokio::test]
    async fn past_its_queue_an_attempt_is_answered_503_at_once() {
        let checks = Arc::new(PasswordChecks::new(1, 1, WAIT));
        let hold = checks.permits.clone().acquire_owned().await.unwrap();
        let first = tokio::spawn({
            let checks = checks.clone();
            async move { checks.verify(None, "x".into()).await }
        });
        while checks.queued.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        match checks.verify(None, "y".into()).await {
            Err(AppError::Unavailable {
                retry_after_secs, ..
            }) => assert_eq!(retry_after_secs, RETRY_AFTER_SECS),
            other => panic!("expected 503, got {other:?}"),
        }
        drop(hold);
        assert!(
            !first.await.unwrap().unwrap(),
            "the queued attempt still ran"
        );
        assert_eq!(checks.queued.load(Ordering::Acquire), 0);
    }

    #[tokio::test]
    async fn an_attempt_waits_for_its_turn_only_so_long() {
        let checks = PasswordChecks::new(1, 8, Duration::from_millis(20));
        let _hold = checks.permits.clone().acquire_owned().await.unwrap();
        let answer = checks.verify(None, "x".into()).await;
        assert!(
            matches!(answer, Err(AppError::Unavailable { .. })),
            "{answer:?}"
        );
    }
}
