//! The overview page: banner, promises, components and uptime bars, maintenance, links.

use super::*;

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
    assert!(html.contains(
        r#"<div class="deadline" data-deadline="2026-11-30T12:45:00Z" data-in="(in {d})" data-ago="({d} ago)">"#
    ));
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
    assert_eq!(
        html.matches(r#"<li><a class="day "#).count(),
        2,
        "days with incidents link"
    );
    assert_eq!(
        html.matches(r#"<li class="day "#).count(),
        3 + 3 + 2,
        "the others are plain cells, a quiet stretch of days one cell: no data, full uptime, \
         today (the API's 29 Nov stands alone)"
    );
    assert!(
        html.contains(
            r#"<li class="day s-none n49 old" title="2 Sep 2026 – 20 Oct 2026: no data"></li>"#
        ),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<li class="day s-ok n40 w29" title="21 Oct 2026 – 29 Nov 2026: 100 % uptime"></li>"#
        ),
        "a run crossing the first of the narrow screens' 30 days says how many of its days they show: {html}"
    );
    assert!(
        html.contains(
            r#"<li class="day s-ok n39 w28" title="21 Oct 2026 – 28 Nov 2026: 100 % uptime"></li>"#
        ),
        "the API's quiet run stops before its day with an incident"
    );
    assert_eq!(
        html.matches(r#"aria-label="Uptime of API over the last 90 days""#)
            .count(),
        1
    );
    assert!(html.contains(
        r#"<a class="day s-partial" href="/status/acme/history?page=1#day-2026-11-29" aria-label="29 Nov 2026: 97.5 % uptime, Partial outage, 1 incident""#
    ), "{html}");
    assert!(html.contains(
        r#"href="/status/acme/history?page=1#day-2026-11-29" aria-label="30 Nov 2026 (today so far): Operational, 1 incident""#
    ), "a day links to where its incident is listed");
    assert!(
        html.contains(r#"<strong>99.94 % uptime</strong>"#),
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
    assert!(html.contains(r##"<use href="#i-major"/></svg>Major Outage</span>"##));
    assert!(html.contains(r##"<use href="#i-ok"/></svg>Operational</span>"##));
}

#[test]
fn a_large_calm_group_starts_collapsed_showing_its_status_and_opens_when_one_is_not_operational() {
    let mut data = fixture::page();
    let template = data.components[0].clone();
    for n in 0..super::super::overview::COLLAPSED_OVER - 1 {
        let mut more = template.clone();
        more.id = format!("c-more-{n}");
        more.name = format!("Location {n}");
        data.components.insert(1, more);
    }
    let count = |html: &str| html.matches("<details").count();
    let html = page(&render(&data), "");
    assert_eq!(count(&html), 1);
    assert!(
        html.contains(r#"<details>"#),
        "11 components, all operational: collapsed"
    );
    assert!(html.contains(
        concat!("<details>\n", r#"<summary><span class="group-name">Core</span> <span class="group-count">(11 components)</span> <span class="status s-ok">"#)
    ), "{html}");
    data.components[4].status = crate::domain::ComponentStatus::PartialOutage;
    refresh_status(&mut data);
    let html = page(&render(&data), "");
    assert!(html.contains(
        concat!("<details open>\n", r#"<summary><span class="group-name">Core</span> <span class="group-count">(11 components)</span> <span class="status s-partial">"#)
    ), "{html}");
    data.components.truncate(1 + 9);
    data.components[4].status = crate::domain::ComponentStatus::Operational;
    refresh_status(&mut data);
    assert!(
        page(&render(&data), "").contains("<details open>"),
        "ten are few enough to show"
    );
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
fn only_stale_data_names_a_time_so_fresh_bytes_do_not_change_with_the_minute() {
    let mut data = fixture::page();
    let fresh = page(&render(&data), "");
    assert!(!fresh.contains("Live data is temporarily unavailable"));
    assert!(!fresh.contains("Data as of"));
    let mut later = data.clone();
    later.as_of = as_of() + Duration::minutes(7);
    assert_eq!(
        fresh,
        page(&render(&later), ""),
        "rendering later the same day changes nothing"
    );
    data.stale_since = Some(as_of() + Duration::minutes(5));
    let stale = page(&render(&data), "");
    assert!(stale.contains(r#"Live data is temporarily unavailable; showing data as of <time datetime="2026-11-30T12:00:00Z" data-local>30 Nov 2026, 13:00 CET</time>."#));
    assert!(stale.contains(r#"Data as of <time datetime="2026-11-30T12:00:00Z" data-local>30 Nov 2026, 13:00 CET</time>."#));
}

#[test]
fn uptime_days_link_to_the_history_page_of_their_month() {
    let mut data = fixture::page();
    data.as_of = Utc.with_ymd_and_hms(2026, 11, 2, 12, 0, 0).unwrap();
    for c in &mut data.components {
        c.uptime = crate::domain::daily_uptime(&[], data.as_of, 90);
        // Days with incidents are the ones that link.
        c.incidents_by_day[0] = vec!["x".to_owned()];
        c.incidents_by_day[27] = vec!["x".to_owned()];
    }
    let html = page(&render(&data), "");
    // 90 days back from 2 Nov 2026 starts on 5 Aug 2026, two pages back.
    let first = NaiveDate::from_ymd_opt(2026, 8, 5).unwrap();
    assert!(html.contains(&format!("href=\"/status/acme/history?page=2#day-{first}\"")));
    assert!(html.contains("href=\"/status/acme/history?page=1#day-2026-09-01\""));
}
