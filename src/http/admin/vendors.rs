//! `/admin/pages/{slug}/vendors`: vendors' status, mirrored, in the console. Everyone signed in
//! sees which components follow a vendor's page, the vendor's status and incidents, and whether
//! the vendor's page can be read; owners make a component follow a vendor's component (the
//! vendor's page is read at once, so a wrong address or name is refused with the reason) or
//! stop following.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{messages, values};
use super::form::{Shown, Submitted};
use super::view::{TimeView, page_zone};
use super::write::{change, form_changes, on_page, submit};
use super::{ConsoleFrame, read_page, render_form, see_other};
use crate::domain::{ComponentId, vendor};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::render::html::choice::{Choice, options};
use crate::services::components;
use crate::services::mirrors::{self as service, Follow};
use crate::state::AppState;

const FIELDS: &[&str] = &["url", "vendor_component", "component_id"];

/// Registers the routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    let base = "/admin/pages/{slug}/vendors";
    cfg.route(base, web::get().to(show_vendors))
        .route(base, web::post().to(follow))
        .route(
            &format!("{base}/{{component_id}}/delete"),
            web::post().to(unfollow),
        );
}

#[derive(Serialize)]
struct Row {
    component: String,
    status: &'static str,
    vendor: String,
    vendor_url: Option<String>,
    vendor_component: String,
    url: String,
    read: Option<TimeView>,
    failing_since: Option<TimeView>,
    error: Option<String>,
    problem: Option<String>,
    incidents: Vec<String>,
    delete_action: String,
}

#[derive(Serialize)]
struct VendorsPage {
    frame: ConsoleFrame,
    page_name: String,
    action: String,
    rows: Vec<Row>,
    components: Vec<Choice>,
    poll_seconds: u64,
    values: Value,
    errors: Value,
}

async fn show(
    state: &AppState,
    auth: &Authenticated,
    slug: String,
    shown: Shown<'_>,
) -> AppResult<HttpResponse> {
    let (form, refused) = (shown.form(), shown.refused);
    let (page, (mirrors, tree)) = read_page(state, auth, Permission::Read, slug, |c, page| {
        let mirrors = service::list(c, &page.id)?;
        Ok((mirrors, components::list_components(c, &page.id)?))
    })
    .await?;
    let tz = page_zone(&page.time_zone);
    let at = |t: chrono::DateTime<chrono::Utc>| TimeView::new(t.naive_utc(), tz);
    let base = format!("/admin/pages/{}", page.slug);
    let status_of = |id: &ComponentId| {
        tree.components()
            .find(|c| c.id == *id)
            .map_or("", |c| c.status.label())
    };
    let view = VendorsPage {
        frame: ConsoleFrame::new(state, auth, format!("Vendors · {}", page.name)),
        action: format!("{base}/vendors"),
        rows: mirrors
            .iter()
            .map(|m| Row {
                component: m.component.clone(),
                status: status_of(&m.component_id),
                vendor: m.vendor.clone(),
                vendor_url: m.vendor_url.clone(),
                vendor_component: m.vendor_component.clone(),
                url: m.url.clone(),
                read: m.confirmed_at.map(at),
                failing_since: m.failing_since.map(at),
                error: m.last_error.clone(),
                problem: m.problem.clone(),
                incidents: m
                    .vendor_incidents
                    .iter()
                    .map(|i| format!("{} ({})", i.name, i.status.replace('_', " ")))
                    .collect(),
                delete_action: format!("{base}/vendors/{}/delete", m.component_id),
            })
            .collect(),
        components: options(
            std::iter::once((
                String::new(),
                "A new component, named as the vendor's".to_owned(),
            ))
            .chain(tree.components().map(|c| {
                let label = crate::domain::component_label(&c.name, c.region.as_deref());
                (c.id.to_string(), label)
            })),
            form.get("component_id"),
        ),
        poll_seconds: state.settings.mirror_poll.as_secs(),
        values: values(form, FIELDS),
        errors: messages(refused, FIELDS),
        page_name: page.name,
    };
    render_form(state, refused, "admin/vendors", &view)
}

/// The page's mirrored components.
#[tracing::instrument(skip_all)]
pub async fn show_vendors(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    show(&state, &auth, slug.into_inner(), Shown::default()).await
}

/// What the form asks for, checked as far as it can be without reading the vendor's page.
struct Asked {
    url: url::Url,
    wanted: String,
    component_id: Option<ComponentId>,
}

fn read(form: &Submitted) -> Result<Asked, FieldErrors> {
    let mut errors = FieldErrors::new();
    let url = vendor::summary_url(form.get("url"));
    if let Err(message) = &url {
        errors.insert("url".into(), vec![(*message).to_owned()]);
    }
    let wanted = form.get("vendor_component").trim().to_owned();
    if wanted.is_empty() {
        errors.insert(
            "vendor_component".into(),
            vec!["name the vendor's component (its name, or its id)".into()],
        );
    }
    match url {
        Ok(url) if errors.is_empty() => Ok(Asked {
            url,
            wanted,
            component_id: Some(form.get("component_id"))
                .filter(|id| !id.is_empty())
                .map(ComponentId::from),
        }),
        _ => Err(errors),
    }
}

/// Makes a component follow a vendor's (owners); or the form again with the reason (422).
#[tracing::instrument(skip_all)]
pub async fn follow(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let slug = slug.into_inner();
    let changes = form_changes(&form, &[]);
    let poll = state.settings.mirror_poll;
    let made = submit(read(&form), |asked| async {
        let (summary, etag) = crate::workers::mirrors::read_now(&state.fetcher, &asked.url)
            .await
            .map_err(|why| {
                AppError::field("url", format!("{} cannot be read: {why}", asked.url))
            })?;
        on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
            let view = service::follow(
                c,
                &page.id,
                &Follow {
                    url: &asked.url,
                    wanted: &asked.wanted,
                    summary: &summary,
                    etag,
                    component_id: asked.component_id.as_ref(),
                    poll,
                    now: crate::db::now(),
                },
            )?;
            let audit = change(
                "component.mirror",
                "component",
                view.component_id.as_str(),
                Some(&page.id),
                changes,
            );
            Ok(((), audit))
        })
        .await
    })
    .await?;
    match made {
        Ok(()) => Ok(see_other(&format!("/admin/pages/{slug}/vendors"))),
        Err(refused) => show(&state, &auth, slug, Shown::refused(&form, &refused)).await,
    }
}

/// Stops following (owners); the component keeps its status.
#[tracing::instrument(skip_all)]
pub async fn unfollow(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, ComponentId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
        let gone = service::unfollow(c, &page.id, &id)?;
        let audit = change(
            "component.unmirror",
            "component",
            id.as_str(),
            Some(&page.id),
            json!({"url": gone.url}),
        );
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/pages/{slug}/vendors")))
}
