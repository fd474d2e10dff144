//! `/pages/{page_id}/subscribers`: list (type, state, `q`, sort, paging), create (mail or
//! webhook, to chosen components, with or without a confirmation), get, update its
//! components, unsubscribe, resend a confirmation, reactivate the quarantined, counts by type
//! and by type and state, and the unsubscribed. Subscriber addresses are personal data: as on
//! `/api/v1`, reading them needs the write permission.
//!
//! Herald's subscribers follow a page or its components, not one incident: an incident's
//! subscribers are those its components' news reaches, and subscribing to one incident is
//! refused.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::components::Paging;
use super::error::{V1Result, within};
use super::flex::{self, Flag, Int};
use super::request::{self, Body, Query, V1};
use super::views;
use crate::db::DbConn;
use crate::db::models::notify::{Search, SearchOrder};
use crate::db::models::pages::StatusPage;
use crate::db::states::{Channel, SubscriberState};
use crate::delivery::signature::new_secret;
use crate::domain::SubscriberId;
use crate::error::{AppError, AppResult};
use crate::http::api::run;
use crate::http::auth::Permission;
use crate::http::subscribers::check_webhook_url;
use crate::services::idempotency::Answer;
use crate::services::subscribers::{self as service, Origin, SubscribeInput, Subscribed};

/// The kinds Statuspage has that Herald does not.
const OTHER_KINDS: &[&str] = &["sms", "slack", "integration_partner"];

/// A subscriber kind as a query names it; Statuspage's others are refused, saying so.
fn kind_of(field: &str, given: Option<&str>) -> AppResult<Option<Channel>> {
    match given {
        None | Some("") => Ok(None),
        Some("email") => Ok(Some(Channel::Email)),
        Some("webhook") => Ok(Some(Channel::Webhook)),
        Some(other) if OTHER_KINDS.contains(&other) => Err(AppError::field(
            field,
            format!("Herald has no {other} subscribers; it has email and webhook ones"),
        )),
        Some(_) => Err(AppError::field(field, "must be email or webhook")),
    }
}

/// A state filter in Statuspage's words (`active` by default; `all` for every one but the
/// unsubscribed).
fn states_of(given: Option<&str>) -> AppResult<Vec<SubscriberState>> {
    Ok(match given.unwrap_or("active") {
        "active" => vec![SubscriberState::Confirmed],
        "unconfirmed" => vec![SubscriberState::Pending],
        "quarantined" => vec![SubscriberState::Quarantined],
        "all" => vec![
            SubscriberState::Confirmed,
            SubscriberState::Pending,
            SubscriberState::Quarantined,
        ],
        _ => {
            return Err(AppError::field(
                "state",
                "must be active, unconfirmed, quarantined or all",
            ));
        }
    })
}

/// The list's query.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    q: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    state: Option<String>,
    limit: Option<Int>,
    per_page: Option<Int>,
    page: Option<Int>,
    sort_field: Option<String>,
    sort_direction: Option<String>,
}

impl ListQuery {
    fn search(&self) -> AppResult<Search> {
        let limit = self.limit.or(self.per_page).map_or(100, |l| l.0);
        if !(1..=100).contains(&limit) {
            return Err(AppError::field("limit", "must be between 1 and 100"));
        }
        // The document counts pages from 0 for this list, atlassian-python-api from 1; both
        // name the first page.
        let page = self.page.map_or(1, |p| p.0.max(1));
        let order = match self.sort_field.as_deref() {
            None | Some("primary") => SearchOrder::Address,
            Some("created_at") | Some("relevance") => SearchOrder::Created,
            Some("quarantined_at") => SearchOrder::Changed,
            Some(_) => {
                return Err(AppError::field(
                    "sort_field",
                    "must be primary, created_at, quarantined_at or relevance",
                ));
            }
        };
        let descending = match self.sort_direction.as_deref() {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(_) => return Err(AppError::field("sort_direction", "must be asc or desc")),
        };
        Ok(Search {
            kind: kind_of("type", self.kind.as_deref())?,
            states: states_of(self.state.as_deref())?,
            text: self.q.clone(),
            order,
            descending,
            limit: i64::from(limit),
            offset: i64::from(page - 1) * i64::from(limit),
        })
    }
}

fn listed(c: &mut DbConn, page: &StatusPage, search: &Search) -> AppResult<Value> {
    let found = service::search(c, &page.id, search)?;
    Ok(found.iter().map(views::subscriber).collect())
}

/// `GET /pages/{page_id}/subscribers?q=&type=&state=&sort_field=&sort_direction=&page=`.
pub async fn list(
    v1: V1,
    page_id: web::Path<String>,
    query: Query<ListQuery>,
) -> V1Result<HttpResponse> {
    let search = query.0.search()?;
    let page_id = page_id.into_inner();
    v1.in_page(Permission::Write, page_id, move |c, page| {
        listed(c, page, &search)
    })
    .await
}

/// `GET /pages/{page_id}/subscribers/unsubscribed?page=&per_page=` (also
/// `/pages/{page_id}/unsubscribed`, where atlassian-python-api asks).
pub async fn unsubscribed(
    v1: V1,
    page_id: web::Path<String>,
    paging: Query<Paging>,
) -> V1Result<HttpResponse> {
    let (skip, take) = paging.0.window()?;
    let search = Search {
        states: vec![SubscriberState::Unsubscribed],
        order: SearchOrder::Changed,
        descending: true,
        limit: i64::try_from(take).unwrap_or(100),
        offset: i64::try_from(skip).unwrap_or(0),
        ..Search::default()
    };
    let page_id = page_id.into_inner();
    v1.in_page(Permission::Write, page_id, move |c, page| {
        listed(c, page, &search)
    })
    .await
}

/// `{"subscriber": {...}}` of a create.
#[derive(Debug, Default, Deserialize)]
struct NewSubscriber {
    email: Option<String>,
    endpoint: Option<String>,
    phone_country: Option<String>,
    phone_number: Option<String>,
    page_access_user: Option<String>,
    skip_confirmation_notification: Option<Flag>,
    #[serde(default, deserialize_with = "flex::list")]
    component_ids: Option<Vec<String>>,
}

impl NewSubscriber {
    /// Herald's subscription: a webhook when an endpoint is given (its email gets the failure
    /// notices), else a mail subscriber.
    fn input(&self) -> AppResult<SubscribeInput> {
        if self.phone_number.is_some() || self.phone_country.is_some() {
            return Err(AppError::field(
                "phone_number",
                "Herald has no SMS subscribers; it has email and webhook ones",
            ));
        }
        if self.page_access_user.is_some() {
            return Err(AppError::field(
                "page_access_user",
                "Herald has no page access users",
            ));
        }
        if self.component_ids.as_ref().is_some_and(Vec::is_empty) {
            return Err(AppError::field(
                "component_ids",
                "must name at least one component (leave it out for the whole page)",
            ));
        }
        let webhook = self.endpoint.is_some();
        Ok(SubscribeInput {
            kind: Some(if webhook { "webhook" } else { "email" }.to_owned()),
            email: (!webhook).then(|| self.email.clone()).flatten(),
            url: self.endpoint.clone(),
            contact_email: webhook.then(|| self.email.clone()).flatten(),
            components: self.component_ids.clone(),
            component_updates: None,
            language: None,
        })
    }
}

/// The names Herald's subscription check gives its fields, as Statuspage's.
fn statuspage_field(e: AppError) -> AppError {
    let rename = |field: String| match field.as_str() {
        "url" => "endpoint".to_owned(),
        "contact_email" => "email".to_owned(),
        "components" => "component_ids".to_owned(),
        _ => field,
    };
    match e {
        AppError::Validation(fields) => {
            AppError::Validation(fields.into_iter().map(|(f, m)| (rename(f), m)).collect())
        }
        other => other,
    }
}

/// `POST /pages/{page_id}/subscribers` with `{"subscriber": {...}}`: a mail subscriber gets a
/// confirmation mail unless `skip_confirmation_notification` (then it is active at once); a
/// webhook is active at once, and the answer carries its signing secret once (Herald's own
/// `secret`).
#[tracing::instrument(skip_all)]
pub async fn create(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    v1.auth().require(Permission::Write)?;
    let fields: NewSubscriber = body.inside("subscriber", &[])?;
    let inside = |e| within("subscriber", statuspage_field(e));
    let subscription = fields.input().and_then(|i| i.check()).map_err(inside)?;
    if let service::Target::Webhook { url, .. } = &subscription.target {
        check_webhook_url(v1.state(), url).await.map_err(inside)?;
    }
    let origin = match fields.skip_confirmation_notification.is_some_and(|f| f.0) {
        true => Origin::Responder,
        false => Origin::Public,
    };
    let page_id = page_id.into_inner();
    let given = body.0.clone();
    Ok(v1
        .write(Permission::Write, &given, move |c| {
            let page = request::page(c, &page_id)?;
            let subscribed = service::subscribe(c, &page.id, &subscription, origin, new_secret)
                .map_err(inside)?;
            let (subscriber, secret) = match subscribed {
                Subscribed::Email(s) => (s, None),
                Subscribed::Webhook(s) => {
                    let secret = s.secret.clone();
                    (s, secret)
                }
            };
            let mut answer = views::subscriber(&service::view(c, &subscriber)?);
            if let Some(secret) = secret {
                answer["secret"] = Value::String(secret);
            }
            let audit = run::change(
                "subscriber.create",
                "subscriber",
                subscriber.id.as_str(),
                &page.id,
                json!({"mode": subscriber.kind}),
            );
            Ok((Answer::new(201, answer), audit))
        })
        .await?)
}

/// `GET /pages/{page_id}/subscribers/{subscriber_id}`.
pub async fn get(v1: V1, path: web::Path<(String, SubscriberId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.in_page(Permission::Write, page_id, move |c, page| {
        let subscriber = service::of_page(c, &page.id, &id)?;
        Ok(views::subscriber(&service::view(c, &subscriber)?))
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
struct Chosen {
    #[serde(default, deserialize_with = "flex::list")]
    component_ids: Option<Vec<String>>,
}

/// `PATCH /pages/{page_id}/subscribers/{subscriber_id}` with `{"component_ids": [...]}`: the
/// components it follows; without `component_ids`, the whole page.
#[tracing::instrument(skip_all)]
pub async fn update(
    v1: V1,
    path: web::Path<(String, SubscriberId)>,
    body: Body,
) -> V1Result<HttpResponse> {
    let chosen: Chosen = body.whole()?;
    let (page_id, id) = path.into_inner();
    let given = body.0.clone();
    Ok(v1
        .write(Permission::Write, &given, move |c| {
            let page = request::page(c, &page_id)?;
            let updated =
                service::set_chosen_components(c, &page.id, &id, chosen.component_ids.as_deref())
                    .map_err(statuspage_field)?;
            let audit = run::change(
                "subscriber.update",
                "subscriber",
                id.as_str(),
                &page.id,
                body.0,
            );
            Ok((Answer::new(200, views::subscriber(&updated)), audit))
        })
        .await?)
}

/// `DELETE /pages/{page_id}/subscribers/{subscriber_id}`: unsubscribes it (as its own link
/// does; Herald sends no goodbye, so `skip_unsubscription_notification` changes nothing).
#[tracing::instrument(skip_all)]
pub async fn delete(v1: V1, path: web::Path<(String, SubscriberId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    Ok(v1
        .write(Permission::Write, &Value::Null, move |c| {
            let page = request::page(c, &page_id)?;
            let subscriber = service::unsubscribe_by_id(c, &page.id, &id)?;
            let answer = views::subscriber(&service::view(c, &subscriber)?);
            let audit = run::change(
                "subscriber.unsubscribe",
                "subscriber",
                id.as_str(),
                &page.id,
                json!({}),
            );
            Ok((Answer::new(200, answer), audit))
        })
        .await?)
}

/// `POST /pages/{page_id}/subscribers/{subscriber_id}/resend_confirmation`: 201; only an
/// unconfirmed mail subscriber gets a mail.
#[tracing::instrument(skip_all)]
pub async fn resend_one(v1: V1, path: web::Path<(String, SubscriberId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.write(Permission::Write, &Value::Null, move |c| {
        let page = request::page(c, &page_id)?;
        let sent = service::resend_confirmation(c, &page.id, &id)?;
        let audit = run::change(
            "subscriber.resend_confirmation",
            "subscriber",
            id.as_str(),
            &page.id,
            json!({"sent": sent}),
        );
        Ok((Answer::new(201, Value::Null), audit))
    })
    .await?;
    Ok(HttpResponse::Created().finish())
}

/// `subscribers` of a bulk operation: ids (a list, or text separated by commas), or `all`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Chosen2 {
    Many(Vec<String>),
    One(String),
}

/// Which subscribers a bulk operation names.
#[derive(Debug, Clone)]
enum Named {
    All,
    Ids(Vec<SubscriberId>),
}

#[derive(Debug, Deserialize)]
struct Bulk {
    subscribers: Option<Chosen2>,
    #[serde(rename = "type")]
    kind: Option<String>,
    state: Option<String>,
    skip_unsubscription_notification: Option<Flag>,
}

impl Bulk {
    fn named(&self) -> AppResult<Named> {
        let ids: Vec<String> = match &self.subscribers {
            None => return Err(AppError::field("subscribers", "is required: ids, or all")),
            Some(Chosen2::One(text)) if text.trim() == "all" => return Ok(Named::All),
            Some(Chosen2::One(text)) => text
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
            Some(Chosen2::Many(ids)) => ids.clone(),
        };
        if ids.is_empty() || ids.len() > 100 {
            return Err(AppError::field(
                "subscribers",
                "must name 1 to 100 subscribers, or be all",
            ));
        }
        Ok(Named::Ids(
            ids.into_iter().map(SubscriberId::from).collect(),
        ))
    }
}

/// The ids a bulk operation acts on, on this page, of `kind` and in one of `states`.
fn chosen(
    c: &mut DbConn,
    page: &StatusPage,
    named: &Named,
    kind: Option<Channel>,
    states: Vec<SubscriberState>,
) -> AppResult<Vec<SubscriberId>> {
    match named {
        Named::All => {
            let search = Search {
                kind,
                states,
                limit: 100,
                ..Search::default()
            };
            Ok(service::search(c, &page.id, &search)?
                .into_iter()
                .map(|s| s.id)
                .collect())
        }
        Named::Ids(ids) => {
            let mut kept = Vec::new();
            for id in ids {
                let s = service::of_page(c, &page.id, id).map_err(|_| {
                    AppError::field(
                        "subscribers",
                        format!("{id} is not a subscriber of this page"),
                    )
                })?;
                if kind.is_none_or(|k| k == s.kind) && states.contains(&s.state) {
                    kept.push(id.clone());
                }
            }
            Ok(kept)
        }
    }
}

/// Runs a bulk operation's `each` on the subscribers it names; 201.
async fn bulk(
    v1: V1,
    page_id: String,
    body: Body,
    action: &'static str,
    states: Vec<SubscriberState>,
    each: fn(&mut DbConn, &StatusPage, &SubscriberId) -> AppResult<()>,
) -> V1Result<HttpResponse> {
    let request: Bulk = body.whole()?;
    let named = request.named()?;
    let kind = kind_of("type", request.kind.as_deref())?;
    let given = body.0.clone();
    v1.write(Permission::Write, &given, move |c| {
        let page = request::page(c, &page_id)?;
        let ids = chosen(c, &page, &named, kind, states)?;
        for id in &ids {
            each(c, &page, id)?;
        }
        let audit = run::change(
            action,
            "subscriber",
            page.id.as_str(),
            &page.id,
            json!({"subscribers": ids}),
        );
        Ok((Answer::new(201, Value::Null), audit))
    })
    .await?;
    Ok(HttpResponse::Created().finish())
}

/// `POST /pages/{page_id}/subscribers/resend_confirmation` with `{"subscribers": [...]}`.
#[tracing::instrument(skip_all)]
pub async fn resend_many(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    bulk(
        v1,
        page_id.into_inner(),
        body,
        "subscriber.resend_confirmation",
        vec![SubscriberState::Pending],
        |c, page, id| service::resend_confirmation(c, &page.id, id).map(|_| ()),
    )
    .await
}

/// `POST /pages/{page_id}/subscribers/reactivate` with `{"subscribers": [...], "type": ...}`.
#[tracing::instrument(skip_all)]
pub async fn reactivate(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    bulk(
        v1,
        page_id.into_inner(),
        body,
        "subscriber.reactivate",
        vec![SubscriberState::Quarantined],
        |c, page, id| service::reactivate(c, &page.id, id).map(|_| ()),
    )
    .await
}

/// `POST /pages/{page_id}/subscribers/unsubscribe` with `{"subscribers": [...], "type": ...,
/// "state": ...}` (active by default).
#[tracing::instrument(skip_all)]
pub async fn unsubscribe_many(
    v1: V1,
    page_id: web::Path<String>,
    body: Body,
) -> V1Result<HttpResponse> {
    let request: Bulk = body.whole()?;
    let states = states_of(request.state.as_deref())?;
    let _ = request.skip_unsubscription_notification;
    bulk(
        v1,
        page_id.into_inner(),
        body,
        "subscriber.unsubscribe",
        states,
        |c, page, id| service::unsubscribe_by_id(c, &page.id, id).map(|_| ()),
    )
    .await
}

/// The counts' query.
#[derive(Debug, Default, Deserialize)]
pub struct CountQuery {
    #[serde(rename = "type")]
    kind: Option<String>,
    state: Option<String>,
}

/// `GET /pages/{page_id}/subscribers/count?type=&state=`: per type (active by default).
pub async fn count(
    v1: V1,
    page_id: web::Path<String>,
    query: Query<CountQuery>,
) -> V1Result<HttpResponse> {
    let kind = kind_of("type", query.0.kind.as_deref())?;
    let states = states_of(query.0.state.as_deref())?;
    let page_id = page_id.into_inner();
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let mut per_kind =
            json!({"email": 0, "webhook": 0, "sms": 0, "slack": 0, "integration_partner": 0});
        for (k, state, n) in service::counts(c, &page.id)? {
            if states.contains(&state) && kind.is_none_or(|want| want == k) {
                let key = k.as_str();
                per_kind[key] = json!(per_kind[key].as_i64().unwrap_or(0) + n);
            }
        }
        if let Some(kind) = kind {
            per_kind = json!({kind.as_str(): per_kind[kind.as_str()].clone()});
        }
        Ok(per_kind)
    })
    .await
}

/// `GET /pages/{page_id}/subscribers/histogram_by_state` (also `.../histogram`): per type,
/// per state, with totals.
pub async fn histogram(v1: V1, page_id: web::Path<String>) -> V1Result<HttpResponse> {
    let page_id = page_id.into_inner();
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let zero = json!({"active": 0, "unconfirmed": 0, "quarantined": 0, "total": 0});
        let mut histogram = json!({
            "email": zero, "webhook": zero, "sms": zero, "slack": zero,
            "integration_partner": zero,
        });
        for (kind, state, n) in service::counts(c, &page.id)? {
            let word = views::statuspage_state(state);
            if word == "unsubscribed" {
                continue;
            }
            let row = &mut histogram[kind.as_str()];
            row[word] = json!(row[word].as_i64().unwrap_or(0) + n);
            row["total"] = json!(row["total"].as_i64().unwrap_or(0) + n);
        }
        Ok(histogram)
    })
    .await
}

/// The components an incident affects, and the page's subscribers its news reaches: those of
/// the whole page and those following one of them.
fn reached(c: &mut DbConn, page: &StatusPage, incident_id: &str) -> AppResult<Vec<Value>> {
    let incident = crate::services::incidents::get_page_incident(c, &page.id, incident_id)?;
    let detail = crate::services::incidents::incident_with_updates(c, &incident.id)?;
    let affected: Vec<&str> = detail.affected.iter().map(|a| a.id.as_str()).collect();
    let search = Search {
        states: states_of(Some("all"))?,
        order: SearchOrder::Created,
        limit: i64::MAX,
        ..Search::default()
    };
    Ok(service::search(c, &page.id, &search)?
        .iter()
        .filter(|s| {
            s.components
                .as_ref()
                .is_none_or(|chosen| chosen.iter().any(|id| affected.contains(&id.as_str())))
        })
        .map(views::subscriber)
        .collect())
}

/// `GET /pages/{page_id}/incidents/{incident_id}/subscribers`: the subscribers its news
/// reaches (Herald's subscribers follow components, not incidents).
pub async fn of_incident(
    v1: V1,
    path: web::Path<(String, String)>,
    paging: Query<Paging>,
) -> V1Result<HttpResponse> {
    let (page_id, incident_id) = path.into_inner();
    let paging = paging.0;
    v1.in_page(Permission::Write, page_id, move |c, page| {
        let reached = reached(c, page, &incident_id)?;
        Ok(paging.cut(reached.into_iter())?.into())
    })
    .await
}

/// `GET /pages/{page_id}/incidents/{incident_id}/subscribers/{subscriber_id}`: one the
/// incident's news reaches (404 otherwise).
pub async fn of_incident_one(
    v1: V1,
    path: web::Path<(String, String, String)>,
) -> V1Result<HttpResponse> {
    let (page_id, incident_id, id) = path.into_inner();
    v1.in_page(Permission::Write, page_id, move |c, page| {
        reached(c, page, &incident_id)?
            .into_iter()
            .find(|s| s["id"] == id.as_str())
            .ok_or_else(|| AppError::NotFound("subscriber of this incident".into()))
    })
    .await
}

/// Subscribing to one incident, or unsubscribing from one: refused, saying what Herald does.
pub async fn incident_subscription(v1: V1, req: HttpRequest) -> V1Result<HttpResponse> {
    v1.auth().require(Permission::Write)?;
    let page_id = req
        .match_info()
        .get("page_id")
        .unwrap_or_default()
        .to_owned();
    let incident_id = req
        .match_info()
        .get("incident_id")
        .unwrap_or_default()
        .to_owned();
    v1.read(Permission::Write, move |c| {
        let page = request::page(c, &page_id)?;
        crate::services::incidents::get_page_incident(c, &page.id, &incident_id)?;
        Ok(Value::Null)
    })
    .await?;
    Err(AppError::BadRequest(
        "Herald's subscribers follow a page or its components, not one incident: subscribe to \
         the incident's components with POST /v1/pages/{page_id}/subscribers (component_ids), \
         and unsubscribe with DELETE /v1/pages/{page_id}/subscribers/{subscriber_id}"
            .to_owned(),
    )
    .into())
}
