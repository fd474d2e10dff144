//! Rendering tests: real pages from fixture data, checked for the content readers rely on.

mod document;
mod overview;
mod pages;

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{Duration, NaiveDate, TimeZone, Utc};

use super::*;
use crate::services::public::data::PageData;
use crate::services::public::fixtures::page::{
    self as fixture, as_of, maintenance, open_incident, refresh_status, resolved_incident,
};

type Reps = HashMap<String, Arc<Representation>>;

fn render(data: &PageData) -> Reps {
    let mut out = HashMap::new();
    let (templates, assets) = (Templates::load().unwrap(), Assets::load());
    render_page(data, &templates, &assets, Lang::En, &mut out).unwrap();
    out
}

fn body(rep: &Representation) -> String {
    String::from_utf8(rep.identity.to_vec()).unwrap()
}

fn page(reps: &Reps, key: &str) -> String {
    body(reps.get(key).unwrap_or_else(|| panic!("{key:?} rendered")))
}

/// The fixture page with a resolved incident (`i-old`, 29 Nov) and an open one (`i-open`,
/// its next update due in an hour).
fn resolved_and_open() -> PageData {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    data.incidents.push(open_incident(
        "i-open",
        "API errors",
        as_of() + Duration::hours(1),
    ));
    data
}

/// The fixture page with an open incident promising its next update by `next_update_by`.
fn with_open_incident(next_update_by: chrono::DateTime<Utc>) -> PageData {
    let mut data = fixture::page();
    data.incidents
        .push(open_incident("i-open", "API errors", next_update_by));
    refresh_status(&mut data);
    data
}
