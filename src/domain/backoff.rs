//! When to try again: exponential backoff with jitter, or the receiver's `Retry-After`. One
//! type for everything Herald retries: deliveries (full jitter, so that receivers recovering
//! from an outage see retries spread out) and jobs (a quarter either way of the doubling).

use std::time::{Duration, SystemTime};

use rand::Rng;

/// How a delay is spread around its doubling ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jitter {
    /// Anywhere in `[0, ceiling]`.
    Full,
    /// Within a quarter of the ceiling either way (never near zero).
    Quarter,
}

/// Backoff parameters for one kind of retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The ceiling of the first retry's delay (attempt 0).
    pub base: Duration,
    /// No delay exceeds this.
    pub cap: Duration,
    /// A receiver's `Retry-After` is honoured up to this bound.
    pub max_retry_after: Duration,
    pub jitter: Jitter,
}

impl Default for Backoff {
    /// 30 s doubling up to 1 h; `Retry-After` honoured up to 1 h.
    fn default() -> Self {
        Self {
            base: Duration::from_secs(30),
            cap: Duration::from_secs(3600),
            max_retry_after: Duration::from_secs(3600),
            jitter: Jitter::Full,
        }
    }
}

impl Backoff {
    /// The jobs' backoff: 5 s doubling up to 1 h, a quarter either way.
    pub const fn jobs() -> Self {
        Self {
            base: Duration::from_secs(5),
            cap: Duration::from_secs(3600),
            max_retry_after: Duration::from_secs(3600),
            jitter: Jitter::Quarter,
        }
    }

    /// [`next_try`] with these parameters and the thread's random generator.
    pub fn next(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        next_try(attempt, retry_after, self, &mut rand::thread_rng())
    }
}

/// A delay within a quarter either way of `min(cap, base * 2^attempt)`, at least 1 ms.
pub fn quarter_jitter(attempt: u32, base: Duration, cap: Duration, rng: &mut impl Rng) -> Duration {
    let factor = 2u32.checked_pow(attempt).unwrap_or(u32::MAX);
    let ceiling = base.checked_mul(factor).unwrap_or(cap).min(cap);
    let millis = i64::try_from(ceiling.as_millis())
        .unwrap_or(i64::MAX / 2)
        .max(1);
    let spread = rng.gen_range(-(millis / 4)..=(millis / 4));
    Duration::from_millis(u64::try_from(millis + spread).unwrap_or(1).max(1))
}

/// A random delay in `[0, min(cap, base * 2^attempt)]` ("full jitter"), so that receivers
/// recovering from an outage see retries spread out rather than in waves.
pub fn full_jitter(attempt: u32, base: Duration, cap: Duration, rng: &mut impl Rng) -> Duration {
    let factor = 2u32.checked_pow(attempt).unwrap_or(u32::MAX);
    let ceiling = base.checked_mul(factor).unwrap_or(cap).min(cap);
    let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(rng.gen_range(0..=millis))
}

/// The delay before the next try after `attempt` (0 for the first failure): the receiver's
/// `Retry-After` when it gave one (bounded by `max_retry_after`), else full jitter.
pub fn next_try(
    attempt: u32,
    retry_after: Option<Duration>,
    backoff: &Backoff,
    rng: &mut impl Rng,
) -> Duration {
    match (retry_after, backoff.jitter) {
        (Some(wait), _) => wait.min(backoff.max_retry_after),
        (None, Jitter::Full) => full_jitter(attempt, backoff.base, backoff.cap, rng),
        (None, Jitter::Quarter) => quarter_jitter(attempt, backoff.base, backoff.cap, rng),
    }
}

/// Parses a `Retry-After` value: delay seconds (`120`) or an HTTP date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, relative to `now`; a past date means no wait).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let at = SystemTime::UNIX_EPOCH
        .checked_add(Duration::from_secs(u64::try_from(date.timestamp()).ok()?))?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn full_jitter_stays_within_the_doubling_ceiling_and_the_cap() {
        let mut rng = StdRng::seed_from_u64(7);
        let base = Duration::from_secs(1);
        let cap = Duration::from_secs(60);
        for attempt in 0..40 {
            let ceiling = Duration::from_secs(2u64.saturating_pow(attempt).min(60));
            let mut max_seen = Duration::ZERO;
            for _ in 0..200 {
                let d = full_jitter(attempt, base, cap, &mut rng);
                assert!(d <= ceiling, "attempt {attempt}: {d:?} > {ceiling:?}");
                max_seen = max_seen.max(d);
            }
            // Spread over the whole range, not stuck near zero.
            assert!(max_seen >= ceiling / 2, "attempt {attempt}: {max_seen:?}");
        }
    }

    #[test]
    fn quarter_jitter_doubles_until_the_cap_within_a_quarter() {
        let mut rng = StdRng::seed_from_u64(3);
        let (base, cap) = (Duration::from_secs(10), Duration::from_secs(100));
        for (attempt, expected) in [
            (0, 10_000),
            (1, 20_000),
            (2, 40_000),
            (3, 80_000),
            (4, 100_000),
            (29, 100_000),
        ] {
            for _ in 0..50 {
                let ms = quarter_jitter(attempt, base, cap, &mut rng).as_millis() as u64;
                assert!(
                    (expected * 3 / 4..=expected * 5 / 4).contains(&ms),
                    "attempt {attempt}: {ms} ms"
                );
            }
        }
        assert_eq!(Backoff::jobs().jitter, Jitter::Quarter);
        assert_eq!(Backoff::default().jitter, Jitter::Full);
    }

    #[test]
    fn huge_attempt_numbers_do_not_overflow() {
        let mut rng = StdRng::seed_from_u64(1);
        let d = full_jitter(
            u32::MAX,
            Duration::from_secs(30),
            Duration::from_secs(3600),
            &mut rng,
        );
        assert!(d <= Duration::from_secs(3600));
    }

    #[test]
    fn retry_after_is_honoured_but_bounded() {
        let mut rng = StdRng::seed_from_u64(3);
        let b = Backoff::default();
        let wait = Some(Duration::from_secs(120));
        assert_eq!(next_try(5, wait, &b, &mut rng), Duration::from_secs(120));
        let week = Some(Duration::from_secs(7 * 86400));
        assert_eq!(next_try(0, week, &b, &mut rng), Duration::from_secs(3600));
        assert!(next_try(0, None, &b, &mut rng) <= Duration::from_secs(30));
    }

    #[test]
    fn retry_after_parses_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_400); // 07:26:40 GMT
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(80))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
    }
}
