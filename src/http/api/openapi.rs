//! `GET /openapi.json`: the OpenAPI 3 document of the API, written by hand in `openapi.json`
//! next to this file and embedded in the binary. A test keeps it in step with [`super::ROUTES`]
//! and [`super::AUTH_ROUTES`]; an HTTP test requests every documented route.

use actix_web::HttpResponse;
use actix_web::http::header::ContentType;

/// The document, as served.
pub const DOCUMENT: &str = include_str!("openapi.json");

/// `GET /openapi.json` (no sign-in needed: it describes, it does not reveal).
pub async fn get_openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(DOCUMENT)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::{AUTH_ROUTES, ROUTES};
    use super::DOCUMENT;

    fn documented() -> BTreeSet<(String, String)> {
        let doc: serde_json::Value = serde_json::from_str(DOCUMENT).expect("openapi.json parses");
        assert_eq!(doc["openapi"].as_str().map(|v| &v[..2]), Some("3."));
        let mut routes = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            let path = path
                .strip_prefix(super::super::PREFIX)
                .expect("paths start with /api/v1");
            for method in item.as_object().expect("path item").keys() {
                if method != "parameters" {
                    routes.insert((method.clone(), path.to_owned()));
                }
            }
        }
        routes
    }

    #[test]
    fn every_route_is_documented_and_every_documented_route_exists() {
        let registered: BTreeSet<(String, String)> = ROUTES
            .iter()
            .chain(AUTH_ROUTES)
            .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
            .collect();
        let documented = documented();
        let undocumented: Vec<_> = registered.difference(&documented).collect();
        let unregistered: Vec<_> = documented.difference(&registered).collect();
        assert!(
            undocumented.is_empty(),
            "routes missing from openapi.json: {undocumented:?}"
        );
        assert!(
            unregistered.is_empty(),
            "openapi.json routes not registered: {unregistered:?}"
        );
    }
}
