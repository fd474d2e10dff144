//! Readers of restricted pages: who a request for a private or internal page admits, what a
//! stranger gets instead, and the reader's sign-in at `/status/{slug}/access`.
//!
//! Admission, cheapest first:
//! - a read token (`Authorization: Bearer hrt_...`, or `?token=hrt_...` for feed readers)
//!   and a reader's pass (the `herald_read_{slug}` cookie of a private page) are checked in
//!   memory against the page's snapshot, on the read path ([`in_memory`]);
//! - a signed-in responder (the console session, or an API token) is checked against the
//!   database, off the read path ([`admit`]).
//!
//! A stranger's browser is sent to sign in (a private page's access page, or the console's
//! sign-in for an internal page), with the way back; a machine client gets 401. Whatever is
//! answered for a restricted page says `Cache-Control: private, no-cache`.
//!
//! The access page offers the page's password and, for its allowed e-mail domains, a sign-in
//! link by mail (15 minutes, single use: opening it asks for a click, so a mail scanner that
//! follows links cannot use it up). Its forms carry a CSRF token bound to a nonce cookie, as
//! the console's sign-in does; wrong passwords and links asked for are throttled per page or
//! address and network.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use chrono::Utc;

use crate::domain::Visibility;
use crate::domain::lang::Lang;
use crate::http::auth::Authenticated;
use crate::render::site::{Found, PageSnapshot};
use crate::services::access as service;
use crate::services::access::pass as reader;
use crate::state::AppState;

mod page;
mod sign_in;

use page::show;
use sign_in::{email, leave, link_page, password, use_link};

/// What every answer for a restricted page says about caching.
pub const PRIVATE_CACHE: &str = "private, no-cache";
/// The title of the pages that let a reader in: "Sign in to read Acme", in `lang`.
fn signing_in(lang: Lang, name: &str) -> String {
    crate::render::i18n::text_with(lang, "access-title", &[("name", name.to_owned().into())])
}

/// The cookie of the access forms' nonce.
const NONCE_COOKIE: &str = "herald_access";
/// What a stranger is told when a wrong or revoked read token is sent.
const BAD_TOKEN: &str =
    "This read token is not valid for this status page (it may have been revoked).";

/// Registers the access routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/status/{slug}/access", web::get().to(show))
        .route("/status/{slug}/access/password", web::post().to(password))
        .route("/status/{slug}/access/email", web::post().to(email))
        .service(
            web::resource("/status/{slug}/access/link/{token}")
                .route(web::get().to(link_page))
                .route(web::post().to(use_link)),
        )
        .route("/status/{slug}/access/leave", web::post().to(leave));
}

/// What the read path can tell about a request for a restricted page without the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InMemory {
    /// A read token or a reader's pass of the page.
    Admitted,
    /// A read token that is not the page's: refused, whatever else the request carries.
    BadToken,
    /// Nothing the snapshot can admit: a responder's session or API token may (the router
    /// decides, [`admit`]), or it is a stranger.
    Unknown,
}

/// The read token a request carries, if any: `Authorization: Bearer hrt_...` or `?token=`.
fn read_token(req: &HttpRequest) -> Option<String> {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| t.starts_with(service::TOKEN_PREFIX));
    if let Some(token) = bearer {
        return Some(token.to_owned());
    }
    let query = req.query_string();
    if !query.contains("token=") {
        return None;
    }
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
}

/// Whether the snapshot alone admits `req` to `page` (see [`InMemory`]).
pub fn in_memory(req: &HttpRequest, page: &PageSnapshot, key: &[u8]) -> InMemory {
    if let Some(token) = read_token(req) {
        return match page.access.token_admits(&token) {
            true => InMemory::Admitted,
            false => InMemory::BadToken,
        };
    }
    if page.access.visibility == Visibility::Private && holds_pass(req, page, key) {
        return InMemory::Admitted;
    }
    InMemory::Unknown
}

/// Whether `req` carries a reader's pass that admits it to `page` now.
fn holds_pass(req: &HttpRequest, page: &PageSnapshot, key: &[u8]) -> bool {
    let access = &page.access;
    req.cookie(&reader::cookie_name(&page.data.page.slug))
        .and_then(|cookie| reader::verify_pass(cookie.value(), key))
        .is_some_and(|pass| {
            pass.admits(
                access.page_id.as_str(),
                access.epoch,
                Utc::now().timestamp(),
            )
        })
}

/// Whether `req` may read `found`: anyone a public page; for a restricted page, a read token,
/// a reader's pass, or a signed-in responder (the database is asked only for the last).
pub async fn admit(req: &HttpRequest, state: &AppState, found: Found<'_>) -> bool {
    let page = match found {
        Found::Public(_) => return true,
        Found::Restricted(page) => page,
    };
    match in_memory(req, page, state.secret.expose()) {
        InMemory::Admitted => true,
        InMemory::BadToken => false,
        InMemory::Unknown => responder(req).await,
    }
}

/// Whether the request is a signed-in responder's (session cookie or API token). An unsafe
/// method with a session cookie needs the console's CSRF token, which the public forms never
/// carry: there only an API token counts.
async fn responder(req: &HttpRequest) -> bool {
    let carries = req.headers().contains_key(header::AUTHORIZATION)
        || req.cookie(crate::http::auth::SESSION_COOKIE).is_some();
    if !carries {
        return false;
    }
    // The handler's body stays where it is: the extractor gets an empty one.
    let mut payload = actix_web::dev::Payload::None;
    Authenticated::from_request(req, &mut payload).await.is_ok()
}

/// A restricted page's representation, served to an admitted reader: never kept by a shared
/// cache, and revalidated by the browser each time (access can be taken away).
pub fn private(mut res: HttpResponse) -> HttpResponse {
    let headers = res.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(PRIVATE_CACHE),
    );
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Accept-Encoding, Authorization, Cookie"),
    );
    res
}

/// What a request not admitted to a restricted page gets: a browser asking for HTML is sent
/// to sign in and back to `path`; anything else (the JSON, feeds, calendar, badge) is 401.
/// A wrong read token is 401 whatever was asked for.
pub fn refuse(req: &HttpRequest, page: &PageSnapshot, tail: &str, bad_token: bool) -> HttpResponse {
    let html = !bad_token
        && match page.get(tail) {
            Some(rep) => rep.content_type.starts_with("text/html"),
            None => !tail.starts_with("api/") && !tail.contains('.'),
        };
    if !html {
        let message = if bad_token {
            BAD_TOKEN
        } else {
            "This status page is not public. Send one of its read tokens (Authorization: Bearer, or ?token= for feed readers), or sign in."
        };
        return HttpResponse::Unauthorized()
            .insert_header((
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"status page\""),
            ))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(serde_json::json!({"error": "unauthorized", "message": message}));
    }
    let slug = &page.data.page.slug;
    let back = back_path(req);
    let to = match page.access.visibility {
        Visibility::Internal => format!("{}?next={}", super::auth::login::SIGN_IN, encode(&back)),
        _ => format!("/status/{slug}/access?next={}", encode(&back)),
    };
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// The path (and query, without a token) the request asked for, to come back to.
fn back_path(req: &HttpRequest) -> String {
    let query: Vec<(String, String)> = url::form_urlencoded::parse(req.query_string().as_bytes())
        .filter(|(k, _)| k != "token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    match query.is_empty() {
        true => req.path().to_owned(),
        false => format!(
            "{}?{}",
            req.path(),
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&query)
                .finish()
        ),
    }
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `next` when it is a plain path of the page `slug` (where a reader may be sent once in);
/// otherwise the page's overview.
fn onward(slug: &str, next: &str) -> String {
    let base = format!("/status/{slug}");
    let plain = !next.contains("//") && next.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    let below = next == base
        || next
            .strip_prefix(&base)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('?'));
    let access = next.starts_with(&format!("{base}/access"));
    match plain && below && !access {
        true => next.to_owned(),
        false => base,
    }
}

#[cfg(test)]
mod tests {
    use super::onward;

    #[test]
    fn a_reader_is_sent_back_below_the_page_only() {
        assert_eq!(
            onward("acme", "/status/acme/history?page=2"),
            "/status/acme/history?page=2"
        );
        assert_eq!(onward("acme", "/status/acme"), "/status/acme");
        assert_eq!(onward("acme", ""), "/status/acme");
        for elsewhere in [
            "https://evil.example/",
            "//evil.example/status/acme",
            "/status/acmeco",
            "/status/other",
            "/admin",
            "/status/acme/access?next=x",
            "/status/acme/\\evil",
        ] {
            assert_eq!(onward("acme", elsewhere), "/status/acme", "{elsewhere}");
        }
    }
}
