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
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;

use self::incident::Incident;
use self::model::{Component, Page, Status, components};
use crate::domain::lang::Lang;
use crate::render::change::Doc;
use crate::render::{CachePolicy, Representation};
use crate::services::public::data::{IncidentInfo, PageData};

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
        out.insert(key, Arc::new(representation(bytes)));
    }
    Ok(())
}

/// Every document's key and bytes, in `lang`.
pub fn documents(data: &PageData, lang: Lang) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for doc in DOCS {
        if let Some(bytes) = document(data, lang, &doc)? {
            out.push((doc.key(), bytes));
        }
    }
    Ok(out)
}

/// The v2 documents, in the order they are listed.
pub const DOCS: [Doc; 8] = [
    Doc::Summary,
    Doc::Status,
    Doc::Components,
    Doc::Incidents,
    Doc::Unresolved,
    Doc::Maintenances,
    Doc::UpcomingMaintenances,
    Doc::ActiveMaintenances,
];

/// The bytes of `doc` in `lang`, if it is a v2 document.
pub fn document(data: &PageData, lang: Lang, doc: &Doc) -> anyhow::Result<Option<Vec<u8>>> {
    let page = Page::new(data);
    let d = Document::new(&page);
    let bytes = match doc {
        Doc::Summary => {
            let status = Status::new(data, lang);
            let components = components(data);
            let unresolved = incidents(data, data.open_incidents().collect());
            let current = active_maintenances(data)
                .into_iter()
                .chain(data.upcoming_maintenances())
                .collect();
            let current = incidents(data, current);
            json(
                &d.components(&components)
                    .incidents(&unresolved)
                    .maintenances(&current)
                    .status(&status),
            )
        }
        Doc::Status => json(&d.status(&Status::new(data, lang))),
        Doc::Components => json(&d.components(&components(data))),
        Doc::Incidents => json(&d.incidents(&incidents(data, recent(&data.incidents)))),
        Doc::Unresolved => json(&d.incidents(&incidents(data, data.open_incidents().collect()))),
        Doc::Maintenances => json(&d.maintenances(&incidents(data, recent(&data.maintenances)))),
        Doc::UpcomingMaintenances => {
            json(&d.maintenances(&incidents(data, data.upcoming_maintenances())))
        }
        Doc::ActiveMaintenances => {
            json(&d.maintenances(&incidents(data, active_maintenances(data))))
        }
        _ => return Ok(None),
    };
    bytes.map(Some)
}

/// A document's bytes as served: JSON, cached as public data, readable from any origin.
pub fn representation(bytes: Vec<u8>) -> Representation {
    Representation::new(JSON, bytes, CachePolicy::PUBLIC).with_cors()
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
