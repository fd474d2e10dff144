//! Console form bodies: the urlencoded fields as typed, turned into service inputs, and the
//! messages per field shown next to them when something is refused.

use std::collections::BTreeMap;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;

use crate::domain::{ComponentStatus, Impact};
use crate::error::{AppError, FieldErrors};
use crate::services::incidents::{OpenIncidentInput, PostUpdateInput};
use crate::services::templates::TemplateInput;

/// The prefix of the per-component select (`component.<id>`); empty means "no change".
pub const COMPONENT_PREFIX: &str = "component.";

/// Where a record's form posts, how it is headed, and where it is deleted: a new record's form
/// posts to `{base}/new`; an edited one's to `{base}/{id}`, with `{base}/{id}/delete`.
#[derive(Debug, Serialize)]
pub struct FormTarget {
    pub heading: String,
    pub action: String,
    pub delete_action: Option<String>,
}

impl FormTarget {
    /// The target of the form under `base`: editing the record `(id, heading)`, or a new one
    /// headed `new_heading`.
    pub fn new(base: &str, editing: Option<(&str, String)>, new_heading: String) -> Self {
        match editing {
            Some((id, heading)) => Self {
                heading,
                action: format!("{base}/{id}"),
                delete_action: Some(format!("{base}/{id}/delete")),
            },
            None => Self {
                heading: new_heading,
                action: format!("{base}/new"),
                delete_action: None,
            },
        }
    }
}

/// A submitted form, field by field, as typed.
#[derive(Debug, Clone, Default)]
pub struct Submitted(pub Vec<(String, String)>);

/// What a console form page shows besides what it lists: the form as typed (blank when the
/// page is first shown), why it was refused, and a secret shown this once.
#[derive(Debug, Default)]
pub struct Shown<'a> {
    pub form: Option<&'a Submitted>,
    pub refused: Option<&'a FieldErrors>,
    pub secret: Option<serde_json::Value>,
}

impl<'a> Shown<'a> {
    /// The form again, with why it was refused.
    pub fn refused(form: &'a Submitted, refused: &'a FieldErrors) -> Self {
        Self {
            form: Some(form),
            refused: Some(refused),
            secret: None,
        }
    }

    /// A blank form, with a secret just made.
    pub fn secret(secret: serde_json::Value) -> Self {
        Self {
            secret: Some(secret),
            ..Self::default()
        }
    }

    /// The form as typed, or a blank one.
    pub fn form(&self) -> &Submitted {
        const BLANK: &Submitted = &Submitted(Vec::new());
        self.form.unwrap_or(BLANK)
    }
}

impl FromRequest for Submitted {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    /// The urlencoded body, up to the limit every console form reader shares (1 MiB: a
    /// message of 20,000 characters in each of six languages; `web::Form`'s default of
    /// 16 KiB refused a long message with a 413).
    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let urlencoded = req
            .headers()
            .get(actix_web::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
        let mut payload = payload.take();
        Box::pin(async move {
            if !urlencoded {
                return Err(AppError::BadRequest(
                    "a console form is sent as application/x-www-form-urlencoded".into(),
                )
                .into());
            }
            let body = crate::http::auth::extract::read_form(&mut payload).await?;
            Ok(Self(
                url::form_urlencoded::parse(&body).into_owned().collect(),
            ))
        })
    }
}

impl Submitted {
    /// The value of `name` (the first one), empty when absent.
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The value of `name`, `None` when absent or blank.
    fn optional(&self, name: &str) -> Option<String> {
        let v = self.get(name).trim();
        (!v.is_empty()).then(|| v.to_owned())
    }

    /// The status chosen for component `id`, empty for no change.
    pub fn component(&self, id: &str) -> &str {
        self.get(&format!("{COMPONENT_PREFIX}{id}"))
    }

    /// Component id -> new status, for the grid's rows that ask for a change.
    pub fn components(&self, errors: &mut FieldErrors) -> BTreeMap<String, ComponentStatus> {
        let mut map = BTreeMap::new();
        for (key, value) in &self.0 {
            let Some(id) = key.strip_prefix(COMPONENT_PREFIX) else {
                continue;
            };
            if value.is_empty() {
                continue;
            }
            match value.parse() {
                Ok(status) => {
                    map.insert(id.to_owned(), status);
                }
                Err(_) => add(
                    errors,
                    &format!("components.{id}"),
                    "is not a component status",
                ),
            }
        }
        map
    }

    /// The optional `impact` field; a message when it is not an impact.
    fn impact(&self, errors: &mut FieldErrors) -> Option<Impact> {
        let text = self.optional("impact")?;
        let impact = text.parse().ok();
        if impact.is_none() {
            add(errors, "impact", "is not an impact");
        }
        impact
    }

    /// The `next_update_by` field (a `datetime-local` value read in the page's zone).
    fn deadline(&self, tz: Tz, errors: &mut FieldErrors) -> Option<DateTime<Utc>> {
        // One of the quick choices ("in 15 min") wins over the field: it is chosen on purpose,
        // and "as typed" (empty) is the default.
        if let Some(minutes) = self.optional("next_update_in") {
            let at = quick_deadline(&minutes, Utc::now());
            if at.is_none() {
                add(
                    errors,
                    "next_update_by",
                    "choose 15, 30 or 60 minutes from now",
                );
            }
            return at;
        }
        let text = self.optional("next_update_by")?;
        match local_deadline(&text, tz) {
            Some(at) => Some(at),
            None => {
                add(errors, "next_update_by", "is not a date and time");
                None
            }
        }
    }

    /// The input of `open_incident`, or the messages of the fields that could not be read.
    pub fn open_input(&self, tz: Tz) -> Result<OpenIncidentInput, FieldErrors> {
        let mut errors = FieldErrors::new();
        let impact = self.impact(&mut errors);
        let input = OpenIncidentInput {
            name: self.get("name").to_owned(),
            impact,
            status: self.optional("status"),
            body: self.get("body").to_owned(),
            components: self.components(&mut errors),
            next_update_by: self.deadline(tz, &mut errors),
            user_impact: self.optional("user_impact"),
            scope: self.optional("scope"),
            root_cause: self.optional("root_cause"),
            translations: super::translations::typed(self, &["name", "body"]),
            ..OpenIncidentInput::default()
        };
        errors.is_empty().then_some(input).ok_or(errors)
    }

    /// The input of `open_incident` for a maintenance, or the fields that could not be read.
    pub fn maintenance_input(&self, tz: Tz) -> Result<OpenIncidentInput, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut time = |name: &str| {
            let text = self.optional(name)?;
            let at = local_deadline(&text, tz);
            if at.is_none() {
                add(&mut errors, name, "is not a date and time");
            }
            at
        };
        let (scheduled_for, scheduled_until) = (time("scheduled_for"), time("scheduled_until"));
        let input = OpenIncidentInput {
            name: self.get("name").to_owned(),
            kind: Some(crate::domain::IncidentKind::Maintenance),
            body: self.get("body").to_owned(),
            components: self.components(&mut errors),
            scheduled_for,
            scheduled_until,
            auto_transition: !self.get("auto_transition").is_empty(),
            translations: super::translations::typed(self, &["name", "body"]),
            ..OpenIncidentInput::default()
        };
        errors.is_empty().then_some(input).ok_or(errors)
    }

    /// The input of `create_template` / `update_template`, or the fields that could not be
    /// read.
    pub fn template_input(&self) -> Result<TemplateInput, FieldErrors> {
        let mut errors = FieldErrors::new();
        let impact = self.impact(&mut errors);
        let input = TemplateInput {
            name: self.get("name").to_owned(),
            title: self.get("title").to_owned(),
            impact,
            body: self.get("body").to_owned(),
            components: self.components(&mut errors),
        };
        errors.is_empty().then_some(input).ok_or(errors)
    }

    /// The input of `post_update`, or the messages of the fields that could not be read.
    pub fn update_input(&self, tz: Tz) -> Result<PostUpdateInput, FieldErrors> {
        let mut errors = FieldErrors::new();
        let input = PostUpdateInput {
            status: self.optional("status"),
            body: self.get("body").to_owned(),
            components: self.components(&mut errors),
            next_update_by: self.deadline(tz, &mut errors),
            reopen: !self.get("reopen").is_empty(),
            notify: None,
            deliver_notifications: None,
            translations: super::translations::typed(self, &["body"]),
        };
        errors.is_empty().then_some(input).ok_or(errors)
    }
}

/// The minutes from now a responder can promise the next update in with one choice.
pub const QUICK_DEADLINES: [i64; 3] = [15, 30, 60];

/// A quick choice (`"30"`) as the moment it promises, from `now`; `None` for anything else.
pub fn quick_deadline(minutes: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let minutes: i64 = minutes.trim().parse().ok()?;
    QUICK_DEADLINES
        .contains(&minutes)
        .then(|| now + chrono::Duration::minutes(minutes))
}

/// The quick choices as a form shows them, the one typed selected ("as typed" when none).
pub fn quick_choices(form: &Submitted) -> Vec<crate::render::html::choice::Choice> {
    let chosen = form.get("next_update_in");
    std::iter::once((String::new(), "As typed above".to_owned()))
        .chain(
            QUICK_DEADLINES
                .iter()
                .map(|m| (m.to_string(), format!("In {m} min"))),
        )
        .map(|(value, label)| crate::render::html::choice::Choice {
            selected: value == chosen,
            value,
            label,
        })
        .collect()
}

/// `2026-11-30T14:05` in `tz` as UTC; the earlier instant when a clock change repeats it.
pub fn local_deadline(text: &str, tz: Tz) -> Option<DateTime<Utc>> {
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S"))
        .ok()?;
    tz.from_local_datetime(&naive)
        .earliest()
        .map(|at| at.with_timezone(&Utc))
}

fn add(errors: &mut FieldErrors, field: &str, message: &str) {
    errors
        .entry(field.to_owned())
        .or_default()
        .push(message.to_owned());
}

/// The messages shown next to each field; every field present (strict templates).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Errors {
    pub any: bool,
    pub name: Option<String>,
    pub impact: Option<String>,
    pub status: Option<String>,
    pub body: Option<String>,
    pub next_update_by: Option<String>,
    pub user_impact: Option<String>,
    pub scope: Option<String>,
    pub root_cause: Option<String>,
    pub reopen: Option<String>,
    pub scheduled_for: Option<String>,
    pub scheduled_until: Option<String>,
    /// Messages about no field in particular (or about a component, by id).
    pub other: Vec<String>,
    #[serde(skip)]
    pub components: BTreeMap<String, String>,
}

impl Errors {
    /// Sorts the messages of a refused submission by field.
    pub fn from_fields(fields: &FieldErrors) -> Self {
        let mut errors = Self {
            any: !fields.is_empty(),
            ..Self::default()
        };
        for (field, messages) in fields {
            let text = messages.join("; ");
            let slot = match field.as_str() {
                "name" => &mut errors.name,
                "impact" => &mut errors.impact,
                "status" => &mut errors.status,
                "body" => &mut errors.body,
                "next_update_by" => &mut errors.next_update_by,
                "user_impact" => &mut errors.user_impact,
                "scope" => &mut errors.scope,
                "root_cause" => &mut errors.root_cause,
                "reopen" => &mut errors.reopen,
                "scheduled_for" => &mut errors.scheduled_for,
                "scheduled_until" => &mut errors.scheduled_until,
                other => {
                    match other.strip_prefix("components.") {
                        Some(id) => errors.components.insert(id.to_owned(), text.clone()),
                        None => None,
                    };
                    errors.other.push(format!("{other}: {text}"));
                    continue;
                }
            };
            *slot = Some(text);
        }
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_deadline_is_one_of_the_offered_minutes_from_now() {
        let now = Utc.with_ymd_and_hms(2026, 12, 3, 3, 0, 0).unwrap();
        assert_eq!(
            quick_deadline("30", now),
            Some(Utc.with_ymd_and_hms(2026, 12, 3, 3, 30, 0).unwrap())
        );
        assert_eq!(
            quick_deadline(" 60 ", now),
            Some(now + chrono::Duration::hours(1))
        );
        for refused in ["45", "-15", "", "soon", "15.5", "99999999999999999999"] {
            assert_eq!(quick_deadline(refused, now), None, "{refused:?}");
        }
    }

    #[test]
    fn the_quick_choices_keep_what_was_chosen() {
        let chosen = |form: &Submitted| -> Vec<String> {
            quick_choices(form)
                .into_iter()
                .filter(|c| c.selected)
                .map(|c| c.value)
                .collect()
        };
        assert_eq!(
            chosen(&Submitted::default()),
            vec![String::new()],
            "as typed"
        );
        let form = Submitted(vec![("next_update_in".into(), "30".into())]);
        assert_eq!(chosen(&form), vec!["30".to_owned()]);
        assert_eq!(quick_choices(&form).len(), 4);
    }

    fn form(pairs: &[(&str, &str)]) -> Submitted {
        Submitted(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn a_local_deadline_is_read_in_the_page_zone() {
        let at = local_deadline("2026-07-01T14:00", chrono_tz::Europe::Berlin).unwrap();
        assert_eq!(at.to_rfc3339(), "2026-07-01T12:00:00+00:00");
        assert!(local_deadline("tomorrow", Tz::UTC).is_none());
    }

    #[test]
    fn only_components_with_a_chosen_status_change() {
        let input = form(&[
            ("name", "API down"),
            ("body", "Looking"),
            ("component.a", ""),
            ("component.b", "major_outage"),
        ])
        .open_input(Tz::UTC)
        .unwrap();
        assert_eq!(input.components.len(), 1);
        assert_eq!(input.components["b"], ComponentStatus::MajorOutage);
    }

    #[test]
    fn unreadable_fields_are_reported_by_name() {
        let errors = form(&[("impact", "huge"), ("next_update_by", "soon")])
            .open_input(Tz::UTC)
            .unwrap_err();
        assert!(errors.contains_key("impact"));
        assert!(errors.contains_key("next_update_by"));
    }
}
