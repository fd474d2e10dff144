//! What an automatic maintenance does by itself, switch by switch: Statuspage's
//! `scheduled_auto_in_progress` and `scheduled_auto_completed` (the two steps),
//! `scheduled_remind_prior` (the reminder an hour before), `auto_transition_to_maintenance_state`
//! and `auto_transition_to_operational_state` (its components under maintenance and back), and
//! `auto_transition_deliver_notifications_at_start` and `_at_end` (telling subscribers of each
//! step). Every switch is on unless turned off: Herald's own behaviour.

use serde::{Deserialize, Serialize};

/// What a maintenance with Herald's behaviour stores.
pub const HERALDS: &str = "{}";

/// The switches. A maintenance takes its automatic steps only with `auto_transition` on; these
/// say which of them, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Plan {
    pub auto_start: bool,
    pub auto_complete: bool,
    pub remind_prior: bool,
    pub to_maintenance_state: bool,
    pub to_operational_state: bool,
    pub notify_at_start: bool,
    pub notify_at_end: bool,
}

impl Default for Plan {
    fn default() -> Self {
        Self {
            auto_start: true,
            auto_complete: true,
            remind_prior: true,
            to_maintenance_state: true,
            to_operational_state: true,
            notify_at_start: true,
            notify_at_end: true,
        }
    }
}

impl Plan {
    /// The stored plan (Herald's when it cannot be read).
    pub fn read(stored: &str) -> Self {
        serde_json::from_str(stored).unwrap_or_default()
    }

    /// As stored: only the switches turned off.
    pub fn stored(&self) -> String {
        let heralds = serde_json::to_value(Self::default()).unwrap_or_default();
        let mine = serde_json::to_value(self).unwrap_or_default();
        let off: serde_json::Map<String, serde_json::Value> = mine
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| heralds.get(key.as_str()) != Some(*value))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        serde_json::Value::Object(off).to_string()
    }

    /// Whether it takes any step by itself (what `auto_transition` says).
    pub fn moves_by_itself(&self) -> bool {
        self.auto_start || self.auto_complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_stores_only_what_differs_from_heralds_behaviour() {
        assert_eq!(Plan::read(HERALDS), Plan::default());
        assert_eq!(Plan::default().stored(), HERALDS);
        let quiet_end = Plan {
            auto_complete: false,
            notify_at_end: false,
            ..Plan::default()
        };
        assert_eq!(
            quiet_end.stored(),
            r#"{"auto_complete":false,"notify_at_end":false}"#
        );
        assert_eq!(Plan::read(&quiet_end.stored()), quiet_end);
        assert!(quiet_end.moves_by_itself());
        let none = Plan {
            auto_start: false,
            auto_complete: false,
            ..Plan::default()
        };
        assert!(!none.moves_by_itself());
        assert_eq!(Plan::read("not json"), Plan::default());
    }
}
