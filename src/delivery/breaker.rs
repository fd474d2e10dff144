//! A circuit breaker per destination host: after `failure_threshold` consecutive failures the
//! circuit opens and nothing is sent for `cool_down`; then one probe is let through (half-open);
//! its success closes the circuit, its failure opens it again.
//!
//! Time comes from a [`Clock`] (or an `Instant` passed in), so tests control it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where "now" comes from.
pub trait Clock: Send + Sync {
    fn now(&self) -> Instant;
}

/// The real monotonic clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to (tests).
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<Instant>>);

impl Default for ManualClock {
    fn default() -> Self {
        Self(Arc::new(Mutex::new(Instant::now())))
    }
}

impl ManualClock {
    /// Moves time forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// When a circuit opens and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerConfig {
    /// Consecutive failures that open the circuit.
    pub failure_threshold: u32,
    /// How long an open circuit refuses before letting one probe through.
    pub cool_down: Duration,
}

impl Default for BreakerConfig {
    /// Opens after 5 consecutive failures, probes after 30 s.
    fn default() -> Self {
        Self {
            failure_threshold: 5,
            cool_down: Duration::from_secs(30),
        }
    }
}

/// The state of one circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Requests flow; `failures` consecutive failures so far.
    Closed { failures: u32 },
    /// Nothing is sent until `until`.
    Open { until: Instant },
    /// One probe is in flight since `since`; others wait for its outcome.
    HalfOpen { since: Instant },
}

/// What the breaker says about sending now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permit {
    /// Send.
    Allowed,
    /// Send: this request is the half-open probe.
    Probe,
    /// Do not send; ask again after this long.
    Rejected { retry_in: Duration },
}

impl Permit {
    /// Whether the request may go.
    pub fn is_allowed(&self) -> bool {
        !matches!(self, Self::Rejected { .. })
    }
}

/// One host's circuit.
#[derive(Debug, Clone)]
pub struct Breaker {
    config: BreakerConfig,
    state: State,
}

impl Breaker {
    /// A closed circuit.
    pub fn new(config: BreakerConfig) -> Self {
        Self {
            config,
            state: State::Closed { failures: 0 },
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Asks to send at `now`. An open circuit whose cool-down has passed turns half-open and
    /// lets this one request through as the probe; a probe that never reported back within a
    /// cool-down (its task was dropped) is replaced by a new one.
    pub fn check(&mut self, now: Instant) -> Permit {
        match self.state {
            State::Closed { .. } => Permit::Allowed,
            State::Open { until } if now < until => Permit::Rejected {
                retry_in: until - now,
            },
            State::HalfOpen { since } if now < later(since, self.config.cool_down) => {
                Permit::Rejected {
                    retry_in: (later(since, self.config.cool_down) - now)
                        .min(Duration::from_secs(1)),
                }
            }
            State::Open { .. } | State::HalfOpen { .. } => {
                self.state = State::HalfOpen { since: now };
                Permit::Probe
            }
        }
    }

    /// Reports a success: the circuit closes.
    pub fn record_success(&mut self) {
        self.state = State::Closed { failures: 0 };
    }

    /// Reports a failure at `now`: counts towards the threshold, or reopens after a probe.
    pub fn record_failure(&mut self, now: Instant) {
        self.state = match self.state {
            State::Closed { failures } if failures + 1 < self.config.failure_threshold => {
                State::Closed {
                    failures: failures + 1,
                }
            }
            State::Closed { .. } | State::HalfOpen { .. } => State::Open {
                until: later(now, self.config.cool_down),
            },
            // A late report from a request sent before the circuit opened.
            open @ State::Open { .. } => open,
        };
    }

    /// Whether this circuit is closed with no recent failures (safe to forget).
    pub fn is_idle(&self) -> bool {
        self.state == State::Closed { failures: 0 }
    }
}

/// `at + by`, saturating at a day past `at` for absurd cool-downs instead of panicking.
fn later(at: Instant, by: Duration) -> Instant {
    at.checked_add(by)
        .or_else(|| at.checked_add(Duration::from_secs(86_400)))
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock, and a breaker its three failures just opened.
    fn opened() -> (ManualClock, Breaker) {
        let clock = ManualClock::default();
        let mut b = breaker();
        for _ in 0..3 {
            b.record_failure(clock.now());
        }
        (clock, b)
    }

    fn breaker() -> Breaker {
        Breaker::new(BreakerConfig {
            failure_threshold: 3,
            cool_down: Duration::from_secs(30),
        })
    }

    #[test]
    fn consecutive_failures_open_the_circuit_and_a_success_resets_the_count() {
        let clock = ManualClock::default();
        let mut b = breaker();
        b.record_failure(clock.now());
        b.record_failure(clock.now());
        b.record_success();
        b.record_failure(clock.now());
        b.record_failure(clock.now());
        assert_eq!(b.check(clock.now()), Permit::Allowed);
        b.record_failure(clock.now());
        assert!(matches!(b.state(), State::Open { .. }));
        assert_eq!(
            b.check(clock.now()),
            Permit::Rejected {
                retry_in: Duration::from_secs(30)
            }
        );
        clock.advance(Duration::from_secs(10));
        assert_eq!(
            b.check(clock.now()),
            Permit::Rejected {
                retry_in: Duration::from_secs(20)
            }
        );
    }

    #[test]
    fn after_the_cool_down_one_probe_goes_and_its_success_closes_the_circuit() {
        let (clock, mut b) = opened();
        clock.advance(Duration::from_secs(30));
        assert_eq!(b.check(clock.now()), Permit::Probe);
        assert!(
            !b.check(clock.now()).is_allowed(),
            "only one probe at a time"
        );
        b.record_success();
        assert_eq!(b.state(), State::Closed { failures: 0 });
        assert_eq!(b.check(clock.now()), Permit::Allowed);
    }

    #[test]
    fn a_failed_probe_opens_the_circuit_for_another_cool_down() {
        let (clock, mut b) = opened();
        clock.advance(Duration::from_secs(31));
        assert_eq!(b.check(clock.now()), Permit::Probe);
        b.record_failure(clock.now());
        assert_eq!(
            b.check(clock.now()),
            Permit::Rejected {
                retry_in: Duration::from_secs(30)
            }
        );
        clock.advance(Duration::from_secs(30));
        assert_eq!(b.check(clock.now()), Permit::Probe);
    }

    #[test]
    fn a_probe_that_never_reports_is_replaced_after_a_cool_down() {
        let (clock, mut b) = opened();
        clock.advance(Duration::from_secs(30));
        assert_eq!(b.check(clock.now()), Permit::Probe);
        clock.advance(Duration::from_secs(29));
        assert!(!b.check(clock.now()).is_allowed());
        clock.advance(Duration::from_secs(1));
        assert_eq!(b.check(clock.now()), Permit::Probe);
    }

    #[test]
    fn an_absurd_cool_down_does_not_panic() {
        let clock = ManualClock::default();
        let mut b = Breaker::new(BreakerConfig {
            failure_threshold: 1,
            cool_down: Duration::MAX,
        });
        b.record_failure(clock.now());
        assert!(!b.check(clock.now()).is_allowed());
    }

    #[test]
    fn late_failures_do_not_extend_an_open_circuit() {
        let (clock, mut b) = opened();
        let State::Open { until } = b.state() else {
            panic!("open expected")
        };
        clock.advance(Duration::from_secs(5));
        b.record_failure(clock.now());
        assert_eq!(b.state(), State::Open { until });
    }
}
