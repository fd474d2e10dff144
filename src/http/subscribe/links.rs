//! The links of subscription mails: confirming a subscription, the manage page, and
//! unsubscribing (one click, or the page's button).

use super::*;

/// `GET /status/{slug}/confirm/{token}`: confirms an email subscription.
pub async fn confirm(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (data, confirmed) = follow(&state, path, |c, key, token| {
        subscribe::confirm(c, key, token, Utc::now())
    })
    .await?;
    let done = confirmed.map(|_| {
        let sentence = format!(
            "You will receive {}'s status notifications. Every message has a link to cancel.",
            data.page.name
        );
        ResultView::message("Subscription confirmed", &sentence, &data.page.path)
    });
    let dead =
        "The confirmation link has expired or is not valid. Subscribe again to get a new one.";
    answer(&state, &data, done, dead)
}

/// `GET /status/{slug}/unsubscribe/{token}`: the manage page, with the unsubscribe button.
pub async fn manage(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let token = path.1.clone();
    let (data, found) = follow(&state, path, |c, key, token| {
        subscribe::subscriber_of_token(c, key, Purpose::Manage, token, Utc::now())
    })
    .await?;
    let back = &data.page.path;
    let done = found.map(|s| {
        if s.state == SubscriberState::Unsubscribed {
            let sentence = "This subscription is already cancelled.";
            return ResultView::message("Not subscribed", sentence, back);
        }
        let who = s.email.clone().or(s.url.clone()).unwrap_or_default();
        let sentence = format!("{who} receives {}'s status notifications.", data.page.name);
        let mut view = ResultView::message("Your subscription", &sentence, back);
        view.button = Some(json!({
            "action": format!("{back}/unsubscribe/{token}"),
            "label": "Unsubscribe",
        }));
        view
    });
    answer(&state, &data, done, "The link is not valid any more.")
}

/// `POST /status/{slug}/unsubscribe/{token}`: unsubscribes (the manage page's button, and the
/// mail client's one-click `List-Unsubscribe=One-Click` POST).
#[tracing::instrument(skip_all)]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (data, unsubscribed) = follow(&state, path, |c, key, token| {
        subscribe::unsubscribe(c, key, token, Utc::now())
    })
    .await?;
    let done = unsubscribed.map(|_| {
        let sentence = format!(
            "You will not receive {}'s status notifications any more.",
            data.page.name
        );
        ResultView::message("Unsubscribed", &sentence, &data.page.path)
    });
    answer(&state, &data, done, "The link is not valid any more.")
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

/// What a subscription link answers: the page `done` describes once it worked, or a 404 page
/// saying `dead` when the link is not (or no longer) valid.
fn answer(
    state: &AppState,
    data: &PageData,
    done: AppResult<ResultView>,
    dead: &str,
) -> AppResult<HttpResponse> {
    match done {
        Ok(view) => result_page(&state.site, data, data.page.default_language, view),
        Err(AppError::NotFound(_)) => {
            let view = ResultView::message("This link does not work", dead, &data.page.path);
            let lang = data.page.default_language;
            result_page_status(&state.site, data, lang, view, StatusCode::NOT_FOUND)
        }
        Err(other) => Err(other),
    }
}
