//! Password verification on a small pool of its own ([`CpuPool::passwords`]). argon2 is meant
//! to be expensive (tens of milliseconds of one core each), so a flood of sign-ins must wait
//! there, holding nothing else: not a database connection, not an HTTP worker, not more than
//! its share of the CPU. Nothing else runs on that pool, so other heavy work (an uploaded
//! image's check) never makes a sign-in wait.

use crate::error::AppResult;
use crate::runtime::cpu_pool::CpuPool;
use crate::services;

impl CpuPool {
    /// Whether `password` matches `hash` (an account's stored argon2 hash; `None` for an
    /// unknown account, which costs the same verification against a dummy hash).
    pub async fn verify(&self, hash: Option<String>, password: String) -> AppResult<bool> {
        self.run("password verification", move || {
            services::auth::verify_password(hash.as_deref(), &password)
        })
        .await?
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use super::*;
    use crate::error::AppError;
    use crate::runtime::cpu_pool::RETRY_AFTER_SECS;

    const WAIT: Duration = Duration::from_secs(3);

    fn checks(threads: usize, max_queued: usize, wait: Duration) -> CpuPool {
        CpuPool::new(threads, max_queued, wait, "test_refused_total")
    }
    use crate::services::users::hash_password;

    #[tokio::test]
    async fn the_right_password_matches_and_a_wrong_one_or_no_account_does_not() {
        let checks = checks(1, 4, WAIT);
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
        let checks = Arc::new(checks(1, 1, WAIT));
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
        let checks = checks(1, 8, Duration::from_millis(20));
        let _hold = checks.permits.clone().acquire_owned().await.unwrap();
        let answer = checks.verify(None, "x".into()).await;
        assert!(
            matches!(answer, Err(AppError::Unavailable { .. })),
            "{answer:?}"
        );
    }
}
