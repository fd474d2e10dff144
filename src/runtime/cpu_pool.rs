//! A small pool of threads for expensive CPU work that must not take the async threads nor
//! more than its share of the cores: a bounded number of tasks run at once, a bounded number
//! wait their turn, each for a bounded time; past either bound the answer is 503 with
//! `Retry-After`. Each kind of work has its own pool, so one kind never waits behind another.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::error::{AppError, AppResult};

/// How long a task waits for its turn before it is answered 503.
const WAIT: Duration = Duration::from_secs(3);
/// Password checks that may wait per thread (about a second's worth at ~20 ms each).
const PASSWORDS_WAITING_PER_THREAD: usize = 32;
/// Image checks that may wait for the one image thread (each up to a few hundred ms).
const IMAGES_WAITING: usize = 4;
/// What a 503 asks the client to wait, in seconds.
pub(crate) const RETRY_AFTER_SECS: u32 = 2;

/// One kind of expensive work's threads.
pub struct CpuPool {
    pub(crate) permits: Arc<Semaphore>,
    pub(crate) queued: AtomicUsize,
    threads: usize,
    max_queued: usize,
    wait: Duration,
    /// The counter of tasks refused because the pool was busy.
    refused_metric: &'static str,
}

/// Counts a task as queued while it lives.
struct Queued<'a>(&'a AtomicUsize);

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl CpuPool {
    /// `threads` tasks at once, at most `max_queued` tasks waiting or running, each waiting at
    /// most `wait` for its turn; refusals counted in `refused_metric`.
    pub fn new(
        threads: usize,
        max_queued: usize,
        wait: Duration,
        refused_metric: &'static str,
    ) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            queued: AtomicUsize::new(0),
            threads: threads.max(1),
            max_queued: max_queued.max(1),
            wait,
            refused_metric,
        }
    }

    /// Sign-ins' password checks: half this machine's cores (at least one) at once.
    pub fn passwords() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (cores / 2).max(1);
        Self::new(
            threads,
            threads * PASSWORDS_WAITING_PER_THREAD,
            WAIT,
            "herald_sign_in_verifications_refused_total",
        )
    }

    /// Uploaded images' checks (decoding a raster, filtering an SVG): one at a time.
    pub fn images() -> Self {
        Self::new(1, IMAGES_WAITING, WAIT, "herald_image_checks_refused_total")
    }

    /// Takes every thread of the pool until the answer is dropped, as if all were busy (for
    /// tests that show one kind of work does not wait behind another).
    #[doc(hidden)]
    #[allow(clippy::expect_used, reason = "the pool never closes its semaphore")]
    pub async fn hold_all(&self) -> tokio::sync::OwnedSemaphorePermit {
        let all = u32::try_from(self.threads).unwrap_or(u32::MAX);
        self.permits
            .clone()
            .acquire_many_owned(all)
            .await
            .expect("the pool's semaphore is never closed")
    }

    /// Runs `work` on one of these threads, within the pool's bounds: `what` names it in a 503.
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
            metrics::counter!(self.refused_metric).increment(1);
            return Err(busy("queue is full"));
        }
        let _queued = Queued(&self.queued);
        let permit = tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| {
                metrics::counter!(self.refused_metric).increment(1);
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

    #[tokio::test]
    async fn one_pools_busy_threads_never_hold_up_another_pool() {
        let images = Arc::new(CpuPool::images());
        let passwords = CpuPool::passwords();
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let stuck = tokio::spawn({
            let images = images.clone();
            async move {
                images
                    .run("checking an image", move || wait.recv().is_ok())
                    .await
            }
        });
        while images.permits.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let answer = passwords.run("password verification", || 42).await.unwrap();
        assert_eq!(answer, 42);
        release.send(()).unwrap();
        assert!(stuck.await.unwrap().unwrap());
    }
}
