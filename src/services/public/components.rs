//! Reading a page's components (each one's row and status history, read again only when it
//! moved) and building their uptime bars and groups.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::db::DbConn;
use crate::db::models::components::{self, Component, ComponentGroup};
use crate::db::models::public;
use crate::domain::{self, ComponentId, IncidentKind, PageId, daily_uptime};
use crate::error::AppResult;

use super::data::*;
use super::utc;

/// The page's components as read from the database, in the page's order of positions: each
/// one's row and status history from `history_from` on, read again only when its revision
/// moved since `previous` read it from the same `history_from` (else kept from that read).
pub(super) fn read_components(
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

pub(super) fn component_infos<'h>(
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

pub(super) fn group_infos(
    groups: &[ComponentGroup],
    components: &[ComponentInfo],
) -> Vec<GroupInfo> {
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

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::component_infos;
    use crate::db::models::components::{Component, ComponentStatusChange};
    use crate::domain::{ComponentId, ComponentStatus, PageId};
    use crate::services::public::data::PageData;
    use crate::services::public::fixtures::page as fixture;

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
