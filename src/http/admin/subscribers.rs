//! The console's view of a page's subscribers and deliveries (`/admin/pages/{slug}/subscribers`):
//! who is subscribed and in what state, each recent delivery's state, attempts and last error,
//! and buttons to retry a dead or failed delivery and to remove a subscriber (CSRF-checked
//! forms, audited like API writes). Viewers see the deliveries only.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::db::models::notify::DeliveryQuery;
use crate::db::states::DeliveryState;
use crate::domain::SubscriberId;
use crate::error::AppResult;
use crate::http::admin::{ConsoleFrame, render, see_other};
use crate::http::auth::{Authenticated, Permission};
use crate::services::audit::Change;
use crate::services::deliveries;
use crate::services::pages;
use crate::services::subscribers::{self as service, SubscriberView};
use crate::state::AppState;

/// Registers the console routes of subscribers and deliveries.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/admin/pages/{slug}/subscribers",
        web::get().to(show_subscribers),
    )
    .route(
        "/admin/pages/{slug}/subscribers/{id}/delete",
        web::post().to(delete_subscriber),
    )
    .route(
        "/admin/pages/{slug}/deliveries/{id}/retry",
        web::post().to(retry_delivery),
    );
}

/// `?state=` of the deliveries table.
#[derive(Debug, Default, Deserialize)]
pub struct Filter {
    state: Option<String>,
}

#[derive(Serialize)]
struct DeliveryRow {
    id: String,
    channel: &'static str,
    state: &'static str,
    attempts: i32,
    last_error: String,
    created_at: String,
    retryable: bool,
    recipient: String,
}

#[derive(Serialize)]
struct View {
    frame: ConsoleFrame,
    slug: String,
    page_name: String,
    show_subscribers: bool,
    subscribers: Vec<SubscriberView>,
    deliveries: Vec<DeliveryRow>,
    states: Vec<serde_json::Value>,
}

/// `GET /admin/pages/{slug}/subscribers?state=`.
pub async fn show_subscribers(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    filter: web::Query<Filter>,
) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    let wanted = filter
        .into_inner()
        .state
        .and_then(|s| DeliveryState::parse(&s));
    let show_subscribers = auth.can(Permission::Write);
    let (name, wanted_state) = (slug.clone(), wanted);
    let (page_name, subscribers, deliveries) = state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &name)?;
            let subscribers = service::list(c, &page.id)?;
            let query = DeliveryQuery {
                page_id: &page.id,
                state: wanted_state,
                limit: 100,
                offset: 0,
            };
            Ok((page.name, subscribers, deliveries::list(c, &query)?))
        })
        .await?;
    let recipient = |id: &str| {
        subscribers
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.email.clone().or(s.url.clone()))
            .unwrap_or_else(|| "(removed or unsubscribed)".into())
    };
    let deliveries = deliveries
        .iter()
        .map(|d| DeliveryRow {
            id: d.id.clone(),
            channel: d.channel.as_str(),
            state: d.state.as_str(),
            attempts: d.attempts,
            last_error: d
                .waiting_for
                .as_deref()
                .and_then(crate::domain::waiting::Waiting::parse)
                .map(|w| w.describe().to_owned())
                .or_else(|| d.last_error.clone())
                .unwrap_or_default(),
            created_at: d.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            retryable: d.state.retryable(),
            recipient: if show_subscribers {
                recipient(&d.subscriber_id)
            } else {
                String::new()
            },
        })
        .collect();
    let states = DeliveryState::ALL
        .iter()
        .map(|s| json!({"value": s.as_str(), "selected": wanted == Some(*s)}))
        .collect();
    let view = View {
        frame: ConsoleFrame::new(&state, &auth, "Subscribers and deliveries"),
        slug,
        page_name,
        show_subscribers,
        subscribers: if show_subscribers {
            subscribers
        } else {
            Vec::new()
        },
        deliveries,
        states,
    };
    render(&state, StatusCode::OK, "admin/subscribers", &view)
}

/// Runs a console write with its audit row (`http::admin::write::audited`).
async fn audited(
    state: &AppState,
    auth: &Authenticated,
    write: impl FnOnce(&mut crate::db::DbConn) -> AppResult<Change> + Send + 'static,
) -> AppResult<()> {
    super::write::audited(state, auth, Permission::Write, move |c| Ok(((), write(c)?))).await
}

/// `POST /admin/pages/{slug}/deliveries/{id}/retry`.
pub async fn retry_delivery(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    // The engine's clock: it decides when the delivery is due (tests move it forward).
    let now = state.notify.clock.now();
    let back = format!("/admin/pages/{slug}/subscribers");
    audited(&state, &auth, move |c| {
        let page = pages::get_page_by_slug(c, &slug)?;
        deliveries::retry(c, &page.id, &id, now)?;
        Ok(Change {
            action: "delivery.retry",
            entity_type: "delivery",
            entity_id: Some(id),
            page_id: Some(page.id),
            changes: json!({}),
        })
    })
    .await?;
    Ok(see_other(&back))
}

/// `POST /admin/pages/{slug}/subscribers/{id}/delete`.
pub async fn delete_subscriber(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, SubscriberId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    let back = format!("/admin/pages/{slug}/subscribers");
    audited(&state, &auth, move |c| {
        let page = pages::get_page_by_slug(c, &slug)?;
        service::remove(c, &page.id, &id)?;
        Ok(Change {
            action: "subscriber.delete",
            entity_type: "subscriber",
            entity_id: Some(id.into()),
            page_id: Some(page.id),
            changes: json!({}),
        })
    })
    .await?;
    Ok(see_other(&back))
}
