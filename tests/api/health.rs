//! Liveness, readiness and metrics.

use crate::helpers::{TestApp, TestDb};

on_both_backends!(
    health_and_readiness_answer_200_once_migrated,
    metrics_count_requests_by_route
);

async fn health_and_readiness_answer_200_once_migrated(db: TestDb) {
    let mut app = TestApp::spawn(db).await;
    let health = app.get("/healthz").await;
    assert_eq!(health.status(), 200);
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 200);
    assert!(
        ready.headers().contains_key("x-request-id"),
        "every response carries its request id"
    );
    let body: serde_json::Value = ready.json().await.unwrap();
    assert_eq!(body["status"], "ready");
    app.stop().await.unwrap();
}

async fn metrics_count_requests_by_route(db: TestDb) {
    let mut app = TestApp::spawn(db).await;
    for _ in 0..3 {
        app.get("/healthz").await;
    }
    app.get("/no/such/page/42").await;
    let text = app.get("/metrics").await.text().await.unwrap();
    assert!(
        text.contains(r#"herald_http_requests_total{method="GET",route="/healthz",status="200"}"#),
        "{text}"
    );
    assert!(
        text.contains(r#"route="unmatched",status="404""#),
        "raw paths never become labels: {text}"
    );
    assert!(!text.contains("/no/such/page"), "{text}");
    assert!(
        text.contains("herald_http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(
        text.contains("herald_db_pool_max_connections 4")
            || text.contains("herald_db_pool_max_connections"),
        "{text}"
    );
    app.stop().await.unwrap();
}
