//! Liveness, readiness and metrics: what load balancers and Prometheus ask.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::db::migrations;
use crate::startup::AppState;

/// 200 while the process lives.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({"status": "ok"}))
}

/// 200 only when the database answers and every migration is applied; 503 from the moment
/// shutdown begins, without touching the database.
#[tracing::instrument(skip_all)]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    if state.lifecycle.is_draining() {
        return not_ready("shutting_down");
    }
    match state.db.run(|c| Ok(migrations::pending_count(c)?)).await {
        Ok(0) => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(json!({"status": "ready"})),
        Ok(_) => not_ready("migrations_pending"),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            not_ready("database_unavailable")
        }
    }
}

fn not_ready(reason: &str) -> HttpResponse {
    HttpResponse::ServiceUnavailable()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::RETRY_AFTER, "5"))
        .json(json!({"status": reason}))
}

/// The routes of the metrics listener (`HERALD_METRICS_BIND`): `/metrics` alone.
pub fn metrics_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/metrics")
            .wrap(actix_web::middleware::Compress::default())
            .route(web::get().to(metrics)),
    );
}

/// Prometheus text format: request counts and latencies by route, pool use, jobs.
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let (open, idle, max) = state.db.pool_state();
    metrics::gauge!("herald_db_pool_connections").set(f64::from(open));
    metrics::gauge!("herald_db_pool_idle_connections").set(f64::from(idle));
    metrics::gauge!("herald_db_pool_in_use_connections").set(f64::from(open.saturating_sub(idle)));
    metrics::gauge!("herald_db_pool_max_connections").set(f64::from(max));
    HttpResponse::Ok()
        .insert_header((
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(state.metrics.render())
}
