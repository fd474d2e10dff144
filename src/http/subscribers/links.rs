//! The links of subscription mails: confirming a subscription, the manage page, and
//! unsubscribing (one click, or the page's button).

use super::*;

/// `GET /status/{slug}/confirm/{token}`: confirms an email subscription.
pub async fn confirm(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (data, confirmed) = follow(&state, path, |c, key, token| {
        service::confirm(c, key, token, Utc::now())
    })
    .await?;
    let lang = reader_lang(&req, &data.page, true);
    let done = confirmed.map(|_| {
        ResultView::message(
            &text(lang, "subscribe-confirmed-title"),
            &named(lang, "subscribe-confirmed-text", &data.page.name),
            &data.page.path,
        )
    });
    answer(&state, &data, lang, done, "subscribe-confirm-dead")
}

/// The message `key` in `lang` naming the page `name`.
fn named(lang: Lang, key: &str, name: &str) -> String {
    text_with(lang, key, &[("name", FluentValue::from(name))])
}

/// `GET /status/{slug}/unsubscribe/{token}`: the manage page, with the unsubscribe button.
pub async fn manage(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let token = path.1.clone();
    let (data, found) = follow(&state, path, |c, key, token| {
        service::subscriber_of_token(c, key, Purpose::Manage, token, Utc::now())
    })
    .await?;
    let back = &data.page.path;
    let lang = reader_lang(&req, &data.page, true);
    let done = found.map(|s| {
        if s.state == SubscriberState::Unsubscribed {
            return ResultView::message(
                &text(lang, "subscribe-cancelled-title"),
                &text(lang, "subscribe-cancelled-text"),
                back,
            );
        }
        let who = s.email.clone().or(s.url.clone()).unwrap_or_default();
        let sentence = text_with(
            lang,
            "subscribe-yours-text",
            &[
                ("who", FluentValue::from(who)),
                ("name", FluentValue::from(data.page.name.as_str())),
            ],
        );
        let mut view = ResultView::message(&text(lang, "subscribe-yours-title"), &sentence, back);
        // The button posts back to the link as it came (its language kept).
        let query = req.query_string();
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        view.button = Some(json!({
            "action": format!("{back}/unsubscribe/{token}{query}"),
            "label": text(lang, "subscribe-unsubscribe"),
        }));
        view
    });
    answer(&state, &data, lang, done, "link-dead-text")
}

/// `POST /status/{slug}/unsubscribe/{token}`: unsubscribes (the manage page's button, and the
/// mail client's one-click `List-Unsubscribe=One-Click` POST).
#[tracing::instrument(skip_all)]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (data, unsubscribed) = follow(&state, path, |c, key, token| {
        service::unsubscribe(c, key, token, Utc::now())
    })
    .await?;
    let lang = reader_lang(&req, &data.page, true);
    let done = unsubscribed.map(|_| {
        ResultView::message(
            &text(lang, "subscribe-unsubscribed-title"),
            &named(lang, "subscribe-unsubscribed-text", &data.page.name),
            &data.page.path,
        )
    });
    answer(&state, &data, lang, done, "link-dead-text")
}

/// The page of a link's path (404 when there is none), and what `f` made of its token with the
/// signing key, on the pool.
async fn follow<T, F>(
    state: &AppState,
    path: web::Path<(String, String)>,
    f: F,
) -> AppResult<(Arc<PageData>, AppResult<T>)>
where
    T: Send + 'static,
    F: FnOnce(&mut crate::db::DbConn, &[u8], &str) -> AppResult<T> + Send + 'static,
{
    let (slug, token) = path.into_inner();
    let data = page(&state.site, &slug)?;
    let key = state.secret.clone();
    let done = state.db.run(move |c| f(c, key.expose(), &token)).await;
    Ok((data, done))
}

/// What a subscription link answers, in `lang`: the page `done` describes once it worked, or
/// a 404 page saying the message `dead` when the link is not (or no longer) valid.
fn answer(
    state: &AppState,
    data: &PageData,
    lang: Lang,
    done: AppResult<ResultView>,
    dead: &str,
) -> AppResult<HttpResponse> {
    match done {
        Ok(view) => result_page(&state.site, data, lang, view),
        Err(AppError::NotFound(_)) => {
            let title = text(lang, "link-dead-title");
            let view = ResultView::message(&title, &text(lang, dead), &data.page.path);
            result_page_status(&state.site, data, lang, view, StatusCode::NOT_FOUND)
        }
        Err(other) => Err(other),
    }
}
