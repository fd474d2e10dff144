//! The links of subscription mails: confirming a subscription, the manage page, and
//! unsubscribing (one click, or the page's button).

use super::*;

/// `GET /status/{slug}/confirm/{token}`: confirms an email subscription.
pub async fn confirm(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, token) = path.into_inner();
    let data = page(&state.site, &slug)?;
    let key = state.secret.clone();
    let confirmed = state
        .db
        .run(move |c| subscribe::confirm(c, key.expose(), &token, Utc::now()))
        .await;
    let back = data.page.path.clone();
    match confirmed {
        Ok(_) => result_page(
            &state.site,
            &data,
            ResultView::message(
                "Subscription confirmed",
                &format!(
                    "You will receive {}'s status notifications. Every message has a link to cancel.",
                    data.page.name
                ),
                &back,
            ),
        ),
        Err(AppError::NotFound(_)) => result_page_status(
            &state.site,
            &data,
            ResultView::message(
                "This link does not work",
                "The confirmation link has expired or is not valid. Subscribe again to get a new one.",
                &back,
            ),
            StatusCode::NOT_FOUND,
        ),
        Err(other) => Err(other),
    }
}

/// `GET /status/{slug}/unsubscribe/{token}`: the manage page, with the unsubscribe button.
pub async fn manage(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, token) = path.into_inner();
    let data = page(&state.site, &slug)?;
    let key = state.secret.clone();
    let t = token.clone();
    let found = state
        .db
        .run(move |c| {
            subscribe::subscriber_of_token(c, key.expose(), Purpose::Manage, &t, Utc::now())
        })
        .await;
    let back = data.page.path.clone();
    match found {
        Ok(s) if s.state == SubscriberState::Unsubscribed => result_page(
            &state.site,
            &data,
            ResultView::message(
                "Not subscribed",
                "This subscription is already cancelled.",
                &back,
            ),
        ),
        Ok(s) => {
            let who = s.email.clone().or(s.url.clone()).unwrap_or_default();
            let mut view = ResultView::message(
                "Your subscription",
                &format!("{who} receives {}'s status notifications.", data.page.name),
                &back,
            );
            view.button = Some(json!({
                "action": format!("{}/unsubscribe/{token}", data.page.path),
                "label": "Unsubscribe",
            }));
            result_page(&state.site, &data, view)
        }
        Err(AppError::NotFound(_)) => result_page_status(
            &state.site,
            &data,
            ResultView::message(
                "This link does not work",
                "The link is not valid any more.",
                &back,
            ),
            StatusCode::NOT_FOUND,
        ),
        Err(other) => Err(other),
    }
}

/// `POST /status/{slug}/unsubscribe/{token}`: unsubscribes (the manage page's button, and the
/// mail client's one-click `List-Unsubscribe=One-Click` POST).
#[tracing::instrument(skip_all)]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, token) = path.into_inner();
    let data = page(&state.site, &slug)?;
    let key = state.secret.clone();
    let done = state
        .db
        .run(move |c| subscribe::unsubscribe(c, key.expose(), &token, Utc::now()))
        .await;
    let back = data.page.path.clone();
    match done {
        Ok(_) => result_page(
            &state.site,
            &data,
            ResultView::message(
                "Unsubscribed",
                &format!(
                    "You will not receive {}'s status notifications any more.",
                    data.page.name
                ),
                &back,
            ),
        ),
        Err(AppError::NotFound(_)) => result_page_status(
            &state.site,
            &data,
            ResultView::message(
                "This link does not work",
                "The link is not valid any more.",
                &back,
            ),
            StatusCode::NOT_FOUND,
        ),
        Err(other) => Err(other),
    }
}
