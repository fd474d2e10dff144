//! The engine's clock: the real time, shifted by an offset that only tests move. Backoff,
//! `Retry-After`, leases, quarantine windows and circuit breakers all read it, so a test can
//! jump an hour ahead and watch what the engine does then, while time keeps flowing as usual
//! for everything else (polls, timeouts).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::delivery::breaker;

/// Real time plus an offset (zero unless a test [`advance`](EngineClock::advance)s it).
#[derive(Debug, Clone, Default)]
pub struct EngineClock {
    offset_ms: Arc<AtomicU64>,
}

impl EngineClock {
    /// The real clock.
    pub fn system() -> Self {
        Self::default()
    }

    /// Moves this clock (and every copy of it) forward.
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.offset_ms.fetch_add(ms, Ordering::Relaxed);
    }

    fn offset(&self) -> Duration {
        Duration::from_millis(self.offset_ms.load(Ordering::Relaxed))
    }

    /// Now, as stored in the database.
    pub fn now(&self) -> NaiveDateTime {
        self.utc().naive_utc()
    }

    /// Now, with its time zone.
    pub fn utc(&self) -> DateTime<Utc> {
        use chrono::SubsecRound;
        let offset = chrono::Duration::from_std(self.offset()).unwrap_or_default();
        (Utc::now() + offset).trunc_subsecs(6)
    }
}

impl breaker::Clock for EngineClock {
    fn now(&self) -> Instant {
        Instant::now() + self.offset()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advancing_moves_every_copy_and_both_kinds_of_time() {
        let clock = EngineClock::system();
        let copy = clock.clone();
        let (wall, mono) = (copy.now(), breaker::Clock::now(&copy));
        clock.advance(Duration::from_secs(3600));
        let ahead = copy.now() - wall;
        assert!(ahead >= chrono::Duration::seconds(3600), "{ahead}");
        assert!(ahead < chrono::Duration::seconds(3660), "{ahead}");
        assert!(breaker::Clock::now(&copy) - mono >= Duration::from_secs(3600));
    }
}
