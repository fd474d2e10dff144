//! The public read path: a status page read during an outage must cost little more than writing
//! its bytes, so `GET`/`HEAD` of the in-memory site (and the preflights below a page) are
//! answered here, outside every other middleware and before the router: no route regexes, no
//! request span, no session or cookie handling.
//!
//! What the other layers give every request is kept, made cheap: the request counted on its
//! connection until its body is sent (the drain needs it), `Connection: close` while draining,
//! the route metrics, the two security headers every answer carries, and an access line with a
//! request id (also sent as `x-request-id`) for an error or a slow answer. A fast, successful
//! read is logged at debug only, as reads are elsewhere.

use std::time::Instant;

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::HeaderValue;
use actix_web::middleware::Next;
use actix_web::web;

use super::connections::{Busy, Connection, Counted};
use super::middleware::{
    Access, SECURITY_HEADERS, close_if_draining, method_label, record, set_request_id,
};
use super::public;
use super::request_span::redacted_target;
use crate::render::site::PublicSite;

/// Middleware (`from_fn`, the outermost): answers the public read path, passes the rest on.
pub async fn serve<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B, Counted<BoxBody>>>, actix_web::Error> {
    let started = Instant::now();
    let site = req.app_data::<web::Data<std::sync::Arc<PublicSite>>>();
    if let Some(site) = site {
        // Start-up: a page not rendered yet is rendered next, and its reader waits for it.
        let awaited = public::awaited(req.request(), &site.snapshot());
        if let Some(wanted) = awaited {
            let shown = |s: &_| public::holds(s, &wanted);
            site.want(wanted.clone(), public::WARMING_WAIT, shown).await;
        }
    }
    let early = site.and_then(|site| public::early(req.request(), site));
    let Some((read, route)) = early else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    let res = read.answer(req.request()).await;
    let busy = req
        .conn_data::<std::sync::Arc<Connection>>()
        .map(Busy::begin);
    let mut res = req.into_response(res);
    let status = res.status().as_u16();
    let elapsed = started.elapsed();
    let method = method_label(res.request().method());
    record(method, route.into(), status, elapsed.as_secs_f64());
    for (name, value) in SECURITY_HEADERS {
        res.headers_mut()
            .insert(name, HeaderValue::from_static(value));
    }
    let read = matches!(method, "GET" | "HEAD");
    if Access::of(read, status, elapsed).logged() {
        let id = uuid::Uuid::new_v4().to_string();
        let request = res.request();
        let target = redacted_target(Some(route), request.path(), request.query_string());
        tracing::info!(
            method, route, http.target = %target, status,
            elapsed_ms = elapsed.as_secs_f64() * 1000.0, request_id = %id, "request"
        );
        set_request_id(&mut res, &id);
    } else {
        tracing::debug!(method, route, status, "request");
    }
    close_if_draining(&mut res);
    Ok(res
        .map_body(|_, body| Counted::new(body, busy))
        .map_into_right_body())
}
