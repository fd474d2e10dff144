//! Building the incidents of a page's data: each incident's updates, affected components and
//! postmortem, keeping what an earlier read built from the same revision and the Markdown it
//! already sanitized.

use std::collections::HashMap;

use crate::db::DbConn;
use crate::db::models::components::Component;
use crate::db::models::incidents::{Incident, IncidentUpdate};
use crate::db::models::public;
use crate::domain::lang::Lang;
use crate::domain::markdown::to_safe_html;
use crate::domain::{ComponentStatus, IncidentId};
use crate::error::AppResult;

use super::data::*;
use super::utc;

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

/// What an incident's record shows of its page (see [`ReadFrom::naming`]).
pub(super) fn naming<'a>(
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
pub(super) struct Earlier<'a>(
    HashMap<&'a str, (&'a IncidentInfo, i64)>,
    Option<&'a PageData>,
);

impl<'a> Earlier<'a> {
    pub(super) fn of(previous: Option<&'a PageData>, naming: u64) -> Self {
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

/// The incidents of `rows`: those an earlier read built from the same revision kept as they
/// were, the others read (their updates, changes, affected components, postmortems) and
/// built; with each one's revision.
pub(super) fn load_incidents(
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
