//! `maintenances.ics`: an iCalendar (RFC 5545) feed with one VEVENT per maintenance window.
//!
//! UIDs are `{maintenance id}@herald`, times are UTC (`...Z`), and DTSTAMP is the
//! maintenance's last change rather than the clock, so the feed is the same until the data
//! changes.

use chrono::{DateTime, Utc};
use icalendar::{Calendar, Component, Event, EventLike, EventStatus, Property};

use crate::domain::{LifecycleStatus, MaintenanceStatus};
use crate::services::public::data::{IncidentInfo, PageData};

/// The calendar of `data`'s maintenance windows, earliest first.
pub fn render(data: &PageData) -> anyhow::Result<Vec<u8>> {
    let mut calendar = Calendar::empty();
    let name = format!("{} maintenance", data.page.name);
    for (key, value) in [
        ("VERSION", "2.0"),
        ("PRODID", "-//Herald//Status page//EN"),
        ("CALSCALE", "GREGORIAN"),
        ("METHOD", "PUBLISH"),
    ] {
        calendar.append_property(Property::new(key, value));
    }
    // The crate escapes the properties it knows as TEXT; NAME and X-WR-CALNAME it writes as
    // given, so they are declared TEXT to be escaped like SUMMARY (a CR LF in a page name
    // must not end the line and start a forged VEVENT).
    for key in ["NAME", "X-WR-CALNAME"] {
        let mut property = Property::new(key, plain(&name));
        property.add_parameter("VALUE", "TEXT");
        calendar.append_property(property);
    }
    let mut windows: Vec<&IncidentInfo> = data
        .maintenances
        .iter()
        .filter(|m| m.scheduled_for.is_some())
        .collect();
    windows.sort_by(|a, b| (a.scheduled_for, &a.id).cmp(&(b.scheduled_for, &b.id)));
    calendar.extend(windows.into_iter().filter_map(|m| event(data, m)));
    Ok(calendar.to_string().into_bytes())
}

/// The VEVENT of maintenance `m` (`None` when it has no window).
fn event(data: &PageData, m: &IncidentInfo) -> Option<Event> {
    let start = m.scheduled_for?;
    let mut event = Event::new();
    event
        .uid(&format!("{}@herald", m.id))
        .timestamp(m.updated_at)
        .created(m.created_at)
        .last_modified(m.updated_at)
        .starts(start)
        .summary(&plain(&m.name))
        .description(&description(data, m))
        .url(&m.url)
        .status(status(m));
    if let Some(end) = m.scheduled_until {
        event.ends(end);
    }
    Some(event.done())
}

/// CANCELLED for a maintenance completed before its window opened without ever being in
/// progress; otherwise CONFIRMED (announced windows are firm plans).
fn status(m: &IncidentInfo) -> EventStatus {
    use MaintenanceStatus::{Completed, InProgress, Verifying};
    let started = m.updates.iter().any(|u| {
        matches!(
            u.status,
            LifecycleStatus::Maintenance(InProgress | Verifying)
        )
    });
    let completed_at: Option<DateTime<Utc>> = m
        .resolved_at
        .or_else(|| m.updates.first().map(|u| u.created_at));
    let early = matches!((completed_at, m.scheduled_for), (Some(done), Some(from)) if done < from);
    match m.status {
        LifecycleStatus::Maintenance(Completed) if !started && early => EventStatus::Cancelled,
        _ => EventStatus::Confirmed,
    }
}

/// Plain text: the status, affected components and every update newest first, then the link.
fn description(data: &PageData, m: &IncidentInfo) -> String {
    let mut text = format!("Status: {}\n", m.status.label());
    if !m.affected_components.is_empty() {
        let names: Vec<String> = m.affected_components.iter().map(|c| c.label()).collect();
        text.push_str(&format!("Affected components: {}\n", names.join(", ")));
    }
    for update in &m.updates {
        let at = update.created_at.with_timezone(&data.page.time_zone);
        text.push_str(&format!(
            "\n{} ({}):\n{}\n",
            update.status.label(),
            at.format("%b %-d, %Y %H:%M %Z"),
            update.body.trim()
        ));
    }
    text.push_str(&format!("\nDetails: {}", m.url));
    plain(&text)
}

/// Text safe for a content line: line ends become `\n` (which the crate escapes) and other
/// control characters are dropped, so user text can never start a new property.
fn plain(text: &str) -> String {
    text.replace("\r\n", "\n")
        .chars()
        .map(|c| if c == '\r' { '\n' } else { c })
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}
