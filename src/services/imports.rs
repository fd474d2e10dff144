//! Moving from Statuspage: a page's components and groups, incidents and maintenances with
//! their updates, read through the source's public API (`domain::imports::statuspage`), written to a
//! Herald page (made when missing) in one transaction. Each source record is remembered with
//! the record it became (`imported_records`), so a second import adds only what is new: new
//! records, and new updates of incidents imported before (whose status and times then follow
//! the source). Times and impacts are kept; nothing is sent to subscribers (history is not
//! news). A record Herald cannot take is refused alone, with the reason.

use std::collections::BTreeMap;

pub mod fetch;
mod records;
pub mod subscribers;

use records::{import_component, import_group, import_incident};

pub use subscribers::import_subscribers;

use serde::Serialize;

use crate::db::models::imports;
use crate::db::models::pages::{self, StatusPage};
use crate::db::{DbConn, now, savepoint, write_tx};
use crate::domain::IncidentKind;
use crate::domain::imports::statuspage::{SourceIncident, SummaryDoc};
use crate::domain::parse_time_zone;
use crate::error::{AppError, AppResult};
use crate::services::pages::NewPageInput;

/// What a Statuspage page holds, as read.
#[derive(Debug, Clone)]
pub struct StatuspageSource {
    pub summary: SummaryDoc,
    pub incidents: Vec<SourceIncident>,
    pub maintenances: Vec<SourceIncident>,
}

/// What an import did, per kind of record.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The page imported into.
    pub page: String,
    pub created: BTreeMap<&'static str, usize>,
    /// Already imported (and unchanged).
    pub skipped: BTreeMap<&'static str, usize>,
    pub refused: Vec<Refused>,
}

/// A source record Herald could not take, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    pub kind: &'static str,
    pub source_id: String,
    pub name: String,
    pub reason: String,
}

impl Report {
    fn created(&mut self, kind: &'static str) {
        *self.created.entry(kind).or_default() += 1;
    }

    fn skipped(&mut self, kind: &'static str) {
        *self.skipped.entry(kind).or_default() += 1;
    }

    fn refused(&mut self, kind: &'static str, source_id: &str, name: &str, reason: impl ToString) {
        // NUL is dropped: the report may be stored (an idempotent answer), and PostgreSQL's
        // text takes no NUL.
        let clean =
            |text: &str, most: usize| text.chars().filter(|c| *c != '\0').take(most).collect();
        self.refused.push(Refused {
            kind,
            source_id: clean(source_id, 100),
            name: clean(name, 200),
            reason: clean(&reason.to_string(), 1000),
        });
    }

    /// Adds what `other` (a later part of the same import) did.
    pub fn merge(&mut self, other: Report) {
        for (kind, n) in other.created {
            *self.created.entry(kind).or_default() += n;
        }
        for (kind, n) in other.skipped {
            *self.skipped.entry(kind).or_default() += n;
        }
        self.refused.extend(other.refused);
    }

    /// The report in one line per heading, for a terminal.
    pub fn lines(&self) -> Vec<String> {
        let list = |counts: &BTreeMap<&'static str, usize>| {
            if counts.is_empty() {
                return "nothing".to_owned();
            }
            counts
                .iter()
                .map(|(kind, n)| format!("{n} {kind}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lines = vec![
            format!("page: {}", self.page),
            format!("created: {}", list(&self.created)),
            format!("skipped (already there): {}", list(&self.skipped)),
            format!("refused: {}", self.refused.len()),
        ];
        lines.extend(
            self.refused
                .iter()
                .map(|r| format!("  {} {} ({}): {}", r.kind, r.source_id, r.name, r.reason)),
        );
        lines
    }
}

/// Kinds of records, as remembered and reported.
mod kind {
    pub const PAGE: &str = "page";
    pub const GROUP: &str = "groups";
    pub const COMPONENT: &str = "components";
    pub const INCIDENT: &str = "incidents";
    pub const MAINTENANCE: &str = "maintenances";
    pub const UPDATE: &str = "updates";
}

/// Imports `source` into the page `slug` (made when missing, named and zoned as the source),
/// in one transaction; `progress` hears of each step.
pub fn import_statuspage(
    conn: &mut DbConn,
    slug: &str,
    source: &StatuspageSource,
    progress: &mut dyn FnMut(&str),
) -> AppResult<Report> {
    write_tx(conn, |conn| {
        let mut report = Report {
            page: slug.to_owned(),
            ..Report::default()
        };
        let page = page(conn, slug, &source.summary, &mut report)?;
        progress(&format!(
            "page {}: {} components",
            page.slug,
            source.summary.components.len()
        ));
        let components = source.summary.components.as_slice();
        for group in components.iter().filter(|c| c.group) {
            import_group(conn, &page.id, group, &mut report)?;
        }
        for component in components.iter().filter(|c| !c.group) {
            import_component(conn, &page.id, component, &mut report)?;
        }
        for (kind, list) in [
            (IncidentKind::Incident, &source.incidents),
            (IncidentKind::Maintenance, &source.maintenances),
        ] {
            let mut list: Vec<&SourceIncident> = list.iter().collect();
            list.sort_by_key(|i| i.created_at);
            for (n, incident) in list.iter().enumerate() {
                import_incident(conn, &page.id, kind, incident, &mut report)?;
                if (n + 1) % 10 == 0 || n + 1 == list.len() {
                    progress(&format!("{}: {}/{}", label(kind), n + 1, list.len()));
                }
            }
        }
        Ok(report)
    })
}

fn label(kind: IncidentKind) -> &'static str {
    match kind {
        IncidentKind::Maintenance => kind::MAINTENANCE,
        _ => kind::INCIDENT,
    }
}

/// The page at `slug`, made from the source's name and time zone when there is none.
fn page(
    conn: &mut DbConn,
    slug: &str,
    summary: &SummaryDoc,
    report: &mut Report,
) -> AppResult<StatusPage> {
    if let Some(page) = pages::find_by_slug(conn, slug)? {
        report.skipped(kind::PAGE);
        return Ok(page);
    }
    let time_zone = summary
        .page
        .time_zone
        .clone()
        .filter(|zone| parse_time_zone(zone).is_ok());
    let name: String = summary.page.name.trim().chars().take(100).collect();
    let page = crate::services::pages::create_page(
        conn,
        &NewPageInput {
            slug: slug.to_owned(),
            name: if name.is_empty() {
                slug.to_owned()
            } else {
                name
            },
            time_zone,
            ..NewPageInput::default()
        },
    )?;
    imports::remember(
        conn,
        &page.id,
        kind::PAGE,
        &summary.page.id,
        page.id.as_str(),
        now(),
    )?;
    report.created(kind::PAGE);
    Ok(page)
}

/// Runs one record's writes in a nested transaction: a refusal leaves nothing of it behind
/// and is reported; any other error ends the import.
fn one<T>(
    conn: &mut DbConn,
    report: &mut Report,
    (kind, source_id, name): (&'static str, &str, &str),
    write: impl FnOnce(&mut DbConn) -> AppResult<T>,
) -> AppResult<Option<T>> {
    match savepoint(conn, write) {
        Ok(value) => Ok(Some(value)),
        Err(AppError::Validation(fields)) => {
            let reason = fields
                .iter()
                .map(|(field, messages)| format!("{field} {}", messages.join("; ")))
                .collect::<Vec<_>>()
                .join(", ");
            report.refused(kind, source_id, name, reason);
            Ok(None)
        }
        Err(other) => Err(other),
    }
}
