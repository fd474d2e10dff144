//! Alerts in: an Alertmanager or Grafana notification, or Herald's generic body, read as the
//! integration's endpoint reads them (JSON, then the lenient typed read, then the alerts).
#![no_main]

use chrono::{TimeZone, Utc};
use herald::domain::IntegrationKind;
use herald::domain::alerts::{self, GenericAlert, Mapping, WireNotification};
use herald::http::api::body::lenient;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let now = Utc.with_ymd_and_hms(2026, 12, 7, 12, 0, 0).unwrap();
    let mapping = Mapping::default();
    if let Ok(wire) = lenient::<WireNotification>(&body) {
        for kind in [IntegrationKind::Alertmanager, IntegrationKind::Grafana] {
            let _ = alerts::from_wire(kind, wire.clone(), &mapping, now);
        }
    }
    if let Ok(generic) = lenient::<GenericAlert>(&body) {
        let _ = alerts::from_generic(generic, now);
    }
});
