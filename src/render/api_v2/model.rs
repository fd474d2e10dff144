//! The page-level JSON objects of the v2 API: times, `page`, `status` and `components`
//! (component groups included, as Statuspage lists them).
//!
//! Field order follows Statuspage's responses; Herald's extras come after the standard keys.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};

use crate::domain::lang::Lang;
use crate::domain::{self, ComponentStatus, Indicator};
use crate::services::public::data::{ComponentInfo, GroupInfo, PageData};

/// A UTC time written the way Statuspage writes UTC times: `2026-11-30T04:11:25.000Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Time(pub DateTime<Utc>);

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0.format("%Y-%m-%dT%H:%M:%S%.3fZ"))
    }
}

/// An optional time (`null` when absent).
pub fn time(at: Option<DateTime<Utc>>) -> Option<Time> {
    at.map(Time)
}

/// The keys a component and an incident start with, in Statuspage's order.
#[derive(Debug, Serialize)]
pub struct Head<'a, S> {
    pub id: &'a str,
    pub name: &'a str,
    pub status: S,
    pub created_at: Time,
    pub updated_at: Time,
}

impl<'a, S> Head<'a, S> {
    /// The head of the record `(id, name)` in `status`, created and last updated at `times`.
    pub fn new(
        (id, name): (&'a str, &'a str),
        status: S,
        (created_at, updated_at): (DateTime<Utc>, DateTime<Utc>),
    ) -> Self {
        Self {
            id,
            name,
            status,
            created_at: Time(created_at),
            updated_at: Time(updated_at),
        }
    }
}

/// The `page` object every endpoint starts with.
#[derive(Debug, Serialize)]
pub struct Page<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub url: &'a str,
    pub time_zone: &'a str,
    pub updated_at: Time,
}

impl<'a> Page<'a> {
    /// The page, with `updated_at` the latest change to anything on it (not the read time, so
    /// the bytes stay the same until the data changes).
    pub fn new(data: &'a PageData) -> Self {
        let info = &data.page;
        let updated_at = data.updated_at();
        Self {
            id: &info.id,
            name: &info.name,
            url: &info.url,
            time_zone: info.time_zone.name(),
            updated_at: Time(updated_at),
        }
    }
}

/// The page's overall `status`.
#[derive(Debug, Serialize)]
pub struct Status {
    pub indicator: Indicator,
    /// In the document's language: Statuspage's own English words for English, the page's
    /// words in the others (the indicator is what a machine reads).
    pub description: Cow<'static, str>,
}

impl Status {
    /// The rolled-up status of `data`, described in `lang`.
    pub fn new(data: &PageData, lang: Lang) -> Self {
        let indicator = data.status.indicator;
        let description = match lang {
            Lang::En => Cow::Borrowed(data.status.description),
            _ => Cow::Owned(crate::render::i18n::text(
                lang,
                &format!("indicator-{}", indicator.as_str()),
            )),
        };
        Self {
            indicator,
            description,
        }
    }
}

/// One entry of `components`: a component, or a group (`group: true` with its members' ids).
#[derive(Debug, Serialize)]
pub struct Component<'a> {
    #[serde(flatten)]
    pub head: Head<'a, ComponentStatus>,
    pub position: i32,
    pub description: Option<&'a str>,
    pub showcase: bool,
    /// Statuspage's "uptime shown since" date; Herald has none.
    pub start_date: Option<&'a str>,
    pub group_id: Option<&'a str>,
    pub page_id: &'a str,
    pub group: bool,
    pub only_show_if_degraded: bool,
    /// Only on groups, as on Statuspage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<&'a str>>,
    // Herald's extras.
    pub region: Option<&'a str>,
}

impl<'a> Component<'a> {
    /// A component of `data`.
    pub fn of_component(data: &'a PageData, c: &'a ComponentInfo) -> Self {
        Self::listed(data, c, in_known_group(data, c))
    }

    /// A component of `data`, `grouped` when one of the page's groups lists it.
    fn listed(data: &'a PageData, c: &'a ComponentInfo, grouped: bool) -> Self {
        Self {
            head: Head::new((&c.id, &c.name), c.status, (c.created_at, c.updated_at)),
            position: c.position,
            description: c.description.as_deref(),
            showcase: c.showcase,
            start_date: None,
            group_id: c.group_id.as_deref().filter(|_| grouped),
            page_id: &data.page.id,
            group: false,
            only_show_if_degraded: false,
            components: None,
            region: c.region.as_deref(),
        }
    }

    /// A group of `data`; its status is the worst of its members'.
    pub fn of_group(data: &'a PageData, g: &'a GroupInfo) -> Self {
        Self::group_of(data, g, &members(data, g).collect::<Vec<_>>())
    }

    /// A group of `data` with its `members` in display order.
    fn group_of(data: &'a PageData, g: &'a GroupInfo, members: &[&'a ComponentInfo]) -> Self {
        let status = members
            .iter()
            .map(|c| c.status)
            .max_by_key(|&s| domain::severity(s))
            .unwrap_or(ComponentStatus::Operational);
        Self {
            head: Head::new((&g.id, &g.name), status, (g.created_at, g.updated_at)),
            position: g.position,
            description: g.description.as_deref(),
            showcase: false,
            start_date: None,
            group_id: None,
            page_id: &data.page.id,
            group: true,
            only_show_if_degraded: false,
            components: Some(members.iter().map(|c| c.id.as_str()).collect()),
            region: None,
        }
    }
}

/// The components list: top-level entries by position (a group followed by its members),
/// which is also the order of the page.
pub fn components(data: &PageData) -> Vec<Component<'_>> {
    // Looked up once, not by a scan per member (a page may hold a thousand components).
    let by_id: HashMap<&str, &ComponentInfo> =
        data.components.iter().map(|c| (c.id.as_str(), c)).collect();
    // (group id, member id) for every member a group lists: a component is in a known group
    // when its own group lists it.
    let listed: HashSet<(&str, &str)> = data
        .groups
        .iter()
        .flat_map(|g| g.component_ids.iter().map(|c| (g.id.as_str(), c.as_str())))
        .collect();
    let grouped = |c: &ComponentInfo| {
        c.group_id
            .as_deref()
            .is_some_and(|g| listed.contains(&(g, c.id.as_str())))
    };
    let mut top: Vec<(i32, Option<&GroupInfo>, Option<&ComponentInfo>)> = data
        .groups
        .iter()
        .map(|g| (g.position, Some(g), None))
        .chain(
            data.components
                .iter()
                .filter(|c| !grouped(c))
                .map(|c| (c.position, None, Some(c))),
        )
        .collect();
    // Stable: groups come before components at the same position, each in data order.
    top.sort_by_key(|(position, group, _)| (*position, group.is_none()));
    let mut out = Vec::with_capacity(data.groups.len() + data.components.len());
    for entry in top {
        match entry {
            (_, Some(g), _) => {
                let members: Vec<&ComponentInfo> = g
                    .component_ids
                    .iter()
                    .filter_map(|id| by_id.get(id.as_str()).copied())
                    .collect();
                out.push(Component::group_of(data, g, &members));
                out.extend(
                    members
                        .iter()
                        .map(|c| Component::listed(data, c, grouped(c))),
                );
            }
            (_, None, Some(c)) => out.push(Component::listed(data, c, false)),
            (_, None, None) => {}
        }
    }
    out
}

/// The members of `g` in display order (ids that name no component are skipped).
fn members<'a>(data: &'a PageData, g: &'a GroupInfo) -> impl Iterator<Item = &'a ComponentInfo> {
    g.component_ids.iter().filter_map(|id| data.component(id))
}

fn group<'a>(data: &'a PageData, id: &str) -> Option<&'a GroupInfo> {
    data.groups.iter().find(|g| g.id == id)
}

/// Whether `c` is listed under one of the page's groups (else it is shown at the top level).
fn in_known_group(data: &PageData, c: &ComponentInfo) -> bool {
    c.group_id
        .as_deref()
        .and_then(|id| group(data, id))
        .is_some_and(|g| g.component_ids.contains(&c.id))
}
