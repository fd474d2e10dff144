//! Uptime bars: per-day availability of a component computed from its status history.
//!
//! As on Statuspage, a major outage counts fully as downtime and a partial outage as 30 % of
//! it; degraded performance and maintenance are not downtime. Time before the component's first
//! recorded status is "no data", not uptime. The day under way shows its worst status so far but
//! no percentage, and the bar's percentage covers complete days only: the result depends on the
//! history and the date, not on the minute it is computed, so every Herald process renders the
//! same bar (and serves the same ETag) all day.

use chrono::{DateTime, Days, NaiveDate, Utc};
use serde::Serialize;

use super::status::ComponentStatus;

/// Share of an interval counted as downtime for a status.
pub fn downtime_weight(status: ComponentStatus) -> f64 {
    match status {
        ComponentStatus::MajorOutage => 1.0,
        ComponentStatus::PartialOutage => 0.3,
        _ => 0.0,
    }
}

/// One day of a bar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DayUptime {
    pub date: NaiveDate,
    /// Availability in percent; `None` when there is no data for the day, and for today.
    pub percent: Option<f64>,
    /// The day under way (the last of the bar).
    pub today: bool,
    /// The worst status seen that day (so far, for today).
    pub worst: Option<ComponentStatus>,
    /// Seconds of weighted downtime (0 for today).
    pub downtime_secs: u32,
}

/// A bar of consecutive days ending at the `as_of` day, and the availability over its complete
/// days.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UptimeBar {
    pub days: Vec<DayUptime>,
    pub percent: Option<f64>,
}

/// Computes `days` days of uptime ending with the UTC day of `as_of`.
/// `changes` are the status changes in time order; the first may lie before the window and gives
/// the status in force when the window opens.
pub fn daily_uptime(
    changes: &[(DateTime<Utc>, ComponentStatus)],
    as_of: DateTime<Utc>,
    days: u32,
) -> UptimeBar {
    let last_day = as_of.date_naive();
    let first_day = last_day
        .checked_sub_days(Days::new(u64::from(days.saturating_sub(1))))
        .unwrap_or(last_day);
    let mut bar = Vec::with_capacity(days as usize);
    let (mut covered_total, mut down_total) = (0.0, 0.0);
    let mut day = first_day;
    while day <= last_day {
        let start = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
        let today = day == last_day;
        let end = if today {
            as_of
        } else {
            start + chrono::Duration::days(1)
        };
        let (covered, down, worst) = weigh(changes, start, end);
        if !today {
            covered_total += covered;
            down_total += down;
        }
        bar.push(DayUptime {
            date: day,
            percent: (covered > 0.0 && !today).then(|| percent(covered, down)),
            today,
            worst,
            downtime_secs: if today { 0 } else { down.round() as u32 },
        });
        day = day.succ_opt().unwrap_or(day);
        if day == NaiveDate::MAX {
            break;
        }
    }
    UptimeBar {
        days: bar,
        percent: (covered_total > 0.0).then(|| percent(covered_total, down_total)),
    }
}

fn percent(covered: f64, down: f64) -> f64 {
    ((1.0 - down / covered) * 100.0).clamp(0.0, 100.0)
}

/// Seconds covered by history, weighted downtime seconds, and the worst status in `[start, end)`.
fn weigh(
    changes: &[(DateTime<Utc>, ComponentStatus)],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> (f64, f64, Option<ComponentStatus>) {
    let (mut covered, mut down, mut worst) = (0.0, 0.0, None::<ComponentStatus>);
    for (i, (at, status)) in changes.iter().enumerate() {
        let until = changes.get(i + 1).map(|(next, _)| *next).unwrap_or(end);
        let (from, to) = ((*at).max(start), until.min(end));
        if to <= from {
            continue;
        }
        let secs = (to - from).num_milliseconds() as f64 / 1000.0;
        covered += secs;
        down += secs * downtime_weight(*status);
        worst = Some(match worst {
            Some(w) if severity(w) >= severity(*status) => w,
            _ => *status,
        });
    }
    (covered, down, worst)
}

/// Order used for "worst status of the day" (maintenance ranks below any outage).
pub fn severity(status: ComponentStatus) -> u8 {
    match status {
        ComponentStatus::Operational => 0,
        ComponentStatus::UnderMaintenance => 1,
        ComponentStatus::DegradedPerformance => 2,
        ComponentStatus::PartialOutage => 3,
        ComponentStatus::MajorOutage => 4,
    }
}

/// What a quiet day is: one that can be drawn together with its neighbours of the same kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quiet {
    /// A complete day of full uptime, operational throughout.
    Up,
    /// A complete day without data (before the component's first status).
    NoData,
}

fn quiet(day: &DayUptime) -> Option<Quiet> {
    if day.today {
        return None;
    }
    match (day.percent, day.worst) {
        (Some(p), Some(ComponentStatus::Operational)) if p >= 100.0 => Some(Quiet::Up),
        (None, _) => Some(Quiet::NoData),
        _ => None,
    }
}

/// How a bar is drawn: each day with something to say on its own (downtime, a status other
/// than operational, an incident, today), and each stretch of quiet days of one kind (full
/// uptime, or no data) as one run, so a component with ninety quiet days is two elements,
/// not ninety. `eventful(i)` says whether day `i` has incidents. Answers the ranges of day
/// indices, in order, covering every day once. (A run may cross the first day of the
/// shorter bar narrow screens show; the overview draws only its part from there.)
pub fn stretches(
    days: &[DayUptime],
    eventful: impl Fn(usize) -> bool,
) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut open: Option<Quiet> = None;
    for (i, day) in days.iter().enumerate() {
        let kind = if eventful(i) { None } else { quiet(day) };
        match (kind, open, out.last_mut()) {
            (Some(k), Some(o), Some(last)) if k == o => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
        open = kind;
    }
    out
}

/// Outage within a range of time, as Statuspage's uptime answer gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outage {
    pub major_secs: i64,
    pub partial_secs: i64,
    /// Availability in percent, with [`downtime_weight`]'s weights (as the uptime bars).
    pub percent: f64,
}

/// The outage in `[from, until)` of a component whose status changed at each of `changes`
/// (oldest first, the change in force at `from` included; operational before the first).
pub fn outage(
    changes: &[(DateTime<Utc>, ComponentStatus)],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Outage {
    let (mut major, mut partial, mut weighted) = (0i64, 0i64, 0f64);
    for (i, (at, status)) in changes.iter().enumerate() {
        let start = (*at).max(from);
        let end = changes
            .get(i + 1)
            .map_or(until, |(next, _)| *next)
            .min(until);
        let secs = (end - start).num_seconds();
        if secs <= 0 {
            continue;
        }
        match status {
            ComponentStatus::MajorOutage => major += secs,
            ComponentStatus::PartialOutage => partial += secs,
            _ => {}
        }
        weighted += secs as f64 * downtime_weight(*status);
    }
    let total = (until - from).num_seconds().max(1) as f64;
    let percent = ((1.0 - weighted / total) * 10_000.0).round() / 100.0;
    Outage {
        major_secs: major,
        partial_secs: partial,
        percent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentStatus::*;
    use chrono::TimeZone;

    fn at(d: u32, h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, d, h, 0, 0).unwrap()
    }

    #[test]
    fn days_before_the_first_status_have_no_data() {
        let bar = daily_uptime(&[(at(28, 12), Operational)], at(30, 12), 5);
        assert_eq!(bar.days.len(), 5);
        assert_eq!(
            bar.days[0].date,
            NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()
        );
        assert!(
            bar.days[..2]
                .iter()
                .all(|d| d.percent.is_none() && d.worst.is_none())
        );
        assert_eq!(bar.days[2].percent, Some(100.0));
        assert_eq!(bar.percent, Some(100.0));
    }

    #[test]
    fn a_six_hour_major_outage_costs_a_quarter_of_its_day() {
        let changes = [
            (at(1, 0), Operational),
            (at(29, 6), MajorOutage),
            (at(29, 12), Operational),
        ];
        let bar = daily_uptime(&changes, at(30, 0), 2);
        let day = &bar.days[0];
        assert_eq!(day.percent, Some(75.0));
        assert_eq!(day.worst, Some(MajorOutage));
        assert_eq!(day.downtime_secs, 6 * 3600);
        assert!(bar.days[1].today && bar.days[1].percent.is_none());
    }

    #[test]
    fn partial_outages_weigh_thirty_percent_and_degradation_nothing() {
        let changes = [
            (at(28, 0), PartialOutage),
            (at(28, 10), DegradedPerformance),
            (at(29, 0), Operational),
        ];
        let bar = daily_uptime(&changes, at(29, 1), 2);
        let expected = 100.0 - 10.0 * 0.3 / 24.0 * 100.0;
        assert!(
            (bar.days[0].percent.unwrap() - expected).abs() < 1e-9,
            "{:?}",
            bar.days[0]
        );
        assert_eq!(bar.days[0].worst, Some(PartialOutage));
    }

    #[test]
    fn the_status_in_force_before_the_window_counts_from_its_start() {
        let bar = daily_uptime(&[(at(1, 0), MajorOutage)], at(30, 12), 2);
        assert_eq!(bar.days[0].percent, Some(0.0));
        assert_eq!(bar.percent, Some(0.0));
    }

    #[test]
    fn today_shows_its_worst_status_but_no_figure_that_changes_by_the_minute() {
        let changes = [
            (at(1, 0), Operational),
            (at(30, 9), PartialOutage),
            (at(30, 10), Operational),
        ];
        let morning = daily_uptime(&changes, at(30, 11), 3);
        let evening = daily_uptime(&changes, at(30, 23), 3);
        assert_eq!(morning, evening);
        let today = morning.days.last().unwrap();
        assert!(today.today && today.percent.is_none());
        assert_eq!(today.worst, Some(PartialOutage));
        assert_eq!(morning.percent, Some(100.0), "complete days only");
    }

    #[test]
    fn a_ninety_day_bar_ends_today() {
        let bar = daily_uptime(&[(at(1, 0), Operational)], at(30, 23), 90);
        assert_eq!(bar.days.len(), 90);
        assert_eq!(
            bar.days.last().unwrap().date,
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap()
        );
    }

    fn bar_of(kinds: &str) -> Vec<DayUptime> {
        // u: full uptime, n: no data, d: some downtime, g: degraded all day, t: today
        let first = NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
        kinds
            .chars()
            .enumerate()
            .map(|(i, k)| DayUptime {
                date: first + chrono::Duration::days(i as i64),
                percent: match k {
                    'u' | 'g' => Some(100.0),
                    'd' => Some(99.2),
                    _ => None,
                },
                today: k == 't',
                worst: match k {
                    'u' | 't' => Some(Operational),
                    'g' => Some(DegradedPerformance),
                    'd' => Some(PartialOutage),
                    _ => None,
                },
                downtime_secs: 0,
            })
            .collect()
    }

    #[test]
    fn ninety_quiet_days_are_one_run_and_today() {
        let days = bar_of(&format!("{}t", "u".repeat(89)));
        assert_eq!(stretches(&days, |_| false), vec![0..89, 89..90]);
    }

    #[test]
    fn days_with_something_to_say_stand_alone_and_runs_keep_one_kind() {
        let days = bar_of("nnnuuduugguut");
        let eventful = |i| i == 7;
        assert_eq!(
            stretches(&days, eventful),
            vec![
                0..3,   // no data
                3..5,   // full uptime
                5..6,   // downtime
                6..7,   // full uptime
                7..8,   // full uptime, but an incident
                8..9,   // degraded
                9..10,  // degraded
                10..12, // full uptime
                12..13, // today
            ]
        );
    }

    #[test]
    fn stretches_cover_every_day_once() {
        let days = bar_of("uunduuuuuuudgnnnuut");
        for every in 1..6 {
            let runs = stretches(&days, |i| i % every == 0);
            let covered: Vec<usize> = runs.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(covered, (0..days.len()).collect::<Vec<_>>());
            assert!(
                runs.iter()
                    .all(|r| r.len() == 1 || r.clone().all(|i| i % every != 0))
            );
        }
    }

    #[test]
    fn outage_counts_each_kind_within_the_range_only() {
        use chrono::TimeZone;
        let at = |h: u32| Utc.with_ymd_and_hms(2026, 1, 1, h, 0, 0).unwrap();
        let changes = [
            (at(0), ComponentStatus::Operational),
            (at(2), ComponentStatus::MajorOutage),
            (at(3), ComponentStatus::PartialOutage),
            (at(5), ComponentStatus::Operational),
        ];
        let o = outage(&changes, at(1), at(11));
        assert_eq!((o.major_secs, o.partial_secs), (3600, 7200));
        // 1 h at weight 1 and 2 h at 0.3 of 10 h: 84 % available.
        assert_eq!(o.percent, 84.0);
        let before = outage(&changes, at(2) + chrono::Duration::minutes(30), at(3));
        assert_eq!((before.major_secs, before.percent), (1800, 0.0));
    }
}
