//! Cross-cutting request handling: per-route metrics, the request id header, and closing
//! keep-alive connections while draining so clients reconnect to a live instance.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix_http::ConnectionType;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use metrics::{Counter, Histogram};
use tracing_actix_web::RequestId;

use crate::state::AppState;

/// (method, route pattern, status) of a request.
type RouteKey = (&'static str, Cow<'static, str>, u16);

/// An answer that took this long is logged at info whatever its status.
pub const SLOW: Duration = Duration::from_secs(1);

/// How a request's access line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// At info, with its request id: an error, a write, or a slow answer.
    Logged,
    /// At debug: a read answered well and fast (an outage's flood of page views must not
    /// flood the logs, nor pay for lines nobody reads).
    Quiet,
}

impl Access {
    /// The access line of a request (`read`: GET or HEAD) that answered `status` in `elapsed`.
    pub fn of(read: bool, status: u16, elapsed: Duration) -> Self {
        if status >= 400 || !read || elapsed >= SLOW {
            Self::Logged
        } else {
            Self::Quiet
        }
    }

    pub fn logged(self) -> bool {
        self == Self::Logged
    }
}

thread_local! {
    /// Metric handles by (method, route pattern, status): registering a labelled metric costs
    /// allocations and a registry lookup, so each worker thread does it once per combination.
    static HANDLES: RefCell<HashMap<RouteKey, (Counter, Histogram)>> =
        RefCell::new(HashMap::new());
}

pub fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Counts a request and its duration under (method, route pattern, status).
pub fn record(method: &'static str, route: Cow<'static, str>, status: u16, elapsed: f64) {
    HANDLES.with(|handles| {
        let mut handles = handles.borrow_mut();
        let (counter, histogram) =
            handles
                .entry((method, route, status))
                .or_insert_with_key(|(m, r, s)| {
                    let counter = metrics::counter!("herald_http_requests_total",
                "method" => *m, "route" => r.clone(), "status" => s.to_string());
                    let histogram = metrics::histogram!("herald_http_request_duration_seconds",
                "method" => *m, "route" => r.clone());
                    (counter, histogram)
                });
        counter.increment(1);
        histogram.record(elapsed);
    });
}

/// Records `herald_http_requests_total` and `herald_http_request_duration_seconds` by route
/// pattern (never the raw path, which would explode the label set), logs one access line (as
/// [`Access`] says), and sets `x-request-id`. The public read path has its own, cheaper
/// version of this ([`super::read_path`]).
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let started = Instant::now();
    let busy = req
        .conn_data::<std::sync::Arc<super::connections::Connection>>()
        .map(super::connections::Busy::begin);
    let method = method_label(req.method());
    let request_id = req.extensions().get::<RequestId>().map(|id| id.to_string());
    let mut res = next.call(req).await?;
    let route = res
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let status = res.status().as_u16();
    let elapsed = started.elapsed();
    let elapsed_ms = elapsed.as_secs_f64() * 1000.0;
    if Access::of(matches!(method, "GET" | "HEAD"), status, elapsed).logged() {
        tracing::info!(method, %route, status, elapsed_ms, "request");
    } else {
        tracing::debug!(method, %route, status, elapsed_ms, "request");
    }
    record(method, route.into(), status, elapsed.as_secs_f64());
    if let Some(id) = request_id {
        set_request_id(&mut res, &id);
    }
    close_if_draining(&mut res);
    Ok(res.map_body(|_, body| super::connections::Counted::new(body, busy)))
}

/// The headers every answer carries, whichever path answered it.
pub const SECURITY_HEADERS: [(HeaderName, &str); 2] = [
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "strict-origin-when-cross-origin"),
];

/// Sends the request id a log line of this request carries, as `x-request-id`.
pub fn set_request_id<B>(res: &mut ServiceResponse<B>, id: &str) {
    if let Ok(value) = HeaderValue::from_str(id) {
        res.headers_mut()
            .insert(HeaderName::from_static("x-request-id"), value);
    }
}

/// While draining, the answer closes its connection, so the client reconnects to a live
/// instance.
pub fn close_if_draining<B>(res: &mut ServiceResponse<B>) {
    let draining = res
        .request()
        .app_data::<web::Data<AppState>>()
        .is_some_and(|s| s.drain.is_draining());
    if draining {
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
}

#[cfg(test)]
mod tests {
    use super::{Access, SLOW};
    use std::time::Duration;

    #[test]
    fn errors_writes_and_slow_answers_are_logged_and_fast_good_reads_are_not() {
        let fast = Duration::from_micros(40);
        assert_eq!(Access::of(true, 200, fast), Access::Quiet);
        assert_eq!(Access::of(true, 304, fast), Access::Quiet);
        assert_eq!(Access::of(true, 404, fast), Access::Logged);
        assert_eq!(Access::of(true, 503, fast), Access::Logged);
        assert_eq!(Access::of(false, 201, fast), Access::Logged, "a write");
        assert_eq!(Access::of(false, 204, fast), Access::Logged, "a preflight");
        assert_eq!(Access::of(true, 200, SLOW), Access::Logged);
        assert_eq!(
            Access::of(true, 200, SLOW - Duration::from_millis(1)),
            Access::Quiet
        );
    }
}
