//! The JSON API under `/api/v1`: roles, validation, idempotent retries, an incident's full life
//! reflected on the public API, the audit log and the OpenAPI document.

mod access;
mod audit;
mod components;
mod incidents;
mod validation;

use herald::domain::Role;

use crate::helpers::TestApp;

/// A user of each role with an API token, and a page `acme` made through the API by the owner
/// with the components API and Website. Requests go through the shared client:
/// `api.app.api(&api.owner).post(...)`.
pub struct Api {
    pub app: TestApp,
    pub owner: String,
    pub responder: String,
    pub viewer: String,
    pub components: Vec<herald::domain::ComponentId>,
}

impl Api {
    /// Spawns the app, makes the users and a page `acme` (as the owner) with components.
    pub async fn spawn(db: crate::helpers::TestDb) -> Self {
        let app = TestApp::spawn(db).await;
        let owner = app.token(Role::Owner).await;
        let responder = app.token(Role::Responder).await;
        let viewer = app.token(Role::Viewer).await;
        let page = app
            .page("acme")
            .with_components(&["API", "Website"])
            .through_api(&owner)
            .create()
            .await;
        Self {
            app,
            owner,
            responder,
            viewer,
            components: page.components,
        }
    }
}
