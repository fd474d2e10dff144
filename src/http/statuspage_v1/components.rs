//! `/pages/{page_id}/components` and `/component-groups`: list, create, get, update (PATCH or
//! PUT), delete, and uptime over a range.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::{V1Result, within};
use super::flex::{self, Flag, Int};
use super::request::{self, Body, V1};
use super::views;
use crate::db::DbConn;
use crate::db::models::components::{Component, ComponentGroup};
use crate::db::models::pages::StatusPage;
use crate::domain::uptime;
use crate::domain::{ComponentId, ComponentStatus, GroupId};
use crate::error::{AppError, AppResult};
use crate::http::api::run::{self, Record};
use crate::http::auth::Permission;
use crate::services::components::{
    self as service, GroupInput, NewComponentInput, UpdateComponentInput,
};
use crate::services::idempotency::Answer;
use crate::services::page_admin::{self, GroupPatch};

/// A page of a list: `page` from 1, `per_page` up to 100 (Statuspage's paging).
#[derive(Debug, Default, Deserialize)]
pub struct Paging {
    page: Option<Int>,
    per_page: Option<Int>,
}

impl Paging {
    /// The rows to skip and take.
    pub fn window(&self) -> AppResult<(usize, usize)> {
        let page = self.page.map_or(1, |p| p.0);
        let per_page = self.per_page.map_or(100, |p| p.0);
        if page < 1 {
            return Err(AppError::field("page", "must be 1 or more"));
        }
        if !(1..=100).contains(&per_page) {
            return Err(AppError::field("per_page", "must be between 1 and 100"));
        }
        let per_page = usize::try_from(per_page).unwrap_or(100);
        let skip = usize::try_from(page - 1)
            .unwrap_or(0)
            .saturating_mul(per_page);
        Ok((skip, per_page))
    }

    /// `items` cut to the window.
    pub fn cut<T>(&self, items: impl Iterator<Item = T>) -> AppResult<Vec<T>> {
        let (skip, take) = self.window()?;
        Ok(items.skip(skip).take(take).collect())
    }
}

/// A status as Statuspage sends it: `""` means none.
#[derive(Debug, Clone, Copy)]
pub(super) struct GivenStatus(pub Option<ComponentStatus>);

impl<'de> Deserialize<'de> for GivenStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(Self(None));
        }
        serde_json::from_value(Value::String(text))
            .map(|s| Self(Some(s)))
            .map_err(|_| {
                serde::de::Error::custom(
                    "must be operational, under_maintenance, degraded_performance, \
                     partial_outage or major_outage",
                )
            })
    }
}

/// `{"component": {...}}` of a create or update.
#[derive(Debug, Default, Deserialize)]
struct ComponentFields {
    name: Option<String>,
    description: Option<String>,
    status: Option<GivenStatus>,
    group_id: Option<String>,
    showcase: Option<Flag>,
    only_show_if_degraded: Option<Flag>,
    start_date: Option<NaiveDate>,
    position: Option<Int>,
}

impl ComponentFields {
    /// Refuses what Herald does not keep: a component shown only when degraded, a start date.
    fn herald_keeps(&self) -> AppResult<()> {
        if self.only_show_if_degraded.is_some_and(|f| f.0) {
            return Err(AppError::field(
                "only_show_if_degraded",
                "Herald shows every component; set false or leave it out",
            ));
        }
        if self.start_date.is_some() {
            return Err(AppError::field(
                "start_date",
                "Herald does not keep a component's start date; its uptime starts with its \
                 first recorded status",
            ));
        }
        Ok(())
    }

    fn status(&self) -> Option<ComponentStatus> {
        self.status.and_then(|s| s.0)
    }
}

fn page_of(c: &mut DbConn, page_id: &str) -> AppResult<StatusPage> {
    request::page(c, page_id)
}

/// Refuses a `group_id` that is not a group of the page: a 422 on the field, as the document
/// answers a component's bad input (not the 404 of a path that names nothing).
fn group_of_page(c: &mut DbConn, page: &StatusPage, group_id: Option<&str>) -> AppResult<()> {
    match group_id.filter(|g| !g.is_empty()) {
        None => Ok(()),
        Some(id) => match page_admin::get_group(c, &page.id, &GroupId::from(id.to_owned())) {
            Err(AppError::NotFound(_)) => Err(AppError::field(
                "component[group_id]",
                format!("{id} is not a component group of this page"),
            )),
            other => other.map(|_| ()),
        },
    }
}

/// `GET /pages/{page_id}/components?page=&per_page=`: the components in display order.
pub async fn list(
    v1: V1,
    page_id: web::Path<String>,
    paging: request::Query<Paging>,
) -> V1Result<HttpResponse> {
    let page_id = page_id.into_inner();
    let paging = paging.0;
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let tree = service::list_components(c, &page.id)?;
        Ok(paging.cut(tree.components().map(views::component))?.into())
    })
    .await
}

/// `POST /pages/{page_id}/components` with `{"component": {...}}` (owners).
#[tracing::instrument(skip_all)]
pub async fn create(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    let fields: ComponentFields = body.inside("component", &[])?;
    fields.herald_keeps().map_err(|e| within("component", e))?;
    let name = fields
        .name
        .clone()
        .ok_or_else(|| AppError::field("component[name]", "is required"))?;
    let input = NewComponentInput {
        name,
        description: fields.description.clone(),
        group_id: fields.group_id.clone(),
        region: None,
        position: fields.position.map(|p| p.0),
        status: fields.status(),
        showcase: fields.showcase.map(|f| f.0),
    };
    let page_id = page_id.into_inner();
    v1.write_in_page(
        Permission::Admin,
        page_id,
        body.0.clone(),
        move |c, page| {
            group_of_page(c, page, input.group_id.as_deref())?;
            let component = service::create_component(c, &page.id, &input)
                .map_err(|e| within("component", e))?;
            Ok((
                Answer::new(201, views::component(&component)),
                Record::new("component.create", "component", component.id.as_str()),
            ))
        },
    )
    .await
}

/// `GET /pages/{page_id}/components/{component_id}`.
pub async fn get(v1: V1, path: web::Path<(String, ComponentId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.in_page(Permission::Read, page_id, move |c, page| {
        Ok(views::component(&service::get_page_component(
            c, &page.id, &id,
        )?))
    })
    .await
}

/// `PATCH` or `PUT /pages/{page_id}/components/{component_id}`: a status alone is a
/// responder's change; anything else is the page's structure, an owner's.
#[tracing::instrument(skip_all)]
pub async fn update(
    v1: V1,
    path: web::Path<(String, ComponentId)>,
    body: Body,
) -> V1Result<HttpResponse> {
    let fields: ComponentFields = body.inside("component", &[])?;
    fields.herald_keeps().map_err(|e| within("component", e))?;
    let status_only = body
        .0
        .get("component")
        .and_then(Value::as_object)
        .is_some_and(|c| !c.is_empty() && c.keys().all(|k| k == "status"));
    let permission = match status_only {
        true => Permission::Write,
        false => Permission::Admin,
    };
    let input = UpdateComponentInput {
        name: fields.name.clone(),
        description: fields.description.clone().map(Some),
        group_id: fields
            .group_id
            .clone()
            .map(|g| (!g.is_empty()).then_some(g)),
        region: None,
        position: fields.position.map(|p| p.0),
        showcase: fields.showcase.map(|f| f.0),
    };
    let status = fields.status();
    let (page_id, id) = path.into_inner();
    Ok(v1
        .write(permission, &body.0.clone(), move |c| {
            let page = page_of(c, &page_id)?;
            let mut component = service::get_page_component(c, &page.id, &id)?;
            group_of_page(c, &page, input.group_id.clone().flatten().as_deref())?;
            if !input.is_empty() {
                component = service::update_component(c, &id, &input)
                    .map_err(|e| within("component", e))?;
            }
            if let Some(status) = status {
                component = service::set_found_status(c, component, status, None)?;
            }
            let answer = Answer::new(200, views::component(&component));
            let audit = run::change(
                "component.update",
                "component",
                id.as_str(),
                &page.id,
                body.0,
            );
            Ok((answer, audit))
        })
        .await?)
}

/// `DELETE /pages/{page_id}/components/{component_id}` (owners): 204.
#[tracing::instrument(skip_all)]
pub async fn delete(v1: V1, path: web::Path<(String, ComponentId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.write(Permission::Admin, &Value::Null, move |c| {
        let page = page_of(c, &page_id)?;
        page_admin::delete_component(c, &page.id, &id)?;
        let audit = run::change(
            "component.delete",
            "component",
            id.as_str(),
            &page.id,
            json!({}),
        );
        Ok((Answer::new(200, Value::Null), audit))
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The range of an uptime query: `start` and `end` dates (the last 90 days by default).
#[derive(Debug, Deserialize)]
pub struct Range {
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
}

impl Range {
    /// The instants, and the warnings Statuspage gives when it adjusts a range.
    fn instants(
        &self,
        now: DateTime<Utc>,
    ) -> AppResult<(DateTime<Utc>, DateTime<Utc>, Vec<String>)> {
        let mut warnings = Vec::new();
        let today = now.date_naive();
        let end = match self.end {
            Some(end) if end > today => {
                warnings.push(
                    "End date was adjusted to today. See range_end field in response for end \
                     date used."
                        .to_owned(),
                );
                now
            }
            Some(end) => end
                .succ_opt()
                .unwrap_or(end)
                .and_hms_opt(0, 0, 0)
                .map_or(now, |t| t.and_utc()),
            None => now,
        };
        let start = match self.start {
            Some(start) => start.and_hms_opt(0, 0, 0).map_or(now, |t| t.and_utc()),
            None => end - chrono::Duration::days(90),
        };
        if start >= end {
            return Err(AppError::field("start", "must be before end"));
        }
        if end - start > chrono::Duration::days(366) {
            return Err(AppError::field(
                "start",
                "the range may span at most a year",
            ));
        }
        Ok((start, end, warnings))
    }
}

/// The outage of one component over a range.
fn outage_of(
    c: &mut DbConn,
    component: &ComponentId,
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> AppResult<uptime::Outage> {
    let history = service::component_history(c, component, from, until)?;
    let changes: Vec<(DateTime<Utc>, ComponentStatus)> = history
        .iter()
        .map(|h| (h.changed_at.and_utc(), h.new_status))
        .collect();
    Ok(uptime::outage(&changes, from, until))
}

fn uptime_answer(
    id: &str,
    name: &str,
    (from, until, warnings): (DateTime<Utc>, DateTime<Utc>, Vec<String>),
    outage: uptime::Outage,
) -> Value {
    let mut answer = json!({
        "id": id, "name": name,
        "range_start": crate::http::api::views::time(from.naive_utc()),
        "range_end": crate::http::api::views::time(until.naive_utc()),
        "uptime_percentage": outage.percent,
        "major_outage": outage.major_secs, "partial_outage": outage.partial_secs,
        "related_events": {},
    });
    if !warnings.is_empty() {
        answer["warnings"] = Value::String(warnings.join(" "));
    }
    answer
}

/// `GET /pages/{page_id}/components/{component_id}/uptime?start=&end=`.
pub async fn uptime(
    v1: V1,
    path: web::Path<(String, ComponentId)>,
    range: request::Query<Range>,
) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    let range = range.0.instants(Utc::now())?;
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let component = service::get_page_component(c, &page.id, &id)?;
        let outage = outage_of(c, &id, range.0, range.1)?;
        Ok(uptime_answer(id.as_str(), &component.name, range, outage))
    })
    .await
}

/// A group with its members, or 404.
fn group_with_members(
    c: &mut DbConn,
    page: &StatusPage,
    id: &GroupId,
) -> AppResult<(ComponentGroup, Vec<Component>)> {
    let group = page_admin::get_group(c, &page.id, id)?;
    let tree = service::list_components(c, &page.id)?;
    let members = tree
        .components()
        .filter(|m| m.group_id.as_ref() == Some(id))
        .cloned()
        .collect();
    Ok((group, members))
}

fn group_view(group: &ComponentGroup, members: &[Component]) -> Value {
    views::group(group, &members.iter().collect::<Vec<_>>())
}

/// `GET /pages/{page_id}/component-groups?page=&per_page=`.
pub async fn list_groups(
    v1: V1,
    page_id: web::Path<String>,
    paging: request::Query<Paging>,
) -> V1Result<HttpResponse> {
    let page_id = page_id.into_inner();
    let paging = paging.0;
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let tree = service::list_components(c, &page.id)?;
        let groups = tree.entries.iter().filter_map(|entry| match entry {
            service::ComponentEntry::Group { group, components } => {
                Some(group_view(group, components))
            }
            service::ComponentEntry::Component(_) => None,
        });
        Ok(paging.cut(groups)?.into())
    })
    .await
}

/// `{"description": ..., "component_group": {"name": ..., "components": [ids]}}`
/// (atlassian-python-api sends `components_group`).
#[derive(Debug, Default, Deserialize)]
struct GroupFields {
    name: Option<String>,
    #[serde(default, deserialize_with = "flex::list")]
    components: Option<Vec<String>>,
    position: Option<Int>,
}

/// The group part of a body and its description, under either spelling.
fn group_body(body: &Body) -> AppResult<(GroupFields, Option<String>)> {
    let root = match body.0.get("components_group") {
        Some(_) => "components_group",
        None => "component_group",
    };
    let other = match root {
        "components_group" => "component_group",
        _ => "components_group",
    };
    if body.0.get(other).is_some() && body.0.get(root).is_some() {
        return Err(AppError::field(other, "send component_group only"));
    }
    let fields: GroupFields = body.inside(root, &["description"])?;
    let description = match body.0.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => Some(d.clone()),
        Some(_) => return Err(AppError::field("description", "must be text")),
    };
    Ok((fields, description))
}

/// Puts `members` (component ids of the page) in `group`, in the order given; components it
/// held before and not named leave it. Each must be a component of the page.
fn set_members(
    c: &mut DbConn,
    page: &StatusPage,
    group: &GroupId,
    members: &[String],
) -> AppResult<()> {
    let tree = service::list_components(c, &page.id)?;
    for id in members {
        if !tree.components().any(|m| m.id.as_str() == id) {
            return Err(AppError::field(
                "component_group[components]",
                format!("{id} is not a component of this page"),
            ));
        }
    }
    for member in tree
        .components()
        .filter(|m| m.group_id.as_ref() == Some(group))
    {
        if !members.iter().any(|id| id == member.id.as_str()) {
            let out = UpdateComponentInput {
                group_id: Some(None),
                ..UpdateComponentInput::default()
            };
            service::update_component(c, &member.id, &out)?;
        }
    }
    for (position, id) in members.iter().enumerate() {
        let into = UpdateComponentInput {
            group_id: Some(Some(group.as_str().to_owned())),
            position: i32::try_from(position + 1).ok(),
            ..UpdateComponentInput::default()
        };
        service::update_component(c, &ComponentId::from(id.clone()), &into)?;
    }
    Ok(())
}

/// `POST /pages/{page_id}/component-groups` (owners).
#[tracing::instrument(skip_all)]
pub async fn create_group(
    v1: V1,
    page_id: web::Path<String>,
    body: Body,
) -> V1Result<HttpResponse> {
    let (fields, description) = group_body(&body)?;
    let name = fields
        .name
        .clone()
        .ok_or_else(|| AppError::field("component_group[name]", "is required"))?;
    let members = fields.components.clone().unwrap_or_default();
    let input = GroupInput {
        name,
        description,
        position: fields.position.map(|p| p.0),
    };
    let page_id = page_id.into_inner();
    v1.write_in_page(
        Permission::Admin,
        page_id,
        body.0.clone(),
        move |c, page| {
            let group = service::create_group(c, &page.id, &input)
                .map_err(|e| within("component_group", e))?;
            set_members(c, page, &group.id, &members)?;
            let (group, members) = group_with_members(c, page, &group.id)?;
            Ok((
                Answer::new(201, group_view(&group, &members)),
                Record::new(
                    "component_group.create",
                    "component_group",
                    group.id.as_str(),
                ),
            ))
        },
    )
    .await
}

/// `GET /pages/{page_id}/component-groups/{id}`.
pub async fn get_group(v1: V1, path: web::Path<(String, GroupId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let (group, members) = group_with_members(c, page, &id)?;
        Ok(group_view(&group, &members))
    })
    .await
}

/// `PATCH` or `PUT /pages/{page_id}/component-groups/{id}` (owners): name, description, and
/// the members when `components` is given.
#[tracing::instrument(skip_all)]
pub async fn update_group(
    v1: V1,
    path: web::Path<(String, GroupId)>,
    body: Body,
) -> V1Result<HttpResponse> {
    let (fields, description) = group_body(&body)?;
    let patch = GroupPatch {
        name: fields.name.clone(),
        description: description.map(Some),
        position: fields.position.map(|p| p.0),
    };
    let members = fields.components.clone();
    let (page_id, id) = path.into_inner();
    v1.write_in_page(
        Permission::Admin,
        page_id,
        body.0.clone(),
        move |c, page| {
            page_admin::update_group(c, &page.id, &id, &patch)
                .map_err(|e| within("component_group", e))?;
            if let Some(members) = &members {
                set_members(c, page, &id, members)?;
            }
            let (group, members) = group_with_members(c, page, &id)?;
            Ok((
                Answer::new(200, group_view(&group, &members)),
                Record::new("component_group.update", "component_group", id.as_str()),
            ))
        },
    )
    .await
}

/// `DELETE /pages/{page_id}/component-groups/{id}` (owners): the group as it was; its
/// components stay, ungrouped.
#[tracing::instrument(skip_all)]
pub async fn delete_group(v1: V1, path: web::Path<(String, GroupId)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    Ok(v1
        .write(Permission::Admin, &Value::Null, move |c| {
            let page = page_of(c, &page_id)?;
            let (group, members) = group_with_members(c, &page, &id)?;
            page_admin::delete_group(c, &page.id, &id)?;
            let answer = Answer::new(200, group_view(&group, &members));
            let audit = run::change(
                "component_group.delete",
                "component_group",
                id.as_str(),
                &page.id,
                json!({}),
            );
            Ok((answer, audit))
        })
        .await?)
}

/// `GET /pages/{page_id}/component-groups/{id}/uptime?start=&end=`: over its members, the
/// longest outage of each kind and the mean availability.
pub async fn group_uptime(
    v1: V1,
    path: web::Path<(String, GroupId)>,
    range: request::Query<Range>,
) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    let range = range.0.instants(Utc::now())?;
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let (group, members) = group_with_members(c, page, &id)?;
        let mut outages = Vec::new();
        for member in &members {
            outages.push(outage_of(c, &member.id, range.0, range.1)?);
        }
        let count = outages.len().max(1) as f64;
        let outage = uptime::Outage {
            major_secs: outages.iter().map(|o| o.major_secs).max().unwrap_or(0),
            partial_secs: outages.iter().map(|o| o.partial_secs).max().unwrap_or(0),
            percent: match outages.is_empty() {
                true => 100.0,
                false => {
                    (outages.iter().map(|o| o.percent).sum::<f64>() / count * 100.0).round() / 100.0
                }
            },
        };
        Ok(uptime_answer(id.as_str(), &group.name, range, outage))
    })
    .await
}
