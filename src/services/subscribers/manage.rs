//! Responders' work on subscribers beside the list: a search (kind, state, text, order),
//! counts by kind and state, unsubscribing one, resending a confirmation, reactivating a
//! quarantined one, and choosing its components.

use crate::db::models::notify::{self as rows, Search, Subscriber};
use crate::db::states::{Channel, SubscriberState};
use crate::db::{DbConn, new_id, write_tx};
use crate::domain::{PageId, SubscriberId};
use crate::error::{AppError, AppResult};
use crate::services::outbox::{self as events, kind};

use super::list::{SubscriberView, view};

/// The subscriber `id` of the page (404 when it is not the page's).
pub fn of_page(conn: &mut DbConn, page_id: &PageId, id: &SubscriberId) -> AppResult<Subscriber> {
    rows::find_subscriber(conn, id)?
        .filter(|s| s.page_id == *page_id)
        .ok_or_else(|| AppError::NotFound("subscriber".into()))
}

/// The page's subscribers a search selects, with their components.
pub fn search(
    conn: &mut DbConn,
    page_id: &PageId,
    search: &Search,
) -> AppResult<Vec<SubscriberView>> {
    let found = rows::search(conn, page_id, search)?;
    found.iter().map(|s| view(conn, s)).collect()
}

/// How many subscribers the page has of each kind in each state.
pub fn counts(
    conn: &mut DbConn,
    page_id: &PageId,
) -> AppResult<Vec<(Channel, SubscriberState, i64)>> {
    Ok(rows::count_by_kind_and_state(conn, page_id)?)
}

/// Unsubscribes a subscriber of the page, as its own unsubscribe link does: nothing more is
/// sent to it, and its links stop working. An unsubscribed one stays as it is.
pub fn unsubscribe_by_id(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &SubscriberId,
) -> AppResult<Subscriber> {
    write_tx(conn, |c| {
        let subscriber = of_page(c, page_id, id)?;
        if subscriber.state != SubscriberState::Unsubscribed {
            let at = crate::db::now();
            rows::set_state(c, id, SubscriberState::Unsubscribed, at)?;
            rows::skip_pending_of(c, id, at)?;
            rows::rotate_manage_token(c, id, &new_id(), at)?;
        }
        of_page(c, page_id, id)
    })
}

/// Sends a pending mail subscriber its confirmation again; whether one was sent (others have
/// nothing to confirm).
pub fn resend_confirmation(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &SubscriberId,
) -> AppResult<bool> {
    write_tx(conn, |c| {
        let subscriber = of_page(c, page_id, id)?;
        let pending =
            subscriber.state == SubscriberState::Pending && subscriber.kind == Channel::Email;
        if pending {
            events::subscriber_notice(c, page_id, id, kind::SUBSCRIBER_CONFIRMATION)?;
        }
        Ok(pending)
    })
}

/// Takes a quarantined subscriber back (confirmed, its failures forgotten); whether it was
/// quarantined.
pub fn reactivate(conn: &mut DbConn, page_id: &PageId, id: &SubscriberId) -> AppResult<bool> {
    write_tx(conn, |c| {
        let subscriber = of_page(c, page_id, id)?;
        let quarantined = subscriber.state == SubscriberState::Quarantined;
        if quarantined {
            rows::set_state(c, id, SubscriberState::Confirmed, crate::db::now())?;
        }
        Ok(quarantined)
    })
}

/// Sets the components a subscriber follows: `None` for the whole page.
pub fn set_chosen_components(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &SubscriberId,
    components: Option<&[String]>,
) -> AppResult<SubscriberView> {
    if components.is_some_and(<[String]>::is_empty) {
        return Err(AppError::field(
            "component_ids",
            "must name at least one component (leave it out for the whole page)",
        ));
    }
    write_tx(conn, |c| {
        let subscriber = of_page(c, page_id, id)?;
        super::check_components(c, page_id, components)?;
        let at = crate::db::now();
        rows::set_options(
            c,
            id,
            components.is_none(),
            subscriber.component_updates,
            subscriber.language,
            at,
        )?;
        rows::set_components(c, id, components.unwrap_or_default())?;
        let subscriber = of_page(c, page_id, id)?;
        view(c, &subscriber)
    })
}
