//! `/pages/{slug}/subscribers` (responders add pre-confirmed subscribers, list, export and
//! remove them) and `/pages/{slug}/deliveries` (each delivery's state, attempts and last
//! error; dead letters can be retried). Subscriber addresses are personal data: reading them
//! needs the write permission, as changing them does.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::typed;
use super::run::{self, Api, Record};
use crate::db::models::notify::{Delivery, DeliveryQuery};
use crate::db::states::DeliveryState;
use crate::delivery::signature::new_secret;
use crate::domain::SubscriberId;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::Permission;
use crate::http::subscribers::check_webhook_url;
use crate::services::audit::Change;
use crate::services::deliveries;
use crate::services::idempotency::Answer;
use crate::services::subscribers::on_request;
use crate::services::subscribers::{self as service, Origin, SubscribeInput, Subscribed, Target};

/// A subscriber of one type takes none of the other type's fields: an email subscriber has no
/// `url` or `contact_email`, a webhook no `email` (its failure notices go to `contact_email`).
/// The public form sends every field, some empty; the API takes what the document says.
fn only_its_types_fields(fields: &Value) -> AppResult<()> {
    let others: &[&str] = match fields.get("type").and_then(Value::as_str) {
        Some("email") => &["url", "contact_email"],
        Some("webhook") => &["email"],
        _ => &[],
    };
    let mut refused = FieldErrors::new();
    for name in others.iter().filter(|name| fields.get(**name).is_some()) {
        let message = match *name {
            "email" => "is for email subscribers; a webhook's failure notices go to contact_email",
            _ => "is for webhook subscribers only",
        };
        refused.insert((*name).to_owned(), vec![message.to_owned()]);
    }
    match refused.is_empty() {
        true => Ok(()),
        false => Err(AppError::Validation(refused)),
    }
}

/// `?format=csv` on the list.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    format: Option<String>,
}

/// `POST /pages/{slug}/subscribers`: the public body shape; email subscribers are confirmed at
/// once (the responder vouches for them), webhooks answer their secret once.
#[tracing::instrument(skip_all)]
pub async fn create_subscriber(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    api.auth().require(Permission::Write)?;
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let input: SubscribeInput = typed(&fields)?;
    only_its_types_fields(&fields)?;
    let subscription = input.check()?;
    if let Target::Webhook { url, .. } = &subscription.target {
        check_webhook_url(api.state(), url).await?;
    }
    let app = api.state().clone();
    let components = subscription.components.clone();
    api.page_write(Permission::Write, slug, fields, move |c, page| {
        let subscribed =
            service::subscribe(c, &page.id, &subscription, Origin::Responder, new_secret)?;
        let (body, id) = match subscribed {
            Subscribed::Email(s) => (json!(service::view(c, &s)?), s.id),
            Subscribed::Webhook(s) => (
                crate::http::subscribers::webhook_answer(&app, &page.slug, &s, components),
                s.id,
            ),
        };
        run::answered(
            201,
            body,
            Record::new("subscriber.create", "subscriber", &id),
        )
    })
    .await
}

/// `GET /pages/{slug}/subscribers` (JSON, or CSV with `?format=csv`).
pub async fn list_subscribers(
    api: Api,
    slug: web::Path<String>,
    query: super::query::Query<ListQuery>,
) -> AppResult<HttpResponse> {
    match query.format.as_deref() {
        None | Some("json") => {}
        Some("csv") => return export(&api, slug.into_inner()).await,
        Some(_) => return Err(AppError::field("format", "must be json or csv")),
    }
    api.page_read(Permission::Write, slug.into_inner(), move |c, page| {
        Ok(json!(service::list(c, &page.id)?))
    })
    .await
}

/// `GET /pages/{slug}/subscribers/export`: CSV.
pub async fn export_subscribers(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    export(&api, slug.into_inner()).await
}

async fn export(api: &Api, slug: String) -> AppResult<HttpResponse> {
    api.auth().require(Permission::Write)?;
    let name = slug.clone();
    let csv = api
        .state()
        .db
        .run(move |c| {
            let page = run::page(c, &slug)?;
            service::export_csv(c, &page.id)
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
    api: Api,
    path: web::Path<(String, SubscriberId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Write, slug, Value::Null, move |c, page| {
        service::remove(c, &page.id, &id)?;
        run::deleted(Record::new("subscriber.delete", "subscriber", &id))
    })
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
        "waiting": d.waiting_for.as_deref().and_then(crate::domain::waiting::Waiting::parse).map(|w| w.describe()),
        "delivered_at": d.delivered_at.map(|t| t.and_utc()),
        "created_at": d.created_at.and_utc(),
    })
}

/// `GET /pages/{slug}/deliveries?state=&limit=&offset=`: newest first.
pub async fn list_deliveries(
    api: Api,
    slug: web::Path<String>,
    query: super::query::Query<DeliveriesQuery>,
) -> AppResult<HttpResponse> {
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
    api.page_read(Permission::Read, slug, move |c, page| {
        let q = DeliveryQuery {
            page_id: &page.id,
            state: wanted,
            limit,
            offset,
        };
        Ok(deliveries::list(c, &q)?.iter().map(delivery_view).collect())
    })
    .await
}

/// `POST /pages/{slug}/deliveries/{id}/retry`: a dead or failed delivery goes back in the
/// queue with a fresh count of attempts (409 for one in another state).
#[tracing::instrument(skip_all)]
pub async fn retry_delivery(
    api: Api,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    // The engine's clock: it decides when the delivery is due (tests move it forward).
    let now = api.state().notify.clock.now();
    api.page_write(Permission::Write, slug, Value::Null, move |c, page| {
        let again = deliveries::retry(c, &page.id, &id, now)?;
        let record = Record::new("delivery.retry", "delivery", &id).with_changes(json!({}));
        run::answered(200, delivery_view(&again), record)
    })
    .await
}

/// `?email=`: the address a request about a subscriber's data is about.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Address {
    email: String,
}

/// `GET /subscribers?email=E` (owners): everything Herald holds about the address, on every
/// page: its subscriptions with what was sent to them, and its support messages.
#[tracing::instrument(skip_all)]
pub async fn held(api: Api, query: super::query::Query<Address>) -> AppResult<HttpResponse> {
    let email = on_request::address(&query.email)?;
    api.read(Permission::Admin, move |c| {
        Ok(json!(on_request::export(c, &email)?))
    })
    .await
}

/// `DELETE /subscribers?email=E` (owners): forgets the address on every page. The audit log
/// records that it happened and how much went, not the address.
#[tracing::instrument(skip_all)]
pub async fn forget(api: Api, query: super::query::Query<Address>) -> AppResult<HttpResponse> {
    let email = on_request::address(&query.email)?;
    api.write(Permission::Admin, &Value::Null, move |c| {
        let forgotten = on_request::forget(c, &email, chrono::Utc::now())?;
        let counts = json!({
            "subscriptions": forgotten.subscriptions,
            "support_submissions": forgotten.support_submissions,
            "mentions": forgotten.mentions.iter().map(|(_, n)| n).sum::<usize>(),
        });
        let audit = Change {
            action: "subscriber.forget",
            entity_type: "subscriber",
            entity_id: None,
            page_id: None,
            changes: counts.clone(),
        };
        let mut body = counts;
        body["forgotten"] = json!(true);
        Ok((Answer::new(200, body), audit))
    })
    .await
}
