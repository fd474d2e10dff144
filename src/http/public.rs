//! Public pages, API, feeds, badge and assets: answered from the in-memory site, never from the
//! database, so they stay fast and up when the database is slow or down.

use std::sync::Arc;

use actix_web::http::Method;
use actix_web::http::header::{self};
use actix_web::{HttpRequest, HttpResponse, web};

use crate::domain::lang::{self, Lang};
use crate::render::site::{Found, PageSnapshot, PublicSite, SiteSnapshot, Wanted, host_name};
use crate::state::AppState;

use super::access::{self, InMemory};

mod answer;

pub use answer::{Pending, Read};
use answer::{not_found, read, serve, starting};

/// The route names of the public read path, as metrics and logs give them.
pub mod route {
    pub const ROOT: &str = "/";
    pub const WELCOME: &str = "/welcome";
    pub const ASSET: &str = "/assets/{file}";
    pub const PAGE: &str = "/status/{slug}";
    pub const PAGE_PATH: &str = "/status/{slug}/{tail:.*}";
}

/// The public read path, answered before routing (see [`super::read_path`]): `GET`/`HEAD` of
/// the site root, an asset, a page and every path below it but its forms ([`FORM_TAILS`]), and
/// the `OPTIONS` preflight below a page. Answers the response and the route's name, or `None`
/// for everything else (the router takes it: the forms, the console, the API, a custom
/// domain's root-level paths, percent-encoded paths, which the router decodes).
pub fn early(req: &HttpRequest, site: &Arc<PublicSite>) -> Option<(Read, &'static str)> {
    let method = req.method();
    let read = *method == Method::GET || *method == Method::HEAD;
    if !read && *method != Method::OPTIONS {
        return None;
    }
    let path = req.path();
    if path.contains('%') {
        return None;
    }
    if let Some(rest) = path.strip_prefix("/status/") {
        let (slug, tail) = match rest.split_once('/') {
            Some((slug, tail)) => (slug, Some(tail)),
            None => (rest, None),
        };
        if slug.is_empty() || (tail.is_none() && !read) || is_form_path(path) {
            return None;
        }
        let name = if tail.is_some() {
            route::PAGE_PATH
        } else {
            route::PAGE
        };
        let tail = tail.unwrap_or("");
        let snapshot = site.snapshot();
        let res = match snapshot.find(slug) {
            Some(Found::Public(page)) => answer(req, site, page, tail),
            Some(Found::Restricted(page)) => early_restricted(req, site, page, tail)?,
            None if snapshot.warming => Read::Now(starting(tail)),
            None => Read::Now(not_found(site, tail)),
        };
        return Some((res, name));
    }
    if !read {
        return None;
    }
    if path == "/" {
        let snapshot = site.snapshot();
        let res = match snapshot.page_for_host(host(req)) {
            Some(Found::Public(page)) => answer(req, site, page, ""),
            Some(Found::Restricted(page)) => early_restricted(req, site, page, "")?,
            None => match snapshot.home.rendered() {
                Some(home) => Read::Now(serve(req, home)),
                None => Read::Home(site.clone(), snapshot.home.clone()),
            },
        };
        return Some((res, route::ROOT));
    }
    if path == route::WELCOME {
        return Some((
            Read::Now(serve(req, &site.renderer.welcome)),
            route::WELCOME,
        ));
    }
    let file = path.strip_prefix("/assets/")?;
    if file.is_empty() || file.contains('/') {
        return None;
    }
    let res = match site.renderer.assets.get(file) {
        Some(rep) => serve(req, &rep),
        None => not_found(site, ""),
    };
    Some((Read::Now(res), route::ASSET))
}

/// A restricted page on the read path: a preflight (it carries no credentials, and learns
/// nothing of the page), or a reader the snapshot admits; `None` for anyone else (the router
/// asks whether a responder is signed in, [`fallback`]).
fn early_restricted(
    req: &HttpRequest,
    site: &Arc<PublicSite>,
    page: &PageSnapshot,
    tail: &str,
) -> Option<Read> {
    if *req.method() == Method::OPTIONS {
        return Some(Read::Now(restricted_preflight()));
    }
    let key = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.secret.expose())?;
    match access::in_memory(req, page, key) {
        InMemory::Admitted => Some(read(req, site, page, tail).private()),
        InMemory::BadToken => Some(Read::Now(access::refuse(req, page, tail, true))),
        InMemory::Unknown => None,
    }
}

/// The preflight of a cross-origin read of a restricted page: a read token goes in the
/// `Authorization` header, which needs one.
fn restricted_preflight() -> HttpResponse {
    let mut res = HttpResponse::NoContent();
    res.insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
        .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"))
        .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, "Authorization"))
        .insert_header((header::ACCESS_CONTROL_MAX_AGE, "86400"));
    res.finish()
}

/// 204 for a representation readable from any origin (the v2 JSON): the methods it takes,
/// the request headers asked for, and how long a browser may keep the answer. Anything else
/// is not shared across origins and gets the 404 a cross-origin read of it would.
fn preflight(
    req: &HttpRequest,
    site: &PublicSite,
    page: &PageSnapshot,
    tail: &str,
) -> HttpResponse {
    let key = key(tail, req.query_string());
    let cors = match page.get(&key) {
        Some(rep) => rep.cors,
        None => page
            .on_demand_key(page.data.page.default_language, &key)
            .is_some_and(|k| k.doc.cors()),
    };
    match cors {
        true => {
            let mut res = HttpResponse::NoContent();
            res.insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
                .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"))
                .insert_header((header::ACCESS_CONTROL_MAX_AGE, "86400"))
                .insert_header((header::VARY, "Access-Control-Request-Headers"));
            // No credentials are ever involved, so whatever request headers were asked for
            // may be sent (as a value that is one line of visible ASCII).
            if let Some(asked) = req
                .headers()
                .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
                .filter(|v| v.to_str().is_ok_and(|s| s.len() <= 1024))
            {
                res.insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone()));
            }
            res.finish()
        }
        _ => not_found(site, tail),
    }
}

/// What follows `/status/{slug}/` on the pages' forms (subscribe, support, confirm, manage),
/// which are not answered from the in-memory site.
pub const FORM_TAILS: [&str; 7] = [
    "access",
    "subscribe",
    "api/subscribe",
    "support",
    "api/support",
    "confirm",
    "unsubscribe",
];

/// Whether `path` is one of a page's forms (`/status/{slug}/` and a [`FORM_TAILS`] entry, alone
/// or followed by `/...`).
pub fn is_form_path(path: &str) -> bool {
    let Some((_, tail)) = path
        .strip_prefix("/status/")
        .and_then(|rest| rest.split_once('/'))
    else {
        return false;
    };
    FORM_TAILS.iter().any(|form| {
        tail.strip_prefix(form)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// A page's path read (GET, HEAD) or preflighted (OPTIONS, the CORS preflight of a
/// cross-origin read).
fn answer(req: &HttpRequest, site: &Arc<PublicSite>, page: &PageSnapshot, tail: &str) -> Read {
    if *req.method() == Method::OPTIONS {
        Read::Now(preflight(req, site, page, tail))
    } else {
        read(req, site, page, tail)
    }
}

/// What the read path left to the router: a restricted page asked for without a read token or
/// a reader's pass (a signed-in responder is admitted; anyone else is sent to sign in, or
/// refused), percent-encoded paths below a page, and the root-level paths
/// (`/api/v2/summary.json`, `/history`, ...) of the page a custom domain or the default page
/// maps to; anything else is a 404.
pub async fn fallback(
    req: HttpRequest,
    site: web::Data<Arc<PublicSite>>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let path = req.path().to_owned();
    if !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return not_found(&site, path.trim_start_matches('/'));
    }
    let snapshot = site.snapshot();
    let below_page = path
        .strip_prefix("/status/")
        .map(|rest| rest.split_once('/').unwrap_or((rest, "")));
    let (found, tail) = match below_page {
        Some((slug, tail)) => (snapshot.find(slug), tail.to_owned()),
        None => (
            snapshot.page_for_host(host(&req)),
            path.trim_start_matches('/').to_owned(),
        ),
    };
    let page = match found {
        Some(Found::Public(page)) => {
            let read = answer(&req, &site, page, &tail);
            drop(snapshot);
            return read.answer(&req).await;
        }
        Some(Found::Restricted(page)) => page.clone(),
        None => return not_found(&site, &tail),
    };
    drop(snapshot);
    if *req.method() == Method::OPTIONS {
        return restricted_preflight();
    }
    let key = key(&tail, req.query_string());
    match access::in_memory(&req, &page, state.secret.expose()) {
        InMemory::BadToken => access::refuse(&req, &page, &key, true),
        InMemory::Admitted => read(&req, &site, &page, &tail).private().answer(&req).await,
        InMemory::Unknown if access::admit(&req, &state, Found::Restricted(&page)).await => {
            read(&req, &site, &page, &tail).private().answer(&req).await
        }
        InMemory::Unknown => access::refuse(&req, &page, &key, false),
    }
}

/// How long a request for a page waits, while Herald starts, for the page to be rendered.
pub const WARMING_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// While the site warms up: the page a request names (any request below `/status/{slug}`,
/// or the site root) that the snapshot does not hold yet, and whether a snapshot shows it.
pub fn awaited(req: &HttpRequest, snapshot: &SiteSnapshot) -> Option<Wanted> {
    if !snapshot.warming {
        return None;
    }
    let path = req.path();
    if path == "/" {
        let host = host_name(host(req));
        return snapshot
            .page_for_host(&host)
            .is_none()
            .then_some(Wanted::Host(host));
    }
    let slug = path.strip_prefix("/status/")?.split('/').next()?;
    (!slug.is_empty() && !slug.contains('%') && snapshot.find(slug).is_none())
        .then(|| Wanted::Slug(slug.to_owned()))
}

/// Whether `snapshot` holds the page `wanted` names.
pub fn holds(snapshot: &SiteSnapshot, wanted: &Wanted) -> bool {
    match wanted {
        Wanted::Slug(slug) => snapshot.find(slug).is_some(),
        Wanted::Host(host) => snapshot.page_for_host(host).is_some(),
    }
}

/// The language a request reads `page` in: its `?lang=`, then (for a person's browser, `html`)
/// its `Accept-Language`, among the page's languages; else the page's default.
pub fn reader_lang(
    req: &HttpRequest,
    page: &crate::services::public::data::PageInfo,
    html: bool,
) -> Lang {
    let asked = req
        .query_string()
        .split('&')
        .find_map(|pair| pair.strip_prefix("lang="));
    let accept = html
        .then(|| req.headers().get(header::ACCEPT_LANGUAGE))
        .flatten()
        .and_then(|v| v.to_str().ok());
    lang::choose(asked, accept, &page.languages, page.default_language)
}

/// The snapshot key of a path below a page: the path without a trailing slash, and for the
/// history its page number (`history?page=2`).
fn key(tail: &str, query: &str) -> String {
    let tail = tail.trim_end_matches('/');
    if tail == "history" {
        let page = web::Query::<std::collections::HashMap<String, String>>::from_query(query)
            .ok()
            .and_then(|q| q.get("page").and_then(|p| p.parse::<u32>().ok()))
            .filter(|p| *p >= 1)
            .unwrap_or(1);
        return format!("history?page={page}");
    }
    tail.to_owned()
}

fn host(req: &HttpRequest) -> &str {
    req.headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::{is_form_path, key};

    #[test]
    fn paths_map_to_snapshot_keys() {
        assert_eq!(key("", ""), "");
        assert_eq!(key("api/v2/summary.json", ""), "api/v2/summary.json");
        assert_eq!(key("incidents/abc/", ""), "incidents/abc");
        assert_eq!(key("history", ""), "history?page=1");
        assert_eq!(key("history", "page=3"), "history?page=3");
        assert_eq!(key("history/", "page=0"), "history?page=1");
        assert_eq!(key("history", "page=x"), "history?page=1");
    }

    #[test]
    fn a_pages_forms_are_told_apart_from_what_the_site_answers() {
        for form in [
            "/status/acme/subscribe",
            "/status/acme/api/subscribe",
            "/status/acme/support",
            "/status/acme/support/sent",
            "/status/acme/api/support",
            "/status/acme/confirm/abc",
            "/status/acme/unsubscribe/abc",
        ] {
            assert!(is_form_path(form), "{form}");
        }
        for read in [
            "/status/acme",
            "/status/acme/",
            "/status/acme/api/v2/summary.json",
            "/status/acme/history.atom",
            "/status/acme/incidents/abc",
            "/status/acme/subscribers",
            "/status/acme/supported",
            "/status/support",
            "/subscribe",
        ] {
            assert!(!is_form_path(read), "{read}");
        }
    }
}
