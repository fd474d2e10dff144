//! Data model use cases on both backends: pages and components, incidents and their updates,
//! postmortems. Fixtures go through the services, never raw SQL.

mod incident_opening;
mod incident_updates;
mod pages_and_components;
mod postmortem_publishing;
mod stored_states;

use chrono::{DateTime, Duration, SubsecRound, Utc};
use herald::db::DbConn;
use herald::db::models::components::Component;
use herald::db::models::pages::StatusPage;
use herald::domain::{ComponentStatus, IncidentId, PageId};
use herald::error::{AppError, AppResult, FieldErrors};
use herald::services::components::{self, NewComponentInput};
use herald::services::incidents::{
    self, IncidentDetail, OpenIncidentInput, PostUpdateInput, PostedUpdate,
};
use herald::services::pages::{self, NewPageInput};

use crate::helpers::TestApp;

/// A fixed "now" for one test, at the database's precision, with later moments after it.
#[derive(Clone, Copy)]
pub struct Clock(DateTime<Utc>);

impl Clock {
    pub fn new() -> Self {
        Self(Utc::now().trunc_subsecs(6))
    }

    /// The start of the test.
    pub fn now(self) -> DateTime<Utc> {
        self.0
    }

    /// `minutes` after the start.
    pub fn at(self, minutes: i64) -> DateTime<Utc> {
        self.0 + Duration::minutes(minutes)
    }
}

/// Runs `f` on a pooled connection.
pub async fn run<T, F>(app: &TestApp, f: F) -> AppResult<T>
where
    F: FnOnce(&mut DbConn) -> AppResult<T> + Send + 'static,
    T: Send + 'static,
{
    app.db.run(f).await
}

/// The field errors of a validation error; anything else fails the test.
pub fn field_errors<T: std::fmt::Debug>(result: AppResult<T>) -> FieldErrors {
    match result {
        Err(AppError::Validation(fields)) => fields,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// A page with this slug and default settings.
pub async fn page(app: &TestApp, slug: &str) -> StatusPage {
    let input = NewPageInput {
        slug: slug.into(),
        name: format!("{slug} status"),
        ..Default::default()
    };
    run(app, move |c| pages::create_page(c, &input))
        .await
        .expect("page is created")
}

/// An operational component on the page.
pub async fn component(app: &TestApp, page_id: &PageId, name: &str) -> Component {
    let (page_id, input) = (
        page_id.clone(),
        NewComponentInput {
            name: name.into(),
            ..Default::default()
        },
    );
    run(app, move |c| {
        components::create_component(c, &page_id, &input)
    })
    .await
    .expect("component is created")
}

/// The component as stored now.
pub async fn reload(app: &TestApp, component: &Component) -> Component {
    let id = component.id.clone();
    run(app, move |c| components::get_component(c, &id))
        .await
        .expect("component exists")
}

/// `component id → status` for an input's `components` map.
pub fn changes(
    pairs: &[(&Component, ComponentStatus)],
) -> std::collections::BTreeMap<String, ComponentStatus> {
    pairs.iter().map(|(c, s)| (c.id.to_string(), *s)).collect()
}

/// The current status of a component.
pub async fn status_of(app: &TestApp, component: &Component) -> ComponentStatus {
    reload(app, component).await.status
}

/// A component's history over `minutes` around the clock's start: (old, new, incident id).
pub async fn history(
    app: &TestApp,
    component: &Component,
    clock: Clock,
) -> Vec<(Option<ComponentStatus>, ComponentStatus, Option<IncidentId>)> {
    let (id, from, until) = (component.id.clone(), clock.at(-60), clock.at(24 * 60));
    let rows = run(app, move |c| {
        components::component_history(c, &id, from, until)
    })
    .await
    .expect("history is read");
    let step = |h: &herald::db::models::components::ComponentStatusChange| {
        (h.old_status, h.new_status, h.incident_id.clone())
    };
    rows.iter().map(step).collect()
}

/// A new incident named `name` with a first update.
pub fn incident(name: &str) -> OpenIncidentInput {
    OpenIncidentInput {
        name: name.into(),
        body: format!("We are looking into {name}."),
        ..Default::default()
    }
}

/// Opens an incident.
pub async fn try_open(
    app: &TestApp,
    page_id: &PageId,
    input: OpenIncidentInput,
    now: DateTime<Utc>,
) -> AppResult<PostedUpdate> {
    let page_id = page_id.clone();
    run(app, move |c| {
        incidents::open_incident(c, &page_id, &input, None, now)
    })
    .await
}

/// Opens an incident and expects success.
pub async fn open(
    app: &TestApp,
    page_id: &PageId,
    input: OpenIncidentInput,
    now: DateTime<Utc>,
) -> PostedUpdate {
    try_open(app, page_id, input, now)
        .await
        .expect("incident opens")
}

/// An incident with its updates and affected components.
pub async fn detail(app: &TestApp, incident_id: &IncidentId) -> IncidentDetail {
    let id = incident_id.clone();
    run(app, move |c| incidents::incident_with_updates(c, &id))
        .await
        .expect("incident exists")
}

/// Posts an update.
pub async fn post(
    app: &TestApp,
    incident_id: &IncidentId,
    input: PostUpdateInput,
    now: DateTime<Utc>,
) -> AppResult<PostedUpdate> {
    let incident_id = incident_id.clone();
    run(app, move |c| {
        incidents::post_update(c, &incident_id, &input, None, now)
    })
    .await
}

/// An update moving to `status` with a body and nothing else.
pub fn update(status: &str) -> PostUpdateInput {
    PostUpdateInput {
        status: Some(status.into()),
        body: format!("Now {status}."),
        ..Default::default()
    }
}
