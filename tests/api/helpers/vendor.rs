//! A vendor for the suites that read another status page (mirrors, imports): a second real
//! Herald, `herald serve` as its own process on its own database, set up through its own
//! command line and API as its operator would, with a page `cloud` of two components.

use serde_json::{Value, json};

use super::TestDb;
use crate::process::{Serving, add_owner, create_token};

/// A vendor: another Herald, as its own process, with a page `cloud` of two components.
pub struct Vendor {
    serving: Option<Serving>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub token: String,
    pub api_id: String,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
    _db: TestDb,
}

impl Vendor {
    pub async fn start() -> Self {
        let db = TestDb::sqlite();
        let url = db.url();
        let (dir, serving, token) = tokio::task::spawn_blocking(move || {
            let dir = tempfile::tempdir().unwrap();
            add_owner(dir.path(), &url, "ops@vendor.test");
            let token = create_token(dir.path(), &url, "ops@vendor.test");
            let serving = Serving::start(dir.path(), &url, &[]);
            (dir, serving, token)
        })
        .await
        .unwrap();
        let mut vendor = Self {
            base: format!("http://127.0.0.1:{}", serving.port),
            serving: Some(serving),
            token,
            api_id: String::new(),
            client: reqwest::Client::new(),
            _dir: dir,
            _db: db,
        };
        let (status, page) = vendor
            .api(
                "POST",
                "/pages",
                json!({"slug": "cloud", "name": "Example Cloud"}),
            )
            .await;
        assert_eq!(status, 201, "{page}");
        let (status, api) = vendor
            .api("POST", "/pages/cloud/components", json!({"name": "API"}))
            .await;
        assert_eq!(status, 201, "{api}");
        vendor.api_id = api["id"].as_str().unwrap().to_owned();
        let (status, _) = vendor
            .api(
                "POST",
                "/pages/cloud/components",
                json!({"name": "Dashboard"}),
            )
            .await;
        assert_eq!(status, 201);
        vendor
    }

    pub async fn api(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = self
            .client
            .request(method, format!("{}/api/v1{path}", self.base))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }

    /// The vendor's page address, as a customer would paste it.
    pub fn page_url(&self) -> String {
        format!("{}/status/cloud", self.base)
    }

    /// The vendor's API component goes to `status`; waits until its own summary shows it.
    pub async fn set_api(&self, status: &str) {
        let path = format!("/pages/cloud/components/{}", self.api_id);
        let (code, body) = self.api("PATCH", &path, json!({"status": status})).await;
        assert_eq!(code, 200, "{body}");
    }

    /// Stops the vendor's process: its page cannot be reached any more.
    pub fn stop(&mut self) {
        drop(self.serving.take());
    }
}
