//! Many pages: Herald serves while its first pass renders them, a page asked for first; and
//! what the refresher polls is a revision per page that every change to what the page shows
//! moves, in the transaction of the change, so a write costs nothing for the other pages.

use diesel::connection::SimpleConnection;
use herald::db::models::public::{page_revisions, pages_moved_since, site_seq};
use herald::domain::{PageId, Role};
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    a_page_read_at_start_up_is_rendered_first_while_the_others_render_behind_it,
    every_change_to_what_a_page_shows_moves_its_revision_and_no_other,
    a_resolved_incident_is_kept_between_reads_until_something_it_shows_changes,
    a_component_is_read_again_only_when_its_row_or_status_history_changes,
    the_home_page_is_rendered_on_its_first_read_and_kept_until_a_line_it_shows_changes,
    the_site_counter_names_the_pages_that_moved_and_counts_pages_added_and_removed,
);

/// How many pages the start-up test's second Herald finds: enough that rendering them all
/// takes far longer than rendering one.
const PAGES: usize = 150;

async fn a_page_read_at_start_up_is_rendered_first_while_the_others_render_behind_it(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for n in 0..PAGES {
        app.page(&format!("p{n:03}"))
            .with_components(&["API", "Web", "Mail"])
            .create()
            .await;
    }
    // Another Herald starting on the database: it serves before its pages are rendered.
    let started = app.spawn_sibling().await;
    // The last page in the refresher's order is asked for first: it is rendered at once.
    let last = format!("/status/p{:03}", PAGES - 1);
    let res = started.get(&last).await;
    assert_eq!(res.status(), 200);
    let held = started.site.snapshot().pages.len();
    assert!(
        held < PAGES,
        "the page was answered before the others were rendered ({held} of {PAGES} held)"
    );
    assert!(res.text().await.unwrap().contains("P149"));
    let summary = started
        .get(&format!("{last}/api/v2/summary.json"))
        .await
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(summary["components"].as_array().unwrap().len(), 3);

    // The rest follow; then Herald is ready, every page is served and an unknown one is not.
    let mut ready = false;
    for _ in 0..600 {
        if started.get("/readyz").await.status() == 200 {
            ready = true;
            break;
        }
        started
            .site
            .passes
            .seen(std::time::Duration::from_secs(1))
            .await;
    }
    assert!(ready, "ready once every page is rendered");
    assert_eq!(started.site.snapshot().pages.len(), PAGES);
    for n in [0, 75, 148] {
        assert_eq!(started.get(&format!("/status/p{n:03}")).await.status(), 200);
    }
    assert_eq!(started.get("/status/nowhere").await.status(), 404);
}

/// The revision of `page` as the refresher reads it.
async fn revision(app: &TestApp, page: &PageId) -> i64 {
    let page = page.clone();
    app.db
        .run(move |c| Ok(page_revisions(c)?))
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.page_id == page)
        .expect("the page has a revision")
        .revision
}

/// The site's change counter, the pages that moved after `since` and how many pages there are.
async fn site(app: &TestApp, since: i64) -> (i64, Vec<PageId>, i64) {
    app.db
        .run(move |c| {
            let seq = site_seq(c)?;
            let (moved, count) = pages_moved_since(c, since)?;
            Ok((seq, moved.into_iter().map(|(id, _)| id).collect(), count))
        })
        .await
        .unwrap()
}

async fn run_sql(app: &TestApp, sql: String) {
    app.db
        .run(move |c| Ok(c.batch_execute(&sql)?))
        .await
        .unwrap();
}

async fn every_change_to_what_a_page_shows_moves_its_revision_and_no_other(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let acme = app.page("acme").with_components(&["API"]).create().await;
    let other = app.page("other").with_components(&["Web"]).create().await;
    let api = app.api(&owner);
    let component = acme.components[0].to_string();

    let mut seen = revision(&app, &acme.id).await;
    let others = revision(&app, &other.id).await;
    let mut counter = site(&app, 0).await.0;
    let mut moved = async |what: &str| {
        let now = revision(&app, &acme.id).await;
        assert!(
            now > seen,
            "{what} moves the page's revision ({seen} -> {now})"
        );
        seen = now;
        let (after, named, _) = site(&app, counter).await;
        assert!(after > counter, "{what} moves the site's counter");
        assert_eq!(
            named,
            vec![acme.id.clone()],
            "{what}: the pages moved since"
        );
        counter = after;
        assert_eq!(
            revision(&app, &other.id).await,
            others,
            "{what} leaves the other page's"
        );
    };

    // Through the API: rows made.
    let (status, _) = api
        .post("/pages/acme/components", json!({"name": "Web"}))
        .await;
    assert_eq!(status, 201);
    moved("a component made").await;
    let (status, _) = api
        .post("/pages/acme/component-groups", json!({"name": "Core"}))
        .await;
    assert_eq!(status, 201);
    moved("a group made").await;
    let incident = json!({"name": "Slow API", "body": "Looking.", "impact": "minor"});
    let (status, incident) = api.post("/pages/acme/incidents", incident).await;
    assert_eq!(status, 201, "{incident}");
    moved("an incident opened").await;
    let incident = incident["id"].as_str().unwrap().to_owned();

    // By hand, as another program or an operator would: rows changed and removed.
    let page = acme.id.to_string();
    let changes = [
        (
            "the page's row",
            format!("UPDATE status_pages SET name = 'Acme Co' WHERE id = '{page}'"),
        ),
        (
            "a component",
            format!("UPDATE components SET description = 'd' WHERE id = '{component}'"),
        ),
        (
            "a group",
            format!("UPDATE component_groups SET name = 'Edge' WHERE page_id = '{page}'"),
        ),
        (
            "an incident",
            format!("UPDATE incidents SET name = 'Slow' WHERE id = '{incident}'"),
        ),
        (
            "an update",
            format!("UPDATE incident_updates SET body = 'b' WHERE incident_id = '{incident}'"),
        ),
        (
            "an update removed",
            format!("DELETE FROM incident_updates WHERE incident_id = '{incident}'"),
        ),
        (
            "a status history row added",
            format!(
                "INSERT INTO component_status_changes \
                 (id, component_id, old_status, new_status, incident_id, changed_at) \
                 VALUES ('by-hand', '{component}', 'operational', 'major_outage', NULL, \
                 '2026-01-02 03:04:05')"
            ),
        ),
        (
            "a status history row changed",
            "UPDATE component_status_changes SET new_status = 'partial_outage' WHERE id = 'by-hand'"
                .to_owned(),
        ),
        (
            "a status history row removed",
            "DELETE FROM component_status_changes WHERE id = 'by-hand'".to_owned(),
        ),
        (
            "a component removed",
            format!("DELETE FROM components WHERE id = '{component}'"),
        ),
    ];
    for (what, sql) in changes {
        run_sql(&app, sql).await;
        moved(what).await;
    }

    // And the public page shows a change made by hand.
    app.refreshed().await;
    let page = app.get("/status/acme").await.text().await.unwrap();
    assert!(page.contains("Acme Co"), "the renamed page is served");
}

/// A resolved incident as the page's data holds it.
fn held(app: &TestApp, id: &str) -> herald::services::public::data::IncidentInfo {
    app.site.snapshot().pages["acme"]
        .data
        .incidents
        .iter()
        .find(|i| i.id == id)
        .expect("the incident is held")
        .clone()
}

async fn a_resolved_incident_is_kept_between_reads_until_something_it_shows_changes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let acme = app.page("acme").with_components(&["API"]).create().await;
    let api = app.api(&owner);
    let component = acme.components[0].to_string();
    let incident = json!({"name": "Slow API", "body": "Looking.", "impact": "minor",
        "components": {component.clone(): "partial_outage"}});
    let (status, incident) = api.post("/pages/acme/incidents", incident).await;
    assert_eq!(status, 201, "{incident}");
    let id = incident["id"].as_str().unwrap().to_owned();
    let update = json!({"status": "resolved", "body": "Fixed.",
        "components": {component.clone(): "operational"}});
    let (status, body) = api
        .post(&format!("/pages/acme/incidents/{id}/updates"), update)
        .await;
    assert_eq!(status, 201, "{body}");
    app.refreshed().await;
    let resolved = held(&app, &id);
    assert!(!resolved.status.is_open());

    // Another write on the page reads it again: the incident is the one read before.
    let (status, _) = api
        .post("/pages/acme/components", json!({"name": "Web"}))
        .await;
    assert_eq!(status, 201);
    assert_eq!(held(&app, &id), resolved);

    // Changed by hand: an update's text, then the name of the component it affected.
    run_sql(
        &app,
        format!("UPDATE incident_updates SET body = 'Fixed for good.' WHERE incident_id = '{id}' AND status = 'resolved'"),
    )
    .await;
    app.refreshed().await;
    assert_eq!(held(&app, &id).updates[0].body, "Fixed for good.");
    let page = app.get(&format!("/status/acme/incidents/{id}")).await;
    assert!(page.text().await.unwrap().contains("Fixed for good."));
    run_sql(
        &app,
        format!("UPDATE components SET name = 'Public API' WHERE id = '{component}'"),
    )
    .await;
    app.refreshed().await;
    let renamed = held(&app, &id);
    assert_eq!(renamed.affected_components[0].name, "Public API");
    assert!(
        renamed.updates[0]
            .changes
            .iter()
            .all(|c| c.component_name == "Public API"),
        "{:?}",
        renamed.updates[0].changes
    );
}

/// A component as the page's data holds it, as read from the database.
fn read_of(app: &TestApp, id: &str) -> herald::services::public::data::ComponentRead {
    app.site.snapshot().pages["acme"].data.read_from.components[id].clone()
}

async fn a_component_is_read_again_only_when_its_row_or_status_history_changes(db: TestDb) {
    use std::sync::Arc;
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let acme = app
        .page("acme")
        .with_components(&["API", "Web"])
        .create()
        .await;
    let api = app.api(&owner);
    let (first, second) = (
        acme.components[0].to_string(),
        acme.components[1].to_string(),
    );
    app.refreshed().await;
    let (first_read, second_read) = (read_of(&app, &first), read_of(&app, &second));

    // A write to one component reads it again and keeps the other as it was read.
    let (status, body) = api
        .patch(
            &format!("/pages/acme/components/{second}"),
            json!({"status": "degraded_performance"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let kept = read_of(&app, &first);
    assert!(Arc::ptr_eq(&kept.row, &first_read.row), "the row is kept");
    assert!(
        Arc::ptr_eq(&kept.history, &first_read.history),
        "the history is kept"
    );
    let changed = read_of(&app, &second);
    assert!(changed.revision > second_read.revision);
    assert_eq!(
        changed.row.status,
        herald::domain::ComponentStatus::DegradedPerformance
    );
    assert_eq!(changed.history.len(), second_read.history.len() + 1);

    // By hand: an hour of major outage yesterday in the first one's history. The page reads
    // it and its uptime bar shows it.
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1)).date_naive();
    run_sql(
        &app,
        format!(
            "INSERT INTO component_status_changes \
             (id, component_id, old_status, new_status, incident_id, changed_at) VALUES \
             ('down', '{first}', 'operational', 'major_outage', NULL, '{yesterday} 10:00:00'), \
             ('up', '{first}', 'major_outage', 'operational', NULL, '{yesterday} 11:00:00')"
        ),
    )
    .await;
    app.refreshed().await;
    let reread = read_of(&app, &first);
    assert!(reread.revision > first_read.revision);
    assert_eq!(reread.history.len(), first_read.history.len() + 2);
    let data = app.site.snapshot().pages["acme"].data.clone();
    let day = data
        .component(&first)
        .expect("the component is shown")
        .uptime
        .days
        .iter()
        .find(|d| d.date == yesterday)
        .expect("yesterday is on the bar")
        .clone();
    assert_eq!(
        day.worst,
        Some(herald::domain::ComponentStatus::MajorOutage)
    );
    assert!(day.downtime_secs > 0, "{day:?}");
    assert!(
        Arc::ptr_eq(&read_of(&app, &second).row, &changed.row),
        "the other is kept"
    );

    // One component removed and another added in one transaction: the page has as many as
    // before, and the read finds both changes (the one added moved; the page's count is one
    // short of what the read held plus it). The one that did not move is kept.
    let now = chrono::Utc::now().naive_utc().format("%Y-%m-%d %H:%M:%S");
    run_sql(
        &app,
        format!(
            "BEGIN; DELETE FROM components WHERE id = '{second}'; \
             INSERT INTO components (id, page_id, group_id, name, description, position, \
             region, status, showcase, created_at, updated_at, signin) VALUES ('added', \
             '{}', NULL, 'Search', NULL, 7, NULL, 'partial_outage', false, '{now}', '{now}', \
             false); COMMIT;",
            acme.id
        ),
    )
    .await;
    app.refreshed().await;
    let data = app.site.snapshot().pages["acme"].data.clone();
    let shown: Vec<(&str, herald::domain::ComponentStatus)> = data
        .components
        .iter()
        .map(|c| (c.name.as_str(), c.status))
        .collect();
    assert_eq!(
        shown,
        [
            ("API", herald::domain::ComponentStatus::Operational),
            ("Search", herald::domain::ComponentStatus::PartialOutage)
        ]
    );
    assert!(
        Arc::ptr_eq(&read_of(&app, &first).row, &reread.row),
        "the one that did not move is kept"
    );
}

async fn the_home_page_is_rendered_on_its_first_read_and_kept_until_a_line_it_shows_changes(
    db: TestDb,
) {
    use std::sync::Arc;
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    app.page("alpha").with_components(&["API"]).create().await;
    let beta = app
        .page("beta")
        .with_components(&["Web", "Mail"])
        .create()
        .await;
    let api = app.api(&owner);
    app.refreshed().await;

    // Nothing renders it ahead; its first read does, and the next read gets the same bytes.
    let home = app.site.snapshot().home.clone();
    let names: Vec<&str> = home.lines.values().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["Alpha", "Beta"], "{:?}", home.lines);
    assert!(home.rendered().is_none(), "not rendered before a read");
    let first = home.render(&app.site).await.unwrap();
    let html = String::from_utf8_lossy(&first.identity).into_owned();
    assert!(html.contains(r#"href="/status/alpha""#), "{html}");
    assert!(html.contains(r#"href="/status/beta""#), "{html}");
    assert!(html.contains("All Systems Operational"), "{html}");
    assert!(Arc::ptr_eq(home.rendered().unwrap(), &first));

    // A change no line shows (a component's name) keeps the home and its rendering.
    let (web, mail) = (
        beta.components[0].to_string(),
        beta.components[1].to_string(),
    );
    let (status, body) = api
        .patch(
            &format!("/pages/beta/components/{web}"),
            json!({"name": "Website"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let kept = app.site.snapshot().home.clone();
    assert!(Arc::ptr_eq(&kept, &home), "the same home");
    assert!(Arc::ptr_eq(kept.rendered().unwrap(), &first));

    // A change a line shows (the page's status) makes a new home, rendered on its next read.
    let (status, body) = api
        .patch(
            &format!("/pages/beta/components/{mail}"),
            json!({"status": "major_outage"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.refreshed().await;
    let next = app.site.snapshot().home.clone();
    assert!(!Arc::ptr_eq(&next, &home));
    assert!(next.rendered().is_none());
    let html = next.render(&app.site).await.unwrap();
    let html = String::from_utf8_lossy(&html.identity).into_owned();
    let beta_at = html.find(r#"href="/status/beta""#).unwrap();
    let alpha_at = html.find(r#"href="/status/alpha""#).unwrap();
    assert!(alpha_at < beta_at, "by name");
    assert!(
        html[alpha_at..beta_at].contains("All Systems Operational"),
        "{html}"
    );
    assert!(html[beta_at..].contains("Major System Outage"), "{html}");
    assert!(
        !html[beta_at..].contains("All Systems Operational"),
        "{html}"
    );
}

/// The refresher reads only the pages the site's counter names as moved since its last pass,
/// and counts the pages to notice one removed: the counter moves for a page added, changed or
/// removed, by Herald or by hand, and names only the pages that moved.
async fn the_site_counter_names_the_pages_that_moved_and_counts_pages_added_and_removed(
    db: TestDb,
) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let acme = app.page("acme").with_components(&["API"]).create().await;
    let (start, _, pages) = site(&app, 0).await;

    let other = app.page("other").with_components(&["Web"]).create().await;
    let (added, named, count) = site(&app, start).await;
    assert!(added > start, "a page added moves the counter");
    assert_eq!(
        named,
        vec![other.id.clone()],
        "only the page added is named"
    );
    assert_eq!(count, pages + 1);
    assert!(
        site(&app, added).await.1.is_empty(),
        "nothing moved since: a pass reads no page"
    );

    let (status, _) = app
        .api(&owner)
        .patch(
            &format!("/pages/acme/components/{}", acme.components[0]),
            json!({"status": "major_outage"}),
        )
        .await;
    assert_eq!(status, 200);
    let (changed, named, _) = site(&app, added).await;
    assert!(changed > added);
    assert_eq!(named, vec![acme.id.clone()], "a write names its page only");

    let (status, body) = app.api(&owner).delete("/pages/other").await;
    assert_eq!(status, 200, "{body}");
    let (removed, named, count) = site(&app, changed).await;
    assert!(removed > changed, "a page removed moves the counter");
    assert!(named.is_empty(), "a removed page has no row to name");
    assert_eq!(count, pages, "the count tells the refresher a page is gone");

    // And the refresher, reading only what moved, drops the removed page and shows the write.
    app.refreshed().await;
    assert_eq!(app.get("/status/other").await.status(), 404);
    let summary: Value = app
        .get("/status/acme/api/v2/summary.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(summary["components"][0]["status"], "major_outage");
}
