//! `/pages/{page_id}/incidents`: list (with `q`, `limit`, `page`), the unresolved, scheduled,
//! upcoming and active maintenance lists, create (realtime, scheduled, or historical: a
//! backfill with its own time that notifies nobody), get, update, delete, and corrections of a
//! posted update.
//!
//! A create opens the incident with its first update; an update changes the incident's fields
//! and, when it gives a status, a body or components, posts an update, as Statuspage does.
//! Herald's "next update by" is an extra field, `next_update_by`.

use std::collections::BTreeMap;

use actix_web::{HttpResponse, web};
use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::components::GivenStatus;
use super::error::{V1Result, within};
use super::flex::{self, Flag, Int};
use super::pages::base_url;
use super::request::{self, Body, Query, V1};
use super::views;
use crate::db::DbConn;
use crate::db::models::incidents::Incident;
use crate::db::models::pages::StatusPage;
use crate::domain::maintenance_plan::Plan;
use crate::domain::{
    ComponentId, ComponentStatus, Impact, IncidentKind, LifecycleStatus, MaintenanceStatus,
};
use crate::error::{AppError, AppResult};
use crate::http::api::run::{self, Record};
use crate::http::auth::Permission;
use crate::services::components as components_service;
use crate::services::idempotency::Answer;
use crate::services::incidents::{
    self as service, IncidentFieldsInput, IncidentFilter, OpenIncidentInput, PostUpdateInput,
    UpdateEdit,
};
use crate::services::public::page_url;

/// The words of Statuspage's maintenance vocabulary.
const MAINTENANCE_STATUSES: &[&str] = &["scheduled", "in_progress", "verifying", "completed"];

/// `{"incident": {...}}` of a create or update.
#[derive(Debug, Default, Deserialize)]
struct IncidentFields {
    name: Option<String>,
    status: Option<String>,
    impact_override: Option<Impact>,
    body: Option<String>,
    components: Option<BTreeMap<String, GivenStatus>>,
    #[serde(default, deserialize_with = "flex::list")]
    component_ids: Option<Vec<String>>,
    deliver_notifications: Option<Flag>,
    scheduled_for: Option<DateTime<Utc>>,
    scheduled_until: Option<DateTime<Utc>>,
    scheduled_auto_transition: Option<Flag>,
    scheduled_auto_in_progress: Option<Flag>,
    scheduled_auto_completed: Option<Flag>,
    scheduled_remind_prior: Option<Flag>,
    auto_transition_to_maintenance_state: Option<Flag>,
    auto_transition_to_operational_state: Option<Flag>,
    auto_transition_deliver_notifications_at_start: Option<Flag>,
    auto_transition_deliver_notifications_at_end: Option<Flag>,
    auto_tweet_at_beginning: Option<Flag>,
    auto_tweet_on_completion: Option<Flag>,
    auto_tweet_on_creation: Option<Flag>,
    auto_tweet_one_hour_before: Option<Flag>,
    metadata: Option<Value>,
    backfilled: Option<Flag>,
    backfill_date: Option<String>,
    /// Herald's own: when the next update is promised.
    next_update_by: Option<DateTime<Utc>>,
}

impl IncidentFields {
    /// Whether it is a maintenance: a maintenance status or a window.
    fn is_maintenance(&self) -> bool {
        self.status
            .as_deref()
            .is_some_and(|s| MAINTENANCE_STATUSES.contains(&s))
            || self.scheduled_for.is_some()
    }

    /// The maintenance's plan after these switches, over `before` (its stored plan; none for a
    /// new one, where a step switch left out is off, as on Statuspage); `None` when no switch
    /// is given. `scheduled_auto_transition` sets both steps, the step switches each one.
    fn plan(&self, before: Option<Plan>) -> Option<Plan> {
        let given = [
            self.scheduled_auto_transition,
            self.scheduled_auto_in_progress,
            self.scheduled_auto_completed,
            self.scheduled_remind_prior,
            self.auto_transition_to_maintenance_state,
            self.auto_transition_to_operational_state,
            self.auto_transition_deliver_notifications_at_start,
            self.auto_transition_deliver_notifications_at_end,
        ];
        if given.iter().all(Option::is_none) {
            return None;
        }
        let new = before.is_none();
        let mut plan = before.unwrap_or_default();
        let both = self.scheduled_auto_transition.map(|f| f.0);
        let step =
            |switch: Option<Flag>, was: bool| switch.map(|f| f.0).or(both).unwrap_or(!new && was);
        plan.auto_start = step(self.scheduled_auto_in_progress, plan.auto_start);
        plan.auto_complete = step(self.scheduled_auto_completed, plan.auto_complete);
        let set = |switch: Option<Flag>, slot: &mut bool| {
            if let Some(f) = switch {
                *slot = f.0;
            }
        };
        set(self.scheduled_remind_prior, &mut plan.remind_prior);
        set(
            self.auto_transition_to_maintenance_state,
            &mut plan.to_maintenance_state,
        );
        set(
            self.auto_transition_to_operational_state,
            &mut plan.to_operational_state,
        );
        set(
            self.auto_transition_deliver_notifications_at_start,
            &mut plan.notify_at_start,
        );
        set(
            self.auto_transition_deliver_notifications_at_end,
            &mut plan.notify_at_end,
        );
        Some(plan)
    }

    /// Refuses what Herald does not do: it does not post to Twitter.
    fn herald_does(&self) -> AppResult<()> {
        let never = [
            ("auto_tweet_at_beginning", self.auto_tweet_at_beginning),
            ("auto_tweet_on_completion", self.auto_tweet_on_completion),
            ("auto_tweet_on_creation", self.auto_tweet_on_creation),
            (
                "auto_tweet_one_hour_before",
                self.auto_tweet_one_hour_before,
            ),
        ];
        if let Some((name, _)) = never.iter().find(|(_, f)| f.is_some_and(|f| f.0)) {
            return Err(AppError::field(
                name,
                "Herald does not post to Twitter; set false or leave it out",
            ));
        }
        Ok(())
    }

    /// When a backfill happened: `backfill_date` as a date (its start, UTC) or a time.
    fn backfill_at(&self) -> AppResult<Option<DateTime<Utc>>> {
        if !self.backfilled.is_some_and(|b| b.0) {
            if self.backfill_date.is_some() {
                return Err(AppError::field("backfill_date", "needs backfilled: true"));
            }
            return Ok(None);
        }
        let Some(date) = self.backfill_date.as_deref() else {
            return Err(AppError::field(
                "backfill_date",
                "is required for a backfill",
            ));
        };
        let at = match DateTime::parse_from_rfc3339(date) {
            Ok(at) => at.with_timezone(&Utc),
            Err(_) => NaiveDate::parse_from_str(date, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|t| t.and_utc())
                .ok_or_else(|| {
                    AppError::field("backfill_date", "must be a date (YYYY-MM-DD) or a time")
                })?,
        };
        if at > Utc::now() {
            return Err(AppError::field(
                "backfill_date",
                "must not be in the future",
            ));
        }
        Ok(Some(at))
    }

    /// The component statuses it sets: `components` (id → status), and `component_ids` as
    /// affected at their current status. Each must be a component of the page.
    fn component_map(
        &self,
        c: &mut DbConn,
        page: &StatusPage,
    ) -> AppResult<BTreeMap<String, ComponentStatus>> {
        let mut map = BTreeMap::new();
        for (id, status) in self.components.iter().flatten() {
            let component =
                components_service::get_page_component(c, &page.id, &ComponentId::from(id.clone()))
                    .map_err(|_| {
                        AppError::field(
                            &format!("components.{id}"),
                            "is not a component of this page",
                        )
                    })?;
            map.insert(id.clone(), status.0.unwrap_or(component.status));
        }
        for id in self.component_ids.iter().flatten() {
            if map.contains_key(id) {
                continue;
            }
            let component =
                components_service::get_page_component(c, &page.id, &ComponentId::from(id.clone()))
                    .map_err(|_| {
                        AppError::field(
                            "component_ids",
                            format!("{id} is not a component of this page"),
                        )
                    })?;
            map.insert(id.clone(), component.status);
        }
        Ok(map)
    }

    /// Whether it posts an update (a status, a body or components).
    fn posts(&self) -> bool {
        self.status.is_some()
            || self.body.is_some()
            || self.components.is_some()
            || self.component_ids.is_some()
    }
}

/// The text of an update given without one: its status in words ("In progress.").
fn body_or_status(body: &Option<String>, status: &str) -> String {
    match body {
        Some(body) if !body.trim().is_empty() => body.clone(),
        _ => {
            let words = status.replace('_', " ");
            let mut chars = words.chars();
            match chars.next() {
                Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
                None => String::new(),
            }
        }
    }
}

/// An incident as the answer gives it.
fn answer_of(
    c: &mut DbConn,
    page: &StatusPage,
    incident: &Incident,
    base: &str,
) -> AppResult<Value> {
    let mut answers = answers_of(c, page, vec![incident.clone()], base)?;
    answers
        .pop()
        .ok_or_else(|| AppError::NotFound("incident".into()))
}

/// Incidents of the page as the answer gives them, read together (not one by one).
fn answers_of(
    c: &mut DbConn,
    page: &StatusPage,
    incidents: Vec<Incident>,
    base: &str,
) -> AppResult<Vec<Value>> {
    let at = page_url(page, base);
    Ok(service::incidents_with_updates(c, &page.id, incidents)?
        .iter()
        .map(|d| views::incident(d, &format!("{at}/incidents/{}", d.incident.id)))
        .collect())
}

/// `q`, `limit` and `page` of the incident list.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    q: Option<String>,
    limit: Option<Int>,
    page: Option<Int>,
    per_page: Option<Int>,
}

/// `GET /pages/{page_id}/incidents?q=&limit=&page=`: newest first, at most 100 a page.
pub async fn list(
    v1: V1,
    page_id: web::Path<String>,
    query: Query<ListQuery>,
) -> V1Result<HttpResponse> {
    let query = query.0;
    let limit = query.limit.or(query.per_page).map_or(100, |l| l.0);
    if !(1..=100).contains(&limit) {
        return Err(AppError::field("limit", "must be between 1 and 100").into());
    }
    let page_number = query.page.map_or(1, |p| p.0);
    if page_number < 1 {
        return Err(AppError::field("page", "must be 1 or more").into());
    }
    let filter = IncidentFilter {
        limit: Some(i64::from(limit)),
        offset: Some(i64::from(page_number - 1) * i64::from(limit)),
        search: query.q,
        ..IncidentFilter::default()
    };
    let (base, page_id) = (base_url(&v1), page_id.into_inner());
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let found = service::list_incidents(c, &page.id, &filter)?;
        let answers = answers_of(c, page, found, &base)?;
        Ok(answers.into())
    })
    .await
}

/// Which open incidents a fixed list holds.
#[derive(Debug, Clone, Copy)]
enum Open {
    Unresolved,
    Scheduled,
    Upcoming,
    ActiveMaintenance,
}

impl Open {
    fn holds(self, i: &Incident, now: DateTime<Utc>) -> bool {
        let maintenance = i.kind == IncidentKind::Maintenance;
        match self {
            Open::Unresolved => !maintenance,
            Open::Scheduled => {
                i.status == LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled)
            }
            Open::Upcoming => {
                i.status == LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled)
                    && i.scheduled_for.is_some_and(|at| at.and_utc() > now)
            }
            Open::ActiveMaintenance => matches!(
                i.status,
                LifecycleStatus::Maintenance(
                    MaintenanceStatus::InProgress | MaintenanceStatus::Verifying
                )
            ),
        }
    }
}

async fn open_list(
    v1: V1,
    page_id: String,
    paging: super::components::Paging,
    which: Open,
) -> V1Result<HttpResponse> {
    let (skip, take) = paging.window()?;
    let base = base_url(&v1);
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let now = Utc::now();
        let open = crate::db::models::incidents::list_open(c, &page.id)?;
        let listed: Vec<Incident> = open
            .into_iter()
            .filter(|i| which.holds(i, now))
            .skip(skip)
            .take(take)
            .collect();
        Ok(answers_of(c, page, listed, &base)?.into())
    })
    .await
}

/// `GET /pages/{page_id}/incidents/unresolved`: open incidents (not maintenances).
pub async fn unresolved(
    v1: V1,
    page_id: web::Path<String>,
    paging: Query<super::components::Paging>,
) -> V1Result<HttpResponse> {
    open_list(v1, page_id.into_inner(), paging.0, Open::Unresolved).await
}

/// `GET /pages/{page_id}/incidents/scheduled`: maintenances not started.
pub async fn scheduled(
    v1: V1,
    page_id: web::Path<String>,
    paging: Query<super::components::Paging>,
) -> V1Result<HttpResponse> {
    open_list(v1, page_id.into_inner(), paging.0, Open::Scheduled).await
}

/// `GET /pages/{page_id}/incidents/upcoming`: maintenances whose window opens later.
pub async fn upcoming(
    v1: V1,
    page_id: web::Path<String>,
    paging: Query<super::components::Paging>,
) -> V1Result<HttpResponse> {
    open_list(v1, page_id.into_inner(), paging.0, Open::Upcoming).await
}

/// `GET /pages/{page_id}/incidents/active_maintenance`: maintenances in progress.
pub async fn active_maintenance(
    v1: V1,
    page_id: web::Path<String>,
    paging: Query<super::components::Paging>,
) -> V1Result<HttpResponse> {
    open_list(v1, page_id.into_inner(), paging.0, Open::ActiveMaintenance).await
}

/// `POST /pages/{page_id}/incidents` with `{"incident": {...}}`.
#[tracing::instrument(skip_all)]
pub async fn create(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    let fields: IncidentFields = body.inside("incident", &[])?;
    let inside = |e| within("incident", e);
    fields.herald_does().map_err(inside)?;
    let plan = fields.plan(None);
    let backfill = fields.backfill_at().map_err(inside)?;
    let name = fields
        .name
        .clone()
        .ok_or_else(|| AppError::field("incident[name]", "is required"))?;
    let maintenance = fields.is_maintenance();
    let status = match backfill {
        Some(_) if maintenance => "completed".to_owned(),
        Some(_) => "resolved".to_owned(),
        None => fields.status.clone().unwrap_or_else(|| {
            match maintenance {
                true => "scheduled",
                false => "investigating",
            }
            .to_owned()
        }),
    };
    if backfill.is_some() && fields.status.as_deref().is_some_and(|s| s != status) {
        return Err(AppError::field("incident[status]", format!("a backfill is {status}")).into());
    }
    let author = v1.auth().user_id.clone();
    let (base, page_id) = (base_url(&v1), page_id.into_inner());
    let given = body.0.clone();
    v1.write_in_page(Permission::Write, page_id, given, move |c, page| {
        let components = fields.component_map(c, page).map_err(inside)?;
        let input = OpenIncidentInput {
            name,
            kind: Some(match maintenance {
                true => IncidentKind::Maintenance,
                false => IncidentKind::Incident,
            }),
            impact: fields.impact_override,
            status: Some(status.clone()),
            body: body_or_status(&fields.body, &status),
            components,
            next_update_by: fields.next_update_by,
            user_impact: None,
            scope: None,
            root_cause: None,
            started_at: backfill.filter(|_| !maintenance),
            scheduled_for: fields.scheduled_for,
            scheduled_until: fields.scheduled_until,
            auto_transition: plan.is_some_and(|p| p.moves_by_itself()),
            notify: backfill.map(|_| false),
            deliver_notifications: match backfill {
                Some(_) => None,
                None => fields.deliver_notifications.map(|f| f.0),
            },
            translations: None,
        };
        let now = backfill.unwrap_or_else(Utc::now);
        let posted =
            service::open_incident(c, &page.id, &input, Some(&author), now).map_err(inside)?;
        let mut incident = posted.incident;
        if let Some(plan) = plan.filter(|_| maintenance) {
            incident = service::set_maintenance_plan(c, &incident.id, &plan)?;
        }
        if let Some(metadata) = &fields.metadata {
            incident = service::set_metadata(c, &incident.id, metadata).map_err(inside)?;
        }
        Ok((
            Answer::new(201, answer_of(c, page, &incident, &base)?),
            Record::new("incident.create", "incident", incident.id.as_str()),
        ))
    })
    .await
}

/// `GET /pages/{page_id}/incidents/{incident_id}` (its id or its reference).
pub async fn get(v1: V1, path: web::Path<(String, String)>) -> V1Result<HttpResponse> {
    let ((page_id, id), base) = (path.into_inner(), base_url(&v1));
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let incident = service::get_page_incident(c, &page.id, &id)?;
        answer_of(c, page, &incident, &base)
    })
    .await
}

/// `PATCH` or `PUT /pages/{page_id}/incidents/{incident_id}` with `{"incident": {...}}`.
#[tracing::instrument(skip_all)]
pub async fn update(
    v1: V1,
    path: web::Path<(String, String)>,
    body: Body,
) -> V1Result<HttpResponse> {
    let fields: IncidentFields = body.inside("incident", &[])?;
    let inside = |e| within("incident", e);
    fields.herald_does().map_err(inside)?;
    if fields.backfilled.is_some() || fields.backfill_date.is_some() {
        return Err(
            AppError::field("incident[backfilled]", "only a new incident is a backfill").into(),
        );
    }
    let own = IncidentFieldsInput {
        name: fields.name.clone(),
        impact: fields.impact_override,
        scheduled_for: fields.scheduled_for,
        scheduled_until: fields.scheduled_until,
        ..IncidentFieldsInput::default()
    };
    let author = v1.auth().user_id.clone();
    let ((page_id, id), base) = (path.into_inner(), base_url(&v1));
    let given = body.0.clone();
    v1.write_in_page(Permission::Write, page_id, given, move |c, page| {
        let mut incident = service::get_page_incident(c, &page.id, &id)?;
        let mut own = own;
        let plan = fields.plan(Some(Plan::read(&incident.maintenance_plan)));
        if let Some(plan) = &plan {
            if incident.kind != IncidentKind::Maintenance {
                return Err(AppError::field(
                    "incident[scheduled_auto_transition]",
                    "only a maintenance moves by itself",
                ));
            }
            own.auto_transition = Some(plan.moves_by_itself());
        }
        let changes_own = own.name.is_some()
            || own.impact.is_some()
            || own.scheduled_for.is_some()
            || own.scheduled_until.is_some()
            || own.auto_transition.is_some();
        if changes_own {
            incident = service::update_incident_fields(c, &incident.id, &own).map_err(inside)?;
        }
        if let Some(plan) = &plan {
            incident = service::set_maintenance_plan(c, &incident.id, plan)?;
        }
        if fields.posts() {
            let status = fields
                .status
                .clone()
                .unwrap_or_else(|| views::status(incident.status).to_owned());
            let input = PostUpdateInput {
                status: fields.status.clone(),
                body: body_or_status(&fields.body, &status),
                components: fields.component_map(c, page).map_err(inside)?,
                next_update_by: fields.next_update_by,
                reopen: true,
                notify: None,
                deliver_notifications: fields.deliver_notifications.map(|f| f.0),
                translations: None,
            };
            let posted = service::post_update(c, &incident.id, &input, Some(&author), Utc::now())
                .map_err(inside)?;
            incident = posted.incident;
        }
        if let Some(metadata) = &fields.metadata {
            incident = service::set_metadata(c, &incident.id, metadata).map_err(inside)?;
        }
        Ok((
            Answer::new(200, answer_of(c, page, &incident, &base)?),
            Record::new("incident.update", "incident", incident.id.as_str()),
        ))
    })
    .await
}

/// `DELETE /pages/{page_id}/incidents/{incident_id}`: the incident as it was.
#[tracing::instrument(skip_all)]
pub async fn delete(v1: V1, path: web::Path<(String, String)>) -> V1Result<HttpResponse> {
    let ((page_id, id), base) = (path.into_inner(), base_url(&v1));
    Ok(v1
        .write(Permission::Write, &Value::Null, move |c| {
            let page = request::page(c, &page_id)?;
            let incident = service::get_page_incident(c, &page.id, &id)?;
            let url = format!("{}/incidents/{}", page_url(&page, &base), incident.id);
            let detail = service::delete_incident(c, &incident.id)?;
            let answer = Answer::new(200, views::incident(&detail, &url));
            let audit = run::change(
                "incident.delete",
                "incident",
                incident.id.as_str(),
                &page.id,
                serde_json::json!({"name": incident.name, "reference": incident.reference}),
            );
            Ok((answer, audit))
        })
        .await?)
}

/// `{"incident_update": {...}}`: a correction of a posted update.
#[derive(Debug, Default, Deserialize)]
struct UpdateFields {
    body: Option<String>,
    display_at: Option<DateTime<Utc>>,
    deliver_notifications: Option<Flag>,
    wants_twitter_update: Option<Flag>,
}

/// `PATCH` or `PUT /pages/{page_id}/incidents/{incident_id}/incident_updates/{id}` (and
/// atlassian-python-api's `incidents_update`): the text or display time of a posted update.
/// Nothing is sent again.
#[tracing::instrument(skip_all)]
pub async fn edit_update(
    v1: V1,
    path: web::Path<(String, String, String)>,
    body: Body,
) -> V1Result<HttpResponse> {
    let fields: UpdateFields = body.inside("incident_update", &[])?;
    if fields.wants_twitter_update.is_some_and(|f| f.0) {
        return Err(AppError::field(
            "incident_update[wants_twitter_update]",
            "Herald does not post to Twitter; set false or leave it out",
        )
        .into());
    }
    let edit = UpdateEdit {
        body: fields.body.clone(),
        display_at: fields.display_at,
    };
    let notify = fields.deliver_notifications.map(|f| f.0);
    let (page_id, id, update_id) = path.into_inner();
    let given = body.0.clone();
    v1.write_in_page(Permission::Write, page_id, given, move |c, page| {
        let incident = service::get_page_incident(c, &page.id, &id)?;
        let before = crate::db::models::incidents::find_update(c, &incident.id, &update_id)?
            .ok_or_else(|| AppError::NotFound("incident update".into()))?;
        if notify.is_some_and(|n| n != before.notify) {
            return Err(AppError::field(
                "incident_update[deliver_notifications]",
                "an update already posted is not sent again; leave it as it was",
            ));
        }
        let update = service::edit_update(c, &incident.id, &update_id, &edit)
            .map_err(|e| within("incident_update", e))?;
        let detail = service::incident_with_updates(c, &incident.id)?;
        let names = |cid: &str| {
            detail
                .affected
                .iter()
                .find(|x| x.id.as_str() == cid)
                .map(|x| x.name.clone())
        };
        let with = detail
            .updates
            .iter()
            .find(|u| u.update.id == update.id)
            .ok_or_else(|| AppError::NotFound("incident update".into()))?;
        Ok((
            Answer::new(200, views::update(with, &names)),
            Record::new("incident.update_edited", "incident", incident.id.as_str()),
        ))
    })
    .await
}
