//! Feeds of a status page, rendered once from [`PageData`]: Atom and RSS 2.0 of incidents,
//! advisories and maintenances (one entry per record, its content the updates newest first, as
//! on Statuspage) and an iCalendar (RFC 5545) feed of maintenance windows.
//!
//! The XML and iCalendar crates do the escaping; entry ids and UIDs derive from record ids,
//! and every time comes from the data, so the same data always gives the same bytes.

mod atom;
mod ical;
mod rss;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use handlebars::html_escape;

use crate::domain::IncidentKind;
use crate::render::change::Doc;
use crate::render::{CachePolicy, Representation};
use crate::services::public::data::{IncidentInfo, PageData, UpdateInfo};

/// How many records the Atom and RSS feeds carry, newest first.
pub const FEED_LIMIT: usize = 50;

/// Renders `history.atom`, `history.rss` and `maintenances.ics` of `data` into `out`.
pub fn render(
    data: &PageData,
    out: &mut HashMap<String, Arc<Representation>>,
) -> anyhow::Result<()> {
    for doc in [Doc::Atom, Doc::Rss, Doc::Ical] {
        if let Some(rep) = feed(data, &doc)? {
            out.insert(doc.key(), Arc::new(rep));
        }
    }
    Ok(())
}

/// `doc` of `data`, if it is a feed.
pub fn feed(data: &PageData, doc: &Doc) -> anyhow::Result<Option<Representation>> {
    let (content_type, body) = match doc {
        Doc::Atom => ("application/atom+xml", atom::render(data)?),
        Doc::Rss => ("application/rss+xml", rss::render(data)?),
        Doc::Ical => ("text/calendar; charset=utf-8", ical::render(data)?),
        _ => return Ok(None),
    };
    // Readable across origins (a web feed reader, a dashboard widget), as the v2 JSON.
    let rep = Representation::new(content_type, body, CachePolicy::PUBLIC).with_cors();
    Ok(Some(rep))
}

/// A record as a feed entry.
struct Item<'a> {
    record: &'a IncidentInfo,
    /// When it appeared: the start of an incident, the announcement of a maintenance.
    published: DateTime<Utc>,
    /// Its latest change.
    updated: DateTime<Utc>,
}

/// The newest [`FEED_LIMIT`] records, incidents and maintenances together, newest first.
fn items(data: &PageData) -> Vec<Item<'_>> {
    let mut items: Vec<Item<'_>> = data
        .incidents
        .iter()
        .chain(&data.maintenances)
        .map(|record| {
            let published = match record.kind {
                IncidentKind::Maintenance => record.created_at,
                IncidentKind::Incident | IncidentKind::Advisory => record.started_at,
            };
            let updated = record
                .updates
                .iter()
                .map(|u| u.updated_at.max(u.created_at))
                .fold(record.updated_at.max(published), DateTime::max);
            Item {
                record,
                published,
                updated,
            }
        })
        .collect();
    items.sort_by(|a, b| (b.published, &b.record.id).cmp(&(a.published, &a.record.id)));
    items.truncate(FEED_LIMIT);
    items
}

/// When the feed last changed: its newest entry change, or the page's.
fn feed_updated(data: &PageData, items: &[Item<'_>]) -> DateTime<Utc> {
    items
        .iter()
        .map(|i| i.updated)
        .fold(data.page.updated_at, DateTime::max)
}

/// A stable, globally unique id for a record: `urn:uuid:` of its UUID, else its URL.
fn entry_id(record: &IncidentInfo) -> String {
    match uuid::Uuid::parse_str(&record.id) {
        Ok(id) => id.urn().to_string(),
        Err(_) => record.url.clone(),
    }
}

/// The feed's own id, from the page's UUID (or its URL).
fn feed_id(data: &PageData) -> String {
    match uuid::Uuid::parse_str(&data.page.id) {
        Ok(id) => id.urn().to_string(),
        Err(_) => data.page.url.clone(),
    }
}

/// The feeds' title.
fn title(data: &PageData) -> String {
    format!("{} status history", data.page.name)
}

/// An absolute URL below the page, e.g. `{page url}/history.atom`.
fn page_url(data: &PageData, path: &str) -> String {
    format!("{}/{path}", data.page.url)
}

/// A time for people, in the page's time zone: "Mar 14, 2026 11:30 CET", inside `<time>`.
fn time_html(data: &PageData, at: DateTime<Utc>) -> String {
    let local = at.with_timezone(&data.page.time_zone);
    format!(
        "<time datetime=\"{}\">{}</time>",
        at.format("%Y-%m-%dT%H:%M:%SZ"),
        local.format("%b %-d, %Y %H:%M %Z")
    )
}

/// An entry's HTML content: the maintenance window and affected components, then every
/// update newest first with its status and time, its body being the sanitized HTML.
fn content_html(data: &PageData, record: &IncidentInfo) -> String {
    let mut html = String::new();
    if let Some(from) = record.scheduled_for {
        html.push_str("<p>Scheduled for ");
        html.push_str(&time_html(data, from));
        if let Some(until) = record.scheduled_until {
            html.push_str(" until ");
            html.push_str(&time_html(data, until));
        }
        html.push_str("</p>\n");
    }
    if !record.affected_components.is_empty() {
        let names: Vec<String> = record
            .affected_components
            .iter()
            .map(|c| html_escape(&c.label()))
            .collect();
        html.push_str(&format!(
            "<p>Affected components: {}</p>\n",
            names.join(", ")
        ));
    }
    for update in &record.updates {
        html.push_str(&update_html(data, update));
    }
    html
}

fn update_html(data: &PageData, update: &UpdateInfo) -> String {
    format!(
        "<p><small>{}</small><br><strong>{}</strong></p>\n{}\n",
        time_html(data, update.created_at),
        html_escape(update.status.label()),
        update.body_html.trim_end()
    )
}
