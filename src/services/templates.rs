//! Incident templates: a page's prepared incident name, impact, message and component statuses,
//! and pre-filling an incident from one (explicit fields win).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::db::models::components;
use crate::db::models::pages;
use crate::db::models::templates::{self, IncidentTemplate};
use crate::db::{DbConn, new_id, now, write_tx};
use crate::domain::{ComponentStatus, Impact, PageId};
use crate::error::{AppError, AppResult};
use crate::services::pages::{FieldCheck, MAX_NAME_LEN, found, required_line, required_text};

/// The longest template title (the incident name it pre-fills), in characters.
const MAX_TITLE_LEN: usize = 200;
/// The longest template body (markdown), in characters.
const MAX_BODY_LEN: usize = 20_000;

/// A template as written: every field is replaced on update.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TemplateInput {
    pub name: String,
    pub title: String,
    pub impact: Option<Impact>,
    pub body: String,
    /// Component id → status.
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub components: BTreeMap<String, ComponentStatus>,
}

/// Creates a template on a page.
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn create_template(
    conn: &mut DbConn,
    page_id: &PageId,
    input: &TemplateInput,
) -> AppResult<IncidentTemplate> {
    write_tx(conn, |conn| {
        found(pages::find(conn, page_id), "page")?;
        let at = now();
        let template = checked(conn, page_id, new_id(), input, at)?;
        let template = IncidentTemplate {
            created_at: at,
            ..template
        };
        templates::insert(conn, &template)?;
        Ok(template)
    })
}

/// Replaces a template's fields.
#[tracing::instrument(skip_all, fields(template_id = %template_id))]
pub fn update_template(
    conn: &mut DbConn,
    page_id: &PageId,
    template_id: &str,
    input: &TemplateInput,
) -> AppResult<IncidentTemplate> {
    write_tx(conn, |conn| {
        let old = get_template(conn, page_id, template_id)?;
        let template = checked(conn, page_id, old.id, input, now())?;
        let template = IncidentTemplate {
            created_at: old.created_at,
            ..template
        };
        templates::replace(conn, &template)?;
        Ok(template)
    })
}

/// Deletes a template of a page.
pub fn delete_template(conn: &mut DbConn, page_id: &PageId, template_id: &str) -> AppResult<()> {
    write_tx(conn, |conn| {
        get_template(conn, page_id, template_id)?;
        templates::delete(conn, template_id)?;
        Ok(())
    })
}

/// The template of this page with this id (one of another page is not found).
pub fn get_template(
    conn: &mut DbConn,
    page_id: &PageId,
    template_id: &str,
) -> AppResult<IncidentTemplate> {
    let template = found(templates::find(conn, template_id), "template")?;
    if template.page_id != page_id {
        return Err(AppError::NotFound("template".into()));
    }
    Ok(template)
}

/// A page's templates by name.
pub fn list_templates(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<IncidentTemplate>> {
    found(pages::find(conn, page_id), "page")?;
    Ok(templates::list(conn, page_id)?)
}

/// Fills the fields of an incident body (JSON object) that it leaves out (or sets to `null`)
/// from the template: `name` from its title, `impact`, `body` and `components`.
pub fn prefill(template: &IncidentTemplate, incident: &mut Value) -> AppResult<()> {
    let Some(fields) = incident.as_object_mut() else {
        return Ok(());
    };
    let components: Value = serde_json::from_str(&template.components)
        .map_err(|e| anyhow::anyhow!("corrupt template components: {e}"))?;
    let given = [
        ("name", Some(Value::from(template.title.clone()))),
        ("impact", template.impact.clone().map(Value::from)),
        ("body", Some(Value::from(template.body.clone()))),
        ("components", Some(components)),
    ];
    for (field, value) in given {
        if let Some(value) = value
            && fields.get(field).is_none_or(Value::is_null)
        {
            fields.insert(field.to_owned(), value);
        }
    }
    Ok(())
}

/// Validates an input into a row (creation time set to `at`; the caller adjusts it).
fn checked(
    conn: &mut DbConn,
    page_id: &PageId,
    id: String,
    input: &TemplateInput,
    at: chrono::NaiveDateTime,
) -> AppResult<IncidentTemplate> {
    let mut check = FieldCheck::default();
    let name = check.check("name", required_line(&input.name, MAX_NAME_LEN));
    let title = check.check("title", required_line(&input.title, MAX_TITLE_LEN));
    let body = check.check("body", required_text(&input.body, MAX_BODY_LEN));
    let ids: Vec<&str> = input.components.keys().map(String::as_str).collect();
    let on_page = components::find_on_page(conn, page_id, &ids)?;
    for id in ids {
        if !on_page.iter().any(|c| c.id == id) {
            check.add(
                format!("components.{id}"),
                "is not a component of this page",
            );
        }
    }
    let components = serde_json::to_string(&input.components)
        .map_err(|e| anyhow::anyhow!("serializing template components: {e}"))?;
    let fields = (|| Some((name?, title?, body?)))();
    let (name, title, body) = check.done(fields)?;
    Ok(IncidentTemplate {
        id,
        page_id: page_id.to_owned(),
        name,
        title,
        impact: input.impact.map(|i| i.as_str().to_owned()),
        body,
        components,
        created_at: at,
        updated_at: at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template() -> IncidentTemplate {
        let at = now();
        IncidentTemplate {
            id: "t".into(),
            page_id: "p".into(),
            name: "Database down".into(),
            title: "Database unavailable".into(),
            impact: Some("major".into()),
            body: "We are investigating.".into(),
            components: r#"{"c1":"major_outage"}"#.into(),
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn prefill_fills_absent_and_null_fields_and_explicit_fields_win() {
        let mut body = serde_json::json!({"name": "Mine", "impact": null});
        prefill(&template(), &mut body).unwrap();
        assert_eq!(body["name"], "Mine");
        assert_eq!(body["impact"], "major");
        assert_eq!(body["body"], "We are investigating.");
        assert_eq!(body["components"]["c1"], "major_outage");
    }
}
