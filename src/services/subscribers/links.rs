//! A subscriber's signed links: making them, reading them back, and what they do (confirm an
//! email subscription, unsubscribe).

use chrono::{DateTime, Utc};

use crate::domain::SubscriberId;

use super::CONFIRM_VALID_FOR;
use super::token::{self, Claims, Purpose, TokenError};
use crate::db::models::notify::{self as rows, Subscriber};
use crate::db::states::SubscriberState;
use crate::db::{DbConn, new_id, write_tx};
use crate::error::{AppError, AppResult};

/// A signed link token for a subscriber.
pub fn link_token(
    key: &[u8],
    subscriber_id: &SubscriberId,
    token_id: &str,
    purpose: Purpose,
    now: DateTime<Utc>,
) -> String {
    let expires = match purpose {
        Purpose::Confirm => (now + CONFIRM_VALID_FOR).timestamp(),
        Purpose::Manage => 0,
    };
    token::sign(
        key,
        purpose,
        &Claims {
            subscriber_id: subscriber_id.to_owned(),
            token_id: token_id.to_owned(),
            expires,
        },
    )
}

/// The subscriber a link token names, if the token is valid and still current.
pub fn subscriber_of_token(
    conn: &mut DbConn,
    key: &[u8],
    purpose: Purpose,
    token: &str,
    now: DateTime<Utc>,
) -> AppResult<Subscriber> {
    let refused = |e: TokenError| AppError::NotFound(format!("subscription ({e})"));
    let claims = token::verify(key, purpose, token, now).map_err(refused)?;
    let subscriber = rows::find_subscriber(conn, &claims.subscriber_id)?
        .filter(|s| s.manage_token_id == claims.token_id)
        .ok_or_else(|| refused(TokenError::Invalid))?;
    Ok(subscriber)
}

/// Confirms an email subscription from its link (a second click changes nothing).
pub fn confirm(
    conn: &mut DbConn,
    key: &[u8],
    token: &str,
    now: DateTime<Utc>,
) -> AppResult<Subscriber> {
    by_link(
        conn,
        (key, Purpose::Confirm, token, now),
        |c, subscriber| {
            if subscriber.state == SubscriberState::Pending {
                rows::set_state(
                    c,
                    &subscriber.id,
                    SubscriberState::Confirmed,
                    crate::db::now(),
                )?;
            } else if subscriber.state != SubscriberState::Confirmed {
                return Err(AppError::NotFound("subscription".into()));
            }
            Ok(rows::find_subscriber(c, &subscriber.id)?.unwrap_or(subscriber))
        },
    )
}

/// Unsubscribes from a manage link; nothing more is sent to it.
pub fn unsubscribe(
    conn: &mut DbConn,
    key: &[u8],
    token: &str,
    now: DateTime<Utc>,
) -> AppResult<Subscriber> {
    by_link(conn, (key, Purpose::Manage, token, now), |c, subscriber| {
        let at = crate::db::now();
        rows::set_state(c, &subscriber.id, SubscriberState::Unsubscribed, at)?;
        rows::skip_pending_of(c, &subscriber.id, at)?;
        // The cancelled subscription's links die with it: a forwarded mail cannot manage
        // whatever subscription this address has next.
        rows::rotate_manage_token(c, &subscriber.id, &new_id(), at)?;
        Ok(subscriber)
    })
}

/// Runs `then` in one transaction on the subscriber a link (its key, purpose, token and the
/// time it is used) names.
fn by_link(
    conn: &mut DbConn,
    (key, purpose, token, now): (&[u8], Purpose, &str, DateTime<Utc>),
    then: impl FnOnce(&mut DbConn, Subscriber) -> AppResult<Subscriber>,
) -> AppResult<Subscriber> {
    write_tx(conn, |c| {
        let subscriber = subscriber_of_token(c, key, purpose, token, now)?;
        then(c, subscriber)
    })
}
