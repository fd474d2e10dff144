//! The map from a change to the documents it touches: what it names, and that it misses
//! nothing (every document it does not name renders the same bytes before and after).

use std::collections::BTreeSet;

use chrono::{Duration, TimeZone, Utc};

use super::*;
use crate::domain::ComponentStatus;
use crate::domain::lang::Lang;
use crate::render::site::Renderer;
use crate::services::public::fixtures::page::{
    self as fixture, as_of, maintenance, open_incident, resolved_incident,
};

/// The fixture page with an old resolved incident, an open one and an upcoming maintenance,
/// read in English and German.
fn page() -> PageData {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 3));
    data.incidents.insert(
        0,
        open_incident("i-open", "API errors", as_of() + Duration::minutes(30)),
    );
    let from = Utc.with_ymd_and_hms(2026, 12, 2, 22, 0, 0).unwrap();
    data.maintenances
        .push(maintenance("m-db", "Database upgrade", from));
    data.page.languages = vec![Lang::En, Lang::De];
    fixture::refresh_status(&mut data);
    data
}

/// What the changes from `old` to `new` touch, after checking that every document they do
/// not touch renders the very same bytes from both, in every language.
fn touched_checked(old: &PageData, new: &PageData) -> BTreeSet<Doc> {
    let renderer = Renderer::load().unwrap();
    for lang in [Lang::En, Lang::De] {
        renderer
            .render_doc(old, lang, &Doc::Overview, &mut None)
            .unwrap();
    }
    let touched = touched_by_all(&changes(old, new), old, new);
    let docs: BTreeSet<Doc> = all(old).into_iter().chain(all(new)).collect();
    for doc in docs.difference(&touched) {
        for lang in [Lang::En, Lang::De] {
            let before = renderer.render_doc(old, lang, doc, &mut None).unwrap();
            let after = renderer.render_doc(new, lang, doc, &mut None).unwrap();
            assert_eq!(
                before.map(|r| r.identity),
                after.map(|r| r.identity),
                "{doc:?} in {lang:?} changed, but the map says it is not touched"
            );
        }
    }
    // The overview keeps each component's part while it shows the same: made from parts kept
    // since `old`, it is the same bytes as made afresh.
    let fresh = Renderer::load().unwrap();
    for lang in [Lang::En, Lang::De] {
        let kept = renderer.render_doc(new, lang, &Doc::Overview, &mut None);
        let afresh = fresh.render_doc(new, lang, &Doc::Overview, &mut None);
        assert_eq!(
            kept.unwrap().unwrap().identity,
            afresh.unwrap().unwrap().identity,
            "the overview in {lang:?} from kept parts"
        );
    }
    touched
}

fn docs(list: &[Doc]) -> BTreeSet<Doc> {
    list.iter().cloned().collect()
}

#[test]
fn every_document_has_one_key_that_names_it() {
    let data = page();
    let all = all(&data);
    assert_eq!(
        all.len(),
        15 + 3 + 1,
        "fixed ones, three records, one history page"
    );
    for doc in &all {
        assert_eq!(Doc::parse(&doc.key()).as_ref(), Some(doc), "{}", doc.key());
    }
    assert_eq!(Doc::parse("history?page=0"), None);
    assert_eq!(Doc::parse("incidents/a/b"), None);
    assert_eq!(Doc::parse("api/v2/nothing.json"), None);
}

#[test]
fn time_passing_without_a_change_touches_nothing() {
    let old = page();
    let mut new = old.clone();
    new.as_of = old.as_of + Duration::minutes(5);
    assert_eq!(changes(&old, &new), vec![]);
    assert!(touched_checked(&old, &new).is_empty());
}

#[test]
fn a_components_status_touches_what_shows_it_and_the_pages_status() {
    let old = page();
    let mut new = old.clone();
    let dashboard = new
        .components
        .iter_mut()
        .find(|c| c.id == "c-dash")
        .unwrap();
    dashboard.status = ComponentStatus::MajorOutage;
    dashboard.updated_at = as_of();
    fixture::refresh_status(&mut new);
    let touched = touched_checked(&old, &new);
    assert_eq!(
        changes(&old, &new),
        vec![
            Change::Status,
            Change::Component("c-dash".into()),
            Change::Stamp
        ]
    );
    let v2: Vec<Doc> = V2.iter().map(|(d, _)| d.clone()).collect();
    let mut expected = docs(&[Doc::Overview, Doc::Badge, Doc::Embed, Doc::Widget]);
    expected.extend(v2);
    assert_eq!(touched, expected);
    assert!(
        !touched
            .iter()
            .any(|d| matches!(d, Doc::Incident(_) | Doc::History(_))),
        "no incident or history page"
    );
}

#[test]
fn an_edit_of_an_old_incident_touches_its_page_its_history_page_and_its_lists_only() {
    let old = page();
    let mut new = old.clone();
    let incident = new.incidents.iter_mut().find(|i| i.id == "i-old").unwrap();
    incident.updates[0].body_html = "<p>Fixed a typo.</p>".into();
    incident.updated_at = as_of();
    let touched = touched_checked(&old, &new);
    assert!(touched.contains(&Doc::Incident("i-old".into())));
    assert!(touched.contains(&Doc::History(1)));
    for untouched in [
        Doc::Overview,
        Doc::Badge,
        Doc::Embed,
        Doc::Incident("i-open".into()),
    ] {
        assert!(!touched.contains(&untouched), "{untouched:?}");
    }
}

#[test]
fn an_update_of_an_open_incident_touches_the_present_too() {
    let old = page();
    let mut new = old.clone();
    let incident = new.incidents.iter_mut().find(|i| i.id == "i-open").unwrap();
    let mut update = incident.updates[0].clone();
    update.id = "i-open-u2".into();
    update.body_html = "<p>Identified.</p>".into();
    incident.updates.insert(0, update);
    incident.updated_at = as_of();
    let touched = touched_checked(&old, &new);
    for doc in [
        Doc::Overview,
        Doc::Summary,
        Doc::Embed,
        Doc::Incident("i-open".into()),
    ] {
        assert!(touched.contains(&doc), "{doc:?}");
    }
    assert!(!touched.contains(&Doc::Incident("i-old".into())));
}

#[test]
fn a_promised_update_falling_due_touches_its_incident_where_it_shows() {
    let old = page();
    let mut new = old.clone();
    new.as_of = old.as_of + Duration::minutes(31);
    assert_eq!(changes(&old, &new), vec![Change::Incident("i-open".into())]);
    let touched = touched_checked(&old, &new);
    assert!(touched.contains(&Doc::Overview));
    assert!(touched.contains(&Doc::Incident("i-open".into())));
}

#[test]
fn a_new_maintenance_and_a_removed_incident_are_changes_of_their_own() {
    let old = page();
    let mut new = old.clone();
    let from = Utc.with_ymd_and_hms(2026, 12, 9, 22, 0, 0).unwrap();
    new.maintenances.push(maintenance("m-net", "Network", from));
    new.incidents.retain(|i| i.id != "i-old");
    let touched = touched_checked(&old, &new);
    assert!(touched.contains(&Doc::Incident("m-net".into())));
    assert!(touched.contains(&Doc::Incident("i-old".into())));
    assert!(touched.contains(&Doc::Ical));
    assert!(touched.contains(&Doc::UpcomingMaintenances));
}

#[test]
fn the_pages_settings_the_day_and_the_stale_notice_touch_everything() {
    let old = page();
    let everything = |new: &PageData| {
        assert_eq!(changes(&old, new), vec![Change::Everything]);
        let touched = touched_checked(&old, new);
        assert!(all(new).iter().all(|d| touched.contains(d)));
    };
    let mut renamed = old.clone();
    renamed.page.name = "Acme".into();
    everything(&renamed);
    let mut tomorrow = old.clone();
    tomorrow.as_of = old.as_of + Duration::days(1);
    everything(&tomorrow);
    let mut stale = old.clone();
    stale.stale_since = Some(as_of());
    everything(&stale);
}

#[test]
fn a_kept_part_of_the_overview_follows_every_field_it_shows() {
    type Edit = fn(&mut crate::services::public::data::ComponentInfo);
    let edits: [(&str, Edit); 6] = [
        ("status", |c| c.status = ComponentStatus::PartialOutage),
        ("name", |c| c.name = "Dashboard 2".into()),
        ("description", |c| {
            c.description = Some("Where you work".into())
        }),
        ("region", |c| c.region = Some("eu-central".into())),
        ("a day's uptime", |c| c.uptime.days[80].percent = Some(99.5)),
        ("a day's incidents", |c| {
            c.incidents_by_day[85] = vec!["i-old".into()]
        }),
    ];
    let renderer = Renderer::load().unwrap();
    for (what, edit) in edits {
        let old = page();
        renderer
            .render_doc(&old, Lang::En, &Doc::Overview, &mut None)
            .unwrap();
        let mut new = old.clone();
        edit(
            new.components
                .iter_mut()
                .find(|c| c.id == "c-dash")
                .unwrap(),
        );
        let kept = renderer.render_doc(&new, Lang::En, &Doc::Overview, &mut None);
        let fresh = Renderer::load().unwrap();
        let afresh = fresh.render_doc(&new, Lang::En, &Doc::Overview, &mut None);
        assert_eq!(
            kept.unwrap().unwrap().identity,
            afresh.unwrap().unwrap().identity,
            "{what}"
        );
    }
}
