//! The span every request's log lines carry: method, route pattern, the target with its
//! secrets taken out, status and request id. Links in subscribers' mail carry their token in
//! the path (`/confirm/{token}`, `/unsubscribe/{token}`), and feed readers may carry one in the
//! query (`?token=`); whoever reads the log must not be able to use them, so a path segment
//! that the route names `{token}` and a query value named `token` are written `[redacted]`.

use std::borrow::Cow;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RequestId, RootSpanBuilder};

/// What a secret is written as.
pub const REDACTED: &str = "[redacted]";

/// [`RootSpanBuilder`] for `TracingLogger`: the default span's fields that Herald's logs use,
/// with the target redacted.
pub struct RedactedRootSpan;

impl RootSpanBuilder for RedactedRootSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        // The router's pattern may be a catch-all that matched before its guard sent the
        // request on (the public pages' `/status/{slug}/{tail:.*}`): a token route is known by
        // the path's shape, whatever the router says.
        let pattern = token_route(request.path())
            .map(str::to_owned)
            .or_else(|| request.match_pattern());
        let route = pattern.as_deref().unwrap_or("default");
        let target = redacted_target(pattern.as_deref(), request.path(), request.query_string());
        let request_id = request
            .extensions()
            .get::<RequestId>()
            .map(ToString::to_string)
            .unwrap_or_default();
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            http.target = %target,
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            request_id = %request_id,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// Routes with a secret in their path.
const TOKEN_ROUTES: [&str; 3] = [
    "/status/{slug}/confirm/{token}",
    "/status/{slug}/unsubscribe/{token}",
    "/status/{slug}/access/link/{token}",
];

/// The token route `path` has the shape of (its literal segments equal once decoded, as the
/// router decodes them: `%63onfirm` is `confirm`; one segment for each placeholder), if any.
fn token_route(path: &str) -> Option<&'static str> {
    TOKEN_ROUTES.into_iter().find(|route| {
        let names = route.split('/');
        let values = path.split('/');
        names.clone().count() == values.clone().count()
            && names.zip(values).all(|(name, value)| {
                name.starts_with('{')
                    || percent_encoding::percent_decode_str(value).decode_utf8_lossy() == name
            })
    })
}

/// `path?query` with each segment the route `pattern` names `{token}` (or a token route's, when
/// `path` has its shape) and each `token=` (and `api_key=`, Statuspage's) query value replaced by [`REDACTED`].
pub fn redacted_target<'a>(pattern: Option<&str>, path: &'a str, query: &'a str) -> Cow<'a, str> {
    let pattern = match pattern {
        Some(p) if p.contains("{token}") => Some(p),
        other => token_route(path).or(other),
    };
    let path = match pattern {
        Some(p) if p.contains("{token}") => Cow::Owned(redact_path(p, path)),
        _ => Cow::Borrowed(path),
    };
    if query.is_empty() {
        return path;
    }
    Cow::Owned(format!("{path}?{}", redact_query(query)))
}

fn redact_path(pattern: &str, path: &str) -> String {
    let names: Vec<&str> = pattern.split('/').collect();
    let values: Vec<&str> = path.split('/').collect();
    if names.len() != values.len() {
        // Not a plain segment-for-segment match: say only which route it was.
        return pattern.replace("{token}", REDACTED);
    }
    names
        .iter()
        .zip(values)
        .map(|(name, value)| if *name == "{token}" { REDACTED } else { value })
        .collect::<Vec<_>>()
        .join("/")
}

fn redact_query(query: &str) -> Cow<'_, str> {
    // A name is compared as the query's reader decodes it (`t%6Fken` and `tok+en` too).
    let secret = |pair: &str| {
        let name = pair.split('=').next().unwrap_or("");
        let decoded = url::form_urlencoded::parse(name.as_bytes())
            .next()
            .map(|(name, _)| name.trim().to_owned())
            .unwrap_or_default();
        decoded.eq_ignore_ascii_case("token")
            || decoded.eq_ignore_ascii_case("form_token")
            || decoded.eq_ignore_ascii_case("api_key")
    };
    if !query.split('&').any(secret) {
        return Cow::Borrowed(query);
    }
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if secret(pair) => format!("{name}={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect();
    Cow::Owned(pairs.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_segment_is_redacted_and_the_rest_kept() {
        let got = redacted_target(
            Some("/status/{slug}/unsubscribe/{token}"),
            "/status/acme/unsubscribe/c2VjcmV0LXRva2Vu",
            "",
        );
        assert_eq!(got, "/status/acme/unsubscribe/[redacted]");
        let got = redacted_target(
            Some("/status/{slug}/confirm/{token}"),
            "/status/acme/confirm/abc",
            "utm=x",
        );
        assert_eq!(got, "/status/acme/confirm/[redacted]?utm=x");
    }

    #[test]
    fn token_query_values_are_redacted_and_other_targets_untouched() {
        assert_eq!(
            redacted_target(
                Some("/status/{slug}/history.atom"),
                "/status/a/history.atom",
                "token=s3cret&page=2"
            ),
            "/status/a/history.atom?token=[redacted]&page=2"
        );
        assert!(matches!(
            redacted_target(Some("/status/{slug}"), "/status/a", ""),
            Cow::Borrowed("/status/a")
        ));
        assert_eq!(redacted_target(None, "/x", "page=2"), "/x?page=2");
        // Statuspage's key in the query.
        assert_eq!(
            redacted_target(Some("/v1/pages/{page_id}"), "/v1/pages/a", "api_key=s3cret"),
            "/v1/pages/a?api_key=[redacted]"
        );
    }

    #[test]
    fn a_token_route_is_redacted_whatever_pattern_the_router_reports() {
        for path in [
            "/status/acme/unsubscribe/s3cret",
            "/status/acme/confirm/s3cret",
            "/status/acme/access/link/s3cret",
        ] {
            for pattern in [Some("/status/{slug}/{tail:.*}"), Some("default"), None] {
                let got = redacted_target(pattern, path, "");
                assert!(got.ends_with("/[redacted]"), "{pattern:?}: {got}");
                assert!(!got.contains("s3cret"), "{got}");
            }
        }
        assert_eq!(
            redacted_target(
                Some("/status/{slug}/{tail:.*}"),
                "/status/acme/confirmed",
                ""
            ),
            "/status/acme/confirmed"
        );
    }

    #[test]
    fn a_token_is_redacted_however_its_name_or_route_is_encoded() {
        for query in [
            "t%6Fken=s3cret",
            "T%4FKEN=s3cret",
            "%74%6f%6b%65%6e=s3cret",
            "form%5Ftoken=s3cret",
            "page=2&t%6fken=s3cret",
        ] {
            let got = redacted_target(Some("/status/{slug}/history.atom"), "/status/a", query);
            assert!(!got.contains("s3cret"), "{query}: {got}");
            assert!(got.contains("=[redacted]"), "{query}: {got}");
        }
        let got = redacted_target(
            Some("/status/{slug}/{tail:.*}"),
            "/status/acme/%63onfirm/s3cret",
            "",
        );
        assert_eq!(got, "/status/acme/%63onfirm/[redacted]");
        assert_eq!(
            redacted_target(None, "/x", "tokens=2&to%20ken=3"),
            "/x?tokens=2&to%20ken=3"
        );
    }

    #[test]
    fn a_path_that_does_not_line_up_with_its_pattern_shows_only_the_pattern() {
        let got = redacted_target(Some("/u/{token}"), "/u/abc/extra", "");
        assert_eq!(got, "/u/[redacted]");
    }
}
