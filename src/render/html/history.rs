//! The history pages: incidents and maintenance by month, newest first, three months a page.
//!
//! Days and months are UTC days and months, the same days as the uptime bars, whose days link to
//! the `day-YYYY-MM-DD` anchors here. Page 1 holds the month of `as_of` and the two before it
//! (and any maintenance scheduled in later months); page `n` the three months before page `n-1`.
//! The history reaches back [`MONTHS_BACK`] months (the resolved events the page holds are those
//! of the last year): an older event still open is listed on the last page, under its own month,
//! so that no date, however far back, makes more pages than that.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::Serialize;

use super::events::EventCard;
use super::format::{Locale, day_text_in, month_text_in};
use super::frame::{Frame, Section};
use crate::render::assets::Assets;
use crate::services::public::data::IncidentInfo;
use crate::services::public::data::PageData;

/// Months on one history page.
pub const MONTHS_PER_PAGE: i32 = 3;

/// How many months before the current one the history pages reach: a year's, the span of the
/// resolved events a page holds ([`crate::services::public::HISTORY_DAYS`]).
pub const MONTHS_BACK: i32 = 12;

/// What `pages/history` renders.
#[derive(Debug, Serialize)]
pub struct HistoryView {
    pub frame: Frame,
    pub name: String,
    pub page: u32,
    pub pages: u32,
    /// More than one page: show "page n of m" and the pager.
    pub paged: bool,
    pub months: Vec<MonthView>,
    /// The page with more recent months.
    pub newer: Option<String>,
    /// The page with older months.
    pub older: Option<String>,
    pub time_zone: String,
}

/// One month.
#[derive(Debug, Serialize)]
pub struct MonthView {
    /// `month-2026-11`.
    pub id: String,
    /// `November 2026`.
    pub title: String,
    /// Days with events, newest first.
    pub days: Vec<DayGroup>,
}

/// The events that started (or were scheduled) on one day.
#[derive(Debug, Serialize)]
pub struct DayGroup {
    /// `day-2026-11-30`.
    pub id: String,
    /// `30 Nov 2026`.
    pub title: String,
    pub events: Vec<EventCard>,
}

/// The day an event is listed under: a maintenance's scheduled start, otherwise its start (UTC).
pub fn event_day(event: &IncidentInfo) -> NaiveDate {
    event_time(event).date_naive()
}

fn event_time(event: &IncidentInfo) -> DateTime<Utc> {
    event.scheduled_for.unwrap_or(event.started_at)
}

/// Months since year 0, to count months between dates.
fn month_index(day: NaiveDate) -> i32 {
    day.year() * 12 + day.month0() as i32
}

/// The history page showing `day`, seen at `as_of`.
pub fn page_of(as_of: DateTime<Utc>, day: NaiveDate) -> u32 {
    let back = (month_index(as_of.date_naive()) - month_index(day)).clamp(0, MONTHS_BACK);
    (back / MONTHS_PER_PAGE) as u32 + 1
}

/// The link to `day` in the history: `{path}/history?page=N#day-YYYY-MM-DD`.
pub fn day_href(path: &str, as_of: DateTime<Utc>, day: NaiveDate) -> String {
    format!("{path}/history?page={}#day-{day}", page_of(as_of, day))
}

/// The address of history page `n`.
pub fn page_href(path: &str, n: u32) -> String {
    format!("{path}/history?page={n}")
}

/// How many history pages `data` fills (at least one).
pub fn page_count(data: &PageData) -> u32 {
    data.incidents
        .iter()
        .chain(&data.maintenances)
        .map(|e| page_of(data.as_of, event_day(e)))
        .max()
        .unwrap_or(1)
}

impl HistoryView {
    /// History page `page` (1-based) of `data`.
    pub fn new(data: &PageData, page: u32, assets: &Assets, loc: Locale) -> Self {
        let (path, tz, as_of) = (&data.page.path, data.page.time_zone, data.as_of);
        let pages = page_count(data);
        let newest = month_index(as_of.date_naive()) - MONTHS_PER_PAGE * (page as i32 - 1);
        let mut months: BTreeMap<i32, Vec<&IncidentInfo>> = (0..MONTHS_PER_PAGE)
            .map(|i| (newest - i, Vec::new()))
            .collect();
        for event in data.incidents.iter().chain(&data.maintenances) {
            if page_of(as_of, event_day(event)) == page {
                months
                    .entry(month_index(event_day(event)))
                    .or_default()
                    .push(event);
            }
        }
        let months = months
            .into_iter()
            .rev()
            .map(|(index, mut events)| {
                events.sort_by(|a, b| event_time(b).cmp(&event_time(a)).then(b.id.cmp(&a.id)));
                month_view(index, &events, loc.lang, |e| {
                    EventCard::new(e, path, loc, as_of).with_level(4)
                })
            })
            .collect();
        let title = loc.text_with("history-page-title", &[("page", page.into())]);
        let here = page_href(path, page);
        Self {
            frame: Frame::page(Some(&title), Section::History, data, assets, loc, &here),
            name: data.page.name.clone(),
            page,
            pages,
            paged: pages > 1,
            months,
            newer: (page > 1).then(|| loc.href(&page_href(path, page - 1))),
            older: (page < pages).then(|| loc.href(&page_href(path, page + 1))),
            time_zone: tz.name().to_owned(),
        }
    }
}

/// A month's view; `events` are newest first.
fn month_view(
    index: i32,
    events: &[&IncidentInfo],
    lang: crate::domain::lang::Lang,
    card: impl Fn(&IncidentInfo) -> EventCard,
) -> MonthView {
    let first = NaiveDate::from_ymd_opt(index.div_euclid(12), index.rem_euclid(12) as u32 + 1, 1)
        .unwrap_or_default();
    let mut days: Vec<DayGroup> = Vec::new();
    for event in events {
        let day = event_day(event);
        let id = format!("day-{day}");
        match days.last_mut() {
            Some(group) if group.id == id => group.events.push(card(event)),
            _ => days.push(DayGroup {
                id,
                title: day_text_in(day, lang),
                events: vec![card(event)],
            }),
        }
    }
    MonthView {
        id: format!("month-{}", first.format("%Y-%m")),
        title: month_text_in(first, lang),
        days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn pages_hold_three_months_counting_back_from_as_of() {
        let as_of = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let cases = [
            (date(2026, 12, 5), 1),
            (date(2026, 11, 30), 1),
            (date(2026, 9, 1), 1),
            (date(2026, 8, 31), 2),
            (date(2026, 6, 1), 2),
            (date(2026, 5, 31), 3),
            (date(2025, 12, 1), 4),
        ];
        for (day, page) in cases {
            assert_eq!(page_of(as_of, day), page, "{day}");
        }
        assert_eq!(
            day_href("/status/demo", as_of, date(2026, 8, 3)),
            "/status/demo/history?page=2#day-2026-08-03"
        );
    }
}
