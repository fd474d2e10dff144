//! Rate limits on subscribing: per client address and per subscribed address (so nobody can
//! flood a mailbox with confirmation requests from many addresses). Kept in the application
//! state, per process.

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::{AppError, AppResult};

/// Subscribe requests per client address: a burst of 10, then one every 30 s.
const PER_IP_BURST: u32 = 10;
const PER_IP_EVERY_SECS: u64 = 30;
/// Requests per subscribed address (or webhook URL): a burst of 3, then one every 10 minutes.
const PER_TARGET_BURST: u32 = 3;
const PER_TARGET_EVERY_SECS: u64 = 600;

/// The two keyed limiters.
pub struct SubscribeLimits {
    by_ip: DefaultKeyedRateLimiter<IpAddr>,
    by_target: DefaultKeyedRateLimiter<String>,
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
            by_ip: RateLimiter::keyed(quota(PER_IP_EVERY_SECS, PER_IP_BURST)),
            by_target: RateLimiter::keyed(quota(PER_TARGET_EVERY_SECS, PER_TARGET_BURST)),
        }
    }
}

impl SubscribeLimits {
    /// `Ok` when `ip` may subscribe `target` (an email address or URL, normalised) now; else
    /// 429 with the seconds to wait.
    pub fn check(&self, ip: IpAddr, target: &str) -> AppResult<()> {
        let limited = |wait: std::time::Duration| AppError::RateLimited {
            retry_after_secs: wait.as_secs().max(1).min(u64::from(u32::MAX)) as u32,
        };
        let clock = DefaultClock::default();
        self.by_ip
            .check_key(&ip)
            .map_err(|n| limited(n.wait_time_from(clock.now())))?;
        self.by_target
            .check_key(&target.to_owned())
            .map_err(|n| limited(n.wait_time_from(clock.now())))?;
        if self.by_target.len() > 100_000 {
            self.by_target.retain_recent();
            self.by_ip.retain_recent();
        }
        Ok(())
    }
}
