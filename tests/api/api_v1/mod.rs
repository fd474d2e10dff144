//! The JSON API under `/api/v1`: roles, validation, idempotent retries, an incident's full life
//! reflected on the public API, the audit log and the OpenAPI document.

mod access;
mod audit;
mod components;
mod incidents;
mod validation;

use herald::domain::{EmailAddress, Role};
use serde_json::{Value, json};

use crate::helpers::TestApp;

/// A user of each role with an API token, and a page with two components.
pub struct Api {
    pub app: TestApp,
    pub owner: String,
    pub responder: String,
    pub viewer: String,
    pub components: Vec<String>,
}

impl Api {
    /// Spawns the app, makes the users and a page `acme` (as the owner) with components.
    pub async fn spawn(db: crate::helpers::TestDb) -> Self {
        let app = TestApp::spawn(db).await;
        let owner = token(&app, "owner@example.com", Role::Owner).await;
        let responder = token(&app, "responder@example.com", Role::Responder).await;
        let viewer = token(&app, "viewer@example.com", Role::Viewer).await;
        let mut api = Self {
            app,
            owner,
            responder,
            viewer,
            components: Vec::new(),
        };
        let page = json!({"slug": "acme", "name": "Acme"});
        let (status, _) = api
            .send("POST", "/pages", &api.owner.clone(), Some(page))
            .await;
        assert_eq!(status, 201);
        for name in ["API", "Website"] {
            let owner = api.owner.clone();
            let body = json!({"name": name});
            let (status, c) = api
                .send("POST", "/pages/acme/components", &owner, Some(body))
                .await;
            assert_eq!(status, 201, "{c}");
            api.components.push(c["id"].as_str().unwrap().to_owned());
        }
        api
    }

    /// Sends a request to `/api/v1{path}` with a bearer token (none when empty).
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.send_with(method, path, token, body, &[]).await
    }

    /// [`Api::send`] with extra headers.
    pub async fn send_with(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> (u16, Value) {
        let url = format!("{}/api/v1{path}", self.app.address);
        let mut req = self.app.client.request(method.parse().unwrap(), url);
        if !token.is_empty() {
            req = req.bearer_auth(token);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.expect("request");
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }
}

/// Creates a user with `role` and issues an API token for it.
async fn token(app: &TestApp, email: &str, role: Role) -> String {
    let email = EmailAddress::parse(email).unwrap();
    app.db
        .run(move |c| {
            let key = herald::secret::load_or_create(c, None)?;
            let user = herald::services::users::create_user(c, &email, role, "a long password 1")?;
            let issued = herald::services::auth::issue_token(c, key.expose(), &user, "test", 30)?;
            Ok(issued.secret)
        })
        .await
        .expect("token")
}
