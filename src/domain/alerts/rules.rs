//! The rules that turn alerts into a component's status: which component an alert names,
//! the status its firing alerts ask for, and whether to apply it now.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use crate::domain::ComponentStatus;
use crate::domain::uptime::severity;

/// A component an alert may name: its id, name and region.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub region: Option<&'a str>,
}

/// The id of the component `value` names: through the integration's explicit map first, then
/// a component's id, its name, or "name (region)", without regard to case. Answers why not
/// when none, or more than one, fits.
pub fn pick_component<'a>(
    value: &str,
    map: &BTreeMap<String, String>,
    candidates: &[Candidate<'a>],
) -> Result<&'a str, String> {
    let value = value.trim();
    let wanted = map.get(value).map_or(value, String::as_str);
    if let Some(c) = candidates.iter().find(|c| c.id == wanted) {
        return Ok(c.id);
    }
    let wanted = wanted.to_lowercase();
    let named = |c: &&Candidate<'_>| {
        let name = c.name.to_lowercase();
        name == wanted
            || c.region
                .is_some_and(|r| format!("{name} ({})", r.to_lowercase()) == wanted)
    };
    let found: Vec<&Candidate<'_>> = candidates.iter().filter(named).collect();
    match found.as_slice() {
        [one] => Ok(one.id),
        [] => Err(format!("no component of the page is named {value:?}")),
        _ => Err(format!(
            "{} components are named {value:?}; name one by its region (\"name (region)\") or map it to an id",
            found.len()
        )),
    }
}

/// The status a component's firing alerts ask for together: the worst, or operational.
pub fn desired(firing: impl IntoIterator<Item = ComponentStatus>) -> ComponentStatus {
    firing
        .into_iter()
        .max_by_key(|s| severity(*s))
        .unwrap_or(ComponentStatus::Operational)
}

/// What happens to a component's status when its alerts ask for `wanted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Nothing to change.
    Same,
    /// Set the status.
    Apply(ComponentStatus),
    /// Kept: a responder set the status since the alert did.
    KeptByResponder,
    /// Kept: the component is under maintenance.
    KeptForMaintenance,
    /// Kept until then, when the status an alert set will have held long enough.
    HeldUntil(DateTime<Utc>),
}

/// Whether a component at `current` moves to `wanted`. `set_by_alert` is when an alert set
/// the current status (`None` when a responder, or no one, did since).
pub fn decide(
    current: ComponentStatus,
    set_by_alert: Option<DateTime<Utc>>,
    wanted: ComponentStatus,
    hold: Duration,
    now: DateTime<Utc>,
) -> Decision {
    if wanted == current {
        return Decision::Same;
    }
    if current == ComponentStatus::UnderMaintenance {
        return Decision::KeptForMaintenance;
    }
    if severity(wanted) > severity(current) {
        return Decision::Apply(wanted);
    }
    match set_by_alert {
        None => Decision::KeptByResponder,
        Some(at) if now < at + hold => Decision::HeldUntil(at + hold),
        Some(_) => Decision::Apply(wanted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentStatus::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, h, m, 0).unwrap()
    }

    #[test]
    fn a_component_is_picked_by_map_id_name_or_name_and_region() {
        let c = [
            Candidate {
                id: "c1",
                name: "Public API",
                region: None,
            },
            Candidate {
                id: "c2",
                name: "Dashboard",
                region: Some("eu"),
            },
            Candidate {
                id: "c3",
                name: "Dashboard",
                region: Some("us"),
            },
        ];
        let map = BTreeMap::from([("api-prod".to_owned(), "c1".to_owned())]);
        assert_eq!(pick_component("api-prod", &map, &c), Ok("c1"));
        assert_eq!(pick_component("c3", &map, &c), Ok("c3"));
        assert_eq!(pick_component("public api", &map, &c), Ok("c1"));
        assert_eq!(pick_component("Dashboard (EU)", &map, &c), Ok("c2"));
        assert!(
            pick_component("Dashboard", &map, &c)
                .unwrap_err()
                .contains("2 components")
        );
        assert!(
            pick_component("Billing", &map, &c)
                .unwrap_err()
                .contains("no component")
        );
    }

    #[test]
    fn the_worst_firing_status_wins_and_none_firing_is_operational() {
        assert_eq!(desired([]), Operational);
        assert_eq!(
            desired([PartialOutage, MajorOutage, DegradedPerformance]),
            MajorOutage
        );
    }

    #[test]
    fn alerts_make_things_worse_at_once_and_better_only_over_what_they_set_after_the_hold() {
        let hold = Duration::minutes(5);
        let now = at(10, 0);
        assert_eq!(
            decide(Operational, None, Operational, hold, now),
            Decision::Same
        );
        // Worse: at once, whoever set the current status, however recently.
        assert_eq!(
            decide(Operational, None, MajorOutage, hold, now),
            Decision::Apply(MajorOutage)
        );
        assert_eq!(
            decide(PartialOutage, Some(now), MajorOutage, hold, now),
            Decision::Apply(MajorOutage)
        );
        // Better: a responder's status stays.
        assert_eq!(
            decide(MajorOutage, None, Operational, hold, now),
            Decision::KeptByResponder
        );
        // Better over an alert's status: after the hold.
        assert_eq!(
            decide(MajorOutage, Some(at(9, 58)), Operational, hold, now),
            Decision::HeldUntil(at(10, 3))
        );
        assert_eq!(
            decide(MajorOutage, Some(at(9, 55)), Operational, hold, now),
            Decision::Apply(Operational)
        );
        assert_eq!(
            decide(
                MajorOutage,
                Some(at(9, 59)),
                Operational,
                Duration::zero(),
                now
            ),
            Decision::Apply(Operational)
        );
        // Maintenance is left alone either way.
        assert_eq!(
            decide(UnderMaintenance, None, MajorOutage, hold, now),
            Decision::KeptForMaintenance
        );
    }
}
