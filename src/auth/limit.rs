//! Sign-in rate limiting: failed attempts counted in a sliding window per account (email) and
//! per client IP, in memory, bounded in size. The answer is the same whether or not the
//! account exists.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures allowed per account within [`WINDOW`].
pub const PER_ACCOUNT: usize = 5;
/// Failures allowed per client IP within [`WINDOW`].
pub const PER_IP: usize = 20;
/// The sliding window.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Keys tracked at most; past that, the oldest-touched half is forgotten.
const MAX_KEYS: usize = 10_000;

/// Failure times per key (`acct:<email>` or `ip:<addr>`).
#[derive(Debug, Default)]
pub struct LoginLimiter {
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl LoginLimiter {
    /// `Err(seconds to wait)` when the account or the IP has used up its failures.
    pub fn check(&self, email: &str, ip: &str) -> Result<(), u32> {
        let at = Instant::now();
        let mut map = self.lock();
        let wait = [(account_key(email), PER_ACCOUNT), (ip_key(ip), PER_IP)]
            .into_iter()
            .filter_map(|(key, limit)| {
                let times = map.get_mut(&key)?;
                prune(times, at);
                let oldest = times.front()?;
                (times.len() >= limit).then(|| WINDOW.saturating_sub(at - *oldest))
            })
            .max();
        match wait {
            Some(wait) => Err(u32::try_from(wait.as_secs()).unwrap_or(u32::MAX).max(1)),
            None => Ok(()),
        }
    }

    /// Counts a failed attempt against the account and the IP.
    pub fn record_failure(&self, email: &str, ip: &str) {
        let at = Instant::now();
        let mut map = self.lock();
        if map.len() >= MAX_KEYS {
            map.retain(|_, times| {
                prune(times, at);
                !times.is_empty()
            });
            if map.len() >= MAX_KEYS {
                map.clear();
            }
        }
        for key in [account_key(email), ip_key(ip)] {
            let times = map.entry(key).or_default();
            prune(times, at);
            times.push_back(at);
        }
    }

    /// Forgets the account's failures after a successful sign-in (the IP's stay).
    pub fn record_success(&self, email: &str) {
        self.lock().remove(&account_key(email));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<Instant>>> {
        self.failures.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn account_key(email: &str) -> String {
    format!("acct:{}", email.trim().to_lowercase())
}

fn ip_key(ip: &str) -> String {
    format!("ip:{ip}")
}

fn prune(times: &mut VecDeque<Instant>, at: Instant) {
    while times
        .front()
        .is_some_and(|t| at.duration_since(*t) >= WINDOW)
    {
        times.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sixth_attempt_on_an_account_waits_about_the_window() {
        let limiter = LoginLimiter::default();
        for _ in 0..PER_ACCOUNT {
            assert_eq!(limiter.check("a@example.com", "1.1.1.1"), Ok(()));
            limiter.record_failure("A@example.com", "1.1.1.1");
        }
        let wait = limiter.check("a@example.com", "2.2.2.2").unwrap_err();
        assert!((WINDOW.as_secs() as u32 - 2..=WINDOW.as_secs() as u32).contains(&wait));
        assert_eq!(limiter.check("b@example.com", "2.2.2.2"), Ok(()));
    }

    #[test]
    fn an_ip_is_limited_across_accounts() {
        let limiter = LoginLimiter::default();
        for i in 0..PER_IP {
            limiter.record_failure(&format!("u{i}@example.com"), "9.9.9.9");
        }
        assert!(limiter.check("new@example.com", "9.9.9.9").is_err());
        assert_eq!(limiter.check("new@example.com", "8.8.8.8"), Ok(()));
    }
}
