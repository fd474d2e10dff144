//! `/admin/pages/{slug}/integrations`: alerts in, in the console. Everyone signed in sees the
//! page's integrations, the components whose status an alert set (which alert, when) and the
//! incidents integrations propose; responders publish or dismiss a proposal; owners add an
//! integration (its token is shown once, on the answer), renew its token or remove it.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{messages, number, text, ticked, values};
use super::form::{Shown, Submitted};
use super::view::{TimeView, page_zone};
use super::write::{change, form_changes, on_page, submit};
use super::{ConsoleFrame, read_page, render_form, see_other};
use crate::domain::{IncidentMode, IntegrationId, IntegrationKind};
use crate::error::{AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::render::html::choice::{Choice, options};
use crate::services::integrations::{self as service, NewIntegrationInput, SettingsPatch};
use crate::services::{alerts, components, templates};
use crate::state::AppState;

const FIELDS: &[&str] = &[
    "kind",
    "name",
    "component_label",
    "hold_seconds",
    "template_id",
    "incident_mode",
    "notify_subscribers",
];

/// Registers the routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    let base = "/admin/pages/{slug}/integrations";
    cfg.route(base, web::get().to(show_integrations))
        .route(base, web::post().to(create_integration))
        .route(&format!("{base}/{{id}}/token"), web::post().to(renew_token))
        .route(
            &format!("{base}/{{id}}/delete"),
            web::post().to(delete_integration),
        )
        .route(
            "/admin/pages/{slug}/incident-drafts/{id}/publish",
            web::post().to(publish_draft),
        )
        .route(
            "/admin/pages/{slug}/incident-drafts/{id}/dismiss",
            web::post().to(dismiss_draft),
        );
}

#[derive(Serialize)]
struct Row {
    name: String,
    kind: &'static str,
    endpoint: String,
    settings: String,
    last_used: Option<TimeView>,
    token_action: String,
    delete_action: String,
}

#[derive(Serialize)]
struct Marked {
    component: String,
    status: &'static str,
    alert: String,
    integration: String,
    set: TimeView,
}

#[derive(Serialize)]
struct Draft {
    component: String,
    alert: String,
    summary: Option<String>,
    proposed: TimeView,
    publish_action: String,
    dismiss_action: String,
}

#[derive(Serialize)]
struct IntegrationsPage {
    frame: ConsoleFrame,
    page_name: String,
    action: String,
    rows: Vec<Row>,
    marked: Vec<Marked>,
    drafts: Vec<Draft>,
    kinds: Vec<Choice>,
    templates: Vec<Choice>,
    modes: Vec<Choice>,
    values: Value,
    errors: Value,
    /// The token just made, with the integration it opens: shown this once.
    secret: Option<Value>,
}

/// Everything the page shows, read in one go.
async fn show(
    state: &AppState,
    auth: &Authenticated,
    slug: String,
    shown: Shown<'_>,
) -> AppResult<HttpResponse> {
    let (form, refused) = (shown.form(), shown.refused);
    let base_url = state.settings.public_url.trim_end_matches('/').to_owned();
    let (page, (rows, marked, drafts, template_list)) =
        read_page(state, auth, Permission::Read, slug, |c, page| {
            let rows = service::list_integrations(c, &page.id)?;
            let tree = components::list_components(c, &page.id)?;
            let marks = alerts::marks_of_page(c, &page.id)?;
            let drafts = alerts::list_drafts(c, &page.id)?;
            let template_list = templates::list_templates(c, &page.id)?;
            let named = |id: &str| {
                tree.components()
                    .find(|x| x.id == id)
                    .map(|x| (x.name.clone(), x.status.label()))
            };
            let marked: Vec<(String, &'static str, _)> = marks
                .into_iter()
                .filter_map(|m| named(&m.component_id).map(|(n, s)| (n, s, m)))
                .collect();
            let drafts: Vec<(String, _)> = drafts
                .into_iter()
                .map(|d| (named(&d.component_id).map_or_else(String::new, |x| x.0), d))
                .collect();
            Ok((rows, marked, drafts, template_list))
        })
        .await?;
    let tz = page_zone(&page.time_zone);
    let at = |t| TimeView::new(t, tz);
    let base = format!("/admin/pages/{}", page.slug);
    let view = IntegrationsPage {
        frame: ConsoleFrame::new(state, auth, format!("Alerts in · {}", page.name)),
        action: format!("{base}/integrations"),
        rows: rows
            .iter()
            .map(|i| {
                let row = &i.row;
                let settings = format!(
                    "component label “{}”, severity label “{}”, hold {} s, incidents: {}, subscribers told: {}",
                    row.component_label,
                    row.severity_label,
                    row.hold_secs,
                    row.incident_mode.label(),
                    if row.notify_subscribers { "yes" } else { "no" },
                );
                Row {
                    name: row.name.clone(),
                    kind: row.kind.label(),
                    endpoint: format!(
                        "{base_url}/api/v1/pages/{}/integrations/{}/{}",
                        page.slug, row.id, row.kind
                    ),
                    settings,
                    last_used: row.last_used_at.map(at),
                    token_action: format!("{base}/integrations/{}/token", row.id),
                    delete_action: format!("{base}/integrations/{}/delete", row.id),
                }
            })
            .collect(),
        marked: marked
            .into_iter()
            .map(|(component, status, m)| Marked {
                component,
                status,
                alert: m.alert_name,
                integration: m.integration,
                set: at(m.set_at),
            })
            .collect(),
        drafts: drafts
            .into_iter()
            .map(|(component, d)| Draft {
                component,
                alert: d.alert_name,
                summary: d.summary,
                proposed: at(d.created_at),
                publish_action: format!("{base}/incident-drafts/{}/publish", d.id),
                dismiss_action: format!("{base}/incident-drafts/{}/dismiss", d.id),
            })
            .collect(),
        kinds: options(
            IntegrationKind::ALL
                .iter()
                .map(|k| (k.as_str().to_owned(), k.label().to_owned())),
            form.get("kind"),
        ),
        templates: options(
            std::iter::once((String::new(), "None".to_owned())).chain(
                template_list
                    .iter()
                    .map(|t| (t.id.clone(), t.name.clone())),
            ),
            form.get("template_id"),
        ),
        modes: options(
            IncidentMode::ALL
                .iter()
                .map(|m| (m.as_str().to_owned(), m.label().to_owned())),
            form.get("incident_mode"),
        ),
        values: values(form, FIELDS),
        errors: messages(refused, FIELDS),
        page_name: page.name,
        secret: shown.secret,
    };
    render_form(state, refused, "admin/integrations", &view)
}

/// The page's integrations, marks and proposals.
#[tracing::instrument(skip_all)]
pub async fn show_integrations(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    show(&state, &auth, slug.into_inner(), Shown::default()).await
}

/// The form read as a new integration.
fn read(form: &Submitted) -> Result<NewIntegrationInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let kind = form.get("kind").parse::<IntegrationKind>();
    let mode = match form.get("incident_mode") {
        "" => Ok(IncidentMode::Off),
        m => m.parse::<IncidentMode>(),
    };
    let hold = number(form, "hold_seconds", &mut errors);
    for (field, message) in [
        ("kind", kind.as_ref().err().map(ToString::to_string)),
        (
            "incident_mode",
            mode.as_ref().err().map(ToString::to_string),
        ),
    ] {
        if let Some(message) = message {
            errors.entry(field.to_owned()).or_default().push(message);
        }
    }
    match (kind, mode, errors.is_empty()) {
        (Ok(kind), Ok(mode), true) => Ok(NewIntegrationInput {
            kind,
            name: form.get("name").to_owned(),
            settings: SettingsPatch {
                component_label: text(form, "component_label").map(Some),
                hold_seconds: hold.map(Some),
                template_id: Some(text(form, "template_id")),
                incident_mode: Some(Some(mode)),
                notify_subscribers: Some(Some(ticked(form, "notify_subscribers"))),
                ..SettingsPatch::default()
            },
        }),
        _ => Err(errors),
    }
}

/// Adds an integration (owners) and shows its token once; or the form again (422).
#[tracing::instrument(skip_all)]
pub async fn create_integration(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let slug = slug.into_inner();
    let changes = form_changes(&form, &[]);
    let made = submit(read(&form), |input| {
        on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
            let (made, token) = service::create_integration(c, &page.id, &input)?;
            let audit = change(
                "integration.create",
                "integration",
                &made.row.id,
                Some(&page.id),
                changes,
            );
            Ok(((made.row.name, token), audit))
        })
    })
    .await?;
    match made {
        Ok((name, token)) => {
            let secret = json!({"name": name, "token": token});
            show(&state, &auth, slug, Shown::secret(secret)).await
        }
        Err(refused) => show(&state, &auth, slug, Shown::refused(&form, &refused)).await,
    }
}

/// A new token for an integration (owners), shown once.
#[tracing::instrument(skip_all)]
pub async fn renew_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, IntegrationId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    let (name, token) = on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
        let (renewed, token) = service::rotate_token(c, &page.id, &id)?;
        let audit = change(
            "integration.token",
            "integration",
            &id,
            Some(&page.id),
            json!({}),
        );
        Ok(((renewed.row.name, token), audit))
    })
    .await?;
    let secret = json!({"name": name, "token": token});
    show(&state, &auth, slug, Shown::secret(secret)).await
}

/// Removes an integration (owners): its token stops working.
#[tracing::instrument(skip_all)]
pub async fn delete_integration(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, IntegrationId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
        let gone = service::delete_integration(c, &page.id, &id)?;
        let audit = change(
            "integration.delete",
            "integration",
            &id,
            Some(&page.id),
            json!({"name": gone.name, "kind": gone.kind}),
        );
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/pages/{slug}/integrations")))
}

/// Publishes a proposed incident (responders) and goes to it.
#[tracing::instrument(skip_all)]
pub async fn publish_draft(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    let author = auth.user_id.clone();
    let incident = on_page(&state, &auth, Permission::Write, &slug, move |c, page| {
        let posted = alerts::publish_draft(c, &page.id, &id, Some(&author), Utc::now())?;
        let audit = change(
            "incident.create",
            "incident",
            &posted.incident.id,
            Some(&page.id),
            json!({"draft_id": id}),
        );
        Ok((posted.incident.id, audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/incidents/{incident}")))
}

/// Dismisses a proposed incident (responders).
#[tracing::instrument(skip_all)]
pub async fn dismiss_draft(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    on_page(&state, &auth, Permission::Write, &slug, move |c, page| {
        let draft = alerts::dismiss_draft(c, &page.id, &id)?;
        let audit = change(
            "incident_draft.dismiss",
            "incident_draft",
            &draft.id,
            Some(&page.id),
            json!({"alert": draft.alert_name}),
        );
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/pages/{slug}/integrations")))
}
