//! "Next update by": when responders promised (or are expected) to post the next update.
//!
//! Each impact has a default interval, set per page; a responder may pick another time when
//! posting an update. Resolved incidents have no deadline.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::status::{Impact, IncidentStatus};

/// The shortest allowed default interval, in minutes.
pub const MIN_NEXT_UPDATE_MINS: u32 = 5;
/// The longest allowed default interval, in minutes (one day).
pub const MAX_NEXT_UPDATE_MINS: u32 = 1440;
/// How far ahead a chosen "next update by" time may be, in days.
pub const MAX_NEXT_UPDATE_AHEAD_DAYS: i64 = 7;

/// A "next update by" setting or time that cannot be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeadlineError {
    /// A default interval outside 5..=1440 minutes.
    #[error(
        "{field} must be between {MIN_NEXT_UPDATE_MINS} and {MAX_NEXT_UPDATE_MINS} minutes, got {value}"
    )]
    IntervalOutOfRange {
        /// The setting's name, e.g. `next_update_critical_mins`.
        field: &'static str,
        /// The rejected value.
        value: u32,
    },
    /// A chosen time that is not after now.
    #[error("the next update time {deadline} is not in the future; pick a later time")]
    NotInFuture {
        /// The rejected time.
        deadline: DateTime<Utc>,
    },
    /// A chosen time more than seven days ahead.
    #[error(
        "the next update time {deadline} is more than {MAX_NEXT_UPDATE_AHEAD_DAYS} days ahead; pick an earlier time"
    )]
    TooFarAhead {
        /// The rejected time.
        deadline: DateTime<Utc>,
    },
}

/// The default interval until the next update, per impact, in minutes; `None` means no
/// deadline by default for that impact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextUpdateIntervals {
    /// For incidents without user impact.
    pub none: Option<u32>,
    /// For minor incidents.
    pub minor: Option<u32>,
    /// For major incidents.
    pub major: Option<u32>,
    /// For critical incidents.
    pub critical: Option<u32>,
}

impl Default for NextUpdateIntervals {
    /// Four hours for `none` (every open incident promises its next update), two hours for
    /// minor, one hour for major, 30 minutes for critical.
    fn default() -> Self {
        Self {
            none: Some(240),
            minor: Some(120),
            major: Some(60),
            critical: Some(30),
        }
    }
}

impl NextUpdateIntervals {
    /// The interval in minutes for an incident of this impact, if any.
    pub fn for_impact(&self, impact: Impact) -> Option<u32> {
        match impact {
            Impact::None => self.none,
            Impact::Minor => self.minor,
            Impact::Major => self.major,
            Impact::Critical => self.critical,
        }
    }

    /// Checks that every set interval lies within 5..=1440 minutes.
    pub fn validate(&self) -> Result<(), DeadlineError> {
        let fields = [
            ("next_update_none_mins", self.none),
            ("next_update_minor_mins", self.minor),
            ("next_update_major_mins", self.major),
            ("next_update_critical_mins", self.critical),
        ];
        for (field, value) in fields {
            if let Some(value) = value
                && !(MIN_NEXT_UPDATE_MINS..=MAX_NEXT_UPDATE_MINS).contains(&value)
            {
                return Err(DeadlineError::IntervalOutOfRange { field, value });
            }
        }
        Ok(())
    }
}

/// The default "next update by" for an update with this impact and status: now plus the
/// impact's interval, or `None` when the impact has no interval or the incident is closed.
pub fn default_next_update_by(
    impact: Impact,
    status: IncidentStatus,
    intervals: &NextUpdateIntervals,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    if !status.is_open() {
        return None;
    }
    let minutes = intervals.for_impact(impact)?;
    Some(now + Duration::minutes(i64::from(minutes)))
}

/// Checks a "next update by" time chosen by a responder: after `now`, at most seven days ahead.
pub fn validate_next_update_by(
    deadline: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), DeadlineError> {
    if deadline <= now {
        return Err(DeadlineError::NotInFuture { deadline });
    }
    if deadline - now > Duration::days(MAX_NEXT_UPDATE_AHEAD_DAYS) {
        return Err(DeadlineError::TooFarAhead { deadline });
    }
    Ok(())
}

/// Where an incident stands against its "next update by" time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadlineState {
    /// No next update is promised.
    None,
    /// The next update is due in `remaining`.
    Upcoming {
        /// Time left until the deadline (always positive).
        remaining: Duration,
    },
    /// The deadline has been reached or passed.
    Overdue {
        /// How long ago the deadline was (zero at the deadline itself).
        by: Duration,
    },
}

impl DeadlineState {
    /// Whether the deadline has been reached or passed.
    pub fn is_overdue(&self) -> bool {
        matches!(self, Self::Overdue { .. })
    }
}

/// Compares a "next update by" time with `now`; at the deadline itself the update is overdue.
pub fn deadline_state(next_update_by: Option<DateTime<Utc>>, now: DateTime<Utc>) -> DeadlineState {
    match next_update_by {
        None => DeadlineState::None,
        Some(deadline) if deadline > now => DeadlineState::Upcoming {
            remaining: deadline - now,
        },
        Some(deadline) => DeadlineState::Overdue { by: now - deadline },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0)
            .single()
            .expect("valid time")
    }

    #[test]
    fn default_intervals_tighten_with_impact() {
        let intervals = NextUpdateIntervals::default();
        let cases = [
            (Impact::None, Some(240)),
            (Impact::Minor, Some(120)),
            (Impact::Major, Some(60)),
            (Impact::Critical, Some(30)),
        ];
        for (impact, minutes) in cases {
            assert_eq!(intervals.for_impact(impact), minutes, "{impact}");
        }
        assert_eq!(intervals.validate(), Ok(()));
    }

    #[test]
    fn interval_validation_names_the_offending_field() {
        let base = NextUpdateIntervals::default();
        let cases = [
            (
                NextUpdateIntervals {
                    none: Some(5),
                    ..base
                },
                None,
            ),
            (
                NextUpdateIntervals {
                    major: Some(1440),
                    ..base
                },
                None,
            ),
            (
                NextUpdateIntervals {
                    none: Some(4),
                    ..base
                },
                Some("next_update_none_mins"),
            ),
            (
                NextUpdateIntervals {
                    minor: Some(0),
                    ..base
                },
                Some("next_update_minor_mins"),
            ),
            (
                NextUpdateIntervals {
                    major: Some(1441),
                    ..base
                },
                Some("next_update_major_mins"),
            ),
            (
                NextUpdateIntervals {
                    critical: Some(2),
                    ..base
                },
                Some("next_update_critical_mins"),
            ),
            (
                NextUpdateIntervals {
                    none: None,
                    minor: None,
                    major: None,
                    critical: None,
                },
                None,
            ),
        ];
        for (intervals, bad_field) in cases {
            match (intervals.validate(), bad_field) {
                (Ok(()), None) => {}
                (Err(err), Some(field)) => {
                    let message = err.to_string();
                    assert!(message.starts_with(field), "{message}");
                    assert!(message.contains("between 5 and 1440 minutes"), "{message}");
                }
                (result, expected) => {
                    panic!("{intervals:?}: got {result:?}, expected {expected:?}")
                }
            }
        }
    }

    #[test]
    fn default_next_update_by_adds_the_impacts_interval_while_open() {
        let intervals = NextUpdateIntervals::default();
        let cases = [
            (Impact::Critical, IncidentStatus::Investigating, Some(30)),
            (Impact::Major, IncidentStatus::Identified, Some(60)),
            (Impact::Minor, IncidentStatus::Monitoring, Some(120)),
            (Impact::None, IncidentStatus::Investigating, Some(240)),
            (Impact::Critical, IncidentStatus::Resolved, None),
            (Impact::Major, IncidentStatus::Postmortem, None),
        ];
        for (impact, status, minutes) in cases {
            let expected = minutes.map(|m| now() + Duration::minutes(m));
            let actual = default_next_update_by(impact, status, &intervals, now());
            assert_eq!(actual, expected, "{impact} {status}");
        }
    }

    #[test]
    fn a_chosen_next_update_time_must_be_in_the_next_seven_days() {
        let cases = [
            (Duration::minutes(1), true),
            (Duration::days(7), true),
            (Duration::zero(), false),
            (Duration::minutes(-5), false),
            (Duration::days(7) + Duration::seconds(1), false),
        ];
        for (offset, ok) in cases {
            let result = validate_next_update_by(now() + offset, now());
            assert_eq!(result.is_ok(), ok, "{offset}: {result:?}");
        }
    }

    #[test]
    fn next_update_time_errors_say_what_to_pick() {
        let past = validate_next_update_by(now() - Duration::hours(1), now());
        let far = validate_next_update_by(now() + Duration::days(8), now());
        let past = past.expect_err("past is refused").to_string();
        let far = far.expect_err("far is refused").to_string();
        assert!(
            past.contains("not in the future; pick a later time"),
            "{past}"
        );
        assert!(
            far.contains("more than 7 days ahead; pick an earlier time"),
            "{far}"
        );
    }

    #[test]
    fn deadline_state_is_upcoming_before_and_overdue_from_the_deadline() {
        let cases = [
            (None, DeadlineState::None),
            (
                Some(now() + Duration::minutes(10)),
                DeadlineState::Upcoming {
                    remaining: Duration::minutes(10),
                },
            ),
            (
                Some(now()),
                DeadlineState::Overdue {
                    by: Duration::zero(),
                },
            ),
            (
                Some(now() - Duration::minutes(3)),
                DeadlineState::Overdue {
                    by: Duration::minutes(3),
                },
            ),
        ];
        for (deadline, expected) in cases {
            let state = deadline_state(deadline, now());
            assert_eq!(state, expected, "{deadline:?}");
            assert_eq!(
                state.is_overdue(),
                matches!(expected, DeadlineState::Overdue { .. })
            );
        }
    }
}
