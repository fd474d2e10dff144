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

#[tokio::test]
async fn by_default_metrics_are_served_nowhere_and_the_public_listener_says_404() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    assert!(app.metrics_address.is_none());
    let res = app.get("/metrics").await;
    assert_eq!(res.status(), 404);
    let body = res.text().await.unwrap();
    assert!(!body.contains("herald_http_requests_total"), "{body}");
}

async fn metrics_count_requests_by_route(db: TestDb) {
    let extra = [("HERALD_METRICS_BIND", "127.0.0.1:0")];
    let mut app = TestApp::spawn_with(db, &extra, herald::workers::Registry::standard()).await;
    for _ in 0..3 {
        app.get("/healthz").await;
    }
    app.get("/no/such/page/42").await;
    assert_eq!(
        app.get("/metrics").await.status(),
        404,
        "never on the public listener"
    );
    let metrics = app.metrics_address.clone().expect("a metrics listener");
    let res = app
        .client
        .get(format!("{metrics}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
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
    for figure in [
        r#"herald_deliveries_pending{channel="email"}"#,
        r#"herald_deliveries_pending{channel="webhook"}"#,
        r#"herald_deliveries_oldest_pending_seconds{channel="webhook"}"#,
        "herald_incidents_overdue_updates ",
        "herald_support_spool_bytes ",
        "herald_db_callers ",
        "herald_db_checkout_seconds",
    ] {
        assert!(text.contains(figure), "{figure} missing: {text}");
    }
    // The test settings' pool (HERALD_DB_POOL_SIZE=4).
    assert!(
        text.lines()
            .any(|l| l == "herald_db_pool_max_connections 4"),
        "{text}"
    );
    app.stop().await.unwrap();
}
