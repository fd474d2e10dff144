//! Reading a notification: Alertmanager's and Grafana's shape, and Herald's generic body,
//! into [`Alert`]s, with what is wrong with one that cannot be read.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::{
    Alert, AlertState, Asks, MAX_ALERTS, MAX_FINGERPRINT_LEN, Mapping, NAME_CUT, SUMMARY_CUT, cut,
};
use crate::domain::{ComponentStatus, IntegrationKind};

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
}
