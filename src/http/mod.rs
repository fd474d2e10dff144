//! The route table and the middleware every request goes through.

/// The value of a lookup that may have answered the request itself (a `Result<T,
/// HttpResponse>`, such as a restricted page's refusal): its value, or the handler returns
/// that answer.
macro_rules! or_answer {
    ($lookup:expr) => {
        match $lookup {
            Ok(found) => found,
            Err(answer) => return Ok(answer),
        }
    };
}

pub mod access;
pub mod admin;
pub mod api;
pub mod auth;
pub mod committed;
pub mod connections;
pub mod error_page;
pub mod health;
pub mod middleware;
pub mod public;
pub mod read_path;
pub mod request_span;
pub mod statuspage_v1;
pub mod subscribers;
pub mod support;

/// The Content-Security-Policy of every HTML answer (one policy, the render's).
pub use crate::render::representation::CSP;

use actix_web::web;

/// Registers every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", web::get().to(health::healthz))
        .route("/readyz", web::get().to(health::readyz))
        // The public pages, read hardest during an outage, never reach the router: the
        // outermost middleware answers them (`read_path`). Routes are tried in order and each
        // dynamic one is a regex match: sign-in comes first (a flood of attempts is answered
        // after as few as possible), the console and API after.
        .configure(api::tokens::routes)
        .configure(auth::login::routes)
        .configure(access::routes)
        .configure(support::routes)
        .configure(subscribers::routes)
        .configure(admin::routes)
        .configure(api::routes)
        .configure(statuspage_v1::routes);
}
