//! Small formatting rules shared by the HTML views: times in the page's time zone with their UTC
//! instant, percentages, and the look (CSS modifier, icon, words) of every status.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::domain::{ComponentStatus, FollowUpState, Impact, Indicator};

/// A moment as shown on a page: words in the page's time zone, and the UTC instant for
/// `<time datetime>` (which the JS rewrites into the reader's local time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeView {
    /// RFC 3339 in UTC with a `Z`, e.g. `2026-11-30T14:05:00Z`.
    pub iso: String,
    /// E.g. `30 Nov 2026, 15:05 CET`.
    pub text: String,
}

impl TimeView {
    /// `at` shown in `tz`.
    pub fn new(at: DateTime<Utc>, tz: Tz) -> Self {
        Self {
            iso: iso_utc(at),
            text: local_text(at, tz),
        }
    }

    /// `at` shown in UTC, e.g. `30 Nov 2026, 14:05 UTC`.
    pub fn utc(at: DateTime<Utc>) -> Self {
        Self::new(at, Tz::UTC)
    }
}

/// RFC 3339 in UTC with a `Z` suffix and whole seconds.
pub fn iso_utc(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `at` in `tz` as `30 Nov 2026, 15:05 CET`.
pub fn local_text(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz)
        .format("%-d %b %Y, %H:%M %Z")
        .to_string()
}

/// A day as `30 Nov 2026`.
pub fn day_text(day: NaiveDate) -> String {
    day.format("%-d %b %Y").to_string()
}

/// A percentage rounded to `decimals` (6 of 9 reads `66.7 %`), except that anything short of
/// 100 never reads "100" (99.996 at two decimals reads `99.99 %`), with trailing zeros trimmed:
/// `99.2 %`, `100 %`.
pub fn percent_text(value: f64, decimals: u32) -> String {
    let scale = 10f64.powi(decimals as i32);
    let mut rounded = (value * scale).round() / scale;
    if value < 100.0 && rounded >= 100.0 {
        rounded = (100.0 * scale - 1.0) / scale;
    }
    let text = format!("{rounded:.prec$}", prec = decimals as usize);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("{text} %")
}

/// A duration in words, coarse enough to read at a glance: `45 s`, `12 min`, `1 h 5 min`,
/// `2 d 3 h`.
pub fn duration_text(d: chrono::Duration) -> String {
    let secs = d.num_seconds().max(0);
    let (days, hours, mins) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
    match (days, hours, mins) {
        (0, 0, 0) => format!("{secs} s"),
        (0, 0, m) => format!("{m} min"),
        (0, h, 0) => format!("{h} h"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, 0, _) => format!("{d} d"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

/// "Partial Outage" -> "Partial outage", for use inside a sentence.
pub fn sentence_case(label: &str) -> String {
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_string() + &chars.as_str().to_lowercase(),
        None => String::new(),
    }
}

/// How a status looks: a CSS modifier (`s-major`), an icon from the sprite, and its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StatusLook {
    /// Suffix of the `s-*` CSS classes: `ok`, `minor`, `partial`, `major`, `maint`, `none`.
    pub tone: &'static str,
    /// Icon id in the sprite (see `templates/partials/icons.html.hbs`).
    pub icon: &'static str,
    /// The words, e.g. "Partial Outage".
    pub label: &'static str,
}

/// The icon ids the sprite defines.
pub const ICONS: &[&str] = &["ok", "minor", "partial", "major", "maint", "info", "none"];

impl StatusLook {
    /// A component status.
    pub fn component(status: ComponentStatus) -> Self {
        let (tone, icon) = match status {
            ComponentStatus::Operational => ("ok", "ok"),
            ComponentStatus::DegradedPerformance => ("minor", "minor"),
            ComponentStatus::PartialOutage => ("partial", "partial"),
            ComponentStatus::MajorOutage => ("major", "major"),
            ComponentStatus::UnderMaintenance => ("maint", "maint"),
        };
        Self {
            tone,
            icon,
            label: status.label(),
        }
    }

    /// The page's overall indicator; the words are Statuspage's description.
    pub fn indicator(indicator: Indicator) -> Self {
        let (tone, icon) = match indicator {
            Indicator::None => ("ok", "ok"),
            Indicator::Minor => ("minor", "minor"),
            Indicator::Major => ("partial", "partial"),
            Indicator::Critical => ("major", "major"),
            Indicator::Maintenance => ("maint", "maint"),
        };
        Self {
            tone,
            icon,
            label: indicator.description(),
        }
    }

    /// An incident's impact, worded "Major impact".
    pub fn impact(impact: Impact) -> Self {
        let (tone, icon, label) = match impact {
            Impact::None => ("none", "info", "No impact"),
            Impact::Minor => ("minor", "minor", "Minor impact"),
            Impact::Major => ("partial", "partial", "Major impact"),
            Impact::Critical => ("major", "major", "Critical impact"),
        };
        Self { tone, icon, label }
    }

    /// A postmortem follow-up's state.
    pub fn follow_up(state: FollowUpState) -> Self {
        let (tone, icon) = match state {
            FollowUpState::Open => ("none", "info"),
            FollowUpState::InProgress => ("maint", "maint"),
            FollowUpState::Done => ("ok", "ok"),
        };
        Self {
            tone,
            icon,
            label: state.label(),
        }
    }

    /// A day of an uptime bar without any recorded status.
    pub fn no_data() -> Self {
        Self {
            tone: "none",
            icon: "none",
            label: "No data",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn times_show_in_the_page_zone_with_the_utc_instant() {
        let at = Utc.with_ymd_and_hms(2026, 11, 30, 14, 5, 0).unwrap();
        let view = TimeView::new(at, Tz::Europe__Berlin);
        assert_eq!(view.iso, "2026-11-30T14:05:00Z");
        assert_eq!(view.text, "30 Nov 2026, 15:05 CET");
        assert_eq!(TimeView::utc(at).text, "30 Nov 2026, 14:05 UTC");
    }

    #[test]
    fn percentages_are_rounded_but_short_of_100_never_read_100() {
        let cases = [
            (100.0, 2, "100 %"),
            (600.0 / 9.0, 1, "66.7 %"),
            (200.0 / 3.0, 2, "66.67 %"),
            (99.999, 2, "99.99 %"),
            (99.95, 1, "99.9 %"),
            (99.2, 1, "99.2 %"),
            (99.26, 1, "99.3 %"),
            (75.0, 1, "75 %"),
            (0.0, 2, "0 %"),
        ];
        for (value, decimals, text) in cases {
            assert_eq!(percent_text(value, decimals), text, "{value}");
        }
    }

    #[test]
    fn durations_read_at_a_glance() {
        let cases = [
            (chrono::Duration::seconds(45), "45 s"),
            (chrono::Duration::minutes(12), "12 min"),
            (chrono::Duration::minutes(60), "1 h"),
            (chrono::Duration::minutes(65), "1 h 5 min"),
            (chrono::Duration::hours(51), "2 d 3 h"),
            (chrono::Duration::seconds(-5), "0 s"),
        ];
        for (d, text) in cases {
            assert_eq!(duration_text(d), text);
        }
    }

    #[test]
    fn every_look_uses_an_icon_of_the_sprite() {
        let looks = ComponentStatus::ALL
            .iter()
            .map(|s| StatusLook::component(*s))
            .chain(Indicator::ALL.iter().map(|i| StatusLook::indicator(*i)))
            .chain(Impact::ALL.iter().map(|i| StatusLook::impact(*i)))
            .chain(FollowUpState::ALL.iter().map(|s| StatusLook::follow_up(*s)))
            .chain([StatusLook::no_data()]);
        for look in looks {
            assert!(ICONS.contains(&look.icon), "{look:?}");
        }
    }
}
