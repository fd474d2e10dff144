//! The public JSON API, compatible with Atlassian Statuspage's v2 API (`/api/v2/*.json`), so
//! clients and widgets written for Statuspage work against a Herald page.
//!
//! Every document is rendered once from [`PageData`] into a [`Representation`]: the output
//! depends only on the data (never on the clock or the read time), and serde writes the keys in
//! the fixed order of the structs in [`model`] and [`incident`]. Field names, nesting and enum
//! values are Statuspage's; Herald's extras are additional keys only. The tests freeze the exact
//! key set of every object.

pub mod incident;
pub mod model;

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;

use self::incident::Incident;
use self::model::{Component, Page, Status, components};
use crate::domain::lang::Lang;
use crate::render::data::{IncidentInfo, PageData};
use crate::render::{CachePolicy, Representation};

/// How many closed incidents (or completed maintenances) the list endpoints return, as on
/// Statuspage; open ones are always listed.
pub const LIST_LIMIT: usize = 50;

/// The MIME type of every document.
const JSON: &str = "application/json";

/// Renders every v2 document of `data` in `lang` into `out`, keyed by path below the page's
/// prefix (e.g. `"api/v2/summary.json"`), all `application/json` with CORS.
pub fn render(
    data: &PageData,
    lang: Lang,
    out: &mut HashMap<String, Arc<Representation>>,
) -> anyhow::Result<()> {
    for (key, bytes) in documents(data, lang)? {
        let rep = Representation::new(JSON, bytes, CachePolicy::PUBLIC).with_cors();
        out.insert(key.to_owned(), Arc::new(rep));
    }
    Ok(())
}

/// Every document's key and bytes, in `lang`.
pub fn documents(data: &PageData, lang: Lang) -> anyhow::Result<Vec<(&'static str, Vec<u8>)>> {
    let page = Page::new(data);
    let status = Status::new(data, lang);
    let components = components(data);
    let unresolved = incidents(data, data.open_incidents().collect());
    let all_incidents = incidents(data, recent(&data.incidents));
    let upcoming = incidents(data, data.upcoming_maintenances());
    let active = incidents(data, active_maintenances(data));
    let current = active_maintenances(data)
        .into_iter()
        .chain(data.upcoming_maintenances())
        .collect();
    let current = incidents(data, current);
    let all_maintenances = incidents(data, recent(&data.maintenances));
    let doc = Document::new(&page);
    let summary = doc
        .components(&components)
        .incidents(&unresolved)
        .maintenances(&current)
        .status(&status);
    [
        ("api/v2/summary.json", summary),
        ("api/v2/status.json", doc.status(&status)),
        ("api/v2/components.json", doc.components(&components)),
        ("api/v2/incidents.json", doc.incidents(&all_incidents)),
        (
            "api/v2/incidents/unresolved.json",
            doc.incidents(&unresolved),
        ),
        (
            "api/v2/scheduled-maintenances.json",
            doc.maintenances(&all_maintenances),
        ),
        (
            "api/v2/scheduled-maintenances/upcoming.json",
            doc.maintenances(&upcoming),
        ),
        (
            "api/v2/scheduled-maintenances/active.json",
            doc.maintenances(&active),
        ),
    ]
    .iter()
    .map(|(key, doc)| Ok((*key, json(doc)?)))
    .collect()
}

/// A v2 document: `page`, then the parts an endpoint has, in `summary.json`'s order.
#[derive(Clone, Copy, Serialize)]
struct Document<'a> {
    page: &'a Page<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    components: Option<&'a [Component<'a>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    incidents: Option<&'a [Incident<'a>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scheduled_maintenances: Option<&'a [Incident<'a>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a Status>,
}

impl<'a> Document<'a> {
    fn new(page: &'a Page<'a>) -> Self {
        Self {
            page,
            components: None,
            incidents: None,
            scheduled_maintenances: None,
            status: None,
        }
    }

    fn components(self, list: &'a [Component<'a>]) -> Self {
        Self {
            components: Some(list),
            ..self
        }
    }

    fn incidents(self, list: &'a [Incident<'a>]) -> Self {
        Self {
            incidents: Some(list),
            ..self
        }
    }

    fn maintenances(self, list: &'a [Incident<'a>]) -> Self {
        Self {
            scheduled_maintenances: Some(list),
            ..self
        }
    }

    fn status(self, status: &'a Status) -> Self {
        Self {
            status: Some(status),
            ..self
        }
    }
}

/// The JSON form of each record of `list`.
fn incidents<'a>(data: &'a PageData, list: Vec<&'a IncidentInfo>) -> Vec<Incident<'a>> {
    list.into_iter().map(|i| Incident::new(data, i)).collect()
}

/// In-progress maintenances, earliest window first.
fn active_maintenances(data: &PageData) -> Vec<&IncidentInfo> {
    let mut list = data.active_maintenances();
    list.sort_by_key(|m| m.scheduled_for);
    list
}

/// The first [`LIST_LIMIT`] records of a newest-first list, plus any open record after them.
fn recent(list: &[IncidentInfo]) -> Vec<&IncidentInfo> {
    list.iter()
        .enumerate()
        .filter(|(n, i)| *n < LIST_LIMIT || i.status.is_open())
        .map(|(_, i)| i)
        .collect()
}

fn json<T: Serialize>(doc: &T) -> anyhow::Result<Vec<u8>> {
    serde_json::to_vec(doc).context("serializing a v2 API document")
}
