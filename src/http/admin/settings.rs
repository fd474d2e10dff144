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
use crate::domain::brand::{HeaderLink, read_links};
use crate::domain::deadline::{MAX_NEXT_UPDATE_MINS, MIN_NEXT_UPDATE_MINS};
use crate::domain::lang::Lang;
use crate::domain::{ImageRole, NextUpdateIntervals, SupportReach, Theme, Visibility};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::render::html::choice::{Choice, options};
use crate::services::page_admin;
use crate::services::page_webhooks::{self, CheckedWebhooks, Purpose, WebhookPatch};
use crate::services::pages::{self, UpdatePageInput};
use crate::state::AppState;

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

/// The form filled from the stored page and its webhook URLs.
fn stored(page: &StatusPage, hooks: &serde_json::Map<String, Value>) -> Submitted {
    let minutes = |m: Option<i32>| m.map(|m| m.to_string()).unwrap_or_default();
    let flag = |b: bool| if b { "yes".to_owned() } else { String::new() };
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let hook = |p: Purpose| {
        let url = hooks.get(p.url_field()).and_then(Value::as_str);
        url.unwrap_or_default().to_owned()
    };
    Submitted(
        [
            ("name", page.name.clone()),
            ("slug", page.slug.clone()),
            ("description", opt(&page.description)),
            ("time_zone", page.time_zone.clone()),
            ("support_email", opt(&page.support_email)),
            ("custom_domain", opt(&page.custom_domain)),
            ("public_url", opt(&page.public_url)),
            ("support_webhook_url", hook(Purpose::Support)),
            ("responder_webhook_url", hook(Purpose::Responder)),
            (
                "embed_origins",
                crate::domain::embed::listed(&page.embed_origins).join("\n"),
            ),
            ("interval_none", minutes(page.next_update_none_mins)),
            ("interval_minor", minutes(page.next_update_minor_mins)),
            ("interval_major", minutes(page.next_update_major_mins)),
            ("interval_critical", minutes(page.next_update_critical_mins)),
            ("visibility", page.visibility.as_str().to_owned()),
            ("allowed_email_domains", page.email_domains().join("\n")),
            ("support_reach", page.support_reach.as_str().to_owned()),
            ("brand_color", opt(&page.brand_color)),
            ("theme", page.theme.as_str().to_owned()),
            ("header_links", link_lines(&read_links(&page.header_links))),
            ("footer", opt(&page.footer)),
            ("custom_css", opt(&page.custom_css)),
            ("is_default", flag(page.is_default)),
            (
                "default_language",
                page.default_language.as_str().to_owned(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .chain(Lang::ALL.iter().map(|l| {
            let on = page.enabled_languages().contains(l);
            (format!("lang_{l}"), flag(on))
        }))
        .collect(),
    )
}

/// One interval field: blank is "no default deadline"; otherwise whole minutes in range.
fn interval(form: &Submitted, name: &str, errors: &mut FieldErrors) -> Option<u32> {
    let value = text(form, name)?;
    let complain = |errors: &mut FieldErrors, message: String| {
        errors.entry(name.to_owned()).or_default().push(message);
    };
    let Ok(minutes) = value.parse::<u32>() else {
        complain(errors, "is not a whole number of minutes".to_owned());
        return None;
    };
    if !(MIN_NEXT_UPDATE_MINS..=MAX_NEXT_UPDATE_MINS).contains(&minutes) {
        let range =
            format!("must be between {MIN_NEXT_UPDATE_MINS} and {MAX_NEXT_UPDATE_MINS} minutes");
        complain(errors, range);
        return None;
    }
    Some(minutes)
}

/// Header links as the form shows them: one `Label | address` a line.
fn link_lines(links: &[HeaderLink]) -> String {
    links
        .iter()
        .map(|l| format!("{} | {}", l.label, l.url))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The header links field: one `Label | address` a line, blank lines skipped.
fn header_links(form: &Submitted, errors: &mut FieldErrors) -> Option<Vec<HeaderLink>> {
    let mut links = Vec::new();
    for (n, line) in form.get("header_links").lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.rsplit_once('|') {
            Some((label, url)) => links.push(HeaderLink {
                label: label.trim().to_owned(),
                url: url.trim().to_owned(),
            }),
            None => {
                errors
                    .entry("header_links".to_owned())
                    .or_default()
                    .push(format!(
                        "line {}: write each link as Label | https://example.com/page",
                        n + 1
                    ));
                return None;
            }
        }
    }
    Some(links)
}

/// A select's value parsed (`None` when absent: it stays as it is), or an error under its name.
fn chosen<T: std::str::FromStr>(form: &Submitted, name: &str, errors: &mut FieldErrors) -> Option<T>
where
    T::Err: std::fmt::Display,
{
    let value = text(form, name)?;
    match value.parse() {
        Ok(value) => Some(value),
        Err(e) => {
            errors
                .entry(name.to_owned())
                .or_default()
                .push(e.to_string());
            None
        }
    }
}

/// Every setting as typed: blank optional fields clear, unticked boxes are false.
fn settings_input(form: &Submitted) -> Result<UpdatePageInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let intervals = NextUpdateIntervals {
        none: interval(form, "interval_none", &mut errors),
        minor: interval(form, "interval_minor", &mut errors),
        major: interval(form, "interval_major", &mut errors),
        critical: interval(form, "interval_critical", &mut errors),
    };
    let input = UpdatePageInput {
        slug: Some(form.get("slug").to_owned()),
        name: Some(form.get("name").to_owned()),
        description: Some(text(form, "description")),
        public_url: Some(text(form, "public_url")),
        custom_domain: Some(text(form, "custom_domain")),
        time_zone: Some(form.get("time_zone").to_owned()),
        support_email: Some(text(form, "support_email")),
        next_update_intervals: Some(intervals),
        is_default: Some(ticked(form, "is_default")),
        visibility: chosen(form, "visibility", &mut errors),
        is_public: None,
        // Blank keeps the password; the box removes it.
        password: match (text(form, "password"), ticked(form, "clear_password")) {
            (_, true) => Some(None),
            (Some(password), false) => Some(Some(password)),
            (None, false) => None,
        },
        allowed_email_domains: Some(
            form.get("allowed_email_domains")
                .split([',', ' ', '\n', '\r', '\t'])
                .filter(|d| !d.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
        support_reach: chosen(form, "support_reach", &mut errors),
        embed_origins: Some(
            form.get("embed_origins")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        ),
        brand_color: Some(text(form, "brand_color")),
        theme: chosen(form, "theme", &mut errors),
        header_links: header_links(form, &mut errors),
        footer: Some(text(form, "footer")),
        custom_css: Some(text(form, "custom_css")),
        // A browser always sends the default language's select with the boxes beside it; a
        // form without it (an older page, a script) leaves the languages as they are.
        languages: text(form, "default_language").map(|_| {
            Lang::ALL
                .iter()
                .filter(|l| ticked(form, &format!("lang_{l}")))
                .map(|l| l.as_str().to_owned())
                .collect()
        }),
        default_language: text(form, "default_language"),
    };
    errors.is_empty().then_some(input).ok_or(errors)
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

#[cfg(test)]
mod tests {
    use super::super::fields::filled;
    use super::*;

    #[test]
    fn intervals_are_checked_one_by_one_and_blank_means_none() {
        let form = filled([
            ("interval_none", String::new()),
            ("interval_minor", "60".to_owned()),
            ("interval_major", "2".to_owned()),
            ("interval_critical", "soon".to_owned()),
        ]);
        let errors = settings_input(&form).unwrap_err();
        assert!(errors.contains_key("interval_major"));
        assert!(errors.contains_key("interval_critical"));
        assert!(!errors.contains_key("interval_minor"));
        let form = filled([("interval_minor", "60".to_owned())]);
        let input = settings_input(&form).unwrap();
        let intervals = input.next_update_intervals.unwrap();
        assert_eq!((intervals.none, intervals.minor), (None, Some(60)));
        assert_eq!(input.visibility, None, "absent: left as it is");
        assert_eq!(input.password, None, "blank: the password is kept");
    }

    #[test]
    fn the_access_fields_are_read_and_a_bad_visibility_is_refused_by_name() {
        let form = filled([
            ("visibility", "private".to_owned()),
            ("password", "a long page password".to_owned()),
            (
                "allowed_email_domains",
                "contoso.com\r\nfabrikam.com, ".to_owned(),
            ),
            ("support_reach", "readers".to_owned()),
        ]);
        let input = settings_input(&form).unwrap();
        assert_eq!(input.visibility, Some(Visibility::Private));
        assert_eq!(
            input.password,
            Some(Some("a long page password".to_owned()))
        );
        assert_eq!(
            input.allowed_email_domains.as_deref(),
            Some(&["contoso.com".to_owned(), "fabrikam.com".to_owned()][..])
        );
        assert_eq!(input.support_reach, Some(SupportReach::Readers));
        let form = filled([
            ("password", "ignored".to_owned()),
            ("clear_password", "yes".to_owned()),
        ]);
        assert_eq!(settings_input(&form).unwrap().password, Some(None));
        let form = filled([("visibility", "secret".to_owned())]);
        let errors = settings_input(&form).unwrap_err();
        assert!(errors["visibility"][0].contains("not a valid visibility"));
    }
}
