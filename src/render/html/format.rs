//! Small formatting rules shared by the HTML views: times in the page's time zone with their UTC
//! instant, percentages, and the look (CSS modifier, icon, words) of every status.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::domain::lang::Lang;
use crate::domain::{ComponentStatus, FollowUpState, Impact, Indicator};
use crate::render::i18n;

/// How one reader is shown a page: times in the page's zone, words and dates in a language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locale {
    pub tz: Tz,
    pub lang: Lang,
    /// The page's default language, the one its responders write in.
    pub default: Lang,
    /// The page is read in several languages: its links carry this one (`?lang=de`), so a
    /// reader's choice holds from page to page without a cookie.
    pub several: bool,
}

impl Locale {
    /// `lang` on a page read in that language alone.
    pub fn new(tz: Tz, lang: Lang) -> Self {
        Self {
            tz,
            lang,
            default: lang,
            several: false,
        }
    }

    /// `lang` on `page`.
    pub fn of_page(page: &crate::services::public::data::PageInfo, lang: Lang) -> Self {
        Self {
            tz: page.time_zone,
            lang,
            default: page.default_language,
            several: page.languages.len() > 1,
        }
    }

    /// What a responder wrote, as this reader sees it: its translation into the reader's
    /// language, or the original, marked as such.
    pub fn pick<'a, T>(
        self,
        original: &'a T,
        translated: &'a std::collections::BTreeMap<Lang, T>,
    ) -> crate::domain::translation::Shown<'a, T> {
        crate::domain::translation::shown(original, translated, self.lang, self.default)
    }

    /// The language the page's links ask for: this one, when the page has several.
    pub fn in_links(self) -> Option<Lang> {
        self.several.then_some(self.lang)
    }

    /// `href` with this locale's language when the page has several.
    pub fn href(self, href: &str) -> String {
        super::frame::with_lang(href, self.in_links())
    }

    /// Herald's own words in this language.
    pub fn text(self, key: &str) -> String {
        i18n::text(self.lang, key)
    }

    /// Herald's own words with their arguments.
    pub fn text_with(
        self,
        key: &str,
        args: &[(
            &'static str,
            fluent_templates::fluent_bundle::FluentValue<'_>,
        )],
    ) -> String {
        i18n::text_with(self.lang, key, args)
    }
}

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

    /// `at` in the locale's zone, in its language's form (`30. Nov 2026, 15:05 CET`).
    pub fn local(at: DateTime<Utc>, locale: Locale) -> Self {
        Self {
            iso: iso_utc(at),
            text: local_text_in(at, locale),
        }
    }

    /// `at` in UTC, in the locale's language's form.
    pub fn utc_in(at: DateTime<Utc>, lang: Lang) -> Self {
        Self::local(at, Locale::new(Tz::UTC, lang))
    }
}

/// The chrono locale whose month names a language's dates use.
fn chrono_locale(lang: Lang) -> chrono::Locale {
    match lang {
        Lang::En => chrono::Locale::en_GB,
        Lang::De => chrono::Locale::de_DE,
        Lang::Fr => chrono::Locale::fr_FR,
        Lang::Es => chrono::Locale::es_ES,
        Lang::Pt => chrono::Locale::pt_BR,
        Lang::Ja => chrono::Locale::ja_JP,
    }
}

/// A moment, a day and a month in each language's own order, all on the 24-hour clock the
/// six languages' readers expect on a status page.
fn patterns(lang: Lang) -> (&'static str, &'static str, &'static str) {
    match lang {
        Lang::En => ("%-d %b %Y, %H:%M %Z", "%-d %b %Y", "%B %Y"),
        Lang::De => ("%-d. %b %Y, %H:%M %Z", "%-d. %b %Y", "%B %Y"),
        Lang::Fr | Lang::Es => ("%-d %b %Y, %H:%M %Z", "%-d %b %Y", "%B %Y"),
        Lang::Pt => ("%-d %b %Y, %H:%M %Z", "%-d %b %Y", "%B de %Y"),
        Lang::Ja => ("%Y年%-m月%-d日 %H:%M %Z", "%Y年%-m月%-d日", "%Y年%-m月"),
    }
}

/// `at` in the locale's zone and form.
pub fn local_text_in(at: DateTime<Utc>, locale: Locale) -> String {
    let pattern = patterns(locale.lang).0;
    at.with_timezone(&locale.tz)
        .format_localized(pattern, chrono_locale(locale.lang))
        .to_string()
}

/// A day in a language's form (`30 Nov 2026`, `2026年11月30日`).
pub fn day_text_in(day: NaiveDate, lang: Lang) -> String {
    day.format_localized(patterns(lang).1, chrono_locale(lang))
        .to_string()
}

/// A month in a language's form (`November 2026`, `novembre 2026`).
pub fn month_text_in(first: NaiveDate, lang: Lang) -> String {
    first
        .format_localized(patterns(lang).2, chrono_locale(lang))
        .to_string()
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

/// [`duration_text`] in a language (`12 Min.`, `1 時間 5 分`).
pub fn duration_text_in(d: chrono::Duration, lang: Lang) -> String {
    let secs = d.num_seconds().max(0);
    let (days, hours, mins) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
    let n = |v: i64| fluent_templates::fluent_bundle::FluentValue::from(v);
    let text = |key, args: &[(&'static str, _)]| i18n::text_with(lang, key, args);
    match (days, hours, mins) {
        (0, 0, 0) => text("duration-seconds", &[("s", n(secs))]),
        (0, 0, m) => text("duration-minutes", &[("m", n(m))]),
        (0, h, 0) => text("duration-hours", &[("h", n(h))]),
        (0, h, m) => text("duration-hours-minutes", &[("h", n(h)), ("m", n(m))]),
        (d, 0, _) => text("duration-days", &[("d", n(d))]),
        (d, h, _) => text("duration-days-hours", &[("d", n(d)), ("h", n(h))]),
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusLook {
    /// Suffix of the `s-*` CSS classes: `ok`, `minor`, `partial`, `major`, `maint`, `none`.
    pub tone: &'static str,
    /// Icon id in the sprite (see `templates/partials/icons.html.hbs`).
    pub icon: &'static str,
    /// The words, e.g. "Partial Outage".
    pub label: String,
}

/// The icon ids the sprite defines.
pub const ICONS: &[&str] = &["ok", "minor", "partial", "major", "maint", "info", "none"];

impl StatusLook {
    fn new(tone: &'static str, icon: &'static str, lang: Lang, key: &str) -> Self {
        Self {
            tone,
            icon,
            label: i18n::text(lang, key),
        }
    }

    /// A component status, in English (the console's and the mails' words).
    pub fn component(status: ComponentStatus) -> Self {
        Self::component_in(status, Lang::En)
    }

    /// A component status in `lang`.
    pub fn component_in(status: ComponentStatus, lang: Lang) -> Self {
        let tone = Self::component_tone(status);
        let key = format!("component-status-{}", status.as_str());
        // The icon of each component status is named as its tone.
        Self::new(tone, tone, lang, &key)
    }

    /// The tone (and icon) of a component status, without its words (an uptime bar's day).
    pub fn component_tone(status: ComponentStatus) -> &'static str {
        match status {
            ComponentStatus::Operational => "ok",
            ComponentStatus::DegradedPerformance => "minor",
            ComponentStatus::PartialOutage => "partial",
            ComponentStatus::MajorOutage => "major",
            ComponentStatus::UnderMaintenance => "maint",
        }
    }

    /// The tone of a day without any recorded status.
    pub const NO_DATA_TONE: &'static str = "none";

    /// The page's overall indicator in English; the words are Statuspage's description.
    pub fn indicator(indicator: Indicator) -> Self {
        Self::indicator_in(indicator, Lang::En)
    }

    /// The page's overall indicator in `lang`.
    pub fn indicator_in(indicator: Indicator, lang: Lang) -> Self {
        let (tone, icon) = match indicator {
            Indicator::None => ("ok", "ok"),
            Indicator::Minor => ("minor", "minor"),
            Indicator::Major => ("partial", "partial"),
            Indicator::Critical => ("major", "major"),
            Indicator::Maintenance => ("maint", "maint"),
        };
        Self::new(
            tone,
            icon,
            lang,
            &format!("indicator-{}", indicator.as_str()),
        )
    }

    /// An incident's impact, worded "Major impact", in English.
    pub fn impact(impact: Impact) -> Self {
        Self::impact_in(impact, Lang::En)
    }

    /// An incident's impact in `lang`.
    pub fn impact_in(impact: Impact, lang: Lang) -> Self {
        let (tone, icon) = match impact {
            Impact::None => ("none", "info"),
            Impact::Minor => ("minor", "minor"),
            Impact::Major => ("partial", "partial"),
            Impact::Critical => ("major", "major"),
        };
        Self::new(tone, icon, lang, &format!("impact-{}", impact.as_str()))
    }

    /// A postmortem follow-up's state, in English.
    pub fn follow_up(state: FollowUpState) -> Self {
        Self::follow_up_in(state, Lang::En)
    }

    /// A postmortem follow-up's state in `lang`.
    pub fn follow_up_in(state: FollowUpState, lang: Lang) -> Self {
        let (tone, icon) = match state {
            FollowUpState::Open => ("none", "info"),
            FollowUpState::InProgress => ("maint", "maint"),
            FollowUpState::Done => ("ok", "ok"),
        };
        Self::new(tone, icon, lang, &format!("follow-up-{}", state.as_str()))
    }

    /// A day of an uptime bar without any recorded status.
    pub fn no_data() -> Self {
        Self::no_data_in(Lang::En)
    }

    /// A day without any recorded status, in `lang`.
    pub fn no_data_in(lang: Lang) -> Self {
        Self::new(Self::NO_DATA_TONE, "none", lang, "no-data")
    }
}

/// An incident's or a maintenance's status in `lang` ("Investigating", "In Progress").
pub fn event_status_in(status: crate::domain::LifecycleStatus, lang: Lang) -> String {
    let key = match status {
        crate::domain::LifecycleStatus::Incident(s) => format!("incident-status-{}", s.as_str()),
        crate::domain::LifecycleStatus::Maintenance(s) => {
            format!("maintenance-status-{}", s.as_str())
        }
    };
    i18n::text(lang, &key)
}

/// What kind of event, in `lang` ("Incident", "Advisory", "Maintenance").
pub fn kind_in(kind: crate::domain::IncidentKind, lang: Lang) -> String {
    i18n::text(lang, &format!("kind-{}", kind.as_str()))
}

/// A status label made to sit inside a sentence: sentence case in English ("Partial outage"),
/// as written in the other languages (German capitalises its nouns).
pub fn in_sentence(label: &str, lang: Lang) -> String {
    match lang {
        Lang::En => sentence_case(label),
        _ => label.to_owned(),
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
