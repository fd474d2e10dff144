//! `GET/POST /admin/pages/{slug}/settings`: a page's settings for owners: name, slug,
//! description, time zone, support address, custom domain, public URL, the default "next
//! update by" interval per impact, whether the page is public and the default one, and the
//! page's support and responder webhooks (a new URL's signing secret is shown once, on the
//! page answering the save).

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{messages, text, ticked, values};
use super::form::Submitted;
use super::write::{audited, change, form_changes};
use super::{ConsoleFrame, render_form, see_other};
use crate::db::models::pages::StatusPage;
use crate::domain::lang::Lang;
use crate::domain::{ImageRole, SupportReach, Theme, Visibility};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::render::html::choice::{Choice, options};
use crate::services::page_admin;
use crate::services::page_webhooks::{self, CheckedWebhooks, Purpose, WebhookPatch};
use crate::services::pages::{self};
use crate::state::AppState;

mod form;

use form::{settings_input, stored};

/// The fields of the settings form.
const FIELDS: &[&str] = &[
    "name",
    "slug",
    "description",
    "time_zone",
    "support_email",
    "custom_domain",
    "public_url",
    "support_webhook_url",
    "responder_webhook_url",
    "embed_origins",
    "interval_none",
    "interval_minor",
    "interval_major",
    "interval_critical",
    "visibility",
    "password",
    "clear_password",
    "allowed_email_domains",
    "support_reach",
    "brand_color",
    "theme",
    "header_links",
    "footer",
    "custom_css",
    "languages",
    "default_language",
    "is_default",
    "confirm",
];

/// Registers the settings routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/admin/pages/{slug}/settings", web::get().to(show_settings))
        .route(
            "/admin/pages/{slug}/settings",
            web::post().to(save_settings),
        )
        .route("/admin/pages/{slug}/delete", web::post().to(delete_page));
}

#[derive(Serialize)]
struct SettingsPage {
    frame: ConsoleFrame,
    page_name: String,
    slug: String,
    action: String,
    delete_action: String,
    public_href: String,
    values: Value,
    errors: Value,
    /// Signing secrets made by this save, shown this once.
    secrets: Vec<Value>,
    visibilities: Vec<Choice>,
    support_reaches: Vec<Choice>,
    themes: Vec<Choice>,
    /// Every language Herald speaks, ticked when the page is read in it.
    languages: Vec<Value>,
    default_languages: Vec<Choice>,
    has_password: bool,
    read_tokens_href: String,
    /// The logo and favicon: each one's upload form, and the stored one if any.
    images: Vec<Value>,
}

async fn show(
    state: &AppState,
    auth: &Authenticated,
    page: &StatusPage,
    form: &Submitted,
    refused: Option<&FieldErrors>,
    secrets: &[(Purpose, String)],
) -> AppResult<HttpResponse> {
    let (page_id, path) = (page.id.clone(), format!("/status/{}", page.slug));
    let (has_password, stored_images) = state
        .db
        .run(move |c| {
            let hash = crate::services::access::password_hash(c, &page_id)?;
            let mut images = Vec::new();
            for role in ImageRole::ALL {
                match crate::services::brand::image(c, &page_id, &path, *role) {
                    Ok(image) => images.push(image),
                    Err(AppError::NotFound(_)) => {}
                    Err(other) => return Err(other),
                }
            }
            Ok((hash.is_some(), images))
        })
        .await?;
    let images = ImageRole::ALL
        .iter()
        .map(|role| {
            let base = format!("/admin/pages/{}/images/{role}", page.slug);
            let stored = stored_images.iter().find(|i| i.role == *role);
            json!({
                "role": role.as_str(), "label": role.label(),
                "action": base, "delete_action": format!("{base}/delete"),
                "url": stored.map(|i| i.url.clone()),
                "content_type": stored.map(|i| i.content_type.clone()),
                "bytes": stored.map(|i| i.bytes),
            })
        })
        .collect();
    let named = |all: &[(&str, &str)]| {
        all.iter()
            .map(|(v, l)| ((*v).to_owned(), (*l).to_owned()))
            .collect::<Vec<_>>()
    };
    let visibilities: Vec<(&str, &str)> = Visibility::ALL
        .iter()
        .map(|v| (v.as_str(), v.label()))
        .collect();
    let reaches: Vec<(&str, &str)> = SupportReach::ALL
        .iter()
        .map(|v| (v.as_str(), v.label()))
        .collect();
    let themes: Vec<(&str, &str)> = Theme::ALL.iter().map(|v| (v.as_str(), v.label())).collect();
    let langs: Vec<(&str, &str)> = Lang::ALL.iter().map(|l| (l.as_str(), l.label())).collect();
    let languages = Lang::ALL
        .iter()
        .map(|l| {
            let field = format!("lang_{l}");
            json!({"code": l.as_str(), "label": l.label(), "field": field,
                   "checked": ticked(form, &field)})
        })
        .collect();
    let secrets = secrets
        .iter()
        .map(|(purpose, secret)| json!({"field": purpose.url_field(), "secret": secret}))
        .collect();
    let view = SettingsPage {
        frame: ConsoleFrame::new(state, auth, format!("Settings of {}", page.name)),
        page_name: page.name.clone(),
        slug: page.slug.clone(),
        action: format!("/admin/pages/{}/settings", page.slug),
        delete_action: format!("/admin/pages/{}/delete", page.slug),
        public_href: format!("/status/{}", page.slug),
        values: values(form, FIELDS),
        errors: messages(refused, FIELDS),
        secrets,
        visibilities: options(named(&visibilities), form.get("visibility")),
        support_reaches: options(named(&reaches), form.get("support_reach")),
        themes: options(named(&themes), form.get("theme")),
        languages,
        default_languages: options(named(&langs), form.get("default_language")),
        has_password,
        read_tokens_href: format!("/admin/pages/{}/read-tokens", page.slug),
        images,
    };
    render_form(state, refused, "admin/settings", &view)
}

/// The page of `slug`, for owners (403 for others).
async fn load(state: &AppState, auth: &Authenticated, slug: String) -> AppResult<StatusPage> {
    auth.require(Permission::Admin)?;
    state
        .db
        .run(move |c| pages::get_page_by_slug(c, &slug))
        .await
}

/// The form filled from the stored page and its webhook URLs.
async fn stored_form(state: &AppState, page: &StatusPage) -> AppResult<Submitted> {
    let page_id = page.id.clone();
    let hooks = state
        .db
        .run(move |c| page_webhooks::urls(c, &page_id))
        .await?;
    Ok(stored(page, &hooks))
}

/// The webhook fields as typed (blank clears), checked against the outbound policy.
async fn checked_hooks(state: &AppState, form: &Submitted) -> Result<CheckedWebhooks, FieldErrors> {
    let patch = WebhookPatch {
        support_webhook_url: Some(text(form, Purpose::Support.url_field())),
        responder_webhook_url: Some(text(form, Purpose::Responder.url_field())),
    };
    match page_webhooks::check(&patch, &state.notify.policy).await {
        Ok(checked) => Ok(checked),
        Err(AppError::Validation(fields)) => Err(fields),
        Err(_) => Err(FieldErrors::new()),
    }
}

/// The settings form (owners).
#[tracing::instrument(skip_all)]
pub async fn show_settings(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let page = load(&state, &auth, slug.into_inner()).await?;
    show(
        &state,
        &auth,
        &page,
        &stored_form(&state, &page).await?,
        None,
        &[],
    )
    .await
}

/// Saves the settings and shows them again (303, at the new slug; 200 with the secret when a
/// webhook URL was set), or the form (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn save_settings(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let page = load(&state, &auth, slug.into_inner()).await?;
    let hooks = checked_hooks(&state, &form).await;
    let refused = match (settings_input(&form), hooks) {
        (Ok(input), Ok(hooks)) => {
            let (page_id, fields) = (page.id.clone(), form_changes(&form, &["password"]));
            let saved = audited(&state, &auth, Permission::Admin, move |c| {
                let page = pages::update_page(c, &page_id, &input)?;
                let secrets = page_webhooks::apply(c, &page.id, &hooks)?;
                let audit = change("page.update", "page", &page.id, Some(&page.id), fields);
                Ok(((page, secrets), audit))
            })
            .await;
            match saved {
                Ok((page, secrets)) if secrets.is_empty() => {
                    return Ok(see_other(&format!("/admin/pages/{}/settings", page.slug)));
                }
                Ok((page, secrets)) => {
                    let shown = stored_form(&state, &page).await?;
                    return show(&state, &auth, &page, &shown, None, &secrets).await;
                }
                Err(AppError::Validation(fields) | AppError::Taken(fields)) => fields,
                Err(other) => return Err(other),
            }
        }
        (input, hooks) => {
            let mut fields = input.err().unwrap_or_default();
            fields.extend(hooks.err().unwrap_or_default());
            fields
        }
    };
    show(&state, &auth, &page, &form, Some(&refused), &[]).await
}

/// Deletes the page with everything on it once its slug is typed to confirm (303 to the
/// dashboard); without it, the settings again with the message (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn delete_page(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let page = load(&state, &auth, slug.into_inner()).await?;
    if form.get("confirm").trim() != page.slug {
        let mut refused = FieldErrors::new();
        let message = format!("type {} to confirm", page.slug);
        refused.insert("confirm".to_owned(), vec![message]);
        let mut shown = stored_form(&state, &page).await?;
        shown
            .0
            .push(("confirm".to_owned(), form.get("confirm").to_owned()));
        return show(&state, &auth, &page, &shown, Some(&refused), &[]).await;
    }
    let id = page.id.clone();
    audited(&state, &auth, Permission::Admin, move |c| {
        page_admin::delete_page(c, &id)?;
        let fields = json!({"slug": page.slug, "name": page.name});
        Ok(((), change("page.delete", "page", &id, Some(&id), fields)))
    })
    .await?;
    Ok(see_other("/admin"))
}
