//! `POST /admin/preview`: a message rendered as the public page will show it, for the live
//! preview beside the console's message fields (`assets/console.js` sends the text as it is
//! typed, with the form's CSRF token). The same sanitizing renderer as the forms' "Preview"
//! button, which stays for browsers without JavaScript. Answers the HTML fragment (empty for
//! an empty message), or 422 with the message's error when the text is too long.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use super::form::Submitted;
use crate::domain::markdown::to_safe_html;
use crate::error::AppResult;
use crate::http::auth::{Authenticated, Permission};

/// Registers the route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/admin/preview", web::post().to(preview));
}

/// The fragment of `body`: the rendered message, or the reason it cannot be posted.
pub fn fragment(body: &str) -> Result<String, String> {
    if body.trim().is_empty() {
        return Ok(String::new());
    }
    crate::services::incidents::translated_body(body)
        .map(|_| to_safe_html(body))
        .map_err(|message| {
            let escaped = handlebars::html_escape(&message);
            format!(r#"<p class="field-error">The message {escaped}.</p>"#)
        })
}

#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn preview(auth: Authenticated, form: Submitted) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (status, html) = match fragment(form.get("body")) {
        Ok(html) => (actix_web::http::StatusCode::OK, html),
        Err(html) => (actix_web::http::StatusCode::UNPROCESSABLE_ENTITY, html),
    };
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(html))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fragment_is_the_public_rendering_of_the_message() {
        assert_eq!(
            fragment("Payments fail for **some** users.").unwrap(),
            to_safe_html("Payments fail for **some** users.")
        );
        assert!(fragment("**a**").unwrap().contains("<strong>a</strong>"));
        assert_eq!(fragment("  \n").unwrap(), "");
    }

    #[test]
    fn script_in_a_message_is_not_in_its_preview() {
        let html =
            fragment("hello <script>alert(1)</script> <img src=x onerror=alert(1)>").unwrap();
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
    }

    #[test]
    fn a_message_too_long_to_post_says_so() {
        let long = "a".repeat(crate::services::incidents::MAX_BODY_LEN + 1);
        let refused = fragment(&long).unwrap_err();
        assert!(
            refused.starts_with(r#"<p class="field-error">The message "#),
            "{refused}"
        );
    }
}
