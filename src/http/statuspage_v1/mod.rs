//! Statuspage's manage API (v1) on Herald, under `/v1`, as Atlassian's OpenAPI document
//! describes it: scripts, bots and clients written for Statuspage drive Herald by changing
//! their base URL. It is a translation over the same use cases as `/api/v1` (Herald's own API,
//! unchanged): the same tokens, roles, audit and writes.
//!
//! - `request`: the caller (`Authorization: OAuth <key>` or `Bearer`, or `?api_key=`), the
//!   page by id or slug, and bodies in JSON or forms (`incident[name]=...`).
//! - `error`: refusals as the document's `ErrorEntity`.
//! - `views`: Herald's records as Statuspage's objects.
//! - One module per resource; `unsupported` answers what Herald does not have yet.
//!
//! Every path is also served with `.json` at its end, as Statuspage serves it.

mod components;
mod embed;
mod error;
mod flex;
mod incidents;
mod pages;
mod postmortems;
mod request;
mod subscribers;
mod templates;
mod unsupported;
mod views;

use actix_web::{HttpRequest, web};

pub use error::{V1Error, V1Result};

/// The path prefix of the API.
pub const PREFIX: &str = "/v1";

/// Declares the route list once: the registration of each handler, each path with and without
/// `.json` (the `.json` paths first, so that `{id}` does not take `id.json` whole).
macro_rules! v1_routes {
    ($($method:ident $path:literal => $handler:path),* $(,)?) => {
        fn register(scope: actix_web::Scope) -> actix_web::Scope {
            scope
                $(.route(concat!($path, ".json"), web::$method().to($handler)))*
                $(.route($path, web::$method().to($handler)))*
        }
    };
}

v1_routes! {
    get "/pages" => pages::list,
    get "/pages/{page_id}" => pages::get,
    patch "/pages/{page_id}" => pages::update,
    put "/pages/{page_id}" => pages::update,

    get "/pages/{page_id}/status_embed_config" => embed::get,
    patch "/pages/{page_id}/status_embed_config" => embed::update,
    put "/pages/{page_id}/status_embed_config" => embed::update,

    get "/pages/{page_id}/components" => components::list,
    post "/pages/{page_id}/components" => components::create,
    get "/pages/{page_id}/components/{component_id}" => components::get,
    patch "/pages/{page_id}/components/{component_id}" => components::update,
    put "/pages/{page_id}/components/{component_id}" => components::update,
    delete "/pages/{page_id}/components/{component_id}" => components::delete,
    get "/pages/{page_id}/components/{component_id}/uptime" => components::uptime,
    post "/pages/{page_id}/components/{component_id}/page_access_users" => unsupported::page_access,
    delete "/pages/{page_id}/components/{component_id}/page_access_users" => unsupported::page_access,
    post "/pages/{page_id}/components/{component_id}/page_access_groups" => unsupported::page_access,
    delete "/pages/{page_id}/components/{component_id}/page_access_groups" => unsupported::page_access,

    get "/pages/{page_id}/component-groups" => components::list_groups,
    post "/pages/{page_id}/component-groups" => components::create_group,
    get "/pages/{page_id}/component-groups/{id}" => components::get_group,
    patch "/pages/{page_id}/component-groups/{id}" => components::update_group,
    put "/pages/{page_id}/component-groups/{id}" => components::update_group,
    delete "/pages/{page_id}/component-groups/{id}" => components::delete_group,
    get "/pages/{page_id}/component-groups/{id}/uptime" => components::group_uptime,

    get "/pages/{page_id}/incidents/unresolved" => incidents::unresolved,
    get "/pages/{page_id}/incidents/scheduled" => incidents::scheduled,
    get "/pages/{page_id}/incidents/upcoming" => incidents::upcoming,
    get "/pages/{page_id}/incidents/active_maintenance" => incidents::active_maintenance,
    get "/pages/{page_id}/incidents" => incidents::list,
    post "/pages/{page_id}/incidents" => incidents::create,
    get "/pages/{page_id}/incidents/{incident_id}" => incidents::get,
    patch "/pages/{page_id}/incidents/{incident_id}" => incidents::update,
    put "/pages/{page_id}/incidents/{incident_id}" => incidents::update,
    delete "/pages/{page_id}/incidents/{incident_id}" => incidents::delete,
    patch "/pages/{page_id}/incidents/{incident_id}/incident_updates/{incident_update_id}" => incidents::edit_update,
    put "/pages/{page_id}/incidents/{incident_id}/incident_updates/{incident_update_id}" => incidents::edit_update,
    // atlassian-python-api's spelling of the path above.
    patch "/pages/{page_id}/incidents/{incident_id}/incidents_update/{incident_update_id}" => incidents::edit_update,

    get "/pages/{page_id}/incidents/{incident_id}/postmortem" => postmortems::get,
    put "/pages/{page_id}/incidents/{incident_id}/postmortem" => postmortems::put,
    post "/pages/{page_id}/incidents/{incident_id}/postmortem" => postmortems::put,
    delete "/pages/{page_id}/incidents/{incident_id}/postmortem" => postmortems::delete,
    put "/pages/{page_id}/incidents/{incident_id}/postmortem/publish" => postmortems::publish,
    post "/pages/{page_id}/incidents/{incident_id}/postmortem/publish" => postmortems::publish,
    put "/pages/{page_id}/incidents/{incident_id}/postmortem/revert" => postmortems::revert,
    post "/pages/{page_id}/incidents/{incident_id}/postmortem/revert" => postmortems::revert,

    get "/pages/{page_id}/incidents/{incident_id}/subscribers" => subscribers::of_incident,
    post "/pages/{page_id}/incidents/{incident_id}/subscribers" => subscribers::incident_subscription,
    get "/pages/{page_id}/incidents/{incident_id}/subscribers/{subscriber_id}" => subscribers::of_incident_one,
    delete "/pages/{page_id}/incidents/{incident_id}/subscribers/{subscriber_id}" => subscribers::incident_subscription,
    post "/pages/{page_id}/incidents/{incident_id}/subscribers/{subscriber_id}/resend_confirmation" => subscribers::incident_subscription,

    post "/pages/{page_id}/subscribers/resend_confirmation" => subscribers::resend_many,
    post "/pages/{page_id}/subscribers/unsubscribe" => subscribers::unsubscribe_many,
    post "/pages/{page_id}/subscribers/reactivate" => subscribers::reactivate,
    get "/pages/{page_id}/subscribers/histogram_by_state" => subscribers::histogram,
    // atlassian-python-api's paths for the two below.
    get "/pages/{page_id}/subscribers/histogram" => subscribers::histogram,
    get "/pages/{page_id}/unsubscribed" => subscribers::unsubscribed,
    get "/pages/{page_id}/subscribers/count" => subscribers::count,
    get "/pages/{page_id}/subscribers/unsubscribed" => subscribers::unsubscribed,
    get "/pages/{page_id}/subscribers" => subscribers::list,
    post "/pages/{page_id}/subscribers" => subscribers::create,
    get "/pages/{page_id}/subscribers/{subscriber_id}" => subscribers::get,
    patch "/pages/{page_id}/subscribers/{subscriber_id}" => subscribers::update,
    delete "/pages/{page_id}/subscribers/{subscriber_id}" => subscribers::delete,
    post "/pages/{page_id}/subscribers/{subscriber_id}/resend_confirmation" => subscribers::resend_one,

    get "/pages/{page_id}/incident_templates" => templates::list,
    post "/pages/{page_id}/incident_templates" => templates::create,

    get "/pages/{page_id}/page_access_users" => unsupported::page_access,
    post "/pages/{page_id}/page_access_users" => unsupported::page_access,
    get "/pages/{page_id}/page_access_users/{a}" => unsupported::page_access,
    patch "/pages/{page_id}/page_access_users/{a}" => unsupported::page_access,
    put "/pages/{page_id}/page_access_users/{a}" => unsupported::page_access,
    delete "/pages/{page_id}/page_access_users/{a}" => unsupported::page_access,
    get "/pages/{page_id}/page_access_users/{a}/{b}" => unsupported::page_access,
    post "/pages/{page_id}/page_access_users/{a}/{b}" => unsupported::page_access,
    patch "/pages/{page_id}/page_access_users/{a}/{b}" => unsupported::page_access,
    put "/pages/{page_id}/page_access_users/{a}/{b}" => unsupported::page_access,
    delete "/pages/{page_id}/page_access_users/{a}/{b}" => unsupported::page_access,
    delete "/pages/{page_id}/page_access_users/{a}/{b}/{c}" => unsupported::page_access,
    get "/pages/{page_id}/page_access_groups" => unsupported::page_access,
    post "/pages/{page_id}/page_access_groups" => unsupported::page_access,
    get "/pages/{page_id}/page_access_groups/{a}" => unsupported::page_access,
    patch "/pages/{page_id}/page_access_groups/{a}" => unsupported::page_access,
    put "/pages/{page_id}/page_access_groups/{a}" => unsupported::page_access,
    delete "/pages/{page_id}/page_access_groups/{a}" => unsupported::page_access,
    get "/pages/{page_id}/page_access_groups/{a}/{b}" => unsupported::page_access,
    post "/pages/{page_id}/page_access_groups/{a}/{b}" => unsupported::page_access,
    patch "/pages/{page_id}/page_access_groups/{a}/{b}" => unsupported::page_access,
    put "/pages/{page_id}/page_access_groups/{a}/{b}" => unsupported::page_access,
    delete "/pages/{page_id}/page_access_groups/{a}/{b}" => unsupported::page_access,
    delete "/pages/{page_id}/page_access_groups/{a}/{b}/{c}" => unsupported::page_access,

    post "/pages/{page_id}/metrics/data" => unsupported::metrics,
    get "/pages/{page_id}/metrics" => unsupported::metrics,
    get "/pages/{page_id}/metrics/{a}" => unsupported::metrics,
    patch "/pages/{page_id}/metrics/{a}" => unsupported::metrics,
    put "/pages/{page_id}/metrics/{a}" => unsupported::metrics,
    delete "/pages/{page_id}/metrics/{a}" => unsupported::metrics,
    post "/pages/{page_id}/metrics/{a}/data" => unsupported::metrics,
    delete "/pages/{page_id}/metrics/{a}/data" => unsupported::metrics,
    get "/pages/{page_id}/metrics_providers" => unsupported::metrics,
    post "/pages/{page_id}/metrics_providers" => unsupported::metrics,
    get "/pages/{page_id}/metrics_providers/{a}" => unsupported::metrics,
    patch "/pages/{page_id}/metrics_providers/{a}" => unsupported::metrics,
    put "/pages/{page_id}/metrics_providers/{a}" => unsupported::metrics,
    delete "/pages/{page_id}/metrics_providers/{a}" => unsupported::metrics,
    get "/pages/{page_id}/metrics_providers/{a}/metrics" => unsupported::metrics,
    post "/pages/{page_id}/metrics_providers/{a}/metrics" => unsupported::metrics,

    get "/organizations/{organization_id}/users" => unsupported::organization,
    post "/organizations/{organization_id}/users" => unsupported::organization,
    delete "/organizations/{organization_id}/users/{user_id}" => unsupported::organization,
    get "/organizations/{organization_id}/permissions/{user_id}" => unsupported::organization,
    put "/organizations/{organization_id}/permissions/{user_id}" => unsupported::organization,
    patch "/organizations/{organization_id}/permissions/{user_id}" => unsupported::organization,
}

/// Registers the `/v1` scope; a path it does not know is a 404 in its error shape.
pub fn routes(cfg: &mut web::ServiceConfig) {
    let scope = register(web::scope(PREFIX)).default_service(web::to(not_found));
    cfg.service(scope);
}

async fn not_found(req: HttpRequest) -> V1Result<actix_web::HttpResponse> {
    Err(crate::error::AppError::NotFound(format!(
        "route {} {} (Herald's Statuspage API: see the README's \"Statuspage API\")",
        req.method(),
        req.path()
    ))
    .into())
}
