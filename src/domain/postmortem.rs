//! Postmortem building blocks: the "scope" figures shown at the top of a postmortem (e.g.
//! "Duration: 47 minutes") and the timeline of what happened when.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use validator::{Validate, ValidationError, ValidationErrors};

/// The longest timeline entry description, in characters.
pub const MAX_TIMELINE_DESCRIPTION_LEN: u64 = 2000;

/// One headline figure of a postmortem, such as "Affected customers" / "About 8%".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Validate)]
pub struct ScopeFigure {
    /// What is measured, 1 to 100 characters.
    #[validate(custom(function = "label_rule"))]
    pub label: String,
    /// The figure, 1 to 200 characters.
    #[validate(custom(function = "value_rule"))]
    pub value: String,
}

impl ScopeFigure {
    /// Validates both parts as sent (their lengths count the spaces around them, as the API
    /// document's do), then trims them.
    pub fn new(label: &str, value: &str) -> Result<Self, ValidationErrors> {
        let sent = Self {
            label: label.to_owned(),
            value: value.to_owned(),
        };
        sent.validate()?;
        Ok(Self {
            label: label.trim().to_owned(),
            value: value.trim().to_owned(),
        })
    }
}

/// One moment in a postmortem's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Validate)]
pub struct TimelineEntry {
    /// When it happened.
    pub at: DateTime<Utc>,
    /// What happened, 1 to 2000 characters.
    #[validate(custom(function = "description_rule"))]
    pub description: String,
}

/// Sorts a timeline by time; entries with the same time keep their order.
pub fn sort_timeline(entries: &mut [TimelineEntry]) {
    entries.sort_by_key(|entry| entry.at);
}

fn label_rule(value: &str) -> Result<(), ValidationError> {
    text_rule(value, "label", 100)
}

fn value_rule(value: &str) -> Result<(), ValidationError> {
    text_rule(value, "value", 200)
}

fn description_rule(value: &str) -> Result<(), ValidationError> {
    text_rule(value, "description", MAX_TIMELINE_DESCRIPTION_LEN)
}

/// The rule of a postmortem's short texts: 1 to `max` characters as sent, not only whitespace,
/// and without the NUL character (which PostgreSQL cannot store in text). The error names
/// `what` and the first rule broken.
fn text_rule(value: &str, what: &str, max: u64) -> Result<(), ValidationError> {
    let length = value.chars().count() as u64;
    let (code, message) = if !(1..=max).contains(&length) {
        (
            "length",
            format!("the {what} must be 1 to {max} characters long"),
        )
    } else if value.trim().is_empty() {
        ("blank", format!("the {what} must not be blank"))
    } else if value.contains('\0') {
        ("nul", format!("the {what} must not contain U+0000"))
    } else {
        return Ok(());
    };
    Err(ValidationError::new(code).with_message(message.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    fn at(minute: i64) -> DateTime<Utc> {
        let start = Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).single();
        start.expect("valid time") + Duration::minutes(minute)
    }

    #[test]
    fn scope_figures_are_validated_by_length_and_content() {
        let cases = [
            ("Duration", "47 minutes", None),
            (&*"l".repeat(100), &*"v".repeat(200), None),
            ("", "47 minutes", Some("label")),
            ("   ", "47 minutes", Some("label")),
            (&*"l".repeat(101), "47 minutes", Some("label")),
            ("Duration", "", Some("value")),
            ("Duration", &*"ü".repeat(201), Some("value")),
            ("Dura\0tion", "47 minutes", Some("label")),
            ("Duration", "47\0", Some("value")),
        ];
        for (label, value, bad_field) in cases {
            let figure = ScopeFigure {
                label: label.to_owned(),
                value: value.to_owned(),
            };
            let result = figure.validate();
            match bad_field {
                None => assert!(result.is_ok(), "{figure:?}: {result:?}"),
                Some(field) => {
                    let errors = result.expect_err("invalid figure");
                    assert!(errors.field_errors().contains_key(field), "{errors:?}");
                }
            }
        }
    }

    #[test]
    fn validation_messages_state_the_rule() {
        let figure = ScopeFigure {
            label: "x".repeat(101),
            value: " ".to_owned(),
        };
        let message = figure.validate().expect_err("invalid").to_string();
        assert!(
            message.contains("the label must be 1 to 100 characters long"),
            "{message}"
        );
        assert!(message.contains("the value must not be blank"), "{message}");
    }

    #[test]
    fn scope_figure_new_trims_before_validating() {
        let figure = ScopeFigure::new("  Duration ", " 47 minutes\n").expect("valid figure");
        assert_eq!(figure.label, "Duration");
        assert_eq!(figure.value, "47 minutes");
        assert!(ScopeFigure::new("Duration", "   ").is_err());
        // The length counts what was sent.
        assert!(ScopeFigure::new(&format!(" {}", "l".repeat(100)), "47").is_err());
    }

    #[test]
    fn scope_figures_serialize_as_label_and_value() {
        let figure = ScopeFigure::new("Duration", "47 minutes").expect("valid figure");
        let json = serde_json::to_value(&figure).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"label": "Duration", "value": "47 minutes"})
        );
    }

    #[test]
    fn timeline_entries_need_a_description() {
        let ok = TimelineEntry {
            at: at(0),
            description: "Alert fired".to_owned(),
        };
        assert!(ok.validate().is_ok());
        for bad in [
            String::new(),
            "  ".to_owned(),
            "x".repeat(2001),
            "a\0b".to_owned(),
        ] {
            let entry = TimelineEntry {
                at: at(0),
                description: bad,
            };
            assert!(entry.validate().is_err(), "{entry:?}");
        }
    }

    #[test]
    fn sorting_a_timeline_orders_by_time_and_keeps_ties_in_place() {
        let entry = |minute, description: &str| TimelineEntry {
            at: at(minute),
            description: description.to_owned(),
        };
        let mut timeline = vec![
            entry(30, "fix deployed"),
            entry(0, "alert fired"),
            entry(10, "cause found"),
            entry(0, "on-call paged"),
            entry(10, "status page updated"),
        ];
        sort_timeline(&mut timeline);
        let order: Vec<&str> = timeline.iter().map(|e| e.description.as_str()).collect();
        assert_eq!(
            order,
            [
                "alert fired",
                "on-call paged",
                "cause found",
                "status page updated",
                "fix deployed"
            ]
        );
    }
}
