//! Liveness, readiness and metrics: what load balancers and Prometheus ask.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::db::migrations;
use crate::state::AppState;

/// 200 while the process lives.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({"status": "ok"}))
}

/// 200 only when the database answers, every migration is applied and every public page has
/// been rendered once (until then, `warming`: Herald serves, a page not rendered yet is
/// rendered when asked for, but a load balancer had better send readers elsewhere); 503 from
/// the moment shutdown begins, without touching the database.
#[tracing::instrument(skip_all)]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    if state.drain.is_draining() {
        return not_ready("shutting_down");
    }
    // A hung database must not hang the probe: it answers within 4 s whatever happens.
    let started = std::time::Instant::now();
    let limit = std::time::Duration::from_secs(4);
    match state
        .db
        .run_within(limit, |c| Ok(migrations::pending_count(c)?))
        .await
    {
        // Not every page rendered yet (start-up, or a first pass the database failed): a
        // pass is asked for, and waited for within what is left of the bound (2 s at most).
        Ok(0)
            if !state
                .site
                .warmed(limit.saturating_sub(started.elapsed()).min(WARM_WAIT))
                .await =>
        {
            not_ready("warming")
        }
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

/// How long `/readyz` waits for the pages to be rendered before it answers `warming`.
const WARM_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

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
    metrics::gauge!("herald_db_callers").set(state.db.in_use() as f64);
    metrics::gauge!("herald_support_spool_bytes").set(state.support.spool.size() as f64);
    // Figures read from the database, within a short bound: a scrape during an outage still
    // answers, with the figures it can get.
    let limit = std::time::Duration::from_secs(2);
    let figures = state
        .db
        .run_within(limit, |c| {
            let now = crate::db::now();
            let pending = crate::services::deliveries::pending_by_channel(c)?;
            let overdue = crate::services::deadlines::overdue_count(c, now)?;
            Ok((now, pending, overdue))
        })
        .await;
    match figures {
        Ok((now, pending, overdue)) => {
            for channel in ["email", "webhook"] {
                let (count, oldest) = pending
                    .iter()
                    .find(|(c, _, _)| c == channel)
                    .map_or((0, None), |(_, n, oldest)| (*n, *oldest));
                let age = oldest.map_or(0.0, |t| (now - t).num_milliseconds().max(0) as f64 / 1e3);
                metrics::gauge!("herald_deliveries_pending", "channel" => channel)
                    .set(count as f64);
                metrics::gauge!("herald_deliveries_oldest_pending_seconds", "channel" => channel)
                    .set(age);
            }
            metrics::gauge!("herald_incidents_overdue_updates").set(overdue as f64);
        }
        Err(e) => tracing::debug!(error = %e, "metrics: database figures skipped"),
    }
    HttpResponse::Ok()
        .insert_header((
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(state.metrics.render())
}
