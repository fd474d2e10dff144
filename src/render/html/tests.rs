//! Rendering tests: real pages from fixture data, checked for the content readers rely on.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{Duration, NaiveDate, TimeZone, Utc};

use super::fixture::{self, as_of, maintenance, open_incident, refresh_status, resolved_incident};
use super::*;
use crate::render::PageData;

type Reps = HashMap<String, Arc<Representation>>;

fn render(data: &PageData) -> Reps {
    let mut out = HashMap::new();
    render_page(data, &Templates::load().unwrap(), &Assets::load(), &mut out).unwrap();
    out
}

fn body(rep: &Representation) -> String {
    String::from_utf8(rep.identity.to_vec()).unwrap()
}

fn page(reps: &Reps, key: &str) -> String {
    body(reps.get(key).unwrap_or_else(|| panic!("{key:?} rendered")))
}

/// The fixture page with an open incident promising its next update by `next_update_by`.
fn with_open_incident(next_update_by: chrono::DateTime<Utc>) -> PageData {
    let mut data = fixture::page();
    data.incidents
        .push(open_incident("i-open", "API errors", next_update_by));
    refresh_status(&mut data);
    data
}

#[test]
fn the_overview_banner_says_the_status_with_icon_and_words() {
    let calm = page(&render(&fixture::page()), "");
    assert!(calm.contains(r##"<section class="banner s-ok" aria-label="Overall status">"##));
    assert!(calm.contains(r##"<use href="#i-ok"/></svg><span>All Systems Operational</span>"##));

    let html = page(
        &render(&with_open_incident(as_of() + Duration::minutes(45))),
        "",
    );
    assert!(
        html.contains(r#"<section class="banner s-partial""#),
        "{html}"
    );
    assert!(html.contains("<span>Partial System Outage</span>"));
    assert!(html.contains(r#"<a href="/status/acme/incidents/i-open">API errors</a>"#));
    assert!(html.contains("Major impact"));
    assert!(html.contains("<strong>Investigating</strong>"));
    assert!(html.contains("We are <strong>investigating</strong> elevated error rates."));
}

#[test]
fn next_update_by_shows_page_time_with_the_utc_instant_and_a_countdown_slot() {
    let html = page(
        &render(&with_open_incident(as_of() + Duration::minutes(45))),
        "",
    );
    assert!(html.contains(r#"<div class="deadline" data-deadline="2026-11-30T12:45:00Z">"#));
    assert!(html.contains(r#"<p class="deadline-due">"#), "{html}");
    assert!(html.contains(
        r#"Next update by <time datetime="2026-11-30T12:45:00Z" data-local>30 Nov 2026, 13:45 CET</time><span class="countdown" data-countdown></span>"#
    ));
    assert!(html.contains(r#"<p class="deadline-overdue" hidden>"#));
}

#[test]
fn a_passed_deadline_says_plainly_that_an_update_is_overdue() {
    let data = with_open_incident(as_of() - Duration::minutes(10));
    let reps = render(&data);
    for key in ["", "incidents/i-open"] {
        let html = page(&reps, key);
        assert!(
            html.contains(r#"<p class="deadline-due" hidden>"#),
            "{key}: {html}"
        );
        assert!(html.contains(r#"<p class="deadline-overdue">"#), "{key}");
        assert!(html.contains("<strong>An update is overdue.</strong> The next update was expected by <time datetime=\"2026-11-30T11:50:00Z\" data-local>30 Nov 2026, 12:50 CET</time><span class=\"countdown\" data-overdue-for></span>."), "{key}: {html}");
    }
    // At the deadline itself the update is due.
    let html = page(&render(&with_open_incident(as_of())), "");
    assert!(html.contains(r#"<p class="deadline-overdue">"#));
}

#[test]
fn each_component_has_a_ninety_day_bar_of_labelled_links_into_the_history() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    // The API's incident of 29 Nov was still felt on 30 Nov.
    let api = &mut data.components[0];
    api.incidents_by_day[88] = vec!["i-old".to_owned()];
    api.incidents_by_day[89] = vec!["i-old".to_owned()];
    let html = page(&render(&data), "");
    assert_eq!(html.matches(r#"<li><a class="day "#).count(), 3 * 90);
    assert_eq!(
        html.matches(r#"aria-label="Uptime of API over the last 90 days""#)
            .count(),
        1
    );
    assert!(html.contains(
        r#"<a class="day s-partial" href="/status/acme/history?page=1#day-2026-11-29" aria-label="29 Nov 2026: 97.5 % uptime, Partial outage, 1 incident""#
    ), "{html}");
    assert!(html.contains(
        r#"href="/status/acme/history?page=1#day-2026-11-29" aria-label="30 Nov 2026: 100 % uptime, Operational, 1 incident""#
    ), "a day links to where its incident is listed");
    assert!(html.contains(
        r#"<a class="day s-none" href="/status/acme/history?page=1#day-2026-09-02" aria-label="2 Sep 2026: no data""#
    ));
    assert!(
        html.contains(r#"<span class="bar-percent">99.93 % uptime</span>"#),
        "{html}"
    );
    assert!(html.contains(r#"<span class="region">eu-west</span>"#));
}

#[test]
fn components_show_by_group_in_collapsible_details_with_status_words() {
    let mut data = fixture::page();
    data.components[1].status = crate::domain::ComponentStatus::MajorOutage;
    refresh_status(&mut data);
    let html = page(&render(&data), "");
    let core = html
        .find(r#"<span class="group-name">Core</span>"#)
        .expect("group shown");
    let cdn = html
        .find(r#"<p class="component-name">CDN"#)
        .expect("CDN shown");
    assert!(core < cdn, "display order");
    assert!(html.contains("<details open>"));
    assert!(html.contains(
        r#"<span class="group-count">(2 components)</span> <span class="status s-major">"#
    ));
    assert!(html.contains(r#"<span class="status-label">Major Outage</span>"#));
    assert!(html.contains(r#"<span class="status-label">Operational</span>"#));
}

#[test]
fn the_overview_lists_maintenance_and_links_to_history_subscribe_support_and_feeds() {
    let mut data = fixture::page();
    let from = Utc.with_ymd_and_hms(2026, 12, 2, 22, 0, 0).unwrap();
    data.maintenances
        .push(maintenance("m-db", "Database upgrade", from));
    let html = page(&render(&data), "");
    assert!(html.contains(r#"<h2 id="h-upcoming-maintenance">Scheduled maintenance</h2>"#));
    assert!(html.contains(r#"Scheduled <time datetime="2026-12-02T22:00:00Z" data-local>2 Dec 2026, 23:00 CET</time> to <time datetime="2026-12-03T00:00:00Z" data-local>3 Dec 2026, 01:00 CET</time>"#), "{html}");
    for link in [
        r#"href="/status/acme/history?page=1""#,
        r#"href="/status/acme/subscribe""#,
        r#"href="/status/acme/support""#,
        r#"<link rel="alternate" type="application/atom+xml" title="Acme Cloud: incident history (Atom)" href="/status/acme/history.atom">"#,
        r#"<link rel="alternate" type="application/rss+xml" title="Acme Cloud: incident history (RSS)" href="/status/acme/history.rss">"#,
        r#"<link rel="alternate" type="text/calendar" title="Acme Cloud: maintenance calendar (iCalendar)" href="/status/acme/maintenances.ics">"#,
    ] {
        assert!(html.contains(link), "{link}");
    }
}

#[test]
fn stale_data_shows_a_notice_and_the_footer_says_as_of_when() {
    let mut data = fixture::page();
    let fresh = page(&render(&data), "");
    assert!(!fresh.contains("Live data is temporarily unavailable"));
    assert!(fresh.contains(r#"Data as of <time datetime="2026-11-30T12:00:00Z" data-local>30 Nov 2026, 13:00 CET</time>."#));
    data.stale_since = Some(as_of() + Duration::minutes(5));
    let stale = page(&render(&data), "");
    assert!(stale.contains(r#"Live data is temporarily unavailable; showing data as of <time datetime="2026-11-30T12:00:00Z" data-local>30 Nov 2026, 13:00 CET</time>."#));
}

#[test]
fn the_incident_page_has_the_timeline_fields_and_postmortem() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    let html = page(&render(&data), "incidents/i-old");
    assert_eq!(html.matches("<h1").count(), 1);
    assert!(html.contains(r#"<h1 class="page-title">Route missing</h1>"#));
    let resolved = html
        .find("<h3 class=\"update-head\">Resolved")
        .expect("newest update");
    let first = html
        .find("<h3 class=\"update-head\">Investigating")
        .expect("first update");
    assert!(resolved < first, "newest first");
    assert!(html.contains("Next update promised by <time datetime=\"2026-11-29T09:00:00Z\" data-local>29 Nov 2026, 10:00 CET</time>. The next update came 1 h late."));
    assert!(
        html.contains("<div><dt>User impact</dt><dd>Some API requests fail with 502.</dd></div>")
    );
    assert!(
        !html.contains("Preliminary root cause"),
        "unset fields are left out"
    );
    assert!(html.contains(r#"<h2 id="h-postmortem">Postmortem</h2>"#));
    assert!(html.contains("A bad <strong>deploy</strong>."));
    assert!(html.contains("<div><dt>Duration</dt><dd>2 hours</dd></div>"));
    assert!(html.contains(r#"<tr><td><time datetime="2026-11-29T08:00:00Z">29 Nov 2026, 08:00 UTC</time></td><td>Error rates rise</td></tr>"#));
    assert!(html.contains("Validate routes before deploys <span class=\"muted\">(Platform team)</span></span> <span class=\"status s-maint\">"));
    assert!(html.contains(r#"<a href="/status/acme/history?page=1#day-2026-11-29">History</a>"#));
}

#[test]
fn every_incident_and_maintenance_gets_a_page() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    data.incidents.push(open_incident(
        "i-open",
        "API errors",
        as_of() + Duration::hours(1),
    ));
    let from = as_of() + Duration::days(3);
    data.maintenances
        .push(maintenance("m-db", "Database upgrade", from));
    let reps = render(&data);
    let mut keys: Vec<_> = reps.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "",
            "history?page=1",
            "incidents/i-old",
            "incidents/i-open",
            "incidents/m-db"
        ]
    );
    let rep = &reps[""];
    assert_eq!(rep.content_type, "text/html; charset=utf-8");
    assert_eq!(rep.cache, CachePolicy::PUBLIC);
}

#[test]
fn history_pages_hold_three_months_each_newest_first_with_day_anchors() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-nov", "November trouble", 29));
    let mut august = resolved_incident("i-aug", "August trouble", 3);
    for t in [&mut august.started_at] {
        *t = Utc.with_ymd_and_hms(2026, 8, 3, 8, 0, 0).unwrap();
    }
    data.incidents.push(august);
    let mut february = resolved_incident("i-feb", "February trouble", 3);
    february.started_at = Utc.with_ymd_and_hms(2026, 2, 14, 8, 0, 0).unwrap();
    data.incidents.push(february);
    let reps = render(&data);
    let pages: Vec<_> = (1..=5)
        .filter(|n| reps.contains_key(&format!("history?page={n}")))
        .collect();
    assert_eq!(pages, [1, 2, 3, 4]);

    let first = page(&reps, "history?page=1");
    let months: Vec<_> = ["November 2026", "October 2026", "September 2026"]
        .iter()
        .map(|m| {
            first
                .find(&format!(">{m}</h2>"))
                .unwrap_or_else(|| panic!("{m}"))
        })
        .collect();
    assert!(months.windows(2).all(|w| w[0] < w[1]), "newest month first");
    assert!(first.contains(
        r#"<section class="day-group" id="day-2026-11-29" aria-labelledby="h-day-2026-11-29">"#
    ));
    assert!(first.contains(r#"<h3 id="h-day-2026-11-29">29 Nov 2026</h3>"#));
    assert!(first.contains(r#"<h4 class="event-title" id="event-i-nov"><a href="/status/acme/incidents/i-nov">November trouble</a></h4>"#));
    assert!(first.contains("No incidents or maintenance reported this month."));
    assert!(first.contains(r#"<a rel="next" href="/status/acme/history?page=2">"#));
    assert!(!first.contains(r#"rel="prev""#));
    assert!(first.contains("(page 1 of 4)"));

    let second = page(&reps, "history?page=2");
    assert!(second.contains(r#"id="day-2026-08-03""#));
    assert!(second.contains(r#"<a rel="prev" href="/status/acme/history?page=1">"#));
    assert!(!second.contains("November trouble"));
    let third = page(&reps, "history?page=3");
    assert_eq!(
        third
            .matches("No incidents or maintenance reported this month.")
            .count(),
        3
    );
    assert!(page(&reps, "history?page=4").contains(r#"id="day-2026-02-14""#));
}

#[test]
fn an_empty_page_still_has_a_first_history_page() {
    let reps = render(&fixture::page());
    let history = page(&reps, "history?page=1");
    assert!(!reps.contains_key("history?page=2"));
    assert!(!history.contains("rel=\"next\""));
    assert!(history.contains("<h1 class=\"page-title\">Incident history</h1>"));
}

#[test]
fn a_hostile_incident_name_renders_inert_everywhere() {
    let evil = "<script>alert(1)</script>";
    let mut data = fixture::page();
    data.page.name = format!("Acme {evil}");
    data.page.description = Some(evil.to_owned());
    data.components[0].name = evil.to_owned();
    data.components[2].region = Some(evil.to_owned());
    data.groups[0].name = evil.to_owned();
    let mut incident = open_incident("i-evil", evil, as_of() + Duration::hours(1));
    incident.user_impact = Some(evil.to_owned());
    incident.affected_components[0].name = evil.to_owned();
    incident.updates[0].body_html = crate::render::markdown::to_safe_html(evil);
    data.incidents.push(incident);
    data.maintenances
        .push(maintenance("m-evil", evil, as_of() + Duration::days(1)));
    let reps = render(&data);
    let home = render_home(&[&data], &Templates::load().unwrap(), &Assets::load()).unwrap();
    let mut bodies: Vec<_> = reps.values().map(|r| body(r)).collect();
    bodies.push(body(&home));
    for html in &bodies {
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("alert(1)</script>"));
    }
    assert!(page(&reps, "").contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        page(&reps, "incidents/i-evil")
            .contains("<h1 class=\"page-title\">&lt;script&gt;alert(1)&lt;/script&gt;</h1>")
    );
    assert!(body(&home).contains("Acme &lt;script&gt;alert(1)&lt;/script&gt;"));
}

#[test]
fn the_same_data_renders_to_the_same_bytes() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    data.incidents.push(open_incident(
        "i-open",
        "API errors",
        as_of() + Duration::hours(1),
    ));
    data.maintenances
        .push(maintenance("m-db", "Upgrade", as_of() + Duration::days(2)));
    let one = render(&data);
    let two = render(&data.clone());
    assert_eq!(one.len(), two.len());
    for (key, rep) in &one {
        assert_eq!(rep.identity, two[key].identity, "{key}");
        assert_eq!(rep.tag, two[key].tag, "{key}");
    }
}

#[test]
fn pages_are_accessible_documents_without_inline_script_or_style() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    data.incidents.push(open_incident(
        "i-open",
        "API errors",
        as_of() + Duration::hours(1),
    ));
    let templates = Templates::load().unwrap();
    let assets = Assets::load();
    let mut bodies: Vec<_> = render(&data).values().map(|r| body(r)).collect();
    bodies.push(body(&render_home(&[&data], &templates, &assets).unwrap()));
    bodies.push(body(&render_home(&[], &templates, &assets).unwrap()));
    bodies.push(body(&render_not_found(&templates, &assets).unwrap()));
    bodies.push(body(&render_unavailable(&templates, &assets).unwrap()));
    let js = assets.url("app.js");
    for html in &bodies {
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert_eq!(html.matches("<h1").count(), 1, "{html}");
        for landmark in [
            "<header",
            "<main id=\"main\"",
            "<footer",
            "<a class=\"skip-link\" href=\"#main\">",
        ] {
            assert!(html.contains(landmark), "{landmark}");
        }
        assert_eq!(html.matches("<script").count(), 1);
        assert!(html.contains(&format!("<script src=\"{js}\" defer></script>")));
        assert!(!html.contains(" style="), "no inline style");
        assert!(!html.contains(" onclick=") && !html.contains(" onload="));
        assert!(
            !html.contains("src=\"http") && !html.contains("href=\"http://"),
            "no external resources"
        );
        assert!(html.contains(&format!(
            "<link rel=\"stylesheet\" href=\"{}\">",
            assets.url("app.css")
        )));
    }
}

#[test]
fn headings_never_skip_a_level() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    data.incidents.push(open_incident(
        "i-open",
        "API errors",
        as_of() + Duration::hours(1),
    ));
    for (key, rep) in render(&data) {
        let html = body(&rep);
        let mut last = 0;
        for (i, _) in html.match_indices("<h") {
            let Some(level) = html[i + 2..].chars().next().and_then(|c| c.to_digit(10)) else {
                continue;
            };
            assert!(level <= last + 1, "{key}: h{level} after h{last}");
            last = level;
        }
    }
}

#[test]
fn an_empty_home_welcomes_the_operator_with_the_first_steps() {
    let templates = Templates::load().unwrap();
    let html = body(&render_home(&[], &templates, &Assets::load()).unwrap());
    assert!(html.contains("<h1 class=\"page-title\">Welcome to Herald</h1>"));
    assert!(html.contains("herald user add --email you@example.com --role owner"));
    assert!(html.contains("<code>herald demo</code>"));
}

#[test]
fn the_home_page_lists_public_pages_with_their_status() {
    let templates = Templates::load().unwrap();
    let calm = fixture::page();
    let mut other = with_open_incident(as_of() + Duration::hours(1));
    other.page.name = "Beta".to_owned();
    other.page.path = "/status/beta".to_owned();
    let html = body(&render_home(&[&other, &calm], &templates, &Assets::load()).unwrap());
    let acme = html
        .find(r#"<a class="page-link" href="/status/acme">Acme Cloud</a>"#)
        .unwrap();
    let beta = html
        .find(r#"<a class="page-link" href="/status/beta">Beta</a>"#)
        .unwrap();
    assert!(acme < beta, "by name");
    assert!(html.contains("All Systems Operational"));
    assert!(html.contains("Partial System Outage"));
}

#[test]
fn error_bodies_say_what_happened() {
    let templates = Templates::load().unwrap();
    let assets = Assets::load();
    let missing = render_not_found(&templates, &assets).unwrap();
    assert!(body(&missing).contains("<h1 class=\"page-title\">Page not found</h1>"));
    let unavailable = render_unavailable(&templates, &assets).unwrap();
    assert!(body(&unavailable).contains("Please try again in a few seconds."));
    assert_eq!(unavailable.cache.max_age, 0);
}

#[test]
fn uptime_days_link_to_the_history_page_of_their_month() {
    let mut data = fixture::page();
    data.as_of = Utc.with_ymd_and_hms(2026, 11, 2, 12, 0, 0).unwrap();
    for c in &mut data.components {
        c.uptime = crate::domain::daily_uptime(&[], data.as_of, 90);
    }
    let html = page(&render(&data), "");
    // 90 days back from 2 Nov 2026 starts on 5 Aug 2026, two pages back.
    let first = NaiveDate::from_ymd_opt(2026, 8, 5).unwrap();
    assert!(html.contains(&format!("href=\"/status/acme/history?page=2#day-{first}\"")));
    assert!(html.contains("href=\"/status/acme/history?page=1#day-2026-09-01\""));
}

#[test]
#[ignore]
fn dump_pages() {
    let mut data = fixture::page();
    data.incidents
        .push(resolved_incident("i-old", "Route missing", 29));
    data.incidents.push(open_incident(
        "i-open",
        "API errors",
        as_of() + Duration::minutes(45),
    ));
    data.maintenances.push(maintenance(
        "m-db",
        "Database upgrade",
        as_of() + Duration::days(2),
    ));
    refresh_status(&mut data);
    let dir = std::path::Path::new("/tmp/herald-html");
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    for (key, rep) in render(&data) {
        let name = if key.is_empty() {
            "index".to_owned()
        } else {
            key.replace(['/', '?', '='], "_")
        };
        std::fs::write(dir.join(format!("{name}.html")), &rep.identity).unwrap();
    }
    let templates = Templates::load().unwrap();
    let assets = Assets::load();
    std::fs::write(
        dir.join("home.html"),
        &render_home(&[], &templates, &assets).unwrap().identity,
    )
    .unwrap();
    for name in ["app.css", "app.js", "favicon.svg"] {
        let url = assets.url(name);
        let rep = assets.get(&url["/assets/".len()..]).unwrap();
        std::fs::write(
            dir.join("assets").join(&url["/assets/".len()..]),
            &rep.identity,
        )
        .unwrap();
    }
}
