//! `/pages/{slug}/subscribers` (responders add pre-confirmed subscribers, list, export and
//! remove them) and `/pages/{slug}/deliveries` (each delivery's state, attempts and last
//! error; dead letters can be retried). Subscriber addresses are personal data: reading them
//! needs the write permission, as changing them does.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::typed;
use super::run::{self, change, write};
use crate::auth::{Authenticated, Permission};
use crate::db::models::notify::{self as rows, Delivery, DeliveryQuery};
use crate::db::states::DeliveryState;
use crate::delivery::signature::new_secret;
use crate::error::{AppError, AppResult};
use crate::http::subscribe::check_webhook_url;
use crate::services::idempotency::Answer;
use crate::services::subscriptions::{
    self as subscribe, Origin, SubscribeInput, Subscribed, Target,
};
use crate::state::AppState;

/// `?format=csv` on the list.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    format: Option<String>,
}

/// `POST /pages/{slug}/subscribers`: the public body shape; email subscribers are confirmed at
/// once (the responder vouches for them), webhooks answer their secret once.
#[tracing::instrument(skip_all)]
pub async fn create_subscriber(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let input: SubscribeInput = typed(&fields)?;
    let subscription = input.check()?;
    if let Target::Webhook { url, .. } = &subscription.target {
        check_webhook_url(&state, url).await?;
    }
    let app = state.clone();
    let components = subscription.components.clone();
    write(
        &state,
        &req,
        &auth,
        Permission::Write,
        &fields.clone(),
        move |c| {
            let page = run::page(c, &slug)?;
            let subscribed =
                subscribe::subscribe(c, &page.id, &subscription, Origin::Responder, new_secret)?;
            let (body, id) = match subscribed {
                Subscribed::Email(s) => (json!(subscribe::view(c, &s)?), s.id),
                Subscribed::Webhook(s) => (
                    crate::http::subscribe::webhook_answer(&app, &slug, &s, components),
                    s.id,
                ),
            };
            let audit = change("subscriber.create", "subscriber", &id, &page.id, fields);
            Ok((Answer::new(201, body), audit))
        },
    )
    .await
}

/// `GET /pages/{slug}/subscribers` (JSON, or CSV with `?format=csv`).
pub async fn list_subscribers(
    state: web::Data<AppState>,
    auth: Authenticated,
    slug: web::Path<String>,
    query: super::query::Query<ListQuery>,
) -> AppResult<HttpResponse> {
    match query.format.as_deref() {
        None | Some("json") => {}
        Some("csv") => return export(&state, &auth, slug.into_inner()).await,
        Some(_) => return Err(AppError::field("format", "must be json or csv")),
    }
    auth.require(Permission::Write)?;
    let slug = slug.into_inner();
    let list = state
        .db
        .run(move |c| {
            let page = run::page(c, &slug)?;
            subscribe::list(c, &page.id)
        })
        .await?;
    Ok(HttpResponse::Ok().json(list))
}

/// `GET /pages/{slug}/subscribers/export`: CSV.
pub async fn export_subscribers(
    state: web::Data<AppState>,
    auth: Authenticated,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    export(&state, &auth, slug.into_inner()).await
}

async fn export(state: &AppState, auth: &Authenticated, slug: String) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let name = slug.clone();
    let csv = state
        .db
        .run(move |c| {
            let page = run::page(c, &slug)?;
            subscribe::export_csv(c, &page.id)
        })
        .await?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}-subscribers.csv\""),
        ))
        .body(csv))
}

/// `DELETE /pages/{slug}/subscribers/{id}`.
#[tracing::instrument(skip_all)]
pub async fn delete_subscriber(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    write(
        &state,
        &req,
        &auth,
        Permission::Write,
        &Value::Null,
        move |c| {
            let page = run::page(c, &slug)?;
            subscribe::remove(c, &page.id, &id)?;
            let audit = change("subscriber.delete", "subscriber", &id, &page.id, json!({}));
            Ok((Answer::new(200, json!({"id": id, "deleted": true})), audit))
        },
    )
    .await
}

/// The query of the deliveries list.
#[derive(Debug, Default, Deserialize)]
pub struct DeliveriesQuery {
    /// `pending`, `delivered`, `failed`, `dead` or `skipped`.
    state: Option<String>,
    limit: Option<i64>,
    offset: Option<i64>,
}

fn delivery_view(d: &Delivery) -> Value {
    json!({
        "id": d.id,
        "event_id": d.event_id,
        "subscriber_id": d.subscriber_id,
        "channel": d.channel,
        "state": d.state,
        "attempts": d.attempts,
        "next_attempt_at": (d.state == DeliveryState::Pending).then(|| d.next_attempt_at.and_utc()),
        "last_error": d.last_error,
        "waiting_for": d.waiting_for,
        "waiting": d.waiting_for.as_deref().and_then(crate::delivery::Waiting::parse).map(|w| w.describe()),
        "delivered_at": d.delivered_at.map(|t| t.and_utc()),
        "created_at": d.created_at.and_utc(),
    })
}

/// `GET /pages/{slug}/deliveries?state=&limit=&offset=`: newest first.
pub async fn list_deliveries(
    state: web::Data<AppState>,
    auth: Authenticated,
    slug: web::Path<String>,
    query: super::query::Query<DeliveriesQuery>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Read)?;
    let (slug, query) = (slug.into_inner(), query.into_inner());
    let limit = query.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(AppError::field("limit", "must be between 1 and 500"));
    }
    let offset = query.offset.unwrap_or(0);
    if offset < 0 {
        return Err(AppError::field("offset", "must not be negative"));
    }
    let wanted = match query.state.as_deref() {
        None => None,
        Some(s) => Some(DeliveryState::parse(s).ok_or_else(|| {
            AppError::field(
                "state",
                "must be pending, delivered, failed, dead or skipped",
            )
        })?),
    };
    let list = state
        .db
        .run(move |c| {
            let page = run::page(c, &slug)?;
            let q = DeliveryQuery {
                page_id: &page.id,
                state: wanted,
                limit,
                offset,
            };
            Ok(rows::list_deliveries(c, &q)?)
        })
        .await?;
    Ok(HttpResponse::Ok().json(list.iter().map(delivery_view).collect::<Vec<_>>()))
}

/// `POST /pages/{slug}/deliveries/{id}/retry`: a dead or failed delivery goes back in the
/// queue with a fresh count of attempts (409 for one in another state).
#[tracing::instrument(skip_all)]
pub async fn retry_delivery(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    // The engine's clock: it decides when the delivery is due (tests move it forward).
    let now = state.notify.clock.now();
    write(
        &state,
        &req,
        &auth,
        Permission::Write,
        &Value::Null,
        move |c| {
            let page = run::page(c, &slug)?;
            let found = rows::find_delivery(c, &page.id, &id)?
                .ok_or_else(|| AppError::NotFound("delivery".into()))?;
            if rows::requeue(c, &id, now)? == 0 {
                return Err(AppError::Conflict(format!(
                    "delivery {id} is {}; only dead or failed deliveries are retried",
                    found.state
                )));
            }
            let again = rows::find_delivery(c, &page.id, &id)?.unwrap_or(found);
            let audit = change("delivery.retry", "delivery", &id, &page.id, json!({}));
            Ok((Answer::new(200, delivery_view(&again)), audit))
        },
    )
    .await
}
