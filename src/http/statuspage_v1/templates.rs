//! `/pages/{page_id}/incident_templates`: list and create.

use actix_web::{HttpResponse, web};
use serde::Deserialize;

use super::components::Paging;
use super::error::{V1Result, within};
use super::flex::{self, Flag};
use super::request::{Body, Query, V1};
use super::views;
use crate::domain::{ComponentId, ComponentStatus};
use crate::error::{AppError, AppResult};
use crate::http::api::run::Record;
use crate::http::auth::Permission;
use crate::services::components as components_service;
use crate::services::idempotency::Answer;
use crate::services::templates::{self as service, TemplateInput};

/// `GET /pages/{page_id}/incident_templates?page=&per_page=`: by name.
pub async fn list(
    v1: V1,
    page_id: web::Path<String>,
    paging: Query<Paging>,
) -> V1Result<HttpResponse> {
    let (page_id, paging) = (page_id.into_inner(), paging.0);
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let components: Vec<_> = components_service::list_components(c, &page.id)?
            .components()
            .cloned()
            .collect();
        let templates = service::list_templates(c, &page.id)?;
        let listed = templates.iter().map(|t| views::template(t, &components));
        Ok(paging.cut(listed)?.into())
    })
    .await
}

/// `{"template": {...}}`.
#[derive(Debug, Default, Deserialize)]
struct TemplateFields {
    name: Option<String>,
    title: Option<String>,
    body: Option<String>,
    group_id: Option<String>,
    update_status: Option<String>,
    should_tweet: Option<Flag>,
    should_send_notifications: Option<Flag>,
    #[serde(default, deserialize_with = "flex::list")]
    component_ids: Option<Vec<String>>,
}

impl TemplateFields {
    /// Refuses what Herald's templates do not hold: template groups, a status to move to
    /// (Herald's templates open incidents, which begin investigating), tweets, and switching
    /// notifications off (a template always notifies).
    fn herald_keeps(&self) -> AppResult<()> {
        if self.group_id.as_deref().is_some_and(|g| !g.is_empty()) {
            return Err(AppError::field("group_id", "Herald has no template groups"));
        }
        if self
            .update_status
            .as_deref()
            .is_some_and(|s| !s.is_empty() && s != "investigating")
        {
            return Err(AppError::field(
                "update_status",
                "a Herald template opens an incident, which begins investigating",
            ));
        }
        if self.should_tweet.is_some_and(|f| f.0) {
            return Err(AppError::field(
                "should_tweet",
                "Herald does not post to Twitter",
            ));
        }
        if self.should_send_notifications.is_some_and(|f| !f.0) {
            return Err(AppError::field(
                "should_send_notifications",
                "an incident opened from a Herald template notifies unless told otherwise when it is opened",
            ));
        }
        Ok(())
    }
}

/// `POST /pages/{page_id}/incident_templates` with `{"template": {...}}`: its components are
/// listed as affected, at operational until the incident opened from it says otherwise.
#[tracing::instrument(skip_all)]
pub async fn create(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    let fields: TemplateFields = body.inside("template", &[])?;
    fields.herald_keeps().map_err(|e| within("template", e))?;
    let required = |v: &Option<String>, name: &str| {
        v.clone()
            .ok_or_else(|| AppError::field(&format!("template[{name}]"), "is required"))
    };
    let (name, title, text) = (
        required(&fields.name, "name")?,
        required(&fields.title, "title")?,
        required(&fields.body, "body")?,
    );
    let ids = fields.component_ids.clone().unwrap_or_default();
    let page_id = page_id.into_inner();
    let given = body.0.clone();
    v1.write_in_page(Permission::Write, page_id, given, move |c, page| {
        let mut components = std::collections::BTreeMap::new();
        for id in &ids {
            components_service::get_page_component(c, &page.id, &ComponentId::from(id.clone()))
                .map_err(|_| {
                    AppError::field(
                        "template[component_ids]",
                        format!("{id} is not a component of this page"),
                    )
                })?;
            components.insert(id.clone(), ComponentStatus::Operational);
        }
        let input = TemplateInput {
            name,
            title,
            impact: None,
            body: text,
            components,
        };
        let template =
            service::create_template(c, &page.id, &input).map_err(|e| within("template", e))?;
        let all: Vec<_> = components_service::list_components(c, &page.id)?
            .components()
            .cloned()
            .collect();
        Ok((
            Answer::new(201, views::template(&template, &all)),
            Record::new("template.create", "template", &template.id),
        ))
    })
    .await
}
