//! Rate limits on subscribing: per client network and per subscribed address (so nobody can
//! flood a mailbox with confirmation requests from many addresses). Kept in the application
//! state, per process, each in a bounded map ([`crate::limits::bounded`]).

use std::num::NonZeroU32;

use governor::Quota;

use crate::error::AppResult;
use crate::limits::ClientNet;
use crate::limits::bounded::{self as limiter, BoundedLimiter};

/// Subscribe requests per client network: a burst of 10, then one every 30 s.
const PER_CLIENT_BURST: u32 = 10;
const PER_CLIENT_EVERY_SECS: u64 = 30;
/// Requests per subscribed address (or webhook URL): a burst of 3, then one every 10 minutes.
const PER_TARGET_BURST: u32 = 3;
const PER_TARGET_EVERY_SECS: u64 = 600;
/// Keys each limiter remembers at most (about 100 bytes each).
const MAX_KEYS: usize = 100_000;

/// The two keyed limiters.
pub struct SubscribeLimits {
    by_client: BoundedLimiter<ClientNet>,
    by_target: BoundedLimiter<String>,
}

fn quota(every_secs: u64, burst: u32) -> Quota {
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    Quota::with_period(std::time::Duration::from_secs(every_secs))
        .map(|q| q.allow_burst(burst))
        .unwrap_or_else(|| Quota::per_minute(burst))
}

impl Default for SubscribeLimits {
    fn default() -> Self {
        Self {
            by_client: limiter::bounded(quota(PER_CLIENT_EVERY_SECS, PER_CLIENT_BURST), MAX_KEYS),
            by_target: limiter::bounded(quota(PER_TARGET_EVERY_SECS, PER_TARGET_BURST), MAX_KEYS),
        }
    }
}

impl SubscribeLimits {
    /// Counts a subscribe request from `client`: `Ok`, or 429 with the seconds to wait.
    pub fn check_client(&self, client: ClientNet) -> AppResult<()> {
        limiter::check(&self.by_client, &client)
    }

    /// Counts a request to subscribe `target` (an email address or URL, normalised, and already
    /// found valid: a mistyped URL costs nobody's budget).
    pub fn check_target(&self, target: &str) -> AppResult<()> {
        limiter::check(&self.by_target, &target.to_owned())
    }
}
