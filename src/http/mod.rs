//! The route table and the middleware every request goes through.

pub mod health;
pub mod middleware;

use actix_web::web;

/// Registers every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", web::get().to(health::healthz))
        .route("/readyz", web::get().to(health::readyz))
        .route("/metrics", web::get().to(health::metrics));
}
