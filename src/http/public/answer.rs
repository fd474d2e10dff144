//! What a read of the public site answers: the held or rendered document with its headers,
//! or why it cannot be answered (busy, starting, failed, not found).

use std::sync::Arc;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

use crate::domain::lang::Lang;
use crate::render::Representation;
use crate::render::change::Doc;
use crate::render::on_demand::{self, Unrendered};
use crate::render::site::{Home, PageSnapshot, PublicSite};

use crate::http::access::{self};

use crate::http::CSP;

use super::{key, reader_lang};

/// What a read of the site found: an answer, or a document to render first.
pub enum Read {
    Now(HttpResponse),
    Render(Box<Pending>),
    /// The home page, rendered on its first read after its lines changed.
    Home(Arc<PublicSite>, Arc<Home>),
}

/// A document rendered on its first read (see [`crate::render::on_demand`]).
pub struct Pending {
    site: Arc<PublicSite>,
    data: Arc<crate::services::public::data::PageData>,
    key: on_demand::Key,
    multilingual: bool,
    private: bool,
}

impl Read {
    /// The same read, answered as a restricted page's (kept by no shared cache).
    pub(super) fn private(self) -> Self {
        match self {
            Self::Now(res) => Self::Now(access::private(res)),
            Self::Render(mut pending) => {
                pending.private = true;
                Self::Render(pending)
            }
            // The home lists public pages only; it is never a restricted page's answer.
            home @ Self::Home(..) => home,
        }
    }

    /// The answer, rendering the document first if it must be (off the async threads,
    /// within a bound: a full bound answers 503 with `Retry-After`).
    pub async fn answer(self, req: &HttpRequest) -> HttpResponse {
        let pending = match self {
            Self::Now(res) => return res,
            Self::Render(pending) => pending,
            Self::Home(site, home) => {
                return match home.render(&site).await {
                    Ok(rep) => serve(req, &rep),
                    Err(Unrendered::Busy) => busy(""),
                    Err(Unrendered::Missing) => not_found(&site, ""),
                    Err(Unrendered::Failed(e)) => {
                        tracing::error!(error = %e, "rendering the home page failed");
                        failed("")
                    }
                };
            }
        };
        let Pending {
            site,
            data,
            key,
            multilingual,
            private,
        } = *pending;
        let (lang, doc, tail) = (key.lang, key.doc.clone(), key.doc.key());
        let renderer = site.clone();
        let rendered = site
            .on_demand
            .get_or_render(key, move || {
                renderer.renderer.render_doc(&data, lang, &doc, &mut None)
            })
            .await;
        let res = match rendered {
            Ok(rep) => served_in(req, &rep, lang, multilingual),
            Err(Unrendered::Missing) => not_found(&site, &tail),
            Err(Unrendered::Busy) => busy(&tail),
            Err(Unrendered::Failed(e)) => {
                tracing::error!(error = %e, document = %tail, "rendering a document on demand failed");
                failed(&tail)
            }
        };
        match private {
            true => access::private(res),
            false => res,
        }
    }
}

pub(super) fn read(
    req: &HttpRequest,
    site: &Arc<PublicSite>,
    page: &PageSnapshot,
    tail: &str,
) -> Read {
    let key = key(tail, req.query_string());
    let multilingual = page.multilingual();
    let default = page.data.page.default_language;
    let (held, doc) = (page.get(&key), Doc::parse(&key));
    // A page in several languages: a person's browser says which it reads; a machine client
    // (the JSON, a feed) gets the default unless it asks with `?lang=`.
    let lang = match multilingual {
        false => default,
        true => {
            let html = held.map_or_else(
                || doc.as_ref().is_some_and(Doc::html),
                |rep| rep.content_type.starts_with("text/html"),
            );
            reader_lang(req, &page.data.page, html)
        }
    };
    // Held ahead is the default language's; the others' are rendered on demand.
    let ahead = held.filter(|_| lang == default || doc.as_ref().is_none_or(|d| !d.by_language()));
    if let Some(rep) = ahead {
        return Read::Now(match multilingual {
            true => served_in(req, rep, lang, true),
            false => serve(req, rep),
        });
    }
    let Some(key) = page.on_demand_key(lang, &key) else {
        return Read::Now(not_found(site, tail));
    };
    if let Some(rep) = site.on_demand.get(&key) {
        return Read::Now(served_in(req, &rep, key.lang, multilingual));
    }
    Read::Render(Box::new(Pending {
        site: site.clone(),
        data: page.data.clone(),
        key,
        multilingual,
        private: false,
    }))
}

/// `rep` answered to `req`, read in `lang`: an HTML page of a page read in several languages
/// says its language and that it varies with the reader's.
pub(super) fn served_in(
    req: &HttpRequest,
    rep: &Representation,
    lang: Lang,
    multilingual: bool,
) -> HttpResponse {
    let mut res = serve(req, rep);
    if multilingual && rep.content_type.starts_with("text/html") {
        let headers = res.headers_mut();
        headers.insert(
            header::VARY,
            HeaderValue::from_static("Accept-Encoding, Accept-Language"),
        );
        headers.insert(
            header::CONTENT_LANGUAGE,
            HeaderValue::from_static(lang.as_str()),
        );
    }
    res
}

/// Every render slot stayed taken: try again shortly.
pub(super) fn busy(tail: &str) -> HttpResponse {
    let mut res = HttpResponse::ServiceUnavailable();
    res.insert_header((header::RETRY_AFTER, "2"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    if tail.starts_with("api/") || tail.ends_with(".json") {
        return res.json(
            json!({"error": "unavailable", "message": "busy rendering; try again in a moment"}),
        );
    }
    res.content_type("text/plain; charset=utf-8")
        .body("Busy rendering this page; try again in a moment.")
}

/// A page not rendered yet while Herald starts (its reader waited [`WARMING_WAIT`] for it).
pub(super) fn starting(tail: &str) -> HttpResponse {
    let mut res = HttpResponse::ServiceUnavailable();
    res.insert_header((header::RETRY_AFTER, "1"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    if tail.starts_with("api/") || tail.ends_with(".json") {
        return res.json(
            json!({"error": "unavailable", "message": "Herald is starting; try again in a moment"}),
        );
    }
    res.content_type("text/plain; charset=utf-8")
        .body("Herald is starting and has not rendered this page yet; try again in a moment.")
}

/// A document that could not be rendered (logged with its cause).
pub(super) fn failed(tail: &str) -> HttpResponse {
    let mut res = HttpResponse::InternalServerError();
    res.insert_header((header::CACHE_CONTROL, "no-store"));
    if tail.starts_with("api/") || tail.ends_with(".json") {
        return res
            .json(json!({"error": "internal", "message": "this document could not be rendered"}));
    }
    res.content_type("text/plain; charset=utf-8")
        .body("This page could not be rendered.")
}

pub(super) fn serve(req: &HttpRequest, rep: &Representation) -> HttpResponse {
    let mut res = rep.respond(req);
    if rep.content_type.starts_with("text/html") {
        let headers = res.headers_mut();
        match &rep.framed_by {
            // Framable by the sites the page lists: X-Frame-Options cannot say that.
            Some(policy) => {
                headers.insert(header::CONTENT_SECURITY_POLICY, policy.clone());
            }
            None => {
                headers.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(CSP),
                );
                headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
            }
        }
    } else if rep.content_type == "image/svg+xml" {
        // An SVG opened on its own is a document: even a filtered logo runs nothing.
        res.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(SVG_CSP),
        );
    }
    res
}

/// The Content-Security-Policy of an SVG (a logo, the badge): its own inline styles and
/// embedded images, nothing else, and sandboxed.
pub(super) const SVG_CSP: &str =
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox";

/// 404 as JSON for API paths, as the HTML error page otherwise.
pub(super) fn not_found(site: &PublicSite, tail: &str) -> HttpResponse {
    if tail.starts_with("api/") || tail.ends_with(".json") {
        return HttpResponse::NotFound()
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
            .json(json!({"error": "not_found", "message": "no such status page or resource"}));
    }
    let mut res = HttpResponse::NotFound();
    res.insert_header((header::CONTENT_TYPE, site.renderer.not_found.content_type))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    res.body(site.renderer.not_found.identity.clone())
}
