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

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::uptime::severity;
use super::{ComponentStatus, IntegrationKind};

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

/// A notification from Alertmanager (version 4) or Grafana; fields neither needs are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct WireNotification {
    /// Alertmanager writes `"4"`, Grafana `"1"`.
    pub version: Option<String>,
    pub status: AlertState,
    pub alerts: Vec<WireAlert>,
}

/// One alert of a notification.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireAlert {
    pub status: AlertState,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    pub starts_at: DateTime<Utc>,
    /// Absent from tools older than Alertmanager 0.19 and Grafana 9; then computed.
    #[serde(default)]
    pub fingerprint: Option<String>,
}

/// Herald's generic body: one component, the status it should show (`operational` ends what
/// this body started), and what to say.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenericAlert {
    /// The component's id or name (or "name (region)").
    pub component: String,
    pub status: ComponentStatus,
    pub summary: Option<String>,
    /// Tells apart several alerts on one component; the component when absent.
    pub key: Option<String>,
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

/// Why a notification could not be read: the field (a path such as `alerts[0].status`) and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub field: String,
    pub message: String,
}

impl Malformed {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The alerts of an Alertmanager or Grafana notification, read with `mapping`'s labels.
pub fn from_wire(
    kind: IntegrationKind,
    wire: WireNotification,
    mapping: &Mapping,
    now: DateTime<Utc>,
) -> Result<Vec<Alert>, Malformed> {
    if kind == IntegrationKind::Alertmanager
        && let Some(version) = wire.version.as_deref()
        && version != "4"
    {
        return Err(Malformed::new(
            "version",
            format!("Herald reads Alertmanager's webhook version 4, not {version:?}"),
        ));
    }
    if wire.alerts.len() > MAX_ALERTS {
        return Err(Malformed::new(
            "alerts",
            format!("holds more than {MAX_ALERTS} alerts; split the group (group_by)"),
        ));
    }
    let mut alerts = Vec::with_capacity(wire.alerts.len());
    for (i, alert) in wire.alerts.into_iter().enumerate() {
        if alert.starts_at > now + Duration::days(1) {
            return Err(Malformed::new(
                format!("alerts[{i}].startsAt"),
                "lies more than a day ahead; check the sender's clock",
            ));
        }
        // No text Herald keeps may hold U+0000 (PostgreSQL cannot store it).
        let nul = |map: &BTreeMap<String, String>| {
            map.iter()
                .any(|(k, v)| k.contains('\0') || v.contains('\0'))
        };
        for (field, holds) in [
            ("labels", nul(&alert.labels)),
            ("annotations", nul(&alert.annotations)),
            (
                "fingerprint",
                alert
                    .fingerprint
                    .as_deref()
                    .is_some_and(|f| f.contains('\0')),
            ),
        ] {
            if holds {
                return Err(Malformed::new(
                    format!("alerts[{i}].{field}"),
                    "must not contain the NUL character (U+0000)",
                ));
            }
        }
        let fingerprint = match alert.fingerprint.as_deref().map(str::trim) {
            Some(f) if f.chars().count() > MAX_FINGERPRINT_LEN => {
                return Err(Malformed::new(
                    format!("alerts[{i}].fingerprint"),
                    format!("must be at most {MAX_FINGERPRINT_LEN} characters long"),
                ));
            }
            Some(f) if !f.is_empty() => f.to_owned(),
            _ => label_fingerprint(&alert.labels),
        };
        let label = |name: &str| {
            alert
                .labels
                .get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let summary = ["summary", "description", "message"]
            .iter()
            .find_map(|key| alert.annotations.get(*key))
            .map(|s| cut(s.trim(), SUMMARY_CUT))
            .filter(|s| !s.is_empty());
        alerts.push(Alert {
            fingerprint,
            per_component: false,
            name: label("alertname").map_or_else(|| "alert".to_owned(), |n| cut(&n, NAME_CUT)),
            summary,
            component: label(&mapping.component_label),
            firing: alert.status == AlertState::Firing,
            asks: Asks::Severity(label(&mapping.severity_label)),
            starts_at: alert.starts_at,
        });
    }
    Ok(alerts)
}

/// The one alert of a generic body.
pub fn from_generic(body: GenericAlert, now: DateTime<Utc>) -> Result<Alert, Malformed> {
    let component = body.component.trim().to_owned();
    if component.is_empty() {
        return Err(Malformed::new("component", "must name a component"));
    }
    if body.status == ComponentStatus::UnderMaintenance {
        return Err(Malformed::new(
            "status",
            "an alert cannot ask for under_maintenance (planned work is announced by people)",
        ));
    }
    let key = body
        .key
        .map(|k| cut(k.trim(), NAME_CUT))
        .filter(|k| !k.is_empty());
    Ok(Alert {
        fingerprint: format!("generic:{}", key.as_deref().unwrap_or(&component)),
        per_component: key.is_none(),
        name: key.unwrap_or_else(|| "generic".to_owned()),
        summary: body
            .summary
            .map(|s| cut(s.trim(), SUMMARY_CUT))
            .filter(|s| !s.is_empty()),
        component: Some(component),
        firing: body.status != ComponentStatus::Operational,
        asks: Asks::Status(body.status),
        starts_at: now,
    })
}

/// A fingerprint for an alert that brings none: the SHA-256 of its sorted labels, as 16 hex
/// digits (Alertmanager's own is a hash of the labels too).
pub fn label_fingerprint(labels: &BTreeMap<String, String>) -> String {
    let mut hash = Sha256::new();
    for (name, value) in labels {
        hash.update(name.as_bytes());
        hash.update([0xff]);
        hash.update(value.as_bytes());
        hash.update([0xff]);
    }
    hex::encode(&hash.finalize()[..8])
}

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

    fn wire(json: serde_json::Value) -> WireNotification {
        serde_json::from_value(json).unwrap()
    }

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

    #[test]
    fn a_notification_becomes_alerts_read_with_the_mapping_s_labels() {
        let n = wire(serde_json::json!({
            "version": "4", "status": "firing", "receiver": "herald", "groupKey": "{}:{}",
            "alerts": [{
                "status": "firing",
                "labels": {"alertname": "HighErrorRate", "service": " API ", "severity": "critical"},
                "annotations": {"description": "5xx above 5%"},
                "startsAt": "2026-12-02T09:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
                "fingerprint": "c0ffee0000000001"
            }, {
                "status": "resolved",
                "labels": {"alertname": "Other"},
                "startsAt": "2026-12-02T08:00:00Z"
            }]
        }));
        let mapping = Mapping {
            component_label: "service".into(),
            ..Mapping::default()
        };
        let alerts = from_wire(IntegrationKind::Alertmanager, n, &mapping, at(10, 0)).unwrap();
        assert_eq!(alerts[0].fingerprint, "c0ffee0000000001");
        assert_eq!(alerts[0].name, "HighErrorRate");
        assert_eq!(alerts[0].component.as_deref(), Some("API"));
        assert_eq!(alerts[0].summary.as_deref(), Some("5xx above 5%"));
        assert_eq!(alerts[0].asks, Asks::Severity(Some("critical".into())));
        assert!(alerts[0].firing);
        assert!(!alerts[1].firing);
        assert_eq!(alerts[1].component, None);
        assert_eq!(alerts[1].fingerprint.len(), 16, "computed from the labels");
    }

    #[test]
    fn a_wrong_version_too_many_alerts_or_a_start_far_ahead_is_named() {
        let one = |starts: &str| serde_json::json!({"status": "firing", "labels": {}, "startsAt": starts});
        let n = wire(serde_json::json!({"version": "3", "status": "firing", "alerts": []}));
        let err = from_wire(
            IntegrationKind::Alertmanager,
            n,
            &Mapping::default(),
            at(10, 0),
        );
        assert_eq!(err.unwrap_err().field, "version");
        // Grafana writes version 1.
        let n = wire(serde_json::json!({"version": "1", "status": "firing", "alerts": []}));
        assert!(from_wire(IntegrationKind::Grafana, n, &Mapping::default(), at(10, 0)).is_ok());
        let many: Vec<_> = (0..=MAX_ALERTS)
            .map(|_| one("2026-12-02T09:00:00Z"))
            .collect();
        let n = wire(serde_json::json!({"status": "firing", "alerts": many}));
        let err = from_wire(IntegrationKind::Grafana, n, &Mapping::default(), at(10, 0));
        assert_eq!(err.unwrap_err().field, "alerts");
        let n = wire(serde_json::json!({"status": "firing",
            "alerts": [one("2026-12-02T09:00:00Z"), one("2026-12-04T09:00:00Z")]}));
        let err = from_wire(IntegrationKind::Grafana, n, &Mapping::default(), at(10, 0));
        assert_eq!(err.unwrap_err().field, "alerts[1].startsAt");
        let n = wire(serde_json::json!({"status": "firing", "alerts": [
            {"status": "firing", "labels": {"a": "b\0"}, "startsAt": "2026-12-02T09:00:00Z"}]}));
        let err = from_wire(IntegrationKind::Grafana, n, &Mapping::default(), at(10, 0));
        assert_eq!(err.unwrap_err().field, "alerts[0].labels");
    }

    #[test]
    fn the_fingerprint_of_labels_ignores_their_order_but_not_their_values() {
        let a = BTreeMap::from([("a".into(), "1".into()), ("b".into(), "2".into())]);
        let b = BTreeMap::from([("b".into(), "2".into()), ("a".into(), "1".into())]);
        let c = BTreeMap::from([("a".into(), "12".into())]);
        let d = BTreeMap::from([("a".into(), "1".into()), ("2".into(), String::new())]);
        assert_eq!(label_fingerprint(&a), label_fingerprint(&b));
        assert_ne!(label_fingerprint(&a), label_fingerprint(&c));
        assert_ne!(label_fingerprint(&c), label_fingerprint(&d));
    }

    #[test]
    fn a_generic_body_is_one_alert_that_operational_ends() {
        let body = |status| GenericAlert {
            component: " Public API ".into(),
            status,
            summary: Some("  ".into()),
            key: None,
        };
        let alert = from_generic(body(MajorOutage), at(10, 0)).unwrap();
        assert_eq!(
            alert.fingerprint_on("c1"),
            "generic:c1",
            "however the component is named"
        );
        assert!(alert.firing && alert.summary.is_none());
        assert_eq!(alert.asks, Asks::Status(MajorOutage));
        assert!(!from_generic(body(Operational), at(10, 0)).unwrap().firing);
        let keyed = GenericAlert {
            key: Some("disk".into()),
            ..body(MajorOutage)
        };
        assert_eq!(
            from_generic(keyed, at(10, 0)).unwrap().fingerprint_on("c1"),
            "generic:disk"
        );
        let blank = GenericAlert {
            component: " ".into(),
            ..body(MajorOutage)
        };
        assert_eq!(
            from_generic(blank, at(10, 0)).unwrap_err().field,
            "component"
        );
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
