//! Cross-cutting request handling: per-route metrics, the request id header, and closing
//! keep-alive connections while draining so clients reconnect to a live instance.

use std::time::Instant;

use actix_http::ConnectionType;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use tracing_actix_web::RequestId;

use crate::startup::AppState;

/// Records `herald_http_requests_total` and `herald_http_request_duration_seconds` by route
/// pattern (never the raw path, which would explode the label set), sets `x-request-id`.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let request_id = req.extensions().get::<RequestId>().map(|id| id.to_string());
    let draining = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.lifecycle.clone());
    let mut res = next.call(req).await?;
    let route = res
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let status_code = res.status().as_u16();
    let status = status_code.to_string();
    let elapsed = started.elapsed().as_secs_f64();
    let elapsed_ms = elapsed * 1000.0;
    // One access line per request, inside the request's span (so it carries the request id);
    // probes are frequent and only logged at debug.
    if matches!(route.as_str(), "/healthz" | "/readyz" | "/metrics") {
        tracing::debug!(%method, %route, status = status_code, elapsed_ms, "request");
    } else {
        tracing::info!(%method, %route, status = status_code, elapsed_ms, "request");
    }
    metrics::counter!("herald_http_requests_total", "method" => method.clone(), "route" => route.clone(), "status" => status)
        .increment(1);
    metrics::histogram!("herald_http_request_duration_seconds", "method" => method, "route" => route).record(elapsed);
    if let Some(id) = request_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        res.headers_mut()
            .insert(HeaderName::from_static("x-request-id"), id);
    }
    if draining.is_some_and(|l| l.is_draining()) {
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    Ok(res)
}
