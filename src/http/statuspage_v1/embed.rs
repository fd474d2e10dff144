//! `/pages/{page_id}/status_embed_config`: how the page's status embed (`embed.js`) looks,
//! read and changed (owners). atlassian-python-api sends the fields without their
//! `status_embed_config` wrapper; both are taken.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::{V1Result, within};
use super::request::{self, Body, V1};
use crate::db::models::pages::StatusPage;
use crate::domain::embed::{Corner, Look, colour};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::api::run::Record;
use crate::http::auth::Permission;
use crate::services::idempotency::Answer;
use crate::services::pages as service;

/// What the embed draws where its owner set nothing: a banner at the top, in the colours of
/// `embed.js` (a major incident's, and a maintenance's).
const DRAWN: (&str, &str, &str, &str, &str) =
    ("top-left", "#ffebe9", "#1f2328", "#ddf4ff", "#1f2328");

fn config(page: &StatusPage) -> Value {
    let look = Look::read(&page.embed_look);
    json!({
        "page_id": page.id,
        "position": look.position.map_or(DRAWN.0, Corner::as_str),
        "incident_background_color": look.incident_background_color.as_deref().unwrap_or(DRAWN.1),
        "incident_text_color": look.incident_text_color.as_deref().unwrap_or(DRAWN.2),
        "maintenance_background_color": look.maintenance_background_color.as_deref().unwrap_or(DRAWN.3),
        "maintenance_text_color": look.maintenance_text_color.as_deref().unwrap_or(DRAWN.4),
    })
}

/// `GET /pages/{page_id}/status_embed_config`.
pub async fn get(v1: V1, page_id: web::Path<String>) -> V1Result<HttpResponse> {
    let page_id = page_id.into_inner();
    Ok(v1
        .read(Permission::Read, move |c| {
            Ok(config(&request::page(c, &page_id)?))
        })
        .await?)
}

#[derive(Debug, Default, Deserialize)]
struct Given {
    position: Option<String>,
    incident_background_color: Option<String>,
    incident_text_color: Option<String>,
    maintenance_background_color: Option<String>,
    maintenance_text_color: Option<String>,
}

impl Given {
    /// `look` with what is given applied (an empty text goes back to the default).
    fn applied(&self, mut look: Look) -> AppResult<Look> {
        let mut refused = FieldErrors::new();
        let mut refuse = |field: &str, message: String| {
            refused.insert(field.to_owned(), vec![message]);
        };
        if let Some(position) = self.position.as_deref() {
            look.position = match position {
                "" => None,
                name => Corner::parse(name).map_err(|e| refuse("position", e)).ok(),
            };
        }
        for (field, given, slot) in [
            (
                "incident_background_color",
                &self.incident_background_color,
                &mut look.incident_background_color,
            ),
            (
                "incident_text_color",
                &self.incident_text_color,
                &mut look.incident_text_color,
            ),
            (
                "maintenance_background_color",
                &self.maintenance_background_color,
                &mut look.maintenance_background_color,
            ),
            (
                "maintenance_text_color",
                &self.maintenance_text_color,
                &mut look.maintenance_text_color,
            ),
        ] {
            match given.as_deref() {
                None => {}
                Some("") => *slot = None,
                Some(text) => match colour(text) {
                    Ok(c) => *slot = Some(c),
                    Err(e) => refuse(field, e),
                },
            }
        }
        match refused.is_empty() {
            true => Ok(look),
            false => Err(AppError::Validation(refused)),
        }
    }
}

/// `PATCH` or `PUT /pages/{page_id}/status_embed_config` (owners).
#[tracing::instrument(skip_all)]
pub async fn update(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    let given: Given = match body.0.get("status_embed_config") {
        Some(_) => body.inside("status_embed_config", &[])?,
        None => body.whole()?,
    };
    let page_id = page_id.into_inner();
    v1.write_in_page(Permission::Admin, page_id, body.0, move |c, page| {
        let look = given
            .applied(Look::read(&page.embed_look))
            .map_err(|e| within("status_embed_config", e))?;
        let page = service::set_embed_look(c, &page.id, &look)?;
        let record = Record::new("page.embed_look", "page", page.id.as_str());
        Ok((Answer::new(200, config(&page)), record))
    })
    .await
}
