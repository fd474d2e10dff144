//! Sign-in throttling, in memory, bounded in size. Three sliding windows, each counted when an
//! attempt is *reserved* (checked and counted in one step under one lock, so a burst of
//! concurrent guesses cannot all pass the check before any is counted):
//!
//! - per account and client network: [`PER_PAIR`] attempts in [`WINDOW`];
//! - per client network, across accounts: [`PER_NET`];
//! - per account, across networks: past [`ACCOUNT_SOFT`] attempts, one every [`ACCOUNT_PACE`].
//!   This one paces a guessing botnet and never locks the account: a network the account has
//!   signed in from before ([`KNOWN_FOR`]) is exempt, so the owner still gets in from their own
//!   address while the guessers wait.
//!
//! A successful sign-in gives its reservation back and forgets the pair's failures. The answer
//! is the same whether or not the account exists. Why not governor, as the other limits use:
//! a reservation must be given back on success (an office signing in every morning is not a
//! flood), and GCRA state cannot return a cell.

use std::collections::VecDeque;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use lru::LruCache;

use crate::limits::ClientNet;

/// Attempts per account from one client network within [`WINDOW`].
pub const PER_PAIR: usize = 5;
/// Attempts per client network across accounts within [`WINDOW`] (successes are given back).
pub const PER_NET: usize = 20;
/// Attempts on one account from all networks within [`WINDOW`] before they are paced.
pub const ACCOUNT_SOFT: usize = 10;
/// Past [`ACCOUNT_SOFT`], one attempt on the account per this from networks it is not known on.
pub const ACCOUNT_PACE: Duration = Duration::from_secs(30);
/// The sliding window.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a network an account signed in from stays exempt from the account's pacing.
pub const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);
/// Keys each map remembers at most; past that the least recently used is forgotten.
const MAX_KEYS: usize = 50_000;

type Pair = (String, ClientNet);

struct Windows {
    pairs: LruCache<Pair, VecDeque<Instant>>,
    nets: LruCache<ClientNet, VecDeque<Instant>>,
    accounts: LruCache<String, VecDeque<Instant>>,
    known: LruCache<Pair, Instant>,
}

/// The sign-in throttle of one process.
pub struct LoginLimiter {
    windows: Mutex<Windows>,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        Self::with_capacity(MAX_KEYS)
    }
}

/// An attempt that has been counted: hand it back with [`LoginLimiter::succeeded`].
#[derive(Debug)]
#[must_use = "a successful sign-in hands its attempt back"]
pub struct Attempt {
    account: String,
    net: ClientNet,
    at: Instant,
}

impl LoginLimiter {
    /// A limiter whose maps hold at most `capacity` keys each.
    pub fn with_capacity(capacity: usize) -> Self {
        let cap = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        Self {
            windows: Mutex::new(Windows {
                pairs: LruCache::new(cap),
                nets: LruCache::new(cap),
                accounts: LruCache::new(cap),
                known: LruCache::new(cap),
            }),
        }
    }

    /// Counts an attempt on `email` from `net`, or `Err(seconds to wait)` when one of the
    /// limits is used up (and then counts nothing).
    pub fn reserve(&self, email: &str, net: ClientNet) -> Result<Attempt, u32> {
        self.reserve_at(email, net, Instant::now())
    }

    fn reserve_at(&self, email: &str, net: ClientNet, at: Instant) -> Result<Attempt, u32> {
        let account = account_key(email);
        let pair = (account.clone(), net);
        let mut guard = self.lock();
        let w = &mut *guard;
        let known = w
            .known
            .get(&pair)
            .is_some_and(|since| at.saturating_duration_since(*since) < KNOWN_FOR);
        let waits = [
            full(window(&mut w.pairs, &pair, at), PER_PAIR, at),
            full(window(&mut w.nets, &net, at), PER_NET, at),
            if known {
                None
            } else {
                paced(window(&mut w.accounts, &account, at), at)
            },
        ];
        if let Some(wait) = waits.into_iter().flatten().max() {
            metrics::counter!("herald_sign_ins_throttled_total").increment(1);
            return Err(u32::try_from(wait.as_secs()).unwrap_or(u32::MAX).max(1));
        }
        push(&mut w.pairs, pair, at);
        push(&mut w.nets, net, at);
        push(&mut w.accounts, account.clone(), at);
        Ok(Attempt { account, net, at })
    }

    /// A reserved attempt signed in: it is given back, the pair's failures are forgotten and
    /// the network is known for the account from now on.
    pub fn succeeded(&self, attempt: Attempt) {
        let Attempt { account, net, at } = attempt;
        let mut guard = self.lock();
        let w = &mut *guard;
        let pair = (account.clone(), net);
        w.pairs.pop(&pair);
        give_back(&mut w.nets, &net, at);
        give_back(&mut w.accounts, &account, at);
        w.known.put(pair, at);
    }

    fn lock(&self) -> MutexGuard<'_, Windows> {
        // Each critical section is a few map operations: a panic cannot leave them half done.
        self.windows.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The window of `key`, pruned to [`WINDOW`] before `at` (empty when the key is new).
fn window<'a, K: Hash + Eq + Clone>(
    map: &'a mut LruCache<K, VecDeque<Instant>>,
    key: &K,
    at: Instant,
) -> Option<&'a VecDeque<Instant>> {
    let times = map.get_mut(key)?;
    while times
        .front()
        .is_some_and(|t| at.saturating_duration_since(*t) >= WINDOW)
    {
        times.pop_front();
    }
    Some(times)
}

/// How long until a window holding `limit` attempts has room again, if it is full.
fn full(times: Option<&VecDeque<Instant>>, limit: usize, at: Instant) -> Option<Duration> {
    let times = times?;
    let oldest = times.front()?;
    (times.len() >= limit).then(|| WINDOW.saturating_sub(at.saturating_duration_since(*oldest)))
}

/// How long the account's next attempt must wait, once past [`ACCOUNT_SOFT`].
fn paced(times: Option<&VecDeque<Instant>>, at: Instant) -> Option<Duration> {
    let times = times?;
    let newest = times.back()?;
    let since = at.saturating_duration_since(*newest);
    (times.len() >= ACCOUNT_SOFT && since < ACCOUNT_PACE).then(|| ACCOUNT_PACE - since)
}

fn push<K: Hash + Eq>(map: &mut LruCache<K, VecDeque<Instant>>, key: K, at: Instant) {
    map.get_or_insert_mut(key, VecDeque::new).push_back(at);
}

fn give_back<K: Hash + Eq>(map: &mut LruCache<K, VecDeque<Instant>>, key: &K, at: Instant) {
    if let Some(times) = map.get_mut(key)
        && let Some(i) = times.iter().rposition(|t| *t == at)
    {
        times.remove(i);
    }
}

fn account_key(email: &str) -> String {
    email.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(ip: &str) -> ClientNet {
        ClientNet::of(ip.parse().unwrap())
    }

    #[test]
    fn the_sixth_attempt_from_one_network_waits_about_the_window() {
        let limiter = LoginLimiter::default();
        for _ in 0..PER_PAIR {
            let _ = limiter.reserve("A@example.com", net("1.1.1.1")).unwrap();
        }
        let wait = limiter
            .reserve("a@example.com", net("1.1.1.1"))
            .unwrap_err();
        assert!((WINDOW.as_secs() as u32 - 2..=WINDOW.as_secs() as u32).contains(&wait));
        assert!(limiter.reserve("b@example.com", net("1.1.1.1")).is_ok());
    }

    #[test]
    fn guesses_from_one_network_do_not_lock_the_account_for_another() {
        let limiter = LoginLimiter::default();
        for _ in 0..PER_PAIR {
            let _ = limiter.reserve("a@example.com", net("6.6.6.6")).unwrap();
        }
        assert!(limiter.reserve("a@example.com", net("6.6.6.6")).is_err());
        let owner = limiter.reserve("a@example.com", net("192.0.2.1")).unwrap();
        limiter.succeeded(owner);
        assert!(limiter.reserve("a@example.com", net("6.6.6.6")).is_err());
    }

    #[test]
    fn a_network_is_limited_across_accounts() {
        let limiter = LoginLimiter::default();
        for i in 0..PER_NET {
            let _ = limiter
                .reserve(&format!("u{i}@example.com"), net("9.9.9.9"))
                .unwrap();
        }
        assert!(limiter.reserve("new@example.com", net("9.9.9.9")).is_err());
        assert!(limiter.reserve("new@example.com", net("8.8.8.8")).is_ok());
    }

    #[test]
    fn successes_are_given_back_so_an_office_can_sign_in_all_day() {
        let limiter = LoginLimiter::default();
        for i in 0..3 * PER_NET {
            let attempt = limiter
                .reserve(&format!("u{i}@example.com"), net("9.9.9.9"))
                .unwrap();
            limiter.succeeded(attempt);
        }
        assert!(limiter.reserve("late@example.com", net("9.9.9.9")).is_ok());
    }

    #[test]
    fn an_account_under_a_distributed_guess_is_paced_but_its_known_network_is_not() {
        let limiter = LoginLimiter::default();
        let t0 = Instant::now();
        let owner = limiter
            .reserve_at("a@example.com", net("192.0.2.1"), t0)
            .unwrap();
        limiter.succeeded(owner);
        for i in 0..ACCOUNT_SOFT {
            let from = net(&format!("203.0.113.{i}"));
            let _ = limiter.reserve_at("a@example.com", from, t0).unwrap();
        }
        let fresh = net("198.51.100.1");
        let wait = limiter
            .reserve_at("a@example.com", fresh, t0 + Duration::from_secs(1))
            .unwrap_err();
        assert_eq!(u64::from(wait), ACCOUNT_PACE.as_secs() - 1);
        assert!(
            limiter
                .reserve_at(
                    "a@example.com",
                    net("192.0.2.1"),
                    t0 + Duration::from_secs(1)
                )
                .is_ok(),
            "the owner's network is exempt from the pacing"
        );
        let later = t0 + Duration::from_secs(1) + ACCOUNT_PACE;
        assert!(limiter.reserve_at("a@example.com", fresh, later).is_ok());
        assert!(
            limiter
                .reserve_at("a@example.com", net("198.51.100.2"), later)
                .is_err(),
            "one paced attempt at a time"
        );
    }

    #[test]
    fn a_full_map_forgets_its_least_recently_used_keys_not_all() {
        let limiter = LoginLimiter::with_capacity(2);
        for _ in 0..PER_PAIR {
            let _ = limiter.reserve("a@example.com", net("1.1.1.1")).unwrap();
        }
        let _ = limiter.reserve("b@example.com", net("1.1.1.2")).unwrap();
        assert!(
            limiter.reserve("a@example.com", net("1.1.1.1")).is_err(),
            "a is still counted after b arrived"
        );
        let _ = limiter.reserve("c@example.com", net("1.1.1.3")).unwrap();
        let _ = limiter.reserve("d@example.com", net("1.1.1.4")).unwrap();
        assert!(
            limiter.reserve("a@example.com", net("1.1.1.1")).is_ok(),
            "a, the least recently used, made room"
        );
    }
}
