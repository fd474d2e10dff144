//! Tests of the feeds: each is read back with a real parser and its values checked.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::DateTime;
use icalendar::Component;

use super::render;
use crate::domain::MaintenanceStatus;
use crate::render::Representation;
use crate::services::public::data::PageData;
use crate::services::public::fixtures::records::{
    self as fixture, ACTIVE_ID, OPEN_ID, RESOLVED_ID, UPCOMING_ID, at,
};

const EVIL: &str = "<script>alert(1)</script>";

fn rendered(data: &PageData) -> HashMap<String, Arc<Representation>> {
    let mut out = HashMap::new();
    render(data, &mut out).expect("renders");
    out
}

fn text(data: &PageData, key: &str) -> String {
    let out = rendered(data);
    let rep = out.get(key).unwrap_or_else(|| panic!("{key} is rendered"));
    String::from_utf8(rep.identity.to_vec()).expect("UTF-8")
}

fn atom(data: &PageData) -> atom_syndication::Feed {
    text(data, "history.atom").parse().expect("valid Atom")
}

fn rss(data: &PageData) -> rss::Channel {
    text(data, "history.rss").parse().expect("valid RSS")
}

fn ical(data: &PageData) -> icalendar::Calendar {
    text(data, "maintenances.ics")
        .parse()
        .expect("valid iCalendar")
}

fn urn(id: &str) -> String {
    format!("urn:uuid:{id}")
}

#[test]
fn the_three_feeds_are_rendered_with_their_media_types() {
    let out = rendered(&fixture::page());
    let types: Vec<(&str, &str)> = ["history.atom", "history.rss", "maintenances.ics"]
        .into_iter()
        .map(|key| (key, out.get(key).expect("rendered").content_type))
        .collect();
    assert_eq!(
        types,
        [
            ("history.atom", "application/atom+xml"),
            ("history.rss", "application/rss+xml"),
            ("maintenances.ics", "text/calendar; charset=utf-8"),
        ]
    );
    assert_eq!(out.len(), 3);
}

#[test]
fn atom_has_one_entry_per_record_newest_first_with_stable_ids_and_links() {
    let feed = atom(&fixture::page());
    assert_eq!(feed.title().as_str(), "Acme Cloud status history");
    assert_eq!(feed.id(), urn(fixture::PAGE_ID));
    assert_eq!(feed.updated().to_utc(), at(0, 11, 0));
    let self_link = feed
        .links()
        .iter()
        .find(|l| l.rel() == "self")
        .expect("self link");
    assert_eq!(self_link.href(), "https://status.acme.test/history.atom");
    let ids: Vec<&str> = feed.entries().iter().map(|e| e.id()).collect();
    let expected = [OPEN_ID, UPCOMING_ID, ACTIVE_ID, RESOLVED_ID].map(urn);
    assert_eq!(ids, expected);
    let open = &feed.entries()[0];
    assert_eq!(open.title().as_str(), "API errors in Europe");
    assert_eq!(open.published().map(|p| p.to_utc()), Some(at(0, 10, 0)));
    assert_eq!(open.updated().to_utc(), at(0, 10, 30));
    let link = &open.links()[0];
    assert_eq!(
        (link.rel(), link.href()),
        (
            "alternate",
            &*format!("https://status.acme.test/incidents/{OPEN_ID}")
        )
    );
    assert_eq!(open.categories()[0].term(), "incident");
}

#[test]
fn atom_content_lists_the_updates_newest_first_with_status_and_time() {
    let feed = atom(&fixture::page());
    let content = feed.entries()[0].content().expect("content");
    assert_eq!(content.content_type(), Some("html"));
    let html = content.value().expect("a value");
    let newest = html.find("A bad deploy").expect("newest update");
    let oldest = html
        .find("We see <strong>errors</strong>")
        .expect("oldest update");
    assert!(newest < oldest, "{html}");
    assert!(html.contains("<strong>Identified</strong>"), "{html}");
    assert!(html.contains("<strong>Investigating</strong>"), "{html}");
    // 10:30 UTC is 11:30 in Berlin (CET) on 14 March.
    assert!(
        html.contains(r#"<time datetime="2026-03-14T10:30:00Z">Mar 14, 2026 11:30 CET</time>"#),
        "{html}"
    );
    assert!(html.contains("Affected components: API"), "{html}");
    let maintenance = feed.entries()[1]
        .content()
        .and_then(|c| c.value())
        .expect("content");
    assert!(
        maintenance.contains("Scheduled for <time datetime=\"2026-03-20T02:00:00Z\">"),
        "{maintenance}"
    );
}

#[test]
fn rss_has_one_item_per_record_with_guid_date_and_link() {
    let channel = rss(&fixture::page());
    assert_eq!(channel.title(), "Acme Cloud status history");
    assert_eq!(channel.link(), "https://status.acme.test");
    assert_eq!(channel.description(), "Status of Acme's services");
    let updated = channel.last_build_date().expect("last build date");
    assert_eq!(
        DateTime::parse_from_rfc2822(updated)
            .expect("RFC 2822")
            .to_utc(),
        at(0, 11, 0)
    );
    let self_link = &channel.atom_ext().expect("atom:link").links()[0];
    assert_eq!(self_link.href(), "https://status.acme.test/history.rss");
    let guids: Vec<&str> = channel
        .items()
        .iter()
        .filter_map(|i| i.guid())
        .map(|g| g.value())
        .collect();
    assert_eq!(
        guids,
        [OPEN_ID, UPCOMING_ID, ACTIVE_ID, RESOLVED_ID].map(urn)
    );
    let open = &channel.items()[0];
    assert!(!open.guid().expect("guid").is_permalink());
    assert_eq!(open.title(), Some("API errors in Europe"));
    assert_eq!(
        open.link(),
        Some(&*format!("https://status.acme.test/incidents/{OPEN_ID}"))
    );
    let published = DateTime::parse_from_rfc2822(open.pub_date().expect("date")).expect("RFC 2822");
    assert_eq!(published.to_utc(), at(0, 10, 0));
    let html = open.description().expect("description");
    assert!(html.find("A bad deploy") < html.find("We see"), "{html}");
}

#[test]
fn icalendar_has_one_event_per_maintenance_window_in_utc() {
    let calendar = ical(&fixture::page());
    assert_eq!(
        calendar.property_value("PRODID"),
        Some("-//Herald//Status page//EN")
    );
    assert_eq!(calendar.get_name(), Some("Acme Cloud maintenance"));
    let events: Vec<&icalendar::Event> = calendar.events().collect();
    let uids: Vec<&str> = events.iter().filter_map(|e| e.get_uid()).collect();
    assert_eq!(
        uids,
        [
            format!("{ACTIVE_ID}@herald"),
            format!("{UPCOMING_ID}@herald")
        ]
    );
    let active = events[0];
    assert_eq!(active.get_summary(), Some("Network maintenance"));
    assert_eq!(active.property_value("DTSTART"), Some("20260314T110000Z"));
    assert_eq!(active.property_value("DTEND"), Some("20260314T130000Z"));
    assert_eq!(active.get_timestamp(), Some(at(0, 11, 0)));
    assert_eq!(
        active.get_url(),
        Some(&*format!("https://status.acme.test/incidents/{ACTIVE_ID}"))
    );
    assert_eq!(active.get_status(), Some(icalendar::EventStatus::Confirmed));
    let description = active.get_description().expect("description");
    assert!(
        description.starts_with("Status: In Progress\nAffected components: Website\n"),
        "{description}"
    );
    assert!(
        description.find("Work has started.") < description.find("Network work."),
        "{description}"
    );
    let upcoming = events[1];
    assert_eq!(upcoming.property_value("DTSTART"), Some("20260320T020000Z"));
    assert!(
        upcoming
            .get_description()
            .expect("text")
            .contains("writes pause; reads work.")
    );
}

#[test]
fn icalendar_lines_end_in_crlf_and_are_folded() {
    let mut data = fixture::page();
    data.maintenances[0].updates[0].body = "A very long explanation. ".repeat(20);
    let text = text(&data, "maintenances.ics");
    assert!(text.starts_with("BEGIN:VCALENDAR\r\n") && text.ends_with("END:VCALENDAR\r\n"));
    for line in text.split("\r\n") {
        assert!(!line.contains('\n') && !line.contains('\r'), "{line:?}");
        assert!(line.len() <= 75, "{line:?}");
    }
}

#[test]
fn a_maintenance_completed_before_its_window_is_cancelled() {
    let mut data = fixture::page();
    let upcoming = &mut data.maintenances[0];
    upcoming.status = MaintenanceStatus::Completed.into();
    upcoming.resolved_at = Some(at(1, 9, 0));
    let calendar = ical(&data);
    let event = calendar
        .events()
        .find(|e| e.get_uid() == Some(&*format!("{UPCOMING_ID}@herald")));
    assert_eq!(
        event.and_then(|e| e.get_status()),
        Some(icalendar::EventStatus::Cancelled)
    );

    let mut data = fixture::page();
    let active = &mut data.maintenances[1];
    active.status = MaintenanceStatus::Completed.into();
    active.resolved_at = Some(at(0, 12, 30));
    let calendar = ical(&data);
    let event = calendar
        .events()
        .find(|e| e.get_uid() == Some(&*format!("{ACTIVE_ID}@herald")));
    assert_eq!(
        event.and_then(|e| e.get_status()),
        Some(icalendar::EventStatus::Confirmed)
    );
}

#[test]
fn feeds_depend_only_on_the_data() {
    let data = fixture::page();
    let mut later = data.clone();
    later.as_of += chrono::Duration::days(2);
    later.stale_since = Some(later.as_of);
    for key in ["history.atom", "history.rss", "maintenances.ics"] {
        assert_eq!(text(&data, key), text(&later, key), "{key}");
        assert_eq!(text(&data, key), text(&data, key), "{key}");
    }
}

#[test]
fn user_text_is_escaped_in_xml_and_never_a_raw_tag() {
    let data = fixture::hostile();
    for key in ["history.atom", "history.rss"] {
        let xml = text(&data, key);
        assert!(!xml.contains("<script"), "{key}: {xml}");
        assert!(
            xml.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{key}"
        );
    }
    let feed = atom(&data);
    assert_eq!(feed.entries()[0].title().as_str(), EVIL);
    assert_eq!(feed.title().as_str(), "<script> status history");
    let html = feed.entries()[0]
        .content()
        .and_then(|c| c.value())
        .expect("content");
    assert!(!html.contains("<script"), "{html}");
    assert!(
        html.contains("Affected components: &lt;script&gt;"),
        "{html}"
    );
    let channel = rss(&data);
    assert_eq!(channel.items()[0].title(), Some(EVIL));
    assert!(
        !channel.items()[0]
            .description()
            .expect("html")
            .contains("<script")
    );
}

#[test]
fn a_page_name_cannot_add_events_or_properties_to_the_calendar() {
    let mut data = fixture::hostile();
    data.page.name =
        "Acme\r\nBEGIN:VEVENT\r\nUID:forged@x\r\nSUMMARY:Free money;x,y\r\nEND:VEVENT".into();
    let body = text(&data, "maintenances.ics");
    assert!(
        !body.replace("\r\n", "").contains('\n'),
        "a bare line end: {body}"
    );
    let lines: Vec<&str> = body.split("\r\n").collect();
    assert!(!lines.iter().any(|l| l.starts_with("UID:forged")), "{body}");
    let events = lines.iter().filter(|l| **l == "BEGIN:VEVENT").count();
    assert_eq!(events, 2, "{body}");
    let calendar = ical(&data);
    assert_eq!(calendar.events().count(), 2, "{body}");
    assert_eq!(
        calendar.get_name(),
        Some("Acme\nBEGIN:VEVENT\nUID:forged@x\nSUMMARY:Free money;x,y\nEND:VEVENT maintenance")
    );
}

#[test]
fn user_text_cannot_add_icalendar_properties() {
    let mut data = fixture::hostile();
    data.maintenances[0].name = "Upgrade\r\nDTSTART:19990101T000000Z;x,y".into();
    let calendar = ical(&data);
    let events: Vec<&icalendar::Event> = calendar.events().collect();
    assert_eq!(events.len(), 2);
    let upcoming = events[1];
    assert_eq!(
        upcoming.get_summary(),
        Some("Upgrade\nDTSTART:19990101T000000Z;x,y")
    );
    assert_eq!(upcoming.property_value("DTSTART"), Some("20260320T020000Z"));
    assert_eq!(events[0].get_summary(), Some(EVIL));
}
