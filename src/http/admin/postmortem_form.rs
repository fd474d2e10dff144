//! The postmortem form's text fields read as lists, one entry a line: scope figures as
//! `Label: value`, the timeline as `YYYY-MM-DD HH:MM what happened` (UTC), follow-ups as
//! `description | owner | state`. And the stored postmortem written back in those shapes.

use chrono::{NaiveDateTime, TimeZone, Utc};

use super::form::Submitted;
use crate::db::models::postmortems::{FollowUp, TimelineEntryRow};
use crate::domain::{ScopeFigure, TimelineEntry};
use crate::error::FieldErrors;
use crate::services::postmortems::{FollowUpInput, PostmortemInput};

/// The non-blank lines of `text`, trimmed.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty())
}

fn add(errors: &mut FieldErrors, field: &str, i: usize, message: &str) {
    errors
        .entry(format!("{field}[{i}]"))
        .or_default()
        .push(message.to_owned());
}

/// The postmortem as typed, or the messages of the lines that could not be read.
pub fn postmortem_input(form: &Submitted) -> Result<PostmortemInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut scope_figures = Vec::new();
    for (i, line) in lines(form.get("scope_figures")).enumerate() {
        match line.split_once(':') {
            Some((label, value)) => scope_figures.push(ScopeFigure {
                label: label.trim().to_owned(),
                value: value.trim().to_owned(),
            }),
            None => add(&mut errors, "scope_figures", i, "write it as Label: value"),
        }
    }
    let mut timeline = Vec::new();
    for (i, line) in lines(form.get("timeline")).enumerate() {
        match timeline_entry(line) {
            Some(entry) => timeline.push(entry),
            None => add(
                &mut errors,
                "timeline",
                i,
                "start with a UTC time such as 2026-11-30 14:05, then what happened",
            ),
        }
    }
    let mut follow_ups = Vec::new();
    for (i, line) in lines(form.get("follow_ups")).enumerate() {
        let mut parts = line.split('|').map(str::trim);
        let description = parts.next().unwrap_or_default().to_owned();
        let owner = parts.next().filter(|o| !o.is_empty()).map(str::to_owned);
        let state = match parts.next().filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => match s.to_ascii_lowercase().replace(' ', "_").parse() {
                Ok(state) => Some(state),
                Err(_) => {
                    add(
                        &mut errors,
                        "follow_ups",
                        i,
                        "the state must be open, in progress or done",
                    );
                    None
                }
            },
        };
        follow_ups.push(FollowUpInput {
            description,
            owner,
            state,
        });
    }
    let input = PostmortemInput {
        summary: form.get("summary").to_owned(),
        root_cause: form.get("root_cause").to_owned(),
        scope_figures,
        timeline,
        follow_ups,
        translations: None,
    };
    errors.is_empty().then_some(input).ok_or(errors)
}

/// `2026-11-30 14:05 text` (or `2026-11-30T14:05 text`) in UTC.
fn timeline_entry(line: &str) -> Option<TimelineEntry> {
    let stamp = line.get(..16)?.replacen('T', " ", 1);
    let at = NaiveDateTime::parse_from_str(&stamp, "%Y-%m-%d %H:%M").ok()?;
    let description = line
        .get(16..)?
        .trim_start_matches([' ', '-', '\u{2014}', ':'])
        .trim();
    Some(TimelineEntry {
        at: Utc.from_utc_datetime(&at),
        description: description.to_owned(),
    })
}

/// Stored figures as form lines.
pub fn figures_text(figures: &[ScopeFigure]) -> String {
    figures
        .iter()
        .map(|f| format!("{}: {}", f.label, f.value))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The stored timeline as form lines.
pub fn timeline_text(rows: &[TimelineEntryRow]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "{} {}",
                r.occurred_at.format("%Y-%m-%d %H:%M"),
                r.description
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The stored follow-ups as form lines.
pub fn follow_ups_text(rows: &[FollowUp]) -> String {
    rows.iter()
        .map(|f| {
            let state = f.state.as_str();
            format!(
                "{} | {} | {state}",
                f.description,
                f.owner.as_deref().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::FollowUpState;
    use crate::http::admin::fields::filled;

    #[test]
    fn lines_become_figures_timeline_and_follow_ups() {
        let form = filled([
            ("summary", "Checkout failed.".to_owned()),
            ("root_cause", "A bad deploy.".to_owned()),
            (
                "scope_figures",
                "Duration: 47 minutes\n\nAffected: about 8%".to_owned(),
            ),
            (
                "timeline",
                "2026-11-30 14:05 Alert fired\n2026-11-30T14:20 — Rolled back".to_owned(),
            ),
            (
                "follow_ups",
                "Add a canary | ops | in progress\nWrite a test".to_owned(),
            ),
        ]);
        let input = postmortem_input(&form).unwrap();
        assert_eq!(input.scope_figures.len(), 2);
        assert_eq!(input.scope_figures[1].value, "about 8%");
        assert_eq!(input.timeline[1].description, "Rolled back");
        assert_eq!(
            input.timeline[0].at.to_rfc3339(),
            "2026-11-30T14:05:00+00:00"
        );
        assert_eq!(input.follow_ups[0].state, Some(FollowUpState::InProgress));
        assert_eq!(input.follow_ups[1].owner, None);
    }

    #[test]
    fn unreadable_lines_are_reported_by_position() {
        let form = filled([
            ("scope_figures", "no colon here".to_owned()),
            ("timeline", "yesterday it broke".to_owned()),
            ("follow_ups", "x | y | someday".to_owned()),
        ]);
        let errors = postmortem_input(&form).unwrap_err();
        for field in ["scope_figures[0]", "timeline[0]", "follow_ups[0]"] {
            assert!(errors.contains_key(field), "{field}: {errors:?}");
        }
    }
}
