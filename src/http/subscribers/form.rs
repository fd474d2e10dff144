//! The subscribe form at `/status/{slug}/subscribe`: showing it, taking it, and telling a
//! refused field in the reader's language.

use super::*;

/// The form's view.
#[derive(Serialize)]
struct FormView {
    frame: Frame,
    css: String,
    page_name: String,
    action: String,
    notice: Option<String>,
    values: Value,
    errors: BTreeMap<String, String>,
    components: Vec<Value>,
    /// The page's languages to choose the mails' from (none when it has one).
    languages: Vec<Choice>,
}

fn form_view(
    site: &PublicSite,
    data: &PageData,
    lang: Lang,
    fields: &[(String, String)],
) -> FormView {
    let loc = Locale::of_page(&data.page, lang);
    let value = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let chosen: Vec<&str> = fields
        .iter()
        .filter(|(k, _)| k == "components")
        .map(|(_, v)| v.as_str())
        .collect();
    let kind = value("type");
    let chosen_lang = match value("language") {
        typed if !typed.is_empty() => typed,
        _ => lang.as_str().to_owned(),
    };
    let languages = match data.page.languages.len() > 1 {
        true => data
            .page
            .languages
            .iter()
            .map(|l| Choice {
                value: l.as_str().to_owned(),
                label: l.label().to_owned(),
                selected: l.as_str() == chosen_lang,
            })
            .collect(),
        false => Vec::new(),
    };
    FormView {
        languages,
        frame: Frame::page(
            Some(&loc.text("nav-subscribe")),
            Section::Other,
            data,
            &site.renderer.assets,
            loc,
            &format!("{}/subscribe", data.page.path),
        ),
        css: site.renderer.assets.url("forms.css"),
        page_name: data.page.name.clone(),
        action: loc.href(&format!("{}/subscribe", data.page.path)),
        notice: None,
        values: json!({
            "email_type": kind != "webhook",
            "webhook_type": kind == "webhook",
            "email": value("email"),
            "url": value("url"),
            "contact_email": value("contact_email"),
            "component_updates": value("component_updates") == "true",
        }),
        errors: BTreeMap::new(),
        components: data
            .components
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "name": crate::domain::component_label(&c.name, c.region.as_deref()),
                    "checked": chosen.contains(&c.id.as_str()),
                })
            })
            .collect(),
    }
}

/// `GET /status/{slug}/subscribe`: the form.
pub async fn subscribe_form(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let data = or_answer!(subscribable(&req, &state, &slug).await?);
    let lang = reader_lang(&req, &data.page, true);
    let mut view = form_view(&state.site, &data, lang, &[]);
    if state.settings.smtp_url.is_none() {
        view.notice = Some(text(lang, "notice-no-mail"));
    }
    html(&state.site, lang, StatusCode::OK, "pages/subscribe", &view)
}

/// `POST /status/{slug}/subscribe` (form fields; `components` repeated).
#[tracing::instrument(skip_all)]
pub async fn subscribe_submit(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    body: web::Bytes,
) -> AppResult<HttpResponse> {
    let data = or_answer!(subscribable(&req, &state, &slug).await?);
    let lang = reader_lang(&req, &data.page, true);
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let chosen: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k == "components")
        .map(|(_, v)| v.clone())
        .collect();
    let kind = get("type").unwrap_or_else(|| "email".into());
    let input = SubscribeInput {
        email: get("email").filter(|_| kind == "email"),
        url: get("url").filter(|_| kind == "webhook"),
        contact_email: get("contact_email").filter(|_| kind == "webhook"),
        kind: Some(kind),
        components: (!chosen.is_empty()).then_some(chosen),
        component_updates: Some(get("component_updates").as_deref() == Some("true")),
        language: get("language"),
    };
    let outcome = match input.check() {
        Ok(subscription) => accept(&state, &req, data.page.id.clone(), subscription).await,
        Err(e) => Err(e),
    };
    let back = data.page.path.clone();
    match outcome {
        Ok(Subscribed::Email(_)) => result_page(
            &state.site,
            &data,
            lang,
            ResultView::message(
                &text(lang, "subscribe-inbox-title"),
                &text(lang, "subscribe-inbox-text"),
                &back,
            ),
        ),
        Ok(Subscribed::Webhook(s)) => {
            let answer = webhook_answer(&state, &slug, &s, None);
            let mut view = ResultView::message(
                &text(lang, "subscribe-webhook-title"),
                &text(lang, "subscribe-webhook-text"),
                &back,
            );
            view.secret = s.secret.clone();
            view.manage_url = answer["manage_url"].as_str().map(str::to_owned);
            result_page(&state.site, &data, lang, view)
        }
        Err(AppError::Validation(errors)) => {
            let mut view = form_view(&state.site, &data, lang, &fields);
            view.errors = errors
                .into_iter()
                .map(|(field, said)| {
                    let message = field_message(lang, &field, &said);
                    (field, message)
                })
                .collect();
            view.notice = Some(match state.settings.smtp_url {
                None => text(lang, "notice-no-mail"),
                Some(_) => text(lang, "notice-fix-fields"),
            });
            html(
                &state.site,
                lang,
                StatusCode::UNPROCESSABLE_ENTITY,
                "pages/subscribe",
                &view,
            )
        }
        Err(AppError::RateLimited { retry_after_secs }) => {
            let mut view = form_view(&state.site, &data, lang, &fields);
            let seconds = FluentValue::from(retry_after_secs);
            view.notice = Some(text_with(
                lang,
                "subscribe-too-many",
                &[("seconds", seconds)],
            ));
            let mut res = html(
                &state.site,
                lang,
                StatusCode::TOO_MANY_REQUESTS,
                "pages/subscribe",
                &view,
            )?;
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            Ok(res)
        }
        Err(other) => Err(other),
    }
}

/// A refused field's message on the form, in `lang`: English readers get the check's own
/// words (they say exactly what is wrong); the others are told what to type, in their language.
fn field_message(lang: Lang, field: &str, said: &[String]) -> String {
    let key = match field {
        "email" => "form-error-email",
        "url" => "subscribe-error-url",
        "contact_email" => "subscribe-error-contact",
        "components" => "subscribe-error-components",
        "language" => "subscribe-error-language",
        "type" => "subscribe-error-type",
        _ => "",
    };
    match (lang, key) {
        (Lang::En, _) | (_, "") => said.join(" "),
        (_, key) => text(lang, key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_field_is_told_in_the_readers_language() {
        let said = ["is not an email address".to_owned()];
        assert_eq!(field_message(Lang::En, "email", &said), said[0]);
        assert_eq!(
            field_message(Lang::De, "email", &said),
            text(Lang::De, "form-error-email")
        );
        assert_ne!(
            text(Lang::De, "form-error-email"),
            text(Lang::En, "form-error-email")
        );
        for field in ["url", "contact_email", "components", "language", "type"] {
            let german = field_message(Lang::De, field, &said);
            assert!(
                german != said[0] && !german.starts_with("subscribe-"),
                "{field}: {german}"
            );
        }
    }
}
