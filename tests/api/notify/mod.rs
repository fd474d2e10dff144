//! Subscribers and the notification fan-out, against a real SMTP server and a real HTTP
//! receiver on loopback: double opt-in, no enumeration, one-click unsubscribe, component
//! filters and the critical override, `notify: false`, threading headers, the webhook body and
//! its signature, SSRF refusals, rate limits, the responder API, and a crash mid fan-out.

mod crash;
mod expansion;
mod fanout;
mod outages;
mod responders;
pub mod sinks;
mod subscribing;
mod timing;
mod webhooks;

use std::time::Duration;

use base64::Engine;
use herald::domain::{PageId, Role};
use herald::workers::Registry;
use serde_json::{Value, json};

use crate::helpers::{Console, TestApp, TestDb};
use sinks::{Receiver, SmtpSink};

/// An app with an SMTP sink and a webhook receiver, a token and a page `acme` with the
/// components API and Website.
pub struct Setup {
    pub app: TestApp,
    pub token: String,
    pub components: Vec<herald::domain::ComponentId>,
    pub smtp: SmtpSink,
    pub hooks: Receiver,
}

impl Setup {
    pub async fn spawn(db: TestDb) -> Self {
        Self::spawn_with(db, true).await
    }

    pub async fn spawn_with(db: TestDb, allow_private: bool) -> Self {
        let smtp = SmtpSink::start();
        let smtp_url = smtp.url();
        Self::build(db, allow_private, smtp, &smtp_url).await
    }

    /// A setup whose Herald sends mail to `smtp_url` (not necessarily the sink's).
    pub async fn spawn_mailing_to(db: TestDb, smtp_url: &str) -> Self {
        Self::build(db, true, SmtpSink::start(), smtp_url).await
    }

    /// A setup whose engine polls the database only every `poll` (so that only a wake-up
    /// makes it send sooner).
    pub async fn spawn_polling_every(db: TestDb, poll: Duration) -> Self {
        let smtp = SmtpSink::start();
        let smtp_url = smtp.url();
        Self::build_with(db, true, smtp, &smtp_url, Some(poll)).await
    }

    async fn build(db: TestDb, allow_private: bool, smtp: SmtpSink, smtp_url: &str) -> Self {
        Self::build_with(db, allow_private, smtp, smtp_url, None).await
    }

    async fn build_with(
        db: TestDb,
        allow_private: bool,
        smtp: SmtpSink,
        smtp_url: &str,
        poll: Option<Duration>,
    ) -> Self {
        let hooks = Receiver::start();
        let allow = if allow_private { "true" } else { "false" };
        let mut settings = crate::helpers::test_settings(
            &db,
            &[
                ("HERALD_SMTP_URL", smtp_url),
                ("HERALD_MAIL_FROM", "Acme status <status@example.com>"),
                ("HERALD_ALLOW_PRIVATE_WEBHOOKS", allow),
            ],
        );
        // The default is what every other test runs with.
        assert_eq!(settings.notify_poll, herald::config::NOTIFY_POLL);
        if let Some(poll) = poll {
            settings.notify_poll = poll;
        }
        let app = TestApp::spawn_with_settings(db, settings, Registry::standard()).await;
        let token = app.token(Role::Owner).await;
        let page = app
            .page("acme")
            .with_components(&["API", "Website"])
            .through_api(&token)
            .create()
            .await;
        app.wait_for_text("/status/acme", "Website").await;
        Self {
            app,
            token,
            components: page.components,
            smtp,
            hooks,
        }
    }

    /// The public JSON subscribe API.
    pub async fn subscribe(&self, body: Value) -> (u16, Value) {
        let res = self
            .app
            .client
            .post(format!("{}/status/acme/api/subscribe", self.app.address))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// Opens an incident; answers its id.
    pub async fn open(&self, body: Value) -> String {
        let (status, posted) = self
            .app
            .api(&self.token)
            .post("/pages/acme/incidents", body)
            .await;
        assert_eq!(status, 201, "{posted}");
        posted["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{posted}"))
            .to_owned()
    }

    /// Posts an update of incident `id`.
    pub async fn update(&self, id: &str, body: Value) {
        let path = format!("/pages/acme/incidents/{id}/updates");
        let (status, posted) = self.app.api(&self.token).post(&path, body).await;
        assert_eq!(status, 201, "{posted}");
    }

    /// GET or POST a link Herald made (its host may be the configured public URL): the path
    /// and query are requested at the app.
    pub async fn follow(&self, method: &str, link: &str, body: &str) -> (u16, String) {
        let link = url::Url::parse(link).unwrap();
        let path = &link[url::Position::BeforePath..];
        let res = self
            .app
            .client
            .request(
                method.parse().unwrap(),
                format!("{}{path}", self.app.address),
            )
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.text().await.unwrap())
    }

    /// Has the engine send everything due, and checks that nothing is left pending: every
    /// event expanded, every delivery delivered, failed or dead.
    pub async fn settle(&self) {
        self.app.deliver_pending().await;
        let (_, pending) = self
            .app
            .api(&self.token)
            .get("/pages/acme/deliveries?state=pending")
            .await;
        assert_eq!(pending, json!([]), "nothing is left pending");
        let unexpanded = self
            .app
            .db
            .run(|c| Ok(herald::db::models::notify::unexpanded_events(c, 1)?.len()))
            .await
            .unwrap();
        assert_eq!(unexpanded, 0, "every event is expanded");
    }
}
