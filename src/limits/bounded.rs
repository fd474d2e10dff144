//! Keyed rate limiters with a bounded memory: governor's GCRA over a least-recently-used map.
//! governor's own keyed stores grow with every new key until `retain_recent` runs, and that
//! keeps every key still inside its window, so a flood of fresh keys (addresses, mailboxes)
//! grows them without bound. Here the map holds at most a set number of keys and forgets the
//! one touched longest ago to make room, never the whole map.

use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::{Mutex, MutexGuard};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::StateStore;
use governor::state::keyed::ShrinkableKeyedStateStore;
use governor::{Quota, RateLimiter};
use lru::LruCache;

use crate::error::{AppError, AppResult};

/// A GCRA state per key (governor's theoretical arrival time, in nanoseconds since the
/// limiter's start), at most `capacity` keys.
pub struct LruStore<K: Hash + Eq> {
    map: Mutex<LruCache<K, u64>>,
}

impl<K: Hash + Eq> LruStore<K> {
    fn new(capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        Self {
            map: Mutex::new(LruCache::new(capacity)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, LruCache<K, u64>> {
        // Every critical section is a map lookup and a store: a panic cannot leave it half done.
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<K: Hash + Eq + Clone> StateStore for LruStore<K> {
    type Key = K;

    fn measure_and_replace<T, F, E>(&self, key: &K, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        let mut map = self.lock();
        let previous = map.get(key).copied().filter(|t| *t != 0).map(Nanos::from);
        let (outcome, next) = f(previous)?;
        map.put(key.clone(), next.into());
        Ok(outcome)
    }
}

impl<K: Hash + Eq + Clone> ShrinkableKeyedStateStore<K> for LruStore<K> {
    fn retain_recent(&self, drop_below: Nanos) {
        let drop_below = u64::from(drop_below);
        let mut map = self.lock();
        let stale: Vec<K> = map
            .iter()
            .filter(|(_, t)| **t <= drop_below)
            .map(|(k, _)| k.clone())
            .collect();
        for key in stale {
            map.pop(&key);
        }
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
}

/// A keyed limiter holding at most a set number of keys.
pub type BoundedLimiter<K> = RateLimiter<K, LruStore<K>, DefaultClock, NoOpMiddleware>;

/// A limiter with `quota` per key that remembers at most `capacity` keys.
pub fn bounded<K: Hash + Eq + Clone>(quota: Quota, capacity: usize) -> BoundedLimiter<K> {
    RateLimiter::new(quota, LruStore::new(capacity), DefaultClock::default())
}

/// Counts one request against `key`: `Ok`, or 429 with the seconds until one is allowed.
pub fn check<K: Hash + Eq + Clone>(limiter: &BoundedLimiter<K>, key: &K) -> AppResult<()> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        AppError::RateLimited {
            retry_after_secs: u32::try_from(wait.as_secs().max(1)).unwrap_or(u32::MAX),
        }
    })
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;

    fn per_hour(n: u32) -> Quota {
        Quota::per_hour(NonZeroU32::new(n).unwrap())
    }

    #[test]
    fn a_key_is_limited_to_its_burst_and_others_are_not() {
        let limiter = bounded::<u32>(per_hour(2), 10);
        assert!(check(&limiter, &1).is_ok());
        assert!(check(&limiter, &1).is_ok());
        match check(&limiter, &1) {
            Err(AppError::RateLimited { retry_after_secs }) => {
                assert!((1..=1800).contains(&retry_after_secs), "{retry_after_secs}")
            }
            other => panic!("expected 429, got {other:?}"),
        }
        assert!(check(&limiter, &2).is_ok());
    }

    #[test]
    fn a_full_map_forgets_the_least_recently_used_key_only() {
        let limiter = bounded::<u32>(per_hour(1), 3);
        for key in [1, 2, 3] {
            assert!(check(&limiter, &key).is_ok());
        }
        // Touch 1 so that 2 is the oldest, then a fourth key makes room by forgetting 2.
        assert!(check(&limiter, &1).is_err());
        assert!(check(&limiter, &4).is_ok());
        assert_eq!(limiter.len(), 3);
        assert!(check(&limiter, &1).is_err(), "1 is still remembered");
        assert!(check(&limiter, &3).is_err(), "3 is still remembered");
        assert!(
            check(&limiter, &2).is_ok(),
            "2 was forgotten, so it starts afresh"
        );
    }
}
