//! The page's overall status, computed the way Atlassian Statuspage does it: the worst of the
//! component statuses and the open incidents' impacts, or "maintenance" when nothing is broken
//! but planned work is under way.

use serde::Serialize;

use super::status::{ComponentStatus, Impact, Indicator};

/// The overall status shown at the top of the page and returned by the status API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PageStatus {
    /// The indicator, e.g. `major`.
    pub indicator: Indicator,
    /// The sentence shown to visitors, e.g. "Partial System Outage".
    pub description: &'static str,
}

impl PageStatus {
    /// The page status for an indicator, with Statuspage's description.
    pub fn from_indicator(indicator: Indicator) -> Self {
        Self {
            indicator,
            description: indicator.description(),
        }
    }
}

impl Indicator {
    /// Statuspage's sentence for this indicator, e.g. "All Systems Operational".
    pub fn description(self) -> &'static str {
        match self {
            Self::None => "All Systems Operational",
            Self::Minor => "Minor Service Outage",
            Self::Major => "Partial System Outage",
            Self::Critical => "Major System Outage",
            Self::Maintenance => "Service Under Maintenance",
        }
    }
}

/// How much a component status counts towards the page status.
fn component_severity(status: ComponentStatus) -> Impact {
    match status {
        ComponentStatus::Operational | ComponentStatus::UnderMaintenance => Impact::None,
        ComponentStatus::DegradedPerformance => Impact::Minor,
        ComponentStatus::PartialOutage => Impact::Major,
        ComponentStatus::MajorOutage => Impact::Critical,
    }
}

/// Computes the page status from every component's status, the impact of every open incident
/// and whether a maintenance is in progress.
///
/// The worst of the components (degraded performance → minor, partial outage → major,
/// major outage → critical) and the open incidents' impacts wins. When that is `none`, the page
/// shows `maintenance` if a maintenance is in progress or a component is under maintenance.
pub fn page_status(
    components: &[ComponentStatus],
    open_incidents: &[Impact],
    maintenance_in_progress: bool,
) -> PageStatus {
    let worst = components
        .iter()
        .map(|&status| component_severity(status))
        .chain(open_incidents.iter().copied())
        .max()
        .unwrap_or(Impact::None);
    let indicator = match worst {
        Impact::Minor => Indicator::Minor,
        Impact::Major => Indicator::Major,
        Impact::Critical => Indicator::Critical,
        Impact::None
            if maintenance_in_progress
                || components.contains(&ComponentStatus::UnderMaintenance) =>
        {
            Indicator::Maintenance
        }
        Impact::None => Indicator::None,
    };
    PageStatus::from_indicator(indicator)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentStatus::*;

    #[test]
    fn an_empty_page_is_all_systems_operational() {
        let status = page_status(&[], &[], false);
        assert_eq!(status.indicator, Indicator::None);
        assert_eq!(status.description, "All Systems Operational");
    }

    #[test]
    fn the_worst_component_sets_the_indicator() {
        let cases: &[(&[ComponentStatus], Indicator)] = &[
            (&[Operational, Operational], Indicator::None),
            (&[Operational, DegradedPerformance], Indicator::Minor),
            (&[DegradedPerformance, PartialOutage], Indicator::Major),
            (
                &[MajorOutage, PartialOutage, Operational],
                Indicator::Critical,
            ),
            (&[UnderMaintenance, DegradedPerformance], Indicator::Minor),
        ];
        for (components, expected) in cases {
            assert_eq!(
                page_status(components, &[], false).indicator,
                *expected,
                "{components:?}"
            );
        }
    }

    #[test]
    fn open_incident_impacts_count_as_much_as_components() {
        let cases: &[(&[ComponentStatus], &[Impact], Indicator)] = &[
            (&[Operational], &[Impact::None], Indicator::None),
            (&[Operational], &[Impact::Minor], Indicator::Minor),
            (
                &[Operational],
                &[Impact::Minor, Impact::Major],
                Indicator::Major,
            ),
            (&[], &[Impact::Critical], Indicator::Critical),
            (&[MajorOutage], &[Impact::Minor], Indicator::Critical),
            (&[DegradedPerformance], &[Impact::Major], Indicator::Major),
        ];
        for (components, incidents, expected) in cases {
            let status = page_status(components, incidents, false);
            assert_eq!(status.indicator, *expected, "{components:?} {incidents:?}");
        }
    }

    #[test]
    fn maintenance_shows_only_when_nothing_is_broken() {
        let cases: &[(&[ComponentStatus], &[Impact], bool, Indicator)] = &[
            (&[], &[], true, Indicator::Maintenance),
            (
                &[Operational, UnderMaintenance],
                &[],
                false,
                Indicator::Maintenance,
            ),
            (
                &[Operational],
                &[Impact::None],
                true,
                Indicator::Maintenance,
            ),
            (
                &[UnderMaintenance],
                &[Impact::Minor],
                true,
                Indicator::Minor,
            ),
            (
                &[UnderMaintenance, PartialOutage],
                &[],
                false,
                Indicator::Major,
            ),
            (&[Operational], &[], false, Indicator::None),
        ];
        for (components, incidents, in_progress, expected) in cases {
            let status = page_status(components, incidents, *in_progress);
            assert_eq!(
                status.indicator, *expected,
                "{components:?} {incidents:?} {in_progress}"
            );
        }
    }

    #[test]
    fn each_indicator_has_statuspages_description() {
        let cases = [
            (Indicator::None, "All Systems Operational"),
            (Indicator::Minor, "Minor Service Outage"),
            (Indicator::Major, "Partial System Outage"),
            (Indicator::Critical, "Major System Outage"),
            (Indicator::Maintenance, "Service Under Maintenance"),
        ];
        for (indicator, description) in cases {
            assert_eq!(
                PageStatus::from_indicator(indicator).description,
                description
            );
        }
    }

    #[test]
    fn page_status_serializes_indicator_and_description() {
        let json =
            serde_json::to_value(page_status(&[PartialOutage], &[], false)).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"indicator": "major", "description": "Partial System Outage"})
        );
    }
}
