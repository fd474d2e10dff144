//! Steps shared by opening an incident and posting an update: checking the component map,
//! writing component changes, restoring components on resolve, milestone times and the
//! next-update deadline.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::db::DbConn;
use crate::db::models::components::{self, Component};
use crate::db::models::incidents::{self, Incident, IncidentUpdateComponent};
use crate::domain::{
    ComponentId, ComponentStatus, Impact, IncidentStatus, LifecycleStatus, MaintenanceStatus,
    NextUpdateIntervals, PageId, default_next_update_by, validate_next_update_by,
};
use crate::error::AppResult;
use crate::services::components::apply_status;
use crate::services::pages::FieldCheck;

/// Component id → the status an update gives it (Statuspage's `components` field).
pub type ComponentMap = BTreeMap<String, ComponentStatus>;

/// The page's components named in `map` with their new statuses; an id that is not a component
/// of the page is recorded as an error on `components.<id>`.
pub fn page_components(
    conn: &mut DbConn,
    check: &mut FieldCheck,
    page_id: &PageId,
    map: &ComponentMap,
) -> AppResult<Vec<(Component, ComponentStatus)>> {
    let ids: Vec<&str> = map.keys().map(String::as_str).collect();
    let found = components::find_on_page(conn, page_id, &ids)?;
    let mut changes = Vec::with_capacity(map.len());
    for (id, &status) in map {
        match found.iter().find(|c| c.id == id.as_str()) {
            Some(component) => changes.push((component.clone(), status)),
            None => check.add(
                format!("components.{id}"),
                "is not a component of this page",
            ),
        }
    }
    Ok(changes)
}

/// Writes the component changes of one update: the component's status with its history row
/// (tagged with the incident), the update's old → new row and the affected-components entry.
pub fn apply_changes(
    conn: &mut DbConn,
    incident: &Incident,
    update_id: &str,
    changes: Vec<(Component, ComponentStatus)>,
    at: NaiveDateTime,
) -> AppResult<Vec<IncidentUpdateComponent>> {
    let mut rows = Vec::with_capacity(changes.len());
    for (component, new) in changes {
        let old = component.status;
        apply_status(conn, &component, new, Some(&incident.id), at)?;
        let row = IncidentUpdateComponent {
            incident_update_id: update_id.to_owned(),
            component_id: component.id.clone(),
            old_status: old,
            new_status: new,
        };
        incidents::insert_update_component(conn, &row)?;
        incidents::add_affected_component(conn, &incident.id, &component.id)?;
        rows.push(row);
    }
    Ok(rows)
}

/// The components to bring back to operational when `incident` closes without explicit
/// component changes: those it affected that are not operational, unless another open
/// incident of the page also affects them.
pub fn restorations(
    conn: &mut DbConn,
    incident: &Incident,
) -> AppResult<Vec<(Component, ComponentStatus)>> {
    let ids = incidents::affected_component_ids(conn, &incident.id)?;
    let ids: Vec<&str> = ids.iter().map(ComponentId::as_str).collect();
    let mut restore = Vec::new();
    for component in components::find_on_page(conn, &incident.page_id, &ids)? {
        if component.status == ComponentStatus::Operational
            || incidents::affected_by_other_open(
                conn,
                &incident.page_id,
                &component.id,
                &incident.id,
            )?
        {
            continue;
        }
        restore.push((component, ComponentStatus::Operational));
    }
    Ok(restore)
}

/// The impact implied by component statuses, as Statuspage infers it when none is given:
/// degraded → minor, partial outage → major, major outage → critical.
pub fn impact_of(changes: &[(Component, ComponentStatus)]) -> Impact {
    let severity = |status: ComponentStatus| match status {
        ComponentStatus::Operational | ComponentStatus::UnderMaintenance => Impact::None,
        ComponentStatus::DegradedPerformance => Impact::Minor,
        ComponentStatus::PartialOutage => Impact::Major,
        ComponentStatus::MajorOutage => Impact::Critical,
    };
    changes
        .iter()
        .map(|&(_, status)| severity(status))
        .max()
        .unwrap_or(Impact::None)
}

/// The deadline an update promises: a chosen time must be in the next seven days and is refused
/// once closed; without one, incidents and advisories get the page's interval for their impact
/// and maintenances get none.
pub fn next_update_by(
    given: Option<DateTime<Utc>>,
    status: LifecycleStatus,
    impact: Impact,
    intervals: &NextUpdateIntervals,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, String> {
    match (given, status) {
        (Some(_), status) if !status.is_open() => Err(format!(
            "a {} update promises no next update; leave it empty",
            status.as_str()
        )),
        (Some(deadline), _) => validate_next_update_by(deadline, now)
            .map(|()| Some(deadline))
            .map_err(|e| e.to_string()),
        (None, LifecycleStatus::Incident(status)) => {
            Ok(default_next_update_by(impact, status, intervals, now))
        }
        (None, LifecycleStatus::Maintenance(_)) => Ok(None),
    }
}

/// The milestone times of an incident.
#[derive(Debug, Clone, Copy)]
pub struct Milestones {
    pub started_at: NaiveDateTime,
    pub identified_at: Option<NaiveDateTime>,
    pub monitoring_at: Option<NaiveDateTime>,
    pub resolved_at: Option<NaiveDateTime>,
}

impl Milestones {
    /// The milestones stored on `incident`.
    pub fn of(incident: &Incident) -> Self {
        Self {
            started_at: incident.started_at,
            identified_at: incident.identified_at,
            monitoring_at: incident.monitoring_at,
            resolved_at: incident.resolved_at,
        }
    }

    /// The milestones after moving from `from` (`None` for a new incident) to `to` at `at`: each
    /// status sets its time the first time it is reached, closing sets `resolved_at` and reopening
    /// clears it, and a maintenance starts (`started_at`) when it goes in progress.
    pub fn reach(
        self,
        from: Option<LifecycleStatus>,
        to: LifecycleStatus,
        at: NaiveDateTime,
    ) -> Self {
        use LifecycleStatus::{Incident as I, Maintenance as M};
        let mut next = self;
        match (from, to) {
            (_, I(IncidentStatus::Identified)) => {
                next.identified_at = next.identified_at.or(Some(at))
            }
            (_, I(IncidentStatus::Monitoring)) => {
                next.monitoring_at = next.monitoring_at.or(Some(at))
            }
            (None | Some(M(MaintenanceStatus::Scheduled)), M(MaintenanceStatus::InProgress)) => {
                next.started_at = at
            }
            _ => {}
        }
        next.resolved_at = match to.is_open() {
            true => None,
            false => next.resolved_at.or(Some(at)),
        };
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    fn at(minutes: i64) -> NaiveDateTime {
        let start = Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).single();
        (start.expect("valid time") + Duration::minutes(minutes)).naive_utc()
    }

    fn incident(status: IncidentStatus) -> LifecycleStatus {
        LifecycleStatus::Incident(status)
    }

    #[test]
    fn each_milestone_is_set_the_first_time_its_status_is_reached() {
        use IncidentStatus::*;
        let start = Milestones {
            started_at: at(0),
            identified_at: None,
            monitoring_at: None,
            resolved_at: None,
        };
        let m = start.reach(None, incident(Investigating), at(0));
        let m = m.reach(Some(incident(Investigating)), incident(Identified), at(5));
        let m = m.reach(Some(incident(Identified)), incident(Identified), at(7));
        let m = m.reach(Some(incident(Identified)), incident(Monitoring), at(9));
        assert_eq!(
            (m.identified_at, m.monitoring_at, m.resolved_at),
            (Some(at(5)), Some(at(9)), None)
        );
        let resolved = m.reach(Some(incident(Monitoring)), incident(Resolved), at(12));
        assert_eq!(resolved.resolved_at, Some(at(12)));
        let published = resolved.reach(Some(incident(Resolved)), incident(Postmortem), at(30));
        assert_eq!(
            published.resolved_at,
            Some(at(12)),
            "publishing keeps the resolution time"
        );
        let reopened = published.reach(Some(incident(Postmortem)), incident(Investigating), at(40));
        assert_eq!(
            (reopened.resolved_at, reopened.identified_at),
            (None, Some(at(5)))
        );
        assert_eq!(reopened.started_at, at(0));
    }

    #[test]
    fn a_maintenance_starts_when_it_first_goes_in_progress_and_ends_when_completed() {
        use MaintenanceStatus::*;
        let m = |s| LifecycleStatus::Maintenance(s);
        let start = Milestones {
            started_at: at(60),
            identified_at: None,
            monitoring_at: None,
            resolved_at: None,
        };
        let started = start.reach(Some(m(Scheduled)), m(InProgress), at(58));
        assert_eq!(started.started_at, at(58));
        let back = started.reach(Some(m(Verifying)), m(InProgress), at(70));
        assert_eq!(
            back.started_at,
            at(58),
            "going back from verifying is no new start"
        );
        let done = back.reach(Some(m(InProgress)), m(Completed), at(80));
        assert_eq!(done.resolved_at, Some(at(80)));
    }

    #[test]
    fn the_next_update_deadline_follows_kind_status_and_choice() {
        let now = Utc.from_utc_datetime(&at(0));
        let intervals = NextUpdateIntervals::default();
        let investigating = incident(IncidentStatus::Investigating);
        let chosen = now + Duration::minutes(10);
        assert_eq!(
            next_update_by(None, investigating, Impact::Major, &intervals, now),
            Ok(Some(now + Duration::minutes(60)))
        );
        assert_eq!(
            next_update_by(Some(chosen), investigating, Impact::Major, &intervals, now),
            Ok(Some(chosen))
        );
        let resolved = incident(IncidentStatus::Resolved);
        assert_eq!(
            next_update_by(None, resolved, Impact::Critical, &intervals, now),
            Ok(None)
        );
        let refused = next_update_by(Some(chosen), resolved, Impact::Critical, &intervals, now);
        assert_eq!(
            refused,
            Err("a resolved update promises no next update; leave it empty".to_owned())
        );
        let scheduled = LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled);
        assert_eq!(
            next_update_by(None, scheduled, Impact::Major, &intervals, now),
            Ok(None)
        );
    }
}
