//! Fixtures that read as sentences, made through the real services (never raw SQL): accounts
//! (`app.user("ops@example.com", Role::Responder)`) and pages with components
//! (`app.page("acme").with_components(&["API"]).create()`).

use herald::domain::{EmailAddress, Role};
use herald::services::components::{NewComponentInput, create_component};
use herald::services::pages::{NewPageInput, create_page};

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
        }
    }
}

/// A page made by [`PageBuilder::create`].
pub struct Page {
    pub id: String,
    /// The ids of its components, in the order they were named.
    pub components: Vec<String>,
}

/// A page with its name and components, made through the services.
pub struct PageBuilder<'a> {
    app: &'a TestApp,
    slug: String,
    name: String,
    components: Vec<String>,
}

impl<'a> PageBuilder<'a> {
    /// Operational components with these names.
    pub fn with_components(mut self, names: &[&str]) -> Self {
        self.components = names.iter().map(|&n| n.to_owned()).collect();
        self
    }

    /// Makes the page and its components.
    pub async fn create(self) -> Page {
        self.create_through_services().await
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
