//! `GET /openapi.json`: the OpenAPI 3 document of the API, written by hand in `openapi.json`
//! next to this file and embedded in the binary. A test keeps it in step with [`super::ROUTES`]
//! and [`super::AUTH_ROUTES`]; an HTTP test requests every documented route.

use std::sync::LazyLock;

use actix_web::HttpResponse;
use actix_web::http::header::ContentType;

/// The document as written.
const WRITTEN: &str = include_str!("openapi.json");

/// The document as served: as written, with the names a time zone may take (the IANA names
/// the server knows, from `chrono-tz`) filled in where a page's `time_zone` is declared.
pub static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    let mut doc: serde_json::Value = match serde_json::from_str(WRITTEN) {
        Ok(doc) => doc,
        // A test parses the document; were it broken, it is served as it is.
        Err(_) => return WRITTEN.to_owned(),
    };
    let zones: Vec<&str> = chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name()).collect();
    for schema in ["NewPage", "PagePatch"] {
        let field = &mut doc["components"]["schemas"][schema]["properties"]["time_zone"];
        if field.is_object() {
            // A nullable enum lists null among its values (OpenAPI 3.0).
            let null = field["nullable"] == true;
            field["enum"] = serde_json::json!(zones);
            if null && let Some(names) = field["enum"].as_array_mut() {
                names.push(serde_json::Value::Null);
            }
        }
    }
    doc.to_string()
});

/// `GET /openapi.json` (no sign-in needed: it describes, it does not reveal).
pub async fn get_openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(DOCUMENT.as_str())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::{AUTH_ROUTES, ROUTES};
    use super::DOCUMENT;

    fn documented() -> BTreeSet<(String, String)> {
        let doc: serde_json::Value = serde_json::from_str(&DOCUMENT).expect("openapi.json parses");
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

    #[test]
    fn the_stored_vocabularies_are_the_documents_enums() {
        let doc: serde_json::Value = serde_json::from_str(&DOCUMENT).expect("openapi.json parses");
        let names = |schema: &str, field: &str| -> Vec<String> {
            doc["components"]["schemas"][schema]["properties"][field]["enum"]
                .as_array()
                .unwrap_or_else(|| panic!("{schema}.{field} has an enum"))
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        let waiting: Vec<String> = crate::domain::waiting::Waiting::ALL
            .iter()
            .map(|w| w.as_str().to_owned())
            .collect();
        assert_eq!(names("Delivery", "waiting_for"), waiting);
        let zones = names("PagePatch", "time_zone");
        assert_eq!(zones.len(), chrono_tz::TZ_VARIANTS.len());
        assert!(
            zones
                .iter()
                .all(|z| crate::domain::parse_time_zone(z).is_ok())
        );
        assert!(zones.contains(&"Europe/Berlin".to_owned()));
    }
}
