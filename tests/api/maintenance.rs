//! Automatic maintenances start and complete at their window's edges.

use chrono::{Duration, Utc};
use herald::domain::{ComponentStatus, MaintenanceStatus};
use herald::services::{components, incidents, maintenance, pages};

use crate::helpers::{TestApp, TestDb};

on_both_backends!(an_automatic_maintenance_starts_and_completes_at_its_window_edges);

async fn an_automatic_maintenance_starts_and_completes_at_its_window_edges(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let input: pages::NewPageInput =
        serde_json::from_value(serde_json::json!({"slug": "acme", "name": "Acme"})).unwrap();
    let page = app
        .db
        .run(move |c| pages::create_page(c, &input))
        .await
        .unwrap()
        .id;
    let new: components::NewComponentInput =
        serde_json::from_value(serde_json::json!({"name": "Database"})).unwrap();
    let page_id = page.clone();
    let database = app
        .db
        .run(move |c| components::create_component(c, &page_id, &new))
        .await
        .unwrap()
        .id;
    let start = Utc::now() + Duration::minutes(10);
    let open: incidents::OpenIncidentInput = serde_json::from_value(serde_json::json!({
        "name": "Database upgrade", "body": "Upgrading.", "kind": "maintenance", "auto_transition": true,
        "scheduled_for": start, "scheduled_until": start + Duration::hours(1),
        "components": {database.clone(): "under_maintenance"},
    }))
    .unwrap();
    let page_id = page.clone();
    let id = app
        .db
        .run(move |c| incidents::open_incident(c, &page_id, &open, None, Utc::now()))
        .await
        .unwrap()
        .incident
        .id;
    let status = |app: &TestApp| {
        let (db, id) = (app.db.clone(), id.clone());
        async move {
            db.run(move |c| incidents::get_incident(c, &id))
                .await
                .unwrap()
                .status
        }
    };
    let component = |app: &TestApp| {
        let (db, id) = (app.db.clone(), database.clone());
        async move {
            db.run(move |c| components::get_component(c, &id))
                .await
                .unwrap()
                .status
        }
    };
    let steps = app
        .db
        .run(|c| maintenance::advance_due(c, Utc::now()))
        .await
        .unwrap();
    assert!(steps.is_empty(), "nothing moves before the window");
    let steps = app
        .db
        .run(move |c| maintenance::advance_due(c, start))
        .await
        .unwrap();
    assert_eq!(steps, [(id.clone(), MaintenanceStatus::InProgress)]);
    assert_eq!(status(&app).await, MaintenanceStatus::InProgress.into());
    assert_eq!(component(&app).await, ComponentStatus::UnderMaintenance);
    let again = app
        .db
        .run(move |c| maintenance::advance_due(c, start))
        .await
        .unwrap();
    assert!(
        again.is_empty(),
        "a maintenance already moved is not moved twice"
    );
    let end = start + Duration::hours(1);
    let steps = app
        .db
        .run(move |c| maintenance::advance_due(c, end))
        .await
        .unwrap();
    assert_eq!(steps, [(id.clone(), MaintenanceStatus::Completed)]);
    assert_eq!(status(&app).await, MaintenanceStatus::Completed.into());
    assert_eq!(component(&app).await, ComponentStatus::Operational);
}
