//! Alerts from monitoring, and the rules that turn them into a component's status.
//!
//! Prometheus Alertmanager (webhook version 4) and Grafana Alerting send the same shape: a
//! notification holding `alerts[]`, each with `status` (`firing` or `resolved`), `labels`,
//! `annotations`, `startsAt` and a `fingerprint`. Herald's generic body names one component
//! and the status it should show. All three become [`Alert`]s.
//!
//! The rules, applied only when an alert says something new (a repeated notification, as
//! Alertmanager sends every `repeat_interval`, changes nothing):
//! - a component shows the worst status its firing alerts ask for, and operational when none
//!   fires ([`desired`]);
//! - an alert may always make a component's status worse, at once;
//! - a better status (a resolve) is applied only over a status an alert set: a responder who
//!   set the status by hand since keeps it (a human always wins);
//! - and not before the alert's status has held for the integration's hold time, so that a
//!   flapping alert does not flap the page ([`decide`]);
//! - a component under maintenance is left alone.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::ComponentStatus;

mod rules;
mod wire;

pub use rules::{Candidate, Decision, decide, desired, pick_component};
pub use wire::{
    GenericAlert, Malformed, WireAlert, WireNotification, from_generic, from_wire,
    label_fingerprint,
};

/// The label that names the component, unless the integration says otherwise.
pub const DEFAULT_COMPONENT_LABEL: &str = "component";
/// The label that carries the severity, unless the integration says otherwise.
pub const DEFAULT_SEVERITY_LABEL: &str = "severity";
/// How long a status set by an alert holds before an alert may make it better again.
pub const DEFAULT_HOLD_SECS: i32 = 300;
/// The longest hold an owner may set (a day).
pub const MAX_HOLD_SECS: i32 = 86_400;
/// The most alerts one notification may carry (Alertmanager's `max_alerts` is unlimited by
/// default, but a larger group is a configuration to fix, not one to take in).
pub const MAX_ALERTS: usize = 1_000;

/// The longest fingerprint taken (Alertmanager's and Grafana's are 16 hex digits).
pub const MAX_FINGERPRINT_LEN: usize = 128;
/// Where an alert's name is cut, in characters.
const NAME_CUT: usize = 200;
/// Where an alert's summary is cut, in characters (a tool's description may be long; the
/// status page shows a line).
const SUMMARY_CUT: usize = 1_000;

/// `text` cut to at most `max` characters.
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// The status each severity asks for, unless the integration maps them otherwise.
pub fn default_severities() -> BTreeMap<String, ComponentStatus> {
    BTreeMap::from([
        ("critical".to_owned(), ComponentStatus::MajorOutage),
        ("error".to_owned(), ComponentStatus::PartialOutage),
        ("warning".to_owned(), ComponentStatus::PartialOutage),
        ("info".to_owned(), ComponentStatus::DegradedPerformance),
    ])
}

/// The status an alert without a known severity asks for, unless the integration says.
pub const DEFAULT_STATUS: ComponentStatus = ComponentStatus::PartialOutage;

/// `firing` or `resolved`, as both tools write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertState {
    Firing,
    Resolved,
}

/// What the component of an alert asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asks {
    /// Its severity label's value (absent when it has none), mapped by the integration.
    Severity(Option<String>),
    /// A status named outright (the generic body).
    Status(ComponentStatus),
}

/// One alert, whichever tool sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// Its sender's fingerprint; see [`Alert::fingerprint_on`].
    pub fingerprint: String,
    /// A generic body without a key: one alert per component, however the component is named.
    pub per_component: bool,
    /// `alertname`, or the generic body's key.
    pub name: String,
    pub summary: Option<String>,
    /// The value of the component label, if it has one.
    pub component: Option<String>,
    pub firing: bool,
    pub asks: Asks,
    pub starts_at: DateTime<Utc>,
}

impl Alert {
    /// The fingerprint it is stored under once its component is known.
    pub fn fingerprint_on(&self, component_id: &str) -> String {
        match self.per_component {
            true => format!("generic:{component_id}"),
            false => self.fingerprint.clone(),
        }
    }
}

/// How an integration reads its alerts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub component_label: String,
    pub severity_label: String,
    pub severities: BTreeMap<String, ComponentStatus>,
    pub default_status: ComponentStatus,
}

impl Default for Mapping {
    fn default() -> Self {
        Self {
            component_label: DEFAULT_COMPONENT_LABEL.to_owned(),
            severity_label: DEFAULT_SEVERITY_LABEL.to_owned(),
            severities: default_severities(),
            default_status: DEFAULT_STATUS,
        }
    }
}

impl Mapping {
    /// The status a firing alert asks for. Severities are matched without regard to case.
    pub fn status_of(&self, asks: &Asks) -> ComponentStatus {
        match asks {
            Asks::Status(status) => *status,
            Asks::Severity(severity) => severity
                .as_deref()
                .and_then(|s| {
                    let s = s.trim().to_lowercase();
                    self.severities
                        .iter()
                        .find(|(name, _)| name.to_lowercase() == s)
                        .map(|(_, status)| *status)
                })
                .unwrap_or(self.default_status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentStatus::*;

    #[test]
    fn severities_map_to_statuses_and_the_rest_to_the_default() {
        let m = Mapping::default();
        let sev = |s: &str| m.status_of(&Asks::Severity(Some(s.to_owned())));
        assert_eq!(sev("critical"), MajorOutage);
        assert_eq!(sev("CRITICAL"), MajorOutage);
        assert_eq!(sev("warning"), PartialOutage);
        assert_eq!(sev("info"), DegradedPerformance);
        assert_eq!(sev("page-me"), DEFAULT_STATUS);
        assert_eq!(m.status_of(&Asks::Severity(None)), DEFAULT_STATUS);
        assert_eq!(
            m.status_of(&Asks::Status(DegradedPerformance)),
            DegradedPerformance
        );
        let custom = Mapping {
            severities: BTreeMap::from([("warning".to_owned(), DegradedPerformance)]),
            default_status: MajorOutage,
            ..Mapping::default()
        };
        assert_eq!(
            custom.status_of(&Asks::Severity(Some("warning".into()))),
            DegradedPerformance
        );
        assert_eq!(
            custom.status_of(&Asks::Severity(Some("critical".into()))),
            MajorOutage
        );
    }
}
