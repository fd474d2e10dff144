//! The JSON API under `/api/v1`: pages, components and groups, incidents and their updates,
//! maintenances, postmortems, incident templates and the audit log, described by the OpenAPI
//! document at `/api/v1/openapi.json`.
//!
//! Every route is listed once, in [`api_routes!`]'s invocation below: the same list registers
//! the handlers and is what the OpenAPI test compares the document with.

mod audit;
pub mod body;
mod components;
mod images;
mod imports;
mod incidents;
mod integrations;
mod mirrors;
mod openapi;
mod pages;
mod postmortems;
pub mod query;
mod read_tokens;
pub mod run;
mod subscribers;
mod support;
mod templates;
pub mod tokens;
pub mod views;

use actix_web::middleware::Compress;
use actix_web::web;

/// The path prefix of the API.
pub const PREFIX: &str = "/api/v1";

/// The largest request body accepted, in bytes.
pub const BODY_LIMIT: usize = 256 * 1024;

/// Declares the route list once: `ROUTES` (method, path) and the registration of each handler.
macro_rules! api_routes {
    ($($method:ident $path:literal => $handler:path),* $(,)?) => {
        /// Every route of the API: lower-case method and path below [`PREFIX`].
        pub const ROUTES: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        fn register(scope: actix_web::Scope) -> actix_web::Scope {
            scope$(.route($path, web::$method().to($handler)))*
        }
    };
}

api_routes! {
    get "/openapi.json" => openapi::get_openapi,
    get "/audit" => audit::list_audit,
    post "/pages" => pages::create_page,
    get "/pages" => pages::list_pages,
    get "/pages/{slug}" => pages::get_page,
    patch "/pages/{slug}" => pages::update_page,
    delete "/pages/{slug}" => pages::delete_page,
    post "/pages/{slug}/read-tokens" => read_tokens::create,
    get "/pages/{slug}/read-tokens" => read_tokens::list,
    delete "/pages/{slug}/read-tokens/{id}" => read_tokens::delete,
    put "/pages/{slug}/logo" => images::put_logo,
    get "/pages/{slug}/logo" => images::get_logo,
    delete "/pages/{slug}/logo" => images::delete_logo,
    put "/pages/{slug}/favicon" => images::put_favicon,
    get "/pages/{slug}/favicon" => images::get_favicon,
    delete "/pages/{slug}/favicon" => images::delete_favicon,
    post "/pages/{slug}/components" => components::create_component,
    get "/pages/{slug}/components" => components::list_components,
    patch "/pages/{slug}/components/{id}" => components::update_component,
    delete "/pages/{slug}/components/{id}" => components::delete_component,
    post "/pages/{slug}/component-groups" => components::create_group,
    get "/pages/{slug}/component-groups" => components::list_groups,
    patch "/pages/{slug}/component-groups/{id}" => components::update_group,
    delete "/pages/{slug}/component-groups/{id}" => components::delete_group,
    post "/pages/{slug}/incidents" => incidents::create_incident,
    get "/pages/{slug}/incidents" => incidents::list_incidents,
    get "/pages/{slug}/incidents/{id}" => incidents::get_incident,
    get "/pages/{slug}/punctuality" => incidents::get_punctuality,
    patch "/pages/{slug}/incidents/{id}" => incidents::update_incident,
    post "/pages/{slug}/incidents/{id}/updates" => incidents::post_update,
    post "/pages/{slug}/maintenances" => incidents::create_maintenance,
    get "/pages/{slug}/maintenances" => incidents::list_maintenances,
    patch "/pages/{slug}/maintenances/{id}" => incidents::update_maintenance,
    get "/pages/{slug}/incidents/{id}/postmortem" => postmortems::get_postmortem,
    put "/pages/{slug}/incidents/{id}/postmortem" => postmortems::save_postmortem,
    post "/pages/{slug}/incidents/{id}/postmortem/publish" => postmortems::publish_postmortem,
    post "/pages/{slug}/templates" => templates::create_template,
    get "/pages/{slug}/templates" => templates::list_templates,
    get "/pages/{slug}/templates/{id}" => templates::get_template,
    patch "/pages/{slug}/templates/{id}" => templates::update_template,
    delete "/pages/{slug}/templates/{id}" => templates::delete_template,
    get "/pages/{slug}/subscribers/export" => subscribers::export_subscribers,
    post "/pages/{slug}/subscribers" => subscribers::create_subscriber,
    get "/pages/{slug}/subscribers" => subscribers::list_subscribers,
    delete "/pages/{slug}/subscribers/{id}" => subscribers::delete_subscriber,
    get "/pages/{slug}/deliveries" => subscribers::list_deliveries,
    get "/subscribers" => subscribers::held,
    delete "/subscribers" => subscribers::forget,
    post "/pages/{slug}/deliveries/{id}/retry" => subscribers::retry_delivery,
    get "/pages/{slug}/support" => support::list_submissions,
    patch "/pages/{slug}/support/{id}" => support::update_submission,
    post "/pages/{slug}/integrations" => integrations::create_integration,
    get "/pages/{slug}/integrations" => integrations::list_integrations,
    get "/pages/{slug}/integrations/{id}" => integrations::get_integration,
    patch "/pages/{slug}/integrations/{id}" => integrations::update_integration,
    delete "/pages/{slug}/integrations/{id}" => integrations::delete_integration,
    post "/pages/{slug}/integrations/{id}/token" => integrations::rotate_token,
    post "/pages/{slug}/integrations/{id}/alertmanager" => integrations::alerts,
    post "/pages/{slug}/integrations/{id}/grafana" => integrations::alerts,
    post "/pages/{slug}/integrations/{id}/generic" => integrations::alerts,
    get "/pages/{slug}/incident-drafts" => integrations::list_drafts,
    post "/pages/{slug}/incident-drafts/{id}/publish" => integrations::publish_draft,
    delete "/pages/{slug}/incident-drafts/{id}" => integrations::dismiss_draft,
    post "/pages/{slug}/mirrors" => mirrors::follow,
    get "/pages/{slug}/mirrors" => mirrors::list,
    get "/pages/{slug}/mirrors/{component_id}" => mirrors::get,
    delete "/pages/{slug}/mirrors/{component_id}" => mirrors::unfollow,
    post "/imports/statuspage" => imports::import_statuspage,
    post "/imports/subscribers" => imports::import_subscribers,
}

/// Routes under [`PREFIX`] that `crate::auth` registers (the caller and API tokens); the
/// OpenAPI document describes them too.
pub const AUTH_ROUTES: &[(&str, &str)] = &[
    ("get", "/me"),
    ("get", "/tokens"),
    ("post", "/tokens"),
    ("delete", "/tokens/{id}"),
];

/// Registers the API scope with its JSON limits and error shape, compressed.
pub fn routes(cfg: &mut web::ServiceConfig) {
    let scope = register(web::scope(PREFIX))
        .app_data(body::json_config())
        .app_data(body::query_config())
        .default_service(web::to(body::not_found))
        .wrap(Compress::default());
    cfg.service(scope);
}
