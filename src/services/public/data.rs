//! `PageData`: everything the public representations of one status page are rendered from,
//! read from the database in one visit. Renderers are pure functions of it, so a page can be
//! re-rendered (for instance with a "data as of" notice) while the database is down.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::lang::Lang;
use crate::domain::{ComponentStatus, LifecycleStatus, PageStatus};

mod incident;
mod page;

pub use incident::{
    AffectedComponent, ComponentChange, FollowUpInfo, IncidentInfo, PostmortemInfo, Prose,
    UpdateInfo, status_in_incident, translated_prose,
};
pub use page::{
    Brand, BrandImage, ComponentInfo, GroupInfo, PageInfo, Stylesheet, VendorIncidentInfo,
    VendorInfo, image_file_name,
};

/// Days shown in the uptime bars.
pub const UPTIME_DAYS: u32 = 90;

/// One status page, ready to render.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageData {
    pub page: PageInfo,
    /// When the data was read from the database.
    pub as_of: DateTime<Utc>,
    /// Set when the database could not be read since `as_of`: pages then say "data as of".
    pub stale_since: Option<DateTime<Utc>>,
    pub status: PageStatus,
    /// Groups by position.
    pub groups: Vec<GroupInfo>,
    /// Components in display order: by position among the page's top-level entries (groups and
    /// ungrouped components share one position space), then by position within their group.
    pub components: Vec<ComponentInfo>,
    /// Incidents and advisories, newest first (by `started_at`).
    pub incidents: Vec<IncidentInfo>,
    /// Maintenances, latest window first (by `scheduled_for`).
    pub maintenances: Vec<IncidentInfo>,
    /// Vendors' open incidents and active maintenances naming a component this page mirrors,
    /// newest first (shown labelled as the vendor's, never in the v2 JSON's incidents).
    pub vendor_incidents: Vec<VendorIncidentInfo>,
    /// What this read was made from, so the next read keeps what did not change.
    #[serde(skip)]
    pub read_from: ReadFrom,
}

/// What a read of a page was made from (see `services::public`): the next read of the page
/// rebuilds an incident only when its revision, or what its record shows of the page, moved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadFrom {
    /// Each incident's revision (its counter in `incident_changes`), by id.
    pub incidents: HashMap<String, i64>,
    /// What an incident's record shows of the page and its components: the page's URL and
    /// each component's id, name, region and position, hashed.
    pub naming: u64,
    /// Each component as read (see [`ComponentRead`]), by id.
    pub components: HashMap<String, ComponentRead>,
    /// Where the status histories read start (the uptime bars' first day).
    pub history_from: Option<chrono::NaiveDateTime>,
    /// The site's change counter as the read saw it: the next read asks only for the
    /// components that moved after it.
    pub site_seq: Option<i64>,
}

/// A component as read from the database: its row and its status history from
/// [`ReadFrom::history_from`] on (with the status in force then), at `revision` (its counter
/// in `component_changes`). The next read of the page reads them again only when the revision
/// moved.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentRead {
    pub revision: i64,
    pub row: Arc<crate::db::models::components::Component>,
    pub history: Arc<[crate::db::models::components::ComponentStatusChange]>,
}

impl PageData {
    /// The latest change to anything on the page (not the read time, so the documents that
    /// carry it keep their bytes until the data changes).
    pub fn updated_at(&self) -> DateTime<Utc> {
        self.components
            .iter()
            .map(|c| c.updated_at)
            .chain(self.groups.iter().map(|g| g.updated_at))
            .chain(self.incidents.iter().map(|i| i.updated_at))
            .chain(self.maintenances.iter().map(|m| m.updated_at))
            .fold(self.page.updated_at, DateTime::max)
    }

    /// Whether any text responders wrote was translated into `lang`.
    pub fn translated_into(&self, lang: Lang) -> bool {
        self.incidents.iter().chain(&self.maintenances).any(|e| {
            e.names.contains_key(&lang)
                || e.updates.iter().any(|u| u.bodies.contains_key(&lang))
                || e.postmortem.as_ref().is_some_and(|p| {
                    p.summaries.contains_key(&lang) || p.root_causes.contains_key(&lang)
                })
        })
    }

    /// The same page with what responders wrote in `lang` where they translated it (names,
    /// update bodies, postmortems), for the representations that carry no mark of an
    /// original (the v2 JSON, the feeds).
    pub fn in_language(&self, lang: Lang) -> PageData {
        let mut data = self.clone();
        for event in data
            .incidents
            .iter_mut()
            .chain(data.maintenances.iter_mut())
        {
            if let Some(name) = event.names.get(&lang) {
                event.name = name.clone();
            }
            for update in &mut event.updates {
                if let Some(body) = update.bodies.get(&lang) {
                    update.body = body.markdown.clone();
                    update.body_html = body.html.clone();
                }
            }
            if let Some(postmortem) = &mut event.postmortem {
                if let Some(summary) = postmortem.summaries.get(&lang) {
                    postmortem.summary = summary.markdown.clone();
                    postmortem.summary_html = summary.html.clone();
                }
                if let Some(root_cause) = postmortem.root_causes.get(&lang) {
                    postmortem.root_cause = root_cause.markdown.clone();
                    postmortem.root_cause_html = root_cause.html.clone();
                }
            }
        }
        data
    }

    /// What someone the page does not admit may be shown of a restricted page (on its support
    /// form, when the owner opens that to everyone): its name and addresses, nothing of its
    /// state: no description, components, incidents or status.
    pub fn for_strangers(&self) -> Self {
        let mut page = self.page.clone();
        page.description = None;
        // Its logo and stylesheet are served below the page, to its readers only.
        page.brand = Brand::default();
        Self {
            page,
            as_of: self.as_of,
            stale_since: None,
            status: crate::domain::PageStatus::from_indicator(crate::domain::Indicator::None),
            groups: Vec::new(),
            components: Vec::new(),
            incidents: Vec::new(),
            maintenances: Vec::new(),
            vendor_incidents: Vec::new(),
            read_from: ReadFrom::default(),
        }
    }

    /// Open incidents and advisories (newest first).
    pub fn open_incidents(&self) -> impl Iterator<Item = &IncidentInfo> {
        self.incidents.iter().filter(|i| i.status.is_open())
    }

    /// Maintenances not yet started (status `scheduled`), soonest first.
    pub fn upcoming_maintenances(&self) -> Vec<&IncidentInfo> {
        let mut list: Vec<_> = self
            .maintenances
            .iter()
            .filter(|m| {
                matches!(
                    m.status,
                    LifecycleStatus::Maintenance(crate::domain::MaintenanceStatus::Scheduled)
                )
            })
            .collect();
        list.sort_by_key(|m| m.scheduled_for);
        list
    }

    /// Maintenances under way (status `in_progress` or `verifying`).
    pub fn active_maintenances(&self) -> Vec<&IncidentInfo> {
        use crate::domain::MaintenanceStatus::{InProgress, Verifying};
        self.maintenances
            .iter()
            .filter(|m| {
                matches!(
                    m.status,
                    LifecycleStatus::Maintenance(InProgress | Verifying)
                )
            })
            .collect()
    }

    /// A component by id.
    pub fn component(&self, id: &str) -> Option<&ComponentInfo> {
        self.components.iter().find(|c| c.id == id)
    }

    /// Whether a component marked as meaning "signing in" is affected: not operational, or
    /// named by an open incident (the support form is then the way in).
    pub fn signin_affected(&self) -> bool {
        self.components.iter().any(|c| {
            c.signin
                && (c.status != ComponentStatus::Operational
                    || self
                        .open_incidents()
                        .any(|i| i.affected_components.iter().any(|a| a.id == c.id)))
        })
    }
}
