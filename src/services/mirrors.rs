//! Vendors' status, mirrored: a component that follows a component of another
//! Statuspage-compatible page. Following one is checked against the vendor's summary as it is
//! now (the caller fetched it); from then on the poller (`workers::mirrors`) reads each summary
//! URL once per interval, whatever number of components follow it, and [`record`] applies what
//! it read:
//! - the component moves only when the vendor's status changes (so a responder's own status
//!   stays until the vendor's changes again), as the mirror, in the audit log;
//! - the vendor's open incidents that name it are kept to be shown, labelled as the vendor's;
//! - a vendor that cannot be read leaves everything as it was, with since when and why: a
//!   mirrored component never goes "operational" by default;
//! - subscribers hear of a vendor's change only when they chose that component themselves
//!   (`component.vendor_status_changed` events skip whole-page subscriptions).

use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Serialize;
use serde_json::json;

use crate::db::models::components as component_rows;
use crate::db::models::mirrors::{self as rows, Mirror, Source};
use crate::db::{DbConn, savepoint, write_tx};
use crate::domain::vendor::{Named, Summary};
use crate::domain::{ComponentId, ComponentStatus, PageId};
use crate::error::{AppError, AppResult};
use crate::services::audit::{self, Actor, Change};
use crate::services::components::{self, NewComponentInput};
use crate::services::pages::found;

/// A mirrored component as responders see it (the API's `Mirror`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MirrorView {
    pub component_id: ComponentId,
    pub component: String,
    /// The vendor's `summary.json`.
    pub url: String,
    pub vendor: String,
    pub vendor_url: Option<String>,
    pub vendor_component_id: String,
    pub vendor_component: String,
    /// The vendor's status last read.
    pub vendor_status: Option<ComponentStatus>,
    /// The vendor's open incidents and active maintenances that name the component.
    pub vendor_incidents: Vec<Named>,
    /// Why the vendor's page, though it answers, cannot serve this component.
    pub problem: Option<String>,
    /// The last time the vendor's page was read (its status is as of then).
    pub confirmed_at: Option<DateTime<Utc>>,
    /// Since when the vendor's page cannot be read, and why.
    pub failing_since: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub next_poll_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

impl MirrorView {
    fn new(mirror: Mirror, source: Source, component: String) -> Self {
        Self {
            component_id: mirror.component_id,
            component,
            url: source.url,
            vendor: source.vendor_name,
            vendor_url: source.vendor_url,
            vendor_component_id: mirror.vendor_component,
            vendor_component: mirror.vendor_label,
            vendor_status: mirror.vendor_status,
            vendor_incidents: incidents_of(&mirror.incidents),
            problem: mirror.problem,
            confirmed_at: source.confirmed_at.map(|t| t.and_utc()),
            failing_since: source.failing_since.map(|t| t.and_utc()),
            last_error: source.last_error,
            next_poll_at: source.next_poll_at.and_utc(),
            created_at: mirror.created_at.and_utc(),
        }
    }
}

/// The stored incidents of a mirror (an unreadable list reads as none).
pub fn incidents_of(stored: &str) -> Vec<Named> {
    serde_json::from_str(stored).unwrap_or_default()
}

/// Who changes a component for a vendor, in the audit log.
fn actor(vendor: &str) -> Actor {
    Actor {
        user_id: String::new(),
        email: format!("mirror:{vendor}"),
    }
}

/// What to follow: a summary as it was just read.
pub struct Follow<'a> {
    pub url: &'a url::Url,
    /// The vendor's component: its id, its name or "Group - Name".
    pub wanted: &'a str,
    pub summary: &'a Summary,
    pub etag: Option<String>,
    /// Our component that follows it; `None` makes one named as the vendor's.
    pub component_id: Option<&'a ComponentId>,
    pub poll: Duration,
    pub now: NaiveDateTime,
}

/// Makes a component follow the vendor's (replacing what it followed before) and takes the
/// vendor's status at once. The caller records who did it.
pub fn follow(conn: &mut DbConn, page_id: &PageId, follow: &Follow<'_>) -> AppResult<MirrorView> {
    let reading = follow
        .summary
        .read(follow.wanted)
        .map_err(|e| AppError::field("vendor_component", e.to_string()))?;
    let url = follow.url.as_str();
    let now = follow.now;
    write_tx(conn, |conn| {
        let component = match follow.component_id {
            Some(id) => components::get_page_component(conn, page_id, id)?,
            None => components::create_component(
                conn,
                page_id,
                &NewComponentInput {
                    name: reading.component_name.clone(),
                    description: Some(format!("{}'s status", reading.vendor_name))
                        .filter(|_| !reading.vendor_name.is_empty()),
                    status: Some(reading.status),
                    ..Default::default()
                },
            )?,
        };
        let next = now + chrono::Duration::from_std(follow.poll).unwrap_or_default();
        let source = Source {
            url: url.to_owned(),
            etag: follow.etag.clone(),
            vendor_name: reading.vendor_name.clone(),
            vendor_url: reading.vendor_url.clone(),
            confirmed_at: Some(now),
            failing_since: None,
            last_error: None,
            checked_at: Some(now),
            next_poll_at: next,
            created_at: now,
        };
        match rows::find_source(conn, url)? {
            Some(old) => {
                // Every component of the source is read from this summary at its next poll,
                // so the ETag and the poll are this summary's.
                rows::save_source(
                    conn,
                    &Source {
                        created_at: old.created_at,
                        ..source.clone()
                    },
                )?;
            }
            None => {
                // Another owner may add the same vendor at the same moment: theirs stands, and
                // this summary (as new) is saved over it. The insert runs in a savepoint, so a
                // refused one leaves the transaction usable.
                use diesel::result::{DatabaseErrorKind, Error};
                match savepoint(conn, |c| rows::insert_source(c, &source)) {
                    Ok(_) => {}
                    Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                        rows::save_source(conn, &source)?;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let previous = rows::find(conn, &component.id)?;
        let mirror = Mirror {
            component_id: component.id.clone(),
            page_id: page_id.clone(),
            source_url: url.to_owned(),
            vendor_component: reading.component_id.clone(),
            vendor_label: reading.component_name.clone(),
            vendor_status: Some(reading.status),
            incidents: serde_json::to_string(&reading.incidents)
                .map_err(|e| AppError::Internal(e.into()))?,
            problem: None,
            created_at: now,
            updated_at: now,
        };
        match &previous {
            Some(old) => {
                rows::save(
                    conn,
                    &Mirror {
                        created_at: old.created_at,
                        ..mirror.clone()
                    },
                )?;
                if old.source_url != url {
                    rows::delete_source_if_unused(conn, &old.source_url)?;
                }
            }
            None => {
                rows::insert(conn, &mirror)?;
            }
        }
        if component.status != reading.status {
            components::apply_status(conn, &component, reading.status, None, now)?;
        }
        // The other components following this summary are read from it too: the ETag kept
        // is this summary's, so a 304 later must not leave them on an older one.
        for other in rows::of_source(conn, url)? {
            if other.component_id != component.id {
                apply(conn, other, follow.summary, &reading.vendor_name, now)?;
            }
        }
        let source = found(rows::find_source(conn, url).and_then(required), "vendor")?;
        let component = components::get_component(conn, &component.id)?;
        Ok(MirrorView::new(mirror, source, component.name))
    })
}

fn required<T>(row: Option<T>) -> diesel::QueryResult<T> {
    row.ok_or(diesel::result::Error::NotFound)
}

/// Stops following: the component keeps the status it has, and is a component like any other.
/// The caller records who did it.
pub fn unfollow(
    conn: &mut DbConn,
    page_id: &PageId,
    component_id: &ComponentId,
) -> AppResult<MirrorView> {
    write_tx(conn, |conn| {
        let component = components::get_page_component(conn, page_id, component_id)?;
        let Some(mirror) = rows::find(conn, component_id)? else {
            return Err(AppError::NotFound("a vendor this component follows".into()));
        };
        let source = found(
            rows::find_source(conn, &mirror.source_url).and_then(required),
            "vendor",
        )?;
        rows::delete(conn, component_id)?;
        rows::delete_source_if_unused(conn, &mirror.source_url)?;
        Ok(MirrorView::new(mirror, source, component.name))
    })
}

/// The page's mirrored components.
pub fn list(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<MirrorView>> {
    let names: std::collections::HashMap<ComponentId, String> =
        component_rows::list_for_page(conn, page_id)?
            .into_iter()
            .map(|c| (c.id, c.name))
            .collect();
    Ok(rows::of_page(conn, page_id)?
        .into_iter()
        .map(|(mirror, source)| {
            let name = names.get(&mirror.component_id).cloned().unwrap_or_default();
            MirrorView::new(mirror, source, name)
        })
        .collect())
}

/// One mirrored component of the page.
pub fn get(
    conn: &mut DbConn,
    page_id: &PageId,
    component_id: &ComponentId,
) -> AppResult<MirrorView> {
    list(conn, page_id)?
        .into_iter()
        .find(|m| m.component_id == *component_id)
        .ok_or_else(|| AppError::NotFound("a vendor this component follows".into()))
}

/// Summary URLs due for a poll at `at`, each taken for this process (another process sharing
/// the database polls the others); the next poll of each is `poll` later.
pub fn claim_due(
    conn: &mut DbConn,
    at: NaiveDateTime,
    poll: Duration,
    limit: i64,
) -> AppResult<Vec<(String, Option<String>)>> {
    let next = at + chrono::Duration::from_std(poll).unwrap_or_default();
    let mut claimed = Vec::new();
    for (url, etag) in rows::due_sources(conn, at, limit)? {
        if rows::claim_source(conn, &url, at, next)? {
            claimed.push((url, etag));
        }
    }
    Ok(claimed)
}

/// When the next poll falls due, if any source is kept.
pub fn next_due(conn: &mut DbConn) -> AppResult<Option<NaiveDateTime>> {
    Ok(rows::next_due(conn)?)
}

/// What one poll of a summary URL brought.
#[derive(Debug)]
pub enum Polled {
    /// 304: nothing changed since the ETag.
    NotModified,
    /// A summary, and its ETag.
    Summary(Box<Summary>, Option<String>),
    /// Nothing usable: why.
    Failed(String),
}

/// Applies a poll's result to the source and every component following it, in one
/// transaction; answers whether anything shown on a page changed.
pub fn record(conn: &mut DbConn, url: &str, polled: Polled, now: NaiveDateTime) -> AppResult<bool> {
    write_tx(conn, |conn| {
        let Some(mut source) = rows::find_source(conn, url)? else {
            // No component follows it any more.
            return Ok(false);
        };
        let was_failing = source.failing_since.is_some();
        let mut shown = false;
        match polled {
            Polled::Failed(error) => {
                source.failing_since.get_or_insert(now);
                source.last_error = Some(error);
                shown |= !was_failing;
            }
            Polled::NotModified => {
                source.confirmed_at = Some(now);
                source.failing_since = None;
                source.last_error = None;
                shown |= was_failing;
            }
            Polled::Summary(summary, etag) => {
                source.confirmed_at = Some(now);
                source.failing_since = None;
                source.last_error = None;
                source.etag = etag;
                let name = crate::domain::vendor::clip(summary.page.name.trim());
                let link = summary
                    .page
                    .url
                    .as_deref()
                    .and_then(crate::domain::vendor::web_link);
                shown |= was_failing || source.vendor_name != name || source.vendor_url != link;
                source.vendor_name = name;
                source.vendor_url = link;
                for mirror in rows::of_source(conn, url)? {
                    shown |= apply(conn, mirror, &summary, &source.vendor_name, now)?;
                }
            }
        }
        rows::save_source(conn, &source)?;
        if shown {
            // The pages show the change (a mirror's row is its page's revision).
            for mirror in rows::of_source(conn, url)? {
                if mirror.updated_at != now {
                    rows::save(
                        conn,
                        &Mirror {
                            updated_at: now,
                            ..mirror
                        },
                    )?;
                }
            }
        }
        Ok(shown)
    })
}

/// Applies a summary to one mirror; whether its page shows something new.
fn apply(
    conn: &mut DbConn,
    mirror: Mirror,
    summary: &Summary,
    vendor: &str,
    now: NaiveDateTime,
) -> AppResult<bool> {
    let mut next = mirror.clone();
    match summary.read(&mirror.vendor_component) {
        Err(problem) => next.problem = Some(problem.to_string()),
        Ok(reading) => {
            next.problem = None;
            next.vendor_label = reading.component_name;
            next.incidents = serde_json::to_string(&reading.incidents)
                .map_err(|e| AppError::Internal(e.into()))?;
            if crate::domain::vendor::moves(mirror.vendor_status, reading.status) {
                next.vendor_status = Some(reading.status);
                let component = components::get_component(conn, &mirror.component_id)?;
                if let Some(from) =
                    components::apply_status(conn, &component, reading.status, None, now)?
                {
                    crate::services::outbox::vendor_status_changed(
                        conn,
                        &component.page_id,
                        &component.id,
                        now,
                    )?;
                    audit::record(
                        conn,
                        &actor(vendor),
                        &Change {
                            action: "component.status_by_vendor",
                            entity_type: "component",
                            entity_id: Some(component.id.to_string()),
                            page_id: Some(component.page_id.clone()),
                            changes: json!({
                                "from": from,
                                "status": reading.status,
                                "vendor_component": next.vendor_label,
                            }),
                        },
                    )?;
                }
            }
        }
    }
    if next == mirror {
        return Ok(false);
    }
    next.updated_at = now;
    rows::save(conn, &next)?;
    Ok(true)
}
