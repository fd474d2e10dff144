//! Incident, history, home and error pages.

use super::*;

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
fn the_root_cause_said_during_an_incident_is_preliminary_until_the_postmortem_is_out() {
    let mut data = fixture::page();
    let mut done = resolved_incident("i-done", "Route missing", 29);
    done.root_cause = Some("A route was removed.".to_owned());
    let mut open = resolved_incident("i-open", "Slow logins", 28);
    open.root_cause = Some("A cache is cold.".to_owned());
    open.postmortem = None;
    data.incidents.extend([done, open]);
    let site = render(&data);
    let done = page(&site, "incidents/i-done");
    assert!(done.contains("<dt>Root cause as first reported</dt><dd>A route was removed.</dd>"));
    assert!(!done.contains("Preliminary root cause"));
    let open = page(&site, "incidents/i-open");
    assert!(open.contains("<dt>Preliminary root cause</dt><dd>A cache is cold.</dd>"));
}

#[test]
fn every_incident_and_maintenance_gets_a_page() {
    let mut data = resolved_and_open();
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
    august.started_at = Utc.with_ymd_and_hms(2026, 8, 3, 8, 0, 0).unwrap();
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
fn an_event_dated_centuries_back_is_listed_on_the_last_of_five_history_pages() {
    let mut data = fixture::page();
    let mut typo = open_incident(
        "i-typo",
        "Typed 0226 for 2026",
        as_of() + Duration::hours(1),
    );
    typo.started_at = Utc.with_ymd_and_hms(226, 11, 2, 8, 0, 0).unwrap();
    data.incidents.push(typo);
    let reps = render(&data);
    let pages: Vec<_> = (1..=6)
        .filter(|n| reps.contains_key(&format!("history?page={n}")))
        .collect();
    assert_eq!(pages, [1, 2, 3, 4, 5], "a year back, three months a page");
    let last = page(&reps, "history?page=5");
    assert!(last.contains(r#"id="day-0226-11-02""#), "under its own day");
    assert!(last.contains("Typed 0226 for 2026"));
    assert!(last.contains("(page 5 of 5)"));
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
fn an_error_page_has_its_sentence_fields_way_back_and_reference() {
    let templates = Templates::load().unwrap();
    let assets = Assets::load();
    let page = ErrorPage {
        title: "Please check what you sent".into(),
        explanation: "Some of the fields could not be accepted:".into(),
        fields: vec![FieldMessage {
            name: "email".into(),
            message: "is not an <email> address".into(),
        }],
        retry_after: Some(3),
        back: Link {
            href: "/status/acme".into(),
            label: "Back to the status page".into(),
        },
        request_id: Some("r-1".into()),
    };
    let html = render_error(&page, &templates, &assets).unwrap();
    assert!(html.contains(r#"<h1 class="page-title">Please check what you sent</h1>"#));
    assert!(html.contains("<li><strong>email</strong>: is not an &lt;email&gt; address</li>"));
    assert!(html.contains("Please try again in 3 seconds."));
    assert!(html.contains(r#"<a href="/status/acme">Back to the status page</a>"#));
    assert!(html.contains("<code>r-1</code>"));
}
