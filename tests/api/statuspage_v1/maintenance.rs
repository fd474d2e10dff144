//! A maintenance's switches, as Statuspage's clients set them, followed by Herald's clock: a
//! maintenance that starts by itself without touching its components or telling anyone, and
//! is not completed by itself nor announced an hour before.

use chrono::{Duration, Utc};
use herald::domain::Role;
use herald::services::maintenance;
use serde_json::json;

use super::{Body, v1};
use crate::helpers::{TestApp, TestDb};

on_both_backends!(a_maintenances_switches_turn_each_automatic_step_off_or_on);

async fn a_maintenances_switches_turn_each_automatic_step_off_or_on(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.token(Role::Owner).await;
    let page = app
        .page("acme")
        .with_components(&["API"])
        .through_api(&owner)
        .create()
        .await;
    let api = page.components[0].as_str().to_owned();
    let start = Utc::now() + Duration::minutes(30);
    let end = start + Duration::hours(1);
    let body = json!({"incident": {
        "name": "Quiet upgrade",
        "status": "scheduled",
        "scheduled_for": start.to_rfc3339(),
        "scheduled_until": end.to_rfc3339(),
        "component_ids": [api],
        "scheduled_auto_in_progress": true,
        "scheduled_auto_completed": false,
        "scheduled_remind_prior": false,
        "auto_transition_to_maintenance_state": false,
        "auto_transition_deliver_notifications_at_start": false,
    }});
    let (status, made) = v1(
        &app,
        "POST",
        "/pages/acme/incidents",
        &owner,
        Some(Body::Json(body)),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_owned();
    for (switch, on) in [
        ("scheduled_auto_in_progress", true),
        ("scheduled_auto_completed", false),
        ("scheduled_remind_prior", false),
        ("auto_transition_to_maintenance_state", false),
        ("auto_transition_to_operational_state", true),
        ("auto_transition_deliver_notifications_at_start", false),
        ("auto_transition_deliver_notifications_at_end", true),
    ] {
        assert_eq!(made[switch], on, "{switch}: {made}");
    }

    // No reminder within the hour before it (the clock runs at a time inside that hour).
    let before = start - Duration::minutes(10);
    app.db
        .run(move |c| maintenance::advance_due(c, before))
        .await
        .unwrap();
    let reminded = app
        .db
        .run(|c| {
            use diesel::prelude::*;
            use herald::db::schema::notification_events::dsl::*;
            Ok::<i64, herald::error::AppError>(
                notification_events
                    .filter(kind.eq("maintenance.starting_soon"))
                    .count()
                    .get_result(c)?,
            )
        })
        .await
        .unwrap();
    assert_eq!(reminded, 0, "its reminder is off");

    // It starts by itself, its component left as it was, told to nobody.
    let steps = app
        .db
        .run(move |c| maintenance::advance_due(c, start))
        .await
        .unwrap();
    assert_eq!(steps.len(), 1);
    let path = format!("/pages/acme/incidents/{id}");
    let (_, started) = v1(&app, "GET", &path, &owner, None).await;
    assert_eq!(started["status"], "in_progress");
    assert_eq!(
        started["incident_updates"][0]["deliver_notifications"],
        false
    );
    let (_, component) = v1(
        &app,
        "GET",
        &format!("/pages/acme/components/{api}"),
        &owner,
        None,
    )
    .await;
    assert_eq!(component["status"], "operational", "left as it was");

    // It is not completed by itself; a responder completes it.
    let after = end + Duration::minutes(1);
    let steps = app
        .db
        .run(move |c| maintenance::advance_due(c, after))
        .await
        .unwrap();
    assert!(steps.is_empty(), "{steps:?}");
    let (_, still) = v1(&app, "GET", &path, &owner, None).await;
    assert_eq!(still["status"], "in_progress");

    // A switch turned on later takes effect: completing by itself.
    let on = json!({"incident": {"scheduled_auto_completed": true}});
    let (status, changed) = v1(&app, "PATCH", &path, &owner, Some(Body::Json(on))).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["scheduled_auto_completed"], true);
    let steps = app
        .db
        .run(move |c| maintenance::advance_due(c, after))
        .await
        .unwrap();
    assert_eq!(steps.len(), 1);
    let (_, done) = v1(&app, "GET", &path, &owner, None).await;
    assert_eq!(done["status"], "completed");
}
