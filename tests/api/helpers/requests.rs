//! The requests a test sends as a browser: [`Console`], signed in to the responder console
//! (its session cookie and CSRF token), and the sign-in form itself.

use herald::domain::Role;

use super::{PASSWORD, TestApp, no_redirects, set_cookie_pair};

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
