//! The one map from a change of a page's data to the documents it touches, so a write costs
//! what it changes: a component's status re-renders what shows that component, an incident's
//! update what carries that incident, never every page the site holds.
//!
//! [`changes`] reads what changed between two reads of a page ([`PageData`]); [`touched`]
//! says which of the page's documents ([`Doc`]) each change touches. The refresher renders
//! again the touched documents that are held ahead and drops the touched ones rendered on
//! demand; every other document is kept as it is, byte for byte.

use std::collections::{BTreeSet, HashMap};

use crate::domain::IncidentKind;
use crate::render::html::history;
use crate::services::public::data::{IncidentInfo, PageData};

/// A document of a page, by what it shows. [`Doc::key`] is its path below the page.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Doc {
    /// The overview (`""`).
    Overview,
    /// An incident's or maintenance's own page.
    Incident(String),
    /// A history page (1-based).
    History(u32),
    Summary,
    Status,
    Components,
    Incidents,
    Unresolved,
    Maintenances,
    UpcomingMaintenances,
    ActiveMaintenances,
    Atom,
    Rss,
    Ical,
    Badge,
    Embed,
    Widget,
}

/// The v2 JSON documents and their keys.
const V2: [(Doc, &str); 8] = [
    (Doc::Summary, "api/v2/summary.json"),
    (Doc::Status, "api/v2/status.json"),
    (Doc::Components, "api/v2/components.json"),
    (Doc::Incidents, "api/v2/incidents.json"),
    (Doc::Unresolved, "api/v2/incidents/unresolved.json"),
    (Doc::Maintenances, "api/v2/scheduled-maintenances.json"),
    (
        Doc::UpcomingMaintenances,
        "api/v2/scheduled-maintenances/upcoming.json",
    ),
    (
        Doc::ActiveMaintenances,
        "api/v2/scheduled-maintenances/active.json",
    ),
];

/// The other documents with a fixed key.
const FIXED: [(Doc, &str); 7] = [
    (Doc::Overview, ""),
    (Doc::Atom, "history.atom"),
    (Doc::Rss, "history.rss"),
    (Doc::Ical, "maintenances.ics"),
    (Doc::Badge, "badge.svg"),
    (Doc::Embed, "embed"),
    (Doc::Widget, "widget.json"),
];

impl Doc {
    /// Its path below the page (the key the read path looks it up by).
    pub fn key(&self) -> String {
        match self {
            Self::Incident(id) => format!("incidents/{id}"),
            Self::History(n) => format!("history?page={n}"),
            fixed => V2
                .iter()
                .chain(&FIXED)
                .find(|(doc, _)| doc == fixed)
                .map(|(_, key)| (*key).to_owned())
                .unwrap_or_default(),
        }
    }

    /// The document at `key`, if `key` names one (whether the page has it is [`all`]'s to say).
    pub fn parse(key: &str) -> Option<Self> {
        if let Some(id) = key.strip_prefix("incidents/") {
            return (!id.is_empty() && !id.contains('/')).then(|| Self::Incident(id.to_owned()));
        }
        if let Some(n) = key.strip_prefix("history?page=") {
            return n.parse().ok().filter(|n| *n >= 1).map(Self::History);
        }
        V2.iter()
            .chain(&FIXED)
            .find(|(_, k)| *k == key)
            .map(|(doc, _)| doc.clone())
    }

    /// Rendered ahead of any reader and kept in memory: what every reader needs on the first
    /// request of an outage. The rest is rendered on its first read, into a cache bounded in
    /// bytes.
    pub fn ahead(&self) -> bool {
        matches!(
            self,
            Self::Overview
                | Self::Summary
                | Self::Status
                | Self::Badge
                | Self::Embed
                | Self::Widget
        )
    }

    /// Whether it is written in the reader's language (the others are the default
    /// language's only).
    pub fn by_language(&self) -> bool {
        !matches!(self, Self::Badge | Self::Embed | Self::Widget)
    }

    /// Whether it is readable from any origin (the v2 JSON, the feeds, the widget).
    pub fn cors(&self) -> bool {
        !self.html() && *self != Self::Badge
    }

    /// Whether it is an HTML page (a person's browser picks its language).
    pub fn html(&self) -> bool {
        matches!(
            self,
            Self::Overview | Self::Incident(_) | Self::History(_) | Self::Embed
        )
    }
}

/// Every document `data`'s page has.
pub fn all(data: &PageData) -> Vec<Doc> {
    let mut docs: Vec<Doc> = V2.iter().chain(&FIXED).map(|(d, _)| d.clone()).collect();
    docs.extend(
        data.incidents
            .iter()
            .chain(&data.maintenances)
            .map(|e| Doc::Incident(e.id.clone())),
    );
    docs.extend((1..=history::page_count(data)).map(Doc::History));
    docs
}

/// What changed between two reads of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Something every document shows: the page's settings, look, languages or access, the
    /// day (uptime bars, history pages), or the "data as of" notice.
    Everything,
    /// The page's overall status.
    Status,
    /// Which components and groups there are, their order, or a group's name.
    Layout,
    /// One component: its status, name, description or uptime bar.
    Component(String),
    /// One incident or maintenance: opened, updated, edited, removed, or its promised update
    /// fell due.
    Incident(String),
    /// The vendors' incidents shown beside mirrored components.
    Vendors,
    /// The time of the page's latest change, which every v2 document carries
    /// (`page.updated_at`).
    Stamp,
}

/// What changed from `old` to `new`, two reads of one page.
pub fn changes(old: &PageData, new: &PageData) -> Vec<Change> {
    if old.page != new.page
        || old.stale_since != new.stale_since
        || old.as_of.date_naive() != new.as_of.date_naive()
    {
        return vec![Change::Everything];
    }
    let mut out = Vec::new();
    if old.status != new.status {
        out.push(Change::Status);
    }
    let ids = |d: &PageData| {
        d.components
            .iter()
            .map(|c| c.id.clone())
            .collect::<Vec<_>>()
    };
    if old.groups != new.groups || ids(old) != ids(new) {
        out.push(Change::Layout);
    }
    let before: HashMap<&str, _> = old.components.iter().map(|c| (c.id.as_str(), c)).collect();
    for component in &new.components {
        if before.get(component.id.as_str()) != Some(&component) {
            out.push(Change::Component(component.id.clone()));
        }
    }
    fn events(d: &PageData) -> HashMap<&str, &IncidentInfo> {
        d.incidents
            .iter()
            .chain(&d.maintenances)
            .map(|e| (e.id.as_str(), e))
            .collect()
    }
    let (was, is) = (events(old), events(new));
    let mut incidents: BTreeSet<&str> = BTreeSet::new();
    for (id, event) in &is {
        let fell_due = event.status.is_open()
            && event
                .next_update_by
                .is_some_and(|by| old.as_of < by && by <= new.as_of);
        if was.get(id) != Some(event) || fell_due {
            incidents.insert(*id);
        }
    }
    incidents.extend(was.keys().filter(|id| !is.contains_key(*id)).copied());
    out.extend(
        incidents
            .into_iter()
            .map(|id| Change::Incident(id.to_owned())),
    );
    if old.vendor_incidents != new.vendor_incidents {
        out.push(Change::Vendors);
    }
    if old.updated_at() != new.updated_at() {
        out.push(Change::Stamp);
    }
    out
}

/// The documents `change` touches, from `old` to `new`.
pub fn touched(change: &Change, old: &PageData, new: &PageData) -> BTreeSet<Doc> {
    use Doc::*;
    let set = |docs: &[Doc]| docs.iter().cloned().collect::<BTreeSet<_>>();
    match change {
        Change::Everything => all(old).into_iter().chain(all(new)).collect(),
        Change::Status => set(&[Overview, Summary, Status, Badge, Embed, Widget]),
        Change::Layout => set(&[Overview, Summary, Components, Widget]),
        Change::Component(id) => {
            let mut docs = set(&[Overview, Summary, Components, Widget]);
            let signin = |d: &PageData| d.component(id).is_some_and(|c| c.signin);
            if signin(old) || signin(new) {
                docs.insert(Embed);
            }
            docs
        }
        Change::Incident(id) => incident_touches(id, old, new),
        Change::Vendors => set(&[Overview]),
        Change::Stamp => V2.iter().map(|(d, _)| d.clone()).chain([Widget]).collect(),
    }
}

/// What one incident's change touches: its own page, the history pages it was and is on, the
/// lists and feeds of its kind, and, while it is (or was) open or its window current or coming,
/// what shows the page's present.
fn incident_touches(id: &str, old: &PageData, new: &PageData) -> BTreeSet<Doc> {
    use Doc::*;
    let mut docs = BTreeSet::from([Incident(id.to_owned()), Widget]);
    let mut current = false;
    for data in [old, new] {
        let Some(event) = data
            .incidents
            .iter()
            .chain(&data.maintenances)
            .find(|e| e.id == id)
        else {
            continue;
        };
        docs.insert(History(history::page_of(
            data.as_of,
            history::event_day(event),
        )));
        if event.kind == IncidentKind::Maintenance {
            docs.extend([Maintenances, UpcomingMaintenances, ActiveMaintenances, Ical]);
            let shown = |list: Vec<&IncidentInfo>| list.iter().any(|m| m.id == id);
            current |= shown(data.active_maintenances()) || shown(data.upcoming_maintenances());
        } else {
            docs.extend([Incidents, Unresolved]);
            current |= event.status.is_open();
        }
        docs.extend([Atom, Rss]);
    }
    // The uptime bars link a day to where its incidents are listed: the day itself when
    // something started that day, so a record that starts (or no longer starts) on a day the
    // bars show moves their links.
    let day = |d: &PageData| {
        d.incidents
            .iter()
            .chain(&d.maintenances)
            .find(|e| e.id == id)
            .map(history::event_day)
            .filter(|day| *day >= bar_start(d))
    };
    if current || day(old) != day(new) {
        docs.extend([Overview, Summary, Embed]);
    }
    docs
}

/// Every document the changes from `old` to `new` touch.
pub fn touched_by_all(changes: &[Change], old: &PageData, new: &PageData) -> BTreeSet<Doc> {
    changes.iter().flat_map(|c| touched(c, old, new)).collect()
}

/// The first day the uptime bars show.
fn bar_start(data: &PageData) -> chrono::NaiveDate {
    let days = u64::from(crate::services::public::data::UPTIME_DAYS);
    data.as_of
        .date_naive()
        .checked_sub_days(chrono::Days::new(days))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
