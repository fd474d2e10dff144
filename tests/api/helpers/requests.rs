//! The requests a test sends: [`Api`], the JSON API under `/api/v1` with a bearer token, and
//! [`Console`], a browser signed in to the responder console (its session cookie and CSRF
//! token), with the sign-in form itself.

use herald::domain::Role;
use serde_json::Value;

use super::{PASSWORD, TestApp, no_redirects, set_cookie_pair};

/// Requests to `/api/v1` as the holder of one bearer token: `app.api(&token).get("/me")`.
/// Each answers its status and its body, parsed as JSON, or the text as a JSON string when it
/// is not JSON.
pub struct Api<'a> {
    app: &'a TestApp,
    token: &'a str,
    headers: Vec<(&'a str, &'a str)>,
}

impl TestApp {
    /// The JSON API as the holder of `token` (no `Authorization` header when it is empty).
    pub fn api<'a>(&'a self, token: &'a str) -> Api<'a> {
        Api {
            app: self,
            token,
            headers: Vec::new(),
        }
    }
}

impl<'a> Api<'a> {
    /// The same requests with these headers added.
    pub fn with_headers(mut self, headers: &[(&'a str, &'a str)]) -> Self {
        self.headers.extend_from_slice(headers);
        self
    }

    /// GET `/api/v1{path}`.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.send("GET", path, None).await
    }

    /// POST `body` to `/api/v1{path}`.
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send("POST", path, Some(body)).await
    }

    /// PATCH `/api/v1{path}` with `body`.
    pub async fn patch(&self, path: &str, body: Value) -> (u16, Value) {
        self.send("PATCH", path, Some(body)).await
    }

    /// PUT `body` at `/api/v1{path}`.
    pub async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        self.send("PUT", path, Some(body)).await
    }

    /// DELETE `/api/v1{path}`.
    pub async fn delete(&self, path: &str) -> (u16, Value) {
        self.send("DELETE", path, None).await
    }

    /// PUT raw `bytes` (sent as `content_type`) at `/api/v1{path}`.
    pub async fn put_bytes(&self, path: &str, content_type: &str, bytes: Vec<u8>) -> (u16, Value) {
        let url = format!("{}/api/v1{path}", self.app.address);
        let res = self
            .app
            .client
            .put(url)
            .bearer_auth(self.token)
            .header("Content-Type", content_type)
            .body(bytes)
            .send()
            .await
            .expect("request sent");
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// A request with any method, with a JSON body when there is one.
    pub async fn send(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}/api/v1{path}", self.app.address);
        let mut req = self.app.client.request(method.parse().unwrap(), url);
        if !self.token.is_empty() {
            req = req.bearer_auth(self.token);
        }
        for (name, value) in &self.headers {
            req = req.header(*name, *value);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.expect("request sent");
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }
}

/// A browser signed in to the console: its session cookie, without following redirects.
pub struct Console {
    pub client: reqwest::Client,
    pub cookie: String,
    /// The session's CSRF token, as its forms carry it.
    pub csrf: String,
    pub base: String,
}

impl Console {
    /// Creates an account with `role` (and [`PASSWORD`]) and signs in through the
    /// `/admin/login` form.
    pub async fn sign_in(app: &TestApp, email: &str, role: Role) -> Self {
        app.user(email, role).await;
        let client = no_redirects();
        let res = app.post_sign_in(&client, email, PASSWORD).await;
        assert_eq!(res.status(), 303, "signed in");
        let cookie = set_cookie_pair(&res, "herald_session").expect("a session cookie");
        let mut console = Self {
            client,
            cookie,
            csrf: String::new(),
            base: app.address.clone(),
        };
        console.csrf = console.csrf("/admin").await;
        console
    }

    /// GET `path` with the session; returns the status and the body.
    pub async fn get(&self, path: &str) -> (u16, String) {
        let res = self
            .client
            .get(format!("{}{path}", self.base))
            .header("Cookie", &self.cookie)
            .send()
            .await
            .expect("request sent");
        (res.status().as_u16(), res.text().await.unwrap())
    }

    /// POSTs the form `fields` to `path` with the session; returns status, location and body.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> (u16, String, String) {
        let res = self
            .client
            .post(format!("{}{path}", self.base))
            .header("Cookie", &self.cookie)
            .form(fields)
            .send()
            .await
            .expect("request sent");
        let location = res
            .headers()
            .get("location")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (res.status().as_u16(), location, res.text().await.unwrap())
    }

    /// The CSRF token embedded in the form at `path`.
    pub async fn csrf(&self, path: &str) -> String {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "{body}");
        form_token(&body)
    }
}

/// The value of the `csrf_token` field of the (first) form in `html`.
fn form_token(html: &str) -> String {
    let marker = r#"name="csrf_token" value=""#;
    let start = html.find(marker).expect("the form carries a CSRF token") + marker.len();
    html[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_owned()
}

impl TestApp {
    /// Signs in through the console's form as a browser does: GET `/admin/login` for its
    /// cookie and CSRF token, then POST them with `email` and `password`. `client` should not
    /// follow redirects; the answer is returned as it is.
    pub async fn post_sign_in(
        &self,
        client: &reqwest::Client,
        email: &str,
        password: &str,
    ) -> reqwest::Response {
        let (cookie, token) = self.sign_in_form(client).await;
        client
            .post(format!("{}/admin/login", self.address))
            .header("Cookie", cookie)
            .form(&[
                ("email", email),
                ("password", password),
                ("csrf_token", &token),
            ])
            .send()
            .await
            .expect("request sent")
    }

    /// The sign-in form's `herald_login=...` cookie pair and its CSRF token.
    pub async fn sign_in_form(&self, client: &reqwest::Client) -> (String, String) {
        let res = client
            .get(format!("{}/admin/login", self.address))
            .send()
            .await
            .expect("request sent");
        let cookie =
            set_cookie_pair(&res, "herald_login").expect("the sign-in form sets its cookie");
        let html = res.text().await.expect("sign-in page");
        (cookie, form_token(&html))
    }
}
