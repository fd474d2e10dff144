//! The "next update by" discipline on real databases: overdue, due soon, punctuality.

use chrono::{Duration, Utc};
use herald::services::incidents::{self, OpenIncidentInput, PostUpdateInput};
use herald::services::{deadlines, pages};

use crate::helpers::{TestApp, TestDb};

on_both_backends!(overdue_due_soon_and_punctuality_follow_the_promises);

fn update(body: &str, due_in_minutes: i64, now: chrono::DateTime<Utc>) -> PostUpdateInput {
    serde_json::from_value(serde_json::json!({
        "body": body,
        "next_update_by": now + Duration::minutes(due_in_minutes),
    }))
    .unwrap()
}

async fn overdue_due_soon_and_punctuality_follow_the_promises(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let new_page: pages::NewPageInput =
        serde_json::from_value(serde_json::json!({"slug": "acme", "name": "Acme"})).unwrap();
    let page = app
        .db
        .run(move |c| pages::create_page(c, &new_page))
        .await
        .unwrap()
        .id;
    let start = Utc::now() - Duration::hours(5);
    // An incident whose first promise (30 min) was kept, whose second (60 min) was broken, and
    // whose third has passed without an update: overdue now.
    let input: OpenIncidentInput = serde_json::from_value(serde_json::json!({
        "name": "Slow dashboards", "body": "Looking.", "impact": "major",
        "next_update_by": start + Duration::minutes(30),
    }))
    .unwrap();
    let page_id = page.clone();
    let opened = app
        .db
        .run(move |c| incidents::open_incident(c, &page_id, &input, None, start))
        .await
        .unwrap();
    let id = opened.incident.id.clone();
    for (at, due) in [(20, 60), (130, 60)] {
        let (id, when) = (id.clone(), start + Duration::minutes(at));
        let input = update("Still looking.", due, when);
        app.db
            .run(move |c| incidents::post_update(c, &id, &input, None, when))
            .await
            .unwrap();
    }
    // Another incident, opened a minute ago, promising an update within 45 minutes.
    let fresh: OpenIncidentInput = serde_json::from_value(serde_json::json!({
        "name": "Webhook delays", "body": "Looking.", "impact": "minor",
        "next_update_by": Utc::now() + Duration::minutes(44),
    }))
    .unwrap();
    let page_id = page.clone();
    let one_minute_ago = Utc::now() - Duration::minutes(1);
    app.db
        .run(move |c| incidents::open_incident(c, &page_id, &fresh, None, one_minute_ago))
        .await
        .unwrap();
    let now = Utc::now();
    let page_id = page.clone();
    let overdue = app
        .db
        .run(move |c| deadlines::overdue(c, Some(&page_id), now))
        .await
        .unwrap();
    assert_eq!(
        overdue.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
        ["Slow dashboards"]
    );
    let soon = app
        .db
        .run(move |c| deadlines::due_within(c, 60, now))
        .await
        .unwrap();
    assert_eq!(
        soon.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
        ["Webhook delays"]
    );
    let none_soon = app
        .db
        .run(move |c| deadlines::due_within(c, 10, now))
        .await
        .unwrap();
    assert!(none_soon.is_empty());
    let score = app
        .db
        .run(move |c| deadlines::punctuality(c, &page, now))
        .await
        .unwrap();
    // Slow dashboards: the 30-min promise was met (update at 20), the one due at 80 was missed
    // (update at 130), and the one due at 190 has passed with no update. Webhook delays' promise
    // is not due yet.
    assert_eq!(score.last_30_days.met, 1, "{score:?}");
    assert_eq!(score.last_30_days.missed, 2, "{score:?}");
    assert_eq!(score.last_30_days, score.last_90_days);
    assert!((score.last_30_days.share().unwrap() - 1.0 / 3.0).abs() < 1e-9);
}
