//! Errors a browser can read. On the HTML routes (the console, the subscribe, unsubscribe and
//! support flows, and whatever else is not the API), an error answer is a page in the site's
//! layout: what happened in one plain sentence, the fields concerned, a link back, and the
//! request id to quote. The API, the JSON endpoints and the health checks keep their JSON
//! errors ([`crate::error`]).
//!
//! A console form posted after the session has ended is not lost: its body is read before the
//! handler runs, and the 401 becomes the sign-in page carrying it, which leads back to the same
//! form with everything typed ([`crate::http::auth::login::Carried`]). A browser sent to sign in from a
//! console page comes back to that page; one whose session could not be looked up, because the
//! database did not answer, is told so (503) instead of being sent to sign in.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse, ResponseError, web};
use bytes::Bytes;
use tracing_actix_web::RequestId;

use crate::error::AppError;
use crate::http::auth::extract::{read_form, replay};
use crate::http::auth::login::{Carried, SIGN_IN};
use crate::render::html::{ErrorPage, FieldMessage, Link, render_error};
use crate::state::AppState;

/// How long reading a console form body may take before the request is refused.
const CARRY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Who reads a route's errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A person in a browser: HTML.
    Browser,
    /// A program: the API's JSON.
    Program,
}

impl Reader {
    /// The reader of `path`, sent with the body type `content_type`: the API (`/api/` at the
    /// root or below a page), Statuspage's API (`/v1/`), `.json` documents, the health checks and JSON bodies are read by
    /// programs; everything else by people.
    pub fn of(path: &str, content_type: &str) -> Self {
        let program = path.starts_with("/api/")
            || path.contains("/api/")
            || path == "/v1"
            || path.starts_with("/v1/")
            || path.ends_with(".json")
            || matches!(path, "/healthz" | "/readyz")
            || content_type.eq_ignore_ascii_case("application/json");
        if program {
            Self::Program
        } else {
            Self::Browser
        }
    }
}

/// Whether `req` is a console form post whose body is kept for a new sign-in.
fn carries_form(req: &ServiceRequest) -> bool {
    req.method() == Method::POST
        && req.path().starts_with("/admin/")
        && req.path() != SIGN_IN
        && req.headers().get(header::AUTHORIZATION).is_none()
        && req
            .content_type()
            .eq_ignore_ascii_case("application/x-www-form-urlencoded")
}

/// Reads the body of `req` (bounded in size and time) and puts the same bytes back for the
/// handler.
async fn keep_body(req: &mut ServiceRequest) -> Result<Bytes, AppError> {
    let mut payload = req.take_payload();
    let body = tokio::time::timeout(CARRY_TIMEOUT, read_form(&mut payload))
        .await
        .map_err(|_| AppError::BadRequest("the form took too long to arrive".into()))??;
    req.set_payload(replay(body.clone()));
    Ok(body)
}

/// Turns the errors of HTML routes into pages; see the module's documentation.
pub async fn for_browsers(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let reader = Reader::of(req.path(), req.content_type());
    if reader == Reader::Program {
        return next.call(req).await.map(|res| res.map_into_boxed_body());
    }
    let carried = if carries_form(&req) {
        match keep_body(&mut req).await {
            Ok(body) => Some(body),
            Err(e) => {
                let (http, _) = req.into_parts();
                let res = page_for(&http, &e);
                return Ok(ServiceResponse::new(http, res));
            }
        }
    } else {
        None
    };
    let res = next.call(req).await?;
    let Some(error) = res.response().error() else {
        return Ok(res.map_into_boxed_body());
    };
    let error = match error.as_error::<AppError>() {
        Some(AppError::Unauthorized) if carried.is_some() => {
            let http = res.request().clone();
            let body = carried.as_deref().unwrap_or_default();
            let carried = Carried::new(http.path(), body, reviewable(http.path()));
            let answer = crate::http::auth::login::sign_in_again(&http, &carried);
            return Ok(ServiceResponse::new(http, boxed(answer)));
        }
        // A console page asked for without a session: to sign in, and back here afterwards.
        Some(AppError::Unauthorized) if console_read(res.request()) => {
            let http = res.request().clone();
            let answer = HttpResponse::SeeOther()
                .insert_header((header::LOCATION, sign_in_leading_to(&http)))
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .finish();
            return Ok(ServiceResponse::new(http, answer));
        }
        Some(app) => Found::App(app),
        None => Found::Other(error.as_response_error().status_code()),
    };
    let http = res.request().clone();
    let answer = match error {
        Found::App(app) => page_for(&http, app),
        Found::Other(status) => page_for_status(&http, status),
    };
    Ok(ServiceResponse::new(http, answer))
}

enum Found<'a> {
    App(&'a AppError),
    Other(StatusCode),
}

fn boxed(answer: Result<HttpResponse, AppError>) -> HttpResponse {
    answer.unwrap_or_else(|e| e.error_response())
}

/// Whether `req` reads a console page (a GET below `/admin`).
fn console_read(req: &actix_web::HttpRequest) -> bool {
    matches!(*req.method(), Method::GET | Method::HEAD)
        && (req.path() == "/admin" || req.path().starts_with("/admin/"))
}

/// The sign-in page, leading back to the page `req` asked for (the dashboard needs no `next`).
fn sign_in_leading_to(req: &actix_web::HttpRequest) -> String {
    if req.path() == "/admin" {
        return SIGN_IN.to_owned();
    }
    let asked = match req.query_string() {
        "" => req.path().to_owned(),
        query => format!("{}?{query}", req.path()),
    };
    let next: String = url::form_urlencoded::byte_serialize(asked.as_bytes()).collect();
    format!("{SIGN_IN}?next={next}")
}

/// The console forms that can be shown again with what was typed without saving anything
/// (their "Preview" button): after a new sign-in they come back as the form itself.
fn reviewable(path: &str) -> bool {
    const FORMS: [&str; 4] = [
        "/admin/pages/{slug}/incidents/new",
        "/admin/pages/{slug}/maintenances/new",
        "/admin/incidents/{id}/updates",
        "/admin/incidents/{id}/postmortem",
    ];
    FORMS
        .iter()
        .any(|pattern| actix_web::dev::ResourceDef::new(*pattern).is_match(path))
}

/// Where "back" leads from `path`: the status page a flow belongs to (when `is_page` says it
/// is one), the console, or home.
fn way_back(path: &str, is_page: impl Fn(&str) -> bool) -> Link {
    if path.starts_with("/admin") {
        return Link {
            href: "/admin".into(),
            label: "Back to the console".into(),
        };
    }
    let page = path
        .strip_prefix("/status/")
        .and_then(|rest| rest.split('/').next())
        .filter(|slug| crate::domain::slug::Slug::parse(slug).is_ok() && is_page(slug));
    match page {
        Some(slug) => Link {
            href: format!("/status/{slug}"),
            label: "Back to the status page".into(),
        },
        None => Link {
            href: "/".into(),
            label: "Back to the status pages".into(),
        },
    }
}

/// The title and sentence of an error, in words a reader of the page can act on.
fn words(error: &AppError) -> (String, String) {
    let (title, sentence): (&str, String) = match error {
        AppError::Validation(_) | AppError::Taken(_) => (
            "Please check what you sent",
            "Some of the fields could not be accepted:".into(),
        ),
        AppError::BadRequest(message) => (
            "This request could not be read",
            format!("{}.", capitalised(message)),
        ),
        AppError::NotFound(_) => (
            "Not found",
            "There is nothing at this address. The link may be old or mistyped.".into(),
        ),
        AppError::Unauthorized => (
            "Please sign in",
            "You need to be signed in to do this.".into(),
        ),
        AppError::Forbidden => (
            "This was refused",
            "Either your account may not do this, or the form was open too long or did not \
             come from this site. Go back, reload the page and try again."
                .into(),
        ),
        AppError::Conflict(message) => (
            "This conflicts with what is there",
            format!("{}.", capitalised(message)),
        ),
        AppError::Unavailable { .. } => (
            "Busy right now",
            "Herald cannot answer this at the moment.".into(),
        ),
        AppError::RateLimited { .. } => (
            "Too many requests",
            "Too many requests came from your network in a short time.".into(),
        ),
        AppError::Internal(_) => (
            "Something went wrong",
            "Something went wrong on our side. It has been logged; the reference below finds it."
                .into(),
        ),
    };
    (title.to_owned(), sentence)
}

fn capitalised(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The error page of `error` for the request `req`, with the error's status and headers.
fn page_for(req: &actix_web::HttpRequest, error: &AppError) -> HttpResponse {
    let (title, sentence) = words(error);
    let fields = match error.fields() {
        Some(fields) => fields
            .iter()
            .flat_map(|(name, messages)| {
                messages.iter().map(|m| FieldMessage {
                    name: name.clone(),
                    message: m.clone(),
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    let retry_after = match error {
        AppError::Unavailable {
            retry_after_secs, ..
        }
        | AppError::RateLimited { retry_after_secs } => Some(*retry_after_secs),
        _ => None,
    };
    let page = ErrorPage {
        title,
        explanation: sentence,
        fields,
        retry_after,
        back: way_back(req.path(), |slug| {
            req.app_data::<web::Data<AppState>>()
                .is_some_and(|state| state.site.snapshot().pages.contains_key(slug))
        }),
        request_id: req.extensions().get::<RequestId>().map(|id| id.to_string()),
    };
    let mut res = html(req, error.status_code(), &page);
    if let Some(secs) = retry_after {
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    res
}

/// The error page of an error that is not Herald's (one of actix's own), by its status.
fn page_for_status(req: &actix_web::HttpRequest, status: StatusCode) -> HttpResponse {
    let error = match status {
        StatusCode::NOT_FOUND => AppError::NotFound("page".into()),
        StatusCode::UNAUTHORIZED => AppError::Unauthorized,
        StatusCode::FORBIDDEN => AppError::Forbidden,
        s if s.is_client_error() => AppError::BadRequest(
            s.canonical_reason()
                .unwrap_or("the request was refused")
                .to_lowercase(),
        ),
        _ => AppError::Internal(anyhow::anyhow!("an error answered {status}")),
    };
    let mut res = page_for(req, &error);
    *res.status_mut() = status;
    res
}

fn html(req: &actix_web::HttpRequest, status: StatusCode, page: &ErrorPage) -> HttpResponse {
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return HttpResponse::build(status).finish();
    };
    let renderer = &state.site.renderer;
    let body = match render_error(page, &renderer.templates, &renderer.assets) {
        Ok(body) => body,
        Err(e) => {
            tracing::error!(error = ?e, "rendering the error page");
            format!("{}: {}", page.title, page.explanation)
        }
    };
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, super::CSP))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_read_the_api_json_documents_and_health_checks() {
        for path in [
            "/api/v1/pages",
            "/status/acme/api/v2/summary.json",
            "/status/acme/api/subscribe",
            "/healthz",
            "/readyz",
        ] {
            assert_eq!(Reader::of(path, ""), Reader::Program, "{path}");
        }
        assert_eq!(
            Reader::of("/status/acme/support", "application/json"),
            Reader::Program
        );
        for path in [
            "/admin/incidents/x",
            "/status/acme/subscribe",
            "/status/acme/unsubscribe/t",
            "/support",
        ] {
            assert_eq!(
                Reader::of(path, "application/x-www-form-urlencoded"),
                Reader::Browser,
                "{path}"
            );
        }
    }

    #[test]
    fn the_way_back_leads_to_the_flows_page_the_console_or_home() {
        let acme = |slug: &str| slug == "acme";
        assert_eq!(
            way_back("/status/acme/subscribe", acme).href,
            "/status/acme"
        );
        assert_eq!(way_back("/status/gone/subscribe", acme).href, "/");
        assert_eq!(way_back("/admin/incidents/x", acme).href, "/admin");
        assert_eq!(way_back("/support", acme).href, "/");
        assert_eq!(way_back("/status/<b>/x", |_| true).href, "/");
    }

    #[test]
    fn the_forms_with_a_preview_come_back_as_forms() {
        assert!(reviewable("/admin/incidents/abc/updates"));
        assert!(reviewable("/admin/pages/acme/incidents/new"));
        assert!(!reviewable("/admin/pages/acme/settings"));
        assert!(!reviewable("/admin/incidents/abc/updates/extra"));
    }
}
