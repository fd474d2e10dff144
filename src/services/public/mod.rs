//! Reading one status page's public data ([`PageData`]) for rendering: one visit to the database,
//! markdown rendered and sanitized once here, uptime bars computed from the status history.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Days, NaiveDateTime, Utc};

use crate::db::DbConn;
use crate::db::models::components::{self, Component, ComponentGroup};
use crate::db::models::incidents::{Incident, IncidentUpdate};
use crate::db::models::pages::{self, StatusPage};
use crate::db::models::public;
use crate::domain::brand::BrandColor;
use crate::domain::lang::Lang;
use crate::domain::{
    self, ComponentId, ComponentStatus, IncidentId, IncidentKind, LifecycleStatus,
    MaintenanceStatus, PageId, daily_uptime,
};
use crate::error::{AppError, AppResult};
pub mod data;

use crate::domain::markdown::to_safe_html;
use data::*;

/// How far back incidents are kept in a page's data (history pages cover this window).
pub const HISTORY_DAYS: u64 = 366;

fn utc(t: NaiveDateTime) -> DateTime<Utc> {
    t.and_utc()
}

/// Reads everything the public representations of the page need, as of `as_of`, from one
/// snapshot of the database (a commit landing between two of its queries would otherwise show,
/// say, a new incident beside its components' old statuses).
pub fn load_page_data(
    conn: &mut DbConn,
    page_id: &PageId,
    as_of: DateTime<Utc>,
    base_url: &str,
) -> AppResult<PageData> {
    reload_page_data(conn, page_id, as_of, base_url, None)
}

/// [`load_page_data`], reusing the HTML of the Markdown `previous` (an earlier read of the
/// page) already holds: a read after a change sanitizes only the text that is new.
pub fn reload_page_data(
    conn: &mut DbConn,
    page_id: &PageId,
    as_of: DateTime<Utc>,
    base_url: &str,
    previous: Option<&PageData>,
) -> AppResult<PageData> {
    crate::db::read_snapshot(conn, |conn| {
        load_snapshot(conn, page_id, as_of, base_url, previous)
    })
}

/// Markdown whose sanitized HTML an earlier read of the page made, by its text.
#[derive(Default)]
struct KnownProse<'a>(HashMap<&'a str, &'a str>);

impl<'a> KnownProse<'a> {
    /// The prose of the incidents of `data` that `wanted` names.
    fn of(data: &'a PageData, wanted: impl Fn(&str) -> bool) -> Self {
        let mut known = HashMap::new();
        let mut add = |md: &'a str, html: &'a str| {
            known.insert(md, html);
        };
        let events = data.incidents.iter().chain(&data.maintenances);
        for event in events.filter(|e| wanted(&e.id)) {
            for update in &event.updates {
                add(&update.body, &update.body_html);
                update
                    .bodies
                    .values()
                    .for_each(|p| add(&p.markdown, &p.html));
            }
            if let Some(pm) = &event.postmortem {
                add(&pm.summary, &pm.summary_html);
                add(&pm.root_cause, &pm.root_cause_html);
                for prose in pm.summaries.values().chain(pm.root_causes.values()) {
                    add(&prose.markdown, &prose.html);
                }
            }
        }
        Self(known)
    }

    /// The sanitized HTML of `markdown`.
    fn html(&self, markdown: &str) -> String {
        match self.0.get(markdown) {
            Some(html) => (*html).to_owned(),
            None => to_safe_html(markdown),
        }
    }

    /// A field of stored translations as [`Prose`] by language.
    fn translated(&self, stored: &str, field: &str) -> std::collections::BTreeMap<Lang, Prose> {
        let translations = crate::domain::translation::read(stored);
        crate::domain::translation::field(&translations, field)
            .into_iter()
            .map(|(lang, text)| {
                let html = self.html(&text);
                (
                    lang,
                    Prose {
                        markdown: text,
                        html,
                    },
                )
            })
            .collect()
    }
}

fn load_snapshot(
    conn: &mut DbConn,
    page_id: &PageId,
    as_of: DateTime<Utc>,
    base_url: &str,
    previous: Option<&PageData>,
) -> AppResult<PageData> {
    let site_seq = public::site_seq(conn)?;
    let page = pages::find(conn, page_id)?;
    let info = page_info(conn, &page, base_url)?;
    let groups = components::list_groups(conn, page_id)?;
    let bar_start = as_of
        .date_naive()
        .checked_sub_days(Days::new(u64::from(UPTIME_DAYS)))
        .unwrap_or_default();
    let since = as_of.naive_utc() - chrono::Duration::days(HISTORY_DAYS as i64);
    let history_from = bar_start.and_hms_opt(0, 0, 0).unwrap_or(since);
    let read = read_components(conn, page_id, history_from, previous)?;
    let comps: Vec<&Component> = read.iter().map(|r| r.row.as_ref()).collect();
    let history = read.iter().flat_map(|r| r.history.iter());
    let rows = public::incidents_since(
        conn,
        page_id,
        since.min(bar_start.and_hms_opt(0, 0, 0).unwrap_or(since)),
    )?;
    let naming = naming(
        &info,
        comps
            .iter()
            .map(|c| (c.id.as_str(), &c.name, &c.region, c.position)),
    );
    let earlier = Earlier::of(previous, naming);
    let (incidents, revisions) = load_incidents(conn, &info, rows, &comps, &earlier)?;
    let mut components = component_infos(&comps, &groups, history, &incidents, as_of, previous)?;
    let vendor_incidents = vendors(conn, page_id, &mut components)?;
    let (maintenances, incidents): (Vec<_>, Vec<_>) = incidents
        .into_iter()
        .partition(|i| i.kind == IncidentKind::Maintenance);
    let mut maintenances = maintenances;
    maintenances.sort_by_key(|m| std::cmp::Reverse(m.scheduled_for));
    let status = rollup(&components, &incidents, &maintenances);
    let groups = group_infos(&groups, &components);
    Ok(PageData {
        page: info,
        as_of,
        stale_since: None,
        status,
        groups,
        components,
        incidents,
        maintenances,
        vendor_incidents,
        read_from: ReadFrom {
            incidents: revisions,
            naming,
            components: read
                .into_iter()
                .map(|r| (r.row.id.to_string(), r))
                .collect(),
            history_from: Some(history_from),
            site_seq: Some(site_seq),
        },
    })
}

/// The page's components as read from the database, in the page's order of positions: each
/// one's row and status history from `history_from` on, read again only when its revision
/// moved since `previous` read it from the same `history_from` (else kept from that read).
fn read_components(
    conn: &mut DbConn,
    page_id: &PageId,
    history_from: NaiveDateTime,
    previous: Option<&PageData>,
) -> AppResult<Vec<ComponentRead>> {
    let earlier_read = previous.filter(|p| p.read_from.history_from == Some(history_from));
    let earlier = earlier_read.map(|p| &p.read_from.components);
    let since = earlier_read.and_then(|p| p.read_from.site_seq.zip(earlier));
    let revisions = match since {
        Some((seq, held)) => revisions_since(conn, page_id, seq, held)?,
        None => public::component_revisions(conn, page_id)?,
    };
    let mut read = Vec::with_capacity(revisions.len());
    let mut stale: HashMap<ComponentId, i64> = HashMap::new();
    for (id, revision) in revisions {
        match earlier
            .and_then(|e| e.get(id.as_str()))
            .filter(|r| r.revision == revision)
        {
            Some(kept) => read.push(kept.clone()),
            None => {
                stale.insert(id, revision);
            }
        }
    }
    if !stale.is_empty() {
        let ids: Vec<ComponentId> = stale.keys().cloned().collect();
        // The first read of a page reads it by page, not by a list of every id.
        let rows = match read.is_empty() {
            true => components::list_for_page(conn, page_id)?,
            false => public::components_by_id(conn, &ids)?,
        };
        let mut history: HashMap<ComponentId, Vec<components::ComponentStatusChange>> =
            HashMap::new();
        for change in public::status_history_of(conn, &ids, history_from)? {
            history
                .entry(change.component_id.clone())
                .or_default()
                .push(change);
        }
        for row in rows {
            let Some(revision) = stale.get(&row.id).copied() else {
                continue;
            };
            read.push(ComponentRead {
                revision,
                history: history.remove(&row.id).unwrap_or_default().into(),
                row: Arc::new(row),
            });
        }
    }
    read.sort_by(|a, b| (a.row.position, &a.row.id).cmp(&(b.row.position, &b.row.id)));
    Ok(read)
}

/// The revision of each of the page's components, from `held` (a read at the site's counter
/// `seq`) and the components that moved since: all of them read again only when one was
/// removed.
fn revisions_since(
    conn: &mut DbConn,
    page_id: &PageId,
    seq: i64,
    held: &HashMap<String, ComponentRead>,
) -> AppResult<Vec<(ComponentId, i64)>> {
    let (moved, count) = public::components_moved_since(conn, page_id, seq)?;
    let new = moved
        .iter()
        .filter(|(id, _)| !held.contains_key(id.as_str()))
        .count();
    if count as usize != held.len() + new {
        return Ok(public::component_revisions(conn, page_id)?);
    }
    let moved: HashMap<&str, i64> = moved.iter().map(|(id, r)| (id.as_str(), *r)).collect();
    let mut revisions: Vec<(ComponentId, i64)> = held
        .iter()
        .filter(|(id, _)| !moved.contains_key(id.as_str()))
        .map(|(id, read)| (ComponentId::from(id.as_str()), read.revision))
        .collect();
    revisions.extend(moved.into_iter().map(|(id, r)| (ComponentId::from(id), r)));
    Ok(revisions)
}

/// What an incident's record shows of its page (see [`ReadFrom::naming`]).
fn naming<'a>(
    page: &PageInfo,
    components: impl Iterator<Item = (&'a str, &'a String, &'a Option<String>, i32)>,
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut components: Vec<_> = components.collect();
    components.sort_unstable_by_key(|c| c.0);
    let mut hasher = std::hash::DefaultHasher::new();
    (&page.base_url, &page.path, components).hash(&mut hasher);
    hasher.finish()
}

/// The incidents an earlier read of the page built, with their revisions, when what their
/// records show of the page is the same now (else none: every incident is built again).
struct Earlier<'a>(
    HashMap<&'a str, (&'a IncidentInfo, i64)>,
    Option<&'a PageData>,
);

impl<'a> Earlier<'a> {
    fn of(previous: Option<&'a PageData>, naming: u64) -> Self {
        let Some(data) = previous else {
            return Self(HashMap::new(), None);
        };
        let was = naming_of(data);
        if data.read_from.naming != naming || was != naming {
            return Self(HashMap::new(), Some(data));
        }
        let kept = data
            .incidents
            .iter()
            .chain(&data.maintenances)
            .filter_map(|i| {
                let revision = data.read_from.incidents.get(&i.id)?;
                Some((i.id.as_str(), (i, *revision)))
            })
            .collect();
        Self(kept, Some(data))
    }

    /// The incident as read before, when it was built from the same `revision` (so from the
    /// same row) and shows nothing live (a closed incident does not show its components' live
    /// status).
    fn keep(&self, id: &IncidentId, revision: i64) -> Option<IncidentInfo> {
        let (info, was) = self.0.get(id.as_str())?;
        (*was == revision && !info.status.is_open()).then(|| (*info).clone())
    }
}

/// [`naming`] of the page data an earlier read made (from what it holds).
fn naming_of(data: &PageData) -> u64 {
    naming(
        &data.page,
        data.components
            .iter()
            .map(|c| (c.id.as_str(), &c.name, &c.region, c.position)),
    )
}

/// Marks the components that mirror a vendor's with where their status comes from, and
/// answers the vendors' incidents that name them (one entry per vendor incident, listing
/// every component of the page it concerns), newest first.
fn vendors(
    conn: &mut DbConn,
    page_id: &PageId,
    components: &mut [ComponentInfo],
) -> AppResult<Vec<VendorIncidentInfo>> {
    let mut incidents: Vec<(String, VendorIncidentInfo)> = Vec::new();
    for (mirror, source) in crate::db::models::mirrors::of_page(conn, page_id)? {
        let Some(component) = components
            .iter_mut()
            .find(|c| c.id == mirror.component_id.as_str())
        else {
            continue;
        };
        component.vendor = Some(VendorInfo {
            name: source.vendor_name.clone(),
            url: source.vendor_url.clone(),
            component: mirror.vendor_label.clone(),
            confirmed_at: source.confirmed_at.map(utc),
            failing_since: source.failing_since.map(utc),
            problem: mirror.problem.clone(),
        });
        for named in crate::services::mirrors::incidents_of(&mirror.incidents) {
            let key = format!("{}\n{}", source.url, named.id);
            match incidents.iter_mut().find(|(k, _)| *k == key) {
                Some((_, seen)) => seen.components.push(component.name.clone()),
                None => incidents.push((
                    key,
                    VendorIncidentInfo {
                        vendor: source.vendor_name.clone(),
                        vendor_url: source.vendor_url.clone(),
                        components: vec![component.name.clone()],
                        incident: named,
                    },
                )),
            }
        }
    }
    let mut incidents: Vec<VendorIncidentInfo> = incidents.into_iter().map(|(_, i)| i).collect();
    incidents.sort_by_key(|i| std::cmp::Reverse(i.incident.started_at));
    Ok(incidents)
}

fn page_info(conn: &mut DbConn, page: &StatusPage, base_url: &str) -> AppResult<PageInfo> {
    let path = format!("/status/{}", page.slug);
    let url = match (&page.public_url, &page.custom_domain) {
        (Some(url), _) => url.trim_end_matches('/').to_owned(),
        (None, Some(domain)) => format!("https://{domain}"),
        (None, None) => format!("{base_url}{path}"),
    };
    Ok(PageInfo {
        id: page.id.to_string(),
        slug: page.slug.clone(),
        name: page.name.clone(),
        description: page.description.clone(),
        url,
        base_url: base_url.to_owned(),
        path,
        time_zone: page.tz()?,
        support_email: page.support_email.clone(),
        created_at: utc(page.created_at),
        updated_at: utc(page.updated_at),
        embed_origins: crate::domain::embed::listed(&page.embed_origins),
        brand: brand(conn, page)?,
        languages: page.enabled_languages(),
        default_language: page.default_language,
    })
}

/// The page's look. Its settings were checked when they were taken; a stored colour that no
/// longer reads as one (only a hand-edited row) is left out rather than drawn.
fn brand(conn: &mut DbConn, page: &StatusPage) -> AppResult<Brand> {
    use crate::domain::ImageRole;
    use crate::domain::image::ImageKind;
    let mut brand = Brand {
        color: page
            .brand_color
            .as_deref()
            .and_then(|c| BrandColor::parse(c).ok()),
        theme: page.theme,
        header_links: crate::domain::brand::read_links(&page.header_links),
        footer: page
            .footer
            .as_deref()
            .filter(|f| !f.is_empty())
            .map(to_safe_html),
        custom_css: page.custom_css.clone().filter(|c| !c.is_empty()),
        logo: None,
        favicon: None,
        stylesheet: None,
    };
    for image in crate::db::models::images::for_page(conn, &page.id)? {
        let Some(kind) = ImageKind::from_content_type(&image.content_type) else {
            continue;
        };
        let served = Some(BrandImage {
            kind,
            bytes: image.data.into(),
            digest: image.digest,
        });
        match image.kind {
            ImageRole::Logo => brand.logo = served,
            ImageRole::Favicon => brand.favicon = served,
        }
    }
    Ok(brand.with_stylesheet())
}

fn rollup(
    components: &[ComponentInfo],
    incidents: &[IncidentInfo],
    maintenances: &[IncidentInfo],
) -> domain::PageStatus {
    let statuses: Vec<_> = components.iter().map(|c| c.status).collect();
    let impacts: Vec<_> = incidents
        .iter()
        .filter(|i| i.status.is_open())
        .map(|i| i.impact)
        .collect();
    let in_progress = maintenances.iter().any(|m| {
        matches!(
            m.status,
            LifecycleStatus::Maintenance(
                MaintenanceStatus::InProgress | MaintenanceStatus::Verifying
            )
        )
    });
    domain::page_status(&statuses, &impacts, in_progress)
}

/// The incidents of `rows`: those an earlier read built from the same revision kept as they
/// were, the others read (their updates, changes, affected components, postmortems) and
/// built; with each one's revision.
fn load_incidents(
    conn: &mut DbConn,
    page: &PageInfo,
    rows: Vec<(IncidentId, i64)>,
    comps: &[&Component],
    earlier: &Earlier<'_>,
) -> AppResult<(Vec<IncidentInfo>, HashMap<String, i64>)> {
    let revisions: HashMap<String, i64> = rows
        .iter()
        .map(|(id, revision)| (id.to_string(), *revision))
        .collect();
    let kept: Vec<Option<IncidentInfo>> = rows
        .iter()
        .map(|(id, revision)| earlier.keep(id, *revision))
        .collect();
    let ids: Vec<IncidentId> = rows
        .iter()
        .zip(&kept)
        .filter(|(_, kept)| kept.is_none())
        .map(|((id, _), _)| id.clone())
        .collect();
    if ids.is_empty() {
        return Ok((kept.into_iter().flatten().collect(), revisions));
    }
    let mut fresh: HashMap<IncidentId, Incident> = public::incidents_by_id(conn, &ids)?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    let wanted: std::collections::HashSet<&str> = ids.iter().map(IncidentId::as_str).collect();
    let known = earlier
        .1
        .map(|data| KnownProse::of(data, |id| wanted.contains(id)))
        .unwrap_or_default();
    let known = &known;
    let updates = public::updates_of(conn, &ids)?;
    let update_ids: Vec<String> = updates.iter().map(|u| u.id.clone()).collect();
    let mut changes: HashMap<String, Vec<ComponentChange>> = HashMap::new();
    let names: HashMap<&str, &Component> = comps.iter().map(|c| (c.id.as_str(), *c)).collect();
    for change in public::update_changes_of(conn, &update_ids)? {
        let name = names
            .get(change.component_id.as_str())
            .map(|c| c.name.clone())
            .unwrap_or_default();
        changes
            .entry(change.incident_update_id.clone())
            .or_default()
            .push(ComponentChange {
                component_id: change.component_id.to_string(),
                component_name: name,
                old_status: change.old_status,
                new_status: change.new_status,
            });
    }
    // Each affected component with its live status, until the incident's own updates are known.
    let mut affected: HashMap<IncidentId, Vec<(AffectedComponent, ComponentStatus)>> =
        HashMap::new();
    for (incident_id, component_id) in public::affected_of(conn, &ids)? {
        if let Some(c) = names.get(component_id.as_str()) {
            affected.entry(incident_id).or_default().push((
                AffectedComponent {
                    id: c.id.to_string(),
                    name: c.name.clone(),
                    region: c.region.clone(),
                    status: None,
                },
                c.status,
            ));
        }
    }
    let mut postmortems = load_postmortems(conn, &ids, known)?;
    let mut by_incident: HashMap<IncidentId, Vec<IncidentUpdate>> = HashMap::new();
    for update in updates {
        by_incident
            .entry(update.incident_id.clone())
            .or_default()
            .push(update);
    }
    let incidents = rows
        .iter()
        .zip(kept)
        .filter_map(|((id, _), kept)| {
            if let Some(kept) = kept {
                return Some(Ok(kept));
            }
            let row = fresh.remove(id)?;
            let updates = by_incident.remove(&row.id).unwrap_or_default();
            let mut affected = affected.remove(&row.id).unwrap_or_default();
            affected.sort_by_key(|(a, _)| names.get(a.id.as_str()).map(|c| c.position));
            let postmortem = postmortems.remove(&row.id);
            Some(incident_info(
                page,
                row,
                updates,
                &mut changes,
                affected,
                postmortem,
                known,
            ))
        })
        .collect::<AppResult<Vec<_>>>()?;
    Ok((incidents, revisions))
}

fn incident_info(
    page: &PageInfo,
    row: Incident,
    updates: Vec<IncidentUpdate>,
    changes: &mut HashMap<String, Vec<ComponentChange>>,
    affected: Vec<(AffectedComponent, ComponentStatus)>,
    postmortem: Option<PostmortemInfo>,
    known: &KnownProse<'_>,
) -> AppResult<IncidentInfo> {
    let kind = row.kind;
    let updates = updates
        .into_iter()
        .map(|u| {
            Ok(UpdateInfo {
                status: u.status,
                body_html: known.html(&u.body),
                next_update_by: u.next_update_by.map(utc),
                created_at: utc(u.created_at),
                updated_at: utc(u.updated_at),
                changes: changes.remove(&u.id).unwrap_or_default(),
                notify: u.notify,
                bodies: known.translated(&u.translations, "body"),
                id: u.id,
                body: u.body,
            })
        })
        .collect::<AppResult<Vec<_>>>()?;
    let status = row.status;
    let affected_components = affected
        .into_iter()
        .map(|(a, live)| AffectedComponent {
            status: status_in_incident(&updates, &a.id, status.is_open(), live),
            ..a
        })
        .collect();
    Ok(IncidentInfo {
        url: format!("{}{}/incidents/{}", page.base_url, page.path, row.id),
        kind,
        impact: row.impact,
        status,
        started_at: utc(row.started_at),
        identified_at: row.identified_at.map(utc),
        monitoring_at: row.monitoring_at.map(utc),
        resolved_at: row.resolved_at.map(utc),
        scheduled_for: row.scheduled_for.map(utc),
        scheduled_until: row.scheduled_until.map(utc),
        auto_transition: row.auto_transition,
        next_update_by: row.next_update_by.map(utc),
        created_at: utc(row.created_at),
        updated_at: utc(row.updated_at),
        updates,
        affected_components,
        postmortem,
        names: crate::domain::translation::field(
            &crate::domain::translation::read(&row.translations),
            "name",
        ),
        id: row.id.into(),
        reference: row.reference,
        name: row.name,
        user_impact: row.user_impact,
        scope: row.scope,
        root_cause: row.root_cause,
    })
}

fn load_postmortems(
    conn: &mut DbConn,
    incident_ids: &[IncidentId],
    known: &KnownProse<'_>,
) -> AppResult<HashMap<IncidentId, PostmortemInfo>> {
    let rows = public::published_postmortems_of(conn, incident_ids)?;
    let ids: Vec<String> = rows.iter().map(|p| p.id.clone()).collect();
    let mut timelines: HashMap<String, Vec<_>> = HashMap::new();
    for entry in public::timelines_of(conn, &ids)? {
        timelines
            .entry(entry.postmortem_id.clone())
            .or_default()
            .push(entry.entry());
    }
    let mut follow_ups: HashMap<String, Vec<FollowUpInfo>> = HashMap::new();
    for f in public::follow_ups_of(conn, &ids)? {
        let info = FollowUpInfo {
            state: f.state,
            description: f.description.clone(),
            owner: f.owner.clone(),
        };
        follow_ups.entry(f.postmortem_id).or_default().push(info);
    }
    rows.into_iter()
        .map(|p| {
            let info = PostmortemInfo {
                summary_html: known.html(&p.summary),
                root_cause_html: known.html(&p.root_cause),
                scope_figures: p.scope_figures()?,
                timeline: timelines.remove(&p.id).unwrap_or_default(),
                follow_ups: follow_ups.remove(&p.id).unwrap_or_default(),
                published_at: p.published_at.map(utc).unwrap_or_else(|| utc(p.updated_at)),
                summaries: known.translated(&p.translations, "summary"),
                root_causes: known.translated(&p.translations, "root_cause"),
                summary: p.summary,
                root_cause: p.root_cause,
            };
            Ok((p.incident_id, info))
        })
        .collect()
}

fn component_infos<'h>(
    comps: &[&Component],
    groups: &[ComponentGroup],
    history: impl IntoIterator<Item = &'h components::ComponentStatusChange>,
    incidents: &[IncidentInfo],
    as_of: DateTime<Utc>,
    previous: Option<&PageData>,
) -> AppResult<Vec<ComponentInfo>> {
    let mut by_component: HashMap<&str, Vec<(DateTime<Utc>, domain::ComponentStatus)>> =
        HashMap::new();
    for change in history {
        by_component
            .entry(change.component_id.as_str())
            .or_default()
            .push((utc(change.changed_at), change.new_status));
    }
    let group_pos: HashMap<&str, i32> =
        groups.iter().map(|g| (g.id.as_str(), g.position)).collect();
    let felt = felt_by_component(incidents, as_of);
    let earlier: HashMap<&str, &ComponentInfo> = previous
        .map(|p| p.components.iter().map(|c| (c.id.as_str(), c)).collect())
        .unwrap_or_default();
    let mut infos = comps
        .iter()
        .map(|c| {
            let changes = by_component.remove(c.id.as_str()).unwrap_or_default();
            let felt = felt.get(c.id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
            let bar_source = bar_source(as_of, &changes, felt);
            let (uptime, incidents_by_day) = match earlier.get(c.id.as_str()) {
                Some(was) if was.bar_source == bar_source => {
                    (was.uptime.clone(), was.incidents_by_day.clone())
                }
                _ => {
                    let uptime = daily_uptime(&changes, as_of, UPTIME_DAYS);
                    let by_day = uptime
                        .days
                        .iter()
                        .map(|d| incidents_on(felt, d.date))
                        .collect();
                    (uptime, by_day)
                }
            };
            Ok(ComponentInfo {
                id: c.id.to_string(),
                group_id: c.group_id.as_ref().map(ToString::to_string),
                name: c.name.clone(),
                description: c.description.clone(),
                position: c.position,
                region: c.region.clone(),
                status: c.status,
                showcase: c.showcase,
                signin: c.signin,
                created_at: utc(c.created_at),
                updated_at: utc(c.updated_at),
                uptime,
                incidents_by_day,
                vendor: None,
                bar_source,
            })
        })
        .collect::<AppResult<Vec<_>>>()?;
    let key = |c: &ComponentInfo| match c.group_id.as_deref().and_then(|g| group_pos.get(g)) {
        Some(gp) => (*gp, 1, c.position),
        None => (c.position, 0, 0),
    };
    infos.sort_by_key(|c| key(c));
    Ok(infos)
}

/// What a component's uptime bar is computed from: the day of `as_of` (the bar's last day; a
/// day's figures do not change with the time within today, which shows no percentage), its
/// status history and the incidents it felt. Two reads with the same have the same bar.
fn bar_source(
    as_of: DateTime<Utc>,
    changes: &[(DateTime<Utc>, domain::ComponentStatus)],
    felt: &[Felt<'_>],
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    as_of.date_naive().hash(&mut hasher);
    changes.hash(&mut hasher);
    // A change stamped after `as_of` (another process's clock) is not yet in today's figures.
    changes
        .iter()
        .filter(|(at, _)| *at > as_of)
        .count()
        .hash(&mut hasher);
    felt.hash(&mut hasher);
    hasher.finish()
}

/// An incident felt by a component: its id and when it began and ended (`as_of` while open).
type Felt<'a> = (&'a str, DateTime<Utc>, DateTime<Utc>);

/// For each component, the incidents that affected it within the uptime bars' days, so a
/// day's incidents are found among the component's own (not among every incident of the
/// year, for every day of every component).
fn felt_by_component(
    incidents: &[IncidentInfo],
    as_of: DateTime<Utc>,
) -> HashMap<&str, Vec<Felt<'_>>> {
    let bar_start = as_of - chrono::Duration::days(i64::from(UPTIME_DAYS) + 1);
    let mut felt: HashMap<&str, Vec<Felt<'_>>> = HashMap::new();
    for i in incidents {
        let (from, to) = match i.kind {
            IncidentKind::Maintenance => (
                i.scheduled_for.unwrap_or(i.started_at),
                i.resolved_at.or(i.scheduled_until),
            ),
            _ => (i.started_at, i.resolved_at),
        };
        let to = to.unwrap_or(as_of);
        if to < bar_start {
            continue;
        }
        for a in &i.affected_components {
            felt.entry(a.id.as_str())
                .or_default()
                .push((i.id.as_str(), from, to));
        }
    }
    felt
}

/// Ids of the incidents of `felt` affecting their component at some point of `day` (UTC).
fn incidents_on(felt: &[Felt<'_>], day: chrono::NaiveDate) -> Vec<String> {
    let start = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    let end = start + chrono::Duration::days(1);
    felt.iter()
        .filter(|(_, from, to)| *from < end && *to >= start)
        .map(|(id, _, _)| (*id).to_owned())
        .collect()
}

fn group_infos(groups: &[ComponentGroup], components: &[ComponentInfo]) -> Vec<GroupInfo> {
    groups
        .iter()
        .map(|g| GroupInfo {
            id: g.id.to_string(),
            name: g.name.clone(),
            description: g.description.clone(),
            position: g.position,
            created_at: utc(g.created_at),
            updated_at: utc(g.updated_at),
            component_ids: components
                .iter()
                .filter(|c| c.group_id.as_deref() == Some(g.id.as_str()))
                .map(|c| c.id.clone())
                .collect(),
        })
        .collect()
}

/// A page's id from its slug (404 when unknown).
pub fn page_id_by_slug(conn: &mut DbConn, slug: &str) -> AppResult<PageId> {
    pages::find_by_slug(conn, slug)?
        .map(|p| p.id)
        .ok_or_else(|| AppError::NotFound(format!("status page '{slug}'")))
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::component_infos;
    use crate::db::models::components::{Component, ComponentStatusChange};
    use crate::domain::{ComponentId, ComponentStatus, PageId};
    use crate::render::html::fixture;
    use crate::services::public::data::PageData;

    fn component(id: &str, created: chrono::NaiveDateTime) -> Component {
        Component {
            id: ComponentId::from(id),
            page_id: PageId::from("p"),
            group_id: None,
            name: id.to_owned(),
            description: None,
            position: 0,
            region: None,
            status: ComponentStatus::Operational,
            showcase: true,
            created_at: created,
            updated_at: created,
            signin: false,
        }
    }

    fn change(id: &str, at: chrono::NaiveDateTime, to: ComponentStatus) -> ComponentStatusChange {
        ComponentStatusChange {
            id: format!("{id}-{at}"),
            component_id: ComponentId::from(id),
            old_status: None,
            new_status: to,
            incident_id: None,
            changed_at: at,
        }
    }

    #[test]
    fn a_bar_is_reused_only_when_its_day_and_history_are_the_same() {
        let as_of = Utc.with_ymd_and_hms(2026, 12, 6, 12, 0, 0).unwrap();
        let long_ago = (as_of - Duration::days(400)).naive_utc();
        let outage = (as_of - Duration::days(3)).naive_utc();
        let rows = [component("a", long_ago), component("b", long_ago)];
        let comps: Vec<&Component> = rows.iter().collect();
        let history = || {
            vec![
                change("a", long_ago, ComponentStatus::Operational),
                change("b", long_ago, ComponentStatus::Operational),
                change("b", outage, ComponentStatus::MajorOutage),
                change(
                    "b",
                    outage + Duration::hours(2),
                    ComponentStatus::Operational,
                ),
            ]
        };
        let first = component_infos(&comps, &[], &history(), &[], as_of, None).unwrap();
        let mut previous: PageData = fixture::page();
        previous.components = first.clone();

        // The same history later the same day: the bars are the ones computed before.
        let later = as_of + Duration::hours(3);
        let again = component_infos(&comps, &[], &history(), &[], later, Some(&previous)).unwrap();
        assert_eq!(again, first);
        let fresh = component_infos(&comps, &[], &history(), &[], later, None).unwrap();
        assert_eq!(again, fresh, "what is reused is what would be computed");

        // A change to b's history: b's bar is computed again, a's is kept.
        let mut changed = history();
        changed.push(change(
            "b",
            (later - Duration::hours(1)).naive_utc(),
            ComponentStatus::DegradedPerformance,
        ));
        let after = component_infos(&comps, &[], &changed, &[], later, Some(&previous)).unwrap();
        assert_eq!(after[0].uptime, first[0].uptime);
        assert_ne!(after[1].bar_source, first[1].bar_source);
        assert_eq!(
            after,
            component_infos(&comps, &[], &changed, &[], later, None).unwrap()
        );

        // The next day every bar moves on.
        let tomorrow = as_of + Duration::days(1);
        let next =
            component_infos(&comps, &[], &history(), &[], tomorrow, Some(&previous)).unwrap();
        assert_ne!(next[0].uptime.days, first[0].uptime.days);
        assert_eq!(
            next,
            component_infos(&comps, &[], &history(), &[], tomorrow, None).unwrap()
        );
    }
}
