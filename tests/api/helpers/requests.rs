//! The console's sign-in form, as a browser fills it in.

use super::{TestApp, set_cookie_pair};

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
