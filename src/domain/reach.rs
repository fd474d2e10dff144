//! How far from now a time a responder gives may lie: an incident's start, a maintenance's
//! window. A year typed as 0226 for 2026 would otherwise be stored, and the page's history would
//! reach back eighteen centuries (thousands of pages to render on every change).

use chrono::{DateTime, Duration, Utc};

/// How far back an incident may be dated, in days (ten years).
pub const DAYS_BACK: i64 = 3_652;
/// How far ahead a maintenance may be scheduled, in days (two years).
pub const DAYS_AHEAD: i64 = 731;

/// `at`, unless it lies more than [`DAYS_BACK`] before `now` or [`DAYS_AHEAD`] after it; the
/// message says the dates it must fall between.
pub fn within_reach(at: DateTime<Utc>, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let (earliest, latest) = (
        now - Duration::days(DAYS_BACK),
        now + Duration::days(DAYS_AHEAD),
    );
    if (earliest..=latest).contains(&at) {
        Ok(at)
    } else {
        Err(format!(
            "must fall between {} and {} (ten years back, two years ahead)",
            earliest.format("%Y-%m-%d"),
            latest.format("%Y-%m-%d")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, 8, 0, 0).unwrap()
    }

    #[test]
    fn a_time_within_ten_years_back_and_two_ahead_is_kept() {
        for days in [-DAYS_BACK, -30, 0, 30, DAYS_AHEAD] {
            let at = now() + Duration::days(days);
            assert_eq!(within_reach(at, now()), Ok(at), "{days} days");
        }
    }

    #[test]
    fn a_mistyped_century_or_a_far_future_is_refused_with_the_bounds() {
        let typo = Utc.with_ymd_and_hms(226, 12, 2, 8, 0, 0).unwrap();
        assert_eq!(
            within_reach(typo, now()),
            Err(
                "must fall between 2016-12-02 and 2028-12-02 (ten years back, two years ahead)"
                    .to_owned()
            )
        );
        for days in [-DAYS_BACK - 1, DAYS_AHEAD + 1] {
            let at = now() + Duration::days(days);
            assert!(within_reach(at, now()).is_err(), "{days} days");
        }
    }
}
