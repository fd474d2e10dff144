//! Small view pieces the console templates share: times in a page's zone, deadlines against
//! the time of the request, and durations in words.

use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::db::models::incidents::Incident;
use crate::domain::{DeadlineState, deadline_state};

/// How an incident is named and labelled wherever the console lists or shows one.
#[derive(Debug, Clone, Serialize)]
pub struct IncidentLabels {
    pub reference: String,
    pub name: String,
    pub kind: &'static str,
    pub impact: &'static str,
    pub status: &'static str,
    pub open: bool,
}

impl IncidentLabels {
    /// The labels of `incident`.
    pub fn of(incident: &Incident) -> Self {
        Self {
            reference: incident.reference.clone(),
            name: incident.name.clone(),
            kind: incident.kind.label(),
            impact: incident.impact.label(),
            status: incident.status.label(),
            open: incident.status.is_open(),
        }
    }
}

/// A time for `partials/time`: machine-readable and in the page's zone.
#[derive(Debug, Clone, Serialize)]
pub struct TimeView {
    pub iso: String,
    pub text: String,
}

impl TimeView {
    /// `at` (UTC) shown in `tz`.
    pub fn new(at: NaiveDateTime, tz: Tz) -> Self {
        let at = at.and_utc();
        Self {
            iso: at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            text: at
                .with_timezone(&tz)
                .format("%-d %b %Y, %H:%M %Z")
                .to_string(),
        }
    }
}

/// A "next update by" promise as it stands at the time of the request.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlineView {
    pub time: TimeView,
    pub overdue: bool,
    /// "1 h 5 min" past the deadline, when overdue.
    pub overdue_by: String,
    /// "25 min" left, when not overdue.
    pub remaining: String,
    /// Minutes past the deadline (negative while upcoming), for ordering.
    #[serde(skip)]
    pub late_minutes: i64,
}

impl DeadlineView {
    /// The deadline `due` at `now`, or `None` when no update is promised.
    pub fn new(due: Option<NaiveDateTime>, tz: Tz, now: DateTime<Utc>) -> Option<Self> {
        let due = due?;
        let (overdue, overdue_by, remaining, late) = match deadline_state(Some(due.and_utc()), now)
        {
            DeadlineState::Overdue { by } => (true, duration_text(by), String::new(), by),
            DeadlineState::Upcoming { remaining } => {
                (false, String::new(), duration_text(remaining), -remaining)
            }
            DeadlineState::None => return None,
        };
        Some(Self {
            time: TimeView::new(due, tz),
            overdue,
            overdue_by,
            remaining,
            late_minutes: late.num_minutes(),
        })
    }
}

/// A duration in words a responder reads at a glance: `3 d 4 h`, `1 h 5 min`, `4 min`,
/// `less than a minute`.
pub fn duration_text(d: Duration) -> String {
    let minutes = d.num_minutes().max(0);
    let (days, hours, mins) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    match (days, hours, mins) {
        (0, 0, 0) => "less than a minute".to_owned(),
        (0, 0, m) => format!("{m} min"),
        (0, h, 0) => format!("{h} h"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

/// The page's zone, UTC when the stored name is unknown.
pub fn page_zone(name: &str) -> Tz {
    name.parse().unwrap_or(Tz::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_the_largest_units() {
        assert_eq!(duration_text(Duration::seconds(20)), "less than a minute");
        assert_eq!(duration_text(Duration::minutes(4)), "4 min");
        assert_eq!(duration_text(Duration::minutes(65)), "1 h 5 min");
        assert_eq!(duration_text(Duration::minutes(120)), "2 h");
        assert_eq!(duration_text(Duration::minutes(3 * 1440 + 250)), "3 d 4 h");
    }
}
