//! Reading one status page's public data ([`PageData`]) for rendering: one visit to the database,
//! markdown rendered and sanitized once here, uptime bars computed from the status history.

use chrono::{DateTime, Days, NaiveDateTime, Utc};

use crate::db::DbConn;
use crate::db::models::components::{Component, list_groups};
use crate::db::models::pages::{self, StatusPage};
use crate::db::models::public;
use crate::domain::brand::BrandColor;
use crate::domain::{self, IncidentKind, LifecycleStatus, MaintenanceStatus, PageId};
use crate::error::{AppError, AppResult};
mod components;
pub mod data;
#[cfg(test)]
pub(crate) mod fixtures;
mod incidents;

use crate::domain::markdown::to_safe_html;
use components::{component_infos, group_infos, read_components};
use data::*;
use incidents::{Earlier, load_incidents, naming};

/// How far back incidents are kept in a page's data (history pages cover this window).
pub const HISTORY_DAYS: u64 = 366;

pub(super) fn utc(t: NaiveDateTime) -> DateTime<Utc> {
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
        let site_seq = public::site_seq(conn)?;
        let page = pages::find(conn, page_id)?;
        let info = page_info(conn, &page, base_url)?;
        let groups = list_groups(conn, page_id)?;
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
        let mut components =
            component_infos(&comps, &groups, history, &incidents, as_of, previous)?;
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
    })
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

/// Where a page is served: its own public URL or domain, else below Herald's base URL.
pub fn page_url(page: &StatusPage, base_url: &str) -> String {
    match (&page.public_url, &page.custom_domain) {
        (Some(url), _) => url.trim_end_matches('/').to_owned(),
        (None, Some(domain)) => format!("https://{domain}"),
        (None, None) => format!("{base_url}/status/{}", page.slug),
    }
}

fn page_info(conn: &mut DbConn, page: &StatusPage, base_url: &str) -> AppResult<PageInfo> {
    let path = format!("/status/{}", page.slug);
    let url = page_url(page, base_url);
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
        embed_look: crate::domain::embed::Look::read(&page.embed_look),
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

/// A page's id from its slug (404 when unknown).
pub fn page_id_by_slug(conn: &mut DbConn, slug: &str) -> AppResult<PageId> {
    pages::find_by_slug(conn, slug)?
        .map(|p| p.id)
        .ok_or_else(|| AppError::NotFound(format!("status page '{slug}'")))
}
