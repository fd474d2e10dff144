//! `PageData`: everything the public representations of one status page are rendered from,
//! read from the database in one visit. Renderers are pure functions of it, so a page can be
//! re-rendered (for instance with a "data as of" notice) while the database is down.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::domain::lang::Lang;

use crate::domain::{
    ComponentStatus, FollowUpState, Impact, IncidentKind, LifecycleStatus, PageStatus, ScopeFigure,
    TimelineEntry, UptimeBar,
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

/// Where a mirrored component's status comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VendorInfo {
    /// The vendor's page name.
    pub name: String,
    /// Where people read the vendor's page.
    pub url: Option<String>,
    /// The vendor's component ("Group - Component").
    pub component: String,
    /// When the vendor's page was last read.
    pub confirmed_at: Option<DateTime<Utc>>,
    /// Since when the vendor's page cannot be read (its status is then the last known one).
    pub failing_since: Option<DateTime<Utc>>,
    /// Why the vendor's page, though read, does not serve this component any more.
    pub problem: Option<String>,
}

impl VendorInfo {
    /// Whether the status shown is only the last one known.
    pub fn stale(&self) -> bool {
        self.failing_since.is_some() || self.problem.is_some()
    }
}

/// One of a vendor's incidents, shown on a page that mirrors a component it names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VendorIncidentInfo {
    pub vendor: String,
    pub vendor_url: Option<String>,
    /// This page's components it concerns.
    pub components: Vec<String>,
    #[serde(flatten)]
    pub incident: crate::domain::vendor::Named,
}

/// The page itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageInfo {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    /// The page's canonical public address (custom domain, configured URL, or
    /// `{base_url}/status/{slug}`), without a trailing slash.
    pub url: String,
    /// Herald's own base URL (`HERALD_PUBLIC_URL`), without a trailing slash.
    pub base_url: String,
    /// Path prefix of this page's routes on Herald, e.g. `/status/demo`.
    pub path: String,
    #[serde(serialize_with = "serialize_tz")]
    pub time_zone: Tz,
    pub support_email: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The sites that may frame the page's status embed (none when empty).
    pub embed_origins: Vec<String>,
    /// Its own look.
    #[serde(skip)]
    pub brand: Brand,
    /// The languages it is read in (the default among them).
    #[serde(skip)]
    pub languages: Vec<crate::domain::lang::Lang>,
    /// The language a reader who asks for none of the others gets, and the v2 JSON's.
    #[serde(skip)]
    pub default_language: crate::domain::lang::Lang,
}

/// A page's own look, ready to render: what its settings say, checked when they were taken.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Brand {
    /// The brand colour (checked: readable on white).
    pub color: Option<crate::domain::brand::BrandColor>,
    pub theme: crate::domain::Theme,
    pub header_links: Vec<crate::domain::brand::HeaderLink>,
    /// The footer: its Markdown rendered as sanitised HTML.
    pub footer: Option<String>,
    pub custom_css: Option<String>,
    pub logo: Option<BrandImage>,
    pub favicon: Option<BrandImage>,
    /// The page's own stylesheet (made by [`Brand::with_stylesheet`]).
    pub stylesheet: Option<Stylesheet>,
}

impl Brand {
    /// The same look with its stylesheet made: the brand colour in both themes, then the
    /// custom CSS; none when it has neither.
    pub fn with_stylesheet(mut self) -> Self {
        let text = crate::domain::brand::stylesheet(self.color, self.custom_css.as_deref());
        self.stylesheet = (!text.is_empty()).then(|| {
            use sha2::Digest;
            let digest = hex::encode(&sha2::Sha256::digest(text.as_bytes())[..8]);
            Stylesheet {
                file_name: format!("brand.{digest}.css"),
                text,
            }
        });
        self
    }
}

/// A page's own stylesheet, served below the page under a name that changes with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stylesheet {
    pub file_name: String,
    pub text: String,
}

/// An image a page carries, as served.
#[derive(Debug, Clone, PartialEq)]
pub struct BrandImage {
    pub kind: crate::domain::image::ImageKind,
    pub bytes: bytes::Bytes,
    /// SHA-256 of the bytes, hex.
    pub digest: String,
}

impl BrandImage {
    /// Its file name below the page (`logo.3f9a1c2b4d5e6f70.svg`): a new image is a new name,
    /// so it can be cached forever.
    pub fn file_name(&self, stem: &str) -> String {
        image_file_name(stem, self.kind, &self.digest)
    }
}

/// The file name below its page of an image of `kind` whose SHA-256 (hex) is `digest`.
pub fn image_file_name(stem: &str, kind: crate::domain::image::ImageKind, digest: &str) -> String {
    let short = digest.get(..16).unwrap_or(digest);
    format!("{stem}.{short}.{}", kind.extension())
}

fn serialize_tz<S: serde::Serializer>(tz: &Tz, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tz.name())
}

/// A component group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupInfo {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub position: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Its components, in display order.
    pub component_ids: Vec<String>,
}

/// A component with its uptime bar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentInfo {
    pub id: String,
    pub group_id: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub position: i32,
    pub region: Option<String>,
    pub status: ComponentStatus,
    pub showcase: bool,
    /// Marked as meaning "signing in" (see the support form).
    pub signin: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// `UPTIME_DAYS` days ending with the day of `as_of` (UTC).
    pub uptime: UptimeBar,
    /// Per day of the bar, the ids of the incidents that affected this component that day.
    pub incidents_by_day: Vec<Vec<String>>,
    /// Set when the component mirrors a vendor's.
    pub vendor: Option<VendorInfo>,
    /// What the bar was computed from (the day, the status history, the incidents felt), so
    /// a later read of the page with the same reuses the bar instead of computing it again.
    #[serde(skip)]
    pub bar_source: u64,
}

/// An incident, advisory or maintenance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentInfo {
    pub id: String,
    pub reference: String,
    pub name: String,
    pub kind: IncidentKind,
    pub impact: Impact,
    pub status: LifecycleStatus,
    pub user_impact: Option<String>,
    pub scope: Option<String>,
    pub root_cause: Option<String>,
    pub started_at: DateTime<Utc>,
    pub identified_at: Option<DateTime<Utc>>,
    pub monitoring_at: Option<DateTime<Utc>>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub scheduled_for: Option<DateTime<Utc>>,
    pub scheduled_until: Option<DateTime<Utc>>,
    pub auto_transition: bool,
    /// The latest update's deadline (meaningful only while the incident is open).
    pub next_update_by: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Updates, newest first.
    pub updates: Vec<UpdateInfo>,
    pub affected_components: Vec<AffectedComponent>,
    /// Only a published postmortem appears here.
    pub postmortem: Option<PostmortemInfo>,
    /// Absolute URL of the incident's public page.
    pub url: String,
    /// Its name in the page's other languages.
    #[serde(skip)]
    pub names: BTreeMap<Lang, String>,
}

/// Text a responder wrote in Markdown, with its sanitised HTML.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prose {
    pub markdown: String,
    pub html: String,
}

impl Prose {
    /// `markdown` and its HTML.
    pub fn new(markdown: &str) -> Self {
        Self {
            markdown: markdown.to_owned(),
            html: crate::domain::markdown::to_safe_html(markdown),
        }
    }
}

/// A field of stored translations as [`Prose`] by language.
pub fn translated_prose(stored: &str, field: &str) -> BTreeMap<Lang, Prose> {
    let translations = crate::domain::translation::read(stored);
    crate::domain::translation::field(&translations, field)
        .into_iter()
        .map(|(lang, text)| (lang, Prose::new(&text)))
        .collect()
}

/// A component an incident affects, with the status the incident gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AffectedComponent {
    pub id: String,
    pub name: String,
    /// Where it runs, when set: people read [`AffectedComponent::label`].
    pub region: Option<String>,
    /// What the incident's own updates last set it to ([`status_in_incident`]); `None` for an
    /// ended incident that never set it. Never today's status from another incident.
    pub status: Option<ComponentStatus>,
}

impl AffectedComponent {
    /// The name people read: with the region, so that two components of one name differ.
    pub fn label(&self) -> String {
        crate::domain::component_label(&self.name, self.region.as_deref())
    }
}

/// The status an incident shows for a component it affects: the newest status one of its
/// `updates` (newest first) set; when none did, the live status while the incident is `open`
/// (it affects the component now), and nothing once it has ended.
pub fn status_in_incident(
    updates: &[UpdateInfo],
    component_id: &str,
    open: bool,
    live: ComponentStatus,
) -> Option<ComponentStatus> {
    updates
        .iter()
        .flat_map(|u| &u.changes)
        .find(|c| c.component_id == component_id)
        .map(|c| c.new_status)
        .or(open.then_some(live))
}

/// One update of an incident.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpdateInfo {
    pub id: String,
    pub status: LifecycleStatus,
    /// Markdown as written.
    pub body: String,
    /// The body rendered to sanitized HTML.
    pub body_html: String,
    pub next_update_by: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub changes: Vec<ComponentChange>,
    /// Whether subscribers were told of it (`notify`; Statuspage's `deliver_notifications`).
    pub notify: bool,
    /// Its body in the page's other languages.
    #[serde(skip)]
    pub bodies: BTreeMap<Lang, Prose>,
}

/// A component status change made by an update.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentChange {
    pub component_id: String,
    pub component_name: String,
    pub old_status: ComponentStatus,
    pub new_status: ComponentStatus,
}

/// A published postmortem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PostmortemInfo {
    pub summary: String,
    pub summary_html: String,
    pub root_cause: String,
    pub root_cause_html: String,
    pub scope_figures: Vec<ScopeFigure>,
    /// UTC, in time order.
    pub timeline: Vec<TimelineEntry>,
    pub follow_ups: Vec<FollowUpInfo>,
    pub published_at: DateTime<Utc>,
    /// Its summary and root cause in the page's other languages.
    #[serde(skip)]
    pub summaries: BTreeMap<Lang, Prose>,
    #[serde(skip)]
    pub root_causes: BTreeMap<Lang, Prose>,
}

/// A follow-up action of a postmortem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FollowUpInfo {
    pub description: String,
    pub owner: Option<String>,
    pub state: FollowUpState,
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

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentStatus::*;

    fn update(changes: &[(&str, ComponentStatus)]) -> UpdateInfo {
        let at = DateTime::<Utc>::UNIX_EPOCH;
        UpdateInfo {
            bodies: Default::default(),
            id: "u".into(),
            status: LifecycleStatus::Incident(crate::domain::IncidentStatus::Investigating),
            body: String::new(),
            body_html: String::new(),
            next_update_by: None,
            created_at: at,
            updated_at: at,
            changes: changes
                .iter()
                .map(|&(id, new_status)| ComponentChange {
                    component_id: id.into(),
                    component_name: id.into(),
                    old_status: Operational,
                    new_status,
                })
                .collect(),
            notify: true,
        }
    }

    #[test]
    fn the_newest_status_the_incident_set_wins_over_the_live_one() {
        // Newest first: the resolution set Operational after an outage.
        let updates = [
            update(&[("api", Operational)]),
            update(&[("web", DegradedPerformance)]),
            update(&[("api", MajorOutage)]),
        ];
        // Today another incident has the API down: this one still shows what it set.
        assert_eq!(
            status_in_incident(&updates, "api", false, PartialOutage),
            Some(Operational)
        );
        assert_eq!(
            status_in_incident(&updates, "web", true, MajorOutage),
            Some(DegradedPerformance)
        );
    }

    #[test]
    fn a_component_never_set_shows_live_while_open_and_nothing_once_ended() {
        let updates = [update(&[("api", MajorOutage)])];
        assert_eq!(
            status_in_incident(&updates, "db", true, PartialOutage),
            Some(PartialOutage)
        );
        assert_eq!(
            status_in_incident(&updates, "db", false, PartialOutage),
            None
        );
        assert_eq!(status_in_incident(&[], "db", false, MajorOutage), None);
    }
}
