//! Fixtures that read as sentences, made through the real services or the real API (never raw
//! SQL): accounts and their API tokens (`app.token(Role::Owner)`), pages with components
//! (`app.page("acme").with_components(&["API"]).create()`) and subscribers
//! (`app.subscriber("acme").email("ann@example.com").add(&token)`).

use herald::domain::{ComponentId, EmailAddress, PageId, Role};
use herald::services::components::{NewComponentInput, create_component};
use herald::services::pages::{NewPageInput, create_page};
use serde_json::{Value, json};

use super::TestApp;

/// The password of every test account.
pub const PASSWORD: &str = "correct horse battery staple";

impl TestApp {
    /// Creates the account `email` with `role` and [`PASSWORD`]; returns its id.
    pub async fn user(&self, email: &str, role: Role) -> String {
        let email = EmailAddress::parse(email).expect("valid email");
        self.db
            .run(move |c| herald::services::users::create_user(c, &email, role, PASSWORD))
            .await
            .expect("user created")
            .id
    }

    /// Creates the account `{role}@example.com` (`owner@example.com` ...) and issues it an API
    /// token for 30 days; returns the token.
    pub async fn token(&self, role: Role) -> String {
        self.token_lasting(role, 30).await
    }

    /// [`TestApp::token`], valid for `days`.
    pub async fn token_lasting(&self, role: Role, days: i64) -> String {
        let email = EmailAddress::parse(&format!("{}@example.com", role.as_str())).unwrap();
        self.db
            .run(move |c| {
                let key = herald::services::signing_key::load_or_create(c, None)?;
                let user = herald::services::users::create_user(c, &email, role, PASSWORD)?;
                let issued =
                    herald::services::auth::issue_token(c, key.expose(), &user, "test", days)?;
                Ok(issued.secret)
            })
            .await
            .expect("token issued")
    }

    /// Issues the account `user_id` an API token; returns the token.
    pub async fn token_for(&self, user_id: &str) -> String {
        let id = user_id.to_owned();
        self.db
            .run(move |c| {
                let key = herald::services::signing_key::load_or_create(c, None)?;
                let user = herald::db::models::users::find(c, &id)?.expect("the user");
                let issued =
                    herald::services::auth::issue_token(c, key.expose(), &user, "test", 30)?;
                Ok(issued.secret)
            })
            .await
            .expect("token issued")
    }

    /// The server's signing key, as stored in the test database (tests forge and expire
    /// tokens and links with it).
    pub async fn server_key(&self) -> Vec<u8> {
        self.db
            .run(|c| {
                Ok(herald::services::signing_key::load_or_create(c, None)?
                    .expose()
                    .to_vec())
            })
            .await
            .expect("key read")
    }

    /// The page most tests start from: `acme`, with one operational component, "Public API"
    /// (made through the services).
    pub async fn acme(&self) -> Page {
        self.page("acme")
            .with_components(&["Public API"])
            .create()
            .await
    }

    /// A page `slug` to be made: `app.page("acme").with_components(&["API"]).create()`.
    pub fn page<'a>(&'a self, slug: &str) -> PageBuilder<'a> {
        let mut name = slug.to_owned();
        if let Some(first) = name.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        PageBuilder {
            app: self,
            slug: slug.to_owned(),
            name,
            components: Vec::new(),
            through_api: None,
        }
    }

    /// A subscriber of page `slug` to be added by a responder:
    /// `app.subscriber("acme").webhook(url).add(&token)`.
    pub fn subscriber<'a>(&'a self, slug: &str) -> SubscriberBuilder<'a> {
        SubscriberBuilder {
            app: self,
            slug: slug.to_owned(),
            body: serde_json::Map::new(),
        }
    }
}

/// A page made by [`PageBuilder::create`].
pub struct Page {
    pub id: PageId,
    /// The ids of its components, in the order they were named.
    pub components: Vec<ComponentId>,
}

/// A page with its name and components, made through the services or (with
/// [`PageBuilder::through_api`]) the JSON API.
pub struct PageBuilder<'a> {
    app: &'a TestApp,
    slug: String,
    name: String,
    components: Vec<String>,
    through_api: Option<&'a str>,
}

impl<'a> PageBuilder<'a> {
    /// Operational components with these names.
    pub fn with_components(mut self, names: &[&str]) -> Self {
        self.components = names.iter().map(|&n| n.to_owned()).collect();
        self
    }

    /// Made over `POST /api/v1/pages` and `.../components` as the holder of `token` (so the
    /// audit log has them), instead of through the services.
    pub fn through_api(mut self, token: &'a str) -> Self {
        self.through_api = Some(token);
        self
    }

    /// Makes the page and its components.
    pub async fn create(self) -> Page {
        match self.through_api {
            Some(token) => self.create_over_api(token).await,
            None => self.create_through_services().await,
        }
    }

    async fn create_over_api(&self, token: &str) -> Page {
        let api = self.app.api(token);
        let page = json!({"slug": self.slug, "name": self.name});
        let (status, page) = api.post("/pages", page).await;
        assert_eq!(status, 201, "{page}");
        let mut components = Vec::new();
        for name in &self.components {
            let path = format!("/pages/{}/components", self.slug);
            let (status, c) = api.post(&path, json!({"name": name})).await;
            assert_eq!(status, 201, "{c}");
            components.push(ComponentId::from(c["id"].as_str().unwrap()));
        }
        Page {
            id: PageId::from(page["id"].as_str().unwrap()),
            components,
        }
    }

    async fn create_through_services(self) -> Page {
        let Self {
            app,
            slug,
            name,
            components,
            ..
        } = self;
        let input = NewPageInput {
            slug,
            name,
            ..NewPageInput::default()
        };
        let (id, components) = app
            .db
            .run(move |c| {
                let page = create_page(c, &input)?;
                let mut ids = Vec::new();
                for name in components {
                    let input = NewComponentInput {
                        name,
                        ..NewComponentInput::default()
                    };
                    ids.push(create_component(c, &page.id, &input)?.id);
                }
                Ok((page.id, ids))
            })
            .await
            .expect("page created");
        Page { id, components }
    }
}

/// A subscriber as a responder adds it (`POST /api/v1/pages/{slug}/subscribers`): confirmed at
/// once.
pub struct SubscriberBuilder<'a> {
    app: &'a TestApp,
    slug: String,
    body: serde_json::Map<String, Value>,
}

impl SubscriberBuilder<'_> {
    /// An email subscriber at `address`.
    pub fn email(self, address: &str) -> Self {
        self.with(json!({"type": "email", "email": address}))
    }

    /// A webhook subscriber at `url`.
    pub fn webhook(self, url: &str) -> Self {
        self.with(json!({"type": "webhook", "url": url}))
    }

    /// With these fields of the API's body as well (`contact_email`, `component_updates` ...).
    pub fn with(mut self, fields: Value) -> Self {
        if let Value::Object(fields) = fields {
            self.body.extend(fields);
        }
        self
    }

    /// Adds it as the holder of `token`; answers the subscriber's JSON.
    pub async fn add(self, token: &str) -> Value {
        let path = format!("/pages/{}/subscribers", self.slug);
        let (status, s) = self
            .app
            .api(token)
            .post(&path, Value::Object(self.body))
            .await;
        assert_eq!(status, 201, "{s}");
        s
    }
}
